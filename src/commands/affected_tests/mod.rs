//! `fslens.affectedTests`: the tests a change reaches, each with its reason. The change is
//! what git says changed since `since` (committed and uncommitted), the files `files` names
//! (against `since`, default `HEAD`), or the editor's unsaved buffers against the disk (the
//! default when there are any; else the uncommitted changes). Each changed `.fs`/`.fsi` is
//! compared as syntax trees before and after ([`changes`]); each changed declaration is walked
//! to the tests by testsForSymbol's [`reach`] (find's sites, the declarations around them,
//! up to `maxDepth` levels). A removed declaration's former uses are found by name (the
//! compiler no longer knows it) and the tests there no longer compile. A changed project file
//! selects every test of the test projects it affects. `run: true` runs the VSTest-runnable
//! ones through runTests and sets each result beside its reasons.

pub mod changes;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::find::answer::Completeness;
use crate::commands::find::arguments::{FindTimeoutMs, check_name};
use crate::commands::params::{Bounded, CommandArguments};
use crate::commands::run_tests::{self, RunTestsAnswer};
use crate::commands::tests_for_symbol::projects;
use crate::commands::tests_for_symbol::reach::{self, Bounds, Step, TestProject, Walk};
use crate::commands::tests_for_symbol::{Framework, TestRow};
use crate::commands::{CommandContext, CommandError};
use crate::deadline::Deadline;
use crate::syntax::model::GrammarKind;
use crate::syntax::parse::FsharpParsers;
use crate::workspace::WorkspaceModel;
use changes::{ChangeKind, ChangedDeclaration};

/// The arguments of `fslens.affectedTests` (and the flags of `fslens affected-tests`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AffectedTestsArguments {
    /// A git revision (`HEAD~3`, a branch, a commit): the change is everything committed and
    /// uncommitted since it, untracked files included. Default: the editor's unsaved buffers
    /// when there are any, else `HEAD` (the uncommitted changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub since: Option<String>,
    /// Only these changed files (relative to the workspace root), compared against `since`
    /// (default `HEAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub files: Option<Vec<String>>,
    /// Run the selected tests through the session's FSAC (as runTests does) and give each
    /// result beside its reasons.
    #[serde(default)]
    #[arg(long)]
    pub run: bool,
    /// How many levels of functions are followed from a changed declaration to the tests;
    /// default 3.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_depth: Bounded<0, 10, 3>,
    /// At most this many functions are followed in all; default 100.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_intermediate: Bounded<0, 1000, 100>,
    /// One deadline for every find of the walk, in milliseconds (a run has runTests' own).
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub timeout_ms: FindTimeoutMs,
}

impl CommandArguments for AffectedTestsArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if let Some(since) = &self.since {
            check_name("since", since)?;
            if since.starts_with('-') {
                return Err(CommandError::invalid_argument("since", "a git revision does not start with `-`"));
            }
        }
        if let Some(files) = &self.files {
            if files.is_empty() {
                return Err(CommandError::invalid_argument("files", "must name at least one file"));
            }
            if let Some(index) = files.iter().position(|file| file.trim().is_empty()) {
                return Err(CommandError::invalid_argument(&format!("files[{index}]"), "must not be empty"));
            }
        }
        Ok(())
    }
}

/// Where the change came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ChangeSource {
    /// git: everything since `revision` (of the files named, when `files` was given).
    Since { revision: String },
    /// The editor's unsaved buffers against the disk.
    Buffers,
}

/// One changed declaration and how many tests it reaches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedRow {
    pub path: String,
    pub name: String,
    pub qualified_name: String,
    pub declaration_kind: String,
    pub change: ChangeKind,
    /// 0-based line of its name (before the change, for a removed one).
    pub line: u32,
    pub tests: usize,
    /// find's completeness for it (absent for a removed one: found by name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completeness: Option<Completeness>,
}

/// A changed project file and the test projects it affects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectChangeRow {
    pub path: String,
    pub test_projects: Vec<String>,
}

