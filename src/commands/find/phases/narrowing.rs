//! A qualified find reads only the files that can use what it names.
//!
//! The byte prefilter keeps every file that holds the query's last segment; for `A.B.f`
//! whose `f` every file declares, that is every file. A file can use the declaration `A.B.f`
//! only if it can see it and can name it:
//!
//! * **see it**: the file comes at or after the declaring file in a project that compiles
//!   both, or belongs to a project that references (transitively) one that compiles it. A
//!   script sees the files it `#load`s (through the scripts it loads too), and anything when
//!   it references an assembly by path or name; one that only references packages (`#r
//!   "nuget: …"`) sees no project's file. An orphan file may see anything.
//! * **name it**: to write `f` for `A.B.f` a file must open `A.B` (`open A.B`, or `open A`
//!   then `B.f`), write it qualified, or sit inside it (`module A.B.C`, `namespace A`): each
//!   of these writes every segment of the qualifier, so the file's bytes hold `A` and `B`.
//!
//! Only the declaring file is needed to resolve the query (its full name is made of names
//! declared in that very file, so its bytes hold every segment the query writes); the files
//! that can use a resolved declaration are then picked from the files holding the name. What
//! the bytes cannot prove widens the set, never shrinks the answer:
//!
//! * a declaration inside a type (a record's field, a member, a union case: reached through a
//!   value's type, `r.Count`, without naming the type) is narrowed by visibility alone;
//! * `[<AutoOpen>]` anywhere in the declaring file (a module opened with its parent), or an
//!   assembly-level `AutoOpen` anywhere in the workspace: visibility alone;
//! * a module abbreviation (`module L = A.B`) anywhere in the workspace whose target writes a
//!   segment of the qualifier: the segments up to it are not required (`L.f` writes neither
//!   `A` nor `B`); a `module L =` whose target cannot be read from its text drops them all.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::commands::find::matching::{Declared, effective_kind, segments};
use crate::commands::find::model::arguments::{FindArguments, FindKind};
use crate::syntax::model::DeclarationKind;
use crate::syntax::{Overlay, SyntaxIndex, names};
use crate::workspace::WorkspaceModel;
use crate::workspace::scripts::{self, ScriptReach};

/// The qualifier of a query that can be narrowed: `["A", "B"]` for `A.B.f` (kinds auto,
/// symbol and definition, exact names); `None` for anything else.
pub fn qualifier_of(arguments: &FindArguments) -> Option<Vec<String>> {
    if !matches!(effective_kind(arguments), FindKind::Auto | FindKind::Symbol | FindKind::Definition)
        || !arguments.exact
    {
        return None;
    }
    let mut parts = segments(arguments.query.as_deref()?);
    let last = parts.pop()?;
    let plain = |segment: &String| !segment.trim().is_empty() && !names::is_operator(segment);
    (!parts.is_empty() && !last.trim().is_empty() && parts.iter().all(plain)).then_some(parts)
}

