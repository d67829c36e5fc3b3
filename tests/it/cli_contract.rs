//! The CLI is a contract a script can rely on: every exit code means one
//! kind of outcome (docs/commands.md, "Exit codes") — 0 answered definitely, 1 `check` found
//! errors, 2 answered but not definitely, 3 FSAC not running, 64 the request was refused, 70
//! fslens or FSAC failed — and with `--json` every outcome, a failure included, is one JSON
//! object on stdout, a failure carrying its `errorKind`. Positions past the end of a file are
//! refused as `invalid_argument` naming the argument, never answered as "nothing there".

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::double::{double_command, fixture_copy};

/// What one `fslens ARGS --workspace WORKSPACE` run gave: exit code, stdout, stderr.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Stdout as the one JSON object it must be.
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("stdout is not one JSON object ({error}): {}\n{}", self.stdout, self.stderr))
    }
}

fn fslens(workspace: &Path, runtime: &Path, arguments: &[&str]) -> Run {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(arguments)
        .arg("--workspace")
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A failure printed with `--json`: one object with its `errorKind`, the argument it blames and
/// the exit code it gave.
fn assert_failure(run: &Run, error_kind: &str, argument: Option<&str>, exit_code: i32) {
    let failure = run.json();
    assert_eq!(failure["errorKind"], json!(error_kind), "{failure:#}\n{}", run.stderr);
    if let Some(argument) = argument {
        assert_eq!(failure["data"]["argument"], json!(argument), "{failure:#}");
    }
    assert_eq!(failure["exitCode"], json!(exit_code), "{failure:#}");
    assert_eq!(run.code, Some(exit_code), "{failure:#}\n{}", run.stderr);
    assert!(failure["message"].as_str().is_some_and(|message| !message.is_empty()), "{failure:#}");
}

#[test]
fn exit_0_is_a_clean_check_and_1_a_check_that_found_errors() {
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let clean = fixture_copy("shipping");
    let run = fslens(clean.path(), runtime.path(), &["check", "--json", "--fsac", &fsac]);
    assert_eq!(run.json()["verdict"], json!("clean"), "{}", run.stderr);
    assert_eq!(run.code, Some(0));

    let broken = fixture_copy("broken");
    let run = fslens(broken.path(), runtime.path(), &["check", "TypeErrors.fs", "--json", "--fsac", &fsac]);
    assert_eq!(run.json()["verdict"], json!("errors"), "{}", run.stderr);
    assert_eq!(run.code, Some(1));
}

#[test]
fn exit_2_is_an_answer_that_is_not_definite() {
    let runtime = tempfile::tempdir().unwrap();
    // No project anywhere: check cannot know, and says `unknown`.
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("Loose.fs"), "module Loose\n\nlet answer = 42\n").unwrap();
    let run = fslens(workspace.path(), runtime.path(), &["check", "--json", "--fsac", &double_command()]);
    assert_eq!(run.json()["verdict"], json!("unknown"), "{}", run.stderr);
    assert_eq!(run.code, Some(2));
    // A name declared nowhere: `not_found` is an answer, not a failure.
    let shipping = fixture_copy("shipping");
    let run = fslens(shipping.path(), runtime.path(), &["read-symbol", "NoSuchName", "--json"]);
    assert_eq!(run.json()["status"], json!("not_found"), "{}", run.stderr);
    assert_eq!(run.code, Some(2));
}

#[test]
fn exit_3_is_status_with_fsac_not_running() {
    let runtime = tempfile::tempdir().unwrap();
    let workspace = fixture_copy("shipping");
    let run = fslens(workspace.path(), runtime.path(), &["status", "--json", "--fsac", "/nonexistent/fsautocomplete"]);
    assert_eq!(run.json()["state"], json!("crashed"), "{}", run.stderr);
    assert_eq!(run.code, Some(3));
}

#[test]
fn exit_64_is_a_refused_request_printed_as_one_json_object() {
    let runtime = tempfile::tempdir().unwrap();
    let workspace = fixture_copy("shipping");
    let fsac = double_command();
    // A typed argument error from the session: before, stderr text only, exit 1 (check's
    // "your code has errors").
    let run = fslens(workspace.path(), runtime.path(), &["find", "--kind", "position", "--json", "--fsac", &fsac]);
    assert_failure(&run, "invalid_argument", Some("path"), 64);
    // A flag clap refuses is bad input too, and JSON when `--json` was asked for.
    let run = fslens(workspace.path(), runtime.path(), &["find", "Shipment", "--no-such-flag", "--json"]);
    assert_failure(&run, "invalid_argument", Some("--no-such-flag"), 64);
    // A workspace that does not exist.
    let missing = workspace.path().join("no-such-directory");
    let run = fslens(&missing, runtime.path(), &["read-symbol", "Shipment", "--json"]);
    assert_failure(&run, "invalid_path", None, 64);
    // Without `--json` stdout stays empty and stderr names the kind.
    let run = fslens(workspace.path(), runtime.path(), &["find", "--kind", "position", "--fsac", &fsac]);
    assert_eq!((run.code, run.stdout.as_str()), (Some(64), ""), "{}", run.stderr);
    assert!(run.stderr.contains("(invalid_argument)"), "{}", run.stderr);
}

