//! `fslens.check`: a type-check verdict that proves what it covers.
//!
//! `clean` is said only when FSAC reported analysing every file in scope at exactly the
//! content FSAC has now — the editor's buffer (unsaved text counts) for open files, the disk
//! text that fslens opened for the others — in the FSAC process still running. Anything short
//! of that is `unknown` with a typed `blockingReason`; a current error is `errors` even when
//! the rest of the scope is incomplete.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

pub use crate::commands::blocking::BlockingReason;
use crate::session_state::status::State;
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::configurations::{ProjectConfiguration, configuration_note, loaded_configurations};
use crate::commands::paths::{confine, display_relative};
use crate::lsp::ext::error_kinds;
use crate::session_state::analysis::AnalysisSnapshot;
use crate::session_state::status::StatusSnapshot;
use crate::workspace::{Project, ProjectError, ProjectErrorKind, WorkspaceModel};

pub mod answer;
pub mod arguments;
pub mod confirm;
pub mod edits;
pub mod file_glob;
mod what_if;

use answer::{
    Analysed, CheckAnswer, Counts, Coverage, FileEntry, FileStatus, Findings, ProjectRow, ProjectScopeNote, Stamp,
    Tally, Verdict,
};
pub use arguments::{CheckArguments, CheckScope, SeverityFloor, SnippetPosition, Speed};

/// At most this many diagnostics are returned; the counts always cover all of them.
pub const MAX_DIAGNOSTICS: usize = 50;
/// Files fslens opens in FSAC at once during a trusted check.
const OPEN_BATCH: usize = 32;

/// The scope a check resolved `scope: auto` to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Scope {
    File,
    Project,
    Workspace,
    Snippet,
}

/// The files a check covers and what it needs to say about them.
struct Plan {
    scope: Scope,
    files: Vec<PathBuf>,
    projects: Vec<PathBuf>,
    notes: Vec<String>,
}

/// What every phase after the plan reads: the arguments, the plan, the workspace and the
/// running FSAC generation, with one deadline.
struct CheckRun<'a> {
    arguments: &'a CheckArguments,
    plan: &'a Plan,
    model: &'a WorkspaceModel,
    root: &'a Path,
    deadline: tokio::time::Instant,
    generation: u64,
    started: Instant,
}

pub async fn check(arguments: CheckArguments, mut context: CommandContext) -> Result<CheckAnswer, CommandError> {
    let started = Instant::now();
    let root = context.workspace_root()?.to_path_buf();
    let deadline = tokio::time::Instant::now() + arguments.timeout_ms.as_duration_ms();
    let model = crate::commands::load_workspace_model(&root).await?;
    let plan = plan(&arguments, &model, &root)?;
    let (mut plan, what_if) = match &arguments.edits {
        Some(edits) => {
            let (plan, what_if) = what_if::prepare(edits, plan, &model, &root, &context).await?;
            (plan, Some(what_if))
        }
        None => (plan, None),
    };
    refuse_a_file_that_does_not_exist(&arguments, &plan, &context).await?;
    let mut coverage = coverage_of(&arguments, &plan, what_if.as_ref(), &root);
    if let Some(reason) = reason_to_stop_before_fsac(&mut coverage, &plan, &model, &root) {
        return Ok(CheckAnswer::unknown(coverage, reason, started));
    }

    // FSAC must be able to answer at all, and the projects in scope must have loaded.
    let status = wait_for_fsac(&mut context, arguments.speed == Speed::Fast, deadline).await?;
    if let Some(reason) = unavailable_reason(&status, &plan, &root) {
        return Ok(CheckAnswer::unknown(coverage, reason, started));
    }
    let generation = status.generation;
    coverage.session_generation = Some(generation);
    // What FSAC loaded decides what can be checked: a project with several target frameworks
    // in its first one, and only the files that configuration compiles.
    if plan.scope != Scope::Snippet {
        let configurations = narrow_to_loaded_configurations(&mut plan, &status, &model, &root);
        coverage.expected_files = plan.files.iter().map(|path| display_relative(&root, path)).collect();
        coverage.configuration_note = configuration_note(&configurations, "checked");
        coverage.configurations = (!configurations.is_empty()).then_some(configurations);
        let not_compiled: Vec<String> = coverage
            .configurations
            .iter()
            .flatten()
            .flat_map(|configuration| configuration.files_not_checked.iter().cloned())
            .collect();
        // An edit of a file FSAC never analyses has no verdict, whatever the rest says.
        let touched_not_compiled: Vec<String> = what_if
            .iter()
            .flat_map(|what_if| what_if.touched_paths())
            .filter(|path| !plan.files.iter().any(|file| file == path))
            .map(|path| display_relative(&root, path))
            .filter(|file| not_compiled.contains(file))
            .collect();
        let unchecked = if plan.files.is_empty() { not_compiled } else { touched_not_compiled };
        if !unchecked.is_empty() {
            let message = format!(
                "{} {} not compiled in the configuration FSAC loaded, so FSAC never analyses {}: {}",
                unchecked.join(", "),
                if unchecked.len() == 1 { "is" } else { "are" },
                if unchecked.len() == 1 { "it" } else { "them" },
                coverage.configuration_note.as_deref().unwrap_or_default()
            );
            let reason = BlockingReason {
                files: Some(unchecked),
                ..BlockingReason::new(error_kinds::NOT_IN_LOADED_CONFIGURATION, message)
            };
            return Ok(CheckAnswer::unknown(coverage, reason, started));
        }
    }
    let run =
        CheckRun { arguments: &arguments, plan: &plan, model: &model, root: &root, deadline, generation, started };
    let answer = match what_if {
        _ if plan.scope == Scope::Snippet => check_snippet(coverage, &run, &mut context).await?,
        Some(what_if) => what_if::run(what_if, coverage, &run, &mut context).await?,
        None => verdict_over(coverage, &run, &mut context).await?,
    };
    match arguments.confirm {
        // A snippet or a what-if with confirm is refused by the arguments' validation.
        Some(arguments::Confirm::Build) if plan.scope != Scope::Snippet && arguments.edits.is_none() => {
            confirm::confirm_by_build(answer, &run, &context).await
        }
        _ => Ok(answer),
    }
}

