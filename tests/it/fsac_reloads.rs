//! FSAC restarts under editor load, with the FSAC double as a real process: a
//! double whose memory grows past `--fsac-memory-limit` gets one planned restart, and a
//! double that takes seconds to come back after a crash keeps every request answered once.
//!
//! The editor here is driven by hand (not `support::double::Editor`, which waits for one
//! answer at a time) so that requests overlap the restart, and it counts every answer. Each
//! test prints its figures (memory before and after, reload time, answers) on stderr.
#![allow(clippy::print_stderr)]

use crate::support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use serde_json::{Value, json};
use support::double::{
    TRANSCRIPT_VARIABLE, double_command, fixture_copy, fslens_command, initialize_params, received_by_fsac,
};
use support::frames_into_channel;
use tokio::io::BufReader;
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

/// An editor that sends without waiting and counts the answers to every request it sent.
struct LoadedEditor {
    child: Child,
    stdin: ChildStdin,
    incoming: mpsc::UnboundedReceiver<Option<Value>>,
    next_id: i64,
    sent: Vec<i64>,
    answers: HashMap<i64, Vec<Value>>,
    notifications: Vec<Value>,
    /// Set once `stop` checked the answers, so `Drop` does not again.
    checked: bool,
}

impl LoadedEditor {
    async fn start(workspace: &Path, runtime: &Path, arguments: &[&str], environment: &[(&str, &Path)]) -> Self {
        let mut command = fslens_command(workspace, runtime, &double_command(), arguments);
        command.stderr(Stdio::null());
        for (name, value) in environment {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let incoming = frames_into_channel(FrameReader::new(BufReader::new(stdout), FrameLimits::default()));
        let mut editor = LoadedEditor {
            child,
            stdin,
            incoming,
            next_id: 1,
            sent: Vec::new(),
            answers: HashMap::new(),
            notifications: Vec::new(),
            checked: false,
        };
        let capabilities = json!({"textDocument": {"publishDiagnostics": {}}});
        let answer = editor.request("initialize", initialize_params(workspace, capabilities)).await;
        assert!(answer.get("result").is_some(), "initialize failed: {answer}");
        editor.notify("initialized", json!({})).await;
        editor
    }

    async fn write(&mut self, message: Value) {
        write_frame(&mut self.stdin, &serde_json::to_vec(&message).unwrap())
            .await
            .expect("the editor connection dropped");
    }

    async fn notify(&mut self, method: &str, params: Value) {
        self.write(json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
    }

    async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.sent.push(id);
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        id
    }

    /// Takes in everything fslens sent so far; answers server-to-client requests like an editor.
    async fn pump(&mut self) {
        let mut replies = Vec::new();
        while let Ok(message) = self.incoming.try_recv() {
            let message = message.expect("fslens closed the editor connection");
            match (message.get("method"), message.get("id").and_then(Value::as_i64)) {
                (None, Some(id)) => self.answers.entry(id).or_default().push(message),
                (Some(_), _) => {
                    if message.get("id").is_some() {
                        replies.push(json!({"jsonrpc": "2.0", "id": message["id"], "result": null}));
                    }
                    self.notifications.push(message);
                }
                _ => {}
            }
        }
        for reply in replies {
            self.write(reply).await;
        }
    }

    async fn answer(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            self.pump().await;
            if let Some(answers) = self.answers.get(&id) {
                return answers[0].clone();
            }
            assert!(Instant::now() < deadline, "request {id} was never answered");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.answer(id).await
    }

    async fn execute(&mut self, command: &str, argument: Value) -> Value {
        self.request("workspace/executeCommand", json!({"command": command, "arguments": [argument]})).await
    }

    async fn status(&mut self) -> Value {
        self.execute("fslens.status", json!({})).await["result"].clone()
    }

    async fn wait_until_ready(&mut self) -> Value {
        let status = self.execute("fslens.status", json!({"waitUntil": "ready", "timeoutMs": 90000})).await;
        assert_eq!(status["result"]["state"], json!("ready"), "{status}");
        status["result"].clone()
    }

    async fn open(&mut self, path: &Path, version: i64, text: &str) -> String {
        let uri = fslens::uri::path_to_uri(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": version, "text": text}}),
        )
        .await;
        uri
    }

    async fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        )
        .await;
    }

    /// Waits until every request sent has an answer, then checks each has exactly one.
    async fn assert_every_request_answered_once(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            self.pump().await;
            if self.sent.iter().all(|id| self.answers.contains_key(id)) {
                break;
            }
            let missing: Vec<&i64> = self.sent.iter().filter(|id| !self.answers.contains_key(id)).collect();
            assert!(Instant::now() < deadline, "requests never answered: {missing:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Late duplicates would arrive right behind the first answers.
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.pump().await;
        for id in &self.sent {
            assert_eq!(self.answers[id].len(), 1, "request {id} was answered {} times", self.answers[id].len());
        }
        for id in self.answers.keys() {
            assert!(self.sent.contains(id), "an answer to {id}, which was never sent");
        }
    }

    /// The `errorKind`s of every error answer, counted.
    fn error_kinds(&self) -> HashMap<String, usize> {
        let mut kinds = HashMap::new();
        for answer in self.answers.values().flatten() {
            if let Some(error) = answer.get("error") {
                *kinds.entry(error["data"]["errorKind"].as_str().unwrap_or("<none>").to_owned()).or_default() += 1;
            }
        }
        kinds
    }

    async fn stop(mut self) {
        let shutdown = self.send_request("shutdown", Value::Null).await;
        self.answer(shutdown).await;
        self.assert_every_request_answered_once().await;
        self.checked = true;
        self.notify("exit", Value::Null).await;
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await.unwrap().unwrap();
        assert_eq!(status.code(), Some(0));
    }
}

