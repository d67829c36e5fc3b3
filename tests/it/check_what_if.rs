//! The what-if check (`fslens.check` with `edits`) against the FSAC double: the
//! compiler's verdict on an edit, with nothing written and nothing shown to the editor.

use crate::support;
use fslens::commands::registry::Command;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::double::{
    Editor, TRANSCRIPT_VARIABLE, double_command, fixture_copy, received_by_fsac, wait_for_transcript,
};

const WHAT_IF_VERSION_BASE: i64 = 1_000_000_000;

/// The `what-if` fixture copied and fslens started and ready on it, the double writing its
/// transcript into the runtime directory.
struct TranscribedRun {
    workspace: tempfile::TempDir,
    _runtime: tempfile::TempDir,
    transcript: PathBuf,
    editor: Editor,
}

impl TranscribedRun {
    async fn start() -> TranscribedRun {
        TranscribedRun::start_with(&[]).await
    }

    /// Started with more double switches (`FSAC_DOUBLE_*`) beside the transcript's.
    async fn start_with(switches: &[(&str, &str)]) -> TranscribedRun {
        let workspace = fixture_copy("what-if");
        let runtime = tempfile::tempdir().unwrap();
        let transcript = runtime.path().join("transcript.jsonl");
        let transcript_text = transcript.to_string_lossy().into_owned();
        let mut environment = vec![(TRANSCRIPT_VARIABLE, transcript_text.as_str())];
        environment.extend_from_slice(switches);
        let editor = Editor::start_ready(workspace.path(), runtime.path(), &environment).await;
        TranscribedRun { workspace, _runtime: runtime, transcript, editor }
    }
}

/// Whether a message FSAC received carries a hypothetical text (a version only a what-if uses).
fn carries_a_what_if_text(message: &Value) -> bool {
    message["params"]["textDocument"]["version"].as_i64().is_some_and(|version| version >= WHAT_IF_VERSION_BASE)
}

/// Sends `fslens.check` with `argument` (a what-if) without waiting for its answer, and waits
/// until FSAC has been shown a hypothetical text; returns the request's id.
async fn start_what_if(editor: &mut Editor, transcript: &Path, argument: Value) -> i64 {
    let id = editor.start_command(Command::Check, argument).await;
    wait_for_transcript(transcript, received_by_fsac, "a what-if text", carries_a_what_if_text).await;
    id
}

async fn check(editor: &mut Editor, argument: Value) -> Value {
    editor.execute_result(Command::Check, argument).await
}

fn range(line: u32, start: u32, end: u32) -> Value {
    json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": end}})
}

/// `Price: int` → `Price: string` in Catalog/Item.fs (line 2).
fn price_becomes_string(item: &str) -> Value {
    let line = item.lines().nth(2).unwrap();
    let at = line.find("int").unwrap() as u32;
    json!({"path": "Catalog/Item.fs", "range": range(2, at, at + 3), "newText": "string"})
}

/// `Price = 3` → `Price = "3"` in Orders/Order.fs (line 4).
fn construction_becomes_string(order: &str) -> Value {
    let line = order.lines().nth(4).unwrap();
    let at = line.find("Price = 3").unwrap() as u32 + "Price = ".len() as u32;
    json!({"path": "Orders/Order.fs", "range": range(4, at, at + 1), "newText": "\"3\""})
}

fn disk_bytes(workspace: &Path) -> Vec<(String, Vec<u8>)> {
    ["Catalog/Item.fs", "Orders/Order.fs", "Catalog/Catalog.fsproj", "Orders/Orders.fsproj"]
        .iter()
        .map(|file| (file.to_string(), std::fs::read(workspace.join(file)).unwrap()))
        .collect()
}

/// Whether an editor-bound notification is about the hypothetical texts: a publish for a file
/// the editor does not have open, or anything carrying a version only a what-if uses.
fn shows_the_hypothesis(message: &Value, open: &[&str]) -> bool {
    let params = &message["params"];
    let uri = params["uri"].as_str().or(params["textDocument"]["uri"].as_str()).unwrap_or_default();
    let uri = params["file"].as_str().unwrap_or(uri);
    let about_closed = ["textDocument/publishDiagnostics", "fsharp/testDetected", "fsharp/documentAnalyzed"]
        .contains(&message["method"].as_str().unwrap_or_default())
        && !open.iter().any(|file| uri.ends_with(file));
    let what_if_version = [&params["version"], &params["textDocument"]["version"]]
        .iter()
        .any(|version| version.as_i64().is_some_and(|version| version >= WHAT_IF_VERSION_BASE));
    about_closed || what_if_version
}

