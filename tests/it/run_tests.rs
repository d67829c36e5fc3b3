//! `fslens.runTests` against the FSAC double's test explorer (real VSTest over a copy of
//! `fixtures/tested` built with the real `dotnet build`): typed per-test results, a run of
//! named tests, a stale assembly reported, a failure with its frame, a cancelled run, the CLI's
//! exit codes, and an editor's own `attachDebugger` run passing through.

use std::path::Path;
use std::process::Command as Process;

use fslens::cli::contract::exit_codes;
use fslens::commands::registry::Command;
use fslens::commands::run_tests::{Location, Outcome, RunStatus, RunTestsAnswer};
use serde_json::{Value, json};

use crate::support::double::{
    Editor, TRANSCRIPT_VARIABLE, double_command, fixture_copy, received_by_fsac, wait_for_transcript,
};

const XUNIT_PROJECT: &str = "tests/Tally.Xunit/Tally.Xunit.fsproj";
const XUNIT_TESTS: &str = "tests/Tally.Xunit/CounterTests.fs";
const ADD_ADDS: &str = "Tally.Xunit.CounterTests.add adds";

/// A real `dotnet build` of `project` in `root` (restore included, from the machine's NuGet).
fn build(root: &Path, project: &str) {
    let output =
        Process::new("dotnet").args(["build", "--nologo", "-v", "quiet", project]).current_dir(root).output().unwrap();
    assert!(
        output.status.success(),
        "`dotnet build {project}` failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `fslens run-tests --json` in a session of its own (FSAC: the double); its exit code and answer.
fn cli_run_tests(root: &Path, extra: &[&str]) -> (Option<i32>, RunTestsAnswer) {
    let runtime = tempfile::tempdir().unwrap();
    let output = Process::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["run-tests", "--json", "--timeout-ms", "120000", "--fsac", &double_command(), "--workspace"])
        .arg(root)
        .args(extra)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "no answer ({error}): {} {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code(), answer)
}

fn outcomes(answer: &RunTestsAnswer) -> Vec<(String, Outcome)> {
    let mut rows: Vec<(String, Outcome)> =
        answer.tests.iter().map(|test| (test.display_name.clone(), test.outcome)).collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// One copy, built once and rebuilt once, carries the whole story so the module stays quick:
/// a run of all, a run of one name, arguments refused, an editor's debugger run, an edit
/// without a rebuild (stale), the rebuild (a failure with its frame), a cancelled run and the
/// CLI before and after.
#[tokio::test]
async fn tests_run_in_the_session_with_typed_results_stale_builds_failures_and_cancellation() {
    let workspace = fixture_copy("tested");
    let root = workspace.path().canonicalize().unwrap();
    build(&root, XUNIT_PROJECT);

    // The CLI, in a headless session of its own: every test passes, exit code 0.
    let (code, answer) = cli_run_tests(&root, &[]);
    assert_eq!(code, Some(i32::from(exit_codes::SUCCESS)), "{answer:?}");
    assert_eq!((answer.totals.passed, answer.totals.failed, answer.tests.len()), (5, 0, 5), "{answer:?}");

    let runtime = tempfile::tempdir().unwrap();
    let transcript = runtime.path().join("transcript.jsonl");
    let transcript_text = transcript.display().to_string();
    let mut editor = Editor::start_ready(&root, runtime.path(), &[(TRANSCRIPT_VARIABLE, &transcript_text)]).await;

    // All tests: xUnit's 2 facts and the 3 rows of its theory; the Expecto project has no
    // VSTest adapter, so FSAC does not count it as a test project.
    let all: RunTestsAnswer = editor.execute_as(Command::RunTests, json!({})).await;
    assert_eq!(all.status, RunStatus::Ok, "{all:?}");
    assert!(all.complete && all.stale_assemblies.is_empty(), "{all:?}");
    assert_eq!((all.totals.passed, all.totals.failed, all.totals.skipped, all.totals.other), (5, 0, 0, 0));
    assert_eq!(all.projects, [XUNIT_PROJECT]);
    assert_eq!(all.test_case_filter, None);
    for test in &all.tests {
        assert_eq!(test.project.as_deref(), Some(XUNIT_PROJECT), "{test:?}");
        assert!(test.duration_ms > 0.0, "every result has VSTest's duration: {test:?}");
        assert!(test.message.is_none() && test.location.is_none(), "{test:?}");
    }
    assert_eq!(
        all.tests
            .iter()
            .filter(|test| test.full_name == "Tally.Xunit.CounterTests.clampTo keeps the count in bounds")
            .count(),
        3,
        "{all:?}"
    );
    assert!(
        editor.notifications.iter().any(|message| message["method"] == json!("test/testRunProgressUpdate")),
        "FSAC's progress notifications reach the editor unchanged"
    );

    // Named tests run exactly those; a name that is no test comes back notFound.
    let one: RunTestsAnswer = editor.execute_as(Command::RunTests, json!({"tests": [ADD_ADDS, "No.Such.test"]})).await;
    assert_eq!(
        outcomes(&one),
        [("No.Such.test".to_owned(), Outcome::NotFound), (ADD_ADDS.to_owned(), Outcome::Passed)],
        "{one:?}"
    );
    assert_eq!(
        one.test_case_filter.as_deref(),
        Some("FullyQualifiedName=Tally.Xunit.CounterTests.add adds|FullyQualifiedName=No.Such.test")
    );
    assert!(!one.complete, "a requested test without a result leaves the answer incomplete");

    // `tests` and `filter` together, and a project that is no test project, are refused.
    let refused = editor.execute(Command::RunTests, json!({"tests": [ADD_ADDS], "filter": "x"})).await;
    assert_eq!(refused["error"]["data"]["argument"], json!("tests"), "{refused}");
    let refused = editor.execute(Command::RunTests, json!({"projects": ["src/Tally/Tally.fsproj"]})).await;
    assert_eq!(refused["error"]["data"]["errorKind"], json!("invalid_argument"), "{refused}");
    assert_eq!(refused["error"]["data"]["argument"], json!("projects[0]"), "{refused}");
    let limited: RunTestsAnswer = editor
        .execute_as(Command::RunTests, json!({"projects": [XUNIT_PROJECT], "filter": "FullyQualifiedName~clampTo"}))
        .await;
    assert_eq!((limited.totals.passed, limited.tests.len()), (3, 3), "{limited:?}");

    // The editor's own run with a debugger: FSAC's test-host request reaches the editor, which
    // answers false, and the run completes without a debugger.
    let run = editor
        .request(
            "test/runTests",
            json!({"testCaseFilter": format!("FullyQualifiedName={ADD_ADDS}"), "attachDebugger": true}),
        )
        .await;
    let content: Value = serde_json::from_str(run["result"]["content"].as_str().unwrap_or_default())
        .unwrap_or_else(|_| panic!("the editor's run: {run}"));
    assert_eq!(content["Data"][0]["Outcome"], json!(1), "{content}");
    let asked = editor
        .notifications
        .iter()
        .find(|message| message["method"] == json!("test/processWaitingForDebugger"))
        .unwrap_or_else(|| panic!("FSAC's debugger request never reached the editor"));
    assert!(asked["params"]["content"].as_str().is_some_and(|pid| pid.parse::<u32>().is_ok()), "{asked}");

    // Edit a test to fail, and another to sleep, without rebuilding: VSTest runs the old build,
    // and the answer says the assembly is stale.
    let tests_file = root.join(XUNIT_TESTS);
    edit(&tests_file, "Assert.Equal(5, tally.Count)", "Assert.Equal(6, tally.Count)");
    edit(
        &tests_file,
        "let ``a new tally counts nothing`` () = Assert.Equal(0, (start \"tea\").Count)",
        "let ``a new tally counts nothing`` () =\n    System.Threading.Thread.Sleep 3000\n    Assert.Equal(0, (start \"tea\").Count)",
    );
    let stale: RunTestsAnswer = editor.execute_as(Command::RunTests, json!({"tests": [ADD_ADDS]})).await;
    assert_eq!(outcomes(&stale), [(ADD_ADDS.to_owned(), Outcome::Passed)], "the old build ran: {stale:?}");
    assert_eq!(stale.stale_assemblies.len(), 1, "{stale:?}");
    assert_eq!(stale.stale_assemblies[0].project, XUNIT_PROJECT);
    assert!(stale.stale_assemblies[0].reason.contains(XUNIT_TESTS), "{stale:?}");
    assert!(stale.stale_assemblies[0].remedy.contains(&format!("dotnet build {XUNIT_PROJECT}")), "{stale:?}");
    assert!(!stale.complete);

    // Rebuilt: the failure, with VSTest's message and the frame in the test file.
    build(&root, XUNIT_PROJECT);
    let failed: RunTestsAnswer = editor.execute_as(Command::RunTests, json!({"tests": [ADD_ADDS]})).await;
    assert!(failed.stale_assemblies.is_empty() && failed.complete, "{failed:?}");
    assert_eq!(outcomes(&failed), [(ADD_ADDS.to_owned(), Outcome::Failed)], "{failed:?}");
    let row = &failed.tests[0];
    assert!(row.message.as_deref().is_some_and(|message| message.contains("Expected: 6")), "{row:?}");
    assert!(row.stack_trace.is_some(), "{row:?}");
    let line = std::fs::read_to_string(&tests_file)
        .unwrap()
        .lines()
        .position(|line| line.contains("Assert.Equal(6, tally.Count)"))
        .unwrap() as u32
        + 1;
    assert_eq!(row.location, Some(Location { path: XUNIT_TESTS.to_owned(), line }), "{row:?}");
    assert_eq!((failed.totals.failed, failed.totals.passed), (1, 0));

    // A run cancelled after its first progress answers -32800, and the session answers the
    // next command while VSTest ends the cancelled run.
    editor.notifications.clear();
    let id = editor.start_command(Command::RunTests, json!({})).await;
    editor.wait_for(|message| message["method"] == json!("test/testRunProgressUpdate")).await;
    editor.notify("$/cancelRequest", json!({"id": id})).await;
    let cancelled = editor.response(id).await;
    assert_eq!(cancelled["error"]["code"], json!(-32800), "{cancelled}");
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["state"], json!("ready"), "{status}");
    // FSAC was told to cancel the run it was given.
    let runs: Vec<Value> = received_by_fsac(&transcript)
        .into_iter()
        .filter(|message| {
            message["method"] == json!("test/runTests") && message["params"]["attachDebugger"] == json!(false)
        })
        .collect();
    let cancelled_run = runs.last().expect("FSAC received the runs")["id"].clone();
    assert!(cancelled_run.as_str().is_some_and(|id| id.starts_with("fslens:")), "{cancelled_run}");
    wait_for_transcript(&transcript, received_by_fsac, "$/cancelRequest for the run", |message| {
        message["method"] == json!("$/cancelRequest") && message["params"]["id"] == cancelled_run
    })
    .await;
    editor.stop().await;

    // The CLI after the rebuild: a failed test is exit code 1.
    let (code, answer) = cli_run_tests(&root, &["--tests", ADD_ADDS]);
    assert_eq!(code, Some(i32::from(exit_codes::CHECK_ERRORS)), "{answer:?}");
    assert_eq!((answer.totals.failed, answer.tests.len()), (1, 1), "{answer:?}");
    // A name that is no test: not definite, exit code 2.
    let (code, answer) = cli_run_tests(&root, &["--tests", "No.Such.test"]);
    assert_eq!(code, Some(i32::from(exit_codes::NOT_DEFINITE)), "{answer:?}");
    assert_eq!(outcomes(&answer), [("No.Such.test".to_owned(), Outcome::NotFound)], "{answer:?}");
}

/// Through the MCP bridge (the official Python SDK client, in a headless session the bridge
/// starts): a whole run with the bridge's periodic progress, a run the client gives up on
/// (its `notifications/cancelled` cancels the run), and the next call answered.
#[test]
fn an_agent_runs_the_tests_through_the_mcp_bridge_with_progress_and_cancellation() {
    let workspace = fixture_copy("tested");
    let root = workspace.path().canonicalize().unwrap();
    build(&root, XUNIT_PROJECT);
    let runtime = tempfile::tempdir().unwrap();
    let report = crate::support::mcp::run_scenario(
        "test_run_scenarios.py",
        &["run"],
        &root,
        runtime.path(),
        &[] as &[(&str, &str)],
    );
    let all: RunTestsAnswer = serde_json::from_value(crate::support::mcp::tool_body(&report, "all").clone())
        .unwrap_or_else(|error| panic!("{error}: {report}"));
    assert_eq!((all.status, all.totals.passed, all.totals.failed), (RunStatus::Ok, 5, 0), "{all:?}");
    let progress = report["progress"].as_array().unwrap();
    assert!(
        progress
            .iter()
            .any(|tick| tick["message"].as_str().is_some_and(|message| message.starts_with("run_tests: running"))),
        "the bridge's progress while the run went: {report}"
    );
    let cancelled = &report["cancellation"];
    assert!(cancelled.get("raised").is_some(), "the run the client gave up on must not complete: {cancelled}");
    let next: RunTestsAnswer = serde_json::from_value(crate::support::mcp::tool_body(&report, "next").clone()).unwrap();
    assert_eq!(
        next.tests.iter().map(|test| (test.full_name.as_str(), test.outcome)).collect::<Vec<_>>(),
        [(ADD_ADDS, Outcome::Passed)]
    );
}
