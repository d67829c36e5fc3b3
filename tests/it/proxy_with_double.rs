//! fslens in front of the FSAC double on the shipping fixture: real processes, real pipes,
//! real F# semantics. Expectations come from the fixture's `//>` markers.

use crate::support;
use fslens::commands::registry::Command;

use std::time::Duration;

use serde_json::{Value, json};
use support::double::{Editor, TRANSCRIPT_VARIABLE, double_command, fixture_copy, received_by_fsac};
use support::markers::{markers_of, read_markers};

async fn ready_editor(workspace: &std::path::Path, runtime: &std::path::Path) -> Editor {
    let mut editor = Editor::start(workspace, runtime, &double_command(), &[]).await;
    let status = editor.wait_until_ready().await;
    assert_eq!(status["result"]["projectsLoaded"].as_array().unwrap().len(), 3, "{status}");
    editor
}

#[tokio::test]
async fn diagnostics_hover_and_references_pass_through_the_proxy() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let markers = read_markers(workspace.path());
    let program = workspace.path().join("src/Shipping.App/Program.fs");
    let uri = editor.open(&program, 1).await;

    // Hover on a field read shows the field's type, computed by the compiler.
    let read = markers_of(&markers, "Shipping.Domain.Shipment.Weight")
        .into_iter()
        .find(|marker| marker.file == program && marker.kind == "read")
        .unwrap()
        .clone();
    let position = json!({"line": read.line, "character": read.character + 1});
    let hover = editor.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": position})).await;
    let signature = hover["result"]["contents"][0]["value"].as_str().unwrap_or_default().to_owned();
    assert!(signature.contains("Weight") && signature.contains("float"), "{hover}");

    // References of Shipment.Weight: exactly the marked sites, never Parcel.Weight's.
    let references = editor
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": position, "context": {"includeDeclaration": true}}),
        )
        .await;
    let mut found: Vec<(String, u64, u64)> = references["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{references}"))
        .iter()
        .map(|location| {
            let path = fslens::uri::uri_to_path(location["uri"].as_str().unwrap()).unwrap();
            let file =
                path.strip_prefix(workspace.path().canonicalize().unwrap()).unwrap_or(&path).display().to_string();
            (
                file,
                location["range"]["start"]["line"].as_u64().unwrap(),
                location["range"]["start"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    let root = workspace.path();
    let mut expected: Vec<(String, u64, u64)> = markers_of(&markers, "Shipping.Domain.Shipment.Weight")
        .iter()
        .map(|marker| {
            (marker.file.strip_prefix(root).unwrap().display().to_string(), marker.line as u64, marker.character as u64)
        })
        .collect();
    expected.sort();
    assert_eq!(found, expected);

    // A type error typed into the buffer (not saved) comes back as a diagnostic from FSAC.
    let broken = std::fs::read_to_string(&program)
        .unwrap()
        .replace("let s = create \"Books\" 12.5 \"Lyon\"", "let s = create \"Books\" \"heavy\" \"Lyon\"");
    editor
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}),
        )
        .await;
    let analyzed = editor
        .wait_for(|message| {
            message["method"] == "fsharp/documentAnalyzed" && message["params"]["textDocument"]["version"] == 2
        })
        .await;
    assert_eq!(analyzed["params"]["textDocument"]["uri"], json!(uri));
    let diagnostics: Vec<Value> = editor
        .notifications
        .iter()
        .filter(|message| {
            message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == json!(uri)
        })
        .cloned()
        .collect();
    let last = diagnostics.last().expect("diagnostics were published");
    let errors: Vec<&Value> =
        last["params"]["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == 1).collect();
    assert!(!errors.is_empty(), "{last}");
    assert_eq!(errors[0]["source"], json!("F# Compiler"));
    assert_eq!(errors[0]["code"], json!(1), "FS0001 type mismatch: {last}");
    assert_eq!(errors[0]["range"]["start"]["line"], json!(6));
    // The proxy's mirror and FSAC agree on the version.
    let status = editor.execute(Command::Status, json!({})).await;
    let document =
        status["result"]["openDocuments"].as_array().unwrap().iter().find(|d| d["uri"] == json!(uri)).unwrap().clone();
    assert_eq!((document["version"].clone(), document["analyzedVersion"].clone()), (json!(2), json!(2)));
    editor.stop().await;
}

#[tokio::test]
async fn the_sdk_pin_and_unrestored_fixtures_are_reported_truthfully() {
    let runtime = tempfile::tempdir().unwrap();
    let pinned = fixture_copy("sdk-pin");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["status", "--json", "--fsac", &double_command(), "--workspace"])
        .arg(pinned.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("A compatible .NET SDK was not found") && stderr.contains("99.0.100"), "{stderr}");

    let unrestored = fixture_copy("unrestored");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["status", "--json", "--fsac", &double_command(), "--workspace"])
        .arg(unrestored.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let status: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(status["state"], json!("ready"));
    assert_eq!(status["projectErrors"][0]["code"], json!(100), "{status}");
}

