//! `fslens.check` against the FSAC double: verdicts that prove what they cover.

use crate::support;
use fslens::commands::registry::Command;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy};

async fn ready_editor(workspace: &std::path::Path, runtime: &std::path::Path) -> Editor {
    Editor::start_ready(workspace, runtime, &[]).await
}

async fn check(editor: &mut Editor, argument: Value) -> Value {
    editor.execute_result(Command::Check, argument).await
}

fn cli_check(workspace: &std::path::Path, runtime: &std::path::Path, extra: &[&str]) -> (Option<i32>, Value) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["check", "--json", "--timeout-ms", "60000", "--fsac", &double_command(), "--workspace"])
        .arg(workspace)
        .args(extra)
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .unwrap();
    let answer = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!("no JSON: {} {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    (output.status.code(), answer)
}

#[tokio::test]
async fn an_unsaved_fix_turns_errors_into_clean_and_says_which_version() {
    unsaved_fix_scenario(&[]).await;
}

/// Newer FSAC puts the document version on publishDiagnostics; the verdict must hold for both.
#[tokio::test]
async fn the_same_holds_when_fsac_versions_its_diagnostics() {
    unsaved_fix_scenario(&[("FSAC_DOUBLE_DIAGNOSTICS_VERSION", "1")]).await;
}

/// fslens's own copy of a closed file is at version 1; an editor that then opens its buffer of
/// that file at version 1 too, with a type error in it, must not get the disk text's analysis
/// as the buffer's: the check says `errors`, never `clean`.
#[tokio::test]
async fn a_buffer_opened_at_the_version_fslens_used_for_the_disk_text_is_checked_anew() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let file = "src/Shipping.App/Program.fs";
    let answer = check(&mut editor, json!({"path": file})).await;
    assert_eq!(answer["verdict"], json!("clean"), "the disk text, opened by fslens at version 1: {answer}");
    let program = workspace.path().join(file);
    let original = std::fs::read_to_string(&program).unwrap();
    let broken = original.replace("create \"Books\" 12.5 \"Lyon\"", "create \"Books\" \"heavy\" \"Lyon\"");
    let uri = fslens::uri::path_to_uri(&program).unwrap();
    editor
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": 1, "text": broken}}),
        )
        .await;
    let answer = check(&mut editor, json!({"path": file})).await;
    assert_eq!(answer["verdict"], json!("errors"), "the buffer's own analysis: {answer}");
    assert_eq!(answer["files"][0]["openInEditor"], json!(true), "{answer}");
    editor.stop().await;
}

async fn unsaved_fix_scenario(environment: &[(&str, &str)]) {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), environment).await;
    let program = workspace.path().join("src/Shipping.App/Program.fs");
    let original = std::fs::read_to_string(&program).unwrap();
    let uri = editor.open(&program, 1).await;
    let broken = original.replace("create \"Books\" 12.5 \"Lyon\"", "create \"Books\" \"heavy\" \"Lyon\"");
    editor.change(&uri, 2, &broken).await;

    let answer = check(&mut editor, json!({"path": "src/Shipping.App/Program.fs"})).await;
    assert_eq!(answer["verdict"], json!("errors"), "{answer}");
    assert_eq!(answer["scope"], json!("file"));
    let error = &answer["diagnostics"][0];
    assert_eq!(error["code"], json!(1));
    assert!(error["message"].as_str().unwrap().contains("expected to have type"), "{error}");
    assert_eq!(error["range"]["start"]["line"], json!(6));
    assert_eq!(answer["files"][0]["version"], json!(2), "the verdict names the version it covers");
    assert_eq!(answer["files"][0]["openInEditor"], json!(true));

    editor.change(&uri, 3, &original).await;
    let answer = check(&mut editor, json!({"path": "src/Shipping.App/Program.fs"})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["complete"], json!(true));
    assert_eq!(answer["files"][0]["version"], json!(3));
    assert_eq!(std::fs::read_to_string(&program).unwrap(), original, "nothing was saved");

    // The workspace verdict covers every file of every project, the open buffer included.
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["scope"], json!("workspace"));
    assert_eq!(answer["files"].as_array().unwrap().len(), 6);
    assert_eq!(answer["perProject"].as_array().unwrap().len(), 3);

    // A project named by its name, with the default scope, is checked as that project.
    let answer = check(&mut editor, json!({"projectPath": "Shipping.Domain"})).await;
    assert_eq!((answer["verdict"].as_str(), answer["scope"].as_str()), (Some("clean"), Some("project")), "{answer}");
    let files: Vec<&str> =
        answer["files"].as_array().unwrap().iter().filter_map(|file| file["file"].as_str()).collect();
    let expected =
        ["src/Shipping.Domain/Types.fs", "src/Shipping.Domain/Visibility.fs", "src/Shipping.Domain/Operations.fs"];
    assert_eq!(files, expected, "the compile items of Shipping.Domain.fsproj: {answer}");
    editor.stop().await;
}

