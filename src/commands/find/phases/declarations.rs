//! Resolution, the phase that decides which declarations a find sweeps. By name: the
//! syntax index's declarations, merged with FSAC's `workspace/symbol` for an exact name. At a
//! position (kind position): the compiler's `textDocument/definition`, or, while FSAC cannot
//! answer, the syntax index's declarations of the identifier under the position. A `.fsi`
//! signature and its implementation are one symbol: whichever was resolved, the other is
//! added (and swept), by qualified name within one project.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use crate::commands::CommandError;
use crate::commands::find::matching::{self, Declared, partner_file, range_from_json};
use crate::commands::find::model::answer::ResolutionSources;
use crate::commands::find::model::work::{FileKey, Work};
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::position::ResolvedPosition;
use crate::lsp::types::{TextDocumentPositionParams, WorkspaceSymbolParams};
use crate::syntax::model::{DeclarationKind, TextRange};

/// The source of an active-pattern case FSAC confirmed through its partner, the signature's
/// through the implementation's or the other way round
/// ([`Resolved::confirm_signature_patterns`]); `resolvedBy` on the wire.
pub const CONFIRMED_THROUGH_PARTNER: &str = "fsac-partner";

/// What resolution found.
pub struct Resolved {
    /// The declarations to sweep, sorted and de-duplicated; the signature/implementation
    /// partners added last.
    pub declared: Vec<Declared>,
    /// How many of the last `declared` are partners added by [`pair_signatures`].
    pub partner_count: usize,
    /// kind position with FSAC: where the references request is asked (the compiler's own
    /// resolution, so it holds even when the declaration is not in the workspace).
    pub anchor: Option<Anchor>,
    /// kind position: the identifier under the position.
    pub position_name: Option<String>,
    pub sources: ResolutionSources,
    pub notes: Vec<String>,
    /// Declarations the backend reported that the syntax index could not confirm: kept, and
    /// listed as a disagreement that makes the answer partial.
    pub unconfirmed: Vec<matching::Unconfirmed>,
    /// kind position: the compiler resolved no source declaration, while the syntax index
    /// holds declarations of the identifier under the position.
    pub position_unresolved_but_declared: bool,
}

/// The place kind position's references are asked at.
pub struct Anchor {
    pub uri: String,
    pub line: u32,
    pub character: u32,
}

impl Resolved {
    /// Each declaration's slot by its place (file and name range), the first at a place: a
    /// location is a declaration site by one lookup.
    pub fn slots_by_place(&self, work: &Work) -> HashMap<(FileKey, TextRange), usize> {
        let mut at = HashMap::new();
        for (slot, declaration) in self.declared.iter().enumerate() {
            at.entry((work.file_key(&declaration.path), declaration.name_range)).or_insert(slot);
        }
        at
    }

    /// A signature's active-pattern case (`val (|Cons|Nil|): …` in `Stack.fsi`) and its
    /// implementation's are one symbol to the compiler, which checks the two against each
    /// other, but the compiler service does not always link them: its references at the
    /// implementation's case (`(|Cons|Nil|)`) never hold the signature's, and at a use of a
    /// partial pattern's case (`(|Single|_|)`) they hold the signature's and, depending on
    /// which of its type checks answers, the implementation's or not. A case FSAC's references
    /// (`answered`, the sweep's places) do not hold is confirmed through its partner, source
    /// [`CONFIRMED_THROUGH_PARTNER`], when they hold the case of the same name in the
    /// file it is paired with (`Stack.fs` for `Stack.fsi`, and the other way round).
    pub fn confirm_signature_patterns(&mut self, answered: &HashSet<(FileKey, TextRange)>, work: &Work) {
        let is_pattern_case = |declaration: &Declared| declaration.kind == Some(DeclarationKind::ActivePatternCase);
        if !self.declared.iter().any(|declaration| declaration.is_signature() && is_pattern_case(declaration)) {
            return;
        }
        let is_answered =
            |declaration: &Declared| answered.contains(&(work.file_key(&declaration.path), declaration.name_range));
        let confirmed: Vec<usize> = (self.declared.iter().enumerate())
            .filter(|(_, declaration)| is_pattern_case(declaration) && !is_answered(declaration))
            .filter(|(_, declaration)| {
                let Some(partner_file) = partner_file(&declaration.path) else { return false };
                let partner_file = work.file_key(&partner_file);
                self.declared.iter().any(|partner| {
                    partner.is_signature() != declaration.is_signature()
                        && is_pattern_case(partner)
                        && partner.qualified_key() == declaration.qualified_key()
                        && work.file_key(&partner.path) == partner_file
                        && is_answered(partner)
                })
            })
            .map(|(slot, _)| slot)
            .collect();
        for slot in confirmed {
            self.declared[slot].sources.insert(CONFIRMED_THROUGH_PARTNER);
        }
    }

