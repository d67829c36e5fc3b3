//! The ledger and the verdict: per requested project, whether every declaration it can see
//! was swept (`perProject`), the cross-check that FSAC's references contain every
//! declaration the syntax index resolved, and from those the answer's `outcome`, `status`,
//! `matched` and the notes that say what it could not establish.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::commands::find::matching::{Declared, same_file};
use crate::commands::find::model::answer::{Outcome, ProjectRow, ProjectStatus, Status};
use crate::commands::find::model::rows::{Site, SiteKind};
use crate::commands::find::model::texts::resolve_display;
use crate::commands::find::model::verdict::Verdict;
use crate::commands::find::model::work::{FileKey, Work};
use crate::commands::find::phases::declarations::{CONFIRMED_THROUGH_PARTNER, Resolved};
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::slots::SlotRows;
use crate::commands::find::phases::sweep::{SweepOutcome, Swept};
use crate::commands::find::phases::type_errors::TypeErrors;
use crate::commands::find::phases::unseen::Unseen;
use crate::syntax::model::{DeclarationKind, HealthStatus, Position, TextRange};
use crate::workspace::WorkspaceModel;

/// Judges the sweep: `not_found` only when FSAC is ready, every requested project was
/// analyzed and resolution answered; an incomplete empty answer is `indeterminate`. An
/// occurrence no site covers that `unseen` could not resolve keeps it from being complete.
pub fn judge(
    find: &FindRun,
    resolved: &Resolved,
    swept: &Swept,
    sites: &[Site],
    by_position: bool,
    (type_errors, unseen, slots): (&TypeErrors, &Unseen, &SlotRows),
) -> Verdict {
    let (per_project, counts) = project_ledger(find, resolved, swept, sites);
    let requested = find.target.projects.len();
    let analyzed = counts.get(&ProjectStatus::Analyzed).copied().unwrap_or(0);
    // No project at all: nothing was searched, so nothing can be `not_found` or complete.
    let no_projects = crate::commands::no_projects(&find.model);
    let swept_complete = find.fsac.ready && analyzed == requested && no_projects.is_none();
    let gaps = Gaps::of(find, resolved, swept, sites, (by_position, slots), swept_complete);
    let coverage_complete = swept_complete
        && gaps.are_none()
        && type_errors.none_seen_and_none_unknown()
        && unseen.all_resolved()
        && !resolved.position_unresolved_but_declared;
    let resolution_answered = !find.fsac.ready
        || by_position
        || resolved
            .sources
            .fsac_workspace_symbol
            .as_deref()
            .is_none_or(|value| value == "answered" || value.starts_with("notApplicable"));
    // Nothing declares the name where the index could read: a file it could not read whole
    // may still declare it, lost in an error region.
    let degraded_holders = if sites.is_empty() && resolved.declared.is_empty() && !by_position {
        degraded_holders(find)
    } else {
        Vec::new()
    };
    let (outcome, status, matched) = if !sites.is_empty() {
        (Outcome::Found, if coverage_complete { Status::Ok } else { Status::Partial }, Some(true))
    } else if no_projects.is_some() {
        (Outcome::Indeterminate, Status::Unknown, None)
    } else if coverage_complete && resolution_answered && degraded_holders.is_empty() {
        (Outcome::NotFound, Status::Ok, Some(false))
    } else {
        (Outcome::Indeterminate, Status::Unknown, None)
    };
    let mut notes = gaps.notes(find, !sites.is_empty());
    notes.extend(type_error_notes(type_errors));
    notes.extend(unseen.notes(&|path| find.model.display_path(path)));
    if !find.fsac.ready {
        notes.push(syntactic_note(&find.fsac.state));
    }
    if resolved.declared.is_empty() && !by_position {
        notes.push("no declaration matched the query".to_owned());
    }
    if !degraded_holders.is_empty() {
        let mut files: Vec<String> = degraded_holders
            .iter()
            .take(5)
            .map(|(path, at)| match at {
                Some(at) => format!("{}:{}", find.model.display_path(path), at.line + 1),
                None => find.model.display_path(path),
            })
            .collect();
        if degraded_holders.len() > 5 {
            files.push(format!("… {} more", degraded_holders.len() - 5));
        }
        notes.push(format!(
            "the name occurs in {} file(s) the grammar could not read whole ({}; listed in \
             resolution.degradedFilesHoldingName): a declaration there may be lost to the syntax index, so the \
             answer cannot be not_found",
            degraded_holders.len(),
            files.join(", ")
        ));
    }
    let failed_remedies =
        per_project.iter().filter_map(|row| row.remedy.clone().map(|remedy| (row.project.clone(), remedy))).collect();
    let Gaps { missed, unconfirmed, .. } = gaps;
    Verdict {
        per_project,
        counts,
        requested,
        analyzed,
        no_projects,
        swept_complete,
        missed,
        unconfirmed,
        coverage_complete,
        resolution_answered,
        outcome,
        status,
        matched,
        notes,
        failed_remedies,
        degraded_holders,
    }
}

