//! `fslens.find` gives FSAC the references requests of a multi-declaration sweep side by
//! side, not one after another: against a scripted FSAC that answers nothing until it has
//! seen two of them, a sequential sweep never sends the second (the test fails on the
//! harness's receive timeout), while the concurrent one shows both and then gets both answers
//! into one result.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::Harness;
use support::double::fixture_copy;

#[tokio::test]
async fn a_sweep_over_several_declarations_sends_their_references_requests_together() {
    let workspace = fixture_copy("shipping");
    let root = workspace.path();
    let mut harness = Harness::start_in(root);
    let mut backend = harness.ready_backend().await;

    // Two records declare `Weight` (Shipment and Parcel): two declarations to sweep.
    let find =
        harness.start_command("fslens.find", json!({ "kind": "field", "query": "Weight", "timeoutMs": 30000 })).await;

    let mut references: Vec<Value> = Vec::new();
    let collected = tokio::time::timeout(Duration::from_secs(20), async {
        while references.len() < 2 {
            let message = backend.peer.recv().await;
            match message["method"].as_str() {
                Some("textDocument/references") => references.push(message),
                Some("workspace/symbol") => {
                    backend.peer.send(json!({ "jsonrpc": "2.0", "id": message["id"], "result": [] })).await;
                }
                Some(_) if message.get("id").is_some() => {
                    backend.peer.send(json!({ "jsonrpc": "2.0", "id": message["id"], "result": null })).await;
                }
                _ => {}
            }
        }
    })
    .await;
    assert!(collected.is_ok(), "FSAC saw {} references request(s) before answering any", references.len());
    let positions: Vec<(u64, u64)> = references
        .iter()
        .map(|request| {
            let position = &request["params"]["position"];
            (position["line"].as_u64().unwrap(), position["character"].as_u64().unwrap())
        })
        .collect();
    assert_ne!(positions[0], positions[1], "two different declarations: {positions:?}");

    // Each declaration's references are its own declaration site.
    for request in &references {
        let location = json!({ "uri": request["params"]["textDocument"]["uri"], "range": {
            "start": request["params"]["position"],
            "end": { "line": request["params"]["position"]["line"], "character": request["params"]["position"]["character"].as_u64().unwrap() + 6 },
        }});
        backend.peer.send(json!({ "jsonrpc": "2.0", "id": request["id"], "result": [location] })).await;
    }
    let answer = loop {
        tokio::select! {
            answer = harness.response(&find) => break answer,
            message = backend.peer.recv() => {
                if message.get("id").is_some() && message.get("method").is_some() {
                    backend.peer.send(json!({ "jsonrpc": "2.0", "id": message["id"], "result": null })).await;
                } else if message["method"] == "textDocument/didOpen" {
                    // As FSAC does, a file opened is checked: no errors in it. (The find has a
                    // file holding an occurrence no site covers analysed before it says complete.)
                    let document = &message["params"]["textDocument"];
                    backend.peer.send(json!({ "jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                        "params": { "uri": document["uri"], "diagnostics": [] } })).await;
                    backend.peer.send(json!({ "jsonrpc": "2.0", "method": "fsharp/documentAnalyzed",
                        "params": { "textDocument": { "uri": document["uri"], "version": document["version"] } } })).await;
                }
            }
        }
    };
    let result = &answer["result"];
    assert_eq!(result["coverage"]["declarationsSwept"], json!(2), "{answer:#}");
    assert_eq!(result["coverage"]["complete"], json!(true), "{answer:#}");
    let definitions = result["sites"].as_array().unwrap().iter().filter(|site| site["kind"] == "definition").count();
    assert_eq!(definitions, 2, "{answer:#}");
    harness.finish(Some(backend)).await;
}
