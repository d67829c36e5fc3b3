//! `fslens.testsForSymbol` against the FSAC double (real MSBuild and FCS) on restored copies of
//! fixtures/tested and fixtures/tested-helpers, and through the CLI with no FSAC (the syntax
//! layer). The expected tests are read off the fixtures' sources by hand.

use crate::support;
use fslens::commands::find::answer::{Completeness, Via};
use fslens::commands::registry::Command;
use fslens::commands::tests_for_symbol::reach::Step;
use fslens::commands::tests_for_symbol::{Direct, Framework, Reach, RunTestsArguments, TestsForSymbolAnswer};

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy};
use tempfile::TempDir;

/// A restored copy of `fixture` (its `solution` restored) and fslens ready in front of the
/// double (the runtime directory must live as long as the editor).
async fn ready(fixture: &str, solution: &str) -> (TempDir, TempDir, Editor) {
    let workspace = fixture_copy(fixture);
    support::dotnet::restore(&workspace.path().join(solution));
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    (workspace, runtime, editor)
}

/// (project, name, fullyQualifiedName, framework, path, line, reach) of every test, in order.
type TestKey = (String, String, Option<String>, Framework, String, u32, Reach);

fn tests_of(answer: &TestsForSymbolAnswer) -> Vec<TestKey> {
    answer
        .test_projects
        .iter()
        .flat_map(|project| project.tests.iter())
        .map(|test| {
            (
                test.project.clone(),
                test.name.clone(),
                test.fully_qualified_name.clone(),
                test.framework,
                test.path.clone(),
                test.line,
                test.reach.clone(),
            )
        })
        .collect()
}

fn key(project: &str, name: &str, full: &str, framework: Framework, path: &str, line: u32, reach: Reach) -> TestKey {
    (project.to_owned(), name.to_owned(), Some(full.to_owned()), framework, path.to_owned(), line, reach)
}

/// FSAC's custom-method envelope: the answer as JSON text.
#[derive(serde::Deserialize)]
struct Envelope {
    content: String,
}

/// `test/discoverTests`' `{Kind, Data}`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Discovered {
    data: Vec<DiscoveredTest>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DiscoveredTest {
    full_name: String,
}

const DIRECT: Reach = Reach::Direct(Direct::Direct);

#[tokio::test]
async fn add_is_reached_by_the_xunit_fact_and_theory_and_the_expecto_cases() {
    let (workspace, _runtime, mut editor) = ready("tested", "Tally.sln").await;
    let answer: TestsForSymbolAnswer = editor.execute_as(Command::TestsForSymbol, json!({"query": "add"})).await;
    let xunit = "tests/Tally.Xunit/Tally.Xunit.fsproj";
    let expecto = "tests/Tally.Expecto/Tally.Expecto.fsproj";
    let xunit_file = "tests/Tally.Xunit/CounterTests.fs";
    let expecto_file = "tests/Tally.Expecto/CounterTests.fs";
    assert_eq!(
        tests_of(&answer),
        vec![
            key(expecto, "add adds", "counter.add adds", Framework::Expecto, expecto_file, 7, DIRECT),
            key(expecto, "clampTo caps", "counter.clampTo caps", Framework::Expecto, expecto_file, 9, DIRECT),
            key(xunit, "add adds", "Tally.Xunit.CounterTests.add adds", Framework::Xunit, xunit_file, 9, DIRECT),
            key(
                xunit,
                "clampTo keeps the count in bounds",
                "Tally.Xunit.CounterTests.clampTo keeps the count in bounds",
                Framework::Xunit,
                xunit_file,
                17,
                DIRECT
            ),
        ],
        "{answer:#?}"
    );
    assert_eq!((answer.via, answer.complete, answer.total_tests), (Via::Fsac, true, 4), "{answer:#?}");
    assert_eq!(answer.symbol.as_deref(), Some("Tally.Counter.add"), "{answer:#?}");
    // Each test project says the rule that made it one; the library is none.
    let rules: BTreeMap<String, Value> = answer
        .test_projects
        .iter()
        .map(|project| (project.project.clone(), serde_json::to_value(&project.rule).unwrap()))
        .collect();
    let expected_rules = BTreeMap::from([
        (expecto.to_owned(), json!({"rule": "packageReference", "package": "Expecto"})),
        (xunit.to_owned(), json!({"rule": "packageReference", "package": "Microsoft.NET.Test.Sdk"})),
    ]);
    assert_eq!(rules, expected_rules);
    // VSTest selects the xUnit tests by name; the Expecto project has no test SDK, so runTests
    // is not sent it (it would refuse it as no test project for FSAC).
    let RunTestsArguments { tests, projects } = answer.run_tests_arguments.clone().expect("runnable tests");
    assert_eq!(
        tests,
        ["Tally.Xunit.CounterTests.add adds", "Tally.Xunit.CounterTests.clampTo keeps the count in bounds"]
    );
    assert_eq!(projects, [xunit.to_owned()]);
    assert!(answer.notes.iter().any(|note| note.contains(expecto) && note.contains("Microsoft.NET.Test.Sdk")));

    // The full names are the ones VSTest discovers (the double's `test/discoverTests` over the
    // real VSTest, once the test project is built: FSAC builds nothing).
    let build = std::process::Command::new("dotnet")
        .args(["build", xunit, "--no-restore", "-nologo", "-v:q"])
        .current_dir(workspace.path())
        .output()
        .expect("run dotnet build");
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stdout));
    let discovered = editor.request("test/discoverTests", Value::Null).await;
    let content: Envelope =
        serde_json::from_value(discovered["result"].clone()).unwrap_or_else(|error| panic!("{error}: {discovered}"));
    let discovered: Discovered = serde_json::from_str(&content.content).unwrap();
    let full_names: BTreeSet<String> = discovered.data.into_iter().map(|test| test.full_name).collect();
    for name in &tests {
        assert!(full_names.contains(name), "{name} is not among VSTest's {full_names:?}");
    }

    // An unknown name is a typed error naming `query`.
    let error = editor.execute(Command::TestsForSymbol, json!({"query": "nothingIsNamedThis"})).await;
    assert_eq!(error["error"]["data"]["errorKind"], json!("invalid_argument"), "{error}");
    assert_eq!(error["error"]["data"]["argument"], json!("query"), "{error}");
    editor.stop().await;
}

