//! Type errors on the lines that hold the name: where FSAC's diagnostics put an error on a
//! line holding a site or a syntax occurrence of a declared name, the compiler may have left a
//! use of the symbol unresolved there (FS0072 "Lookup on object of indeterminate type" on
//! `x.Value`), and such a use is in no references answer. fslens holds both facts, so a find
//! that has them is not complete and lists the lines (`typeErrorLines`).
//!
//! The diagnostics are those FSAC has published in this session for the running FSAC: current
//! ones (analysed at the text FSAC has now), and for a file not open in the editor the last it
//! published. A find about to answer complete that holds files with an occurrence of a name no
//! site covers (a use the compiler may have left unresolved) and no such diagnostics has FSAC
//! analyse exactly those files, as a trusted `check` does, within the find's deadline
//! (`typeErrorCheck`); a file whose diagnostics could not be had in time leaves the answer not
//! complete, with the reason. A cold find from the command line, which no check preceded, is
//! complete only when it has seen those diagnostics.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::commands::CommandError;
use crate::commands::check::{FileResult, trusted_snapshots};
use crate::commands::find::model::answer::{TypeErrorCheck, TypeErrorLine, UnknownFile};
use crate::commands::find::model::arguments::FindKind;
use crate::commands::find::model::rows::Site;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::narrowing::CompileOrder;
use crate::commands::find::phases::sweep::Swept;
use crate::commands::find::phases::target::Placement;
use crate::session_state::status::ProjectLoad;
use crate::syntax::model::{Position, TextRange};

/// A diagnostic's message is quoted up to this many characters.
const MESSAGE_CHARS: usize = 200;

/// What the find knows of FSAC's errors on the lines holding the name.
#[derive(Default)]
pub struct TypeErrors {
    pub lines: Vec<TypeErrorLine>,
    /// Present when the find had FSAC analyse files itself.
    pub check: Option<TypeErrorCheck>,
    /// The diagnostics known, by file.
    known: BTreeMap<PathBuf, Vec<Value>>,
}

impl TypeErrors {
    /// No error on a line holding the name, and no file whose diagnostics were needed unknown.
    pub fn none_seen_and_none_unknown(&self) -> bool {
        self.lines.is_empty() && self.unknown().is_empty()
    }

    /// The files whose diagnostics were needed and could not be had.
    pub fn unknown(&self) -> &[UnknownFile] {
        self.check.as_ref().map(|check| check.files_unknown.as_slice()).unwrap_or_default()
    }
}

/// The part of the stream a find formed: the files from `from_file` on, up to the file the
/// site budget stopped at (display paths). Occurrences outside it were not formed into sites.
#[derive(Clone, Copy)]
pub struct SegmentBounds<'a> {
    pub from_file: Option<&'a str>,
    pub resumes_at_file: Option<&'a str>,
}

/// What a find formed, which says the files it must have type-checked before it answers
/// complete: where it swept, what it resolved and swept, its sites and the segment of the
/// stream they were formed in.
pub struct Formed<'a> {
    pub placement: &'a Placement,
    pub resolved: &'a Resolved,
    pub swept: &'a Swept,
    pub sites: &'a [Site],
    pub segment: SegmentBounds<'a>,
}

impl SegmentBounds<'_> {
    /// Whether `file` (a display path) is inside the segment.
    pub fn holds(&self, file: &str) -> bool {
        self.from_file.is_none_or(|from| file >= from) && self.resumes_at_file.is_none_or(|stop| file < stop)
    }
}

/// The diagnostics FSAC has published in this session for the running FSAC, by file: a file
/// open in the editor's analysed at its current text, a closed file's last published.
async fn known_diagnostics(
    find: &FindRun,
    placement: &Placement,
) -> Result<BTreeMap<PathBuf, Vec<Value>>, CommandError> {
    let mut known: BTreeMap<PathBuf, Vec<Value>> = BTreeMap::new();
    for snapshot in find.context.all_analyses().await? {
        let Some(path) = crate::uri::uri_to_path(&snapshot.uri) else { continue };
        if !find.in_workspace(&path) || !placement.keeps(&path) {
            continue;
        }
        let diagnostics = snapshot.current_diagnostics().or_else(|| snapshot.last_published_of_real_text());
        if let Some(diagnostics) = diagnostics {
            known.entry(path).or_default().extend(diagnostics);
        }
    }
    Ok(known)
}

