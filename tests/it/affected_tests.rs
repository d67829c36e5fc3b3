//! `fslens.affectedTests` against the FSAC double (real MSBuild and FCS) on a restored copy of
//! fixtures/tested-reach made a git repository by the test: a leaf edit, an unused function's
//! edit, a changed project file, a removed declaration, an unsaved buffer, and a run with
//! failing tests (an NUnit one with spaces in its name among them). The expected tests and
//! chains are read off the fixture's sources by hand.

use std::path::Path;
use std::process::Command as Process;

use fslens::commands::affected_tests::changes::ChangeKind;
use fslens::commands::affected_tests::{AffectedTestsAnswer, ChangeSource};
use fslens::commands::registry::Command;
use fslens::commands::run_tests::Outcome;
use fslens::commands::tests_for_symbol::reach::Step;
use serde_json::json;

use crate::support;
use crate::support::double::{Editor, double_command, fixture_copy};

const PARSING: &str = "src/Calc/Parsing.fs";
const LEDGER: &str = "src/Calc/Ledger.fs";
const REPORT: &str = "src/Calc/Report.fs";
const XUNIT_TESTS: &str = "tests/Calc.Xunit/LedgerTests.fs";
const EXPECTO_TESTS: &str = "tests/Calc.Expecto/ReportTests.fs";
const NUNIT_TESTS: &str = "tests/Calc.Nunit/LedgerFixture.fs";
const MSTEST_TESTS: &str = "tests/Calc.Mstest/CountTests.fs";
/// The NUnit test whose double-backtick name has spaces: NUnit's filter cannot select it by name.
const NUNIT_SPACED: &str = "total adds the distinct amounts";

