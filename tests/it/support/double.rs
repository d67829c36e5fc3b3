//! Starting fslens in front of the FSAC double (tests/fsac-double-dotnet) as real processes.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use fslens::commands::registry::Command as FslensCommand;
use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use fslens::session_state::status::State;
use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub const TIMEOUT: Duration = Duration::from_secs(60);

pub fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The command line that starts the FSAC double (tests/fsac-double-dotnet: FSAC's protocol on
/// FCS from NuGet, projects loaded by an MSBuild design-time build). Fails loudly when it is not
/// built.
pub fn double_command() -> String {
    let dll = double_dll();
    assert!(
        dll.exists(),
        "the FSAC double is not built: run \
         `dotnet build -c Release tests/fsac-double-dotnet/FsacDouble.fsproj` (scripts/test.sh does)"
    );
    format!("dotnet {}", dll.display())
}

/// The FSAC double's assembly, which `dotnet` runs.
pub fn double_dll() -> PathBuf {
    repository().join("tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll")
}

/// A copy of a fixture in a temporary directory, so tests may edit files freely.
pub fn fixture_copy(name: &str) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&repository().join("fixtures").join(name), copy.path());
    copy
}

/// A directory name with every kind of character that URI encoders disagree on: a space, `#`,
/// `%`, parentheses, `@`, a non-ASCII letter, `+` and `~`. FSAC writes `@`, `(` and `)` as
/// `%40`, `%28`, `%29`; the `url` crate and most editors leave them bare.
pub const AWKWARD_DIRECTORY_NAME: &str = "odd dir #1 (50%) @é+~";

/// A copy of `fixtures/<name>` in a directory named [`AWKWARD_DIRECTORY_NAME`] inside a new
/// temporary directory; returns the temporary directory (keep it alive) and the copy's root.
pub fn fixture_copy_in_awkward_directory(name: &str) -> (tempfile::TempDir, PathBuf) {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join(AWKWARD_DIRECTORY_NAME);
    copy_tree(&repository().join("fixtures").join(name), &root);
    (parent, root)
}