/// Why a test is selected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    /// What changed: a declaration's `added`/`removed`/`signature`/`body`, or
    /// `projectFile` for a changed project file.
    pub change: String,
    /// From the changed declaration (or project file) to the test, the test last.
    pub chain: Vec<Step>,
    /// The test used a removed declaration: it no longer compiles.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_longer_compiles: bool,
}

/// One selected test, its reasons and (with `run`) its result.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AffectedTest {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fully_qualified_name: Option<String>,
    pub framework: Framework,
    pub project: String,
    pub path: String,
    /// 0-based line of the test's name.
    pub line: u32,
    pub reasons: Vec<Reason>,
    /// Its results when run (a theory has one per data row).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<run_tests::TestRow>,
}

/// A test of the projects involved that the walk did not select.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackTest {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fully_qualified_name: Option<String>,
    pub project: String,
    pub path: String,
    pub line: u32,
}

/// The answer of `fslens.affectedTests`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AffectedTestsAnswer {
    /// Always `affectedTests`.
    pub tool: String,
    pub source: ChangeSource,
    /// `true` only when every find of the walk was complete, no bound cut a chain and every
    /// change was attributed to a declaration; else `missing` says why and `fallbackTests`
    /// lists the other tests of the projects involved.
    pub complete: bool,
    /// The depth covered (`maxDepth`).
    pub depth: u32,
    /// The changed files read (relative to the workspace root).
    pub changed_files: Vec<String>,
    pub changed_declarations: Vec<ChangedRow>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub project_changes: Vec<ProjectChangeRow>,
    pub total_tests: usize,
    pub tests: Vec<AffectedTest>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// With `complete: false`: the tests running every test of the projects involved adds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback_tests: Vec<FallbackTest>,
    /// With `run`: runTests' answer (its per-test results are under `tests`; results matching
    /// no selected test stay here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunTestsAnswer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub elapsed_ms: u64,
}

/// A run's failures are errors; an unfinished run or walk is not definite.
impl crate::commands::outcome::Answered for AffectedTestsAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        use crate::commands::outcome::Outcome;
        match &self.run {
            Some(run) if run.status != run_tests::RunStatus::Ok => Outcome::NotDefinite,
            Some(run) if run.totals.failed > 0 => Outcome::Errors,
            _ => crate::commands::outcome::definite_if(self.complete),
        }
    }
}

/// One changed file: its path and its text before and after (`None`: absent then).
struct ChangedFile {
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
}

/// The project files whose change affects the projects under them.
const PROJECT_FILES: [&str; 3] = ["Directory.Build.props", "Directory.Packages.props", "global.json"];

/// Whether a path is an F# source or a project file the answer reads.
fn wanted(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    GrammarKind::for_path(path).is_some() || name.ends_with(".fsproj") || PROJECT_FILES.contains(&name)
}

/// What the walk and the project files select, keyed like the tests of [`reach`].
#[derive(Default)]
struct Selection {
    tests: BTreeMap<(String, String, u32, String), AffectedTest>,
    missing: Vec<String>,
    /// Projects compiling a changed file or holding a changed project file.
    involved: BTreeSet<PathBuf>,
}

impl Selection {
    fn add(&mut self, row: TestRow, reason: Reason) {
        let key = reach::test_key(&row);
        let test = self.tests.entry(key).or_insert_with(|| AffectedTest {
            name: row.name.clone(),
            fully_qualified_name: row.fully_qualified_name.clone(),
            framework: row.framework,
            project: row.project.clone(),
            path: row.path.clone(),
            line: row.line,
            reasons: Vec::new(),
            results: Vec::new(),
        });
        if !test.reasons.contains(&reason) {
            test.reasons.push(reason);
        }
    }
}

