//! End-to-end tests of the proxy core in memory: the real main loop between a test-driven
//! editor and scripted FSAC backends.

use crate::support;

use serde_json::{Value, json};
use support::{Harness, HarnessOptions};

#[tokio::test]
async fn initialize_is_completed_for_fsac_and_advertises_fslens_commands() {
    let mut harness = Harness::start();
    let id = harness
        .request("initialize", json!({"processId": 1, "rootUri": "file:///w", "capabilities": {"window": {}}}))
        .await;
    let mut backend = harness.backend().await;
    let params = backend.answer_initialize().await;
    assert_eq!(params["capabilities"]["textDocument"]["publishDiagnostics"], json!({}));
    assert_eq!(params["initializationOptions"], json!({"AutomaticWorkspaceInit": true}));
    assert_eq!(params["capabilities"]["window"], json!({}), "the editor's own capabilities are kept");
    let response = harness.response(&id).await;
    let commands = &response["result"]["capabilities"]["executeCommandProvider"]["commands"];
    assert!(commands.as_array().unwrap().contains(&json!("fslens.status")), "{response}");
    assert_eq!(response["result"]["capabilities"]["hoverProvider"], json!(true));
    assert_eq!(response["result"]["serverInfo"]["name"], json!("FsAutoComplete"));
    let end = harness.finish(Some(backend)).await;
    assert_eq!(end.exit_code, 0);
}

#[tokio::test]
async fn ten_thousand_did_change_arrive_at_fsac_in_order_after_the_mirror() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let uri = "file:///w/Burst.fs";
    harness
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": 0, "text": ""}}),
        )
        .await;
    // The editor writes the burst while the test reads FSAC's side concurrently.
    let editor = &mut harness;
    let writer = async {
        for version in 1..=10_000 {
            editor
                .notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]}))
                .await;
        }
    };
    let reader = async {
        let mut versions = Vec::with_capacity(10_000);
        while versions.len() < 10_000 {
            let message = backend.peer.recv().await;
            if message["method"] == "textDocument/didChange" {
                versions.push(message["params"]["textDocument"]["version"].as_i64().unwrap());
            }
        }
        versions
    };
    let ((), versions) = tokio::join!(writer, reader);
    assert_eq!(versions, (1..=10_000).collect::<Vec<_>>());
    let status = harness.execute("fslens.status", json!({})).await;
    assert_eq!(status["result"]["openDocuments"], json!([{"uri": uri, "version": 10_000, "analyzedVersion": null}]));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn unknown_methods_round_trip_byte_for_byte_both_ways() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;

    // Odd spacing, key order, escapes and number spellings must survive untouched.
    let request = br#"{"jsonrpc":"2.0", "id" : 77,"method":"fsharp/futureThing","params":{"z":1.50,"a":"\u00e9\n","n":[1e3, -0.0]}}"#;
    harness.editor.send_raw(request).await;
    assert_eq!(backend.peer.recv_raw().await.unwrap(), request.to_vec());
    let response = br#"{"jsonrpc":"2.0","id":77,"result":{"Kind" : "x","Data":[1.0]}}"#;
    backend.peer.send_raw(response).await;
    let (forwarded, _) = harness.editor.recv_until(|message| message["id"] == 77).await;
    assert_eq!(
        serde_json::to_vec(&forwarded).unwrap(),
        serde_json::to_vec(&serde_json::from_slice::<Value>(response).unwrap()).unwrap()
    );

    let notification = br#"{"jsonrpc":"2.0","method":"custom/editorThing","params":{ "k": [true,null] }}"#;
    harness.editor.send_raw(notification).await;
    assert_eq!(backend.peer.recv_raw().await.unwrap(), notification.to_vec());
    let from_fsac =
        br#"{"jsonrpc":"2.0","method":"fsharp/testDetected","params":{"file":"file:///a%20b.fs","tests":[]}}"#;
    backend.peer.send_raw(from_fsac).await;
    assert_eq!(harness.editor.recv_raw().await.unwrap(), from_fsac.to_vec());
    // The raw request went around the harness's tally: its single answer was read above.
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn server_to_client_requests_reach_the_editor_and_answers_return() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    backend
        .peer
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "window/workDoneProgress/create", "params": {"token": "t"}}))
        .await;
    let request = harness.editor.recv_method("window/workDoneProgress/create").await;
    assert_eq!(request["id"], json!(5));
    harness.editor.send(json!({"jsonrpc": "2.0", "id": 5, "result": null})).await;
    let answer = backend.peer.recv_until(|message| message.get("method").is_none()).await.0;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 5, "result": null}));
    // A second answer to the same request is not forwarded.
    harness.editor.send(json!({"jsonrpc": "2.0", "id": 5, "result": null})).await;
    harness.notify("custom/marker", json!({})).await;
    let next = backend.peer.recv().await;
    assert_eq!(next["method"], "custom/marker", "duplicate answer leaked: {next}");
    harness.finish(Some(backend)).await;
}