/// The names whose occurrences count: every declared name, and the identifier at the position.
fn names_of(resolved: &Resolved) -> BTreeSet<&str> {
    let mut names: BTreeSet<&str> = resolved.declared.iter().map(|declaration| declaration.name()).collect();
    names.extend(resolved.position_name.as_deref());
    names
}

/// FSAC's errors on the lines holding a site or a syntax occurrence of a declared name, from
/// the diagnostics FSAC has published in this session.
pub async fn seen(
    find: &FindRun,
    placement: &Placement,
    resolved: &Resolved,
    sites: &[Site],
) -> Result<TypeErrors, CommandError> {
    if !find.fsac.ready {
        return Ok(TypeErrors::default());
    }
    let known = known_diagnostics(find, placement).await?;
    let lines = type_error_lines(find, resolved, sites, &known);
    Ok(TypeErrors { lines, check: None, known })
}

impl TypeErrors {
    /// For a find about to answer complete: has FSAC analyse the files holding an occurrence of
    /// a name no site covers whose diagnostics are not known, and reads their errors too. True
    /// when there were such files (the verdict is then judged again).
    pub async fn diagnose_unresolved(&mut self, find: &FindRun, formed: &Formed<'_>) -> Result<bool, CommandError> {
        if !find.fsac.ready || find.kind_mode() == FindKind::Definition {
            return Ok(false);
        }
        let unresolved = files_with_unresolved_occurrences(find, formed, &self.known);
        if unresolved.is_empty() {
            return Ok(false);
        }
        let (obtained, check) = obtain_diagnostics(find, unresolved).await?;
        self.known.extend(obtained);
        self.lines = type_error_lines(find, formed.resolved, formed.sites, &self.known);
        self.check = Some(check);
        Ok(true)
    }
}

/// The lines holding a site or a syntax occurrence of a declared name on which `known` holds
/// an error (severity 1), sorted by file and line.
fn type_error_lines(
    find: &FindRun,
    resolved: &Resolved,
    sites: &[Site],
    known: &BTreeMap<PathBuf, Vec<Value>>,
) -> Vec<TypeErrorLine> {
    let names = names_of(resolved);
    let order = CompileOrder::new(&find.model, &find.overlay);
    let mut lines: BTreeMap<(String, u32), TypeErrorLine> = BTreeMap::new();
    for (path, diagnostics) in known {
        let errors: Vec<&Value> = diagnostics.iter().filter(|diagnostic| diagnostic["severity"] == 1).collect();
        if errors.is_empty() {
            continue;
        }
        // A file that cannot see any of the declarations holds none of their uses, resolved
        // or not (a script of packages only: its errors are the package's business).
        let sees_one = resolved.declared.iter().any(|declaration| order.can_see(path, &declaration.path));
        if !resolved.declared.is_empty() && !sees_one {
            continue;
        }
        let file = find.model.display_path(path);
        let mut name_lines: BTreeSet<u32> = sites
            .iter()
            .filter(|site| site.file == file)
            .flat_map(|site| site.range.start.line..=site.range.end.line)
            .collect();
        // A file none of the names is written in was not indexed for this find: it holds no
        // occurrence of them.
        if find.files().binary_search(path).is_ok() {
            let paths = [path.clone()];
            for name in &names {
                name_lines.extend(find.index.find_occurrences_in(name, &paths).iter().map(|hit| hit.position.line));
            }
        }
        for error in &errors {
            let line_of = |end: &str| error["range"][end]["line"].as_u64().map(|line| line as u32);
            let (Some(first), Some(last)) = (line_of("start"), line_of("end")) else { continue };
            for line in name_lines.range(first..=last.max(first)) {
                let message = error["message"].as_str().unwrap_or_default();
                let message: String = message.lines().next().unwrap_or_default().chars().take(MESSAGE_CHARS).collect();
                // One entry per line: the first error FSAC listed on it.
                lines.entry((file.clone(), *line)).or_insert_with(|| TypeErrorLine {
                    file: file.clone(),
                    line: *line,
                    code: error["code"].clone(),
                    message,
                });
            }
        }
    }
    lines.into_values().collect()
}