/// The files among `holding` (files whose bytes hold the name, not read yet) that can use one
/// of `declared`: see [the module](self).
pub fn files_that_can_use(
    index: &SyntaxIndex,
    overlay: &Overlay,
    model: &WorkspaceModel,
    workspace: &[PathBuf],
    declared: &[Declared],
    holding: &[PathBuf],
) -> Vec<PathBuf> {
    if declared.is_empty() || holding.is_empty() {
        return Vec::new();
    }
    let order = CompileOrder::new(model, overlay);
    let workers = index.options().worker_count(workspace.len());
    // The qualifier segments each declaration needs, and every segment once.
    let mut tokens: Vec<String> = vec![AUTO_OPEN.to_owned()];
    let mut chains: Vec<Option<Vec<String>>> = Vec::new();
    for declaration in declared {
        let chain = named_through_modules(index, declaration).then(|| {
            let mut chain = segments(&declaration.full_name);
            chain.pop();
            chain
        });
        for segment in chain.iter().flatten() {
            if !tokens.contains(segment) {
                tokens.push(segment.clone());
            }
        }
        chains.push(chain);
    }
    if tokens.len() > 64 {
        chains.iter_mut().for_each(|chain| *chain = None);
        tokens.truncate(1);
    }
    // Nothing named through modules (fields, members, too many qualifiers): visibility alone,
    // without reading the workspace again.
    if chains.iter().all(Option::is_none) {
        return holding
            .iter()
            .filter(|path| declared.iter().any(|declaration| order.can_see(path, &declaration.path)))
            .cloned()
            .collect();
    }
    let masks = crate::syntax::prefilter::needles_held(workspace, overlay, &tokens, workers);
    let mask_of: HashMap<&Path, u64> = workspace.iter().map(PathBuf::as_path).zip(masks.iter().copied()).collect();
    let bit = |segment: &String| tokens.iter().position(|token| token == segment).map_or(0, |slot| 1u64 << slot);
    // Assembly-level AutoOpen opens a namespace for every referencing project: no segment is needed.
    let (mut assembly_auto_open, mut alias_targets) = (false, Vec::new());
    for (path, mask) in workspace.iter().zip(&masks) {
        if *mask == 0 {
            continue;
        }
        let Some(text) = text_of(overlay, path) else {
            assembly_auto_open = true;
            continue;
        };
        if *mask & 1 != 0 && text.contains("assembly") {
            assembly_auto_open = true;
        }
        if *mask & !1 != 0 {
            alias_targets.extend(module_abbreviation_targets(&text));
        }
    }
    let required: Vec<Option<u64>> = declared
        .iter()
        .zip(&chains)
        .map(|(declaration, chain)| {
            let chain = chain.as_ref()?;
            let declaring_mask = mask_of.get(declaration.path.as_path()).copied().unwrap_or(u64::MAX);
            if assembly_auto_open || declaring_mask & 1 != 0 {
                return None;
            }
            // An abbreviation whose target writes chain[j] (or cannot be read) stands for
            // chain[..=j]: only the segments after it are needed.
            let mut needed_from = 0;
            for target in &alias_targets {
                match target {
                    None => needed_from = chain.len(),
                    Some(written) => {
                        if let Some(last) = chain.iter().rposition(|segment| written.contains(segment)) {
                            needed_from = needed_from.max(last + 1);
                        }
                    }
                }
            }
            Some(chain[needed_from..].iter().fold(0u64, |mask, segment| mask | bit(segment)))
        })
        .collect();
    holding
        .iter()
        .filter(|path| {
            let mask = mask_of.get(path.as_path()).copied().unwrap_or(u64::MAX);
            declared.iter().zip(&required).any(|(declaration, needed)| {
                needed.is_none_or(|needed| mask & needed == needed) && order.can_see(path, &declaration.path)
            })
        })
        .cloned()
        .collect()
}

const AUTO_OPEN: &str = "AutoOpen";

fn text_of(overlay: &Overlay, path: &Path) -> Option<String> {
    overlay.current_text_lossy(path).ok()
}

/// Is the declaration a module's own (every container above it in its file a module or a
/// namespace), so that a use names it through the modules? A type's field, member or case
/// is reached through a value's type and is not.
pub(super) fn named_through_modules(index: &SyntaxIndex, declaration: &Declared) -> bool {
    let Some(kind) = declaration.kind else { return false };
    let Some(file) = index.file(&declaration.path) else { return false };
    let declarations = &file.index.declarations;
    let Some(slot) = declarations
        .iter()
        .position(|candidate| candidate.kind == kind && candidate.name_range() == declaration.name_range)
    else {
        return false;
    };
    let mut chain = file.index.declaration_chain(slot);
    chain.pop();
    chain.iter().all(|ancestor| {
        declarations
            .get(*ancestor)
            .is_some_and(|ancestor| matches!(ancestor.kind, DeclarationKind::Module | DeclarationKind::Namespace))
    })
}

/// The targets of the module abbreviations in `text` (`module L = A.B` gives `["A", "B"]`),
/// read from the text: `None` for a `module X =` followed by a comment, whose target cannot
/// be told. A nested module's body (`module X =` then `let`, `type`…) is no abbreviation.
fn module_abbreviation_targets(text: &str) -> Vec<Option<Vec<String>>> {
    let bytes = text.as_bytes();
    let identifier = crate::syntax::words::is_identifier_byte;
    let mut targets = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("module") {
        let start = from + found;
        from = start + "module".len();
        if start > 0 && identifier(bytes[start - 1]) {
            continue;
        }
        let rest = &text[from..];
        if rest.as_bytes().first().is_none_or(|byte| identifier(*byte)) {
            continue;
        }
        // `module [access] Name =`, the name plain or backticked.
        let mut words = rest.trim_start();
        for modifier in ["private ", "internal ", "public ", "rec "] {
            words = words.strip_prefix(modifier).map_or(words, str::trim_start);
        }
        let name_length = if let Some(quoted) = words.strip_prefix("``") {
            quoted.find("``").map_or(0, |end| end + 4)
        } else {
            words.bytes().take_while(|byte| identifier(*byte)).count()
        };
        if name_length == 0 {
            continue;
        }
        let Some(after_equals) = words[name_length..].trim_start_matches([' ', '\t']).strip_prefix('=') else {
            continue;
        };
        let target = after_equals.trim_start();
        if target.starts_with("(*") || target.starts_with("//") {
            targets.push(None);
            continue;
        }
        let length = target
            .bytes()
            .take_while(|byte| identifier(*byte) || *byte == b'.' || *byte == b'`' || *byte == b' ')
            .count();
        let written = target[..length].trim();
        let first = written.split(['.', ' ']).next().unwrap_or("");
        const BODY_KEYWORDS: &[&str] =
            &["let", "type", "open", "module", "do", "exception", "begin", "struct", "val", "use", "extern", "rec"];
        if written.is_empty() || BODY_KEYWORDS.contains(&first) {
            continue;
        }
        targets.push(Some(segments(written).into_iter().map(|segment| segment.trim().to_owned()).collect()));
    }
    targets
}