fn git(root: &Path, arguments: &[&str]) {
    let output = Process::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(arguments)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {arguments:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// Everything committed (build output ignored).
fn commit(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", message]);
}

fn edit(root: &Path, path: &str, from: &str, to: &str) {
    let path = root.join(path);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn step(name: &str, path: &str, line: u32) -> Step {
    Step { name: name.to_owned(), path: path.to_owned(), line }
}

/// (test name, [(change, chain, noLongerCompiles)]) of every selected test, in order.
type Selected = Vec<(String, Vec<(String, Vec<Step>, bool)>)>;

fn selected(answer: &AffectedTestsAnswer) -> Selected {
    answer
        .tests
        .iter()
        .map(|test| {
            let reasons = test
                .reasons
                .iter()
                .map(|reason| (reason.change.clone(), reason.chain.clone(), reason.no_longer_compiles))
                .collect();
            (test.name.clone(), reasons)
        })
        .collect()
}

/// A restored copy of tested-reach, a git repository with one commit, and fslens in front of
/// the double.
async fn ready() -> (tempfile::TempDir, tempfile::TempDir, Editor, std::path::PathBuf) {
    ready_at("tested-reach", "Calc.sln").await
}

/// A restored copy of `fixture` (its `solution` restored), a git repository with one commit,
/// and fslens in front of the double.
async fn ready_at(fixture: &str, solution: &str) -> (tempfile::TempDir, tempfile::TempDir, Editor, std::path::PathBuf) {
    let workspace = fixture_copy(fixture);
    let root = workspace.path().canonicalize().unwrap();
    support::dotnet::restore(&root.join(solution));
    std::fs::write(root.join(".gitignore"), "bin/\nobj/\n").unwrap();
    git(&root, &["init", "-q"]);
    commit(&root, "the fixture");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(&root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    (workspace, runtime, editor, root)
}

#[tokio::test]
async fn a_change_selects_exactly_the_tests_it_reaches_with_their_chains() {
    let (_workspace, _runtime, mut editor, root) = ready().await;

    // A leaf's body: the tests reaching `normalize` through `total` (and `summary`).
    edit(&root, PARSING, "text.Trim().ToLowerInvariant()", "text.Trim().ToUpperInvariant()");
    let answer: AffectedTestsAnswer = editor.execute_as(Command::AffectedTests, json!({"since": "HEAD"})).await;
    let normalize = step("normalize", PARSING, 2);
    let (total, summary) = (step("total", LEDGER, 2), step("summary", REPORT, 2));
    let body = |chain: Vec<Step>| vec![("body".to_owned(), chain, false)];
    assert_eq!(
        selected(&answer),
        vec![
            (
                "summary of two".to_owned(),
                body(vec![normalize.clone(), total.clone(), summary.clone(), step("summary of two", EXPECTO_TESTS, 7)])
            ),
            (NUNIT_SPACED.to_owned(), body(vec![normalize.clone(), total.clone(), step(NUNIT_SPACED, NUNIT_TESTS, 9)])),
            (
                "total counts distinct entries".to_owned(),
                body(vec![normalize.clone(), total.clone(), step("total counts distinct entries", XUNIT_TESTS, 6)])
            ),
            (
                "summary says the total".to_owned(),
                body(vec![
                    normalize.clone(),
                    total.clone(),
                    summary.clone(),
                    step("summary says the total", XUNIT_TESTS, 9)
                ])
            ),
        ],
        "{answer:#?}"
    );
    assert_eq!(answer.source, ChangeSource::Since { revision: "HEAD".to_owned() });
    assert_eq!((answer.complete, answer.depth, answer.total_tests), (true, 3, 4), "{answer:#?}");
    let changed: Vec<(String, ChangeKind, usize)> =
        answer.changed_declarations.iter().map(|row| (row.qualified_name.clone(), row.change, row.tests)).collect();
    assert_eq!(changed, [("Calc.Parsing.normalize".to_owned(), ChangeKind::Body, 4)], "{answer:#?}");
    assert!(answer.fallback_tests.is_empty(), "{answer:#?}");
    commit(&root, "upper");

    // An unused function's body: nothing, and complete.
    edit(&root, PARSING, "text.Length", "text.Length + 0");
    let none: AffectedTestsAnswer = editor.execute_as(Command::AffectedTests, json!({"since": "HEAD"})).await;
    assert_eq!((none.total_tests, none.complete), (0, true), "{none:#?}");
    assert_eq!(none.changed_declarations.len(), 1, "{none:#?}");
    assert_eq!(none.changed_declarations[0].name, "unused", "{none:#?}");
    commit(&root, "unused");

    // The library's project file: every test of the four test projects that reference it.
    edit(&root, "src/Calc/Calc.fsproj", "<TargetFramework>", "<Description>calc</Description>\n    <TargetFramework>");
    let project: AffectedTestsAnswer = editor.execute_as(Command::AffectedTests, json!({"since": "HEAD"})).await;
    let names: Vec<(String, String)> =
        project.tests.iter().map(|test| (test.project.clone(), test.name.clone())).collect();
    let (expecto, xunit) = ("tests/Calc.Expecto/Calc.Expecto.fsproj", "tests/Calc.Xunit/Calc.Xunit.fsproj");
    let (mstest, nunit) = ("tests/Calc.Mstest/Calc.Mstest.fsproj", "tests/Calc.Nunit/Calc.Nunit.fsproj");
    let expected: Vec<(String, String)> = [
        (expecto, "summary of two"),
        (expecto, "count of none"),
        (mstest, "CountsThree"),
        (nunit, NUNIT_SPACED),
        (nunit, "CountsTwo"),
        (xunit, "total counts distinct entries"),
        (xunit, "summary says the total"),
        (xunit, "count counts every entry"),
    ]
    .iter()
    .map(|(project, name)| (project.to_string(), name.to_string()))
    .collect();
    assert_eq!(names, expected, "{project:#?}");
    assert!(project.tests.iter().all(|test| test.reasons[0].change == "projectFile"), "{project:#?}");
    assert_eq!(project.project_changes[0].test_projects, [expecto, mstest, nunit, xunit], "{project:#?}");
    commit(&root, "description");

    // A removed declaration: the tests that used it no longer compile; found by name, partial.
    edit(&root, LEDGER, "\nlet count (entries: string list) = List.length entries\n", "\n");
    let removed: AffectedTestsAnswer = editor.execute_as(Command::AffectedTests, json!({"since": "HEAD"})).await;
    let count = step("count", LEDGER, 5);
    assert_eq!(
        selected(&removed),
        vec![
            (
                "count of none".to_owned(),
                vec![("removed".to_owned(), vec![count.clone(), step("count of none", EXPECTO_TESTS, 9)], true)]
            ),
            (
                "CountsThree".to_owned(),
                vec![("removed".to_owned(), vec![count.clone(), step("CountsThree", MSTEST_TESTS, 9)], true)]
            ),
            (
                "CountsTwo".to_owned(),
                vec![("removed".to_owned(), vec![count.clone(), step("CountsTwo", NUNIT_TESTS, 13)], true)]
            ),
            (
                "count counts every entry".to_owned(),
                vec![("removed".to_owned(), vec![count, step("count counts every entry", XUNIT_TESTS, 12)], true)]
            ),
        ],
        "{removed:#?}"
    );
    assert!(!removed.complete && removed.missing.iter().any(|why| why.contains("by name")), "{removed:#?}");
    git(&root, &["checkout", "-q", "--", "."]);

    // An unsaved buffer: `summary`'s body changed in the editor, not on disk.
    let report = root.join(REPORT);
    let uri = editor.open(&report, 1).await;
    let text = std::fs::read_to_string(&report).unwrap();
    editor.change(&uri, 2, &text.replace("%d distinct", "%d different")).await;
    let unsaved: AffectedTestsAnswer = editor.execute_as(Command::AffectedTests, json!({})).await;
    assert_eq!(unsaved.source, ChangeSource::Buffers, "{unsaved:#?}");
    let names: Vec<String> = unsaved.tests.iter().map(|test| test.name.clone()).collect();
    assert_eq!(names, ["summary of two", "summary says the total"], "{unsaved:#?}");
    assert!(unsaved.complete, "{unsaved:#?}");
    editor.stop().await;
}

/// A failed test: its name, its first reason's chain and its frame (path, line).
type Failure<'a> = (&'a str, &'a [Step], Option<(&'a str, u32)>);

/// A run: `total` loses its `List.distinct`, so the xUnit fact and the NUnit test calling it
/// fail (each at its frame in its test file) and the fact calling `summary` with one entry still
/// passes; the Expecto case is not run (no test SDK) and the answer says so. The NUnit test's
/// name has spaces, which NUnit's filter cannot read (one such name in the filter fails the
/// NUnit adapter's whole run): it runs through its fixture and gets its own result, not
/// `notFound`; the fixture's other test's result is left out.
#[tokio::test]
async fn a_run_gives_each_selected_test_its_result_beside_its_reason() {
    let (_workspace, _runtime, mut editor, root) = ready().await;
    edit(&root, LEDGER, " |> List.distinct", "");
    for project in ["tests/Calc.Xunit/Calc.Xunit.fsproj", "tests/Calc.Nunit/Calc.Nunit.fsproj"] {
        let build = Process::new("dotnet")
            .args(["build", "--nologo", "-v", "quiet", project])
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stdout));
    }
    let answer: AffectedTestsAnswer =
        editor.execute_as(Command::AffectedTests, json!({"since": "HEAD", "run": true})).await;
    let results: Vec<(String, Vec<Outcome>)> = answer
        .tests
        .iter()
        .map(|test| (test.name.clone(), test.results.iter().map(|result| result.outcome).collect()))
        .collect();
    assert_eq!(
        results,
        [
            ("summary of two".to_owned(), vec![]),
            (NUNIT_SPACED.to_owned(), vec![Outcome::Failed]),
            ("total counts distinct entries".to_owned(), vec![Outcome::Failed]),
            ("summary says the total".to_owned(), vec![Outcome::Passed]),
        ],
        "{answer:#?}"
    );
    // Each failure: its reason chain and its frame (file and 1-based line of the assertion).
    let failures: Vec<Failure> = answer
        .tests
        .iter()
        .filter(|test| test.results.iter().any(|result| result.outcome == Outcome::Failed))
        .map(|test| {
            let frame = test.results[0].location.as_ref().map(|frame| (frame.path.as_str(), frame.line));
            (test.name.as_str(), test.reasons[0].chain.as_slice(), frame)
        })
        .collect();
    let total = step("total", LEDGER, 2);
    assert_eq!(
        failures,
        [
            (NUNIT_SPACED, &[total.clone(), step(NUNIT_SPACED, NUNIT_TESTS, 9)][..], Some((NUNIT_TESTS, 11))),
            (
                "total counts distinct entries",
                &[total, step("total counts distinct entries", XUNIT_TESTS, 6)][..],
                Some((XUNIT_TESTS, 7))
            ),
        ],
        "{answer:#?}"
    );
    let spaced = &answer.tests[1].results[0];
    assert_eq!(spaced.full_name, format!("Calc.Nunit.LedgerFixture.{NUNIT_SPACED}"));
    assert!(spaced.message.as_deref().is_some_and(|message| message.contains('2')), "{spaced:#?}");
    assert!(answer.notes.iter().any(|note| note.contains("summary of two")), "{answer:#?}");
    assert!(answer.notes.iter().any(|note| note.contains("run through their fixture")), "{answer:#?}");
    let run = answer.run.as_ref().expect("the run");
    assert_eq!((run.totals.passed, run.totals.failed, run.totals.other), (1, 2, 0), "{run:#?}");
    // With an NUnit project in the run every spaced name goes through its fixture (an xUnit
    // one would fail the NUnit adapter's run too); `CountsTwo` and `count counts every entry`
    // ran and were left out.
    let through: Vec<(&str, &str)> =
        run.run_through_fixture.iter().map(|run| (run.test.as_str(), run.fixture.as_str())).collect();
    assert_eq!(
        through,
        [
            ("Calc.Nunit.LedgerFixture.total adds the distinct amounts", "Calc.Nunit.LedgerFixture."),
            ("Calc.Xunit.LedgerTests.summary says the total", "Calc.Xunit.LedgerTests."),
            ("Calc.Xunit.LedgerTests.total counts distinct entries", "Calc.Xunit.LedgerTests."),
        ],
        "{run:#?}"
    );
    assert_eq!(
        run.test_case_filter.as_deref(),
        Some("FullyQualifiedName~Calc.Nunit.LedgerFixture.|FullyQualifiedName~Calc.Xunit.LedgerTests."),
        "{run:#?}"
    );
    assert_eq!((run.results_left_out, run.complete), (2, true), "{run:#?}");
    editor.stop().await;
}