#[tokio::test]
async fn a_symbol_used_only_by_a_test_helper_is_reached_via_the_helper() {
    let (_workspace, _runtime, mut editor) = ready("tested-helpers", "Scales.sln").await;
    let project = "tests/Scales.Xunit/Scales.Xunit.fsproj";
    let file = "tests/Scales.Xunit/WeightTests.fs";
    let answer: TestsForSymbolAnswer = editor.execute_as(Command::TestsForSymbol, json!({"query": "grams"})).await;
    let via = Reach::Via { via: "twoKilos".to_owned(), path: file.to_owned(), line: 5 };
    assert_eq!(
        tests_of(&answer),
        vec![key(
            project,
            "two kilos weigh 2000 grams",
            "Scales.Xunit.WeightTests.two kilos weigh 2000 grams",
            Framework::Xunit,
            file,
            8,
            via
        )],
        "{answer:#?}"
    );
    assert_eq!((answer.complete, answer.indirect_depth), (true, 1), "{answer:#?}");
    assert_eq!(answer.helpers.len(), 1, "{answer:#?}");
    assert!(answer.helpers[0].followed && answer.helpers[0].completeness == Some(Completeness::Complete));

    // With no helper followed the test is not found, and the answer says what it cut.
    let bounded: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "grams", "maxIntermediate": 0})).await;
    assert_eq!((bounded.total_tests, bounded.complete), (0, false), "{bounded:#?}");
    assert_eq!(bounded.helpers_not_followed, ["twoKilos (tests/Scales.Xunit/WeightTests.fs:5)"], "{bounded:#?}");

    // A direct use, asked by position (the declaration of `ounces`).
    let direct: TestsForSymbolAnswer = editor
        .execute_as(Command::TestsForSymbol, json!({"path": "src/Scales/Weights.fs", "line": 4, "word": "ounces"}))
        .await;
    let names: Vec<(String, Reach)> = direct
        .test_projects
        .iter()
        .flat_map(|row| &row.tests)
        .map(|test| (test.name.clone(), test.reach.clone()))
        .collect();
    assert_eq!(names, [("a kilo weighs 35 ounces".to_owned(), DIRECT)], "{direct:#?}");

    // `projectPath` keeps one test project; a project that is no test project is refused.
    let one: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "ounces", "projectPath": "Scales.Xunit"})).await;
    assert_eq!(one.test_projects.len(), 1, "{one:#?}");
    assert_eq!(one.total_tests, 1, "{one:#?}");
    let library = editor
        .execute(Command::TestsForSymbol, json!({"query": "ounces", "projectPath": "src/Scales/Scales.fsproj"}))
        .await;
    assert_eq!(library["error"]["data"]["argument"], json!("projectPath"), "{library}");

    // No test reaches `unweighed`: an empty list that is complete.
    let none: TestsForSymbolAnswer = editor.execute_as(Command::TestsForSymbol, json!({"query": "unweighed"})).await;
    assert_eq!((none.total_tests, none.complete, none.via), (0, true, Via::Fsac), "{none:#?}");
    assert!(none.run_tests_arguments.is_none(), "no test: nothing for runTests, which would run every test");
    editor.stop().await;
}