/// The files this find read that the grammar could not read whole (parse health not clean)
/// and that hold the name looked for as an identifier (any spelling; for a substring query,
/// anywhere in their bytes), each with the name's first place there.
fn degraded_holders(find: &FindRun) -> Vec<(PathBuf, Option<Position>)> {
    let names = crate::commands::find::phases::candidates::query_names(&find.arguments, None);
    let mut holders = Vec::new();
    for path in find.files() {
        let Some(file) = find.index.file(path) else { continue };
        if file.index.health.status == HealthStatus::Clean {
            continue;
        }
        // A substring's place is not in the index (its bytes are what made the file a
        // candidate): the file is listed without one.
        let first = names.iter().find_map(|wanted| {
            if wanted.exact {
                let hits = find.index.find_occurrences_in(&wanted.name, std::slice::from_ref(path));
                hits.first().map(|hit| Some(hit.position))
            } else {
                Some(None)
            }
        });
        if let Some(at) = first {
            holders.push((path.clone(), at));
        }
    }
    holders
}

/// What keeps a swept find from being complete, apart from type errors: each is a note.
struct Gaps<'a> {
    /// Slots in `declared` of the declarations no references answer contained.
    missed: Vec<usize>,
    /// Slots in `declared` of the declarations the index could not confirm.
    unconfirmed: Vec<usize>,
    /// Sites in code the compiler did not see.
    inactive: Vec<&'a Site>,
    /// FSAC's references answered for the slot an override or implementation fills, and not
    /// every row could be settled ([`SlotRows`]): its note.
    slot_note: Option<String>,
    /// Module abbreviations asked by name.
    abbreviations: Vec<&'a Declared>,
    /// Files that are implicit modules of the name.
    implicit: Vec<PathBuf>,
}

