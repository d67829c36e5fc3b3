//! `fslens navigate OP`: the `navigate` tool's operations from a shell, through the
//! real binary in front of the FSAC double on a copy of fixtures/shipping.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use support::double::{double_command, fixture_copy};

fn fslens(workspace: &Path, runtime: &Path, arguments: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .current_dir(workspace)
        .arg("navigate")
        .args(arguments)
        .args(["--fsac", &double_command()])
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("FSLENS_FSAC")
        .output()
        .unwrap()
}

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn incoming_calls_list_every_caller_with_its_line_from_the_command_line() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let output = fslens(
        workspace.path(),
        runtime.path(),
        &["incomingCalls", "--path", "src/Shipping.Domain/Operations.fs", "--line", "2", "--word", "create"],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("4 callers of create"), "{stdout}");
    assert!(
        stdout.contains("src/Shipping.App/Program.fs:7:13  run  let s = create \"Books\" 12.5 \"Lyon\""),
        "{stdout}"
    );
    assert_eq!(stdout.matches("tests/Shipping.Tests/ShipmentTests.fs:").count(), 3, "{stdout}");
}

#[test]
fn definition_answers_json_and_bad_positions_name_the_argument() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let output = fslens(
        workspace.path(),
        runtime.path(),
        &["definition", "--path", "src/Shipping.App/Program.fs", "--line", "6", "--word", "create", "--json"],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["operation"], "definition");
    assert_eq!(answer["via"], "fsac");
    let location = if answer["result"].is_array() { answer["result"][0].clone() } else { answer["result"].clone() };
    assert_eq!(location["file"], "src/Shipping.Domain/Operations.fs", "{answer}");
    assert_eq!(location["range"]["start"]["line"], 2, "{answer}");

    // No column and no word: refused before any session starts, naming the argument.
    let output =
        fslens(workspace.path(), runtime.path(), &["hover", "--path", "src/Shipping.App/Program.fs", "--line", "6"]);
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("`character`"), "{stderr}");
    // A path outside the workspace is refused.
    let output = fslens(
        workspace.path(),
        runtime.path(),
        &["hover", "--path", "../elsewhere.fs", "--line", "0", "--character", "0"],
    );
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("invalid_path") || stderr.contains("outside"), "{stderr}");
}

#[test]
fn code_actions_preview_their_edits_and_apply_says_why_no_editor_took_it() {
    let workspace = fixture_copy("code-actions");
    let runtime = tempfile::tempdir().unwrap();
    let file = workspace.path().join("Mutation.fs");
    let before = std::fs::read_to_string(&file).unwrap();
    let at = ["codeActions", "--path", "Mutation.fs", "--line", "4", "--character", "4"];
    let output = fslens(workspace.path(), runtime.path(), &at);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("1 action(s) at Mutation.fs:5:5"), "{stdout}");
    assert!(stdout.contains("for FS0027 error: This value is not mutable"), "{stdout}");
    assert!(stdout.contains("[0] Make declaration 'mutable' (refactor)"), "{stdout}");
    assert!(stdout.contains("    -     let total = 0\n    +     let mutable total = 0"), "{stdout}");

    // Over lines 3 to 6, as JSON: both fixes.
    let output = fslens(
        workspace.path(),
        runtime.path(),
        &[
            "codeActions",
            "--path",
            "Mutation.fs",
            "--line",
            "3",
            "--character",
            "0",
            "--end-line",
            "6",
            "--end-character",
            "30",
            "--json",
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["totalActions"], 2, "{answer}");
    assert_eq!(answer["range"]["end"], serde_json::json!({"line": 6, "character": 30}), "{answer}");

    // The session the CLI starts has no editor: nothing is applied, and the answer says why.
    let mut apply = at.to_vec();
    apply.extend(["--apply", "editor"]);
    let output = fslens(workspace.path(), runtime.path(), &apply);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.lines().last().unwrap().starts_with("not applied: "), "{stdout}");
    assert!(stdout.contains("applyEdit"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "nothing was written");

    // An action index without --apply is refused before any session starts, naming it.
    let mut index = at.to_vec();
    index.extend(["--action-index", "0"]);
    let output = fslens(workspace.path(), runtime.path(), &index);
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("actionIndex"), "{stderr}");
}
