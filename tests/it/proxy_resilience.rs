//! Crash recovery and hang detection of the proxy core, in memory.

use crate::support;

use std::time::Duration;

use fslens::proxy::supervisor::RestartPolicy;
use serde_json::{Value, json};
use support::{Harness, HarnessOptions, ScriptedBackend};

async fn initialized_session(harness: &mut Harness) -> ScriptedBackend {
    let initialize = harness
        .request("initialize", json!({"capabilities": {}, "initializationOptions": {"AutomaticWorkspaceInit": false}}))
        .await;
    let mut backend = harness.backend().await;
    backend.answer_initialize().await;
    harness.response(&initialize).await;
    harness.notify("initialized", json!({"from": "editor"})).await;
    harness.notify("workspace/didChangeConfiguration", json!({"settings": {"FSharp": {"Linter": true}}})).await;
    backend
}

fn did_change(uri: &str, version: i64, text: &str) -> Value {
    json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
}

#[tokio::test]
async fn a_crashed_fsac_is_restarted_and_gets_the_session_replayed() {
    let mut harness = Harness::start();
    let mut backend = initialized_session(&mut harness).await;
    let load = harness.request("fsharp/workspaceLoad", json!({"textDocuments": [{"uri": "file:///w/A.fsproj"}]})).await;
    let forwarded = backend.peer.recv_method("fsharp/workspaceLoad").await;
    backend.peer.send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"content": "{}"}})).await;
    harness.response(&load).await;
    for (uri, text) in [("file:///w/B.fs", "module B"), ("file:///w/A%20x.fs", "module A")] {
        harness.open_document(uri, text).await;
    }
    harness.notify("textDocument/didChange", did_change("file:///w/B.fs", 7, "module B\nlet x = 1")).await;
    let pending = harness.request("textDocument/hover", json!({})).await;
    backend.peer.recv_method("textDocument/hover").await;

    backend.die(Some(137), "killed").await;
    assert_eq!(harness.response(&pending).await["error"]["data"]["errorKind"], json!("fsac_exited"));
    // Edits made while FSAC is down land in the mirror and reach the new FSAC.
    harness.notify("textDocument/didChange", did_change("file:///w/B.fs", 8, "module B\nlet x = 2")).await;

    let mut restarted = harness.backend().await;
    let initialize = restarted.peer.recv_method("initialize").await;
    assert!(initialize["id"].as_str().unwrap().starts_with("fslens:"), "{initialize}");
    assert_eq!(initialize["params"]["initializationOptions"], json!({"AutomaticWorkspaceInit": false}));
    restarted.peer.send(json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {"capabilities": {}}})).await;
    let mut replayed = Vec::new();
    while replayed.len() < 5 {
        replayed.push(restarted.peer.recv().await);
    }
    let methods: Vec<&str> = replayed.iter().map(|message| message["method"].as_str().unwrap()).collect();
    assert_eq!(
        methods,
        [
            "initialized",
            "workspace/didChangeConfiguration",
            "fsharp/workspaceLoad",
            "textDocument/didOpen",
            "textDocument/didOpen"
        ]
    );
    assert_eq!(replayed[0]["params"], json!({"from": "editor"}));
    assert_eq!(replayed[2]["params"]["textDocuments"][0]["uri"], json!("file:///w/A.fsproj"));
    let opened: Vec<(Value, Value, Value)> = replayed[3..]
        .iter()
        .map(|open| {
            let document = &open["params"]["textDocument"];
            (document["uri"].clone(), document["version"].clone(), document["text"].clone())
        })
        .collect();
    assert_eq!(
        opened,
        vec![
            (json!("file:///w/A%20x.fs"), json!(1), json!("module A")),
            (json!("file:///w/B.fs"), json!(8), json!("module B\nlet x = 2")),
        ]
    );
    // Requests work again, and the editor was told what happened.
    let hover = harness.request("textDocument/hover", json!({})).await;
    let forwarded = restarted.peer.recv_method("textDocument/hover").await;
    restarted.peer.send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": null})).await;
    assert_eq!(harness.response(&hover).await["result"], Value::Null);
    let messages: Vec<String> =
        harness.received.iter().filter_map(|m| m["params"]["message"].as_str().map(str::to_owned)).collect();
    assert!(messages.iter().any(|text| text.contains("restarts it")), "{messages:?}");
    assert!(messages.iter().any(|text| text.contains("FSAC restarted")), "{messages:?}");
    let status = harness.execute("fslens.status", json!({})).await;
    assert_eq!(status["result"]["fsac"]["generation"], json!(2));
    assert_eq!(status["result"]["supervisor"]["restarts"], json!(1));
    harness.finish(Some(restarted)).await;
}