impl<'a> Gaps<'a> {
    fn of(
        find: &FindRun,
        resolved: &'a Resolved,
        swept: &Swept,
        sites: &'a [Site],
        (by_position, slots): (bool, &SlotRows),
        swept_complete: bool,
    ) -> Gaps<'a> {
        // Sites in code the compiler did not see: no references answer holds them.
        let inactive: Vec<&Site> = sites.iter().filter(|site| site.kind == SiteKind::Inactive).collect();
        // The cross-check: FSAC's sets must contain every declaration the syntax index sees,
        // but for those in inactive code, which the compiler behind FSAC never saw.
        let missed = if swept_complete && swept.asked {
            let inactive_places: HashSet<(FileKey, TextRange)> = inactive
                .iter()
                .map(|site| (find.work.file_key(&resolve_display(&find.root, &site.file)), site.range))
                .collect();
            let mut missed = missed_by_backend(&resolved.declared, &swept.answered_places(&find.work), &find.work);
            missed.retain(|slot| {
                let declared = &resolved.declared[*slot];
                !inactive_places.contains(&(find.work.file_key(&declared.path), declared.name_range))
            });
            missed
        } else {
            Vec::new()
        };
        // Declarations the backend reported where the index cannot tell: kept, and not complete.
        let unconfirmed: Vec<usize> = resolved
            .unconfirmed
            .iter()
            .filter_map(|unconfirmed| {
                resolved.declared.iter().position(|declared| {
                    declared.name_range == unconfirmed.name_range && same_file(&declared.path, &unconfirmed.path)
                })
            })
            .collect();
        // An override, or a member of `interface I with`, asked by name: FSAC's references at it
        // hold the slot's uses, which `slots` settled before; a row it could not settle keeps
        // the answer from being complete.
        let slot_note = slots.note(&|path| find.model.display_path(path));
        // `module L = A.B` asked by name: the compiler resolves the abbreviation to its target,
        // so FSAC's references there are A.B's uses, not the abbreviation's.
        let abbreviations: Vec<&Declared> = if swept.asked && !by_position {
            resolved.declared.iter().filter(|declared| is_module_abbreviation(declared)).collect()
        } else {
            Vec::new()
        };
        // A file without a `module`/`namespace` line is an implicit module named after the
        // file: no text declares it, so neither source can prove it absent or find its uses.
        let implicit = if by_position { Vec::new() } else { implicit_modules_named(find) };
        Gaps { missed, unconfirmed, inactive, slot_note, abbreviations, implicit }
    }

    /// Nothing keeps the find from being complete here.
    fn are_none(&self) -> bool {
        self.inactive.is_empty()
            && self.missed.is_empty()
            && self.unconfirmed.is_empty()
            && self.slot_note.is_none()
            && self.abbreviations.is_empty()
            && self.implicit.is_empty()
    }

    /// Each gap in words (the slot note only when there are sites).
    fn notes(&self, find: &FindRun, found: bool) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.missed.is_empty() {
            notes.push(format!(
                "FSAC's references miss {} declaration(s) the syntax index sees for this qualified name (listed in \
                 crossCheck.missedByBackend), so the answer is not complete",
                self.missed.len()
            ));
        }
        if !self.unconfirmed.is_empty() {
            notes.push(format!(
                "{} declaration(s) sit where the syntax index could not read the code whole (an error region, or a \
                 container it lost there), so it can neither confirm nor rule them out; they are kept and swept, \
                 and listed in crossCheck.unconfirmedByIndex with the reason, so the answer is not complete",
                self.unconfirmed.len()
            ));
        }
        if found {
            notes.extend(self.slot_note.clone());
        }
        for abbreviation in &self.abbreviations {
            notes.push(format!(
                "{} ({}:{}) abbreviates another module (`module L = A.B`): FSAC reports the uses of the module it \
                 stands for, which the compiler does not count as the abbreviation's, so the answer is not complete",
                abbreviation.full_name,
                find.model.display_path(&abbreviation.path),
                abbreviation.name_range.start.line + 1
            ));
        }
        for path in &self.implicit {
            notes.push(format!(
                "{} has no `module` or `namespace` line, so it is the implicit module of that name, which no text \
                 declares: its uses (qualified names, `open`s) are not searched, so the answer is not complete",
                find.model.display_path(path)
            ));
        }
        if !self.inactive.is_empty() {
            let conditions = self.inactive.iter().filter_map(|site| site.condition.as_deref());
            let mut conditions: Vec<&str> = conditions.collect::<BTreeSet<_>>().into_iter().collect();
            conditions.truncate(5);
            notes.push(format!(
                "{} site(s) are in code inactive under the defines the project is loaded with ({}): the compiler \
                 behind FSAC never saw them, so they are rows of kind inactive with their condition, matched by \
                 name, and the answer is not complete",
                self.inactive.len(),
                conditions.join(", ")
            ));
        }
        notes
    }
}

/// The notes of FSAC's errors on lines holding the name, and of the files whose diagnostics
/// the find needed and could not have.
fn type_error_notes(type_errors: &TypeErrors) -> Vec<String> {
    let mut notes = Vec::new();
    let type_error_lines = &type_errors.lines;
    if !type_error_lines.is_empty() {
        let mut lines: Vec<String> =
            type_error_lines.iter().take(5).map(|error| format!("{}:{}", error.file, error.line + 1)).collect();
        if type_error_lines.len() > 5 {
            lines.push(format!("… {} more", type_error_lines.len() - 5));
        }
        notes.push(format!(
            "FSAC reports a type error on {} line(s) holding the name ({}; listed in typeErrorLines): a use the \
             compiler could not resolve there is in no references answer, so the answer is not complete",
            type_error_lines.len(),
            lines.join(", ")
        ));
    }
    let unknown = type_errors.unknown();
    if !unknown.is_empty() {
        let mut files: Vec<String> =
            unknown.iter().take(5).map(|file| format!("{} ({})", file.file, file.reason)).collect();
        if unknown.len() > 5 {
            files.push(format!("… {} more", unknown.len() - 5));
        }
        notes.push(format!(
            "{} file(s) hold an occurrence of the name that no site covers, and FSAC's diagnostics of them could \
             not be had ({}; listed in typeErrorCheck.filesUnknown): a type error there may leave a use of the \
             symbol unresolved, in no references answer, so the answer is not complete. Raise timeoutMs, or run \
             fslens check on them first",
            unknown.len(),
            files.join(", ")
        ));
    }
    notes
}