#[tokio::test]
async fn a_field_type_change_breaks_the_downstream_construction_and_its_fix_is_clean() {
    let workspace = fixture_copy("what-if");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let item = std::fs::read_to_string(workspace.path().join("Catalog/Item.fs")).unwrap();
    let order = std::fs::read_to_string(workspace.path().join("Orders/Order.fs")).unwrap();
    let disk_before = disk_bytes(workspace.path());
    // The load's own test detection of each file comes first (FSAC sends one per file after
    // loading); only what follows is the what-if's doing.
    for file in ["Catalog/Item.fs", "Orders/Order.fs"] {
        editor
            .wait_for(|message| {
                message["method"] == "fsharp/testDetected"
                    && message["params"]["file"].as_str().is_some_and(|uri| uri.ends_with(file))
            })
            .await;
    }
    let seen_before = editor.notifications.len();

    let answer = check(&mut editor, json!({"edits": [price_becomes_string(&item)]})).await;
    assert_eq!(answer["verdict"], json!("errors"), "{answer}");
    assert_eq!(answer["complete"], json!(true), "{answer}");
    assert_eq!(answer["baseline"]["verdict"], json!("clean"), "{answer}");
    let introduced = answer["delta"]["introduced"].as_array().unwrap();
    assert_eq!(introduced.len(), 1, "exactly the broken construction: {answer}");
    assert_eq!(introduced[0]["file"], json!("Orders/Order.fs"));
    assert_eq!(introduced[0]["code"], json!(1));
    assert_eq!(introduced[0]["range"]["start"]["line"], json!(4));
    assert_eq!(answer["diagnostics"].as_array().unwrap().len(), 1, "{answer}");
    assert_eq!(answer["delta"]["resolved"], json!([]));
    assert_eq!(answer["whatIf"]["restored"], json!(true));
    assert_eq!(answer["whatIf"]["files"][0]["source"], json!("disk"));
    let checked: Vec<&str> =
        answer["files"].as_array().unwrap().iter().filter_map(|file| file["file"].as_str()).collect();
    assert_eq!(checked, ["Catalog/Item.fs", "Orders/Order.fs"], "the touched file and its downstream project");

    // The same change with the construction fixed, as a WorkspaceEdit.
    let mut fix = construction_becomes_string(&order);
    let item_uri = fslens::uri::path_to_uri(&workspace.path().join("Catalog/Item.fs")).unwrap();
    let order_uri = fslens::uri::path_to_uri(&workspace.path().join("Orders/Order.fs")).unwrap();
    let change = price_becomes_string(&item);
    let workspace_edit = json!({"documentChanges": [
        {"textDocument": {"uri": item_uri, "version": null}, "edits": [{"range": change["range"], "newText": "string"}]},
        {"textDocument": {"uri": order_uri, "version": null}, "edits": [{"range": fix["range"].take(), "newText": "\"3\""}]},
    ]});
    let answer = check(&mut editor, json!({ "edits": workspace_edit })).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["complete"], json!(true), "{answer}");
    assert_eq!(answer["delta"]["introduced"], json!([]));
    assert_eq!(answer["delta"]["complete"], json!(true));

    // Afterwards: the normal check is the baseline again, disk is untouched, and the editor
    // heard nothing about the hypothetical texts.
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(disk_bytes(workspace.path()), disk_before, "disk is never written");
    let shown: Vec<&Value> =
        editor.notifications[seen_before..].iter().filter(|message| shows_the_hypothesis(message, &[])).collect();
    assert!(shown.is_empty(), "the editor saw the hypothesis: {shown:?}");
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["fslensDocuments"], json!(0), "{status}");
    editor.stop().await;
}