    fn nothing() -> Resolved {
        Resolved {
            declared: Vec::new(),
            partner_count: 0,
            anchor: None,
            position_name: None,
            sources: ResolutionSources {
                syntax_index: "answered".to_owned(),
                fsac_definition: None,
                fsac_workspace_symbol: None,
            },
            notes: Vec::new(),
            unconfirmed: Vec::new(),
            position_unresolved_but_declared: false,
        }
    }
}

/// Resolves the query (or the position) to the declarations the sweep asks about.
pub async fn resolve(find: &FindRun, position: Option<&ResolvedPosition>) -> Result<Resolved, CommandError> {
    let mut resolved = match position {
        Some(position) => at_position(find, position).await?,
        None => by_name(find).await?,
    };
    resolved.declared.sort_by(|left, right| {
        (&left.full_name, &left.path, left.name_range).cmp(&(&right.full_name, &right.path, right.name_range))
    });
    resolved.declared.dedup_by(|later, earlier| {
        find.work.compared(1);
        later.name_range == earlier.name_range && find.work.same_file(&later.path, &earlier.path)
    });
    let partners = pair_signatures(find, &resolved.declared);
    resolved.partner_count = partners.len();
    resolved.declared.extend(partners);
    name_as_the_compiler(find, &mut resolved.declared);
    Ok(resolved)
}

/// Gives each declaration the compiler's full name where it differs from the index's (see
/// [`matching::compiler_names`]): two symbols the index names alike are two rows' symbols.
fn name_as_the_compiler(find: &FindRun, declared: &mut [Declared]) {
    let text_of = |path: &Path| find.overlay.current_text_lossy(path).ok();
    let names = matching::compiler_names::CompilerNames::new(&find.index, find.files(), &text_of);
    for declaration in declared.iter_mut() {
        let Some(kind) = declaration.kind else { continue };
        let Some(file) = find.index.file(&declaration.path) else { continue };
        let range = declaration.name_range;
        let slot = file.index.declarations.iter().position(|candidate| {
            let name = candidate.name_range();
            candidate.kind == kind && name.start <= range.start && range.end <= name.end
        });
        // Only a name the index gave (FSAC's container may have named one the index lost).
        let slot = slot.filter(|slot| find.index.full_name(&file.index, *slot) == declaration.full_name);
        let compiler = slot.and_then(|slot| names.full_name(&declaration.path, slot));
        declaration.compiler_name = compiler.filter(|name| *name != declaration.full_name);
    }
    name_pairs_alike(find, declared);
}

/// A signature and its implementation are one symbol, of one name. The grammar reads some
/// files in part and loses the namespaces and modules around what it reads after an error
/// (`Loops.fsi`'s `module AsyncLoops` read as top-level under `namespace Builders`), never adds
/// one: where one of a pair's names is the other's with leading containers lost, both are named
/// by the longer (`Builders.AsyncLoops.countdownFrom`, not `AsyncLoops.countdownFrom`).
fn name_pairs_alike(find: &FindRun, declared: &mut [Declared]) {
    let names: Vec<String> = declared.iter().map(|declaration| declaration.symbol_full_name().to_owned()).collect();
    // Each declaration is compared only with those of its partner file, not with every other:
    // a name declared in every module of a monorepo stays linear.
    let mut by_file: std::collections::HashMap<&std::path::Path, Vec<usize>> = std::collections::HashMap::new();
    for (index, declaration) in declared.iter().enumerate() {
        by_file.entry(declaration.path.as_path()).or_default().push(index);
    }
    let mut renamed = Vec::new();
    for mine in 0..declared.len() {
        let Some(partner_path) = matching::partner_file(&declared[mine].path) else { continue };
        let Some(partners) = by_file.get(partner_path.as_path()) else { continue };
        let longer = partners.iter().copied().find(|&theirs| {
            find.work.compared(1);
            declared[theirs].is_signature() != declared[mine].is_signature()
                && declared[theirs].kind.is_some()
                && names[theirs].len() > names[mine].len()
                && names[theirs].ends_with(&format!(".{}", names[mine]))
        });
        if let Some(theirs) = longer {
            renamed.push((mine, names[theirs].clone()));
        }
    }
    for (mine, name) in renamed {
        declared[mine].compiler_name = Some(name);
    }
}