fn step(name: &str, path: &str, line: u32) -> Step {
    Step { name: name.to_owned(), path: path.to_owned(), line }
}

/// (name, chain) of every test, in order.
fn chains_of(answer: &TestsForSymbolAnswer) -> Vec<(String, Vec<Step>)> {
    answer.test_projects.iter().flat_map(|row| &row.tests).map(|test| (test.name.clone(), test.chain.clone())).collect()
}

/// `Calc.Parsing.normalize` is called by `Ledger.total` (library code), which `Report.summary`
/// calls; tests call `total` and `summary`. Before the reach through library code the answer
/// was "0 test(s) … complete".
#[tokio::test]
async fn a_library_function_is_reached_through_library_code_to_the_depth_asked() {
    let (_workspace, _runtime, mut editor) = ready("tested-reach", "Calc.sln").await;
    let (parsing, ledger, report) = ("src/Calc/Parsing.fs", "src/Calc/Ledger.fs", "src/Calc/Report.fs");
    let (xunit_file, expecto_file) = ("tests/Calc.Xunit/LedgerTests.fs", "tests/Calc.Expecto/ReportTests.fs");
    let nunit_file = "tests/Calc.Nunit/LedgerFixture.fs";
    let answer: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "Calc.Parsing.normalize"})).await;
    let normalize = step("normalize", parsing, 2);
    let total = step("total", ledger, 2);
    let summary = step("summary", report, 2);
    assert_eq!(
        chains_of(&answer),
        vec![
            (
                "summary of two".to_owned(),
                vec![normalize.clone(), total.clone(), summary.clone(), step("summary of two", expecto_file, 7)]
            ),
            (
                "total adds the distinct amounts".to_owned(),
                vec![normalize.clone(), total.clone(), step("total adds the distinct amounts", nunit_file, 9)]
            ),
            (
                "total counts distinct entries".to_owned(),
                vec![normalize.clone(), total.clone(), step("total counts distinct entries", xunit_file, 6)]
            ),
            (
                "summary says the total".to_owned(),
                vec![normalize.clone(), total.clone(), summary.clone(), step("summary says the total", xunit_file, 9)]
            ),
        ],
        "{answer:#?}"
    );
    let reaches: Vec<Reach> =
        answer.test_projects.iter().flat_map(|row| &row.tests).map(|test| test.reach.clone()).collect();
    let via_summary = Reach::Via { via: "summary".to_owned(), path: report.to_owned(), line: 2 };
    let via_total = Reach::Via { via: "total".to_owned(), path: ledger.to_owned(), line: 2 };
    assert_eq!(reaches, [via_summary.clone(), via_total.clone(), via_total, via_summary], "{answer:#?}");
    assert_eq!((answer.complete, answer.total_tests, answer.indirect_depth), (true, 4, 2), "{answer:#?}");
    assert_eq!(answer.completeness.depth, 3, "{answer:#?}");
    let followed: Vec<(String, u32, bool)> =
        answer.helpers.iter().map(|helper| (helper.name.clone(), helper.depth, helper.followed)).collect();
    assert_eq!(followed, [("total".to_owned(), 1, true), ("summary".to_owned(), 2, true)], "{answer:#?}");

    // One level only: `summary` is where the depth cut the chain, and the answer is partial.
    let shallow: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "Calc.Parsing.normalize", "maxDepth": 1})).await;
    let names: Vec<String> = chains_of(&shallow).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["total adds the distinct amounts", "total counts distinct entries"], "{shallow:#?}");
    assert_eq!((shallow.complete, shallow.completeness.depth), (false, 1), "{shallow:#?}");
    assert_eq!(shallow.completeness.cut_by_depth, ["summary (src/Calc/Report.fs:2)"], "{shallow:#?}");
    assert!(shallow.completeness.missing.iter().any(|missing| missing.contains("depth")), "{shallow:#?}");

    // Nothing uses `unused`: none, and complete.
    let none: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "Calc.Parsing.unused"})).await;
    assert_eq!((none.total_tests, none.complete), (0, true), "{none:#?}");
    editor.stop().await;
}

