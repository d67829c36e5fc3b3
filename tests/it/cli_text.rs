//! The text (non-`--json`) CLI output says what the JSON answer says about what was left out:
//! each test runs one real command twice, with `--json` and without, and holds the text to the
//! JSON's truncation, omission and hint fields.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::double::{double_command, fixture_copy};

/// Runs `fslens ARGS --workspace WORKSPACE` once with `--json` and once without.
fn json_and_text(workspace: &Path, runtime: &Path, arguments: &[&str]) -> (Value, String) {
    let run = |json: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"));
        command.args(arguments).arg("--workspace").arg(workspace).env("XDG_RUNTIME_DIR", runtime);
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let json = run(true);
    let answer = serde_json::from_str(&json).unwrap_or_else(|_| panic!("no JSON: {json}"));
    (answer, run(false))
}

fn count(answer: &Value, field: &str) -> u64 {
    answer[field].as_u64().unwrap_or_else(|| panic!("{field} in {answer}"))
}

#[test]
fn find_text_says_how_many_sites_the_page_left_out_and_how_to_continue() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let (answer, text) =
        json_and_text(workspace.path(), runtime.path(), &["find", "Shipment", "--max-results", "2", "--fsac", &fsac]);
    let left = count(&answer, "totalSites") - count(&answer, "returnedSites");
    assert!(left > 0, "{answer}");
    assert!(text.contains(&format!("… {left} more site(s) (cut at --max-results)")), "{text}");
    let cursor = answer["nextCursor"].as_str().unwrap();
    assert!(text.contains(&format!("more: --cursor {cursor}")), "{text}");
}

#[test]
fn check_text_says_how_many_diagnostics_were_not_listed() {
    let workspace = fixture_copy("many-errors");
    let runtime = tempfile::tempdir().unwrap();
    let (answer, text) = json_and_text(workspace.path(), runtime.path(), &["check", "--fsac", &double_command()]);
    assert_eq!(answer["diagnosticsTruncated"], Value::Bool(true), "{answer}");
    let listed = answer["diagnostics"].as_array().unwrap().len() as u64;
    let left = count(&answer, "totalDiagnostics") - count(&answer, "belowSeverityFloorCount") - listed;
    assert!(left > 0);
    assert!(text.contains(&format!("… {left} more diagnostic(s) not listed (at most {listed} are")), "{text}");
    // Each listed diagnostic says where it is: file:line:column.
    let first = &answer["diagnostics"][0];
    let location = format!(
        "{}:{}:{}:",
        first["file"].as_str().unwrap(),
        first["range"]["start"]["line"].as_u64().unwrap() + 1,
        first["range"]["start"]["character"].as_u64().unwrap() + 1
    );
    assert!(text.contains(&location), "{text}");
}

#[test]
fn read_symbol_and_read_enclosing_text_say_what_the_budget_cut_and_what_to_do() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let (answer, text) =
        json_and_text(workspace.path(), runtime.path(), &["read-symbol", "Account", "--max-lines", "3"]);
    let omitted = count(&answer, "linesOmitted");
    assert!(text.contains(&format!("… {omitted} more line(s) not shown")), "{text}");
    assert!(text.contains(&format!("hint: {}", answer["hint"].as_str().unwrap())), "{text}");

    let file = "src/Shipping.Domain/Visibility.fs";
    let (answer, text) = json_and_text(
        workspace.path(),
        runtime.path(),
        &["read-enclosing", "--path", file, "--line", "30", "--max-lines", "3"],
    );
    assert_eq!(answer["status"], "oversize", "{answer}");
    assert!(text.contains("onOversize slice"), "the hint names the way out: {text}");
}

#[test]
fn make_visible_text_shows_the_project_file_edit_of_expose_to() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let file = "src/Shipping.Domain/Visibility.fs";
    let arguments = ["make-visible", "--path", file, "--line", "16", "--word", "Hidden", "--expose-to", "Shipping.App"];
    let (answer, text) = json_and_text(workspace.path(), runtime.path(), &arguments);
    assert_eq!(answer["status"], "ok", "{answer}");
    let project_edit = answer["edits"]["changes"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(uri, _)| uri.ends_with(".fsproj"))
        .map(|(_, edits)| edits[0]["newText"].as_str().unwrap().to_owned())
        .expect("an .fsproj edit");
    assert!(text.contains("Shipping.Domain.fsproj:"), "{text}");
    for line in project_edit.lines() {
        assert!(text.contains(&format!("+ {line}")), "{line:?} missing from {text}");
    }
    assert!(text.contains("nothing was written to disk"));
}

/// `rename --symbol` on a name two compiler symbols share (fixtures/symbols: type
/// `TaskResult` and its companion module): the text names both candidates with the flags that
/// rename one, and the exit code is 2 (answered, not definitely), with `--json` too.
#[test]
fn rename_text_lists_the_candidates_of_an_ambiguous_name_and_exits_2() {
    let workspace = fixture_copy("symbols");
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let run = |json: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"));
        command
            .args(["rename", "--symbol", "Symbols.TaskResult", "--new-name", "Outcome", "--fsac", &fsac])
            .arg("--workspace")
            .arg(workspace.path())
            .env("XDG_RUNTIME_DIR", runtime.path());
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        (output.status.code(), String::from_utf8(output.stdout).unwrap())
    };
    let (code, json) = run(true);
    let answer: Value = serde_json::from_str(&json).unwrap_or_else(|_| panic!("no JSON: {json}"));
    assert_eq!((code, answer["status"].clone()), (Some(2), json!("ambiguous")), "{answer:#}");
    let (code, text) = run(false);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.starts_with("rename Symbols.TaskResult -> Outcome: AMBIGUOUS: "), "{text}");
    for candidate in [
        "  type Symbols.TaskResult  Lib/TaskResult.fs:7:6  (--path Lib/TaskResult.fs --line 6 --character 5)",
        "  module Symbols.TaskResult  Lib/TaskResultModule.fs:5:8  (--path Lib/TaskResultModule.fs --line 4 --character 7)",
    ] {
        assert!(text.contains(candidate), "{candidate:?} missing from {text}");
    }
    assert!(text.trim_end().ends_with("nothing was renamed or written"), "{text:?}");
}

#[test]
fn rename_text_shows_each_line_before_and_after() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let arguments = [
        "rename",
        "--path",
        "Billing/Types.fs",
        "--line",
        "2",
        "--word",
        "Total",
        "--new-name",
        "Amount",
        "--fsac",
        &fsac,
    ];
    let (answer, text) = json_and_text(workspace.path(), runtime.path(), &arguments);
    assert_eq!(count(&answer, "totalEdits"), 5, "{answer}");
    assert!(text.contains("rename Total -> Amount: 5 edits in 3 files\n"), "{text}");
    assert!(text.contains("      7 - let doubled = order.``Total`` * 2m"), "{text}");
    assert!(text.contains("      7 + let doubled = order.Amount * 2m"), "{text}");
    assert!(text.contains("preview only: nothing was written"), "{text}");
    assert!(!std::fs::read_to_string(workspace.path().join("Shop/Program.fs")).unwrap().contains("Amount"));
}