/// kind position: the compiler's definition of the symbol at the position (FSAC ready), else
/// the syntax index's declarations of the identifier there.
async fn at_position(find: &FindRun, position: &ResolvedPosition) -> Result<Resolved, CommandError> {
    let mut resolved = Resolved::nothing();
    resolved.position_name = position.name.clone();
    if !find.fsac.ready {
        if let Some(name) = &resolved.position_name {
            resolved.declared = indexed_declarations_named(find, name);
        }
        return Ok(resolved);
    }
    find.context.acquire_document(&position.uri, position.text.clone()).await?;
    let params = TextDocumentPositionParams::at(&position.uri, position.line, position.character);
    match find.context.backend_request("textDocument/definition", &params, find.sweep_deadline).await {
        Ok(Ok(answer)) => {
            resolved.sources.fsac_definition = Some("answered".to_owned());
            // The declaring file may hold none of the names scanned for so far.
            if let Some(path) = definition_path(&answer) {
                find.index_now(path).await?;
            }
            match compiler_declaration(find, &answer, resolved.position_name.as_deref()) {
                Some(declaration) => resolved.declared.push(declaration),
                None => {
                    resolved.notes.push(
                        "the compiler has no source declaration for this symbol (external or local); references are \
                         still searched"
                            .to_owned(),
                    );
                    // The workspace declares the name: the compiler's silence is no proof that
                    // the symbol here is none of those, so the answer cannot be complete.
                    if let Some(name) = &resolved.position_name {
                        let declared_here = indexed_declarations_named(find, name);
                        if let Some(first) = declared_here.first() {
                            resolved.notes.push(format!(
                                "the syntax index has {} declaration(s) named {name:?} in the workspace (first: {} \
                                 in {}), so the compiler's answer cannot be trusted to be complete",
                                declared_here.len(),
                                first.full_name,
                                find.model.display_path(&first.path)
                            ));
                            resolved.position_unresolved_but_declared = true;
                        }
                    }
                }
            }
        }
        Ok(Err(error)) => resolved.sources.fsac_definition = Some(format!("failed: {}", error.message)),
        Err(CommandError::Timeout) => resolved.sources.fsac_definition = Some("timedOut".to_owned()),
        Err(error) => return Err(error),
    }
    resolved.anchor = Some(Anchor { uri: position.uri.clone(), line: position.line, character: position.character });
    Ok(resolved)
}

/// The declaration a `textDocument/definition` answer points at, when it is a source location.
fn compiler_declaration(find: &FindRun, answer: &Value, name: Option<&str>) -> Option<Declared> {
    let location = if answer.is_array() { &answer[0] } else { answer };
    let range = range_from_json(&location["range"]).or_else(|| range_from_json(&location["targetSelectionRange"]));
    let path = definition_path(answer)?;
    Some(declaration_at(&find.index, &path, range?, name))
}

/// The file a `textDocument/definition` answer points into.
fn definition_path(answer: &Value) -> Option<std::path::PathBuf> {
    let location = if answer.is_array() { &answer[0] } else { answer };
    let uri = location["uri"].as_str().or(location["targetUri"].as_str()).unwrap_or_default();
    crate::uri::uri_to_path(uri)
}

/// Every declaration of `name` the syntax index holds in the workspace's files.
fn indexed_declarations_named(find: &FindRun, name: &str) -> Vec<Declared> {
    find.index
        .find_declarations_in(name, find.files())
        .into_iter()
        .map(|hit| Declared::from_index(&find.index, hit.full_name, hit.path, &hit.declaration))
        .collect()
}

