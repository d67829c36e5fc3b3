//! Slot rows: FSAC's references at an override, or at a member of an `interface I with`
//! block, are those of every symbol at that place merged, the implementation's and the slot's
//! it fills (the abstract or interface member: every implementation of it and every call
//! through it). The compiler counts as the implementation's uses only its declaration and the
//! calls that resolve to it. So, for a query that names such an implementation (and not the
//! slot itself), the rows FSAC returned are settled before the ledger judges: a row on another
//! type's member declaration or on an abstract declaration is dropped; each other use is kept
//! only when FSAC's definition at it is one of the queried declarations, asked within the
//! find's bound on requests ([`unseen::REQUESTS_AT_MOST`]) and its deadline. A use whose
//! definition could not be had is kept, and keeps the answer from being complete, named
//! (`crossCheck.slotRows`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::commands::CommandError;
use crate::commands::find::matching::Declared;
use crate::commands::find::model::answer::SlotRows as SlotRowsSummary;
use crate::commands::find::model::rows::{Site, SiteVia, remove_rows};
use crate::commands::find::model::texts::{Texts, resolve_display};
use crate::commands::find::model::work::FileKey;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::qualified::header_words;
use crate::commands::find::phases::sweep::Swept;
use crate::commands::find::phases::unseen::{self, Definition, Occurrence, REQUESTS_AT_MOST};
use crate::syntax::model::{DeclarationKind, TextRange};

/// What settling the rows of an implementation established.
#[derive(Default)]
pub struct SlotRows {
    /// Whether the query names an override or an interface implementation (and not its slot):
    /// the rows were settled, and the answer carries `crossCheck.slotRows`.
    pub fills_a_slot: bool,
    dropped_declarations: usize,
    /// Definition requests sent (counted in the find's bound).
    pub asked: usize,
    kept_uses: usize,
    dropped_uses: usize,
    /// Whether every use was dropped with no request: the query names only members of
    /// `interface I with` blocks, which every call reaches through the interface.
    through_interface: bool,
    /// The uses whose definition could not be had, each with its reason: kept as rows.
    unresolved: Vec<(Occurrence, String)>,
}

impl SlotRows {
    /// Whether FSAC's rows may still hold the slot's uses: the answer is not complete.
    pub fn unsettled(&self) -> bool {
        self.fills_a_slot && !self.unresolved.is_empty()
    }

    /// `crossCheck.slotRows`, when the query names an implementation.
    pub fn summary(&self, display: &dyn Fn(&Path) -> String) -> Option<SlotRowsSummary> {
        self.fills_a_slot.then(|| SlotRowsSummary {
            dropped_declarations: self.dropped_declarations,
            definitions_asked: self.asked,
            kept_uses: self.kept_uses,
            dropped_uses: self.dropped_uses,
            dropped_through_interface: if self.through_interface { self.dropped_uses } else { 0 },
            unresolved: unseen::listed(&self.unresolved, display),
        })
    }

    /// The note when some rows could not be settled.
    pub fn note(&self, display: &dyn Fn(&Path) -> String) -> Option<String> {
        if !self.unsettled() {
            return None;
        }
        let places = unseen::first_places(&self.unresolved, display);
        Some(format!(
            "the query names an override or an interface implementation: FSAC reports the uses of the slot it fills \
             (every implementation of that abstract or interface member and every call through it), not of this \
             implementation alone, and FSAC's definition could not be had at {} of its rows ({}; listed in \
             crossCheck.slotRows.unresolved), which are kept, so the answer is not complete; ask for the abstract \
             or interface member itself for a complete answer",
            self.unresolved.len(),
            places.join(", ")
        ))
    }
}

/// Whether a query names an override or an interface implementation and not the slot it
/// fills: an override or a member of `interface I with` asked by name, or FSAC's sites landing
/// on the names of other member declarations (where the index cannot tell an implementation
/// from a member, a layout the grammar reads otherwise), which no references answer of one
/// member holds, but a slot's does.
pub fn fills_a_slot(find: &FindRun, resolved: &Resolved, swept: &Swept, sites: &[Site], by_position: bool) -> bool {
    let asks_no_slot = !resolved.declared.iter().any(|declared| declared.kind == Some(DeclarationKind::AbstractMember));
    swept.asked
        && !by_position
        && asks_no_slot
        && (resolved.declared.iter().any(|declared| declared.kind == Some(DeclarationKind::Override))
            || !other_member_rows(find, resolved, sites).is_empty())
}