/// What the answer says about its scope before anything is analysed.
fn coverage_of(arguments: &CheckArguments, plan: &Plan, what_if: Option<&what_if::WhatIf>, root: &Path) -> Coverage {
    Coverage {
        scope: plan.scope,
        speed: arguments.speed,
        severity: arguments.severity,
        via: answer::Via::Fsac,
        expected_files: plan.files.iter().map(|path| display_relative(root, path)).collect(),
        project_scope: (plan.scope == Scope::Project).then(ProjectScopeNote::default),
        notes: plan.notes.clone(),
        what_if: what_if.map(|what_if| what_if.describe(root)),
        project_errors: None,
        session_generation: None,
        snippet_position: None,
        project: None,
        configurations: None,
        configuration_note: None,
    }
}

/// Narrows the plan to what FSAC loaded: a file the project file names but the configuration
/// FSAC loaded does not compile (a `Compile` item whose `Condition` names another target
/// framework, say) is never analysed by FSAC, so it leaves the plan unless another project in
/// scope compiles it; each project in scope says which configuration was checked.
fn narrow_to_loaded_configurations(
    plan: &mut Plan,
    status: &StatusSnapshot,
    model: &WorkspaceModel,
    root: &Path,
) -> Vec<ProjectConfiguration> {
    let display = |path: &Path| display_relative(root, path);
    let rows = loaded_configurations(&plan.projects, status, model, &display);
    let not_compiled_by = |project: &Path, file: &str| {
        rows.iter().any(|row| row.project == display(project) && row.files_not_checked.iter().any(|name| name == file))
    };
    plan.files.retain(|file| {
        let shown = display(file);
        let compilers: Vec<&Path> = plan
            .projects
            .iter()
            .filter(|project| model.project(project).is_some_and(|found| found.compiles(file)))
            .map(PathBuf::as_path)
            .collect();
        compilers.is_empty() || !compilers.iter().all(|project| not_compiled_by(project, &shown))
    });
    rows
}

/// Why the check is `unknown` before FSAC is asked anything, if it is: no project at all, a
/// project file that is not XML, or no file in scope. Records the project errors in scope.
fn reason_to_stop_before_fsac(
    coverage: &mut Coverage,
    plan: &Plan,
    model: &WorkspaceModel,
    root: &Path,
) -> Option<BlockingReason> {
    // A workspace without a project: say so, with where fslens looked (a snippet or a script
    // needs no project).
    if plan.projects.is_empty()
        && !plan.files.first().is_some_and(|file| is_script(file))
        && let Some(reason) = crate::commands::no_projects(model)
    {
        return Some(reason);
    }
    // What fslens's own reading of the project files says cannot build: a project file that
    // is not XML leaves nothing to check; a missing compile item keeps the verdict off clean.
    let project_errors = project_errors_in_scope(model, plan);
    if !project_errors.is_empty() {
        coverage.project_errors = Some(project_errors.iter().map(|error| project_error(error, root)).collect());
    }
    if let Some(malformed) =
        project_errors.iter().find(|error| error.error.kind == ProjectErrorKind::ProjectFileMalformed)
    {
        return Some(project_error_reason(malformed, root));
    }
    // A verdict over no file at all would be a `clean` without proof.
    if plan.scope != Scope::Snippet && plan.files.is_empty() {
        return Some(BlockingReason::new(
            error_kinds::NOTHING_IN_SCOPE,
            "no source file is in scope (check projectPath, path and fileGlob)",
        ));
    }
    None
}

/// Analyses every file of the plan and gives the verdict over them.
async fn verdict_over(
    coverage: Coverage,
    run: &CheckRun<'_>,
    context: &mut CommandContext,
) -> Result<CheckAnswer, CommandError> {
    let plan = run.plan;
    let uris: Vec<String> = plan.files.iter().filter_map(|path| crate::uri::path_to_uri(path)).collect();
    let outcome = match run.arguments.speed {
        Speed::Fast => fast_snapshots(context, &uris).await?,
        Speed::Trusted => trusted_snapshots(context, &uris, &plan.files, run.deadline, run.generation).await?,
    };
    let after = context.status().await?;
    // FSAC exiting (and perhaps being restarted) during the check voids its analyses.
    let fsac_went_away = after.generation != run.generation || !after.fsac_running;
    let (files, tally) = file_entries(run, &outcome.results);
    let with_status = |wanted: fn(&FileResult) -> bool| -> Vec<String> {
        plan.files
            .iter()
            .zip(&outcome.results)
            .filter(|(_, result)| wanted(result))
            .map(|(path, _)| display_relative(run.root, path))
            .collect()
    };
    let missing = with_status(|result| matches!(result, FileResult::Missing { .. }));
    let stale = with_status(|result| matches!(result, FileResult::Stale { .. }));
    // A missing compile item keeps the verdict off clean (the coverage already lists them).
    let project_errors = project_errors_in_scope(run.model, plan);
    let complete = missing.is_empty() && stale.is_empty() && !fsac_went_away && project_errors.is_empty();
    let verdict = if tally.counts.error_count > 0 {
        Verdict::Errors
    } else if complete {
        Verdict::Clean
    } else {
        Verdict::Unknown
    };
    let blocking_reason = (verdict == Verdict::Unknown).then(|| {
        let not_analysed = missing.len() + stale.len();
        if fsac_went_away {
            BlockingReason::new(
                error_kinds::FSAC_RESTARTED,
                format!(
                    "FSAC exited during the check ({}); analyses from before do not count",
                    after.reason.as_deref().unwrap_or_default()
                ),
            )
            .in_state(after.state)
        } else if let Some(error) = project_errors.first() {
            project_error_reason(error, run.root)
        } else {
            incomplete_reason(run, outcome.timed_out, not_analysed)
        }
    });
    let per_project = (plan.scope == Scope::Workspace).then(|| {
        per_project(run.model, plan, &files, run.root, coverage.configurations.as_deref().unwrap_or_default())
    });
    let below_floor = tally.below_floor;
    let counts = tally.counts;
    let (diagnostics, diagnostics_truncated) = tally.listed_within_cap();
    let findings = Findings {
        verdict,
        complete,
        counts,
        below_severity_floor_count: below_floor,
        diagnostics,
        diagnostics_truncated,
        diagnostics_note: (below_floor > 0).then(|| {
            format!(
                "{below_floor} diagnostic(s) below the severity floor are counted but not listed; pass severity=\"all\" to see them"
            )
        }),
        files: Some(files),
        missing_files: Some(missing),
        stale_files: Some(stale),
        per_project,
        reason: blocking_reason.as_ref().map(|reason| reason.message.clone()),
        blocking_reason,
    };
    Ok(CheckAnswer::finished(coverage, findings, run.started))
}

