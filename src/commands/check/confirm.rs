//! `confirm: "build"`: the real compiler confirms (or overrules) FSAC's verdict.
//!
//! FSAC reports each file's diagnostics from the compiler service's per-file check, which can
//! disagree with the build (with FSharp.Compiler.Service 43.13.404, an interpolated string
//! `$"%s{name} seed (%A{r})"` gets two FS0001 errors from the per-file check and none from
//! `dotnet build`). With `confirm: "build"` the check asks the session to run `dotnet build`
//! over the projects in scope, with every project's `bin/` and `obj/` redirected to a
//! temporary folder (so the user's build output and restore files are never touched), reads
//! the compiler's `file(line,col): error FSxxxx: message` lines, and reconciles: each FSAC
//! error is `confirmedByBuild`, each build error FSAC did not report is listed, and the
//! verdict rests on the build (`verdictSource: "build"`) when the build compiled the scope;
//! otherwise it stays FSAC's, and the answer says why.
//!
//! This module decides what runs (the arguments, the redirection) and reads what came back;
//! the process itself is started by `proxy::backend::run_build`, the one place that starts
//! programs, with `dotnet` fixed there and the projects taken from the workspace.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::CheckRun;
use super::answer::{CheckAnswer, ProjectConfiguration, Severity, Verdict, VerdictSource, range_start};
pub use super::arguments::Confirm;
use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::context::{BuildRequest, BuildRun, ProjectBuildOutput};
use crate::commands::paths::display_relative;
use crate::workspace::WorkspaceModel;

/// At most this many build errors are listed in each of the answer's lists.
pub const MAX_BUILD_ERRORS: usize = 50;