/// The note of a syntactic answer. Only while FSAC is starting or loading does waiting make
/// it certain; absent or crashed, it never loads in this session by itself.
pub fn syntactic_note(state: &str) -> String {
    let remedy = match state {
        "absent" | "crashed" => format!(
            "FSAC is not running ({state}), so waiting does not make it certain: fslens.status says why, and only \
             a session where FSAC runs can give a certain answer."
        ),
        _ => "It is certain once FSAC has loaded the workspace: wait with fslens.status {\"waitUntil\": \"ready\"} \
              and repeat the request."
            .to_owned(),
    };
    format!(
        "FSAC is {state}, so this answer is syntactic: sites match by name only and a site of a same-named symbol \
         may be listed (symbolFullName is null where the name is ambiguous). {remedy}"
    )
}

/// The declarations the syntax index resolved for this symbol (signatures and
/// implementations) that none of FSAC's references answers contains: a `complete` answer must
/// contain every one, so each missing one makes the answer partial and is named in it (but a
/// signature's or implementation's active-pattern case FSAC confirmed through its partner, see
/// [`Resolved::confirm_signature_patterns`]).
fn missed_by_backend(declared: &[Declared], answered: &HashSet<(FileKey, TextRange)>, work: &Work) -> Vec<usize> {
    declared
        .iter()
        .enumerate()
        .filter(|(_, declaration)| declaration.sources.contains("syntax-index"))
        .filter(|(_, declaration)| !declaration.sources.contains(CONFIRMED_THROUGH_PARTNER))
        .filter(|(_, declaration)| {
            work.compared(1);
            !answered.contains(&(work.file_key(&declaration.path), declaration.name_range))
        })
        .map(|(slot, _)| slot)
        .collect()
}

/// The per-project ledger: a requested project is analyzed when every declaration it can see
/// was swept (or none is visible from it); otherwise the worst outcome among those it can
/// see. FSAC's project load errors make a project `failed`.
fn project_ledger(
    find: &FindRun,
    resolved: &Resolved,
    swept: &Swept,
    sites: &[Site],
) -> (Vec<ProjectRow>, BTreeMap<ProjectStatus, usize>) {
    let unswept_elsewhere = find.unswept_projects();
    let failed = find.failed_among(unswept_elsewhere.clone(), &resolved.declared);
    let mut per_project = Vec::new();
    let mut counts: BTreeMap<ProjectStatus, usize> = BTreeMap::new();
    let groups = if find.fsac.ready && swept.asked && swept.anchor_outcome.is_none() {
        declarations_seen_by(find, resolved, swept)
    } else {
        Vec::new()
    };
    // Sites per project, counted in one pass (not one pass over the sites per project).
    let mut sites_per_project: HashMap<&str, usize> = HashMap::new();
    for site in sites {
        if let Some(project) = site.project.as_deref() {
            *sites_per_project.entry(project).or_default() += 1;
        }
    }
    for project in &find.target.projects {
        let display = find.model.display_path(project);
        let unswept = failed.iter().find(|(failed, _)| failed == project).map(|(_, why)| *why);
        let (outcome, relevant) = project_outcome(find, swept, &groups, project, unswept.map(|why| why.reason()));
        *counts.entry(outcome.status()).or_default() += 1;
        let reason = match &outcome {
            SweepOutcome::Failed(reason) | SweepOutcome::Busy(reason) => Some(reason.clone()),
            SweepOutcome::NotStarted if !find.fsac.ready => {
                Some(format!("FSAC is {}: answered from the syntax layer", find.fsac.state))
            }
            SweepOutcome::NotStarted => Some("the deadline passed before this project's turn".to_owned()),
            SweepOutcome::TimedOut => Some("FSAC did not answer before the deadline".to_owned()),
            SweepOutcome::Analyzed if swept.asked && relevant == 0 && swept.anchor_outcome.is_none() => {
                let unloaded = unswept_elsewhere.iter().any(|(unswept, _)| unswept == project);
                Some(if unloaded {
                    "FSAC did not sweep this project, but no resolved declaration is visible from it, so it cannot \
                     use one"
                        .to_owned()
                } else {
                    "no resolved declaration is visible from this project, so it cannot use one".to_owned()
                })
            }
            SweepOutcome::Analyzed => None,
        };
        per_project.push(ProjectRow {
            sites: sites_per_project.get(display.as_str()).copied().unwrap_or(0),
            remedy: unswept.map(|why| why.remedy(&display)),
            project: display,
            status: outcome.status(),
            declarations_swept: relevant,
            reason,
        });
    }
    (per_project, counts)
}