#[tokio::test]
async fn a_closed_file_is_checked_without_the_editor_seeing_anything() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    // A notification about Types.fs, whatever its encoding of the path: every place FSAC puts a
    // document's URI is decoded and compared as a path.
    let names_types = |message: &Value| {
        let params = &message["params"];
        [&params["uri"], &params["file"], &params["content"], &params["textDocument"]["uri"]]
            .into_iter()
            .filter_map(Value::as_str)
            .filter_map(fslens::uri::uri_to_path)
            .any(|path| path.ends_with("src/Shipping.Domain/Types.fs"))
    };
    // The load's own test detection for the file comes first (FSAC sends one per file after
    // loading); only what follows the check is the check's doing.
    editor.wait_for(|message| message["method"] == "fsharp/testDetected" && names_types(message)).await;
    let before = editor.notifications.len();
    let answer = check(&mut editor, json!({"path": "src/Shipping.Domain/Types.fs"})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["files"][0]["openInEditor"], json!(false));
    assert_eq!(answer["files"][0]["contentSha256"].as_str().unwrap().len(), 64);
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["fslensDocuments"], json!(0), "fslens closed what it opened");
    let leaked: Vec<&Value> = editor.notifications[before..].iter().filter(|message| names_types(message)).collect();
    assert!(leaked.is_empty(), "the editor heard about a file it never opened: {leaked:?}");
    editor.stop().await;
}

#[tokio::test]
async fn severity_filters_only_the_list_and_fifty_is_the_cap() {
    let runtime = tempfile::tempdir().unwrap();
    let broken = fixture_copy("broken");
    let (code, errors_only) = cli_check(broken.path(), runtime.path(), &["TypeErrors.fs"]);
    assert_eq!(code, Some(1), "errors exit with 1");
    let (_, everything) = cli_check(broken.path(), runtime.path(), &["TypeErrors.fs", "--severity", "all"]);
    for answer in [&errors_only, &everything] {
        assert_eq!(answer["verdict"], json!("errors"));
        assert_eq!(
            answer["totalDiagnostics"].as_u64().unwrap(),
            answer["errorCount"].as_u64().unwrap()
                + answer["warningCount"].as_u64().unwrap()
                + answer["infoCount"].as_u64().unwrap()
        );
    }
    assert_eq!(errors_only["errorCount"], everything["errorCount"]);
    assert_eq!(errors_only["warningCount"], everything["warningCount"]);
    let warnings = everything["warningCount"].as_u64().unwrap();
    assert!(warnings >= 1, "{everything}");
    assert_eq!(errors_only["belowSeverityFloorCount"].as_u64().unwrap(), warnings);
    assert_eq!(
        everything["diagnostics"].as_array().unwrap().len(),
        errors_only["diagnostics"].as_array().unwrap().len() + warnings as usize
    );

    let many = fixture_copy("many-errors");
    let (_, answer) = cli_check(many.path(), runtime.path(), &[]);
    assert_eq!(answer["errorCount"], json!(60), "{answer}");
    assert_eq!(answer["diagnostics"].as_array().unwrap().len(), 50);
    assert_eq!(answer["diagnosticsTruncated"], json!(true));
}