#[tokio::test]
async fn bad_edits_are_refused_by_name() {
    let workspace = fixture_copy("what-if");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let item = std::fs::read_to_string(workspace.path().join("Catalog/Item.fs")).unwrap();
    let change = price_becomes_string(&item);
    let overlapping = json!({"path": "Catalog/Item.fs", "range": range(2, 0, 40), "newText": ""});
    let answer = editor.execute(Command::Check, json!({"edits": [change, overlapping]})).await;
    assert_eq!(answer["error"]["data"]["errorKind"], json!("invalid_argument"), "{answer}");
    assert_eq!(answer["error"]["data"]["argument"], json!("edits[1].range"), "{answer}");
    let outside = json!({"path": "Catalog/Item.fs", "range": range(2, 0, 400), "newText": ""});
    let answer = editor.execute(Command::Check, json!({"edits": [outside]})).await;
    assert_eq!(answer["error"]["data"]["argument"], json!("edits[0].range"), "{answer}");
    editor.stop().await;
}

#[tokio::test]
async fn an_unsaved_buffer_is_the_baseline_and_an_edit_sent_meanwhile_is_kept() {
    let TranscribedRun { workspace, _runtime, transcript, mut editor } = TranscribedRun::start().await;
    let item_path = workspace.path().join("Catalog/Item.fs");
    let item = std::fs::read_to_string(&item_path).unwrap();
    let order = std::fs::read_to_string(workspace.path().join("Orders/Order.fs")).unwrap();
    let disk_before = disk_bytes(workspace.path());
    let uri = editor.open(&item_path, 1).await;
    let unsaved = item.replace("Price: int", "Price: string");
    editor.change(&uri, 2, &unsaved).await;
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("errors"), "the unsaved buffer breaks Order.fs: {answer}");
    let item_publish = |message: &Value| {
        message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == json!(uri.clone())
    };
    let last_publish_before = editor.notifications.iter().rev().find(|message| item_publish(message)).cloned();
    let seen_before = editor.notifications.len();

    // The what-if touches the open buffer (a comment at its end) and fixes the construction.
    let end_line = unsaved.lines().count() as u32;
    let comment = json!({"path": "Catalog/Item.fs", "range": range(end_line, 0, 0), "newText": "// what if\n"});
    let edits = json!({"edits": [comment, construction_becomes_string(&order)], "timeoutMs": 20000});
    let id = start_what_if(&mut editor, &transcript, edits).await;
    // The editor reverts its buffer while the what-if runs (FSAC has been shown the edits).
    editor.change(&uri, 3, &item).await;
    let answer = editor.response(id).await;
    let answer = answer.get("result").cloned().unwrap_or_else(|| panic!("what-if failed: {answer}"));
    assert_eq!(answer["whatIf"]["files"][0]["source"], json!("editor"), "{answer}");
    assert_eq!(answer["whatIf"]["files"][0]["editorVersion"], json!(2), "{answer}");
    assert_eq!(answer["baseline"]["verdict"], json!("errors"), "{answer}");
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    let resolved = answer["delta"]["resolved"].as_array().unwrap();
    assert_eq!(resolved.len(), 1, "{answer}");
    assert_eq!((resolved[0]["file"].as_str(), resolved[0]["code"].as_i64()), (Some("Orders/Order.fs"), Some(1)));

    // FSAC got the editor's edit only after the restore reopened the buffer at version 2,
    // never on top of the hypothetical text.
    wait_for_transcript(&transcript, received_by_fsac, "the editor's edit", |message| {
        message["method"] == "textDocument/didChange" && message["params"]["textDocument"]["version"] == json!(3)
    })
    .await;
    let received = received_by_fsac(&transcript);
    let about_item = |message: &Value| message["params"]["textDocument"]["uri"] == json!(uri.clone());
    let reopened = received.iter().position(|message| {
        about_item(message)
            && message["method"] == "textDocument/didOpen"
            && message["params"]["textDocument"]["version"] == json!(2)
    });
    let edit = received.iter().position(|message| {
        about_item(message)
            && message["method"] == "textDocument/didChange"
            && message["params"]["textDocument"]["version"] == json!(3)
    });
    assert!(reopened.is_some() && edit > reopened, "the held edit came before the restore: {received:?}");

    // The edit sent meanwhile reached FSAC and the mirror at its version: Item.fs is back to
    // `int`, so the unedited Order.fs is clean again.
    let answer = check(&mut editor, json!({"path": "Catalog/Item.fs"})).await;
    assert_eq!(answer["files"][0]["version"], json!(3), "{answer}");
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(disk_bytes(workspace.path()), disk_before);
    let shown: Vec<&Value> = editor.notifications[seen_before..]
        .iter()
        .filter(|message| shows_the_hypothesis(message, &["Catalog/Item.fs"]))
        .collect();
    assert!(shown.is_empty(), "the editor saw the hypothesis: {shown:?}");
    // The editor's diagnostics of the touched open file are what FSAC gives its real text.
    let last_publish_after = editor.notifications.iter().rev().find(|message| item_publish(message)).cloned();
    assert_eq!(
        last_publish_after.map(|m| m["params"]["diagnostics"].clone()),
        last_publish_before.map(|m| m["params"]["diagnostics"].clone())
    );
    editor.stop().await;
}

