//! `fslens.check`: a type-check verdict that proves what it covers.
//!
//! `clean` is said only when FSAC reported analysing every file in scope at exactly the
//! content FSAC has now — the editor's buffer (unsaved text counts) for open files, the disk
//! text that fslens opened for the others — in the FSAC process still running. Anything short
//! of that is `unknown` with a typed `blockingReason`; a current error is `errors` even when
//! the rest of the scope is incomplete.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, one_of, optional_string, reject_unknown};
use crate::commands::paths::{confine, display_relative};
use crate::lsp::ext::error_kinds;
use crate::session_state::analysis::AnalysisSnapshot;
use crate::session_state::status::StatusSnapshot;
use crate::workspace::{Project, ProjectError, ProjectErrorKind, WorkspaceModel};

mod what_if;

/// At most this many diagnostics are returned; the counts always cover all of them.
pub const MAX_DIAGNOSTICS: usize = 50;
/// Files fslens opens in FSAC at once during a trusted check.
const OPEN_BATCH: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    File,
    Project,
    Workspace,
    Snippet,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::File => "file",
            Scope::Project => "project",
            Scope::Workspace => "workspace",
            Scope::Snippet => "snippet",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Severity {
    Error = 1,
    Warning = 2,
    Information = 3,
    Hint = 4,
}

/// The parsed argument object.
#[derive(Debug)]
struct CheckArguments {
    scope: Option<Scope>,
    path: Option<String>,
    snippet: Option<String>,
    snippet_at_start: bool,
    file_glob: Option<String>,
    fast: bool,
    /// `None` means `all`.
    severity_floor: Option<Severity>,
    project_path: Option<String>,
    timeout: Duration,
    /// A what-if's hypothetical change (what_if.rs reads it).
    edits: Option<Value>,
}

fn parse_arguments(argument: &Value) -> Result<CheckArguments, CommandError> {
    let object = object_of(argument)?;
    reject_unknown(
        object,
        &[
            "scope",
            "path",
            "snippet",
            "snippetPosition",
            "fileGlob",
            "speed",
            "severity",
            "projectPath",
            "timeoutMs",
            "edits",
        ],
    )?;
    let text = |name: &str| optional_string(object, name);
    // The first choice is the default.
    let scope = one_of(
        text("scope")?,
        "scope",
        &[
            ("auto", None),
            ("file", Some(Scope::File)),
            ("project", Some(Scope::Project)),
            ("workspace", Some(Scope::Workspace)),
            ("snippet", Some(Scope::Snippet)),
        ],
    )?;
    let snippet_at_start = one_of(text("snippetPosition")?, "snippetPosition", &[("end", false), ("start", true)])?;
    let fast = one_of(text("speed")?, "speed", &[("trusted", false), ("fast", true)])?;
    let severity_floor = one_of(
        text("severity")?,
        "severity",
        &[
            ("error", Some(Severity::Error)),
            ("warning", Some(Severity::Warning)),
            ("information", Some(Severity::Information)),
            // Hidden diagnostics (no severity) count as hints, so the two floors keep the same
            // rows; the answer echoes the one asked for.
            ("hint", Some(Severity::Hint)),
            ("all", None),
        ],
    )?;
    let timeout = crate::commands::arguments::timeout_argument(object, 60_000)?;
    let arguments = CheckArguments {
        scope,
        path: text("path")?,
        snippet: text("snippet")?,
        snippet_at_start,
        file_glob: text("fileGlob")?,
        fast,
        severity_floor,
        project_path: text("projectPath")?,
        timeout,
        edits: object.get("edits").filter(|edits| !edits.is_null()).cloned(),
    };
    if arguments.edits.is_some() && (arguments.scope == Some(Scope::Snippet) || arguments.snippet.is_some()) {
        return Err(CommandError::invalid_argument("edits", "a what-if checks project files, not a snippet"));
    }
    if arguments.edits.is_some() && arguments.fast {
        return Err(CommandError::invalid_argument(
            "speed",
            "a what-if needs FSAC to analyse the edited texts: use speed=trusted",
        ));
    }
    if arguments.scope == Some(Scope::Snippet) && arguments.snippet.is_none() {
        return Err(CommandError::invalid_argument("snippet", "scope snippet needs the snippet text"));
    }
    if arguments.scope == Some(Scope::File) && arguments.path.is_none() {
        return Err(CommandError::invalid_argument("path", "scope file needs a path"));
    }
    Ok(arguments)
}