#[tokio::test]
async fn unusable_setups_give_unknown_with_the_reason() {
    let runtime = tempfile::tempdir().unwrap();
    let pinned = fixture_copy("sdk-pin");
    let (code, answer) = cli_check(pinned.path(), runtime.path(), &[]);
    assert_eq!(code, Some(2), "unknown exits with 2");
    assert_eq!(answer["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("sdk_not_found"));
    assert_eq!(answer["blockingReason"]["requestedSdkVersion"], json!("99.0.100"));
    assert_eq!(answer["blockingReason"]["installedSdks"], json!(crate::support::dotnet::installed_sdk_versions()));

    let unrestored = fixture_copy("unrestored");
    let (_, answer) = cli_check(unrestored.path(), runtime.path(), &[]);
    assert_eq!(answer["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("project_not_restored"));

    let shipping = fixture_copy("shipping");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["check", "--json", "--workspace"])
        .arg(shipping.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env_remove("FSLENS_FSAC")
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["verdict"], json!("unknown"));
    assert_eq!(answer["blockingReason"]["errorKind"], json!("fsac_unavailable"), "{answer}");

    // A file no project compiles gets no diagnostics from FSAC: never "clean".
    std::fs::write(shipping.path().join("Stray.fs"), "module Stray\nlet x = 1\n").unwrap();
    let (_, answer) = cli_check(shipping.path(), runtime.path(), &["Stray.fs"]);
    assert_eq!(answer["blockingReason"]["errorKind"], json!("file_not_in_project"), "{answer}");
    // Paths outside the workspace are refused with a typed error.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["check", "--json", "--fsac", &double_command(), "--workspace"])
        .arg(shipping.path())
        .arg("../outside.fs")
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("outside the workspace"));
}

#[tokio::test]
async fn snippets_are_checked_at_the_start_and_end_of_a_project() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let uses_project = "let s = Shipping.Domain.Operations.create \"x\" 1.0 \"y\"\nlet w: float = s.Weight";
    let end =
        check(&mut editor, json!({"snippet": uses_project, "projectPath": "src/Shipping.App/Shipping.App.fsproj"}))
            .await;
    assert_eq!(end["verdict"], json!("clean"), "at the end the project is visible: {end}");
    assert_eq!(end["snippetPosition"], json!("end"));
    let start = check(
        &mut editor,
        json!({"snippet": uses_project, "snippetPosition": "start", "projectPath": "src/Shipping.App/Shipping.App.fsproj"}),
    )
    .await;
    assert_eq!(start["verdict"], json!("errors"), "at the start nothing precedes the snippet: {start}");
    assert_eq!(start["diagnostics"][0]["file"], json!("snippet"));
    assert_eq!(start["diagnostics"][0]["range"]["start"]["line"], json!(0), "lines count from the snippet");
    let broken = check(
        &mut editor,
        json!({"snippet": "let a = 1\nlet b: string = a", "projectPath": "src/Shipping.App/Shipping.App.fsproj"}),
    )
    .await;
    assert_eq!(broken["verdict"], json!("errors"));
    assert_eq!(broken["diagnostics"][0]["range"]["start"]["line"], json!(1), "{broken}");
    let leftovers: Vec<_> =
        walk(workspace.path()).into_iter().filter(|path| path.contains(".fslens-snippet")).collect();
    assert!(leftovers.is_empty(), "temporary scripts left behind: {leftovers:?}");
    editor.stop().await;
}

fn walk(root: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        if entry.path().is_dir() {
            found.extend(walk(&entry.path()));
        } else {
            found.push(entry.path().display().to_string());
        }
    }
    found
}