/// FSAC's `test/processWaitingForDebugger` (a test run with `attachDebugger: true`) reaches an
/// editor that can attach a debugger; a session whose editor is fslens's own CLI or MCP bridge
/// has nobody to attach one, so fslens answers `false` itself at once and FSAC's test host runs
/// on (docs/commands.md, `fslens.runTests`).
#[tokio::test]
async fn a_headless_session_answers_fsacs_debugger_request_false_itself() {
    for client in fslens::lsp::ext::headless_clients::ALL {
        let mut harness = Harness::start();
        let initialize = harness
            .request("initialize", json!({"capabilities": {}, "clientInfo": {"name": client, "version": "1"}}))
            .await;
        let mut backend = harness.backend().await;
        backend.answer_initialize().await;
        harness.response(&initialize).await;
        let method = fslens::lsp::ext::fsac_requests::PROCESS_WAITING_FOR_DEBUGGER;
        backend.peer.send(json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": {"content": "4242"}})).await;
        let answer = backend.peer.recv_until(|message| message.get("method").is_none()).await.0;
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 9, "result": false}), "{client}");
        // The editor never saw the request: the next thing it gets is what FSAC sends next.
        backend.peer.send(json!({"jsonrpc": "2.0", "method": "custom/marker", "params": {}})).await;
        let (_, before) = harness.editor.recv_until(|message| message["method"] == json!("custom/marker")).await;
        assert!(!before.iter().any(|message| message["method"] == json!(method)), "{client}: {before:?}");
        harness.finish(Some(backend)).await;
    }

    // An editor's session forwards it, and the editor's answer goes back to FSAC.
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let method = fslens::lsp::ext::fsac_requests::PROCESS_WAITING_FOR_DEBUGGER;
    backend.peer.send(json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": {"content": "4242"}})).await;
    let request = harness.editor.recv_method(method).await;
    assert_eq!(request["params"], json!({"content": "4242"}));
    harness.editor.send(json!({"jsonrpc": "2.0", "id": 9, "result": true})).await;
    let answer = backend.peer.recv_until(|message| message.get("method").is_none()).await.0;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 9, "result": true}));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn cancel_reaches_fsac_with_the_editors_id() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    harness.request_with_id(json!("editor-7"), "textDocument/references", json!({})).await;
    let forwarded = backend.peer.recv_method("textDocument/references").await;
    assert_eq!(forwarded["id"], json!("editor-7"));
    harness.notify("$/cancelRequest", json!({"id": "editor-7"})).await;
    let cancel = backend.peer.recv_method("$/cancelRequest").await;
    assert_eq!(cancel["params"], json!({"id": "editor-7"}));
    backend
        .peer
        .send(json!({"jsonrpc": "2.0", "id": "editor-7", "error": {"code": -32800, "message": "cancelled"}}))
        .await;
    let response = harness.response(&json!("editor-7")).await;
    assert_eq!(response["error"]["code"], json!(-32800));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn cancelling_a_proxy_command_aborts_it_and_cancels_its_fsac_requests() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let id = harness
        .request("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{"probe": true}]}))
        .await;
    let ping = backend.peer.recv_method("fslens/ping").await;
    let ping_id = ping["id"].as_str().unwrap().to_owned();
    assert!(ping_id.starts_with("fslens:"), "proxy ids are namespaced: {ping_id}");
    harness.notify("$/cancelRequest", json!({"id": id})).await;
    let response = harness.response(&id).await;
    assert_eq!(response["error"]["code"], json!(-32800), "{response}");
    let cancel = backend.peer.recv_method("$/cancelRequest").await;
    assert_eq!(cancel["params"]["id"], json!(ping_id));
    // FSAC's late answer to the cancelled probe goes nowhere.
    backend
        .peer
        .send(json!({"jsonrpc": "2.0", "id": ping_id, "error": {"code": -32800, "message": "cancelled"}}))
        .await;
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn status_probe_reports_a_live_fsac() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let id = harness
        .request("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{"probe": true}]}))
        .await;
    let ping = backend.peer.recv_method("fslens/ping").await;
    backend
        .peer
        .send(json!({"jsonrpc": "2.0", "id": ping["id"], "error": {"code": -32601, "message": "Method not found"}}))
        .await;
    let response = harness.response(&id).await;
    assert_eq!(response["result"]["probe"]["alive"], json!(true), "{response}");
    assert_eq!(response["result"]["fsac"]["pid"], json!(4242));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn fsac_dying_mid_request_answers_every_pending_request() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let mut pending = Vec::new();
    for method in ["textDocument/hover", "textDocument/references", "fsharp/signature"] {
        pending.push(harness.request(method, json!({})).await);
    }
    let status_wait = harness
        .request("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{"probe": true}]}))
        .await;
    backend.peer.recv_method("fslens/ping").await;
    backend.die(Some(3), "Unhandled exception. System.OutOfMemoryException\n").await;
    for id in &pending {
        let response = harness.response(id).await;
        assert_eq!(response["error"]["code"], json!(-32803), "{response}");
        assert!(response["error"]["message"].as_str().unwrap().contains("exit code 3"), "{response}");
    }
    let status = harness.response(&status_wait).await;
    assert_eq!(status["result"]["probe"]["alive"], json!(false), "{status}");
    // Later requests fail at once with a reason instead of hanging.
    let later = harness.request("textDocument/hover", json!({})).await;
    let response = harness.response(&later).await;
    assert_eq!(response["error"]["data"]["errorKind"], json!("fsac_unavailable"));
    let status = harness.execute("fslens.status", json!({})).await;
    assert_eq!(status["result"]["state"], json!("crashed"));
    assert!(status["result"]["fsac"]["stderrTail"].as_str().unwrap().contains("OutOfMemory"));
    harness.finish(None).await;
}

#[tokio::test]
async fn early_fsac_exit_fails_initialize_with_its_stderr() {
    let mut harness = Harness::start();
    let id = harness.request("initialize", json!({"capabilities": {}})).await;
    let mut backend = harness.backend().await;
    backend.peer.recv_method("initialize").await;
    backend
        .die(
            Some(1),
            "A compatible .NET SDK was not found.\nRequested SDK version: 99.0.100\nglobal.json file: /w/global.json\n",
        )
        .await;
    let response = harness.response(&id).await;
    let error = &response["error"];
    assert_eq!(error["data"]["errorKind"], json!("fsac_startup_failed"), "{response}");
    assert_eq!(error["data"]["exitCode"], json!(1));
    assert!(error["message"].as_str().unwrap().contains("Requested SDK version: 99.0.100"), "{response}");
    assert!(error["data"]["stderrTail"].as_str().unwrap().contains("A compatible .NET SDK was not found."));
    harness.finish(None).await;
}

#[tokio::test]
async fn without_fsac_initialize_succeeds_and_requests_fail_clearly() {
    let mut harness = Harness::start_with(HarnessOptions { with_backend: false, ..HarnessOptions::default() });
    let response = harness.initialize(None).await;
    assert_eq!(response["result"]["serverInfo"]["name"], json!("fslens"));
    let hover = harness.request("textDocument/hover", json!({})).await;
    let response = harness.response(&hover).await;
    assert_eq!(response["error"]["data"]["errorKind"], json!("fsac_unavailable"));
    assert!(response["error"]["message"].as_str().unwrap().contains("no FSAC found (test)"));
    let status = harness.execute("fslens.status", json!({"waitUntil": "ready", "timeoutMs": 5000})).await;
    assert_eq!(status["result"]["state"], json!("absent"));
    assert_eq!(status["result"]["wait"]["satisfied"], json!(false), "waiting cannot help without FSAC");
    harness.finish(None).await;
}

#[tokio::test]
async fn a_failing_launch_fails_initialize_with_the_reason() {
    let mut harness = Harness::start_with(HarnessOptions {
        fail_launch: Some("no such file: fsautocomplete".into()),
        ..HarnessOptions::default()
    });
    let id = harness.request("initialize", json!({"capabilities": {}})).await;
    let response = harness.response(&id).await;
    assert!(response["error"]["message"].as_str().unwrap().contains("no such file"), "{response}");
    harness.finish(None).await;
}

#[tokio::test]
async fn readiness_follows_fsac_and_waiting_status_answers_when_ready() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let waiting = harness
        .request("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{"waitUntil": "ready"}]}))
        .await;
    let notify = |kind: &str, data: Value| json!({"jsonrpc": "2.0", "method": "fsharp/notifyWorkspace", "params": {"content": json!({"Kind": kind, "Data": data}).to_string()}});
    backend.peer.send(notify("projectLoading", json!({"Project": "/w/A.fsproj"}))).await;
    backend.peer.send(notify("project", json!({"Project": "/w/A.fsproj"}))).await;
    backend.peer.send(notify("workspaceLoad", json!({"Status": "finished"}))).await;
    let response = harness.response(&waiting).await;
    assert_eq!(response["result"]["state"], json!("ready"), "{response}");
    assert_eq!(response["result"]["wait"]["satisfied"], json!(true));
    assert_eq!(response["result"]["projectsLoaded"], json!(["/w/A.fsproj"]));
    // FSAC's notifications still reached the editor, and the proxy announced the change.
    let methods: Vec<&str> = harness.received.iter().filter_map(|message| message["method"].as_str()).collect();
    assert_eq!(methods.iter().filter(|method| **method == "fsharp/notifyWorkspace").count(), 3, "{methods:?}");
    assert!(methods.contains(&"fslens/status"));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn bad_frames_from_the_editor_get_errors_and_the_session_goes_on() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let mut body = br#"{"jsonrpc":"2.0","id":900,"method":"textDocument/hover","params":{"x":""#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe]);
    body.extend_from_slice(br#""}}"#);
    harness.editor.send_raw(&body).await;
    harness.editor.send_raw(b"{not json").await;
    harness.editor.send_bytes_unframed(b"Content-Length: -1\r\n\r\n").await;
    let response = harness.editor.recv().await;
    assert_eq!(response["id"], json!(900));
    assert_eq!(response["error"]["code"], json!(-32700));
    let id = harness.request("textDocument/hover", json!({})).await;
    let forwarded = backend.peer.recv_method("textDocument/hover").await;
    backend.peer.send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": null})).await;
    assert_eq!(harness.response(&id).await["result"], Value::Null);
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn garbage_from_fsac_is_skipped() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let id = harness.request("textDocument/hover", json!({})).await;
    let forwarded = backend.peer.recv_method("textDocument/hover").await;
    backend.peer.send_bytes_unframed(b"Content-Length: 5\r\n\r\n{{{{{garbage line\r\n").await;
    backend.peer.send(json!({"jsonrpc": "2.0", "id": forwarded["id"], "result": {"contents": []}})).await;
    assert_eq!(harness.response(&id).await["result"], json!({"contents": []}));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn invalid_command_arguments_name_the_argument() {
    let mut harness = Harness::start_with(HarnessOptions { with_backend: false, ..HarnessOptions::default() });
    harness.initialize(None).await;
    let response = harness.execute("fslens.status", json!({"waitUntil": "soon"})).await;
    assert_eq!(response["error"]["code"], json!(-32602));
    assert_eq!(response["error"]["data"], json!({"errorKind": "invalid_argument", "argument": "waitUntil"}));
    let id =
        harness.request("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [1, 2]})).await;
    let response = harness.response(&id).await;
    assert_eq!(response["error"]["data"]["argument"], json!("arguments"));
    harness.finish(None).await;
}

#[tokio::test]
async fn end_of_editor_input_ends_the_session_and_fsac() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    harness.editor.close().await;
    // FSAC sees its input end (so it can exit by itself); here it does not, and is killed.
    loop {
        if backend.peer.recv_raw().await.is_none() {
            break;
        }
    }
    let killed = tokio::time::timeout(support::TIMEOUT, &mut backend.killed).await;
    assert!(killed.is_ok(), "FSAC was not killed after the grace period");
    let end = harness.finish_without_shutdown().await;
    assert_eq!(end.exit_code, 1, "end of input without shutdown");
}

#[tokio::test]
async fn outline_answers_from_the_editors_unsaved_buffer_without_fsac() {
    let workspace = support::double::fixture_copy("shipping");
    let mut harness = Harness::start_with(HarnessOptions {
        with_backend: false,
        workspace_root: Some(workspace.path().to_owned()),
        ..HarnessOptions::default()
    });
    harness.initialize(None).await;
    let path = workspace.path().join("src/Shipping.Domain/Operations.fs");
    let uri = fslens::uri::path_to_uri(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap() + "\nlet addedOnlyInTheBuffer x = x + 1\n";
    harness.open_document(&uri, &text).await;
    let answer = harness
        .execute("fslens.outline", json!({"path": "src/Shipping.Domain/Operations.fs", "summaryOnly": false}))
        .await;
    let rendered = answer["result"].to_string();
    assert!(rendered.contains("addedOnlyInTheBuffer"), "{answer}");
    assert_eq!(answer["result"]["via"], json!("syntax"), "{answer}");
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert!(!on_disk.contains("addedOnlyInTheBuffer"), "nothing is written to disk");
    harness.finish(None).await;
}

#[tokio::test]
async fn an_unknown_fslens_command_is_answered_by_fslens_and_never_forwarded() {
    let mut harness = Harness::start();
    let mut backend = harness.initialize_with_backend().await;
    let answer = harness.execute("fslens.findEverything", json!({})).await;
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert_eq!(answer["error"]["data"]["errorKind"], json!("invalid_argument"), "{answer}");
    assert_eq!(answer["error"]["data"]["argument"], json!("command"), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("fslens.findEverything") && message.contains("fslens.find,"), "{message}");
    // FSAC's next message is the one sent after: the unknown command never reached it.
    harness.request("fsharp/afterTheUnknownCommand", json!({})).await;
    let next = backend.peer.recv().await;
    assert_eq!(next["method"], json!("fsharp/afterTheUnknownCommand"), "{next}");
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn an_empty_array_argument_is_the_empty_object_as_neovim_sends_it() {
    let mut harness = Harness::start();
    let backend = harness.initialize_with_backend().await;
    // Neovim encodes the `{}` of `arguments = { {} }` as `[]`.
    let answer = harness.execute("fslens.status", json!([])).await;
    assert!(answer["result"]["state"].is_string(), "{answer}");
    harness.finish(Some(backend)).await;
}