/// A typed reason why the verdict is `unknown`.
fn blocking(kind: &str, message: impl Into<String>, extra: Value) -> Value {
    let mut reason = json!({ "errorKind": kind, "message": message.into() });
    if let (Some(reason), Value::Object(extra)) = (reason.as_object_mut(), extra) {
        reason.extend(extra);
    }
    reason
}

/// The files a check covers and what it needs to say about them.
struct Plan {
    scope: Scope,
    files: Vec<PathBuf>,
    projects: Vec<PathBuf>,
    notes: Vec<String>,
}

pub async fn check(argument: Value, mut context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let arguments = parse_arguments(&argument)?;
    let root = context.workspace_root()?.to_path_buf();
    let deadline = tokio::time::Instant::now() + arguments.timeout;
    let model = crate::commands::load_workspace_model(&root).await?;
    let plan = plan(&arguments, &model, &root)?;
    let (plan, what_if) = match &arguments.edits {
        Some(edits) => {
            let (plan, what_if) = what_if::prepare(edits, plan, &model, &root, &context).await?;
            (plan, Some(what_if))
        }
        None => (plan, None),
    };
    refuse_a_file_that_does_not_exist(&arguments, &plan, &context).await?;
    let mut answer = json!({
        "scope": plan.scope.as_str(),
        "speed": if arguments.fast { "fast" } else { "trusted" },
        "severity": severity_name(arguments.severity_floor),
        "via": "fsac",
    });
    let relative = |path: &Path| display_relative(&root, path);
    answer["expectedFiles"] = json!(plan.files.iter().map(|path| relative(path)).collect::<Vec<_>>());
    if plan.scope == Scope::Project {
        answer["downstreamProjectsChecked"] = json!(false);
        answer["recommendedScope"] = json!("workspace");
        answer["coverageNote"] = json!(
            "scope=project checks one project; projects that reference it were not analysed. \
             Use scope=workspace for a verdict that includes them."
        );
    }
    if !plan.notes.is_empty() {
        answer["notes"] = json!(plan.notes);
    }
    if let Some(what_if) = &what_if {
        what_if.describe(&mut answer, &root);
    }

    // A workspace without a project: say so, with where fslens looked (a snippet or a script
    // needs no project).
    if plan.projects.is_empty()
        && !plan.files.first().is_some_and(|file| is_script(file))
        && let Some(reason) = crate::commands::no_projects(&model)
    {
        return Ok(finish_unknown(answer, reason, started));
    }
    // What fslens's own reading of the project files says cannot build: a project file that
    // is not XML leaves nothing to check; a missing compile item keeps the verdict off clean.
    let project_errors = project_errors_in_scope(&model, &plan);
    if !project_errors.is_empty() {
        answer["projectErrors"] =
            json!(project_errors.iter().map(|error| project_error_json(error, &root)).collect::<Vec<_>>());
    }
    if let Some(malformed) =
        project_errors.iter().find(|error| error.error.kind == ProjectErrorKind::ProjectFileMalformed)
    {
        let reason = project_error_reason(malformed, &root);
        return Ok(finish_unknown(answer, reason, started));
    }

    // A verdict over no file at all would be a `clean` without proof.
    if plan.scope != Scope::Snippet && plan.files.is_empty() {
        let reason = blocking(
            error_kinds::NOTHING_IN_SCOPE,
            "no source file is in scope (check projectPath, path and fileGlob)",
            json!({}),
        );
        return Ok(finish_unknown(answer, reason, started));
    }

    // FSAC must be able to answer at all, and the projects in scope must have loaded.
    let status = wait_for_fsac(&mut context, arguments.fast, deadline).await?;
    if let Some(reason) = unavailable_reason(&status, &plan, &root) {
        return Ok(finish_unknown(answer, reason, started));
    }
    let generation = status.generation;
    answer["sessionGeneration"] = json!(generation);
    if plan.scope == Scope::Snippet {
        return check_snippet(answer, &arguments, &plan, &model, &mut context, deadline, generation, started).await;
    }
    if let Some(what_if) = what_if {
        return what_if::run(
            what_if,
            answer,
            &arguments,
            &plan,
            &model,
            &mut context,
            &root,
            deadline,
            generation,
            started,
        )
        .await;
    }
    verdict_over(answer, &arguments, &plan, &model, &mut context, &root, deadline, generation, started).await
}