impl Drop for LoadedEditor {
    /// Without `stop` (which waits for every answer and checks them): checks the answers taken
    /// in so far, unless the test is already failing.
    fn drop(&mut self) {
        if self.checked || std::thread::panicking() {
            return;
        }
        for id in &self.sent {
            let count = self.answers.get(id).map_or(0, Vec::len);
            assert_eq!(count, 1, "request {id} was answered {count} times");
        }
        for id in self.answers.keys() {
            assert!(self.sent.contains(id), "an answer to {id}, which was never sent");
        }
    }
}

/// The text FSAC holds for `uri` in the newest FSAC generation of the transcript: the last
/// restart's replayed `didOpen` with the full-text `didChange`s after it applied.
fn fsac_view_after_last_start(transcript: &Path, uri: &str) -> (Option<(i64, String)>, bool) {
    let mut view: Option<(i64, String)> = None;
    let mut replayed = false;
    for message in &received_since_last_start(transcript) {
        let document = &message["params"]["textDocument"];
        if document["uri"] != json!(uri) {
            continue;
        }
        match message["method"].as_str() {
            Some("textDocument/didOpen") => {
                replayed = true;
                view = Some((document["version"].as_i64().unwrap(), document["text"].as_str().unwrap().to_owned()));
            }
            Some("textDocument/didChange") => {
                let text = message["params"]["contentChanges"][0]["text"].as_str().unwrap().to_owned();
                view = Some((document["version"].as_i64().unwrap(), text));
            }
            _ => {}
        }
    }
    (view, replayed)
}

fn edited(original: &str, version: i64) -> String {
    format!("{original}\n// edit {version}\n")
}

struct Workspace {
    _copy: tempfile::TempDir,
    root: PathBuf,
    program: PathBuf,
    types: PathBuf,
}

fn shipping() -> Workspace {
    let copy = fixture_copy("shipping");
    let root = copy.path().canonicalize().unwrap();
    Workspace {
        program: root.join("src/Shipping.App/Program.fs"),
        types: root.join("src/Shipping.Domain/Types.fs"),
        root,
        _copy: copy,
    }
}

/// One test's setting: a copy of the shipping fixture, a runtime directory, and the double's
/// transcript and faults file in a scratch directory.
struct Run {
    workspace: Workspace,
    runtime: tempfile::TempDir,
    _scratch: tempfile::TempDir,
    transcript: PathBuf,
    faults: PathBuf,
}

impl Run {
    fn new() -> Run {
        let scratch = tempfile::tempdir().unwrap();
        Run {
            workspace: shipping(),
            runtime: tempfile::tempdir().unwrap(),
            transcript: scratch.path().join("transcript.jsonl"),
            faults: scratch.path().join("faults.json"),
            _scratch: scratch,
        }
    }

    /// Starts fslens (with `arguments`) on the workspace, the double writing its transcript and
    /// reading its faults file.
    async fn start(&self, arguments: &[&str]) -> LoadedEditor {
        let environment = [(TRANSCRIPT_VARIABLE, self.transcript.as_path()), ("FSAC_DOUBLE_FAULTS_FILE", &self.faults)];
        LoadedEditor::start(&self.workspace.root, self.runtime.path(), arguments, &environment).await
    }
}