/// Copies the directory tree `from` to `to`, making `to` and every directory below it.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The command that starts the real `fslens` binary with `fsac` as its backend in
/// `workspace`, its sockets under `runtime`, with `arguments` before its own; stdin and stdout
/// are pipes, and the process is killed when the handle drops.
pub fn fslens_command(workspace: &Path, runtime: &Path, fsac: &str, arguments: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fslens"));
    command
        .args(arguments)
        .arg("--fsac")
        .arg(fsac)
        .arg("--workspace")
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// The `initialize` parameters of an editor opening `workspace` and declaring `capabilities`.
pub fn initialize_params(workspace: &Path, capabilities: Value) -> Value {
    let root = fslens::uri::path_to_uri(workspace).unwrap();
    json!({"processId": null, "rootUri": root, "capabilities": capabilities})
}

/// An editor driving a real `fslens` process, which counts answers as the scripted harness
/// does (docs/architecture.md, invariant 4).
///
/// Every request the editor sends and every response it reads is recorded, also responses read
/// while waiting for something else (another response, a notification in [`Editor::wait_for`]):
/// those are kept until the test claims them with [`Editor::response`]. The check, which
/// fails the test listing every problem, is that each request sent got exactly one response, no
/// response came for an id never sent, and no response was read without the test claiming it.
///
/// - [`Editor::stop`] sends `shutdown` and `exit`, reads the stream to its end, checks the exit
///   code and then checks the answers: nothing still in flight escapes it.
/// - [`Editor::kill`] kills the process (a test that ends without a clean shutdown), reads what
///   fslens had written before it died, and checks the same.
/// - A plain `Drop` (the editor goes out of scope without either) cannot read on (no `async`
///   in `Drop`): it checks what was read by then, so a request whose answer the test never
///   waited for fails the test. It checks nothing when the thread is already panicking, so a
///   failing test reports its own failure.
///
/// A request a test deliberately leaves unanswered (it kills the process while the request is
/// in flight) is declared with [`Editor::expect_unanswered`], naming why; it may then get no
/// answer, never two. A cancelled request is no exception: fslens answers it once, `-32800`.
pub struct Editor {
    child: Child,
    stdin: ChildStdin,
    stdout: FrameReader<BufReader<ChildStdout>>,
    next_id: i64,
    /// Notifications (and server→client requests) received, in order.
    pub notifications: Vec<Value>,
    /// fslens's answer to `initialize`.
    pub initialize_answer: Value,
    /// Every request sent: id and method, in order.
    sent: Vec<(i64, String)>,
    /// How many responses arrived for each id (keyed by the id's JSON text).
    answers: HashMap<String, usize>,
    /// Responses read while waiting for something else, not yet taken by the test.
    unclaimed: BTreeMap<String, Value>,
    /// Requests the test declared it may leave unanswered, and why.
    unanswered: HashMap<i64, String>,
    /// Set once the answers were checked (by `stop` or `kill`), so `Drop` does not again.
    checked: bool,
}

impl Editor {
    /// Starts fslens with `fsac` in `workspace` (sockets under `runtime`) and initializes it.
    pub async fn start(workspace: &Path, runtime: &Path, fsac: &str, environment: &[(&str, &str)]) -> Editor {
        Editor::start_with_args(workspace, runtime, fsac, environment, &[]).await
    }

    /// Like [`Editor::start`], with extra fslens command-line arguments.
    pub async fn start_with_args(
        workspace: &Path,
        runtime: &Path,
        fsac: &str,
        environment: &[(&str, &str)],
        arguments: &[&str],
    ) -> Editor {
        let capabilities = json!({"textDocument": {"publishDiagnostics": {}}});
        Editor::start_with_capabilities(workspace, runtime, fsac, environment, arguments, capabilities).await
    }

    /// Like [`Editor::start_with_args`], declaring `capabilities` as the editor's. An editor that
    /// declares `workspace.applyEdit` answers `workspace/applyEdit` with `applied: true`.
    pub async fn start_with_capabilities(
        workspace: &Path,
        runtime: &Path,
        fsac: &str,
        environment: &[(&str, &str)],
        arguments: &[&str],
        capabilities: Value,
    ) -> Editor {
        let mut command = fslens_command(workspace, runtime, fsac, arguments);
        for (name, value) in environment {
            command.env(name, value);
        }
        Editor::start_from_command(command, workspace, capabilities).await
    }

    /// Starts `command` (an fslens however started: stdin and stdout are made pipes, stderr is
    /// inherited) and initializes it for `workspace` with `capabilities`.
    pub async fn start_from_command(mut command: Command, workspace: &Path, capabilities: Value) -> Editor {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = FrameReader::new(BufReader::new(child.stdout.take().unwrap()), FrameLimits::default());
        let mut editor = Editor {
            child,
            stdin,
            stdout,
            next_id: 1,
            notifications: Vec::new(),
            initialize_answer: Value::Null,
            sent: Vec::new(),
            answers: HashMap::new(),
            unclaimed: BTreeMap::new(),
            unanswered: HashMap::new(),
            checked: false,
        };
        let answer = editor.request("initialize", initialize_params(workspace, capabilities)).await;
        assert!(answer.get("result").is_some(), "initialize failed: {answer}");
        editor.initialize_answer = answer;
        editor.notify("initialized", json!({})).await;
        editor
    }

    /// Starts as [`Editor::start`] does, with the double as FSAC, and waits until FSAC is ready.
    pub async fn start_ready(workspace: &Path, runtime: &Path, environment: &[(&str, &str)]) -> Editor {
        let mut editor = Editor::start(workspace, runtime, &double_command(), environment).await;
        editor.wait_until_ready().await;
        editor
    }

    /// The fslens process's id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("fslens has exited")
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method, "params": params})).unwrap();
        write_frame(&mut self.stdin, &body).await.unwrap();
    }

    /// Sends a request and waits for its answer.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Sends a request without waiting for its answer; returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.sent.push((id, method.to_owned()));
        let body =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        write_frame(&mut self.stdin, &body).await.unwrap();
        id
    }

    /// Claims the answer to request `id`: one read earlier and not yet claimed, or the next to
    /// come.
    pub async fn response(&mut self, id: i64) -> Value {
        if let Some(message) = self.unclaimed.remove(&json!(id).to_string()) {
            return message;
        }
        loop {
            let message = self.next_message().await;
            if message.get("method").is_none() {
                if message["id"] == id {
                    return message;
                }
                self.unclaimed.insert(message["id"].to_string(), message);
            }
        }
    }

    /// Declares that request `id` may stay unanswered (at most one answer, which need not be
    /// claimed), and why: a test that kills fslens with the request in flight.
    pub fn expect_unanswered(&mut self, id: i64, why: &str) {
        assert!(self.sent.iter().any(|(sent, _)| *sent == id), "request {id} was never sent");
        self.unanswered.insert(id, why.to_owned());
    }

    /// The next message from fslens, tallied; answers server→client requests like an editor.
    async fn next_message(&mut self) -> Value {
        let body = tokio::time::timeout(TIMEOUT, self.stdout.read_frame())
            .await
            .expect("no message from fslens in time")
            .unwrap()
            .expect("fslens closed stdout");
        let message: Value = serde_json::from_slice(&body).unwrap();
        // Tallied before any other await, so a caller that gives up waiting (a `select!`) loses
        // nothing that was read.
        self.tally(&message);
        if message.get("method").is_some() && message.get("id").is_some() {
            // An editor with nobody at a debugger answers FSAC's test-host request `false`.
            let result = match message["method"].as_str() {
                Some("workspace/applyEdit") => json!({"applied": true}),
                Some("test/processWaitingForDebugger") => json!(false),
                _ => Value::Null,
            };
            let answer = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": message["id"], "result": result})).unwrap();
            write_frame(&mut self.stdin, &answer).await.unwrap();
        }
        message
    }

    /// Records a message from fslens: a response is counted for its id, a notification or a
    /// server→client request kept in [`Editor::notifications`].
    fn tally(&mut self, message: &Value) {
        if message.get("method").is_some() {
            self.notifications.push(message.clone());
        } else {
            *self.answers.entry(message["id"].to_string()).or_default() += 1;
        }
    }

    /// Waits for a notification satisfying `predicate` (seen already or still to come).
    /// Responses read meanwhile are kept for [`Editor::response`].
    pub async fn wait_for(&mut self, predicate: impl Fn(&Value) -> bool) -> Value {
        if let Some(found) = self.notifications.iter().find(|message| predicate(message)) {
            return found.clone();
        }
        loop {
            let message = self.next_message().await;
            if message.get("method").is_none() {
                self.unclaimed.insert(message["id"].to_string(), message);
            } else if message.get("id").is_none() && predicate(&message) {
                return message;
            }
        }
    }

    /// Runs `command` from the command table with `argument`; returns the whole answer (a
    /// `result` or an `error`).
    pub async fn execute(&mut self, command: FslensCommand, argument: impl Serialize) -> Value {
        self.execute_id(command.id(), serde_json::to_value(argument).unwrap()).await
    }

    /// Runs a command by its wire id, for ids that are not in the command table (a test of
    /// what fslens answers to an unknown command).
    pub async fn execute_id(&mut self, command: &str, argument: Value) -> Value {
        self.request("workspace/executeCommand", json!({"command": command, "arguments": [argument]})).await
    }

    /// Sends `command` with `argument` without waiting; returns the request's id.
    pub async fn start_command(&mut self, command: FslensCommand, argument: impl Serialize) -> i64 {
        let argument = serde_json::to_value(argument).unwrap();
        self.send_request("workspace/executeCommand", json!({"command": command.id(), "arguments": [argument]})).await
    }

    /// The result of [`Editor::execute`]; panics showing the answer when it is an error.
    pub async fn execute_result(&mut self, command: FslensCommand, argument: impl Serialize) -> Value {
        let argument = serde_json::to_value(argument).unwrap();
        let answer = self.execute(command, argument.clone()).await;
        answer.get("result").cloned().unwrap_or_else(|| panic!("{} {argument} failed: {answer}", command.id()))
    }

    /// The result of [`Editor::execute`] as a `T`; panics showing the answer when it is an
    /// error or not a `T`.
    pub async fn execute_as<T: DeserializeOwned>(&mut self, command: FslensCommand, argument: impl Serialize) -> T {
        let result = self.execute_result(command, argument).await;
        serde_json::from_value(result.clone()).unwrap_or_else(|error| {
            panic!("{} answered what is not the expected type ({error}): {result}", command.id())
        })
    }

    /// Opens a file as an editor does: its text without a UTF-8 byte-order mark.
    pub async fn open(&mut self, path: &Path, version: i64) -> String {
        let uri = fslens::uri::path_to_uri(path).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": version, "text": text}}),
        )
        .await;
        uri
    }

    /// Waits (up to a minute) until fslens says FSAC is ready, and returns the status answer.
    pub async fn wait_until_ready(&mut self) -> Value {
        #[derive(serde::Deserialize)]
        struct Status {
            state: State,
        }
        let status = self.execute(FslensCommand::Status, json!({"waitUntil": "ready", "timeoutMs": 60000})).await;
        let state = status.get("result").and_then(|result| Status::deserialize(result).ok()).map(|status| status.state);
        assert_eq!(state, Some(State::Ready), "{status}");
        status
    }

    /// Replaces the whole text of an open document (a full-text `didChange`).
    pub async fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        )
        .await;
    }

    /// Ends the session as an editor does (`shutdown`, then `exit`), reads what fslens sends
    /// until it closes its stdout, checks it exits 0, and checks every request was answered
    /// exactly once and every answer claimed.
    pub async fn stop(mut self) {
        self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
        self.read_to_end().await;
        let status = tokio::time::timeout(TIMEOUT, self.child.wait()).await.unwrap().unwrap();
        assert_eq!(status.code(), Some(0));
        self.check_answers();
    }

    /// Kills fslens (a test that needs no clean shutdown), reads what it wrote before it died,
    /// and checks the answers as [`Editor::stop`] does.
    pub async fn kill(mut self) {
        self.child.kill().await.unwrap();
        self.read_to_end().await;
        self.check_answers();
    }

    /// Reads and tallies every message until fslens closes its stdout; server→client requests
    /// are no longer answered.
    async fn read_to_end(&mut self) {
        loop {
            let frame = tokio::time::timeout(TIMEOUT, self.stdout.read_frame())
                .await
                .expect("fslens did not close its stdout in time");
            let Ok(Some(body)) = frame else { break };
            let message: Value = serde_json::from_slice(&body).unwrap();
            self.tally(&message);
            if message.get("method").is_none() {
                self.unclaimed.insert(message["id"].to_string(), message);
            }
        }
    }

    /// Checks every request was answered exactly once (or, when declared unanswered, at most
    /// once), that no answer names an id never sent, and that no answer was left unclaimed.
    fn check_answers(&mut self) {
        self.checked = true;
        let mut problems = Vec::new();
        for (id, method) in &self.sent {
            let count = self.answers.get(&json!(id).to_string()).copied().unwrap_or(0);
            match self.unanswered.get(id) {
                Some(why) if count > 1 => problems
                    .push(format!("request {id} ({method}, expected unanswered: {why}) was answered {count} times")),
                Some(_) => {}
                None if count != 1 => problems.push(format!("request {id} ({method}) was answered {count} times")),
                None => {}
            }
        }
        for (id, count) in &self.answers {
            if !self.sent.iter().any(|(sent, _)| &json!(sent).to_string() == id) {
                problems.push(format!("{count} answer(s) to id {id}, which the editor never sent"));
            }
        }
        for (id, message) in &self.unclaimed {
            let declared = id.parse::<i64>().is_ok_and(|id| self.unanswered.contains_key(&id));
            if !declared {
                problems.push(format!("the answer to {id} was never claimed by the test: {message}"));
            }
        }
        assert!(problems.is_empty(), "the editor's answers were not exactly once:\n{}", problems.join("\n"));
    }
}

