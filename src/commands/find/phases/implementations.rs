//! An abstract member and the implementations of it that one query names together (a bare
//! `Snoc` naming `IQueue.Snoc` and the `interface IQueue<'T> with member this.Snoc` of each
//! queue), and what each row then belongs to, as the compiler counts it.
//!
//! FSAC's references at an implementation are the uses of the slot it fills: the abstract
//! declaration, every implementation's header and every call through the slot. The compiler
//! gives those to the abstract member, and to an implementation only its own header, which is
//! a site of both: of the implementation (its own declaration, named by its type, `Batched.Snoc`)
//! and of the slot (FCS counts an implementation among the abstract member's uses). So, when
//! the query also names the abstract member whose references hold an implementation's header:
//!
//! * the implementation's rows that the abstract member's references hold too are the slot's
//!   (the abstract member's), but for its own header;
//! * at its header there are two rows, one for each symbol.
//!
//! And at a resolved declaration's name (in an implementation file the grammar read whole,
//! read with certainty), the row is that declaration's symbol's (with the slot's beside an
//! implementation's header): a row another declaration's references put there under its own name is not kept (a member `Cons` of type
//! `DList` and a case `Cons` of the pattern `(|Cons|Nil|)` in module `DList`, named alike, each
//! keep their own declaration).

use std::collections::{HashMap, HashSet};

use crate::commands::find::matching::Declared;
use crate::commands::find::model::rows::Site;
use crate::commands::find::model::work::FileKey;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::sweep::Swept;
use crate::syntax::model::{DeclarationKind, HealthStatus, TextRange};

/// Which of the resolved declarations implement an abstract member the query names too.
#[derive(Default)]
pub struct Implementations {
    /// By slot in `declared`: the slot of the abstract member it implements.
    abstract_of: HashMap<usize, usize>,
    /// The places each abstract member's references hold, by its slot.
    slot_places: HashMap<usize, HashSet<(FileKey, TextRange)>>,
    /// Each resolved declaration's place, to its slot (the first there).
    declared_at: HashMap<(FileKey, TextRange), usize>,
    /// The slots of the declarations whose name the index is sure of: read with certainty in
    /// an implementation file the grammar read whole.
    named_surely: HashSet<usize>,
}

impl Implementations {
    /// Pairs each implementation (an `Override`) with the abstract member whose references
    /// answer holds its header, when the query names both.
    pub fn of(find: &FindRun, resolved: &Resolved, swept: &Swept) -> Implementations {
        let work = &find.work;
        let declared = &resolved.declared;
        let declared_at = resolved.slots_by_place(work);
        let named_surely = (0..declared.len()).filter(|slot| named_surely(find, &declared[*slot])).collect();
        let mut implementations = Implementations { declared_at, named_surely, ..Implementations::default() };
        let abstracts: Vec<usize> = (0..declared.len())
            .filter(|slot| declared[*slot].kind == Some(DeclarationKind::AbstractMember))
            .filter(|slot| swept.answers.get(*slot).is_some_and(|answer| !answer.is_empty()))
            .collect();
        if abstracts.is_empty() || !declared.iter().any(|declared| declared.kind == Some(DeclarationKind::Override)) {
            return implementations;
        }
        for slot in abstracts {
            let places: HashSet<(FileKey, TextRange)> =
                swept.answers[slot].iter().map(|(path, range)| (work.file_key(path), *range)).collect();
            implementations.slot_places.insert(slot, places);
        }
        for (slot, declaration) in declared.iter().enumerate() {
            if declaration.kind != Some(DeclarationKind::Override) {
                continue;
            }
            let own = (work.file_key(&declaration.path), declaration.name_range);
            let filled = implementations
                .slot_places
                .iter()
                .filter(|(abstract_slot, places)| {
                    places.contains(&own) && declared[**abstract_slot].name() == declaration.name()
                })
                .map(|(abstract_slot, _)| *abstract_slot)
                .min();
            if let Some(abstract_slot) = filled {
                implementations.abstract_of.insert(slot, abstract_slot);
            }
        }
        implementations
    }

    /// Whether the row FSAC's references at declaration `slot` put at `place` is the slot's
    /// rather than the implementation's (see [the module](self)).
    pub fn is_slot_row(&self, slot: usize, place: &(FileKey, TextRange)) -> bool {
        let Some(abstract_slot) = self.abstract_of.get(&slot) else { return false };
        self.declared_at.get(place) != Some(&slot)
            && self.slot_places.get(abstract_slot).is_some_and(|places| places.contains(place))
    }

    /// One file's rows, before de-duplication: at a resolved declaration's name only its own
    /// symbol's row is kept; returned, the abstract member's rows to add beside the
    /// implementations' headers once the rows are de-duplicated (see [the module](self)).
    /// `key` is the file's key.
    pub fn settle_declaration_places(&self, declared: &[Declared], key: &FileKey, sites: &mut Vec<Site>) -> Vec<Site> {
        // Only a name the index is sure of: where the grammar read a file in part, its
        // containers are guesses (a module lost mid-chain), and the rows FSAC's references put
        // there name the symbol better.
        let own_symbol = |site: &Site| {
            let slot = self.declared_at.get(&(key.clone(), site.range))?;
            self.named_surely.contains(slot).then(|| declared[*slot].symbol_full_name())
        };
        // Only where a row of the declaration's own symbol is there: its name is its site.
        let owned: HashSet<TextRange> = sites
            .iter()
            .filter(|site| own_symbol(site).is_some_and(|own| site.symbol_full_name.as_deref() == Some(own)))
            .map(|site| site.range)
            .collect();
        let mut added: Vec<Site> = Vec::new();
        for site in sites.iter().filter(|site| owned.contains(&site.range)) {
            if added.iter().any(|row| row.range == site.range) {
                continue;
            }
            let Some(slot) = self.declared_at.get(&(key.clone(), site.range)) else { continue };
            let Some(abstract_slot) = self.abstract_of.get(slot) else { continue };
            if site.symbol_full_name.as_deref() != Some(declared[*slot].symbol_full_name()) {
                continue;
            }
            let slot_symbol = &declared[*abstract_slot];
            let mut row = site.clone();
            row.symbol_full_name = Some(slot_symbol.symbol_full_name().to_owned());
            row.symbol_kind = slot_symbol.symbol_kind();
            added.push(row);
        }
        sites.retain(|site| {
            !owned.contains(&site.range)
                || own_symbol(site).is_none_or(|own| site.symbol_full_name.as_deref() == Some(own))
        });
        added
    }
}

/// Whether the index is sure of the declaration's name: an implementation file's, read with
/// certainty where the grammar read the whole file.
fn named_surely(find: &FindRun, declaration: &Declared) -> bool {
    declaration.kind.is_some_and(|kind| find.indexed_with_certainty(declaration, kind))
        && !declaration.is_signature()
        && find.index.file(&declaration.path).is_some_and(|file| file.index.health.status == HealthStatus::Clean)
}