/// The files this find read that hold an occurrence of a name no site and no FSAC location
/// covers (a use the compiler may have left unresolved) and whose diagnostics are not known,
/// sorted. Only files FSAC can analyse count: compiled by a requested project FSAC loaded, in
/// the configuration it loaded, and inside the segment of the stream this find formed.
fn files_with_unresolved_occurrences(
    find: &FindRun,
    formed: &Formed<'_>,
    known: &BTreeMap<PathBuf, Vec<Value>>,
) -> Vec<PathBuf> {
    let names = names_of(formed.resolved);
    let mut loaded = LoadedFiles::default();
    let mut unresolved = Vec::new();
    for formed_file in analysable_files(find, formed) {
        let FormedFile { path, covered, compiling, .. } = formed_file;
        if known.contains_key(path) {
            continue;
        }
        let paths = [path.to_path_buf()];
        let uncovered = names
            .iter()
            .any(|name| find.index.find_occurrences_in(name, &paths).iter().any(|hit| !covers(&covered, hit.position)));
        if uncovered && loaded.any_loads(find, path, &compiling) {
            unresolved.push(path.to_path_buf());
        }
    }
    unresolved
}

/// A file of the find FSAC can analyse (in the workspace, kept, compiled by a requested project
/// FSAC loaded, inside the formed segment), with the ranges its sites and FSAC's answers cover,
/// sorted by start: where an occurrence of the name that no site covers is looked for (the
/// type-error check and the resolution of unseen occurrences both read these).
pub struct FormedFile<'a> {
    pub path: &'a Path,
    pub compiling: Vec<&'a Path>,
    pub covered: Vec<TextRange>,
}

/// The files [`FormedFile`] describes, in the find's file order.
pub fn analysable_files<'a>(find: &'a FindRun, formed: &Formed<'a>) -> Vec<FormedFile<'a>> {
    let Formed { placement, swept, sites, segment, .. } = *formed;
    let failed: HashSet<&Path> =
        find.failed_projects(&formed.resolved.declared).into_iter().map(|(project, _)| project).collect();
    let mut covered_in_file: HashMap<&str, Vec<TextRange>> = HashMap::new();
    for site in sites {
        covered_in_file.entry(site.file.as_str()).or_default().push(site.range);
    }
    let mut answered_in_file: HashMap<&Path, Vec<TextRange>> = HashMap::new();
    for (path, range) in swept.all_answers().into_iter().flatten() {
        answered_in_file.entry(path.as_path()).or_default().push(*range);
    }
    let mut files = Vec::new();
    for path in find.files() {
        if !find.in_workspace(path) || !placement.keeps(path) {
            continue;
        }
        let compiling = placement.requested_compiling(path);
        if compiling.is_empty() || placement.compiled_only_by(path, &failed) {
            continue;
        }
        let display = find.model.display_path(path);
        if !segment.holds(&display) {
            continue;
        }
        let mut covered: Vec<TextRange> = covered_in_file.get(display.as_str()).cloned().unwrap_or_default();
        covered.extend(answered_in_file.get(path.as_path()).into_iter().flatten());
        covered.sort_unstable_by_key(|range| range.start);
        files.push(FormedFile { path, compiling, covered });
    }
    files
}

/// Whether one of `ranges` (sorted by start) holds `position`. Sites do not overlap, so the
/// ranges starting at or before it on its line are the only ones that can.
pub fn covers(ranges: &[TextRange], position: Position) -> bool {
    let before = ranges.partition_point(|range| range.start <= position);
    ranges[..before]
        .iter()
        .rev()
        .take_while(|range| range.start.line == position.line || range.end >= position)
        .any(|range| position <= range.end)
}

/// The files FSAC loaded for each project (canonical paths), read from its status once per
/// project a find asks about.
#[derive(Default)]
struct LoadedFiles {
    /// `None`: FSAC said nothing of the project's files.
    by_project: HashMap<PathBuf, Option<HashSet<PathBuf>>>,
}