#[tokio::test]
async fn a_cancelled_what_if_restores_and_answers_once() {
    let TranscribedRun { workspace, _runtime, transcript, mut editor } = TranscribedRun::start().await;
    let item = std::fs::read_to_string(workspace.path().join("Catalog/Item.fs")).unwrap();
    let id = start_what_if(&mut editor, &transcript, json!({"edits": [price_becomes_string(&item)]})).await;
    editor.notify("$/cancelRequest", json!({"id": id})).await;
    let answer = editor.response(id).await;
    assert_eq!(answer["error"]["code"], json!(-32800), "{answer}");
    // Every hypothetical text FSAC was shown is closed again.
    let received = received_by_fsac(&transcript);
    let opened: Vec<String> = received
        .iter()
        .filter(|message| carries_a_what_if_text(message))
        .filter_map(|message| message["params"]["textDocument"]["uri"].as_str().map(str::to_owned))
        .collect();
    assert!(!opened.is_empty());
    for uri in opened {
        closed_after_its_what_if_open(&transcript, &uri).await;
    }
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "the real texts again: {answer}");
    editor.stop().await;
}

/// A session client that leaves (its connection drops) while its what-if runs: the command is
/// aborted and FSAC's view restored, as for a cancel. Before, the hypothetical texts stayed.
#[tokio::test]
async fn a_session_client_leaving_mid_what_if_restores_fsacs_view() {
    use fslens::lsp::codec::write_frame;
    use fslens::lsp::message::{Message, RequestId};
    let TranscribedRun { workspace, _runtime, transcript, mut editor } = TranscribedRun::start().await;
    let socket =
        fslens::session::socket_path(&_runtime.path().join("fslens"), &workspace.path().canonicalize().unwrap());
    let mut client = tokio::net::UnixStream::connect(&socket).await.expect("the editor's session serves the socket");
    let item = std::fs::read_to_string(workspace.path().join("Catalog/Item.fs")).unwrap();
    let requests = [
        Message::request(RequestId::Number(1), "initialize", json!({"capabilities": {}})),
        Message::request(
            RequestId::Number(2),
            "workspace/executeCommand",
            json!({"command": "fslens.check", "arguments": [{"edits": [price_becomes_string(&item)]}]}),
        ),
    ];
    for request in requests {
        write_frame(&mut client, request.bytes()).await.unwrap();
    }
    wait_for_transcript(&transcript, received_by_fsac, "a what-if text", carries_a_what_if_text).await;
    drop(client);
    for file in ["Catalog/Item.fs", "Orders/Order.fs"] {
        let uri = fslens::uri::path_to_uri(&workspace.path().join(file)).unwrap();
        if received_by_fsac(&transcript)
            .iter()
            .any(|message| message["params"]["textDocument"]["uri"] == json!(uri) && carries_a_what_if_text(message))
        {
            closed_after_its_what_if_open(&transcript, &uri).await;
        }
    }
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "the real texts again: {answer}");
    editor.stop().await;
}