#[tokio::test]
async fn session_clients_ask_about_closed_files_and_see_published_diagnostics() {
    use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let program = workspace.path().join("src/Shipping.App/Program.fs");
    let uri = editor.open(&program, 1).await;
    editor
        .wait_for(|message| {
            message["method"] == "fsharp/documentAnalyzed" && message["params"]["textDocument"]["uri"] == json!(uri)
        })
        .await;

    let socket =
        fslens::session::socket_path(&runtime.path().join("fslens"), &workspace.path().canonicalize().unwrap());
    let stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let (reader, mut writer) = stream.into_split();
    let mut reader = FrameReader::new(tokio::io::BufReader::new(reader), FrameLimits::default());
    let mut call = async |id: &str, method: &str, params: Value| -> Value {
        let body =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        write_frame(&mut writer, &body).await.unwrap();
        loop {
            let body = reader.read_frame().await.unwrap().unwrap();
            let message: Value = serde_json::from_slice(&body).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    };
    // Types.fs is not open anywhere: fslens opens it for the request.
    let types =
        fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap().join("src/Shipping.Domain/Types.fs"))
            .unwrap();
    let text = std::fs::read_to_string(workspace.path().join("src/Shipping.Domain/Types.fs")).unwrap();
    let line = text.lines().position(|line| line.contains("mutable Weight")).unwrap();
    let character = text.lines().nth(line).unwrap().find("Weight").unwrap();
    let hover = call(
        "h",
        "textDocument/hover",
        json!({"textDocument": {"uri": types}, "position": {"line": line, "character": character}}),
    )
    .await;
    assert!(hover["result"]["contents"].to_string().contains("float"), "{hover}");
    let outside = call(
        "o",
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///etc/passwd"}, "position": {"line": 0, "character": 0}}),
    )
    .await;
    assert_eq!(outside["error"]["data"]["errorKind"], json!("invalid_path"), "{outside}");
    // A FIFO inside the workspace would block whoever reads it until somebody writes: it is
    // refused instead of stalling the session (the editor's messages included).
    let fifo = workspace.path().join("src/Shipping.Domain/Pipe.fs");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let fifo_uri = fslens::uri::path_to_uri(&fifo.canonicalize().unwrap()).unwrap();
    let piped = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        call(
            "f",
            "textDocument/hover",
            json!({"textDocument": {"uri": fifo_uri}, "position": {"line": 0, "character": 0}}),
        ),
    )
    .await
    .expect("a FIFO is refused, not read");
    assert_eq!(piped["error"]["data"]["errorKind"], json!("invalid_path"), "{piped}");
    assert!(piped["error"]["message"].as_str().unwrap().contains("not a regular file"), "{piped}");
    // Types.fs was opened by fslens for the hover and closed again; FSAC checks it and keeps
    // what it published after the close (docs/fsac-protocol.md §5), which may land after the
    // hover's answer: wait for it.
    let waited = std::time::Instant::now();
    let diagnostics = loop {
        let diagnostics =
            call("d", "workspace/executeCommand", json!({"command": "fslens.diagnostics", "arguments": [{}]})).await;
        let files = diagnostics["result"]["files"].as_array().unwrap();
        if files.iter().any(|file| file["file"] == json!("src/Shipping.Domain/Types.fs")) {
            break diagnostics;
        }
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(60),
            "FSAC's publish for Types.fs never reached fslens.diagnostics: {diagnostics}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let files = diagnostics["result"]["files"].as_array().unwrap();
    let program_entry = files
        .iter()
        .find(|file| file["file"] == json!("src/Shipping.App/Program.fs"))
        .unwrap_or_else(|| panic!("{diagnostics}"));
    assert_eq!(program_entry["freshness"], json!("current"));
    // A file fslens opened and closed again: what FSAC said then is listed, but not as current.
    let types_entry = files.iter().find(|file| file["file"] == json!("src/Shipping.Domain/Types.fs")).unwrap();
    assert_eq!(types_entry["freshness"], json!("unverified"), "{types_entry}");
    assert_eq!(types_entry["openInEditor"], json!(false), "{types_entry}");
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["fslensDocuments"], json!(0));
    editor.stop().await;
}

