//! `fslens navigate OP` (issue 18): the `navigate` tool's operations from a shell, through the
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