impl LoadedFiles {
    /// Whether FSAC loaded `path` in one of the `compiling` projects: FSAC analyses a file only
    /// in the configuration it loaded (a project whose files it did not list is taken to), and
    /// never in a project it did not load (when it named any it loaded): FSAC would never
    /// analyse the file, and the find would wait for it to its deadline.
    fn any_loads(&mut self, find: &FindRun, path: &Path, compiling: &[&Path]) -> bool {
        let canonical = |file: &Path| std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let wanted = canonical(path);
        let status = &find.fsac.status;
        compiling.iter().any(|project| {
            let files = self.by_project.entry(project.to_path_buf()).or_insert_with(|| match status.load_of(project) {
                ProjectLoad::Unknown => None,
                ProjectLoad::NotLoaded => Some(HashSet::new()),
                ProjectLoad::Loaded(loaded) => {
                    Some(loaded.files.as_ref()?.iter().map(|file| canonical(Path::new(file))).collect())
                }
            });
            files.as_ref().is_none_or(|files| files.contains(&wanted))
        })
    }
}

/// Has FSAC analyse `paths` (opening those the editor has not open, as a trusted check does)
/// until the find's sweep deadline: the diagnostics of each file analysed, and what was asked.
async fn obtain_diagnostics(
    find: &FindRun,
    paths: Vec<PathBuf>,
) -> Result<(BTreeMap<PathBuf, Vec<Value>>, TypeErrorCheck), CommandError> {
    let mut check = TypeErrorCheck::default();
    let mut obtained = BTreeMap::new();
    let display = |path: &Path| find.model.display_path(path);
    if tokio::time::Instant::now() >= find.sweep_deadline {
        check.files_unknown = paths
            .iter()
            .map(|path| UnknownFile {
                file: display(path),
                reason: "the deadline passed before FSAC could analyse it".to_owned(),
            })
            .collect();
        return Ok((obtained, check));
    }
    let uris: Vec<String> = paths.iter().filter_map(|path| crate::uri::path_to_uri(path)).collect();
    if uris.len() != paths.len() {
        return Err(CommandError::Internal("a workspace file has no file URI".to_owned()));
    }
    let mut context = find.context.clone();
    let generation = find.fsac.status.generation;
    let outcome = trusted_snapshots(&mut context, &uris, &paths, find.sweep_deadline, generation).await?;
    let after = context.status().await?;
    let fsac_went_away = after.generation != generation || !after.fsac_running;
    for (path, result) in paths.into_iter().zip(outcome.results) {
        let file = display(&path);
        let reason = match result {
            FileResult::Analysed { .. } if fsac_went_away => {
                "FSAC exited during the find; its analyses from before do not count".to_owned()
            }
            FileResult::Analysed { diagnostics, .. } => {
                check.files_analysed.push(file);
                obtained.insert(path, diagnostics);
                continue;
            }
            FileResult::Missing { why } => why,
            FileResult::Stale { .. } => "the editor changed it after FSAC analysed it".to_owned(),
        };
        check.files_unknown.push(UnknownFile { file, reason });
    }
    Ok((obtained, check))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_holds_its_files_only() {
        let whole = SegmentBounds { from_file: None, resumes_at_file: None };
        assert!(whole.holds("A.fs") && whole.holds("z/Z.fs"));
        let cut = SegmentBounds { from_file: Some("B.fs"), resumes_at_file: Some("D.fs") };
        assert_eq!(
            ["A.fs", "B.fs", "C.fs", "D.fs", "E.fs"].map(|file| cut.holds(file)),
            [false, true, true, false, false]
        );
    }

    fn range(start: (u32, u32), end: (u32, u32)) -> TextRange {
        let at = |(line, character)| Position { line, character };
        TextRange { start: at(start), end: at(end) }
    }

    #[test]
    fn an_occurrence_is_covered_by_a_range_holding_its_start() {
        let at = |line, character| Position { line, character };
        // `Types.make` (a qualified use), `x.Value`, and a range over two lines.
        let ranges = [range((2, 4), (2, 14)), range((2, 20), (2, 25)), range((5, 8), (7, 3))];
        assert!(covers(&ranges, at(2, 10)) && covers(&ranges, at(2, 20)) && covers(&ranges, at(6, 0)));
        assert!(!covers(&ranges, at(2, 16)) && !covers(&ranges, at(1, 4)) && !covers(&ranges, at(7, 9)));
        assert!(!covers(&[], at(0, 0)));
    }
}