/// A session client's request about a closed file reads that file off the main loop: while
/// the read is held (by the `FSLENS_TEST_CLIENT_READ_GATE` hook), the editor is still served,
/// the client's request waits, and a cancel for it is answered; once the read completes, the
/// request reaches FSAC.
#[tokio::test]
async fn a_session_clients_file_read_never_holds_up_the_editor() {
    use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let gate = runtime.path().join("read-gate");
    let gate_text = gate.display().to_string();
    let transcript = runtime.path().join("transcript.jsonl");
    let transcript_text = transcript.display().to_string();
    let mut editor = Editor::start(
        workspace.path(),
        runtime.path(),
        &double_command(),
        &[("FSLENS_TEST_CLIENT_READ_GATE", gate_text.as_str()), (TRANSCRIPT_VARIABLE, transcript_text.as_str())],
    )
    .await;
    editor.wait_until_ready().await;

    let socket =
        fslens::session::socket_path(&runtime.path().join("fslens"), &workspace.path().canonicalize().unwrap());
    let stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let (reader, mut writer) = stream.into_split();
    let (answers, mut answered) = tokio::sync::mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let mut reader = FrameReader::new(tokio::io::BufReader::new(reader), FrameLimits::default());
        while let Ok(Some(body)) = reader.read_frame().await {
            if let Ok(message) = serde_json::from_slice::<Value>(&body) {
                let _ = answers.send(message);
            }
        }
    });
    let types_path = workspace.path().join("src/Shipping.Domain/Types.fs");
    let types = fslens::uri::path_to_uri(&types_path.canonicalize().unwrap()).unwrap();
    let text = std::fs::read_to_string(&types_path).unwrap();
    let line = text.lines().position(|line| line.contains("mutable Weight")).unwrap();
    let character = text.lines().nth(line).unwrap().find("Weight").unwrap();
    let hover = |id: &str| {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": types}, "position": {"line": line, "character": character}}}))
        .unwrap()
    };

    write_frame(&mut writer, &hover("held")).await.unwrap();
    // The editor is served while the client's read is held.
    let status = tokio::time::timeout(Duration::from_secs(20), editor.execute(Command::Status, json!({})))
        .await
        .expect("the editor is answered while a session client's read is held");
    assert_eq!(status["result"]["state"], json!("ready"), "{status}");
    // The client's request has not gone on without its file: FSAC has seen neither the
    // didOpen nor the hover.
    let early = tokio::time::timeout(Duration::from_millis(300), answered.recv()).await;
    assert!(early.is_err(), "answered before its file was read: {early:?}");
    let about_types = |message: &Value| {
        message["params"]["textDocument"]["uri"].as_str().is_some_and(|uri| uri.ends_with("/Types.fs"))
    };
    assert!(!received_by_fsac(&transcript).iter().any(about_types), "FSAC was sent Types.fs before its read completed");
    // A cancel while the read is held is answered at once.
    let cancel = json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "held"}});
    write_frame(&mut writer, &serde_json::to_vec(&cancel).unwrap()).await.unwrap();
    let cancelled = tokio::time::timeout(Duration::from_secs(20), answered.recv()).await.unwrap().unwrap();
    assert_eq!(cancelled["id"], json!("held"), "{cancelled}");
    assert_eq!(cancelled["error"]["code"], json!(-32800), "{cancelled}");

    // Once reads complete, a request about the closed file reaches FSAC and is answered.
    write_frame(&mut writer, &hover("read")).await.unwrap();
    std::fs::write(&gate, b"").unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let message = answered.recv().await.unwrap();
            if message["id"] == json!("read") {
                return message;
            }
            assert_ne!(message["id"], json!("held"), "the cancelled request was answered twice: {message}");
        }
    })
    .await
    .unwrap();
    assert!(answer["result"]["contents"].to_string().contains("float"), "{answer}");
    // The check above looked for what FSAC now has been sent.
    assert!(received_by_fsac(&transcript).iter().any(about_types), "FSAC never saw Types.fs");
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["fslensDocuments"], json!(0), "the file is closed again: {status}");
    editor.stop().await;
}
