//! `fslens.runTests`: runs tests through FSAC's test explorer (`test/runTests`, VSTest) in the
//! session, and answers per test with its outcome, duration, failure message and the first
//! stack frame inside the workspace.
//!
//! FSAC builds nothing: VSTest runs each test project's built assembly as it is on disk. The
//! answer says which test projects' assemblies are older than their sources (or their
//! referenced projects' sources) as `staleAssemblies`, with the build that would refresh them;
//! fslens does not run that build itself (no peer chooses a program to run, invariant 8).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::blocking::BlockingReason;
use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::commands::paths::{confine, display_relative};
use crate::commands::{CommandContext, CommandError};
use crate::lsp::ext::{backend_requests, error_kinds};
use crate::session_state::status::{LoadedConfiguration, State, StatusSnapshot};

/// The arguments of `fslens.runTests` (and the flags of `fslens run-tests`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunTestsArguments {
    /// Fully qualified names of the tests to run (VSTest's `FullyQualifiedName`, e.g.
    /// `Tally.Xunit.CounterTests.add adds`); every data row of a theory runs. Not with `filter`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "tests", value_name = "NAME")]
    pub tests: Option<Vec<String>>,
    /// A VSTest filter expression, as `dotnet test --filter` takes it
    /// (`FullyQualifiedName~clampTo`, `DisplayName=x|Category=fast`). Not with `tests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub filter: Option<String>,
    /// Test project files to run (relative to the workspace root or absolute inside it);
    /// default: every test project FSAC loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "projects", value_name = "PROJECT")]
    pub projects: Option<Vec<String>>,
    /// One deadline for the wait for FSAC and the whole run, in milliseconds; when it passes
    /// the run is cancelled and the answer is `unknown`.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub timeout_ms: TimeoutMs<300_000>,
}

impl CommandArguments for RunTestsArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if self.tests.is_some() && self.filter.is_some() {
            return Err(CommandError::invalid_argument(
                "tests",
                "`tests` and `filter` cannot be given together: give the test names, or one filter",
            ));
        }
        if let Some(tests) = &self.tests {
            if tests.is_empty() {
                return Err(CommandError::invalid_argument("tests", "must name at least one test"));
            }
            if let Some(index) = tests.iter().position(|name| name.trim().is_empty()) {
                return Err(CommandError::invalid_argument(&format!("tests[{index}]"), "must not be empty"));
            }
        }
        if self.filter.as_deref().is_some_and(|filter| filter.trim().is_empty()) {
            return Err(CommandError::invalid_argument("filter", "must not be empty"));
        }
        if let Some(projects) = &self.projects
            && projects.is_empty()
        {
            return Err(CommandError::invalid_argument("projects", "must name at least one test project"));
        }
        Ok(())
    }
}

/// Whether FSAC answered the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RunStatus {
    /// FSAC ran the tests and answered: the results are VSTest's.
    Ok,
    /// No results: `blockingReason` says why (FSAC not ready or unavailable, the deadline, the
    /// run failing in FSAC).
    Unknown,
}

/// Where the results come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Via {
    /// FSAC's `test/runTests` (VSTest over the built assemblies).
    Fsac,
}

/// A test's outcome, as VSTest reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
    /// VSTest's `None`: the test reported no outcome.
    None,
    /// VSTest did not find the test (or, for a name given in `tests`, no result came for it).
    NotFound,
}

/// Where a failure happened: the first stack frame in a file inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// Relative to the workspace root.
    pub path: String,
    /// 1-based, as the stack trace says it.
    pub line: u32,
}

/// One test's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestRow {
    /// VSTest's `FullyQualifiedName` (for a theory, the method: the same for each data row).
    pub full_name: String,
    /// VSTest's `DisplayName` (a theory row adds its arguments).
    pub display_name: String,
    /// The test project, relative to the workspace root (`null` for a requested name with no
    /// result).
    pub project: Option<String>,
    pub outcome: Outcome,
    pub duration_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_trace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// What the test wrote (VSTest's result messages), when it wrote anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// How many tests ended each way.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// `none` and `notFound`.
    pub other: usize,
}

/// A test project whose built assembly is older than the code it tests: VSTest ran the old
/// build (FSAC builds nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaleAssembly {
    /// The test project, relative to the workspace root.
    pub project: String,
    /// Its output assembly (FSAC's `Output`), relative to the workspace root.
    pub assembly: String,
    /// Why it is stale: `missing` (never built) or the newest source file newer than it.
    pub reason: String,
    /// What refreshes it; fslens does not run it.
    pub remedy: String,
}