/// One requested project's outcome, and how many swept declarations it can see.
fn project_outcome(
    find: &FindRun,
    swept: &Swept,
    groups: &[SeenBy<'_>],
    project: &Path,
    unswept: Option<String>,
) -> (SweepOutcome, usize) {
    if !find.fsac.ready {
        return (SweepOutcome::NotStarted, 0);
    }
    if let Some(reason) = unswept {
        return (SweepOutcome::Failed(reason), 0);
    }
    if !swept.asked {
        return (SweepOutcome::Analyzed, 0);
    }
    if let Some(outcome) = &swept.anchor_outcome {
        return (outcome.clone(), 1);
    }
    // The worst outcome among the declarations this project sees: the most severe, the first
    // in `declared` order among equals.
    let mut worst: Option<(u8, usize, &SweepOutcome)> = None;
    let mut relevant = 0;
    for group in groups {
        find.work.compared(1);
        if group.seeing.contains(project) {
            relevant += group.declarations;
            if let Some((severity, slot, outcome)) = group.worst
                && worst.is_none_or(|(worst_severity, worst_slot, _)| {
                    severity > worst_severity || (severity == worst_severity && slot < worst_slot)
                })
            {
                worst = Some((severity, slot, outcome));
            }
        }
    }
    let worst = worst.map_or(SweepOutcome::Analyzed, |(_, _, outcome)| outcome.clone());
    (worst, relevant)
}

/// The swept declarations grouped by the projects compiling their file: each group's
/// projects that can see it, its size, and its worst outcome (more severe than `analyzed`:
/// severity, first slot, outcome). A project's ledger row reads the groups, not every
/// declaration (a name declared in every module made that projects × declarations, each with
/// a walk over the project graph).
struct SeenBy<'a> {
    seeing: HashSet<PathBuf>,
    declarations: usize,
    worst: Option<(u8, usize, &'a SweepOutcome)>,
}

fn declarations_seen_by<'a>(find: &FindRun, resolved: &Resolved, swept: &'a Swept) -> Vec<SeenBy<'a>> {
    let mut groups: Vec<SeenBy<'a>> = Vec::new();
    let mut group_of: HashMap<Vec<PathBuf>, usize> = HashMap::new();
    let mut compiling_of: HashMap<&Path, Vec<PathBuf>> = HashMap::new();
    let analyzed = SweepOutcome::Analyzed.severity();
    for (slot, (declaration, outcome)) in resolved.declared.iter().zip(&swept.outcomes).enumerate() {
        let compiling = compiling_of
            .entry(declaration.path.as_path())
            .or_insert_with(|| {
                let mut projects: Vec<PathBuf> = find
                    .model
                    .projects_compiling(&declaration.path)
                    .iter()
                    .map(|project| project.path.clone())
                    .collect();
                projects.sort();
                projects
            })
            .clone();
        let group = *group_of.entry(compiling).or_insert_with(|| {
            groups.push(SeenBy {
                seeing: projects_seeing(&find.model, &declaration.path),
                declarations: 0,
                worst: None,
            });
            groups.len() - 1
        });
        let group = &mut groups[group];
        group.declarations += 1;
        let severity = outcome.severity();
        if severity > analyzed && group.worst.is_none_or(|(worst, _, _)| severity > worst) {
            group.worst = Some((severity, slot, outcome));
        }
    }
    groups
}