/// Each expected file's entry, and the tally of every diagnostic of every analysed file
/// (the floor filters only the listed ones).
fn file_entries(run: &CheckRun<'_>, results: &[FileResult]) -> (Vec<FileEntry>, Tally) {
    let mut tally = Tally::default();
    let mut files = Vec::new();
    for (path, result) in run.plan.files.iter().zip(results) {
        let file = display_relative(run.root, path);
        let status = match result {
            FileResult::Analysed { diagnostics, stamp } => {
                let mut own = Counts::default();
                for diagnostic in diagnostics {
                    own.add(answer::Severity::of(diagnostic));
                    tally.add(&file, diagnostic, run.arguments.severity);
                }
                FileStatus::Analysed(Analysed::File {
                    error_count: own.error_count,
                    warning_count: own.warning_count,
                    stamp: stamp.clone(),
                })
            }
            FileResult::Missing { why } => FileStatus::Missing { why: why.clone() },
            FileResult::Stale { analysed_version, current_version } => {
                FileStatus::Stale { analysed_version: *analysed_version, current_version: *current_version }
            }
        };
        files.push(FileEntry { file, status, edited: false });
    }
    (files, tally)
}

/// Why a check whose files were not all analysed is `unknown`: the deadline, or (fast) no
/// current analysis.
fn incomplete_reason(run: &CheckRun<'_>, timed_out: bool, not_analysed: usize) -> BlockingReason {
    if timed_out {
        BlockingReason::new(
            error_kinds::TIMEOUT,
            format!(
                "the deadline of {} ms passed with {not_analysed} file(s) not analysed",
                run.arguments.timeout_ms.get()
            ),
        )
    } else {
        BlockingReason::new(error_kinds::INCOMPLETE, incomplete_message(run.arguments.speed, not_analysed))
    }
}

/// The words of an `incomplete` blocking reason, naming the speed the check really ran at.
fn incomplete_message(speed: Speed, not_analysed: usize) -> String {
    match speed {
        Speed::Fast => {
            format!("{not_analysed} file(s) have no current analysis (speed=fast uses only what FSAC already reported)")
        }
        Speed::Trusted => format!(
            "{not_analysed} file(s) were not analysed at their current content (speed=trusted: fslens showed them to \
             FSAC, which did not report analysing them before the check ended); `files` gives each one's status"
        ),
    }
}

/// A project error and the project it is in.
struct ScopedProjectError<'a> {
    project: &'a Path,
    error: &'a ProjectError,
}

/// The errors of the projects in scope. A file no project compiles may belong to a project
/// fslens could not read, so then every unreadable project counts.
fn project_errors_in_scope<'a>(model: &'a WorkspaceModel, plan: &Plan) -> Vec<ScopedProjectError<'a>> {
    let in_scope = |project: &Project| {
        plan.projects.contains(&project.path)
            || (plan.projects.is_empty()
                && plan.scope != Scope::Snippet
                && project.errors.iter().any(|error| error.kind == ProjectErrorKind::ProjectFileMalformed))
    };
    model
        .projects
        .iter()
        .filter(|project| in_scope(project))
        .flat_map(|project| project.errors.iter().map(|error| ScopedProjectError { project: &project.path, error }))
        .collect()
}

fn project_error_kind(kind: ProjectErrorKind) -> &'static str {
    match kind {
        ProjectErrorKind::ProjectFileMalformed => error_kinds::PROJECT_FILE_MALFORMED,
        ProjectErrorKind::CompileItemMissing => error_kinds::COMPILE_ITEM_MISSING,
    }
}

/// `{errorKind, project, file, line?, column?, message}` with workspace-relative paths.
fn project_error(scoped: &ScopedProjectError, root: &Path) -> BlockingReason {
    let error = scoped.error;
    let (line, column) = error.line.zip(error.column).unzip();
    BlockingReason {
        project: Some(display_relative(root, scoped.project)),
        file: Some(display_relative(root, &error.file)),
        line: line.map(u64::from),
        column: column.map(u64::from),
        ..BlockingReason::new(project_error_kind(error.kind), project_error_message(scoped, root))
    }
}

fn project_error_message(scoped: &ScopedProjectError, root: &Path) -> String {
    let project = display_relative(root, scoped.project);
    let file = display_relative(root, &scoped.error.file);
    match (scoped.error.kind, scoped.error.line, scoped.error.column) {
        (ProjectErrorKind::ProjectFileMalformed, Some(line), Some(column)) => format!(
            "{project} is not well-formed XML (line {line}, column {column}), so MSBuild cannot load it: {}",
            scoped.error.message
        ),
        (ProjectErrorKind::ProjectFileMalformed, ..) => format!("{project} is not well-formed XML"),
        (ProjectErrorKind::CompileItemMissing, ..) => format!(
            "{project} compiles {file}, which does not exist: the build fails (FS0225), so no verdict can be clean"
        ),
    }
}

/// The blocking reason a project error gives a check.
fn project_error_reason(scoped: &ScopedProjectError, root: &Path) -> BlockingReason {
    let mut reason = project_error(scoped, root);
    if scoped.error.kind == ProjectErrorKind::CompileItemMissing {
        reason.remedy = Some(format!(
            "create {} or remove its <Compile> item from {}",
            display_relative(root, &scoped.error.file),
            display_relative(root, scoped.project)
        ));
    }
    reason
}

/// `invalid_path` (docs/commands.md), not a file that no project compiles.
async fn refuse_a_file_that_does_not_exist(
    arguments: &CheckArguments,
    plan: &Plan,
    context: &CommandContext,
) -> Result<(), CommandError> {
    let Some(file) = plan.files.first().filter(|_| plan.scope == Scope::File) else { return Ok(()) };
    if file.exists() {
        return Ok(());
    }
    let uri = crate::uri::path_to_uri(file);
    let open = match uri {
        Some(uri) => context.analysis(vec![uri]).await?.iter().any(|snapshot| snapshot.open_in_editor),
        None => false,
    };
    if open {
        return Ok(());
    }
    Err(CommandError::InvalidPath {
        path: arguments.path.clone().unwrap_or_default(),
        message: "no such file (not on disk and not open in the editor)".to_owned(),
    })
}