/// The buffers both tests edit: Program.fs opened at version 1 (already edited once) and
/// Types.fs as it is on disk.
struct OpenBuffers {
    original_program: String,
    program_uri: String,
    types_text: String,
    types_uri: String,
}

async fn open_buffers(editor: &mut LoadedEditor, workspace: &Workspace) -> OpenBuffers {
    let original_program = std::fs::read_to_string(&workspace.program).unwrap();
    let program_uri = editor.open(&workspace.program, 1, &edited(&original_program, 1)).await;
    let types_text = std::fs::read_to_string(&workspace.types).unwrap();
    let types_uri = editor.open(&workspace.types, 1, &types_text).await;
    OpenBuffers { original_program, program_uri, types_text, types_uri }
}

/// A hover on the `Weight` field of Types.fs.
fn weight_hover(types: &Path, types_uri: &str) -> Value {
    let text = std::fs::read_to_string(types).unwrap();
    let line = text.lines().position(|line| line.contains("mutable Weight")).unwrap();
    let character = text.lines().nth(line).unwrap().find("Weight").unwrap();
    json!({"textDocument": {"uri": types_uri}, "position": {"line": line, "character": character}})
}

const MIB: u64 = 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fsac_growing_past_its_memory_limit_gets_one_planned_restart_under_load() {
    let run = Run::new();
    let (workspace, transcript, faults) = (&run.workspace, &run.transcript, &run.faults);
    // The first double leaks 32 MB per request; the one started by the restart does not.
    std::fs::write(faults, json!({"FSAC_DOUBLE_GROW_MB_PER_REQUEST": 32}).to_string()).unwrap();
    let limit = 512 * MIB;
    let mut editor = run
        .start(&[
            "--fsac-memory-limit",
            "512MiB",
            "--fsac-memory-sample-ms",
            "100",
            "--fsac-memory-restart-grace-ms",
            "2000",
        ])
        .await;
    std::fs::write(faults, "{}").unwrap();
    let OpenBuffers { original_program: original, program_uri, types_text, types_uri } =
        open_buffers(&mut editor, workspace).await;
    let mut version = 1;
    editor.wait_until_ready().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = editor.status().await;
    let rss_before = before["fsac"]["rssBytes"].as_u64().unwrap_or_else(|| panic!("no rssBytes: {before}"));
    assert_eq!(before["fsac"]["rssSource"], json!("procfs"));
    assert_eq!(before["fsac"]["memoryLimitBytes"], json!(limit));
    assert_eq!(before["fsac"]["memoryLimit"], json!("512MiB"));
    assert!(rss_before < limit, "the double starts above the limit: {rss_before}");
    assert_eq!(before["supervisor"]["plannedRestarts"], json!(0));
    let generation_before = before["fsac"]["generation"].as_u64().unwrap();

    // Editor load (a step every 120 ms: two hovers, then an edit) until the planned restart
    // has happened, then a little more.
    let hover = weight_hover(&workspace.types, &types_uri);
    let started = Instant::now();
    let mut steps_after_restart = 0;
    let mut hovers = 0;
    for step in 0.. {
        editor.pump().await;
        let restarted = editor
            .notifications
            .iter()
            .any(|message| message["method"] == "fslens/status" && message["params"]["plannedRestart"] == "restarting");
        if restarted {
            steps_after_restart += 1;
            if steps_after_restart > 12 {
                break;
            }
        }
        // Twelve leaking requests cross the limit. Past forty hovers (1.3 GB) before a restart
        // the load pauses, so a broken guard cannot eat the machine's memory; a slow machine
        // just takes longer to read what was sent.
        assert!(started.elapsed() < Duration::from_secs(90), "no planned restart within 90 s ({hovers} hovers)");
        if !restarted && hovers >= 40 {
            tokio::time::sleep(Duration::from_millis(120)).await;
            continue;
        }
        if step % 3 == 2 {
            version += 1;
            editor.change(&program_uri, version, &edited(&original, version)).await;
        } else {
            hovers += 1;
            editor.send_request("textDocument/hover", hover.clone()).await;
        }
        tokio::time::sleep(Duration::from_millis(120)).await;
    }
    editor.assert_every_request_answered_once().await;
    editor.wait_until_ready().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = editor.status().await;

    // One planned restart, no crash, and the memory of both FSACs reported.
    assert_eq!(after["supervisor"]["plannedRestarts"], json!(1), "{after}");
    assert_eq!(after["supervisor"]["crashes"], json!(0), "{after}");
    assert_eq!(after["fsac"]["generation"], json!(generation_before + 1), "{after}");
    let last = &after["fsac"]["lastPlannedRestart"];
    assert_eq!(last["reason"], json!("memory_limit"));
    assert!(last["rssBytes"].as_u64().unwrap() > limit, "{last}");
    let rss_after = after["fsac"]["rssBytes"].as_u64().unwrap();
    assert!(rss_after < limit, "the new FSAC uses {rss_after} bytes");
    assert!(after["fsac"]["rssPeakBytes"].as_u64().unwrap() < limit, "{after}");
    let announced: Vec<&Value> = editor
        .notifications
        .iter()
        .filter(|message| message["method"] == "fslens/status" && message["params"]["reason"] == "memory_limit")
        .collect();
    assert_eq!(announced.len(), 2, "one 'planned' and one 'restarting' announcement: {announced:?}");
    assert!(
        editor.notifications.iter().any(|message| message["method"] == "window/showMessage"
            && message["params"]["message"].as_str().unwrap().contains("--fsac-memory-limit")),
        "the editor was told"
    );

    // Exactly one answer each; errors only of the kinds a restart explains; hover works again.
    editor.assert_every_request_answered_once().await;
    let kinds = editor.error_kinds();
    assert!(kinds.keys().all(|kind| kind == "fsac_restarting" || kind == "fsac_unavailable"), "{kinds:?}");
    let hover_after = editor.request("textDocument/hover", hover.clone()).await;
    assert!(hover_after["result"]["contents"].to_string().contains("float"), "{hover_after}");

    // Every open buffer reached the new FSAC, at its latest version and text.
    for (uri, latest) in [(&program_uri, (version, edited(&original, version))), (&types_uri, (1, types_text.clone()))]
    {
        let (view, replayed) = fsac_view_after_last_start(transcript, uri);
        assert!(replayed, "{uri} was not replayed");
        assert_eq!(view, Some(latest), "FSAC's view of {uri}");
    }
    eprintln!(
        "memory guard: rss before {} MiB, at the restart {} MiB (waited {} ms, {} requests cut short), after {} MiB; \
         error answers {:?} of {}; {:.1} s",
        rss_before / MIB,
        last["rssBytes"].as_u64().unwrap() / MIB,
        last["waitedMs"],
        last["requestsAnsweredRestarting"],
        rss_after / MIB,
        kinds,
        editor.sent.len(),
        started.elapsed().as_secs_f64()
    );
    editor.stop().await;
}