#[tokio::test]
async fn a_timed_out_what_if_restores_too() {
    let TranscribedRun { workspace, _runtime, transcript, mut editor } = TranscribedRun::start().await;
    let item = std::fs::read_to_string(workspace.path().join("Catalog/Item.fs")).unwrap();
    let answer = check(&mut editor, json!({"edits": [price_becomes_string(&item)], "timeoutMs": 0})).await;
    assert_eq!(answer["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("timeout"), "{answer}");
    assert_eq!(answer["whatIf"]["restored"], json!(true), "{answer}");
    for file in ["Catalog/Item.fs", "Orders/Order.fs"] {
        let uri = fslens::uri::path_to_uri(&workspace.path().join(file)).unwrap();
        closed_after_its_what_if_open(&transcript, &uri).await;
    }
    let answer = check(&mut editor, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "the real texts again: {answer}");
    editor.stop().await;
}

/// Waits until FSAC was sent a `didClose` of `uri` after its last what-if `didOpen`.
async fn closed_after_its_what_if_open(transcript: &Path, uri: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let received = received_by_fsac(transcript);
        let about = |message: &Value| message["params"]["textDocument"]["uri"] == json!(uri);
        let opened = received.iter().rposition(|message| about(message) && carries_a_what_if_text(message));
        let closed =
            received.iter().rposition(|message| about(message) && message["method"] == "textDocument/didClose");
        if opened.is_some() && closed > opened {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{uri} was never closed after the what-if: {received:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn fsac_crashing_during_a_what_if_restarts_with_the_editors_texts() {
    // The double holds its check of a hypothetical text long enough for FSAC to die during it
    // (without the hold, a fast check can answer the what-if before the kill).
    let from_version = WHAT_IF_VERSION_BASE.to_string();
    let switches =
        [("FSAC_DOUBLE_SLOW_CHECK_FROM_VERSION", from_version.as_str()), ("FSAC_DOUBLE_SLOW_CHECK_MS", "60000")];
    let TranscribedRun { workspace, _runtime, transcript, mut editor } = TranscribedRun::start_with(&switches).await;
    let item_path = workspace.path().join("Catalog/Item.fs");
    let item = std::fs::read_to_string(&item_path).unwrap();
    let uri = editor.open(&item_path, 1).await;
    let status = editor.execute(Command::Status, json!({})).await;
    let pid = status["result"]["fsac"]["pid"].as_u64().unwrap();
    let id = start_what_if(&mut editor, &transcript, json!({"edits": [price_becomes_string(&item)]})).await;
    // An editor edit to the touched buffer, held while the what-if runs, then FSAC dies.
    let edited = format!("{item}// kept\n");
    editor.change(&uri, 2, &edited).await;
    std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    let answer = editor.response(id).await;
    let answer = answer.get("result").cloned().unwrap_or_else(|| panic!("what-if failed: {answer}"));
    assert_eq!(answer["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("fsac_restarted"), "{answer}");
    editor.wait_until_ready().await;
    // The restarted FSAC got the editor's text at the editor's version, never the hypothesis.
    let replayed = wait_for_transcript(&transcript, received_by_fsac, "the replayed buffer", |message| {
        message["method"] == "textDocument/didOpen" && message["params"]["textDocument"]["version"] == json!(2)
    })
    .await;
    assert_eq!(replayed["params"]["textDocument"]["text"], json!(edited));
    let answer = check(&mut editor, json!({"path": "Catalog/Item.fs"})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["files"][0]["version"], json!(2), "{answer}");
    editor.stop().await;
}

#[test]
fn the_cli_reads_the_edits_from_a_json_file_or_standard_input() {
    let workspace = fixture_copy("what-if");
    let runtime = tempfile::tempdir().unwrap();
    let item = std::fs::read_to_string(workspace.path().join("Catalog/Item.fs")).unwrap();
    let disk_before = disk_bytes(workspace.path());
    let edits_file = runtime.path().join("edits.json");
    std::fs::write(&edits_file, json!([price_becomes_string(&item)]).to_string()).unwrap();
    let run = |edits: &str, stdin: Option<&str>| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args(["check", "--json", "--timeout-ms", "60000", "--fsac", &double_command(), "--edits", edits])
            .arg("--workspace")
            .arg(workspace.path())
            .env("XDG_RUNTIME_DIR", runtime.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(text) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        }
        drop(child.stdin.take());
        let output = child.wait_with_output().unwrap();
        let answer: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&output.stdout)));
        (output.status.code(), answer)
    };
    let (code, answer) = run(&edits_file.to_string_lossy(), None);
    assert_eq!(code, Some(1), "errors exit with 1: {answer}");
    assert_eq!(answer["verdict"], json!("errors"), "{answer}");
    assert_eq!(answer["delta"]["introduced"].as_array().unwrap().len(), 1, "{answer}");
    let fixed = json!([{"path": "Catalog/Item.fs", "text": item.replace("let label", "/// The name.\nlet label")}]);
    let (code, answer) = run("-", Some(&fixed.to_string()));
    assert_eq!(code, Some(0), "clean exits with 0: {answer}");
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(disk_bytes(workspace.path()), disk_before, "disk is never written");
}