/// The answer of `fslens.runTests`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunTestsAnswer {
    pub status: RunStatus,
    /// True when FSAC answered, no assembly was stale and every requested test has a result.
    pub complete: bool,
    pub via: Via,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<BlockingReason>,
    pub totals: Totals,
    pub tests: Vec<TestRow>,
    /// The test projects run, relative to the workspace root.
    pub projects: Vec<String>,
    /// The VSTest filter sent (`testCaseFilter`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_case_filter: Option<String>,
    /// Test projects whose assemblies are older than their sources: their results are those
    /// of the old build.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_assemblies: Vec<StaleAssembly>,
    /// The tests of `tests` run through their fixture: NUnit's adapter cannot read their names
    /// in a filter (see [`FixtureRun`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_through_fixture: Vec<FixtureRun>,
    /// How many results of those fixtures' other tests (not requested) were left out of `tests`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub results_left_out: usize,
    pub elapsed_ms: u64,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A test named in `tests` that the filter selects through its fixture. NUnit's VSTest adapter
/// (`NUnit3TestAdapter`) turns the whole VSTest filter into NUnit's own selection language,
/// whose parser stops at a space: one `FullyQualifiedName=Ns.Fixture.total adds` in the
/// filter fails the adapter's whole run ("Unexpected Word 'adds' … in selection expression")
/// and no NUnit test of the run has a result. So when a project of the run references NUnit
/// ([`NUNIT_PACKAGES`]), a name with whitespace in it (an F# double-backtick name) is sent as
/// `FullyQualifiedName~<fixture>` (the tests whose full name contains its fixture's), and of
/// that fixture's results only the requested test's are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureRun {
    /// The requested test's full name.
    pub test: String,
    /// What the filter selected instead: every test whose full name contains this (the test's
    /// declaring type's full name and `.`, cut at the first whitespace when the type's own
    /// name has some).
    pub fixture: String,
}

/// VSTest's filter escaping (`FilterHelper.Escape`): `\`, `(`, `)`, `&`, `|`, `=`, `!` and `~`
/// are preceded by `\`.
pub fn escape_filter_value(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for character in value.chars() {
        if matches!(character, '\\' | '(' | ')' | '&' | '|' | '=' | '!' | '~') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}

/// The filter that runs exactly the named tests.
pub fn filter_of_names(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("FullyQualifiedName={}", escape_filter_value(name.trim())))
        .collect::<Vec<_>>()
        .join("|")
}

/// The packages that make a project an NUnit one, whose VSTest adapter reads the filter as
/// NUnit's selection language: `NUnit` (the adapter itself is a build-only package, so the
/// design-time build's package references FSAC reports name the framework, not the adapter).
pub const NUNIT_PACKAGES: [&str; 2] = ["NUnit", "NUnit3TestAdapter"];

/// Whether NUnit's adapter cannot read the name in a filter: it has whitespace in it.
pub fn nunit_cannot_read(name: &str) -> bool {
    name.chars().any(char::is_whitespace)
}

/// The fixture a test named `name` is run through: its name up to and with the last `.` (the
/// declaring type's full name and `.`), cut at its first whitespace. Always a prefix of `name`
/// without whitespace, so `FullyQualifiedName~` with it selects the test.
pub fn fixture_of(name: &str) -> String {
    let fixture = name.rfind('.').map_or(name, |dot| &name[..=dot]);
    fixture.split(char::is_whitespace).next().unwrap_or_default().to_owned()
}

/// The filter that runs the named tests when NUnit's adapter reads it (`nunit`): a name it
/// cannot read is selected through its fixture (one `FullyQualifiedName~` per fixture), every
/// other name exactly. Without `nunit`, [`filter_of_names`].
pub fn filter_of_names_for_adapters(names: &[String], nunit: bool) -> (String, Vec<FixtureRun>) {
    if !nunit {
        return (filter_of_names(names), Vec::new());
    }
    let (spaced, exact): (Vec<&String>, Vec<&String>) = names.iter().partition(|name| nunit_cannot_read(name.trim()));
    let runs: Vec<FixtureRun> = spaced
        .iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|name| FixtureRun { test: name.trim().to_owned(), fixture: fixture_of(name.trim()) })
        .collect();
    let fixtures: BTreeSet<&str> = runs.iter().map(|run| run.fixture.as_str()).collect();
    let exact: Vec<String> = exact.into_iter().cloned().collect();
    let clauses = (!exact.is_empty())
        .then(|| filter_of_names(&exact))
        .into_iter()
        .chain(fixtures.iter().map(|fixture| format!("FullyQualifiedName~{}", escape_filter_value(fixture))));
    (clauses.collect::<Vec<_>>().join("|"), runs)
}