/// Analyses every file of the plan and gives the verdict over them.
#[allow(clippy::too_many_arguments)]
async fn verdict_over(
    mut answer: Value,
    arguments: &CheckArguments,
    plan: &Plan,
    model: &WorkspaceModel,
    context: &mut CommandContext,
    root: &Path,
    deadline: tokio::time::Instant,
    generation: u64,
    started: Instant,
) -> Result<Value, CommandError> {
    let relative = |path: &Path| display_relative(root, path);
    // A missing compile item keeps the verdict off clean (the caller already reported them).
    let project_errors = project_errors_in_scope(model, plan);
    let uris: Vec<String> = plan.files.iter().filter_map(|path| crate::uri::path_to_uri(path)).collect();
    let outcome = if arguments.fast {
        fast_snapshots(context, &uris, &plan.files).await?
    } else {
        trusted_snapshots(context, &uris, &plan.files, deadline, generation).await?
    };
    let after = context.status().await?;
    // FSAC exiting (and perhaps being restarted) during the check voids its analyses.
    let fsac_went_away = after.generation != generation || !after.fsac_running;

    // Count every diagnostic of every analysed file; filter only the returned array.
    let mut counts = BTreeMap::from([("error", 0usize), ("warning", 0), ("info", 0)]);
    let mut returned = Vec::new();
    let mut below_floor = 0usize;
    let mut files = Vec::new();
    for (path, result) in plan.files.iter().zip(&outcome.results) {
        let mut file_entry = json!({ "file": relative(path) });
        match result {
            FileResult::Analysed { diagnostics, stamp } => {
                let mut file_errors = 0;
                let mut file_warnings = 0;
                for diagnostic in diagnostics {
                    let severity = severity_of(diagnostic);
                    match severity {
                        Severity::Error => {
                            file_errors += 1;
                            *counts.entry("error").or_default() += 1;
                        }
                        Severity::Warning => {
                            file_warnings += 1;
                            *counts.entry("warning").or_default() += 1;
                        }
                        Severity::Information | Severity::Hint => *counts.entry("info").or_default() += 1,
                    }
                    if arguments.severity_floor.is_some_and(|floor| severity > floor) {
                        below_floor += 1;
                    } else {
                        returned.push(project_diagnostic(&relative(path), diagnostic));
                    }
                }
                file_entry["status"] = json!("analysed");
                file_entry["errorCount"] = json!(file_errors);
                file_entry["warningCount"] = json!(file_warnings);
                if let Some(entry) = file_entry.as_object_mut() {
                    entry.extend(stamp.clone());
                }
            }
            FileResult::Missing { why } => {
                file_entry["status"] = json!("missing");
                file_entry["why"] = json!(why);
            }
            FileResult::Stale { analysed_version, current_version } => {
                file_entry["status"] = json!("stale");
                file_entry["analysedVersion"] = json!(analysed_version);
                file_entry["currentVersion"] = json!(current_version);
            }
        }
        files.push(file_entry);
    }
    let missing: Vec<String> = plan
        .files
        .iter()
        .zip(&outcome.results)
        .filter(|(_, result)| matches!(result, FileResult::Missing { .. }))
        .map(|(path, _)| relative(path))
        .collect();
    let stale: Vec<String> = plan
        .files
        .iter()
        .zip(&outcome.results)
        .filter(|(_, result)| matches!(result, FileResult::Stale { .. }))
        .map(|(path, _)| relative(path))
        .collect();
    let complete = missing.is_empty() && stale.is_empty() && !fsac_went_away && project_errors.is_empty();
    let (errors, warnings, infos) = (counts["error"], counts["warning"], counts["info"]);
    answer["complete"] = json!(complete);
    answer["errorCount"] = json!(errors);
    answer["warningCount"] = json!(warnings);
    answer["infoCount"] = json!(infos);
    answer["totalDiagnostics"] = json!(errors + warnings + infos);
    answer["belowSeverityFloorCount"] = json!(below_floor);
    answer["diagnosticsTruncated"] = json!(returned.len() > MAX_DIAGNOSTICS);
    returned.truncate(MAX_DIAGNOSTICS);
    answer["diagnostics"] = json!(returned);
    answer["files"] = json!(files);
    answer["missingFiles"] = json!(missing);
    answer["staleFiles"] = json!(stale);
    if below_floor > 0 {
        answer["diagnosticsNote"] = json!(format!(
            "{below_floor} diagnostic(s) below the severity floor are counted but not listed; pass severity=\"all\" to see them"
        ));
    }
    if plan.scope == Scope::Workspace {
        answer["perProject"] = per_project(model, plan, &files, root);
    }
    let verdict = if errors > 0 {
        "errors"
    } else if complete {
        "clean"
    } else {
        "unknown"
    };
    answer["verdict"] = json!(verdict);
    if verdict == "unknown" {
        let reason = if fsac_went_away {
            blocking(
                error_kinds::FSAC_RESTARTED,
                format!(
                    "FSAC exited during the check ({}); analyses from before do not count",
                    after.reason.as_deref().unwrap_or_default()
                ),
                json!({ "state": after.state }),
            )
        } else if let Some(error) = project_errors.first() {
            project_error_reason(error, root)
        } else if outcome.timed_out {
            blocking(
                error_kinds::TIMEOUT,
                format!(
                    "the deadline of {} ms passed with {} file(s) not analysed",
                    arguments.timeout.as_millis(),
                    missing.len() + stale.len()
                ),
                json!({}),
            )
        } else {
            blocking(
                error_kinds::INCOMPLETE,
                format!(
                    "{} file(s) have no current analysis (speed=fast uses only what FSAC already reported)",
                    missing.len() + stale.len()
                ),
                json!({}),
            )
        };
        answer["reason"] = reason["message"].clone();
        answer["blockingReason"] = reason;
    }
    answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
    Ok(answer)
}