/// The messages the newest FSAC generation received, in order.
fn received_since_last_start(transcript: &Path) -> Vec<Value> {
    let received = received_by_fsac(transcript);
    let last_start = received.iter().rposition(|message| message["method"] == "initialize").unwrap();
    received[last_start..].to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_fsac_that_takes_twenty_seconds_to_reload_keeps_every_request_answered_once() {
    let run = Run::new();
    let (workspace, transcript, faults) = (&run.workspace, &run.transcript, &run.faults);
    let mut editor = run.start(&["--restart-backoff-ms", "200"]).await;
    let OpenBuffers { original_program: original, program_uri, types_uri, .. } =
        open_buffers(&mut editor, workspace).await;
    let mut version = 1;
    let before = editor.wait_until_ready().await;
    let check_program = json!({"path": "src/Shipping.App/Program.fs", "timeoutMs": 1500});
    let clean_before = editor.execute("fslens.check", json!({"path": "src/Shipping.App/Program.fs"})).await;
    assert_eq!(clean_before["result"]["verdict"], json!("clean"), "{clean_before}");

    // The next double takes 5 s to answer initialize and 15 s more to load the workspace.
    std::fs::write(
        faults,
        json!({"FSAC_DOUBLE_SLOW_INITIALIZE_MS": 5000, "FSAC_DOUBLE_SLOW_LOAD_MS": 15000}).to_string(),
    )
    .unwrap();
    let pid = before["fsac"]["pid"].as_u64().unwrap();
    let killed = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    assert!(killed.success());
    let killed_at = Instant::now();

    // Steady editor load, a hover and an edit in turn every 200 ms, until the new FSAC is
    // ready; `check` is asked while it starts and while it loads.
    let hover = weight_hover(&workspace.types, &types_uri);
    let mut checks_during_reload: Vec<(i64, String)> = Vec::new();
    let mut ready_at = None;
    let mut step = 0u64;
    let mut status_request: Option<i64> = None;
    while ready_at.is_none() || step < 10 {
        editor.pump().await;
        assert!(killed_at.elapsed() < Duration::from_secs(120), "the new FSAC never became ready");
        if let Some(id) = status_request
            && let Some(answers) = editor.answers.get(&id)
        {
            let status = &answers[0]["result"];
            let state = status["state"].as_str().unwrap().to_owned();
            let new_generation = status["fsac"]["generation"].as_u64() > before["fsac"]["generation"].as_u64();
            if ready_at.is_none() && new_generation && state == "ready" {
                ready_at = Some(killed_at.elapsed());
                step = 0;
            }
            let asked: Vec<&str> = checks_during_reload.iter().map(|(_, state)| state.as_str()).collect();
            if ready_at.is_none()
                && matches!(state.as_str(), "starting" | "loading")
                && !asked.contains(&state.as_str())
            {
                let id = editor
                    .send_request(
                        "workspace/executeCommand",
                        json!({"command": "fslens.check", "arguments": [check_program.clone()]}),
                    )
                    .await;
                checks_during_reload.push((id, state));
            }
            status_request = None;
        }
        if status_request.is_none() {
            status_request = Some(
                editor
                    .send_request("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{}]}))
                    .await,
            );
        }
        if step.is_multiple_of(2) {
            editor.send_request("textDocument/hover", hover.clone()).await;
        } else {
            version += 1;
            editor.change(&program_uri, version, &edited(&original, version)).await;
        }
        step += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let reload = ready_at.unwrap();
    assert!(reload >= Duration::from_secs(20), "the double reloaded in {reload:?}");

    // No request unanswered or answered twice; errors only of the kinds a crash explains.
    editor.assert_every_request_answered_once().await;
    let kinds = editor.error_kinds();
    assert!(kinds.keys().all(|kind| kind == "fsac_exited" || kind == "fsac_unavailable"), "{kinds:?}");
    for answers in editor.answers.values() {
        let data = &answers[0]["error"]["data"];
        if data["errorKind"] == "fsac_unavailable" {
            assert!(matches!(data["state"].as_str(), Some("crashed" | "starting")), "{data}");
        }
    }

    // check during the reload: unknown, saying the state; never an empty clean.
    let states: Vec<&str> = checks_during_reload.iter().map(|(_, state)| state.as_str()).collect();
    assert!(states.contains(&"loading"), "check was never asked while FSAC loaded: {states:?}");
    for (id, state) in &checks_during_reload {
        let answer = &editor.answers[id][0]["result"];
        assert_eq!(answer["verdict"], json!("unknown"), "check while {state}: {answer}");
        let blocking = &answer["blockingReason"];
        assert!(
            blocking["state"].is_string() || blocking["errorKind"] == "timeout",
            "check while {state} names no state: {answer}"
        );
    }
    let clean_after = editor.execute("fslens.check", json!({"path": "src/Shipping.App/Program.fs"})).await;
    assert_eq!(clean_after["result"]["verdict"], json!("clean"), "{clean_after}");

    // No didChange lost: the new FSAC got the buffer replayed before any request about it, and
    // every edit after the replay in order, ending at the editor's latest version.
    let (view, replayed) = fsac_view_after_last_start(transcript, &program_uri);
    assert!(replayed);
    assert_eq!(view, Some((version, edited(&original, version))), "FSAC's view of Program.fs");
    let generation = received_since_last_start(transcript);
    let versions: Vec<i64> = generation
        .iter()
        .filter(|message| message["params"]["textDocument"]["uri"] == json!(program_uri))
        .filter_map(|message| message["params"]["textDocument"]["version"].as_i64())
        .collect();
    assert!(versions.windows(2).all(|pair| pair[1] == pair[0] + 1), "versions FSAC saw: {versions:?}");
    let replayed_types = generation
        .iter()
        .position(|message| {
            message["method"] == "textDocument/didOpen" && message["params"]["textDocument"]["uri"] == json!(types_uri)
        })
        .unwrap();
    let first_hover = generation.iter().position(|message| message["method"] == "textDocument/hover").unwrap();
    assert!(replayed_types < first_hover, "a hover reached the new FSAC before its document");
    let hovered = editor.request("textDocument/hover", hover).await;
    assert!(hovered["result"]["contents"].to_string().contains("float"), "{hovered}");
    eprintln!(
        "slow reload: ready {:.1} s after the kill; {} requests, error answers {kinds:?}; checks during the reload: {states:?}",
        reload.as_secs_f64(),
        editor.sent.len()
    );
    editor.stop().await;
}