/// Whether a result is one of the named tests' (the name itself, or a data row of it: the name
/// and `(`).
fn is_result_of(full_name: &str, names: &[String]) -> bool {
    names
        .iter()
        .map(|name| name.trim())
        .any(|name| full_name == name || full_name.strip_prefix(name).is_some_and(|rest| rest.starts_with('(')))
}

/// `test/runTests` params.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RunTestsParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    limit_to_projects: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    test_case_filter: Option<String>,
    attach_debugger: bool,
}

/// FSAC's answer envelope: `{content: "<JSON text>"}`.
#[derive(Debug, Deserialize)]
struct FsacContent {
    content: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct FsacEnvelope {
    #[serde(default)]
    data: Vec<FsacTestResult>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct FsacTestResult {
    test_item: FsacTestItem,
    outcome: i64,
    #[serde(default)]
    error_message: Option<String>,
    #[serde(default)]
    error_stack_trace: Option<String>,
    #[serde(default)]
    additional_output: Option<String>,
    #[serde(default)]
    duration: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct FsacTestItem {
    full_name: String,
    display_name: String,
    #[serde(default)]
    project_file_path: Option<String>,
}

/// FSAC's `TestOutcome` number (docs/fsac-protocol.md §9).
fn outcome_of(number: i64) -> Outcome {
    match number {
        0 => Outcome::Failed,
        1 => Outcome::Passed,
        2 => Outcome::Skipped,
        4 => Outcome::NotFound,
        _ => Outcome::None,
    }
}

/// A .NET `TimeSpan` as text (`[-][d.]hh:mm:ss[.fffffff]`) in milliseconds.
pub fn timespan_ms(text: &str) -> Option<f64> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut parts = text.split(':');
    let (first, minutes, seconds) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (days, hours) = match first.split_once('.') {
        Some((days, hours)) => (days.parse::<f64>().ok()?, hours.parse::<f64>().ok()?),
        None => (0.0, first.parse::<f64>().ok()?),
    };
    let minutes = minutes.parse::<f64>().ok()?;
    let seconds = seconds.parse::<f64>().ok()?;
    let total = ((days * 24.0 + hours) * 60.0 + minutes) * 60_000.0 + seconds * 1000.0;
    let rounded = (total * 1000.0).round() / 1000.0;
    Some(if negative { -rounded } else { rounded })
}

/// The first frame of a .NET stack trace (`   at X in <path>:line N`) whose file is inside the
/// workspace.
pub fn first_workspace_frame(stack_trace: &str, root: &Path) -> Option<Location> {
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    stack_trace.lines().find_map(|line| {
        // `at Namespace.Type.method(arguments) in <path>:line N`: the path starts after the
        // arguments' `) in `, so a path or a test name with ` in ` in it reads whole.
        let (_, place) = line.split_once(") in ")?;
        let (path, number) = place.rsplit_once(":line ")?;
        let number = number.trim().parse::<u32>().ok()?;
        let path = Path::new(path.trim());
        let inside = path.is_absolute() && (path.starts_with(root) || path.starts_with(&canonical_root));
        inside.then(|| {
            let relative = path.strip_prefix(&canonical_root).or_else(|_| path.strip_prefix(root)).unwrap_or(path);
            Location { path: relative.to_string_lossy().into_owned(), line: number }
        })
    })
}

/// Runs the tests and answers per test.
pub async fn run_tests(
    arguments: RunTestsArguments,
    mut context: CommandContext,
) -> Result<RunTestsAnswer, CommandError> {
    let started = Instant::now();
    let root = context.workspace_root()?.to_path_buf();
    let deadline = tokio::time::Instant::now() + arguments.timeout_ms.as_duration_ms();
    let requested = requested_projects(&arguments, &root)?;
    let test_case_filter = match (&arguments.tests, &arguments.filter) {
        (Some(names), _) => Some(filter_of_names(names)),
        (None, Some(filter)) => Some(filter.clone()),
        (None, None) => None,
    };
    let mut answer = RunTestsAnswer {
        status: RunStatus::Unknown,
        complete: false,
        via: Via::Fsac,
        blocking_reason: None,
        totals: Totals::default(),
        tests: Vec::new(),
        projects: Vec::new(),
        test_case_filter,
        stale_assemblies: Vec::new(),
        run_through_fixture: Vec::new(),
        results_left_out: 0,
        elapsed_ms: 0,
    };

    let status = context.status_when_ready(deadline).await?;
    if let Some(reason) = not_ready_reason(&status) {
        answer.blocking_reason = Some(reason);
        answer.elapsed_ms = elapsed_ms(started);
        return Ok(answer);
    }
    let chosen = chosen_projects(&status, requested.as_deref(), arguments.projects.as_deref(), &root)?;
    answer.projects = chosen.iter().map(|project| display_relative(&root, Path::new(&project.project))).collect();
    if let Some(names) = &arguments.tests {
        let nunit = chosen.iter().any(|project| {
            project
                .package_references
                .iter()
                .any(|package| NUNIT_PACKAGES.iter().any(|nunit| package.eq_ignore_ascii_case(nunit)))
        });
        let (filter, through_fixture) = filter_of_names_for_adapters(names, nunit);
        answer.test_case_filter = Some(filter);
        answer.run_through_fixture = through_fixture;
    }
    let loaded = status.loaded_configurations.clone();
    let chosen_names: Vec<String> = chosen.iter().map(|project| project.project.clone()).collect();
    let stale_root = root.clone();
    answer.stale_assemblies =
        tokio::task::spawn_blocking(move || stale_assemblies(&chosen_names, &loaded, &stale_root))
            .await
            .map_err(|error| CommandError::Internal(format!("the staleness check failed: {error}")))?;

    let params = RunTestsParams {
        limit_to_projects: requested.is_some().then(|| chosen.iter().map(|project| project.project.clone()).collect()),
        test_case_filter: answer.test_case_filter.clone(),
        attach_debugger: false,
    };
    let params = serde_json::to_value(&params)
        .map_err(|error| CommandError::Internal(format!("the run's params could not be written: {error}")))?;
    let reply = match context.backend_request(backend_requests::RUN_TESTS, params, deadline).await {
        Ok(reply) => reply,
        Err(CommandError::Timeout) => {
            answer.blocking_reason = Some(BlockingReason::new(
                error_kinds::TIMEOUT,
                format!(
                    "the run did not end within timeoutMs ({} ms); it was cancelled in FSAC",
                    arguments.timeout_ms.get()
                ),
            ));
            answer.elapsed_ms = elapsed_ms(started);
            return Ok(answer);
        }
        Err(error) => return Err(error),
    };
    match reply.map_err(|error| (error.message.clone(), error.data)).and_then(|result| {
        read_results(result).map_err(|message| (format!("FSAC's answer could not be read: {message}"), None))
    }) {
        Ok(results) => {
            answer.status = RunStatus::Ok;
            answer.tests = results.into_iter().map(|result| test_row(result, &root)).collect();
            if let Some(names) = arguments.tests.as_deref().filter(|_| !answer.run_through_fixture.is_empty()) {
                let before = answer.tests.len();
                answer.tests.retain(|row| is_result_of(&row.full_name, names));
                answer.results_left_out = before - answer.tests.len();
            }
        }
        Err((message, data)) => {
            let kind = data
                .as_ref()
                .and_then(|data| data.get("errorKind"))
                .and_then(Value::as_str)
                .and_then(|kind| error_kinds::ALL.iter().find(|known| **known == kind).copied())
                .unwrap_or(error_kinds::TEST_RUN_FAILED);
            answer.blocking_reason = Some(BlockingReason::new(kind, message));
            answer.elapsed_ms = elapsed_ms(started);
            return Ok(answer);
        }
    }
    let mut missing = false;
    if let Some(names) = &arguments.tests {
        let absent = tests_that_did_not_run(names, &answer.tests);
        missing = !absent.is_empty();
        answer.tests.extend(absent);
    }
    answer.totals = totals(&answer.tests);
    answer.complete = answer.stale_assemblies.is_empty() && !missing;
    answer.elapsed_ms = elapsed_ms(started);
    Ok(answer)
}

/// `projects`, each confined to the workspace (`None` when not given).
fn requested_projects(arguments: &RunTestsArguments, root: &Path) -> Result<Option<Vec<PathBuf>>, CommandError> {
    arguments
        .projects
        .as_ref()
        .map(|projects| {
            projects
                .iter()
                .enumerate()
                .map(|(index, written)| confine(root, written, &format!("projects[{index}]")))
                .collect::<Result<_, _>>()
        })
        .transpose()
}

/// A `notFound` row for each test named in `tests` that did not run.
fn tests_that_did_not_run(names: &[String], ran: &[TestRow]) -> Vec<TestRow> {
    let found: HashSet<&str> = ran.iter().map(|row| row.full_name.as_str()).collect();
    names
        .iter()
        .map(|name| name.trim())
        .filter(|name| !found.contains(name))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|name| TestRow {
            full_name: name.to_owned(),
            display_name: name.to_owned(),
            project: None,
            outcome: Outcome::NotFound,
            duration_ms: 0.0,
            message: Some("no test of this name ran in the test projects' built assemblies".to_owned()),
            stack_trace: None,
            location: None,
            output: None,
        })
        .collect()
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn totals(tests: &[TestRow]) -> Totals {
    let mut totals = Totals::default();
    for test in tests {
        match test.outcome {
            Outcome::Passed => totals.passed += 1,
            Outcome::Failed => totals.failed += 1,
            Outcome::Skipped => totals.skipped += 1,
            Outcome::None | Outcome::NotFound => totals.other += 1,
        }
    }
    totals
}

/// FSAC's answer read as its results.
fn read_results(result: Value) -> Result<Vec<FsacTestResult>, String> {
    let content: FsacContent = serde_json::from_value(result).map_err(|error| error.to_string())?;
    let envelope: FsacEnvelope = serde_json::from_str(&content.content).map_err(|error| error.to_string())?;
    Ok(envelope.data)
}

fn test_row(result: FsacTestResult, root: &Path) -> TestRow {
    let location = result.error_stack_trace.as_deref().and_then(|trace| first_workspace_frame(trace, root));
    TestRow {
        full_name: result.test_item.full_name,
        display_name: result.test_item.display_name,
        project: result.test_item.project_file_path.map(|path| display_relative(root, Path::new(&path))),
        outcome: outcome_of(result.outcome),
        duration_ms: result.duration.as_deref().and_then(timespan_ms).unwrap_or(0.0),
        message: result.error_message,
        stack_trace: result.error_stack_trace,
        location,
        output: result.additional_output,
    }
}

fn not_ready_reason(status: &StatusSnapshot) -> Option<BlockingReason> {
    let reason = status.reason.clone().unwrap_or_default();
    match status.state {
        State::Ready => None,
        State::Loading | State::Starting => Some(
            BlockingReason::new(
                error_kinds::TIMEOUT,
                format!("FSAC had not finished loading the workspace before the deadline: {reason}"),
            )
            .in_state(status.state),
        ),
        State::Absent | State::Crashed => Some(
            BlockingReason::new(
                error_kinds::FSAC_UNAVAILABLE,
                if reason.is_empty() { "FSAC is not running".to_owned() } else { reason },
            )
            .in_state(status.state),
        ),
    }
}

/// The test projects to run: those named in `projects` (each a loaded test project, else an
/// `invalid_argument` naming it), or every loaded test project.
fn chosen_projects(
    status: &StatusSnapshot,
    requested: Option<&[PathBuf]>,
    written: Option<&[String]>,
    root: &Path,
) -> Result<Vec<LoadedConfiguration>, CommandError> {
    let tests: Vec<&LoadedConfiguration> =
        status.loaded_configurations.iter().filter(|project| project.is_test_project()).collect();
    let Some(requested) = requested else {
        return Ok(tests.into_iter().cloned().collect());
    };
    let same = |loaded: &str, wanted: &Path| {
        let loaded = Path::new(loaded);
        loaded == wanted || loaded.canonicalize().ok().is_some_and(|canonical| canonical == wanted)
    };
    let names = || tests.iter().map(|project| display_relative(root, Path::new(&project.project))).collect::<Vec<_>>();
    let mut chosen: Vec<LoadedConfiguration> = Vec::new();
    for (index, wanted) in requested.iter().enumerate() {
        let argument = format!("projects[{index}]");
        let shown = written.and_then(|written| written.get(index)).cloned().unwrap_or_default();
        let Some(loaded) = status.loaded_configurations.iter().find(|loaded| same(&loaded.project, wanted)) else {
            return Err(CommandError::invalid_argument(
                &argument,
                format!("`{shown}` is no project FSAC loaded (test projects: {})", names().join(", ")),
            ));
        };
        if !loaded.is_test_project() {
            return Err(CommandError::invalid_argument(
                &argument,
                format!(
                    "`{shown}` is not a test project for FSAC: it references neither {} (test projects: {})",
                    crate::session_state::status::TEST_PROJECT_PACKAGES.join(" nor "),
                    names().join(", ")
                ),
            ));
        }
        if !chosen.iter().any(|project| project.project == loaded.project) {
            chosen.push(loaded.clone());
        }
    }
    Ok(chosen)
}

/// The chosen test projects whose output assembly is missing or older than the newest source
/// file of the project or of any project it references (transitively). Files under a
/// project's `obj/` (generated by the build itself) do not count.
fn stale_assemblies(chosen: &[String], loaded: &[LoadedConfiguration], root: &Path) -> Vec<StaleAssembly> {
    let by_name = |name: &str| loaded.iter().find(|project| project.project == name);
    let mut stale = Vec::new();
    for name in chosen {
        let Some(project) = by_name(name) else { continue };
        let Some(output) = project.output.as_deref() else { continue };
        let display_project = display_relative(root, Path::new(&project.project));
        let remedy = format!("run `dotnet build {display_project}`, then run the tests again");
        let assembly = display_relative(root, Path::new(output));
        let built = match std::fs::metadata(output).and_then(|metadata| metadata.modified()) {
            Ok(built) => built,
            Err(_) => {
                stale.push(StaleAssembly {
                    project: display_project,
                    assembly,
                    reason: "missing: the project was never built".to_owned(),
                    remedy,
                });
                continue;
            }
        };
        // The project and every project it references, transitively.
        let mut seen: Vec<&LoadedConfiguration> = Vec::new();
        let mut queue = vec![project];
        while let Some(next) = queue.pop() {
            if seen.iter().any(|known| known.project == next.project) {
                continue;
            }
            seen.push(next);
            queue.extend(next.project_references.iter().filter_map(|reference| by_name(reference)));
        }
        let newest: Option<(SystemTime, PathBuf)> = seen
            .iter()
            .flat_map(|project| {
                let obj = Path::new(&project.project).parent().map(|folder| folder.join("obj"));
                project
                    .files
                    .iter()
                    .flatten()
                    .map(PathBuf::from)
                    .filter(move |file| obj.as_ref().is_none_or(|obj| !file.starts_with(obj)))
            })
            .filter_map(|file| Some((std::fs::metadata(&file).and_then(|metadata| metadata.modified()).ok()?, file)))
            .max_by_key(|(modified, _)| *modified);
        if let Some((modified, file)) = newest
            && modified > built
        {
            stale.push(StaleAssembly {
                project: display_project,
                assembly,
                reason: format!("{} changed after the assembly was built", display_relative(root, &file)),
                remedy,
            });
        }
    }
    stale
}

/// Definite when every test ran passed, errors when one failed, not definite when the answer is
/// not definite (no results, no test ran, a stale assembly, a requested test not found).
impl crate::commands::outcome::Answered for RunTestsAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        if self.status != RunStatus::Ok {
            crate::commands::outcome::Outcome::NotDefinite
        } else if self.totals.failed > 0 {
            crate::commands::outcome::Outcome::Errors
        } else {
            crate::commands::outcome::definite_if(self.complete && !self.tests.is_empty())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::params::parse_arguments;
    use serde_json::json;

    #[test]
    fn names_become_an_escaped_fully_qualified_name_filter() {
        assert_eq!(escape_filter_value(r"a(b)&c|d=e!f~g\h"), r"a\(b\)\&c\|d\=e\!f\~g\\h");
        let names = ["Tally.Xunit.CounterTests.add adds".to_owned(), "N.T.f(x)".to_owned()];
        assert_eq!(
            filter_of_names(&names),
            r"FullyQualifiedName=Tally.Xunit.CounterTests.add adds|FullyQualifiedName=N.T.f\(x\)"
        );
    }

    #[test]
    fn with_nunit_a_name_with_spaces_is_selected_through_its_fixture() {
        let names = [
            "Calc.Nunit.LedgerFixture.total adds the amounts".to_owned(),
            "Calc.Nunit.LedgerFixture.count counts".to_owned(),
            "Calc.Nunit.LedgerFixture.CountsTwo".to_owned(),
            "Calc.Xunit.LedgerTests.summary says".to_owned(),
        ];
        let (filter, runs) = filter_of_names_for_adapters(&names, false);
        assert_eq!(filter, filter_of_names(&names));
        assert!(runs.is_empty());
        let (filter, runs) = filter_of_names_for_adapters(&names, true);
        assert_eq!(
            filter,
            "FullyQualifiedName=Calc.Nunit.LedgerFixture.CountsTwo|FullyQualifiedName~Calc.Nunit.LedgerFixture.\
             |FullyQualifiedName~Calc.Xunit.LedgerTests."
        );
        let fixtures: Vec<(&str, &str)> = runs.iter().map(|run| (run.test.as_str(), run.fixture.as_str())).collect();
        assert_eq!(
            fixtures,
            [
                ("Calc.Nunit.LedgerFixture.count counts", "Calc.Nunit.LedgerFixture."),
                ("Calc.Nunit.LedgerFixture.total adds the amounts", "Calc.Nunit.LedgerFixture."),
                ("Calc.Xunit.LedgerTests.summary says", "Calc.Xunit.LedgerTests."),
            ]
        );
        // A type whose own name has a space, a name with a `.` after its space, no type at all.
        assert_eq!(fixture_of("N.``Ledger fixture``.adds"), "N.``Ledger");
        assert_eq!(fixture_of("N.F.adds 1.5 and 2"), "N.F.adds");
        assert_eq!(fixture_of("adds one"), "adds");
        assert!(is_result_of("N.F.adds one", &["N.F.adds one".to_owned()]));
        assert!(is_result_of("N.F.adds(1,2)", &["N.F.adds".to_owned()]));
        assert!(!is_result_of("N.F.adds two", &["N.F.adds".to_owned()]));
    }

    #[test]
    fn tests_and_filter_together_are_refused_naming_them() {
        let error = parse_arguments::<RunTestsArguments>(json!({"tests": ["a"], "filter": "b"})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("tests"));
        assert!(error.to_string().contains("filter"), "{error}");
        let error = parse_arguments::<RunTestsArguments>(json!({"tests": []})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("tests"));
        let error = parse_arguments::<RunTestsArguments>(json!({"tests": ["a", " "]})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("tests[1]"));
        assert!(parse_arguments::<RunTestsArguments>(json!({"filter": "FullyQualifiedName~x"})).is_ok());
    }

    #[test]
    fn timespans_read_as_milliseconds() {
        assert_eq!(timespan_ms("00:00:00.0093833"), Some(9.383));
        assert_eq!(timespan_ms("00:01:02"), Some(62_000.0));
        assert_eq!(timespan_ms("1.00:00:00.5"), Some(86_400_500.0));
        assert_eq!(timespan_ms("nonsense"), None);
        assert_eq!(timespan_ms("1:2:3:4"), None);
    }

    #[test]
    fn the_first_frame_inside_the_workspace_is_the_location() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let trace = format!(
            "   at Xunit.Assert.Equal() in /_/src/xunit.assert/Asserts/EqualityAsserts.cs:line 12\n   at \
             Tally.Xunit.CounterTests.add adds() in {}/tests/Tally.Xunit/CounterTests.fs:line 12\n   at \
             System.Reflection.MethodBaseInvoker.InvokeWithNoArgs(Object obj, BindingFlags invokeAttr)",
            root.display()
        );
        assert_eq!(
            first_workspace_frame(&trace, &root),
            Some(Location { path: "tests/Tally.Xunit/CounterTests.fs".to_owned(), line: 12 })
        );
        assert_eq!(first_workspace_frame("   at X() in /elsewhere/A.fs:line 3", &root), None);
        assert_eq!(first_workspace_frame("garbage in :line x", &root), None);
        let spaced = root.join("odd in dir");
        let trace = format!("   at T.in the middle() in {}/A.fs:line 7", spaced.display());
        assert_eq!(
            first_workspace_frame(&trace, &root),
            Some(Location { path: "odd in dir/A.fs".to_owned(), line: 7 })
        );
    }

    fn answer(outcomes: &[Outcome], stale: bool, status: RunStatus) -> RunTestsAnswer {
        let tests: Vec<TestRow> = outcomes
            .iter()
            .enumerate()
            .map(|(index, outcome)| TestRow {
                full_name: format!("T.t{index}"),
                display_name: format!("T.t{index}"),
                project: Some("tests/T.fsproj".to_owned()),
                outcome: *outcome,
                duration_ms: 1.5,
                message: (*outcome == Outcome::Failed).then(|| "Expected: 6\nActual:   5".to_owned()),
                stack_trace: None,
                location: (*outcome == Outcome::Failed).then(|| Location { path: "tests/A.fs".to_owned(), line: 12 }),
                output: None,
            })
            .collect();
        let stale_assemblies = if stale {
            vec![StaleAssembly {
                project: "tests/T.fsproj".to_owned(),
                assembly: "tests/bin/T.dll".to_owned(),
                reason: "tests/A.fs changed after the assembly was built".to_owned(),
                remedy: "run `dotnet build tests/T.fsproj`, then run the tests again".to_owned(),
            }]
        } else {
            Vec::new()
        };
        RunTestsAnswer {
            status,
            complete: status == RunStatus::Ok && !stale,
            via: Via::Fsac,
            blocking_reason: (status == RunStatus::Unknown)
                .then(|| BlockingReason::new("timeout", "FSAC had not finished loading").in_state(State::Loading)),
            totals: totals(&tests),
            tests,
            projects: vec!["tests/T.fsproj".to_owned()],
            test_case_filter: None,
            stale_assemblies,
            run_through_fixture: Vec::new(),
            results_left_out: 0,
            elapsed_ms: 7,
        }
    }

    #[test]
    fn exit_codes_say_passed_failed_or_not_definite() {
        assert_eq!(
            crate::cli::exit_code_of_answer(&answer(&[Outcome::Passed, Outcome::Skipped], false, RunStatus::Ok)),
            0
        );
        assert_eq!(
            crate::cli::exit_code_of_answer(&answer(&[Outcome::Passed, Outcome::Failed], false, RunStatus::Ok)),
            1
        );
        assert_eq!(
            crate::cli::exit_code_of_answer(&answer(&[Outcome::Passed, Outcome::Failed], true, RunStatus::Ok)),
            1
        );
        assert_eq!(
            crate::cli::exit_code_of_answer(&answer(&[Outcome::Passed], true, RunStatus::Ok)),
            2,
            "a stale build's pass"
        );
        assert_eq!(crate::cli::exit_code_of_answer(&answer(&[], false, RunStatus::Ok)), 2, "no test ran");
        assert_eq!(crate::cli::exit_code_of_answer(&answer(&[], false, RunStatus::Unknown)), 2);
    }

    #[test]
    fn the_text_names_failures_with_their_frame_stale_builds_and_totals() {
        let text =
            crate::cli::run_tests::render_text(&answer(&[Outcome::Passed, Outcome::Failed], true, RunStatus::Ok));
        assert!(text.contains("FAILED  T.t1 (2 ms) at tests/A.fs:12"), "{text}");
        assert!(text.contains("Expected: 6"), "{text}");
        assert!(text.contains("stale: tests/T.fsproj") && text.contains("dotnet build tests/T.fsproj"), "{text}");
        assert!(text.contains("1 passed, 1 failed, 0 skipped, 0 other in tests/T.fsproj"), "{text}");
        let mut through = answer(&[Outcome::Passed], false, RunStatus::Ok);
        through.run_through_fixture = vec![FixtureRun { test: "T.t 0".to_owned(), fixture: "T.".to_owned() }];
        through.results_left_out = 2;
        let text = crate::cli::run_tests::render_text(&through);
        assert!(text.contains("run through their fixture") && text.contains("2 other result(s) left out"), "{text}");
        assert!(text.contains("T.t 0 (~T.)"), "{text}");
        let text = crate::cli::run_tests::render_text(&answer(&[], false, RunStatus::Unknown));
        assert!(text.starts_with("unknown: FSAC had not finished loading (timeout)"), "{text}");
    }

    #[test]
    fn fsac_results_are_read_into_rows() {
        let root = Path::new("/t");
        let content = json!({"Kind": "runTests", "Data": [{
            "TestItem": {"FullName": "T.a", "DisplayName": "T.a", "ExecutorUri": "executor://xunit",
                "ProjectFilePath": "/t/tests/T.fsproj", "TargetFramework": "net10.0", "CodeFilePath": null,
                "CodeLocationRange": {"StartLine": -1, "EndLine": -1}},
            "Outcome": 0, "ErrorMessage": "boom", "ErrorStackTrace": "   at T.a() in /t/tests/A.fs:line 4",
            "AdditionalOutput": null, "Duration": "00:00:00.0010000"}]});
        let results = read_results(json!({"content": content.to_string()})).unwrap();
        let row = test_row(results.into_iter().next().unwrap(), root);
        assert_eq!(row.outcome, Outcome::Failed);
        assert_eq!(row.project.as_deref(), Some("tests/T.fsproj"));
        assert_eq!(row.duration_ms, 1.0);
        assert_eq!(row.location, Some(Location { path: "tests/A.fs".to_owned(), line: 4 }));
        assert!(read_results(json!({"content": "not json"})).is_err());
        assert!(read_results(json!(3)).is_err());
    }
}