/// `fslens.affectedTests`.
pub async fn affected_tests(
    arguments: AffectedTestsArguments,
    context: CommandContext,
) -> Result<AffectedTestsAnswer, CommandError> {
    let started = Instant::now();
    let deadline = Deadline::after(started, arguments.timeout_ms.as_duration_ms());
    let root = context.workspace_root()?.to_path_buf();
    let model = crate::commands::load_workspace_model(&root).await?;
    let test_projects = reach::test_projects(&model);
    let overlay = context.editor_buffers().await?;
    let (source, files) = the_change(&arguments, &root, &overlay, &context).await?;
    let bounds = Bounds {
        max_depth: arguments.max_depth.get() as u32,
        max_functions: arguments.max_intermediate.as_usize(),
        deadline,
    };
    let mut walk = Walk::new(&root, &model, &test_projects, overlay, bounds, context.clone());
    let mut selection = Selection::default();
    let mut changed_rows = Vec::new();
    let mut project_changes = Vec::new();
    let mut parsers = FsharpParsers::new();
    for file in &files {
        let display = model.display_path(&file.path);
        if let Some(grammar) = GrammarKind::for_path(&file.path) {
            let found =
                changes::changed_declarations(&mut parsers, grammar, file.before.as_deref(), file.after.as_deref());
            if let Some(why) = &found.unparsed {
                selection.missing.push(format!("{display} did not parse: {why}"));
            }
            if found.outside_declarations {
                selection.missing.push(format!("{display} changed outside every declaration (an `open`, a `do`, …)"));
            }
            for project in model.projects_compiling(&file.path) {
                selection.involved.insert(project.path.clone());
            }
            for changed in found.declarations {
                let row = reach_from(&mut walk, &mut selection, &file.path, &display, &changed).await?;
                changed_rows.push(row);
            }
        } else {
            let affected = projects_affected_by(&model, &file.path);
            let row = select_whole_projects(&mut walk, &mut selection, &model, &affected, &display);
            project_changes.push(row);
        }
    }
    walk_findings(&walk, &mut selection.missing);
    let complete = selection.missing.is_empty();
    let fallback_tests = if complete { Vec::new() } else { fallback(&mut walk, &model, &selection) };
    let mut tests: Vec<AffectedTest> = std::mem::take(&mut selection.tests).into_values().collect();
    let mut notes = Vec::new();
    if files.is_empty() {
        notes.push(match &source {
            ChangeSource::Buffers => "no change: no unsaved buffer differs from the disk".to_owned(),
            ChangeSource::Since { revision } => format!("no F# source or project file changed since {revision}"),
        });
    }
    let run = if arguments.run { run_selected(&mut tests, &test_projects, &context, &mut notes).await? } else { None };
    Ok(AffectedTestsAnswer {
        tool: "affectedTests".to_owned(),
        source,
        complete,
        depth: bounds.max_depth,
        changed_files: files.iter().map(|file| model.display_path(&file.path)).collect(),
        changed_declarations: changed_rows,
        project_changes,
        total_tests: tests.len(),
        tests,
        missing: selection.missing,
        fallback_tests,
        run,
        notes,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// The changed files and where they came from: git since a revision (only `files`, when
/// given), or the unsaved buffers.
async fn the_change(
    arguments: &AffectedTestsArguments,
    root: &Path,
    overlay: &crate::syntax::index::Overlay,
    context: &CommandContext,
) -> Result<(ChangeSource, Vec<ChangedFile>), CommandError> {
    let named: Option<Vec<PathBuf>> = match &arguments.files {
        Some(files) => Some(
            files
                .iter()
                .enumerate()
                .map(|(index, file)| crate::commands::paths::confine(root, file, &format!("files[{index}]")))
                .collect::<Result<_, _>>()?,
        ),
        None => None,
    };
    if arguments.since.is_none() && named.is_none() {
        let unsaved = unsaved_buffers(overlay);
        if !unsaved.is_empty() {
            return Ok((ChangeSource::Buffers, unsaved));
        }
    }
    let revision = arguments.since.clone().unwrap_or_else(|| "HEAD".to_owned());
    let changed =
        context.git_changes(&revision, wanted).await?.map_err(|why| CommandError::invalid_argument("since", why))?;
    let files = changed
        .into_iter()
        .filter(|change| named.as_ref().is_none_or(|named| named.contains(&change.path)))
        .map(|change| {
            let after = overlay.current_text(&change.path).ok();
            ChangedFile { path: change.path, before: change.before, after }
        })
        .filter(|file| file.before != file.after)
        .collect();
    Ok((ChangeSource::Since { revision }, files))
}

/// The editor's buffers whose text is not the disk's.
fn unsaved_buffers(overlay: &crate::syntax::index::Overlay) -> Vec<ChangedFile> {
    let mut paths: Vec<&PathBuf> = overlay.paths().filter(|path| wanted(path)).collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let after = overlay.get(path).map(|text| text.to_string());
            let before = std::fs::read_to_string(path).ok();
            (after != before).then(|| ChangedFile { path: path.clone(), before, after })
        })
        .collect()
}

/// Walks from one changed declaration to the tests; its row.
async fn reach_from(
    walk: &mut Walk<'_>,
    selection: &mut Selection,
    path: &Path,
    display: &str,
    changed: &ChangedDeclaration,
) -> Result<ChangedRow, CommandError> {
    let start = Step { name: changed.name.clone(), path: display.to_owned(), line: changed.line };
    let mut row = ChangedRow {
        path: display.to_owned(),
        name: changed.name.clone(),
        qualified_name: changed.qualified.clone(),
        declaration_kind: changed.declaration_kind.to_owned(),
        change: changed.change,
        line: changed.line,
        tests: 0,
        completeness: None,
    };
    let change = changed.change.wire_name().to_owned();
    if changed.change == ChangeKind::Removed {
        let reached = reach_removed(walk, path, display, changed).await?;
        row.tests = reached.len();
        selection.missing.push(format!(
            "{} ({display}) was removed: its former uses were matched by name (the compiler no longer knows it)",
            changed.qualified
        ));
        for (test, chain) in reached {
            selection.add(test, Reason { change: change.clone(), chain, no_longer_compiles: true });
        }
        return Ok(row);
    }
    // A changed test (or a declaration holding tests) is selected itself.
    for (project, test) in walk.tests_on_lines(path, changed.first_line, changed.last_line) {
        walk.add_test(test, project, display, vec![start.clone()]);
    }
    let found = match walk.sites_at(display, changed.line, changed.character).await {
        Ok(found) => found,
        Err(CommandError::Cancelled) => return Err(CommandError::Cancelled),
        Err(error) => {
            selection
                .missing
                .push(format!("find failed at {} ({display}:{}): {error}", changed.qualified, changed.line));
            let reached = std::mem::take(&mut walk.tests);
            row.tests = reached.len();
            for test in reached.into_values() {
                let chain = test.chain.clone();
                selection.add(test, Reason { change: change.clone(), chain, no_longer_compiles: false });
            }
            return Ok(row);
        }
    };
    row.completeness = Some(found.completeness);
    if found.completeness != Completeness::Complete {
        selection.missing.push(format!(
            "find's answer for {} ({display}:{}) is {}",
            changed.qualified,
            changed.line,
            found.completeness.as_str()
        ));
    }
    walk.walk_from(start, Some((path.to_path_buf(), changed.line)), &found).await?;
    let reached = std::mem::take(&mut walk.tests);
    row.tests = reached.len();
    for test in reached.into_values() {
        let chain = test.chain.clone();
        selection.add(test, Reason { change: change.clone(), chain, no_longer_compiles: false });
    }
    Ok(row)
}

/// The tests that used a removed declaration: its name's word occurrences in the files of the
/// projects that could see it, each mapped to the test or function around it (functions
/// walked on); each with its chain.
async fn reach_removed(
    walk: &mut Walk<'_>,
    path: &Path,
    display: &str,
    changed: &ChangedDeclaration,
) -> Result<Vec<(TestRow, Vec<Step>)>, CommandError> {
    let start = Step { name: changed.name.clone(), path: display.to_owned(), line: changed.line };
    // The declaration's own former lines are not a use.
    let positions: Vec<reach::Position> = walk
        .word_occurrences(&changed.name)
        .into_iter()
        .filter(|position| position.path != path || position.line != changed.line)
        .collect();
    walk.walk_from_positions(start, &positions).await?;
    let reached = std::mem::take(&mut walk.tests);
    Ok(reached.into_values().map(|test| (test.clone(), test.chain)).collect())
}

/// The test projects a changed project file affects: the project itself (`.fsproj`) or every
/// project under the file's folder (`Directory.*.props`, `global.json`), and every project
/// referencing one of them, transitively.
fn projects_affected_by(model: &WorkspaceModel, path: &Path) -> BTreeSet<PathBuf> {
    let mut affected: BTreeSet<PathBuf> = if path.extension().is_some_and(|extension| extension == "fsproj") {
        model.projects.iter().filter(|project| project.path == path).map(|project| project.path.clone()).collect()
    } else {
        let folder = path.parent().unwrap_or(Path::new(""));
        model
            .projects
            .iter()
            .filter(|project| project.path.starts_with(folder))
            .map(|project| project.path.clone())
            .collect()
    };
    loop {
        let more: Vec<PathBuf> = model
            .projects
            .iter()
            .filter(|project| !affected.contains(&project.path))
            .filter(|project| project.project_references.iter().any(|reference| affected.contains(reference)))
            .map(|project| project.path.clone())
            .collect();
        if more.is_empty() {
            return affected;
        }
        affected.extend(more);
    }
}

/// Every test of the test projects among `affected`, each for the changed project file.
fn select_whole_projects(
    walk: &mut Walk<'_>,
    selection: &mut Selection,
    model: &WorkspaceModel,
    affected: &BTreeSet<PathBuf>,
    display: &str,
) -> ProjectChangeRow {
    selection.involved.extend(affected.iter().cloned());
    let mut test_projects = Vec::new();
    let indexes: Vec<usize> = walk
        .test_projects()
        .iter()
        .enumerate()
        .filter(|(_, test)| affected.contains(&test.project.path))
        .map(|(index, _)| index)
        .collect();
    for index in indexes {
        test_projects.push(model.display_path(&walk.test_projects()[index].project.path));
        for test in walk.every_test_of(index) {
            let file = Step {
                name: display.rsplit('/').next().unwrap_or(display).to_owned(),
                path: display.to_owned(),
                line: 0,
            };
            let chain = vec![
                file,
                test.chain.last().cloned().unwrap_or_else(|| Step {
                    name: test.name.clone(),
                    path: test.path.clone(),
                    line: test.line,
                }),
            ];
            selection.add(test, Reason { change: "projectFile".to_owned(), chain, no_longer_compiles: false });
        }
    }
    ProjectChangeRow { path: display.to_owned(), test_projects }
}

/// What the walk could not follow, in words.
fn walk_findings(walk: &Walk<'_>, missing: &mut Vec<String>) {
    if !walk.incomplete.is_empty() {
        missing.push(format!("find's answer for functions on the way is not complete: {}", walk.incomplete.join(", ")));
    }
    if !walk.not_followed.is_empty() {
        missing.push(format!("function(s) not followed: {}", walk.not_followed.join(", ")));
    }
    if !walk.cut_by_depth.is_empty() {
        missing.push(format!("the depth limit cut chain(s) at: {}", walk.cut_by_depth.join(", ")));
    }
}

/// The tests of the test projects involved (those referencing a project compiling a changed
/// file, transitively) that the walk did not select.
fn fallback(walk: &mut Walk<'_>, model: &WorkspaceModel, selection: &Selection) -> Vec<FallbackTest> {
    let mut involved = BTreeSet::new();
    for project in &selection.involved {
        involved.extend(projects_affected_by(model, project));
    }
    let indexes: Vec<usize> = walk
        .test_projects()
        .iter()
        .enumerate()
        .filter(|(_, test)| involved.contains(&test.project.path))
        .map(|(index, _)| index)
        .collect();
    let mut fallback = Vec::new();
    for index in indexes {
        for test in walk.every_test_of(index) {
            if !selection.tests.contains_key(&reach::test_key(&test)) {
                fallback.push(FallbackTest {
                    name: test.name,
                    fully_qualified_name: test.fully_qualified_name,
                    project: test.project,
                    path: test.path,
                    line: test.line,
                });
            }
        }
    }
    fallback
}

/// Runs the selected tests VSTest can select by name through runTests (a name NUnit's filter
/// cannot read through its fixture, said in a note); each result joins its test (by full name;
/// a theory's rows by their name's prefix).
async fn run_selected(
    tests: &mut [AffectedTest],
    test_projects: &[TestProject<'_>],
    context: &CommandContext,
    notes: &mut Vec<String>,
) -> Result<Option<RunTestsAnswer>, CommandError> {
    let runnable = |test: &AffectedTest| {
        test_projects
            .iter()
            .any(|project| project.display == test.project && projects::runs_under_vstest(project.project))
    };
    let names: BTreeSet<String> =
        tests.iter().filter(|test| runnable(test)).filter_map(|test| test.fully_qualified_name.clone()).collect();
    let not_runnable: Vec<String> = tests
        .iter()
        .filter(|test| !runnable(test) || test.fully_qualified_name.is_none())
        .map(|test| format!("{} ({})", test.name, test.project))
        .collect();
    if !not_runnable.is_empty() {
        notes.push(format!(
            "not run (their project references no Microsoft.NET.Test.Sdk, or the name is not VSTest's): {}",
            not_runnable.join(", ")
        ));
    }
    if names.is_empty() {
        notes.push("run: no selected test VSTest can select by name; nothing was run".to_owned());
        return Ok(None);
    }
    let projects: BTreeSet<String> =
        tests.iter().filter(|test| runnable(test)).map(|test| test.project.clone()).collect();
    let arguments = run_tests::RunTestsArguments {
        tests: Some(names.into_iter().collect()),
        projects: Some(projects.into_iter().collect()),
        ..run_tests::RunTestsArguments::default()
    };
    let mut run = run_tests::run_tests(arguments, context.clone()).await?;
    if !run.run_through_fixture.is_empty() {
        let through: Vec<String> =
            run.run_through_fixture.iter().map(|fixture| format!("{} (~{})", fixture.test, fixture.fixture)).collect();
        notes.push(format!(
            "run through their fixture (NUnit's filter cannot select a name with spaces; only these tests' results \
             are kept): {}",
            through.join(", ")
        ));
    }
    let results = std::mem::take(&mut run.tests);
    for result in results {
        let owner = tests.iter_mut().find(|test| {
            test.fully_qualified_name.as_deref().is_some_and(|name| {
                result.full_name == name
                    || result.full_name.strip_prefix(name).is_some_and(|rest| rest.starts_with('('))
            })
        });
        match owner {
            Some(test) => test.results.push(result),
            None => run.tests.push(result),
        }
    }
    Ok(Some(run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::params::parse_arguments;
    use serde_json::json;

    #[test]
    fn a_revision_that_looks_like_an_option_is_refused_by_name() {
        let error = parse_arguments::<AffectedTestsArguments>(json!({"since": "--output=x"})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("since"), "{error}");
        let error = parse_arguments::<AffectedTestsArguments>(json!({"files": []})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("files"), "{error}");
        let fine = parse_arguments::<AffectedTestsArguments>(json!({"since": "HEAD~1", "run": true})).unwrap();
        assert_eq!((fine.since.as_deref(), fine.run, fine.max_depth.get()), (Some("HEAD~1"), true, 3));
    }

    #[test]
    fn project_files_and_sources_are_wanted_and_nothing_else() {
        for path in ["a/B.fs", "a/B.fsi", "a/B.fsproj", "Directory.Build.props", "x/global.json"] {
            assert!(wanted(Path::new(path)), "{path}");
        }
        for path in ["README.md", "a/B.cs", "paket.lock"] {
            assert!(!wanted(Path::new(path)), "{path}");
        }
    }
}