/// `fslens tests-for-symbol QUERY --json` with no FSAC: the syntax layer answers.
fn without_fsac(workspace: &std::path::Path, query: &str) -> TestsForSymbolAnswer {
    let runtime = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["tests-for-symbol", query, "--json", "--fsac", "/nonexistent/fsautocomplete", "--workspace"])
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "no answer ({error}): {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn without_fsac_the_syntax_layer_answers_and_is_never_complete() {
    let workspace = fixture_copy("tested-helpers");
    let none = without_fsac(workspace.path(), "unweighed");
    assert_eq!((none.total_tests, none.complete, none.via), (0, false, Via::Syntax), "{none:#?}");
    assert_ne!(none.completeness.find, Completeness::Complete, "{none:#?}");
    assert!(!none.completeness.missing.is_empty(), "{none:#?}");
    let helper = without_fsac(workspace.path(), "grams");
    let reached: Vec<(String, Reach)> = helper
        .test_projects
        .iter()
        .flat_map(|row| &row.tests)
        .map(|test| (test.name.clone(), test.reach.clone()))
        .collect();
    assert_eq!(
        reached,
        [(
            "two kilos weigh 2000 grams".to_owned(),
            Reach::Via { via: "twoKilos".to_owned(), path: "tests/Scales.Xunit/WeightTests.fs".to_owned(), line: 5 }
        )],
        "{helper:#?}"
    );
    assert_eq!((helper.via, helper.complete), (Via::Syntax, false), "{helper:#?}");
}

/// `Flows.Flow.tryWith` is called only by the builder method `FlowBuilder.TryWith`, which every
/// `flow { try … with … }` block calls without naming it: the walk follows the builder to its
/// instances (`flow`, and `guarded`, `flow` under another name) and on to their blocks holding
/// `try` (not `sum`'s, which has none). Before, the walk stopped at `TryWith` (no use the
/// compiler reports), found no test and said partial.
#[tokio::test]
async fn a_function_called_by_a_builder_method_is_reached_through_the_blocks_calling_it() {
    let (_workspace, _runtime, mut editor) = ready("tested-builder", "Flows.sln").await;
    let (flow_file, safe_file, test_file) =
        ("src/Flows/Flow.fs", "src/Flows/Safe.fs", "tests/Flows.Xunit/FlowTests.fs");
    let answer: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "Flows.Flow.tryWith"})).await;
    let try_with = step("tryWith", flow_file, 13);
    let builder_method = step(
        "TryWith (builder method of FlowBuilder, called by flow { } or guarded { } blocks with `try`)",
        flow_file,
        31,
    );
    assert_eq!(
        chains_of(&answer),
        vec![
            (
                "a failing body is handled".to_owned(),
                vec![try_with.clone(), builder_method.clone(), step("a failing body is handled", test_file, 7)]
            ),
            (
                "parseOr falls back".to_owned(),
                vec![
                    try_with.clone(),
                    builder_method.clone(),
                    step("parseOr", safe_file, 5),
                    step("parseOr falls back", test_file, 18)
                ]
            ),
            (
                "parseOrZero falls back".to_owned(),
                vec![
                    try_with,
                    builder_method,
                    step("parseOrZero", safe_file, 25),
                    step("parseOrZero falls back", test_file, 27)
                ]
            ),
        ],
        "{answer:#?}"
    );
    assert_eq!((answer.complete, answer.total_tests, answer.indirect_depth), (true, 3, 2), "{answer:#?}");
    assert!(answer.completeness.helpers_incomplete.is_empty(), "{answer:#?}");

    // One level: the builder method is followed, `parseOr` and `parseOrZero` past it are cut.
    let shallow: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "Flows.Flow.tryWith", "maxDepth": 1})).await;
    let names: Vec<String> = chains_of(&shallow).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["a failing body is handled"], "{shallow:#?}");
    assert!(!shallow.complete, "{shallow:#?}");
    assert_eq!(
        shallow.completeness.cut_by_depth,
        ["parseOr (src/Flows/Safe.fs:5)", "parseOrZero (src/Flows/Safe.fs:25)"],
        "{shallow:#?}"
    );

    // `bind` is called by `Bind`, which only blocks with `let!` call: `sum`'s.
    let bind: TestsForSymbolAnswer =
        editor.execute_as(Command::TestsForSymbol, json!({"query": "Flows.Flow.bind"})).await;
    let names: Vec<String> = chains_of(&bind).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["sum adds"], "{bind:#?}");
    assert!(bind.complete, "{bind:#?}");
    editor.stop().await;
}