/// The scope `auto` stands for: snippet if `snippet`, file if `path`, project if
/// `projectPath` names a project, else workspace.
fn resolved_scope(arguments: &CheckArguments) -> Scope {
    match arguments.scope {
        CheckScope::File => Scope::File,
        CheckScope::Project => Scope::Project,
        CheckScope::Workspace => Scope::Workspace,
        CheckScope::Snippet => Scope::Snippet,
        CheckScope::Auto if arguments.snippet.is_some() => Scope::Snippet,
        CheckScope::Auto if arguments.path.is_some() => Scope::File,
        // An .fsproj path or a project name: the same reading as find's.
        CheckScope::Auto
            if arguments
                .project_path
                .as_deref()
                .is_some_and(|project| !crate::commands::paths::names_a_solution(project)) =>
        {
            Scope::Project
        }
        CheckScope::Auto => Scope::Workspace,
    }
}

fn plan(arguments: &CheckArguments, model: &WorkspaceModel, root: &Path) -> Result<Plan, CommandError> {
    let scope = resolved_scope(arguments);
    let mut notes = Vec::new();
    let project = match &arguments.project_path {
        None => None,
        Some(written) if crate::commands::paths::names_a_solution(written) => {
            if scope == Scope::Project {
                return Err(CommandError::invalid_argument(
                    "projectPath",
                    "scope project needs an .fsproj, not a solution",
                ));
            }
            None
        }
        Some(written) => Some(crate::commands::paths::project_by_name_or_path(model, root, written)?.path.clone()),
    };
    let (files, projects) = match scope {
        Scope::File => {
            let path = confine(root, arguments.path.as_deref().unwrap_or_default(), "path")?;
            let projects: Vec<PathBuf> =
                model.projects_compiling(&path).iter().map(|project| project.path.clone()).collect();
            (vec![path], projects)
        }
        Scope::Project => {
            let project = match project {
                Some(project) => project,
                None if model.projects.len() == 1 => model.projects[0].path.clone(),
                None => {
                    return Err(CommandError::invalid_argument(
                        "projectPath",
                        format!("scope project needs projectPath: the workspace has {} projects", model.projects.len()),
                    ));
                }
            };
            let files = model.project(&project).map(compile_files).unwrap_or_default();
            (files, vec![project])
        }
        Scope::Workspace => {
            if project.is_some() {
                return Err(CommandError::invalid_argument(
                    "projectPath",
                    "scope workspace covers every project; pass a solution or nothing (an .fsproj would cover only itself)",
                ));
            }
            let mut seen = HashSet::new();
            let mut files = Vec::new();
            for project_path in &model.project_order {
                if let Some(project) = model.project(project_path) {
                    files.extend(compile_files(project).into_iter().filter(|file| seen.insert(file.clone())));
                }
            }
            (files, model.project_order.clone())
        }
        Scope::Snippet => (Vec::new(), project.into_iter().collect()),
    };
    let files = match &arguments.file_glob {
        None => files,
        Some(glob) => {
            let kept: Vec<PathBuf> =
                files.into_iter().filter(|file| glob.matches(&display_relative(root, file))).collect();
            notes.push(format!("fileGlob {:?} kept {} file(s)", glob.as_str(), kept.len()));
            kept
        }
    };
    Ok(Plan { scope, files, projects, notes })
}

/// The files a project's code can see, in compile order: those of the projects it references
/// (transitively, each after its own references), then its own.
fn files_seen_by(model: &WorkspaceModel, project: &crate::workspace::Project) -> Vec<PathBuf> {
    let mut needed = HashSet::new();
    let mut stack = vec![project.path.clone()];
    while let Some(path) = stack.pop() {
        if needed.insert(path.clone())
            && let Some(found) = model.project(&path)
        {
            stack.extend(found.project_references.iter().cloned());
        }
    }
    let mut seen = HashSet::new();
    model
        .project_order
        .iter()
        .filter(|path| needed.contains(*path))
        .filter_map(|path| model.project(path))
        .flat_map(compile_files)
        .filter(|file| seen.insert(file.clone()))
        .collect()
}

fn compile_files(project: &crate::workspace::Project) -> Vec<PathBuf> {
    project.compile_items.iter().filter(|item| item.exists).map(|item| item.path.clone()).collect()
}

/// FSAC's state: at once for a fast check, else once FSAC has loaded the workspace (or can no
/// longer), within the deadline.
async fn wait_for_fsac(
    context: &mut CommandContext,
    fast: bool,
    deadline: tokio::time::Instant,
) -> Result<StatusSnapshot, CommandError> {
    if fast { context.status().await } else { context.status_when_ready(deadline).await }
}

/// Why FSAC cannot give a trustworthy answer for this plan, if it cannot.
fn unavailable_reason(status: &StatusSnapshot, plan: &Plan, root: &Path) -> Option<BlockingReason> {
    let state = status.state;
    let reason = status.reason.clone().unwrap_or_default();
    let stderr = status.stderr_tail.as_str();
    if stderr.contains("A compatible .NET SDK was not found") && state != State::Ready && state != State::Loading {
        return Some(sdk_not_found(stderr, root));
    }
    match state {
        State::Ready => {}
        State::Loading | State::Starting => {
            return Some(
                BlockingReason::new(
                    error_kinds::TIMEOUT,
                    format!("FSAC had not finished loading the workspace: {reason}"),
                )
                .in_state(state),
            );
        }
        State::Absent | State::Crashed => {
            return Some(BlockingReason::new(error_kinds::FSAC_UNAVAILABLE, reason).in_state(state));
        }
    }
    for project in &plan.projects {
        let display = project.display().to_string();
        if let Some(error) = status.project_error(&display) {
            let kind =
                if error.code == Some(100) { error_kinds::PROJECT_NOT_RESTORED } else { error_kinds::PROJECT_FAILURE };
            let project = display_relative(root, project);
            let code = error.code.map_or_else(|| "null".to_owned(), |code| code.to_string());
            let message = format!("FSAC could not load {project}: {} (code {code})", error.message);
            return Some(BlockingReason {
                remedy: (kind == error_kinds::PROJECT_NOT_RESTORED).then(|| format!("run `dotnet restore {project}`")),
                fsac_error_code: error.code,
                project: Some(project),
                ..BlockingReason::new(kind, message)
            });
        }
    }
    if plan.scope == Scope::File
        && let Some(file) = plan.files.first()
        && plan.projects.is_empty()
        && !is_script(file)
    {
        let file = display_relative(root, file);
        return Some(BlockingReason {
            file: Some(file.clone()),
            ..BlockingReason::new(
                error_kinds::FILE_NOT_IN_PROJECT,
                format!("{file} is compiled by no project, so FSAC gives it no diagnostics"),
            )
        });
    }
    None
}

fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "fsx" || extension == "fsscript")
}

/// The typed SDK-pin failure, read from the dotnet host's message that FSAC printed.
fn sdk_not_found(stderr: &str, root: &Path) -> BlockingReason {
    let requested = stderr
        .lines()
        .find_map(|line| line.trim().strip_prefix("Requested SDK version:"))
        .map(|version| version.trim().to_owned());
    let global_json = stderr
        .lines()
        .find_map(|line| line.trim().strip_prefix("global.json file:"))
        .map(|path| path.trim().to_owned())
        .or_else(|| root.join("global.json").exists().then(|| root.join("global.json").display().to_string()));
    let mut installed = Vec::new();
    let mut in_list = false;
    for line in stderr.lines() {
        let line = line.trim();
        if line.starts_with("Installed SDKs") {
            in_list = true;
            continue;
        }
        if in_list {
            match line.split_whitespace().next() {
                Some(version) if version.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                    installed.push(version.to_owned())
                }
                _ => in_list = false,
            }
        }
    }
    let message = format!(
        "FSAC could not start: global.json pins .NET SDK {} which is not installed",
        requested.as_deref().unwrap_or("(unknown)")
    );
    BlockingReason {
        requested_sdk_version: requested,
        installed_sdks: Some(installed),
        global_json_path: global_json,
        remedies: Some(vec![
            "install the pinned SDK".to_owned(),
            "or change sdk.version / rollForward in global.json".to_owned(),
        ]),
        ..BlockingReason::new(error_kinds::SDK_NOT_FOUND, message)
    }
}

/// A temporary script that exists only while a snippet is checked; dropping it (also when
/// the check is cancelled) deletes the file.
struct TemporaryScript {
    path: PathBuf,
}

impl Drop for TemporaryScript {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Checks source text as a script placed at the start or the end of a project's compile
/// order. At the end, the script `#load`s the project's files in order, then holds the
/// snippet. At the start nothing precedes the snippet, so the script holds the snippet alone
/// (F# compiles `#load`ed files before the whole script wherever the directive stands, so
/// "snippet, then project" cannot be expressed as one script). Only the snippet's own
/// diagnostics are reported, with lines counted from the snippet's first line.
async fn check_snippet(
    mut coverage: Coverage,
    run: &CheckRun<'_>,
    context: &mut CommandContext,
) -> Result<CheckAnswer, CommandError> {
    let snippet = run.arguments.snippet.clone().unwrap_or_default();
    let project = snippet_project(run)?;
    let (text, first_snippet_line) = snippet_script_text(&snippet, run, project);
    let diagnostics = analyse_snippet_script(context, run, project, text).await?;
    coverage.snippet_position = Some(run.arguments.snippet_position);
    coverage.project = Some(display_relative(&run.model.root, &project.path));
    coverage.expected_files = vec!["snippet".to_owned()];
    let diagnostics = match diagnostics {
        Ok(diagnostics) => diagnostics,
        Err(reason) => return Ok(CheckAnswer::unknown(coverage, reason, run.started)),
    };
    let tally = snippet_tally(diagnostics, first_snippet_line, run.arguments.severity);
    let verdict = if tally.counts.error_count > 0 { Verdict::Errors } else { Verdict::Clean };
    let (counts, below_floor) = (tally.counts, tally.below_floor);
    let (diagnostics, diagnostics_truncated) = tally.listed_within_cap();
    let snippet_file = FileEntry {
        file: "snippet".to_owned(),
        status: FileStatus::Analysed(Analysed::Snippet { content_sha256: sha256_hex(&snippet) }),
        edited: false,
    };
    let findings = Findings {
        verdict,
        complete: true,
        counts,
        below_severity_floor_count: below_floor,
        diagnostics,
        diagnostics_truncated,
        diagnostics_note: None,
        files: Some(vec![snippet_file]),
        missing_files: Some(Vec::new()),
        stale_files: Some(Vec::new()),
        per_project: None,
        reason: None,
        blocking_reason: None,
    };
    Ok(CheckAnswer::finished(coverage, findings, run.started))
}

/// The project whose compile order the snippet joins: `projectPath`'s, or the only one.
fn snippet_project<'a>(run: &CheckRun<'a>) -> Result<&'a Project, CommandError> {
    let model = run.model;
    let project_path = match run.plan.projects.first() {
        Some(project) => project.clone(),
        None if model.projects.len() == 1 => model.projects[0].path.clone(),
        None => {
            return Err(CommandError::invalid_argument(
                "projectPath",
                format!(
                    "a snippet is placed in one project's compile order; the workspace has {} projects",
                    model.projects.len()
                ),
            ));
        }
    };
    model.project(&project_path).ok_or_else(|| CommandError::InvalidPath {
        path: project_path.display().to_string(),
        message: "not in the workspace".into(),
    })
}