impl Drop for Editor {
    /// Checks the answers read so far, unless `stop` or `kill` did or the test already failed.
    fn drop(&mut self) {
        if !self.checked && !std::thread::panicking() {
            self.check_answers();
        }
    }
}

/// Applies LSP text edits (non-overlapping, positions in the original text) to a text.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let index = fslens::documents::LineIndex::new(text);
    let position = |at: &Value| fslens::documents::Position {
        line: at["line"].as_u64().unwrap() as u32,
        character: at["character"].as_u64().unwrap() as u32,
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|edit| {
            (
                index.offset(text, position(&edit["range"]["start"])),
                index.offset(text, position(&edit["range"]["end"])),
                edit["newText"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    spans.sort_by_key(|span| std::cmp::Reverse(span.0));
    let mut text = text.to_owned();
    for (start, end, new_text) in spans {
        text.replace_range(start..end, &new_text);
    }
    text
}

/// A site of a find or field-impact answer: file, start line, start character, kind and the
/// declaring symbol's full name.
pub type SiteKey = (String, u64, u64, String, String);

/// The sites of a find or field-impact answer (`<null>` where a site names no symbol).
pub fn found_sites(answer: &Value) -> std::collections::BTreeSet<SiteKey> {
    answer_sites(answer)
        .iter()
        .map(|site| {
            let (file, line, character) = site_start(site);
            let symbol = site["symbolFullName"].as_str().unwrap_or("<null>").to_owned();
            (file, line, character, site["kind"].as_str().unwrap().to_owned(), symbol)
        })
        .collect()
}

/// The `sites` array of a find or field-impact answer; panics showing the answer without one.
pub fn answer_sites(answer: &Value) -> &Vec<Value> {
    answer["sites"].as_array().unwrap_or_else(|| panic!("no sites: {answer}"))
}

/// The file, start line and start character of an answer's site.
pub fn site_start(site: &Value) -> (String, u64, u64) {
    (
        site["file"].as_str().unwrap().to_owned(),
        site["range"]["start"]["line"].as_u64().unwrap(),
        site["range"]["start"]["character"].as_u64().unwrap(),
    )
}

/// The environment variable that makes the double write every message it receives and sends,
/// one JSON object per line (`{"dir": "in" | "out", "message": …}`), to a file.
pub const TRANSCRIPT_VARIABLE: &str = "FSAC_DOUBLE_TRANSCRIPT";

/// The entries of the double's transcript file as it is now, in order (empty when it has
/// written none yet).
pub fn transcript_entries(transcript: &Path) -> Vec<Value> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .collect()
}

/// The messages the double received (from fslens), in order.
pub fn received_by_fsac(transcript: &Path) -> Vec<Value> {
    messages_in_direction(transcript, "in")
}

/// The messages the double sent (to fslens), in order.
pub fn sent_by_fsac(transcript: &Path) -> Vec<Value> {
    messages_in_direction(transcript, "out")
}

fn messages_in_direction(transcript: &Path, direction: &str) -> Vec<Value> {
    transcript_entries(transcript)
        .into_iter()
        .filter(|entry| entry["dir"] == json!(direction))
        .map(|entry| entry["message"].clone())
        .collect()
}

/// Waits (up to a minute: under load the double's event loop may be busy compiling) until
/// `messages(transcript)` holds one that `predicate` accepts, and returns it; panics naming
/// `what` otherwise.
pub async fn wait_for_transcript(
    transcript: &Path,
    messages: fn(&Path) -> Vec<Value>,
    what: &str,
    predicate: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + TIMEOUT;
    loop {
        if let Some(found) = messages(transcript).into_iter().find(|message| predicate(message)) {
            return found;
        }
        assert!(std::time::Instant::now() < deadline, "the FSAC double's transcript never showed {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs one CLI subcommand of the real binary with `--json` over `workspace` (its sockets
/// under `runtime`) and parses what it printed on stdout.
pub fn fslens_json(workspace: &Path, runtime: &Path, arguments: &[&str]) -> Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(arguments)
        .arg("--json")
        .arg("--workspace")
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("no JSON from {arguments:?}: {}", String::from_utf8_lossy(&output.stderr)))
}

/// (file, 0-based line, start character, kind) of every row of a find answer.
pub fn site_rows(answer: &Value) -> Vec<(String, u64, u64, String)> {
    answer["sites"]
        .as_array()
        .unwrap_or_else(|| panic!("no sites: {answer:#}"))
        .iter()
        .map(|site| {
            (
                site["file"].as_str().unwrap().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap(),
                site["range"]["start"]["character"].as_u64().unwrap(),
                site["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// One expected row of [`site_rows`].
pub fn site_row(file: &str, line: u64, character: u64, kind: &str) -> (String, u64, u64, String) {
    (file.to_owned(), line, character, kind.to_owned())
}
