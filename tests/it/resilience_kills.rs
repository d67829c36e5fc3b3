//! Resilience against a crashing FSAC: the FSAC double is killed 100 times at
//! random moments while the editor keeps sending requests and edits. No request may go
//! unanswered, the editor connection must survive, every restarted FSAC must be given the
//! open documents at their latest text, and hover must work at the end.

use crate::support;
use fslens::commands::registry::Command as FslensCommand;

use std::collections::{BTreeMap, HashMap};
use std::process::Stdio;
use std::time::{Duration, Instant};

use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use serde_json::{Value, json};
use support::double::{TRANSCRIPT_VARIABLE, fixture_copy, received_by_fsac, repository};
use tokio::io::BufReader;
use tokio::process::Command;
use tokio::sync::mpsc;

const KILLS: u64 = 100;

fn program_text(original: &str, version: i64) -> String {
    format!("{original}\n// v{version}\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_fsac_crashes_lose_nothing() {
    support::double::double_command(); // fails loudly when the double is not built
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("launches");
    let transcript = scratch.path().join("transcript.jsonl");
    let wrapper = repository().join("tests/support/kill-wrapper.sh");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["--restart-backoff-ms", "5", "--max-restart-backoff-ms", "20", "--crash-loop-limit", "100000"])
        .arg("--fsac")
        .arg(format!("bash {}", wrapper.display()))
        .arg("--workspace")
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env("KILLS_TOTAL", KILLS.to_string())
        .env("KILLS_COUNTER_FILE", &counter)
        .env(TRANSCRIPT_VARIABLE, &transcript)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (messages, mut incoming) = mpsc::unbounded_channel::<Option<Value>>();
    tokio::spawn(async move {
        let mut reader = FrameReader::new(BufReader::new(stdout), FrameLimits::default());
        loop {
            match reader.read_frame().await {
                Ok(Some(body)) => {
                    let _ = messages.send(serde_json::from_slice(&body).ok());
                }
                _ => {
                    let _ = messages.send(None);
                    return;
                }
            }
        }
    });
    let mut answers: HashMap<i64, usize> = HashMap::new();
    let mut sent: Vec<i64> = Vec::new();
    let mut next_id = 1i64;
    let mut pending_results: HashMap<i64, Value> = HashMap::new();
    let mut closed = false;

    macro_rules! send {
        ($value:expr) => {
            write_frame(&mut stdin, &serde_json::to_vec(&$value).unwrap()).await.expect("the editor connection dropped")
        };
    }
    let drain = |incoming: &mut mpsc::UnboundedReceiver<Option<Value>>,
                 answers: &mut HashMap<i64, usize>,
                 results: &mut HashMap<i64, Value>,
                 closed: &mut bool| {
        while let Ok(message) = incoming.try_recv() {
            match message {
                None => *closed = true,
                Some(message) if message.get("method").is_none() => {
                    if let Some(id) = message["id"].as_i64() {
                        *answers.entry(id).or_default() += 1;
                        results.insert(id, message);
                    }
                }
                Some(_) => {}
            }
        }
    };

    let root_uri = fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap()).unwrap();
    sent.push(next_id);
    send!(
        json!({"jsonrpc": "2.0", "id": next_id, "method": "initialize", "params": {"rootUri": root_uri, "capabilities": {}}})
    );
    next_id += 1;
    // Like any editor, wait for the answer to initialize before saying anything else.
    loop {
        drain(&mut incoming, &mut answers, &mut pending_results, &mut closed);
        if let Some(answer) = pending_results.get(&1) {
            assert!(answer.get("result").is_some(), "{answer}");
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    send!(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let program = workspace.path().canonicalize().unwrap().join("src/Shipping.App/Program.fs");
    let types = workspace.path().canonicalize().unwrap().join("src/Shipping.Domain/Types.fs");
    let program_uri = fslens::uri::path_to_uri(&program).unwrap();
    let types_uri = fslens::uri::path_to_uri(&types).unwrap();
    let original = std::fs::read_to_string(&program).unwrap();
    let mut version = 1i64;
    send!(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": program_uri, "languageId": "fsharp", "version": version, "text": program_text(&original, version)}}})
    );
    send!(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": types_uri, "languageId": "fsharp", "version": 1, "text": std::fs::read_to_string(&types).unwrap()}}})
    );

    // Steady load until the hundredth kill has happened and a live FSAC runs.
    let started = Instant::now();
    let mut step = 0u64;
    loop {
        let launches: u64 =
            std::fs::read_to_string(&counter).ok().and_then(|text| text.trim().parse().ok()).unwrap_or(0);
        if launches > KILLS {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(600), "only {launches} launches after 10 minutes");
        step += 1;
        if step.is_multiple_of(5) {
            version += 1;
            send!(
                json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": program_uri, "version": version}, "contentChanges": [{"text": program_text(&original, version)}]}})
            );
        } else {
            sent.push(next_id);
            // documentSymbol is answered without the compiler, so the doubles die young.
            send!(
                json!({"jsonrpc": "2.0", "id": next_id, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": types_uri}}})
            );
            next_id += 1;
        }
        tokio::time::sleep(Duration::from_millis(3)).await;
        drain(&mut incoming, &mut answers, &mut pending_results, &mut closed);
        assert!(!closed, "the editor connection dropped");
    }

    // The last FSAC lives: wait for it to be ready, then hover on a field works again.
    let status_id = next_id;
    next_id += 1;
    sent.push(status_id);
    send!(
        json!({"jsonrpc": "2.0", "id": status_id, "method": "workspace/executeCommand", "params": {"command": "fslens.status", "arguments": [{"waitUntil": "ready", "timeoutMs": 60000}]}})
    );
    let text = std::fs::read_to_string(&types).unwrap();
    let line = text.lines().position(|line| line.contains("mutable Weight")).unwrap();
    let character = text.lines().nth(line).unwrap().find("Weight").unwrap();
    let hover_id = loop {
        drain(&mut incoming, &mut answers, &mut pending_results, &mut closed);
        if pending_results.contains_key(&status_id) {
            let id = next_id;
            next_id += 1;
            sent.push(id);
            send!(
                json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {"textDocument": {"uri": types_uri}, "position": {"line": line, "character": character}}})
            );
            break id;
        }
        assert!(started.elapsed() < Duration::from_secs(700), "never ready after the kills");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let hover = loop {
        drain(&mut incoming, &mut answers, &mut pending_results, &mut closed);
        if let Some(hover) = pending_results.get(&hover_id) {
            break hover.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(750), "hover never answered");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(hover["result"]["contents"].to_string().contains("float"), "hover after the restarts: {hover}");

    let shutdown = next_id;
    sent.push(shutdown);
    send!(json!({"jsonrpc": "2.0", "id": shutdown, "method": "shutdown"}));
    loop {
        drain(&mut incoming, &mut answers, &mut pending_results, &mut closed);
        if pending_results.contains_key(&shutdown) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    send!(json!({"jsonrpc": "2.0", "method": "exit"}));
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await.unwrap().unwrap();
    drain(&mut incoming, &mut answers, &mut pending_results, &mut closed);
    assert_eq!(status.code(), Some(0));

    // Exactly one answer per request.
    for id in &sent {
        assert_eq!(answers.get(id).copied().unwrap_or(0), 1, "request {id}");
    }
    assert_eq!(answers.len(), sent.len(), "answers to requests never sent");
    let failed = sent.iter().filter(|id| pending_results[id].get("error").is_some()).count();
    assert!(failed > 0, "some requests must have met a crash (else the test proved nothing)");

    // Every restarted FSAC was given the open documents, never older text than before.
    let mut generations: Vec<Vec<Value>> = Vec::new();
    for message in received_by_fsac(&transcript) {
        if message["method"] == "initialize" {
            generations.push(Vec::new());
        }
        if let Some(current) = generations.last_mut() {
            current.push(message);
        }
    }
    assert!(generations.len() as u64 > KILLS, "{} FSAC generations for {KILLS} kills", generations.len());
    let mut newest_forwarded = 0i64;
    let mut replays_with_both = 0;
    for (number, generation) in generations.iter().enumerate().skip(1) {
        let opens: BTreeMap<String, (i64, String)> = generation
            .iter()
            .filter(|message| message["method"] == "textDocument/didOpen")
            .map(|message| {
                let document = &message["params"]["textDocument"];
                (
                    document["uri"].as_str().unwrap().to_owned(),
                    (document["version"].as_i64().unwrap(), document["text"].as_str().unwrap().to_owned()),
                )
            })
            .collect();
        if let Some((opened_version, text)) = opens.get(&program_uri) {
            assert_eq!(
                text,
                &program_text(&original, *opened_version),
                "generation {number}: text and version disagree"
            );
            assert!(
                *opened_version >= newest_forwarded,
                "generation {number} got v{opened_version} after v{newest_forwarded} was sent"
            );
        }
        if opens.contains_key(&program_uri) && opens.contains_key(&types_uri) {
            replays_with_both += 1;
        }
        for message in generation {
            if let Some(sent_version) = message["params"]["textDocument"]["version"].as_i64()
                && message["params"]["textDocument"]["uri"] == json!(program_uri)
            {
                newest_forwarded = newest_forwarded.max(sent_version);
            }
        }
    }
    let last = generations.last().unwrap();
    let last_opens = last.iter().filter(|message| message["method"] == "textDocument/didOpen").count();
    assert_eq!(last_opens, 2, "the surviving FSAC has both documents");
    assert!(replays_with_both as u64 >= KILLS / 2, "only {replays_with_both} generations saw the whole replay");
}

#[tokio::test]
async fn a_hung_fsac_is_reported_unresponsive_and_a_restart_recovers_the_session() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let command = support::double::double_command();
    // The double never answers hover; everything else works.
    let mut editor = support::double::Editor::start_with_args(
        workspace.path(),
        runtime.path(),
        &command,
        &[("FSAC_DOUBLE_HANG_ON", "textDocument/hover")],
        &["--unresponsive-after-ms", "300"],
    )
    .await;
    editor.wait_until_ready().await;
    let types = workspace.path().join("src/Shipping.Domain/Types.fs");
    let uri = editor.open(&types, 1).await;
    let hung = editor
        .send_request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    // A command with a deadline is answered within it, whatever FSAC does.
    let started = Instant::now();
    let probe = editor.execute(FslensCommand::Status, json!({"probe": true, "timeoutMs": 400})).await;
    // Loose: it only tells the 400 ms asked for from the 60 s default on a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(20), "answered {:?} after a 400 ms deadline", started.elapsed());
    assert!(probe["result"]["probe"]["alive"].is_boolean(), "{probe}");
    let unresponsive = loop {
        let status = editor.execute(FslensCommand::Status, json!({})).await;
        if status["result"]["unresponsive"] == json!(true) {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "never reported unresponsive: {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(unresponsive["result"]["silentForMs"].as_u64().is_some());
    // The user restarts FSAC: the hung request fails at once, and the session works again.
    let restart = editor.execute(FslensCommand::Restart, json!({})).await;
    assert_eq!(restart["result"]["restarting"], json!(true), "{restart}");
    let failed = editor.response(hung).await;
    assert_eq!(failed["error"]["data"]["errorKind"], json!("fsac_exited"), "{failed}");
    let status = editor.wait_until_ready().await;
    assert_eq!(status["result"]["unresponsive"], json!(false));
    assert_eq!(status["result"]["fsac"]["generation"], json!(2));
    let symbols = editor.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}})).await;
    assert!(symbols["result"].as_array().is_some_and(|symbols| !symbols.is_empty()), "{symbols}");
    editor.stop().await;
}