#[tokio::test]
async fn a_crash_loop_stops_restarts_until_the_user_asks() {
    let policy = RestartPolicy {
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(10),
        window: Duration::from_secs(180),
        max_crashes_in_window: 5,
    };
    let mut harness = Harness::start_with(HarnessOptions { restart_policy: policy, ..HarnessOptions::default() });
    let backend = initialized_session(&mut harness).await;
    backend.die(Some(3), "").await;
    for _ in 0..5 {
        let mut restarted = harness.backend().await;
        let initialize = restarted.peer.recv_method("initialize").await;
        restarted.peer.send(json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {"capabilities": {}}})).await;
        restarted.peer.recv_method("initialized").await;
        restarted.die(Some(3), "").await;
    }
    // The sixth crash in the window: no seventh FSAC.
    let status = loop {
        let status = harness.execute("fslens.status", json!({})).await;
        if status["result"]["supervisor"]["stopped"] == json!(true) {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(status["result"]["state"], json!("crashed"));
    assert!(status["result"]["reason"].as_str().unwrap().contains("stopped restarting"), "{status}");
    assert_eq!(status["result"]["supervisor"]["crashesInWindow"], json!(6));
    let shown =
        harness.received.iter().filter(|m| m["method"] == "window/showMessage" && m["params"]["type"] == 1).count();
    assert_eq!(shown, 1, "one error message for the crash loop");
    tokio::time::sleep(Duration::from_millis(100)).await;
    // An argument restart does not take is refused by name, and restarts nothing.
    let refused = harness.execute("fslens.restart", json!({"force": true})).await;
    assert_eq!(refused["error"]["data"]["argument"], json!("force"), "{refused}");
    let restart = harness.execute("fslens.restart", json!({})).await;
    assert_eq!(restart["result"]["restarting"], json!(true), "{restart}");
    let mut restarted = harness.backend().await;
    let initialize = restarted.peer.recv_method("initialize").await;
    restarted.peer.send(json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {"capabilities": {}}})).await;
    restarted.peer.recv_method("initialized").await;
    harness.finish(Some(restarted)).await;
}

#[tokio::test]
async fn a_silent_fsac_is_reported_unresponsive_and_recovers_when_it_answers() {
    let mut harness = Harness::start_with(HarnessOptions {
        unresponsive_after: Duration::from_millis(300),
        ..HarnessOptions::default()
    });
    let mut backend = initialized_session(&mut harness).await;
    let hover = harness.request("textDocument/hover", json!({})).await;
    let forwarded = backend.peer.recv_method("textDocument/hover").await;
    let status = loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let status = harness.execute("fslens.status", json!({})).await;
        if status["result"]["unresponsive"] == json!(true) {
            break status;
        }
    };
    assert!(status["result"]["silentForMs"].as_u64().unwrap() >= 300);
    backend.peer.send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": null})).await;
    harness.response(&hover).await;
    let status = harness.execute("fslens.status", json!({})).await;
    assert_eq!(status["result"]["unresponsive"], json!(false));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn a_command_waiting_on_a_hung_fsac_is_answered_within_its_deadline() {
    let mut harness = Harness::start();
    let mut backend = initialized_session(&mut harness).await;
    let started = std::time::Instant::now();
    let status = harness.execute("fslens.status", json!({"probe": true, "timeoutMs": 300})).await;
    // The hung FSAC never answers, so any answer came from the deadline. The bound only tells
    // the 300 ms asked for from the 60 s default (past the harness's own 30 s wait); it is loose
    // so that a loaded 2-core machine cannot fail it.
    assert!(started.elapsed() < Duration::from_secs(20), "answered after {:?}", started.elapsed());
    assert_eq!(status["result"]["probe"]["timedOut"], json!(true), "{status}");
    let ping = backend.peer.recv_method("fslens/ping").await;
    let cancel = backend.peer.recv_method("$/cancelRequest").await;
    assert_eq!(cancel["params"]["id"], ping["id"]);
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn the_editors_late_answer_to_an_exited_fsac_never_reaches_the_next_one() {
    let mut harness = Harness::start();
    let mut backend = initialized_session(&mut harness).await;
    // FSAC asks the editor something, then dies before the editor answers.
    let ask = |value: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "window/workDoneProgress/create", "params": {"token": value}});
    backend.peer.send(ask("old")).await;
    let old = harness.editor.recv_until(|message| message["method"] == "window/workDoneProgress/create").await.0;
    backend.die(Some(3), "").await;
    let mut restarted = harness.backend().await;
    let initialize = restarted.peer.recv_method("initialize").await;
    restarted.peer.send(json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {"capabilities": {}}})).await;
    restarted.peer.recv_method("workspace/didChangeConfiguration").await;
    // The new FSAC numbers its requests from 1 again.
    restarted.peer.send(ask("new")).await;
    let new = harness.editor.recv_until(|message| message["params"]["token"] == "new").await.0;
    assert_ne!(new["id"], old["id"], "the editor would see two requests with one id");
    // The editor answers both; the new FSAC gets only the answer to its own, under its own id.
    harness.editor.send(json!({"jsonrpc": "2.0", "id": old["id"], "result": "for the old FSAC"})).await;
    harness.editor.send(json!({"jsonrpc": "2.0", "id": new["id"], "result": "for the new FSAC"})).await;
    let answer = restarted.peer.recv_until(|message| message.get("method").is_none()).await.0;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 1, "result": "for the new FSAC"}));
    harness.finish(Some(restarted)).await;
}