/// The script's text and the line the snippet starts on in it.
fn snippet_script_text(snippet: &str, run: &CheckRun<'_>, project: &Project) -> (String, u64) {
    if run.arguments.snippet_position == SnippetPosition::Start {
        return (snippet.to_owned(), 0);
    }
    let loads: Vec<String> = files_seen_by(run.model, project)
        .iter()
        .map(|file| format!("\"{}\"", file.display().to_string().replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    if loads.is_empty() { (snippet.to_owned(), 0) } else { (format!("#load {}\n{snippet}", loads.join(" ")), 1) }
}

/// Writes the script beside the project, has FSAC analyse it, and removes it again: FSAC's
/// diagnostics of it, or the reason (timeout, FSAC gone) there are none.
async fn analyse_snippet_script(
    context: &mut CommandContext,
    run: &CheckRun<'_>,
    project: &Project,
    text: String,
) -> Result<Result<Vec<Value>, BlockingReason>, CommandError> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let name = format!(
        ".fslens-snippet-{}-{}.fsx",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let script = TemporaryScript { path: project.directory().join(name) };
    std::fs::write(&script.path, &text).map_err(|error| {
        CommandError::Internal(format!("cannot write the temporary script {}: {error}", script.path.display()))
    })?;
    let uri = crate::uri::path_to_uri(&script.path)
        .ok_or_else(|| CommandError::Internal(format!("cannot make a URI of {}", script.path.display())))?;
    context.acquire_document(&uri, text).await?;
    let analysis = current_analysis(context, &uri, run.deadline, run.generation).await?;
    context.release_document(&uri);
    drop(script);
    Ok(match analysis {
        CurrentAnalysis::Analysed { diagnostics, .. } => Ok(diagnostics),
        CurrentAnalysis::TimedOut => Err(BlockingReason::new(
            error_kinds::TIMEOUT,
            format!("the snippet was not analysed within {} ms", run.arguments.timeout_ms.get()),
        )),
        CurrentAnalysis::FsacWentAway => {
            Err(BlockingReason::new(error_kinds::FSAC_RESTARTED, "FSAC exited while the snippet was checked"))
        }
    })
}

/// The snippet's own diagnostics (not those of the `#load` line), with lines counted from
/// the snippet's first line.
fn snippet_tally(diagnostics: Vec<Value>, first_snippet_line: u64, floor: SeverityFloor) -> Tally {
    let mut tally = Tally::default();
    for mut diagnostic in diagnostics {
        let start_line = diagnostic.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(0);
        if start_line < first_snippet_line {
            continue; // the #load line: problems of project files, not of the snippet
        }
        for end in ["start", "end"] {
            if let Some(line) = diagnostic.pointer_mut(&format!("/range/{end}/line"))
                && let Some(number) = line.as_u64()
            {
                *line = json!(number.saturating_sub(first_snippet_line));
            }
        }
        tally.add("snippet", &diagnostic, floor);
    }
    tally
}

/// What FSAC reported for one document it has open, once it analysed the content it has now.
pub(crate) enum CurrentAnalysis {
    Analysed {
        diagnostics: Vec<Value>,
        snapshot: Box<AnalysisSnapshot>,
    },
    TimedOut,
    /// FSAC exited or was restarted while waiting (its generation changed).
    FsacWentAway,
}

/// Waits until FSAC (generation `generation`) reported analysing `uri` at the version it has
/// now. The caller has acquired the document (or the editor has it open).
pub(crate) async fn current_analysis(
    context: &mut CommandContext,
    uri: &str,
    deadline: tokio::time::Instant,
    generation: u64,
) -> Result<CurrentAnalysis, CommandError> {
    loop {
        let snapshot = context
            .analysis(vec![uri.to_owned()])
            .await?
            .pop()
            .ok_or_else(|| CommandError::Internal(format!("no analysis record for {uri}")))?;
        if snapshot.generation != generation {
            return Ok(CurrentAnalysis::FsacWentAway);
        }
        if let Some(diagnostics) = snapshot.current_diagnostics() {
            return Ok(CurrentAnalysis::Analysed { diagnostics, snapshot: Box::new(snapshot) });
        }
        match tokio::time::timeout_at(deadline, context.analysis_changed()).await {
            Ok(changed) => changed?,
            Err(_) => return Ok(CurrentAnalysis::TimedOut),
        }
    }
}

/// For commands about one file's diagnostics: waits (within the deadline) for FSAC as a
/// file-scope check does and returns the running FSAC generation, or the typed reason why FSAC
/// cannot give a trustworthy answer for `file` (the same reasons `fslens.check` reports).
pub(crate) async fn fsac_for_file(
    context: &mut CommandContext,
    model: &WorkspaceModel,
    root: &Path,
    file: &Path,
    deadline: tokio::time::Instant,
) -> Result<Result<u64, BlockingReason>, CommandError> {
    let status = wait_for_fsac(context, false, deadline).await?;
    let plan = Plan {
        scope: Scope::File,
        files: vec![file.to_path_buf()],
        projects: model.projects_compiling(file).iter().map(|project| project.path.clone()).collect(),
        notes: Vec::new(),
    };
    if let Some(reason) = unavailable_reason(&status, &plan, root) {
        return Ok(Err(reason));
    }
    Ok(Ok(status.generation))
}

/// What a check learnt of one file's analysis.
pub(crate) enum FileResult {
    Analysed { diagnostics: Vec<Value>, stamp: Stamp },
    Missing { why: String },
    Stale { analysed_version: Option<i64>, current_version: Option<i64> },
}

/// Each file's result, in the order asked, and whether the deadline passed first.
pub(crate) struct Outcome {
    pub(crate) results: Vec<FileResult>,
    pub(crate) timed_out: bool,
}

/// Opens what the editor has not open, waits for FSAC to analyse every file at the content it
/// has now, and closes what it opened — [`OPEN_BATCH`] files at a time. `find` uses it too, for
/// the diagnostics of the files holding a use of the name no site covers.
pub(crate) async fn trusted_snapshots(
    context: &mut CommandContext,
    uris: &[String],
    paths: &[PathBuf],
    deadline: tokio::time::Instant,
    generation: u64,
) -> Result<Outcome, CommandError> {
    let mut pass =
        TrustedPass { results: (0..uris.len()).map(|_| None).collect(), disk_hashes: vec![None; uris.len()] };
    let mut timed_out = false;
    for batch_start in (0..uris.len()).step_by(OPEN_BATCH) {
        let batch: Vec<usize> = (batch_start..(batch_start + OPEN_BATCH).min(uris.len())).collect();
        pass.open_batch(context, uris, paths, &batch).await?;
        timed_out = pass.await_batch(context, uris, &batch, deadline, generation).await?;
        for &index in &batch {
            context.release_document(&uris[index]);
        }
        if timed_out {
            break;
        }
    }
    let snapshots = context.analysis(uris.to_vec()).await?;
    Ok(Outcome { results: pass.finish(&snapshots, timed_out), timed_out })
}

/// A trusted pass over the files: each one's result once known, and the hash of the disk text
/// it was opened with.
struct TrustedPass {
    results: Vec<Option<FileResult>>,
    disk_hashes: Vec<Option<String>>,
}

impl TrustedPass {
    /// Opens each file of the batch in FSAC with its disk text (a file that cannot be read, or
    /// an FSAC gone away, is missing at once).
    async fn open_batch(
        &mut self,
        context: &mut CommandContext,
        uris: &[String],
        paths: &[PathBuf],
        batch: &[usize],
    ) -> Result<(), CommandError> {
        for &index in batch {
            let path = paths[index].clone();
            let text = tokio::task::spawn_blocking(move || crate::source_files::read_regular_text(&path))
                .await
                .map_err(|error| CommandError::Internal(error.to_string()))?;
            let text = match text {
                Ok(text) => text,
                Err(error) => {
                    self.results[index] = Some(FileResult::Missing { why: format!("cannot read it: {error}") });
                    continue;
                }
            };
            self.disk_hashes[index] = Some(sha256_hex(&text));
            match context.acquire_document(&uris[index], text).await {
                Ok(()) => {}
                // FSAC went away mid-check: the caller reports it as such.
                Err(CommandError::Unavailable(reason)) => {
                    self.results[index] = Some(FileResult::Missing { why: format!("FSAC is not running: {reason}") });
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Waits until FSAC (still generation `generation`) reported analysing every file of the
    /// batch at the content it has now; true when the deadline passed first.
    async fn await_batch(
        &mut self,
        context: &mut CommandContext,
        uris: &[String],
        batch: &[usize],
        deadline: tokio::time::Instant,
        generation: u64,
    ) -> Result<bool, CommandError> {
        loop {
            let pending: Vec<usize> = batch.iter().copied().filter(|&index| self.results[index].is_none()).collect();
            if pending.is_empty() {
                return Ok(false);
            }
            let snapshots = context.analysis(pending.iter().map(|&index| uris[index].clone()).collect()).await?;
            if snapshots.iter().any(|snapshot| snapshot.generation != generation) {
                return Ok(false); // FSAC went away or restarted: the caller reports it
            }
            for (&index, snapshot) in pending.iter().zip(&snapshots) {
                if let Some(diagnostics) = snapshot.current_diagnostics() {
                    let stamp = stamp(snapshot, self.disk_hashes[index].as_deref());
                    self.results[index] = Some(FileResult::Analysed { diagnostics, stamp });
                }
            }
            if pending.iter().all(|&index| self.results[index].is_some()) {
                return Ok(false);
            }
            match tokio::time::timeout_at(deadline, context.analysis_changed()).await {
                Ok(changed) => changed?,
                Err(_) => return Ok(true),
            }
        }
    }

    /// Each file's result; an editor buffer that changed after its analysis no longer counts.
    fn finish(self, snapshots: &[AnalysisSnapshot], timed_out: bool) -> Vec<FileResult> {
        self.results
            .into_iter()
            .zip(snapshots)
            .map(|(result, snapshot)| match result {
                Some(FileResult::Analysed { stamp, .. })
                    if snapshot.open_in_editor && stamp.version.flatten() != snapshot.expected_version =>
                {
                    FileResult::Stale {
                        analysed_version: stamp.version.flatten(),
                        current_version: snapshot.expected_version,
                    }
                }
                Some(result) => result,
                None => FileResult::Missing {
                    why: if timed_out {
                        "not analysed before the deadline".to_owned()
                    } else {
                        "FSAC did not analyse it".to_owned()
                    },
                },
            })
            .collect()
    }
}

/// Uses only what FSAC already reported: current analyses of open buffers.
async fn fast_snapshots(context: &CommandContext, uris: &[String]) -> Result<Outcome, CommandError> {
    let snapshots = context.analysis(uris.to_vec()).await?;
    let results = snapshots
        .iter()
        .map(|snapshot| match snapshot.current_diagnostics() {
            Some(diagnostics) => FileResult::Analysed { diagnostics, stamp: stamp(snapshot, None) },
            None if snapshot.open_in_editor && snapshot.analyzed.is_some() => FileResult::Stale {
                analysed_version: snapshot.analyzed.and_then(|analyzed| analyzed.version),
                current_version: snapshot.expected_version,
            },
            None => FileResult::Missing {
                why: if snapshot.open_in_editor {
                    "open, but FSAC has not reported analysing it".to_owned()
                } else {
                    "not open in the editor; speed=fast does not open files (use speed=trusted)".to_owned()
                },
            },
        })
        .collect();
    Ok(Outcome { results, timed_out: false })
}

fn stamp(snapshot: &AnalysisSnapshot, disk_hash: Option<&str>) -> Stamp {
    Stamp {
        open_in_editor: snapshot.open_in_editor,
        version: snapshot.open_in_editor.then_some(snapshot.expected_version),
        content_sha256: disk_hash.filter(|_| !snapshot.open_in_editor).map(str::to_owned),
    }
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

fn per_project(
    model: &WorkspaceModel,
    plan: &Plan,
    files: &[FileEntry],
    root: &Path,
    configurations: &[ProjectConfiguration],
) -> Vec<ProjectRow> {
    plan.projects
        .iter()
        .filter_map(|project| model.project(project))
        .map(|project| {
            let name = display_relative(root, &project.path);
            // A file the loaded configuration does not compile is not the project's here.
            let not_compiled: &[String] = configurations
                .iter()
                .find(|configuration| configuration.project == name)
                .map(|configuration| configuration.files_not_checked.as_slice())
                .unwrap_or_default();
            let own: Vec<String> = compile_files(project)
                .iter()
                .map(|file| display_relative(root, file))
                .filter(|file| !not_compiled.contains(file))
                .collect();
            let mut row = ProjectRow {
                project: display_relative(root, &project.path),
                files: own.len(),
                files_analysed: 0,
                error_count: 0,
                warning_count: 0,
                complete: false,
            };
            for file in files.iter().filter(|file| own.contains(&file.file)) {
                if let FileStatus::Analysed(Analysed::File { error_count, warning_count, .. }) = file.status {
                    row.files_analysed += 1;
                    row.error_count += error_count;
                    row.warning_count += warning_count;
                }
            }
            row.complete = row.files_analysed == own.len();
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::params::parse_arguments;

    #[test]
    fn an_incomplete_reason_names_the_speed_the_check_ran_at() {
        let trusted = incomplete_message(Speed::Trusted, 2);
        assert!(trusted.contains("speed=trusted") && !trusted.contains("speed=fast"), "{trusted}");
        let fast = incomplete_message(Speed::Fast, 2);
        assert!(fast.contains("speed=fast") && !fast.contains("speed=trusted"), "{fast}");
    }

    #[test]
    fn the_severity_floor_is_echoed_as_asked() {
        for name in ["error", "warning", "information", "hint", "all"] {
            let arguments: CheckArguments = parse_arguments(json!({ "severity": name })).unwrap();
            assert_eq!(serde_json::to_value(arguments.severity).unwrap(), json!(name));
        }
    }

    #[test]
    fn the_floor_admits_what_is_at_least_as_severe() {
        use answer::Severity;
        assert!(SeverityFloor::Error.admits(Severity::Error));
        assert!(!SeverityFloor::Error.admits(Severity::Warning));
        assert!(SeverityFloor::Information.admits(Severity::Information));
        assert!(!SeverityFloor::Information.admits(Severity::Hint));
        assert!(SeverityFloor::Hint.admits(Severity::Hint) && SeverityFloor::All.admits(Severity::Hint));
    }

    #[test]
    fn reads_the_sdk_pin_failure() {
        let stderr = "A compatible .NET SDK was not found.\n\nRequested SDK version: 99.0.100\nglobal.json file: /w/global.json\n\nInstalled SDKs:\n8.0.404 [/usr/share/dotnet/sdk]\n9.0.101 [/usr/share/dotnet/sdk]\n\nInstall the [99.0.100] .NET SDK";
        let reason = sdk_not_found(stderr, Path::new("/w"));
        assert_eq!(reason.error_kind, "sdk_not_found");
        assert_eq!(reason.requested_sdk_version.as_deref(), Some("99.0.100"));
        assert_eq!(reason.installed_sdks, Some(vec!["8.0.404".to_owned(), "9.0.101".to_owned()]));
        assert_eq!(reason.global_json_path.as_deref(), Some("/w/global.json"));
    }

    #[test]
    fn file_entries_keep_their_wire_shape() {
        let analysed = FileEntry {
            file: "A.fs".into(),
            status: FileStatus::Analysed(Analysed::File {
                error_count: 1,
                warning_count: 0,
                stamp: Stamp { open_in_editor: true, version: Some(None), content_sha256: None },
            }),
            edited: false,
        };
        assert_eq!(
            serde_json::to_value(&analysed).unwrap(),
            json!({"file": "A.fs", "status": "analysed", "errorCount": 1, "warningCount": 0, "openInEditor": true, "version": null})
        );
        let stale = FileEntry {
            file: "B.fs".into(),
            status: FileStatus::Stale { analysed_version: Some(1), current_version: Some(2) },
            edited: true,
        };
        assert_eq!(
            serde_json::to_value(&stale).unwrap(),
            json!({"file": "B.fs", "status": "stale", "analysedVersion": 1, "currentVersion": 2, "edited": true})
        );
        let snippet = FileEntry {
            file: "snippet".into(),
            status: FileStatus::Analysed(Analysed::Snippet { content_sha256: "ab".into() }),
            edited: false,
        };
        assert_eq!(
            serde_json::to_value(&snippet).unwrap(),
            json!({"file": "snippet", "status": "analysed", "contentSha256": "ab"})
        );
        // Each reads back to what was sent: the CLI renders the answer from its wire JSON.
        for entry in [analysed, stale, snippet] {
            let sent = serde_json::to_value(&entry).unwrap();
            let read: FileEntry = serde_json::from_value(sent.clone()).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        }
    }

    #[test]
    fn a_whole_answer_reads_back_to_the_json_sent() {
        let mut tally = Tally::default();
        let diagnostic = json!({"range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 9}},
            "severity": 2, "code": "FS0064", "source": "F# Compiler", "message": "less generic"});
        tally.add("A.fs", &diagnostic, SeverityFloor::All);
        let counts = tally.counts;
        let (diagnostics, diagnostics_truncated) = tally.listed_within_cap();
        let answer = CheckAnswer {
            coverage: Coverage {
                scope: Scope::Project,
                speed: Speed::Fast,
                severity: SeverityFloor::All,
                via: answer::Via::Fsac,
                expected_files: vec!["A.fs".into()],
                project_scope: Some(ProjectScopeNote::default()),
                notes: vec!["a note".into()],
                what_if: None,
                project_errors: None,
                session_generation: Some(3),
                snippet_position: None,
                project: None,
                configurations: None,
                configuration_note: None,
            },
            findings: Findings {
                verdict: Verdict::Clean,
                complete: true,
                counts,
                below_severity_floor_count: 0,
                diagnostics,
                diagnostics_truncated,
                diagnostics_note: None,
                files: Some(vec![FileEntry {
                    file: "A.fs".into(),
                    status: FileStatus::Analysed(Analysed::File {
                        error_count: 0,
                        warning_count: 1,
                        stamp: Stamp { open_in_editor: false, version: None, content_sha256: Some("cd".into()) },
                    }),
                    edited: false,
                }]),
                missing_files: Some(Vec::new()),
                stale_files: None,
                per_project: None,
                reason: None,
                blocking_reason: None,
            },
            baseline: None,
            delta: None,
            verdict_source: Some(answer::VerdictSource::FsacPerFileCheck),
            verdict_note: None,
            confirmation: None,
            elapsed_ms: 12,
        };
        let sent = serde_json::to_value(&answer).unwrap();
        assert_eq!(sent["diagnostics"][0]["severity"], json!("warning"));
        assert_eq!(sent["via"], json!("fsac"));
        assert_eq!(sent["verdictSource"], json!("fsac-per-file-check"));
        let read: CheckAnswer = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
    }
}
