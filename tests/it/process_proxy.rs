//! The real `fslens` binary between a test editor and a child backend, over real pipes.

use std::process::Stdio;
use std::time::Duration;

use crate::support::double::Editor;
use fslens::commands::registry::Command as FslensCommand;
use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::process::Command;

const TIMEOUT: Duration = Duration::from_secs(20);

fn echo_backend() -> String {
    format!("node {}/tests/support/echo-backend.mjs", env!("CARGO_MANIFEST_DIR"))
}

#[tokio::test]
async fn the_binary_proxies_a_child_backend_over_real_pipes() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let trace = workspace.path().join("trace.jsonl");
    let trace_argument = trace.display().to_string();
    let mut editor = Editor::start_with_args(
        workspace.path(),
        runtime.path(),
        &echo_backend(),
        &[],
        &["--trace-messages", &trace_argument],
    )
    .await;
    let initialized = &editor.initialize_answer;
    assert_eq!(initialized["result"]["serverInfo"]["name"], json!("echo-backend"));
    assert!(
        initialized["result"]["capabilities"]["executeCommandProvider"]["commands"]
            .as_array()
            .unwrap()
            .contains(&json!("fslens.status"))
    );
    let echoed = editor.request("custom/anything", json!({"é": [1, 2]})).await;
    assert_eq!(echoed["result"], json!({"method": "custom/anything", "params": {"é": [1, 2]}}));
    let status = editor.execute(FslensCommand::Status, json!({"probe": true})).await;
    let pid = status["result"]["fsac"]["pid"].as_u64().expect("status names FSAC's pid");
    assert_eq!(status["result"]["probe"]["alive"], json!(true), "{status}");
    assert_eq!(status["result"]["workspaceRoot"], json!(workspace.path().display().to_string()));
    // The backend runs in the workspace root.
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap();
    assert_eq!(cwd, workspace.path().canonicalize().unwrap());

    // Shutdown is answered, fslens exits 0, and every request had exactly one answer.
    editor.stop().await;
    // The backend is gone too.
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "backend {pid} outlived the proxy");

    let transcript = std::fs::read_to_string(&trace).unwrap();
    let directions: Vec<String> = transcript
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["direction"].as_str().unwrap().to_owned())
        .collect();
    for direction in ["editor->proxy", "proxy->fsac", "fsac->proxy", "proxy->editor"] {
        assert!(directions.iter().any(|seen| seen == direction), "{direction} missing from the transcript");
    }
}

#[tokio::test]
async fn stdout_carries_only_protocol_bytes_even_when_fsac_is_missing() {
    let workspace = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .arg("--workspace")
        .arg(workspace.path())
        .arg("--log-level")
        .arg("debug")
        .env_remove("FSLENS_FSAC")
        .env("PATH", workspace.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
        json!({"jsonrpc": "2.0", "method": "exit"}),
    ] {
        write_frame(&mut stdin, &serde_json::to_vec(&message).unwrap()).await.unwrap();
    }
    let output = tokio::time::timeout(TIMEOUT, child.wait_with_output()).await.unwrap().unwrap();
    assert_eq!(output.status.code(), Some(0));
    // Parse stdout strictly as frames: any stray byte would break this.
    let mut reader = FrameReader::new(BufReader::new(&output.stdout[..]), FrameLimits::default());
    let mut ids = Vec::new();
    while let Some(body) = reader.read_frame().await.unwrap() {
        let message: Value = serde_json::from_slice(&body).unwrap();
        if message.get("method").is_none() {
            ids.push(message["id"].clone());
        }
    }
    assert_eq!(ids, vec![json!(1), json!(2), json!(3)]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("Content-Length:"), "{text}");
}

#[tokio::test]
async fn headless_status_reports_an_sdk_pin_failure_with_fsacs_stderr() {
    let workspace = tempfile::tempdir().unwrap();
    let fake = "sh -c 'echo \"A compatible .NET SDK was not found.\" >&2; echo \"Requested SDK version: 99.0.100\" >&2; exit 145'";
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["status", "--json", "--timeout-ms", "5000", "--fsac", fake, "--workspace"])
        .arg(workspace.path())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "FSAC not running");
    let status: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(status["state"], json!("crashed"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "one-line reason: {stderr}");
    assert!(stderr.contains("Requested SDK version: 99.0.100") && stderr.contains("exit code 145"), "{stderr}");
}

/// A command that panics is answered with an internal error that names it, and the session
/// goes on: the next command on the same connection is answered (a panicking command's
/// request must not be left unanswered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_panics_is_answered_and_the_session_goes_on() {
    use crate::support::double::{double_command, fixture_copy};
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(
        workspace.path(),
        runtime.path(),
        &double_command(),
        &[("FSLENS_FAULT_PANIC_IN_COMMAND", "fslens.outline")],
    )
    .await;
    let answer = editor.execute(FslensCommand::Outline, json!({ "path": "src/Shipping.Domain/Domain.fs" })).await;
    let error = &answer["error"];
    assert_eq!(error["code"], -32603, "{answer}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("fslens.outline") && message.contains("internal error"), "{answer}");
    assert_eq!(error["data"]["errorKind"], "internal_error", "{answer}");

    let status = editor.execute(FslensCommand::Status, json!({})).await;
    assert!(status["result"]["state"].is_string(), "the next command is answered: {status}");
    let again = editor.execute(FslensCommand::Outline, json!({ "path": "src/Shipping.Domain/Domain.fs" })).await;
    assert_eq!(again["error"]["code"], -32603, "a second panic is answered too: {again}");
}