fn severity_name(floor: Option<Severity>) -> &'static str {
    match floor {
        Some(Severity::Error) => "error",
        Some(Severity::Warning) => "warning",
        Some(Severity::Information) => "information",
        Some(Severity::Hint) => "hint",
        None => "all",
    }
}

fn severity_of(diagnostic: &Value) -> Severity {
    match diagnostic.get("severity").and_then(Value::as_u64) {
        Some(1) => Severity::Error,
        Some(2) => Severity::Warning,
        Some(3) => Severity::Information,
        // FSAC leaves the severity out for hidden diagnostics.
        _ => Severity::Hint,
    }
}

fn project_diagnostic(file: &str, diagnostic: &Value) -> Value {
    let severity = match severity_of(diagnostic) {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "information",
        Severity::Hint => "hint",
    };
    json!({
        "file": file,
        "range": diagnostic.get("range").cloned().unwrap_or(Value::Null),
        "severity": severity,
        "code": diagnostic.get("code").cloned().unwrap_or(Value::Null),
        "source": diagnostic.get("source").cloned().unwrap_or(Value::Null),
        "message": diagnostic.get("message").cloned().unwrap_or(Value::Null),
    })
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
fn project_error_json(scoped: &ScopedProjectError, root: &Path) -> Value {
    let error = scoped.error;
    let mut value = json!({
        "errorKind": project_error_kind(error.kind),
        "project": display_relative(root, scoped.project),
        "file": display_relative(root, &error.file),
        "message": project_error_message(scoped, root),
    });
    if let (Some(line), Some(column)) = (error.line, error.column) {
        value["line"] = json!(line);
        value["column"] = json!(column);
    }
    value
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
fn project_error_reason(scoped: &ScopedProjectError, root: &Path) -> Value {
    let mut reason = project_error_json(scoped, root);
    if scoped.error.kind == ProjectErrorKind::CompileItemMissing {
        reason["remedy"] = json!(format!(
            "create {} or remove its <Compile> item from {}",
            display_relative(root, &scoped.error.file),
            display_relative(root, scoped.project)
        ));
    }
    reason
}

fn finish_unknown(mut answer: Value, reason: Value, started: Instant) -> Value {
    answer["verdict"] = json!("unknown");
    answer["complete"] = json!(false);
    for count in ["errorCount", "warningCount", "infoCount", "totalDiagnostics", "belowSeverityFloorCount"] {
        answer[count] = json!(0);
    }
    answer["diagnostics"] = json!([]);
    answer["diagnosticsTruncated"] = json!(false);
    answer["reason"] = reason["message"].clone();
    answer["blockingReason"] = reason;
    answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
    answer
}

/// A file-scope check of a path that is neither on disk nor open in the editor is an
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

fn plan(arguments: &CheckArguments, model: &WorkspaceModel, root: &Path) -> Result<Plan, CommandError> {
    let scope = arguments.scope.unwrap_or(if arguments.snippet.is_some() {
        Scope::Snippet
    } else if arguments.path.is_some() {
        Scope::File
    } else if arguments
        .project_path
        .as_deref()
        .is_some_and(|project| !crate::commands::paths::names_a_solution(project))
    {
        // An .fsproj path or a project name: the same reading as find's.
        Scope::Project
    } else {
        Scope::Workspace
    });
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
                files.into_iter().filter(|file| glob_matches(glob, &display_relative(root, file))).collect();
            notes.push(format!("fileGlob {glob:?} kept {} file(s)", kept.len()));
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

/// `*` matches within a path segment, `**` across segments, `?` one character.
pub fn glob_matches(glob: &str, path: &str) -> bool {
    fn matches(glob: &[u8], path: &[u8]) -> bool {
        match glob.split_first() {
            None => path.is_empty(),
            Some((b'*', rest)) if rest.first() == Some(&b'*') => {
                let rest = rest.strip_prefix(b"*/").or_else(|| rest.strip_prefix(b"*")).unwrap_or(rest);
                (0..=path.len()).any(|skip| matches(rest, &path[skip..]))
            }
            Some((b'*', rest)) => (0..=path.len())
                .take_while(|&skip| skip == 0 || path[skip - 1] != b'/')
                .any(|skip| matches(rest, &path[skip..])),
            Some((b'?', rest)) => path.first().is_some_and(|&c| c != b'/') && matches(rest, &path[1..]),
            Some((&c, rest)) => path.first() == Some(&c) && matches(rest, &path[1..]),
        }
    }
    matches(glob.as_bytes(), path.as_bytes())
}

/// Waits (within the deadline) until FSAC has loaded the workspace, or can no longer.
async fn wait_for_fsac(
    context: &mut CommandContext,
    fast: bool,
    deadline: tokio::time::Instant,
) -> Result<StatusSnapshot, CommandError> {
    loop {
        let status = context.status().await?;
        if !status.state.can_become_ready() || fast {
            return Ok(status);
        }
        match tokio::time::timeout_at(deadline, context.state_changed()).await {
            Ok(changed) => changed?,
            Err(_) => return Ok(status),
        }
    }
}

/// Why FSAC cannot give a trustworthy answer for this plan, if it cannot.
fn unavailable_reason(status: &StatusSnapshot, plan: &Plan, root: &Path) -> Option<Value> {
    let state = status.state.as_str();
    let reason = status.reason.clone().unwrap_or_default();
    let stderr = status.stderr_tail.as_str();
    if stderr.contains("A compatible .NET SDK was not found") && state != "ready" && state != "loading" {
        return Some(sdk_not_found(stderr, root));
    }
    match state {
        "ready" => {}
        "loading" | "starting" => {
            return Some(blocking(
                error_kinds::TIMEOUT,
                format!("FSAC had not finished loading the workspace: {reason}"),
                json!({ "state": state }),
            ));
        }
        _ => return Some(blocking(error_kinds::FSAC_UNAVAILABLE, reason, json!({ "state": state }))),
    }
    for project in &plan.projects {
        let display = project.display().to_string();
        if let Some(error) = status.project_error(&display) {
            let kind =
                if error.code == Some(100) { error_kinds::PROJECT_NOT_RESTORED } else { error_kinds::PROJECT_FAILURE };
            let message = format!(
                "FSAC could not load {}: {} (code {})",
                display_relative(root, project),
                error.message,
                json!(error.code)
            );
            let mut extra = json!({ "project": display_relative(root, project), "fsacErrorCode": error.code });
            if kind == error_kinds::PROJECT_NOT_RESTORED {
                extra["remedy"] = json!(format!("run `dotnet restore {}`", display_relative(root, project)));
            }
            return Some(blocking(kind, message, extra));
        }
    }
    if plan.scope == Scope::File
        && let Some(file) = plan.files.first()
        && plan.projects.is_empty()
        && !is_script(file)
    {
        return Some(blocking(
            error_kinds::FILE_NOT_IN_PROJECT,
            format!("{} is compiled by no project, so FSAC gives it no diagnostics", display_relative(root, file)),
            json!({ "file": display_relative(root, file) }),
        ));
    }
    None
}

fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "fsx" || extension == "fsscript")
}

/// The typed SDK-pin failure, read from the dotnet host's message that FSAC printed.
fn sdk_not_found(stderr: &str, root: &Path) -> Value {
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
    blocking(
        error_kinds::SDK_NOT_FOUND,
        format!(
            "FSAC could not start: global.json pins .NET SDK {} which is not installed",
            requested.as_deref().unwrap_or("(unknown)")
        ),
        json!({
            "requestedSdkVersion": requested,
            "installedSdks": installed,
            "globalJsonPath": global_json,
            "remedies": ["install the pinned SDK", "or change sdk.version / rollForward in global.json"],
        }),
    )
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
#[allow(clippy::too_many_arguments)]
async fn check_snippet(
    mut answer: Value,
    arguments: &CheckArguments,
    plan: &Plan,
    model: &WorkspaceModel,
    context: &mut CommandContext,
    deadline: tokio::time::Instant,
    generation: u64,
    started: Instant,
) -> Result<Value, CommandError> {
    let snippet = arguments.snippet.clone().unwrap_or_default();
    let project_path = match plan.projects.first() {
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
    let project = model.project(&project_path).ok_or_else(|| CommandError::InvalidPath {
        path: project_path.display().to_string(),
        message: "not in the workspace".into(),
    })?;
    let (text, first_snippet_line) = if arguments.snippet_at_start {
        (snippet.clone(), 0u64)
    } else {
        let loads: Vec<String> = files_seen_by(model, project)
            .iter()
            .map(|file| format!("\"{}\"", file.display().to_string().replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        if loads.is_empty() { (snippet.clone(), 0) } else { (format!("#load {}\n{snippet}", loads.join(" ")), 1) }
    };
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
    let (diagnostics, timed_out) = match current_analysis(context, &uri, deadline, generation).await? {
        CurrentAnalysis::Analysed { diagnostics, .. } => (Some(diagnostics), false),
        CurrentAnalysis::TimedOut => (None, true),
        CurrentAnalysis::FsacWentAway => (None, false),
    };
    context.release_document(&uri);
    drop(script);

    answer["snippetPosition"] = json!(if arguments.snippet_at_start { "start" } else { "end" });
    answer["project"] = json!(display_relative(&model.root, &project.path));
    answer["expectedFiles"] = json!(["snippet"]);
    let Some(diagnostics) = diagnostics else {
        let reason = if timed_out {
            blocking(
                error_kinds::TIMEOUT,
                format!("the snippet was not analysed within {} ms", arguments.timeout.as_millis()),
                json!({}),
            )
        } else {
            blocking(error_kinds::FSAC_RESTARTED, "FSAC exited while the snippet was checked", json!({}))
        };
        return Ok(finish_unknown(answer, reason, started));
    };
    let mut counts = (0usize, 0usize, 0usize);
    let mut returned = Vec::new();
    let mut below_floor = 0;
    for diagnostic in diagnostics {
        let start_line = diagnostic.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(0);
        if start_line < first_snippet_line {
            continue; // the #load line: problems of project files, not of the snippet
        }
        let mut diagnostic = diagnostic;
        for end in ["start", "end"] {
            if let Some(line) = diagnostic.pointer_mut(&format!("/range/{end}/line"))
                && let Some(number) = line.as_u64()
            {
                *line = json!(number.saturating_sub(first_snippet_line));
            }
        }
        let severity = severity_of(&diagnostic);
        match severity {
            Severity::Error => counts.0 += 1,
            Severity::Warning => counts.1 += 1,
            _ => counts.2 += 1,
        }
        if arguments.severity_floor.is_some_and(|floor| severity > floor) {
            below_floor += 1;
        } else {
            returned.push(project_diagnostic("snippet", &diagnostic));
        }
    }
    answer["complete"] = json!(true);
    answer["errorCount"] = json!(counts.0);
    answer["warningCount"] = json!(counts.1);
    answer["infoCount"] = json!(counts.2);
    answer["totalDiagnostics"] = json!(counts.0 + counts.1 + counts.2);
    answer["belowSeverityFloorCount"] = json!(below_floor);
    answer["diagnosticsTruncated"] = json!(returned.len() > MAX_DIAGNOSTICS);
    returned.truncate(MAX_DIAGNOSTICS);
    answer["diagnostics"] = json!(returned);
    answer["files"] = json!([{ "file": "snippet", "status": "analysed", "contentSha256": sha256_hex(&snippet) }]);
    answer["missingFiles"] = json!([]);
    answer["staleFiles"] = json!([]);
    answer["verdict"] = json!(if counts.0 > 0 { "errors" } else { "clean" });
    answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
    Ok(answer)
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
) -> Result<Result<u64, Value>, CommandError> {
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

enum FileResult {
    Analysed { diagnostics: Vec<Value>, stamp: Map<String, Value> },
    Missing { why: String },
    Stale { analysed_version: Option<i64>, current_version: Option<i64> },
}

struct Outcome {
    results: Vec<FileResult>,
    timed_out: bool,
}

/// Opens what the editor has not open, waits for FSAC to analyse every file at the content it
/// has now, and closes what it opened.
async fn trusted_snapshots(
    context: &mut CommandContext,
    uris: &[String],
    paths: &[PathBuf],
    deadline: tokio::time::Instant,
    generation: u64,
) -> Result<Outcome, CommandError> {
    let mut results: Vec<Option<FileResult>> = (0..uris.len()).map(|_| None).collect();
    let mut disk_hashes: Vec<Option<String>> = vec![None; uris.len()];
    let mut timed_out = false;
    for batch_start in (0..uris.len()).step_by(OPEN_BATCH) {
        let batch: Vec<usize> = (batch_start..(batch_start + OPEN_BATCH).min(uris.len())).collect();
        for &index in &batch {
            let path = paths[index].clone();
            let text = tokio::task::spawn_blocking(move || crate::source_files::read_regular_text(&path))
                .await
                .map_err(|error| CommandError::Internal(error.to_string()))?;
            match text {
                Ok(text) => {
                    disk_hashes[index] = Some(sha256_hex(&text));
                    match context.acquire_document(&uris[index], text).await {
                        Ok(()) => {}
                        // FSAC went away mid-check: the caller reports it as such.
                        Err(CommandError::Unavailable(reason)) => {
                            results[index] =
                                Some(FileResult::Missing { why: format!("FSAC is not running: {reason}") });
                        }
                        Err(error) => return Err(error),
                    }
                }
                Err(error) => results[index] = Some(FileResult::Missing { why: format!("cannot read it: {error}") }),
            }
        }
        loop {
            let pending: Vec<usize> = batch.iter().copied().filter(|&index| results[index].is_none()).collect();
            if pending.is_empty() {
                break;
            }
            let snapshots = context.analysis(pending.iter().map(|&index| uris[index].clone()).collect()).await?;
            if snapshots.iter().any(|snapshot| snapshot.generation != generation) {
                break; // FSAC went away or restarted: the caller reports it
            }
            for (&index, snapshot) in pending.iter().zip(&snapshots) {
                if let Some(diagnostics) = snapshot.current_diagnostics() {
                    results[index] = Some(FileResult::Analysed {
                        diagnostics,
                        stamp: stamp(snapshot, disk_hashes[index].as_deref()),
                    });
                }
            }
            if pending.iter().all(|&index| results[index].is_some()) {
                break;
            }
            match tokio::time::timeout_at(deadline, context.analysis_changed()).await {
                Ok(changed) => changed?,
                Err(_) => {
                    timed_out = true;
                    break;
                }
            }
        }
        for &index in &batch {
            context.release_document(&uris[index]);
        }
        if timed_out {
            break;
        }
    }
    // An editor buffer that changed after its analysis no longer counts.
    let snapshots = context.analysis(uris.to_vec()).await?;
    let results = results
        .into_iter()
        .zip(&snapshots)
        .map(|(result, snapshot)| match result {
            Some(FileResult::Analysed { stamp, .. })
                if snapshot.open_in_editor
                    && stamp.get("version").and_then(Value::as_i64) != snapshot.expected_version =>
            {
                FileResult::Stale {
                    analysed_version: stamp.get("version").and_then(Value::as_i64),
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
        .collect();
    Ok(Outcome { results, timed_out })
}

/// Uses only what FSAC already reported: current analyses of open buffers.
async fn fast_snapshots(
    context: &CommandContext,
    uris: &[String],
    _paths: &[PathBuf],
) -> Result<Outcome, CommandError> {
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

fn stamp(snapshot: &AnalysisSnapshot, disk_hash: Option<&str>) -> Map<String, Value> {
    let mut stamp = Map::new();
    stamp.insert("openInEditor".into(), json!(snapshot.open_in_editor));
    if snapshot.open_in_editor {
        stamp.insert("version".into(), json!(snapshot.expected_version));
    } else if let Some(hash) = disk_hash {
        stamp.insert("contentSha256".into(), json!(hash));
    }
    stamp
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

fn per_project(model: &WorkspaceModel, plan: &Plan, files: &[Value], root: &Path) -> Value {
    let rows: Vec<Value> = plan
        .projects
        .iter()
        .filter_map(|project| model.project(project))
        .map(|project| {
            let own: Vec<String> = compile_files(project).iter().map(|file| display_relative(root, file)).collect();
            let mine: Vec<&Value> =
                files.iter().filter(|file| own.iter().any(|own| file["file"] == json!(own))).collect();
            let sum = |key: &str| mine.iter().filter_map(|file| file[key].as_u64()).sum::<u64>();
            let analysed = mine.iter().filter(|file| file["status"] == "analysed").count();
            json!({
                "project": display_relative(root, &project.path),
                "files": own.len(),
                "filesAnalysed": analysed,
                "errorCount": sum("errorCount"),
                "warningCount": sum("warningCount"),
                "complete": analysed == own.len(),
            })
        })
        .collect();
    json!(rows)
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_segments_and_trees() {
        assert!(glob_matches("src/**/*.fs", "src/App/Program.fs"));
        assert!(glob_matches("src/**/*.fs", "src/A.fs"));
        assert!(glob_matches("**/Types.fs", "src/Domain/Types.fs"));
        assert!(!glob_matches("src/*.fs", "src/App/Program.fs"));
        assert!(glob_matches("tests/?hip*", "tests/Shipping"));
        assert!(!glob_matches("*.fsx", "a/b.fsx"));
    }

    #[test]
    fn arguments_are_checked_and_named() {
        let error = parse_arguments(&json!({"scope": "everything"})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("scope"));
        let error = parse_arguments(&json!({"timeoutMs": -1})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("timeoutMs"));
        let error = parse_arguments(&json!({"scope": "file"})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("path"));
        let error = parse_arguments(&json!({"pathh": "x"})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("pathh"));
        assert!(parse_arguments(&json!({"severity": "all", "speed": "fast"})).unwrap().fast);
    }

    #[test]
    fn the_severity_floor_is_echoed_as_asked() {
        for name in ["error", "warning", "information", "hint", "all"] {
            let arguments = parse_arguments(&json!({ "severity": name })).unwrap();
            assert_eq!(severity_name(arguments.severity_floor), name);
        }
    }

    #[test]
    fn reads_the_sdk_pin_failure() {
        let stderr = "A compatible .NET SDK was not found.\n\nRequested SDK version: 99.0.100\nglobal.json file: /w/global.json\n\nInstalled SDKs:\n8.0.404 [/usr/share/dotnet/sdk]\n9.0.101 [/usr/share/dotnet/sdk]\n\nInstall the [99.0.100] .NET SDK";
        let reason = sdk_not_found(stderr, Path::new("/w"));
        assert_eq!(reason["errorKind"], json!("sdk_not_found"));
        assert_eq!(reason["requestedSdkVersion"], json!("99.0.100"));
        assert_eq!(reason["installedSdks"], json!(["8.0.404", "9.0.101"]));
        assert_eq!(reason["globalJsonPath"], json!("/w/global.json"));
    }
}