/// fixtures/tested-builder: `tryWith` is called only by the builder method `TryWith`, which
/// every `flow { }` block holding `try` calls by no name the compiler reports. An edit of
/// `tryWith` selects the test with such a block of its own and the tests calling `parseOr` and
/// `parseOrZero` (such blocks, the second of `guarded`, `flow` under another name), and is
/// complete; the tests using a block without `try` (`sum`) or none are not selected.
#[tokio::test]
async fn an_edit_reached_only_through_a_builder_method_selects_the_tests_using_the_builder() {
    let (_workspace, _runtime, mut editor, root) = ready_at("tested-builder", "Flows.sln").await;
    let (flow_file, safe_file, test_file) =
        ("src/Flows/Flow.fs", "src/Flows/Safe.fs", "tests/Flows.Xunit/FlowTests.fs");
    edit(&root, flow_file, "| Error error -> handler error ()", "| Error error -> (handler error) ()");
    let answer: AffectedTestsAnswer = editor.execute_as(Command::AffectedTests, json!({"since": "HEAD"})).await;
    let try_with = step("tryWith", flow_file, 13);
    let builder_method = step(
        "TryWith (builder method of FlowBuilder, called by flow { } or guarded { } blocks with `try`)",
        flow_file,
        31,
    );
    let body = |chain: Vec<Step>| vec![("body".to_owned(), chain, false)];
    assert_eq!(
        selected(&answer),
        vec![
            (
                "a failing body is handled".to_owned(),
                body(vec![try_with.clone(), builder_method.clone(), step("a failing body is handled", test_file, 7)])
            ),
            (
                "parseOr falls back".to_owned(),
                body(vec![
                    try_with.clone(),
                    builder_method.clone(),
                    step("parseOr", safe_file, 5),
                    step("parseOr falls back", test_file, 18)
                ])
            ),
            (
                "parseOrZero falls back".to_owned(),
                body(vec![
                    try_with,
                    builder_method,
                    step("parseOrZero", safe_file, 25),
                    step("parseOrZero falls back", test_file, 27)
                ])
            ),
        ],
        "{answer:#?}"
    );
    assert_eq!((answer.complete, answer.total_tests), (true, 3), "{answer:#?}");
    assert!(answer.fallback_tests.is_empty(), "{answer:#?}");
    editor.stop().await;
}