#[test]
fn positions_past_the_end_of_a_file_are_invalid_arguments_everywhere() {
    let runtime = tempfile::tempdir().unwrap();
    let workspace = fixture_copy("shipping");
    let fsac = double_command();
    let program = "src/Shipping.App/Program.fs";
    // `navigate hover` past the end of the file answered `null`, exit 0.
    let run = fslens(
        workspace.path(),
        runtime.path(),
        &["navigate", "hover", "--path", program, "--line", "99999", "--character", "0", "--json", "--fsac", &fsac],
    );
    assert_failure(&run, "invalid_argument", Some("line"), 64);
    // A column past the end of a line that exists.
    let run = fslens(
        workspace.path(),
        runtime.path(),
        &["navigate", "hover", "--path", program, "--line", "0", "--character", "5000", "--json", "--fsac", &fsac],
    );
    assert_failure(&run, "invalid_argument", Some("character"), 64);
    // `read-symbol --line 99999` answered `not_found`, `certain: true`, for a declared name.
    let run = fslens(workspace.path(), runtime.path(), &["read-symbol", "Shipment", "--line", "99999", "--json"]);
    assert_failure(&run, "invalid_argument", Some("line"), 64);
    let types = "src/Shipping.Domain/Types.fs";
    let run = fslens(
        workspace.path(),
        runtime.path(),
        &["read-symbol", "Shipment", "--path", types, "--line", "99999", "--json"],
    );
    assert_failure(&run, "invalid_argument", Some("line"), 64);
    // A line inside the file where the name is not declared: `not_found`, saying where it is.
    let run = fslens(workspace.path(), runtime.path(), &["read-symbol", "Shipment", "--line", "0", "--json"]);
    let answer = run.json();
    assert_eq!(answer["status"], json!("not_found"), "{answer:#}");
    assert!(answer["message"].as_str().unwrap().contains("it is declared at"), "{answer:#}");
}

#[test]
fn exit_70_is_a_failure_of_fslens_or_fsac_printed_as_one_json_object() {
    let runtime = tempfile::tempdir().unwrap();
    let workspace = fixture_copy("shipping");
    let run = fslens(
        workspace.path(),
        runtime.path(),
        &[
            "navigate",
            "hover",
            "--path",
            "src/Shipping.App/Program.fs",
            "--line",
            "0",
            "--character",
            "0",
            "--timeout-ms",
            "5000",
            "--json",
            "--fsac",
            "/nonexistent/fsautocomplete",
        ],
    );
    assert_failure(&run, "fsac_unavailable", None, 70);
}

#[test]
fn read_enclosing_find_and_navigate_count_a_files_lines_alike() {
    let runtime = tempfile::tempdir().unwrap();
    let workspace = fixture_copy("shipping");
    let fsac = double_command();
    let program = "src/Shipping.App/Program.fs";
    let text = std::fs::read_to_string(workspace.path().join(program)).unwrap();
    assert!(text.ends_with('\n'));
    // The empty position after the final newline is a line every command accepts; the one
    // after it is past the end for all of them, in the same words.
    let last = text.split('\n').count() - 1;
    let past = (last + 1).to_string();
    let last = last.to_string();
    let runs = |line: &str| {
        [
            fslens(workspace.path(), runtime.path(), &["read-enclosing", "--path", program, "--line", line, "--json"]),
            fslens(
                workspace.path(),
                runtime.path(),
                &[
                    "find",
                    "--kind",
                    "position",
                    "--path",
                    program,
                    "--line",
                    line,
                    "--character",
                    "0",
                    "--json",
                    "--fsac",
                    &fsac,
                ],
            ),
            fslens(
                workspace.path(),
                runtime.path(),
                &[
                    "navigate",
                    "hover",
                    "--path",
                    program,
                    "--line",
                    line,
                    "--character",
                    "0",
                    "--json",
                    "--fsac",
                    &fsac,
                ],
            ),
        ]
    };
    for run in runs(&last) {
        assert_ne!(run.json()["errorKind"], json!("invalid_argument"), "{}", run.stdout);
    }
    let messages: Vec<Value> = runs(&past)
        .iter()
        .map(|run| {
            assert_failure(run, "invalid_argument", Some("line"), 64);
            run.json()["message"].clone()
        })
        .collect();
    assert!(messages.iter().all(|message| *message == messages[0]), "{messages:#?}");
}
