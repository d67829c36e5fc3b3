//! The real-binary editor harness (`support::double::Editor`) counts answers: these tests show
//! its exactly-once check failing a test that leaves an answer unclaimed or a request
//! unanswered, and passing one that claims answers out of order or declares a request it
//! leaves in flight. fslens runs in front of the echo backend (tests/support/echo-backend.mjs),
//! which answers every request at once.

use crate::support::double::Editor;
use serde_json::json;

fn echo_backend() -> String {
    format!("node {}/tests/support/echo-backend.mjs", env!("CARGO_MANIFEST_DIR"))
}

async fn start(workspace: &tempfile::TempDir, runtime: &tempfile::TempDir) -> Editor {
    Editor::start(workspace.path(), runtime.path(), &echo_backend(), &[]).await
}

#[tokio::test]
async fn answers_claimed_out_of_order_pass_the_check() {
    let (workspace, runtime) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut editor = start(&workspace, &runtime).await;
    let first = editor.send_request("custom/first", json!({})).await;
    let second = editor.send_request("custom/second", json!({})).await;
    // The answer to `first` is read while waiting for `second`, and kept for the test.
    assert_eq!(editor.response(second).await["result"]["method"], json!("custom/second"));
    assert_eq!(editor.response(first).await["result"]["method"], json!("custom/first"));
    editor.stop().await;
}

#[tokio::test]
#[should_panic(expected = "was never claimed by the test")]
async fn an_answer_read_but_never_claimed_fails_stop() {
    let (workspace, runtime) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut editor = start(&workspace, &runtime).await;
    editor.send_request("custom/forgotten", json!({})).await;
    editor.stop().await;
}

#[tokio::test]
#[should_panic(expected = "(custom/forgotten) was answered 0 times")]
async fn a_request_whose_answer_was_never_awaited_fails_drop() {
    let (workspace, runtime) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut editor = start(&workspace, &runtime).await;
    editor.send_request("custom/forgotten", json!({})).await;
    drop(editor);
}

#[tokio::test]
async fn a_request_declared_unanswered_may_stay_in_flight_when_fslens_is_killed() {
    let (workspace, runtime) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut editor = start(&workspace, &runtime).await;
    let id = editor.send_request("custom/in-flight", json!({})).await;
    editor.expect_unanswered(id, "fslens is killed with it in flight");
    editor.kill().await;
}