/// The MSBuild properties file every build imports in place of the user's
/// `Directory.Build.props` (`-p:DirectoryBuildPropsPath=`): it imports the user's own file when
/// there is one, then puts each project's `obj/` (restore files included) and `bin/` under
/// `output_root/<project name>/`. Being a props file (evaluated per project), it gives each
/// referenced project a folder of its own too.
pub fn redirect_props(output_root: &Path) -> String {
    let root = output_root.to_string_lossy().replace('&', "&amp;").replace('<', "&lt;");
    format!(
        r#"<Project>
  <!-- Written by fslens (check, confirm build): the build output goes to a temporary folder. -->
  <PropertyGroup>
    <_FslensUserDirectoryBuildProps>$([MSBuild]::GetDirectoryNameOfFileAbove($(MSBuildProjectDirectory), 'Directory.Build.props'))</_FslensUserDirectoryBuildProps>
  </PropertyGroup>
  <Import Project="$(_FslensUserDirectoryBuildProps)/Directory.Build.props" Condition="'$(_FslensUserDirectoryBuildProps)' != ''" />
  <PropertyGroup>
    <BaseIntermediateOutputPath>{root}/$(MSBuildProjectName)/obj/</BaseIntermediateOutputPath>
    <MSBuildProjectExtensionsPath>$(BaseIntermediateOutputPath)</MSBuildProjectExtensionsPath>
    <BaseOutputPath>{root}/$(MSBuildProjectName)/bin/</BaseOutputPath>
    <DefaultItemExcludes>$(DefaultItemExcludes);bin/**;obj/**</DefaultItemExcludes>
  </PropertyGroup>
</Project>
"#
    )
}

/// The arguments of `dotnet` for one project's build (`props`: the file of [`redirect_props`]):
/// restore and build, one process (no build servers or reused nodes left behind), the
/// console logger without colours or a summary.
pub fn build_arguments(project: &Path, props: &Path) -> Vec<OsString> {
    let mut props_argument = OsString::from("-p:DirectoryBuildPropsPath=");
    props_argument.push(props);
    vec![
        "build".into(),
        project.as_os_str().to_owned(),
        "-nologo".into(),
        "-tl:off".into(),
        "-nodeReuse:false".into(),
        "--disable-build-servers".into(),
        "-maxCpuCount:1".into(),
        "-v:q".into(),
        "-clp:NoSummary;ForceNoAlign;DisableConsoleColor".into(),
        props_argument,
    ]
}

/// How the answer names the command (the project and the props file vary).
const COMMAND_SHOWN: &str = "dotnet build <project> -p:DirectoryBuildPropsPath=<temporary props> \
     (each project's bin/ and obj/ in a temporary folder, removed afterwards)";

/// One error the build reported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildError {
    /// Workspace-relative when inside it; `null` for an error of no file (`MSBUILD : error …`).
    pub file: Option<String>,
    /// 1-based.
    pub line: Option<u32>,
    /// 1-based.
    pub column: Option<u32>,
    /// As the build writes it: `FS0001`, `NU1101`, `MSB3202`.
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The target framework it was reported for, when the project has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_framework: Option<String>,
}

/// How far the build got, which decides whether the verdict may rest on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ConfirmationStatus {
    /// The build compiled the files in scope: clean, or with errors in them.
    Compiled,
    /// The build failed on errors outside the files in scope (a referenced project, restore),
    /// so it may not have compiled them.
    FailedOutsideScope,
    /// The build failed without an error line fslens could read.
    Failed,
    /// The build's deadline (`buildTimeoutMs`) passed before it ended; it was stopped.
    TimedOut,
    /// `dotnet` could not be started.
    CannotStart,
    /// A file in scope is open in the editor with text that differs from the disk: FSAC
    /// checked the buffer, a build would compile the disk. Nothing was built.
    NotComparable,
}

/// What the build said and how it reconciles with FSAC (the answer's `confirmation`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Confirmation {
    pub via: Confirm,
    pub status: ConfirmationStatus,
    pub command: String,
    /// The projects `dotnet build` was run on (their references were built with them).
    pub projects_built: Vec<String>,
    /// Every build ended with exit code 0 (`null` when nothing ran to its end).
    pub build_succeeded: Option<bool>,
    /// The build's errors in the files in scope (in the configuration FSAC checked).
    pub build_error_count: usize,
    /// Of FSAC's listed errors, how many the build reported too, and how many it did not
    /// (both `null` unless the build compiled the scope).
    pub fsac_errors_confirmed: Option<usize>,
    pub fsac_errors_not_confirmed: Option<usize>,
    /// The build's errors in the files in scope that FSAC did not report.
    pub errors_only_in_build: Vec<BuildError>,
    /// The build's errors elsewhere (files outside the scope, other target frameworks, no
    /// file at all).
    pub errors_outside_scope: Vec<BuildError>,
    /// Files in scope the build did not compile although it compiled others: it failed, and no
    /// error lies in a project compiling them (MSBuild stops a project whose referenced project
    /// failed before its compiler runs). FSAC's errors there are neither confirmed nor not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_not_compiled: Vec<String>,
    /// Files in scope open in the editor with unsaved text (status `notComparable`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsaved_files: Vec<String>,
    pub elapsed_ms: u64,
    pub note: String,
}

/// Runs the build over the check's projects and reconciles `answer` with it.
pub(super) async fn confirm_by_build(
    mut answer: CheckAnswer,
    run: &CheckRun<'_>,
    context: &CommandContext,
) -> Result<CheckAnswer, CommandError> {
    let started = std::time::Instant::now();
    let unsaved = unsaved_files(run, context).await?;
    let projects = build_roots(&run.plan.projects, run.model);
    let projects_built: Vec<String> = projects.iter().map(|project| display_relative(run.root, project)).collect();
    if !unsaved.is_empty() {
        let note = format!(
            "not built: {} open in the editor with unsaved text (FSAC checked the buffer, a build \
             compiles the disk); save and check again; the verdict rests on FSAC's per-file check",
            unsaved.join(", ")
        );
        let confirmation = Confirmation {
            unsaved_files: unsaved,
            ..Confirmation::without_build(ConfirmationStatus::NotComparable, projects_built, note)
        };
        return Ok(fall_back(answer, confirmation));
    }
    let build_deadline =
        tokio::time::Instant::now() + std::time::Duration::from_millis(run.arguments.build_deadline_ms());
    let request =
        BuildRequest { workspace_root: run.root.to_path_buf(), projects: projects.clone(), deadline: build_deadline };
    let build = context.run_build(request).await?;
    let configurations = answer.coverage.configurations.clone().unwrap_or_default();
    let in_scope: BTreeSet<String> = run.plan.files.iter().map(|file| display_relative(run.root, file)).collect();
    let (builds, timed_out, elapsed_ms) = match build {
        BuildRun::CannotStart(why) => {
            let note = format!("the build could not start: {why}; the verdict rests on FSAC's per-file check");
            let mut confirmation = Confirmation::without_build(ConfirmationStatus::CannotStart, projects_built, note);
            confirmation.elapsed_ms = started.elapsed().as_millis() as u64;
            return Ok(fall_back(answer, confirmation));
        }
        BuildRun::Finished { builds, elapsed_ms } => (builds, false, elapsed_ms),
        BuildRun::TimedOut { builds, elapsed_ms } => (builds, true, elapsed_ms),
    };
    let errors = build_errors(&builds, run.root);
    let (scope_errors, outside): (Vec<BuildError>, Vec<BuildError>) = errors.into_iter().partition(|error| {
        error.file.as_ref().is_some_and(|file| in_scope.contains(file)) && checked_configuration(error, &configurations)
    });
    let succeeded = builds.iter().all(|build| build.exit_code == Some(0));
    let status = if timed_out {
        ConfirmationStatus::TimedOut
    } else if succeeded || !scope_errors.is_empty() {
        ConfirmationStatus::Compiled
    } else if !outside.is_empty() {
        ConfirmationStatus::FailedOutsideScope
    } else {
        ConfirmationStatus::Failed
    };
    let mut confirmation = Confirmation {
        via: Confirm::Build,
        status,
        command: COMMAND_SHOWN.to_owned(),
        projects_built,
        build_succeeded: (!timed_out).then_some(succeeded),
        build_error_count: scope_errors.len(),
        fsac_errors_confirmed: None,
        fsac_errors_not_confirmed: None,
        errors_only_in_build: Vec::new(),
        errors_outside_scope: outside.iter().take(MAX_BUILD_ERRORS).cloned().collect(),
        files_not_compiled: Vec::new(),
        unsaved_files: Vec::new(),
        elapsed_ms,
        note: String::new(),
    };
    if status != ConfirmationStatus::Compiled {
        confirmation.note = fallback_note(status, &builds, run.arguments.build_deadline_ms());
        return Ok(fall_back(answer, confirmation));
    }
    let all_errors: Vec<&BuildError> = scope_errors.iter().chain(&outside).collect();
    confirmation.files_not_compiled = files_not_compiled(run, &builds, &all_errors);
    reconcile(&mut answer, &mut confirmation, &scope_errors);
    answer.confirmation = Some(confirmation);
    Ok(answer)
}

/// The files in scope a failed build did not compile: no error lies in a file of a project
/// compiling them and no build that succeeded covered it (a project whose referenced project
/// failed is stopped before its compiler runs, so its own errors are never reported). Empty
/// when every build succeeded.
fn files_not_compiled(run: &CheckRun<'_>, builds: &[ProjectBuildOutput], errors: &[&BuildError]) -> Vec<String> {
    if builds.iter().all(|build| build.exit_code == Some(0)) {
        return Vec::new();
    }
    let mut compiled: BTreeSet<PathBuf> = errors
        .iter()
        .filter_map(|error| error.file.as_ref())
        .flat_map(|file| run.model.projects_compiling(&run.root.join(file)))
        .map(|project| project.path.clone())
        .collect();
    // A build that succeeded compiled its project and every project it references.
    let mut stack: Vec<PathBuf> =
        builds.iter().filter(|build| build.exit_code == Some(0)).map(|build| build.project.clone()).collect();
    while let Some(project) = stack.pop() {
        if compiled.insert(project.clone())
            && let Some(known) = run.model.projects.iter().find(|known| known.path == project)
        {
            stack.extend(known.project_references.iter().cloned());
        }
    }
    let mut files: Vec<String> = run
        .plan
        .files
        .iter()
        .filter(|file| {
            let compiling = run.model.projects_compiling(file);
            !compiling.is_empty() && !compiling.iter().any(|project| compiled.contains(&project.path))
        })
        .map(|file| display_relative(run.root, file))
        .collect();
    files.sort();
    files
}

impl Confirmation {
    fn without_build(status: ConfirmationStatus, projects_built: Vec<String>, note: String) -> Self {
        Confirmation {
            via: Confirm::Build,
            status,
            command: COMMAND_SHOWN.to_owned(),
            projects_built,
            build_succeeded: None,
            build_error_count: 0,
            fsac_errors_confirmed: None,
            fsac_errors_not_confirmed: None,
            errors_only_in_build: Vec::new(),
            errors_outside_scope: Vec::new(),
            files_not_compiled: Vec::new(),
            unsaved_files: Vec::new(),
            elapsed_ms: 0,
            note,
        }
    }
}

/// The build compiled the scope: each FSAC error is marked, the build's own errors listed,
/// and the verdict rests on the build.
fn reconcile(answer: &mut CheckAnswer, confirmation: &mut Confirmation, scope_errors: &[BuildError]) {
    let mut confirmed = 0;
    let mut not_confirmed = 0;
    let mut matched = vec![false; scope_errors.len()];
    let mut not_compiled = 0;
    for diagnostic in answer.findings.diagnostics.iter_mut().filter(|diagnostic| diagnostic.severity == Severity::Error)
    {
        if confirmation.files_not_compiled.contains(&diagnostic.file) {
            not_compiled += 1;
            continue;
        }
        let line = range_start(&diagnostic.range).map(|start| start.line + 1);
        let code = diagnostic.code.as_u64().or_else(|| diagnostic.code.as_str().and_then(code_number));
        let found = scope_errors.iter().position(|error| {
            error.file.as_deref() == Some(diagnostic.file.as_str())
                && error.line == line
                && code.is_some()
                && code_number(&error.code) == code
        });
        diagnostic.confirmed_by_build = Some(found.is_some());
        match found {
            Some(index) => {
                confirmed += 1;
                // Every build error FSAC also reported at that place is accounted for.
                for (other, error) in scope_errors.iter().enumerate() {
                    if error.file == scope_errors[index].file
                        && error.line == scope_errors[index].line
                        && error.code == scope_errors[index].code
                    {
                        matched[other] = true;
                    }
                }
            }
            None => not_confirmed += 1,
        }
    }
    confirmation.fsac_errors_confirmed = Some(confirmed);
    confirmation.fsac_errors_not_confirmed = Some(not_confirmed);
    confirmation.errors_only_in_build = scope_errors
        .iter()
        .zip(&matched)
        .filter(|(_, matched)| !**matched)
        .map(|(error, _)| error.clone())
        .take(MAX_BUILD_ERRORS)
        .collect();
    let findings = &mut answer.findings;
    findings.verdict = if scope_errors.is_empty() { Verdict::Clean } else { Verdict::Errors };
    findings.complete = true;
    findings.reason = None;
    findings.blocking_reason = None;
    answer.verdict_source = Some(VerdictSource::Build);
    answer.verdict_note = None;
    let listed_note = if findings.diagnostics_truncated {
        " (FSAC's list was cut, so only its listed errors were compared)"
    } else {
        ""
    };
    let not_compiled_note = if confirmation.files_not_compiled.is_empty() {
        String::new()
    } else {
        format!(
            "; it did not compile {} (a project they need failed first), so FSAC's {not_compiled} error(s) there are \
             neither confirmed nor overruled",
            confirmation.files_not_compiled.join(", ")
        )
    };
    confirmation.note = format!(
        "the build compiled the files in scope with {} error(s); of FSAC's {} listed error(s) it confirmed {confirmed}{listed_note}{not_compiled_note}; \
         the verdict rests on the build",
        scope_errors.len(),
        confirmed + not_confirmed + not_compiled,
    );
}

/// The verdict stays FSAC's: the answer says so and why.
fn fall_back(mut answer: CheckAnswer, confirmation: Confirmation) -> CheckAnswer {
    answer.rest_on_fsac();
    answer.verdict_note = Some(confirmation.note.clone());
    answer.confirmation = Some(confirmation);
    answer
}

fn fallback_note(status: ConfirmationStatus, builds: &[ProjectBuildOutput], timeout_ms: u64) -> String {
    let why = match status {
        ConfirmationStatus::TimedOut => {
            format!("the build did not end within buildTimeoutMs ({timeout_ms} ms) and was stopped")
        }
        ConfirmationStatus::FailedOutsideScope => {
            "the build failed on errors outside the files in scope (see errorsOutsideScope), so it may not \
             have compiled them"
                .to_owned()
        }
        _ => {
            let last: Vec<&str> = builds
                .iter()
                .filter(|build| build.exit_code != Some(0))
                .flat_map(|build| build.output.lines().map(str::trim).filter(|line| !line.is_empty()))
                .collect();
            let tail = last[last.len().saturating_sub(3)..].join(" | ");
            format!("the build failed without an error line fslens reads (its last lines: {tail})")
        }
    };
    format!("{why}; the verdict rests on FSAC's per-file check")
}

/// Files in scope that the editor has open with text other than the disk's.
async fn unsaved_files(run: &CheckRun<'_>, context: &CommandContext) -> Result<Vec<String>, CommandError> {
    let uris: Vec<String> = run.plan.files.iter().filter_map(|path| crate::uri::path_to_uri(path)).collect();
    let texts = context.what_if_editor_texts(uris).await?;
    let mut unsaved = Vec::new();
    for (path, text) in run.plan.files.iter().zip(texts) {
        let Some((text, _)) = text else { continue };
        let on_disk = crate::source_files::read_regular_text(path).ok();
        if on_disk.as_deref() != Some(text.as_str()) {
            unsaved.push(display_relative(run.root, path));
        }
    }
    Ok(unsaved)
}

/// The projects to run `dotnet build` on: those in scope that no other project in scope
/// references (building one builds what it references).
pub fn build_roots(projects: &[PathBuf], model: &WorkspaceModel) -> Vec<PathBuf> {
    let same = |a: &Path, b: &Path| a == b || (a.canonicalize().ok().is_some_and(|a| b.canonicalize().ok() == Some(a)));
    let referenced = |candidate: &Path| {
        let mut seen: Vec<PathBuf> = Vec::new();
        let mut stack: Vec<PathBuf> = projects.iter().filter(|other| !same(other, candidate)).cloned().collect();
        while let Some(project) = stack.pop() {
            if seen.iter().any(|known| same(known, &project)) {
                continue;
            }
            let references = model.project(&project).map(|found| found.project_references.clone()).unwrap_or_default();
            if references.iter().any(|reference| same(reference, candidate)) {
                return true;
            }
            seen.push(project);
            stack.extend(references);
        }
        false
    };
    projects.iter().filter(|project| !referenced(project)).cloned().collect()
}

/// Whether an error was reported for the configuration FSAC checked (a project with several
/// target frameworks is built in each; FSAC checked one).
fn checked_configuration(error: &BuildError, configurations: &[ProjectConfiguration]) -> bool {
    let (Some(project), Some(framework)) = (&error.project, &error.target_framework) else {
        return true;
    };
    configurations
        .iter()
        .find(|configuration| &configuration.project == project)
        .and_then(|configuration| configuration.target_framework.as_ref())
        .is_none_or(|checked| checked == framework)
}

/// Every error line of the builds, once each (the console logger repeats them).
pub fn build_errors(builds: &[ProjectBuildOutput], root: &Path) -> Vec<BuildError> {
    let errors: BTreeSet<BuildError> =
        builds.iter().flat_map(|build| build.output.lines()).filter_map(|line| parse_error_line(line, root)).collect();
    errors.into_iter().collect()
}

/// One MSBuild error line: `path(line,col): error FS0001: message [project::TargetFramework=tf]`,
/// also `path(line,col,endLine,endCol)`, `path: error …` and `MSBUILD : error …`; `None` for
/// anything else. fsc writes a message's line breaks as U+001D.
pub fn parse_error_line(line: &str, root: &Path) -> Option<BuildError> {
    let line = line.trim();
    let (place, rest) = line.split_once(": error ")?;
    let (code, rest) = rest.split_once(": ").unwrap_or((rest, ""));
    let code = code.trim();
    if code.is_empty() || code.contains(' ') {
        return None;
    }
    let (message, project_part) = match rest.rsplit_once(" [") {
        Some((message, project)) if project.ends_with(']') => (message, Some(project.trim_end_matches(']'))),
        _ => (rest, None),
    };
    let (project, target_framework) = match project_part.map(|part| part.split_once("::TargetFramework=")) {
        Some(Some((project, framework))) => (Some(project), Some(framework.to_owned())),
        Some(None) => (project_part, None),
        None => (None, None),
    };
    let shown = |path: &str| {
        let path = Path::new(path);
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        display_relative(root, &path)
    };
    let place = place.trim();
    let (file, position) = match place.strip_suffix(')').and_then(|place| place.rsplit_once('(')) {
        Some((file, position)) => (Some(file.trim()), Some(position)),
        None => (Some(place), None),
    };
    let numbers: Vec<u32> = position
        .map(|position| position.split(',').filter_map(|part| part.trim().parse().ok()).collect())
        .unwrap_or_default();
    let file = file.filter(|file| {
        !file.is_empty()
            && !file.eq_ignore_ascii_case("MSBUILD")
            && (file.contains('/') || file.contains('\\') || file.contains('.'))
    });
    Some(BuildError {
        file: file.map(shown),
        line: numbers.first().copied(),
        column: numbers.get(1).copied(),
        code: code.to_owned(),
        message: message.replace('\u{1d}', "\n").trim().to_owned(),
        project: project.map(shown),
        target_framework,
    })
}

/// `FS0001` → 1; a code of another tool (`NU1101`) → `None`.
fn code_number(code: &str) -> Option<u64> {
    code.strip_prefix("FS").unwrap_or(code).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_compilers_error_lines() {
        let root = Path::new("/w");
        let line = "/w/Seeds/Garden.fs(8,20): error FS0001: This expression was expected to have type\u{1d}    'int'    \u{1d}but here has type\u{1d}    'string' [/w/Seeds/Seeds.fsproj]";
        let error = parse_error_line(line, root).unwrap();
        assert_eq!(error.file.as_deref(), Some("Seeds/Garden.fs"));
        assert_eq!((error.line, error.column), (Some(8), Some(20)));
        assert_eq!(error.code, "FS0001");
        assert!(error.message.starts_with("This expression was expected to have type\n"), "{}", error.message);
        assert_eq!(error.project.as_deref(), Some("Seeds/Seeds.fsproj"));
        assert_eq!(error.target_framework, None);

        let framework =
            "/w/M/A.fs(3,5,3,9): error FS0039: The value 'x' is not defined. [/w/M/M.fsproj::TargetFramework=net8.0]";
        let error = parse_error_line(framework, root).unwrap();
        assert_eq!((error.line, error.column, error.target_framework.as_deref()), (Some(3), Some(5), Some("net8.0")));

        let restore = "/w/App/App.fsproj : error NU1101: Unable to find package Nope. [/w/App/App.fsproj]";
        let error = parse_error_line(restore, root).unwrap();
        assert_eq!((error.file.as_deref(), error.line, error.code.as_str()), (Some("App/App.fsproj"), None, "NU1101"));

        let msbuild = "MSBUILD : error MSB1009: Project file does not exist.";
        let error = parse_error_line(msbuild, root).unwrap();
        assert_eq!((error.file, error.code.as_str()), (None, "MSB1009"));

        for other in ["/w/A.fs(1,1): warning FS0064: less generic [/w/A.fsproj]", "Build FAILED.", "    1 Error(s)", ""]
        {
            assert_eq!(parse_error_line(other, root), None, "{other}");
        }
    }

    #[test]
    fn repeated_lines_count_once() {
        let line = "/w/A.fs(2,1): error FS0001: no [/w/A.fsproj]";
        let build = ProjectBuildOutput {
            project: "/w/A.fsproj".into(),
            exit_code: Some(1),
            output: format!("{line}\n\nBuild FAILED.\n\n{line}\n    1 Error(s)\n"),
        };
        assert_eq!(build_errors(&[build], Path::new("/w")).len(), 1);
    }

    #[test]
    fn the_props_redirect_obj_and_bin_per_project_and_keep_the_users_props() {
        let props = redirect_props(Path::new("/tmp/fslens-build-1/out"));
        assert!(props.contains("<BaseIntermediateOutputPath>/tmp/fslens-build-1/out/$(MSBuildProjectName)/obj/"));
        assert!(props.contains("<MSBuildProjectExtensionsPath>$(BaseIntermediateOutputPath)"));
        assert!(props.contains("<BaseOutputPath>/tmp/fslens-build-1/out/$(MSBuildProjectName)/bin/"));
        assert!(props.contains("'Directory.Build.props'"));
        // MSBuild refuses the file if an XML comment holds two hyphens in a row.
        let comments: Vec<&str> = props.split("<!--").skip(1).filter_map(|rest| rest.split("-->").next()).collect();
        assert!(comments.iter().all(|comment| !comment.contains("--")), "{comments:?}");
        let arguments = build_arguments(Path::new("/w/A.fsproj"), Path::new("/tmp/p.props"));
        assert_eq!(arguments[0], "build");
        assert!(arguments.contains(&OsString::from("-p:DirectoryBuildPropsPath=/tmp/p.props")));
        assert!(arguments.contains(&OsString::from("-nodeReuse:false")));
    }

    #[test]
    fn codes_compare_as_numbers() {
        assert_eq!(code_number("FS0001"), Some(1));
        assert_eq!(code_number("3370"), Some(3370));
        assert_eq!(code_number("NU1101"), None);
    }
}