/// Settles FSAC's rows for a query that names an implementation (see the module's comment):
/// the rows dropped are removed from `sites`.
pub async fn settle(
    find: &FindRun,
    texts: &mut Texts,
    resolved: &Resolved,
    swept: &Swept,
    sites: &mut Vec<Site>,
    by_position: bool,
) -> Result<SlotRows, CommandError> {
    let mut slots = SlotRows::default();
    if !find.fsac.ready || !fills_a_slot(find, resolved, swept, sites, by_position) {
        return Ok(slots);
    }
    slots.fills_a_slot = true;
    let other_members = other_member_rows(find, resolved, sites);
    let asked: HashSet<(FileKey, TextRange)> =
        resolved.declared.iter().map(|declared| (find.work.file_key(&declared.path), declared.name_range)).collect();
    let before = sites.len();
    sites.retain(|site| !other_members.contains(&site_place(find, site)));
    slots.dropped_declarations = before - sites.len();
    // The uses to ask about: FSAC's rows other than the queried declarations.
    let uses: Vec<usize> = (0..sites.len())
        .filter(|index| sites[*index].via == SiteVia::Fsac && !asked.contains(&site_place(find, &sites[*index])))
        .collect();
    // F# implements interfaces explicitly: a member of `interface I with` is reached only
    // through I, so every call resolves to I's slot, never to the implementation. When the
    // query names only such members, each use row is the slot's, and no definition is asked.
    if !resolved.declared.is_empty()
        && resolved.declared.iter().all(|declared| is_interface_member(find, texts, declared))
    {
        slots.dropped_uses = uses.len();
        slots.through_interface = true;
        remove_rows(sites, &uses.into_iter().collect());
        return Ok(slots);
    }
    let room = REQUESTS_AT_MOST.min(uses.len());
    let occurrences: Vec<Occurrence> = uses[..room]
        .iter()
        .map(|index| Occurrence { path: resolve_display(&find.root, &sites[*index].file), range: sites[*index].range })
        .collect();
    let mut acquired = Vec::new();
    let answered = unseen::definitions(find, texts, &occurrences, &mut acquired).await;
    for uri in &acquired {
        find.context.release_document(uri);
    }
    let (definitions, sent) = answered?;
    slots.asked = sent;
    let mut dropped: HashSet<usize> = HashSet::new();
    for ((index, occurrence), definition) in uses.iter().zip(occurrences).zip(definitions) {
        match definition {
            Definition::At(path, range) if unseen::declaration_slot(find, resolved, &path, range).is_some() => {
                slots.kept_uses += 1;
            }
            Definition::At(..) | Definition::Nothing => {
                slots.dropped_uses += 1;
                dropped.insert(*index);
            }
            Definition::Unknown(reason) => slots.unresolved.push((occurrence, reason)),
        }
    }
    for index in &uses[room..] {
        let site = &sites[*index];
        let occurrence = Occurrence { path: resolve_display(&find.root, &site.file), range: site.range };
        let reason = format!("not asked: at most {REQUESTS_AT_MOST} requests are sent per find");
        slots.unresolved.push((occurrence, reason));
    }
    remove_rows(sites, &dropped);
    Ok(slots)
}

/// Whether the declaration is a member of an `interface I with` block, read with certainty:
/// the index names it an implementation (`Override`) and its header says neither `override`
/// nor `default`.
fn is_interface_member(find: &FindRun, texts: &mut Texts, declared: &Declared) -> bool {
    if declared.kind != Some(DeclarationKind::Override)
        || !find.indexed_with_certainty(declared, DeclarationKind::Override)
    {
        return false;
    }
    let words = header_words(texts, declared);
    words.iter().any(|word| word == "member")
        && !words.iter().any(|word| matches!(word.as_str(), "override" | "default"))
}

/// A site's file and range, keyed.
fn site_place(find: &FindRun, site: &Site) -> (FileKey, TextRange) {
    (find.work.file_key(&resolve_display(&find.root, &site.file)), site.range)
}

/// FSAC's sites that are the name of a member declaration the find did not resolve (another
/// type's member, an abstract slot, another implementation).
fn other_member_rows(find: &FindRun, resolved: &Resolved, sites: &[Site]) -> HashSet<(FileKey, TextRange)> {
    let member_like = |kind: DeclarationKind| {
        matches!(kind, DeclarationKind::Member | DeclarationKind::Override | DeclarationKind::AbstractMember)
    };
    if !resolved.declared.iter().any(|declared| declared.kind.is_some_and(member_like)) {
        return HashSet::new();
    }
    let asked: HashSet<(FileKey, TextRange)> =
        resolved.declared.iter().map(|declared| (find.work.file_key(&declared.path), declared.name_range)).collect();
    // Each file's member names once (a site is one lookup, not a pass over the file's
    // declarations: a common member has thousands of sites).
    let mut members_of: HashMap<String, HashSet<TextRange>> = HashMap::new();
    sites
        .iter()
        .filter(|site| site.via == SiteVia::Fsac)
        .filter_map(|site| {
            let path = resolve_display(&find.root, &site.file);
            let members = members_of.entry(site.file.clone()).or_insert_with(|| {
                find.index.file(&path).map_or_else(HashSet::new, |file| {
                    file.index
                        .declarations
                        .iter()
                        .filter(|declaration| member_like(declaration.kind))
                        .map(|declaration| declaration.name_range())
                        .collect()
                })
            });
            let place = (find.work.file_key(&path), site.range);
            (members.contains(&site.range) && !asked.contains(&place)).then_some(place)
        })
        .collect()
}