/// The projects compiling each file, with the file's place in each, and which projects see
/// which (a project sees itself and every project it references, transitively).
pub struct CompileOrder<'a> {
    /// Unsaved buffers win over the disk when a script's directives are read.
    overlay: &'a Overlay,
    places: HashMap<&'a Path, Vec<(&'a Path, usize)>>,
    references: HashMap<&'a Path, &'a [PathBuf]>,
    seen_by: std::cell::RefCell<HashMap<&'a Path, HashSet<&'a Path>>>,
    /// What each script asked about loads and references, read once.
    scripts: std::cell::RefCell<HashMap<PathBuf, ScriptReach>>,
}

impl<'a> CompileOrder<'a> {
    pub fn new(model: &'a WorkspaceModel, overlay: &'a Overlay) -> CompileOrder<'a> {
        let mut places: HashMap<&Path, Vec<(&Path, usize)>> = HashMap::new();
        let mut references = HashMap::new();
        for project in &model.projects {
            references.insert(project.path.as_path(), project.project_references.as_slice());
            for (place, item) in project.compile_items.iter().enumerate() {
                places.entry(item.path.as_path()).or_default().push((project.path.as_path(), place));
            }
        }
        CompileOrder { overlay, places, references, seen_by: Default::default(), scripts: Default::default() }
    }

    /// Whether `script`'s directives reach `declaring` (read once per find, an unsaved buffer
    /// before the disk: a `#load` just typed counts).
    fn script_sees(&self, script: &Path, declaring: &Path) -> bool {
        let mut scripts = self.scripts.borrow_mut();
        scripts
            .entry(script.to_path_buf())
            .or_insert_with(|| scripts::reach_of(script, &|path| self.overlay.current_text(path).ok()))
            .sees(declaring)
    }

    /// Does `project` reference `declaring` (transitively)?
    fn references_transitively(&self, project: &'a Path, declaring: &Path) -> bool {
        if let Some(known) = self.seen_by.borrow().get(project) {
            return known.contains(declaring);
        }
        let visible = self.visible_from(project);
        let answer = visible.contains(declaring);
        self.seen_by.borrow_mut().insert(project, visible);
        answer
    }

    /// The projects `project` references, transitively, and itself.
    fn visible_from(&self, project: &'a Path) -> HashSet<&'a Path> {
        let mut visible = HashSet::from([project]);
        let mut pending = vec![project];
        while let Some(next) = pending.pop() {
            for reference in self.references.get(next).copied().unwrap_or_default() {
                if visible.insert(reference.as_path()) {
                    pending.push(reference.as_path());
                }
            }
        }
        visible
    }

    /// Can a file at `user` see a declaration in `declaring`? See [the module](self).
    pub fn can_see(&self, user: &Path, declaring: &Path) -> bool {
        let Some(declarings) = self.places.get(declaring) else { return true };
        let Some(users) = self.places.get(user) else {
            // A script sees a project's file only through its directives; an orphan file, anything.
            return !scripts::is_script(user) || self.script_sees(user, declaring);
        };
        users.iter().any(|(project, place)| {
            declarings.iter().any(|(declaring_project, declaring_place)| {
                if project == declaring_project {
                    place >= declaring_place
                } else {
                    self.references_transitively(project, declaring_project)
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_abbreviations_are_read_and_nested_modules_are_not() {
        let text = "module Top.Use\nmodule L = Proj.M010\nmodule private Q =\n    A.``B c``\nmodule Nested =\n    let x = 1\nmodule C = (* x *) A\nlet submodule = 1\n";
        assert_eq!(
            module_abbreviation_targets(text),
            [Some(vec!["Proj".to_owned(), "M010".to_owned()]), Some(vec!["A".to_owned(), "B c".to_owned()]), None]
        );
    }
}