/// By name: the syntax index's declarations, merged with FSAC's `workspace/symbol` when FSAC
/// is ready and the name is exact (FSAC only matches case-sensitive prefixes).
async fn by_name(find: &FindRun) -> Result<Resolved, CommandError> {
    let mut resolved = Resolved::nothing();
    resolved.declared = matching::syntax_declarations(&find.index, find.files(), &find.arguments);
    let lost_containers = matching::lost_container_places(&find.index, &resolved.declared, &find.arguments);
    if !find.fsac.ready {
        resolved.unconfirmed = lost_containers;
        return Ok(resolved);
    }
    let Some(symbol_query) = matching::workspace_symbol_query(&find.arguments) else {
        resolved.sources.fsac_workspace_symbol = Some("notApplicable (substring query)".to_owned());
        return Ok(resolved);
    };
    let params = WorkspaceSymbolParams { query: symbol_query };
    resolved.sources.fsac_workspace_symbol =
        Some(match find.context.backend_request("workspace/symbol", &params, find.sweep_deadline).await {
            Ok(Ok(answer)) => {
                index_named_files(find, &answer).await?;
                let in_workspace = |path: &Path| find.in_workspace(path);
                let text_of = |path: &Path| find.overlay.current_text_lossy(path).ok();
                resolved.unconfirmed = matching::merge_workspace_symbols(
                    &mut resolved.declared,
                    &answer,
                    &find.arguments,
                    &find.index,
                    &in_workspace,
                    &text_of,
                    &find.work,
                );
                "answered".to_owned()
            }
            Ok(Err(error)) => format!("failed: {}", error.message),
            Err(CommandError::Timeout) => "timedOut".to_owned(),
            Err(error) => return Err(error),
        });
    resolved.unconfirmed.extend(lost_containers);
    Ok(resolved)
}

/// Indexes the workspace files a `workspace/symbol` answer names that the find has not read (a
/// qualified find reads only the files that can use what it names): a declaration FSAC lists
/// there is then judged by the index's reading of its file, never kept unconfirmed for want of
/// one.
async fn index_named_files(find: &FindRun, answer: &Value) -> Result<(), CommandError> {
    let mut unread: Vec<std::path::PathBuf> = answer
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item.pointer("/location/uri").and_then(Value::as_str))
        .filter_map(crate::uri::uri_to_path)
        .filter(|path| find.in_workspace(path) && find.index.file(path).is_none())
        .collect();
    unread.sort();
    unread.dedup();
    if unread.is_empty() {
        return Ok(());
    }
    crate::commands::find::phases::candidates::index_paths(&find.index, &find.overlay, unread).await
}

/// The signature (`.fsi`) or implementation paired with each resolved declaration, compiled
/// by one project with it, that is not resolved already.
fn pair_signatures(find: &FindRun, declared: &[Declared]) -> Vec<Declared> {
    let model = &find.model;
    let same_project = |left: &Path, right: &Path| {
        let compiling_right = model.projects_compiling(right);
        model
            .projects_compiling(left)
            .iter()
            .any(|project| compiling_right.iter().any(|other| other.path == project.path))
    };
    matching::signature_partners(&find.index, find.files(), declared, &same_project, &find.work)
}

/// The declaration the compiler pointed at: the syntax index's entry at that place when it
/// has one (for the full name and kind), else the bare location. A definition that is a whole
/// banana clip `(|Even|Odd|)` asked from a use of the case `Even` is that case's declaration
/// inside the clip (the compiler's definition of a case is its pattern's range).
fn declaration_at(index: &crate::syntax::SyntaxIndex, path: &Path, range: TextRange, name: Option<&str>) -> Declared {
    let from_index = index.file(path).and_then(|file| {
        let declarations = file.index.declarations.iter().enumerate();
        let case_in_clip = declarations.clone().find(|(_, declaration)| {
            declaration.kind == DeclarationKind::ActivePatternCase
                && range.start <= declaration.name_start
                && declaration.name_range().end <= range.end
                && name.is_some_and(|name| *index.name(declaration.name) == *name)
        });
        case_in_clip
            .or_else(|| {
                declarations
                    .clone()
                    .find(|(_, declaration)| declaration.name_range() == range || declaration.name_start == range.start)
            })
            .map(|(slot, declaration)| (index.full_name(&file.index, slot), declaration.clone()))
    });
    match from_index {
        Some((full_name, declaration)) => Declared {
            full_name,
            path: path.to_path_buf(),
            name_range: declaration.name_range(),
            kind: Some(declaration.kind),
            access: Some(declaration.access),
            header_bytes: Some(declaration.header_bytes),
            sources: BTreeSet::from(["fsac-definition", "syntax-index"]),
            compiler_name: None,
        },
        None => Declared {
            full_name: name.unwrap_or("").to_owned(),
            path: path.to_path_buf(),
            name_range: range,
            kind: None,
            access: None,
            header_bytes: None,
            sources: BTreeSet::from(["fsac-definition"]),
            compiler_name: None,
        },
    }
}