/// The requested projects that can see `path`: those compiling it and, transitively,
/// those referencing them (the projects FSAC searches, §5.5).
pub(super) fn projects_seeing(model: &WorkspaceModel, path: &Path) -> HashSet<PathBuf> {
    let mut seeing: HashSet<PathBuf> =
        model.projects_compiling(path).iter().map(|project| project.path.clone()).collect();
    loop {
        let before = seeing.len();
        for project in &model.projects {
            if !seeing.contains(&project.path)
                && project.project_references.iter().any(|reference| seeing.contains(reference))
            {
                seeing.insert(project.path.clone());
            }
        }
        if seeing.len() == before {
            return seeing;
        }
    }
}

/// Whether a module declaration is an abbreviation, `module L = A.B` on its line.
fn is_module_abbreviation(declared: &Declared) -> bool {
    if declared.kind != Some(DeclarationKind::Module) {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(&declared.path) else { return false };
    let Some(line) = text.lines().nth(declared.name_range.start.line as usize) else { return false };
    let Some(rest) = line.trim_start().strip_prefix("module") else { return false };
    let Some((_, target)) = rest.split_once('=') else { return false };
    let target = target.split("//").next().unwrap_or_default().trim();
    !target.is_empty()
        && target.split('.').all(|segment| {
            let segment = segment.trim();
            !segment.is_empty()
                && segment.chars().all(|character| character.is_alphanumeric() || "_'`".contains(character))
        })
}

/// The workspace's source files whose implicit module (a file without a top-level `module` or
/// `namespace` line is a module named after the file, its first letter capitalised) has the
/// query's name.
fn implicit_modules_named(find: &FindRun) -> Vec<PathBuf> {
    let Some(wanted) = find.arguments.query.as_deref().and_then(implicit_module_query) else {
        return Vec::new();
    };
    find.model
        .source_files
        .iter()
        // An ASCII stem of another length cannot be the name: no name is built for it (every find
        // passes over every source file here).
        .filter(|path| path.file_stem().is_some_and(|stem| stem.len() == wanted.len() || !stem.is_ascii()))
        .filter(|path| implicit_module_name(path).is_some_and(|name| name == wanted))
        .filter(|path| !declares_module_or_namespace(path))
        .cloned()
        .collect()
}

/// The name an implicit module must have for `query` to name it: the query itself, when it is
/// one segment. An implicit module is top-level, its full name its own, so a qualified query
/// (`UnionCaseParseResult.Index`, a field) never names one, whatever its last segment (Argu's
/// documentation script `index.fsx` kept that query from being complete).
fn implicit_module_query(query: &str) -> Option<String> {
    let mut segments = crate::commands::find::matching::segments(query);
    if segments.len() == 1 { segments.pop() } else { None }
}

/// The compiler's name for a file's implicit module: the file name without its extension,
/// first letter in upper case.
fn implicit_module_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let mut characters = stem.chars();
    let first = characters.next()?;
    Some(first.to_uppercase().chain(characters).collect())
}

/// Whether the file's first line of code is `module A.B` (no `=`) or `namespace …`; an
/// unreadable file counts as not (nothing proves it declares its module).
fn declares_module_or_namespace(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    let mut in_comment = false;
    for line in text.trim_start_matches('\u{feff}').lines() {
        let line = line.trim();
        if in_comment {
            in_comment = !line.contains("*)");
            continue;
        }
        if line.starts_with("(*") && !line.starts_with("(*)") {
            in_comment = !line.contains("*)");
            continue;
        }
        if line.is_empty() || line.starts_with("//") || line.starts_with('#') || line.starts_with("[<") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        return match words.first() {
            Some(&"namespace") => true,
            Some(&"module") => !line.contains('='),
            _ => false,
        };
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{implicit_module_query, syntactic_note};

    #[test]
    fn only_a_query_of_one_segment_can_name_an_implicit_module() {
        assert_eq!(implicit_module_query("Index").as_deref(), Some("Index"));
        assert_eq!(implicit_module_query("UnionCaseParseResult.Index"), None);
        assert_eq!(implicit_module_query("Argu.Index"), None);
    }

    #[test]
    fn a_syntactic_answer_promises_certainty_only_while_fsac_loads() {
        for state in ["starting", "loading"] {
            assert!(syntactic_note(state).contains("certain once FSAC has loaded"), "{state}");
        }
        for state in ["absent", "crashed"] {
            let note = syntactic_note(state);
            assert!(!note.contains("certain once FSAC has loaded") && note.contains("not running"), "{note}");
        }
    }
}
