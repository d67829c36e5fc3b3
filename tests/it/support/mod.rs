//! The in-memory harness: the real proxy core over duplex streams, an editor driven by the
//! test, and scripted FSAC backends the test plays by hand.
//!
//! The harness counts answers: [`Harness::finish`] fails a test that leaves any editor
//! request unanswered or gets an answer twice (docs/architecture.md, invariant 4).

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fslens::commands::registry::Command;
use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use fslens::proxy::backend::{BackendConnection, BackendLauncher, CommandSource};
use fslens::proxy::main_loop::SessionEnd;
use fslens::proxy::{ProxyConfig, run_proxy};
use serde_json::{Value, json};
use tokio::io::{BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A peer speaking framed JSON over a duplex stream.
pub struct Peer {
    reader: FrameReader<BufReader<ReadHalf<DuplexStream>>>,
    writer: Option<WriteHalf<DuplexStream>>,
}

impl Peer {
    pub fn new_for_tests(reader: ReadHalf<DuplexStream>, writer: WriteHalf<DuplexStream>) -> Self {
        Peer::new(reader, writer)
    }

    fn new(reader: ReadHalf<DuplexStream>, writer: WriteHalf<DuplexStream>) -> Self {
        Peer { reader: FrameReader::new(BufReader::new(reader), FrameLimits::default()), writer: Some(writer) }
    }

    pub async fn send_raw(&mut self, body: &[u8]) {
        let writer = self.writer.as_mut().expect("peer writer closed");
        write_frame(writer, body).await.expect("write to proxy");
    }

    pub async fn send_bytes_unframed(&mut self, bytes: &[u8]) {
        use tokio::io::AsyncWriteExt;
        let writer = self.writer.as_mut().expect("peer writer closed");
        writer.write_all(bytes).await.expect("write to proxy");
        writer.flush().await.expect("flush");
    }

    pub async fn send(&mut self, value: Value) {
        self.send_raw(&serde_json::to_vec(&value).unwrap()).await;
    }

    /// The next frame body, or `None` at end of stream. Panics after [`TIMEOUT`].
    pub async fn recv_raw(&mut self) -> Option<Vec<u8>> {
        match tokio::time::timeout(TIMEOUT, self.reader.read_frame()).await {
            Ok(Ok(body)) => body,
            Ok(Err(error)) => panic!("bad frame from the proxy: {error}"),
            Err(_) => panic!("no message from the proxy within {TIMEOUT:?}"),
        }
    }

    pub async fn recv(&mut self) -> Value {
        let body = self.recv_raw().await.expect("the proxy closed the stream");
        serde_json::from_slice(&body).expect("the proxy sent invalid JSON")
    }

    /// Receives until a message satisfies `predicate`; returns it and what came before.
    pub async fn recv_until(&mut self, predicate: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let mut skipped = Vec::new();
        loop {
            let message = self.recv().await;
            if predicate(&message) {
                return (message, skipped);
            }
            skipped.push(message);
        }
    }

    pub async fn recv_method(&mut self, method: &str) -> Value {
        self.recv_until(|message| message["method"] == method).await.0
    }

    /// Closes the write side so the proxy reads end of stream (dropping one half of a split
    /// duplex stream is not enough).
    pub async fn close(&mut self) {
        use tokio::io::AsyncWriteExt;
        if let Some(mut writer) = self.writer.take() {
            let _ = writer.shutdown().await;
        }
    }
}

/// A scripted FSAC: the test reads what the proxy sent and answers by hand.
pub struct ScriptedBackend {
    pub peer: Peer,
    pub stderr: Option<WriteHalf<DuplexStream>>,
    exit: Option<oneshot::Sender<Option<i32>>>,
    pub killed: oneshot::Receiver<()>,
    pub workspace_root: std::path::PathBuf,
}

impl ScriptedBackend {
    /// Ends the backend as a crash would: streams closed, then the exit code.
    pub async fn die(mut self, code: Option<i32>, stderr: &str) {
        use tokio::io::AsyncWriteExt;
        if let Some(mut writer) = self.stderr.take() {
            writer.write_all(stderr.as_bytes()).await.unwrap();
            writer.shutdown().await.unwrap();
        }
        self.peer.close().await;
        drop(self.peer);
        if let Some(exit) = self.exit.take() {
            let _ = exit.send(code);
        }
    }

    /// Answers `initialize` like FSAC would, returning the params FSAC received.
    pub async fn answer_initialize(&mut self) -> Value {
        let request = self.peer.recv().await;
        assert_eq!(request["method"], "initialize", "first message to FSAC must be initialize");
        self.peer
            .send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {
                "capabilities": {"hoverProvider": true, "textDocumentSync": {"openClose": true, "change": 2}},
                "serverInfo": {"name": "FsAutoComplete", "version": "0.83.0"}
            }}))
            .await;
        request["params"].clone()
    }
}

impl Peer {
    /// Turns the peer into a channel of received messages (`None` at end of stream) and its
    /// writer, so a test can poll without ever cancelling a read halfway through a frame.
    pub fn into_channel(mut self) -> (mpsc::UnboundedReceiver<Option<Value>>, WriteHalf<DuplexStream>) {
        let writer = self.writer.take().expect("peer writer closed");
        (frames_into_channel(self.reader), writer)
    }
}

/// Reads frames from `reader` on a task of its own and sends each message (`None` for a body
/// that is not JSON) on the returned channel, then `None` once at the end of the stream or
/// at a framing error.
pub fn frames_into_channel<R>(mut reader: FrameReader<R>) -> mpsc::UnboundedReceiver<Option<Value>>
where
    R: tokio::io::AsyncBufRead + Unpin + Send + 'static,
{
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(body)) = reader.read_frame().await {
            let _ = sender.send(serde_json::from_slice(&body).ok());
        }
        let _ = sender.send(None);
    });
    receiver
}

/// A scripted backend taken apart: what it receives, its writer, and its exit-code sender.
pub type BackendParts =
    (mpsc::UnboundedReceiver<Option<Value>>, WriteHalf<DuplexStream>, Option<oneshot::Sender<Option<i32>>>);

impl ScriptedBackend {
    /// The received-message channel, the writer, and the sender of the exit code.
    /// FSAC's diagnostics for `uri`, then its report that `version` was analysed.
    pub async fn analysed(&mut self, uri: &str, version: i64, diagnostics: Value) {
        self.peer.send(json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": diagnostics}})).await;
        self.peer.send(json!({"jsonrpc": "2.0", "method": "fsharp/documentAnalyzed", "params": {"textDocument": {"uri": uri, "version": version}}})).await;
    }

    pub fn into_parts(mut self) -> BackendParts {
        let exit = self.exit.take();
        let (receiver, writer) = self.peer.into_channel();
        (receiver, writer, exit)
    }
}

/// Hands each launch's backend to the test through a channel.
pub struct ScriptedLauncher {
    backends: mpsc::UnboundedSender<ScriptedBackend>,
    pub fail_launch: Option<String>,
}

impl ScriptedLauncher {
    pub fn new() -> (ScriptedLauncher, mpsc::UnboundedReceiver<ScriptedBackend>) {
        let (backends, receiver) = mpsc::unbounded_channel();
        (ScriptedLauncher { backends, fail_launch: None }, receiver)
    }
}

impl BackendLauncher for ScriptedLauncher {
    fn describe(&self) -> String {
        "scripted backend".to_owned()
    }

    fn source(&self) -> Option<CommandSource> {
        Some(CommandSource::Flag)
    }

    fn launch(&mut self, workspace_root: &Path) -> anyhow::Result<BackendConnection> {
        if let Some(reason) = &self.fail_launch {
            anyhow::bail!("{reason}");
        }
        let (proxy_side, backend_side) = tokio::io::duplex(1 << 16);
        let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
        let (backend_read, backend_write) = tokio::io::split(backend_side);
        let (stderr_proxy, stderr_backend) = tokio::io::duplex(1 << 12);
        let (stderr_read, _unused_write) = tokio::io::split(stderr_proxy);
        let (_unused_read, stderr_write) = tokio::io::split(stderr_backend);
        let (exit_sender, exit) = oneshot::channel();
        let (kill, killed) = oneshot::channel();
        let backend = ScriptedBackend {
            peer: Peer::new(backend_read, backend_write),
            stderr: Some(stderr_write),
            exit: Some(exit_sender),
            killed,
            workspace_root: workspace_root.to_owned(),
        };
        self.backends.send(backend).map_err(|_| anyhow::anyhow!("test is gone"))?;
        Ok(BackendConnection {
            stdout: Box::new(proxy_read),
            stdin: Box::new(proxy_write),
            stderr: Some(Box::new(stderr_read)),
            pid: Some(4242),
            exit,
            kill: Some(kill),
        })
    }
}

/// The proxy core with a test-driven editor and scripted backends.
pub struct Harness {
    pub editor: Peer,
    backends: mpsc::UnboundedReceiver<ScriptedBackend>,
    session: Option<JoinHandle<anyhow::Result<SessionEnd>>>,
    next_id: i64,
    sent: Vec<Value>,
    answers: HashMap<String, usize>,
    unclaimed: HashMap<String, Value>,
    /// Every message the editor received, in order.
    pub received: Vec<Value>,
}

pub struct HarnessOptions {
    pub with_backend: bool,
    pub fail_launch: Option<String>,
    pub exit_grace: Duration,
    pub restart_policy: fslens::proxy::supervisor::RestartPolicy,
    pub unresponsive_after: Duration,
    pub workspace_root: Option<std::path::PathBuf>,
}

impl Default for HarnessOptions {
    fn default() -> Self {
        HarnessOptions {
            with_backend: true,
            fail_launch: None,
            exit_grace: Duration::from_millis(500),
            restart_policy: fslens::proxy::supervisor::RestartPolicy {
                initial_backoff: Duration::from_millis(20),
                max_backoff: Duration::from_millis(200),
                ..Default::default()
            },
            unresponsive_after: Duration::from_secs(30),
            workspace_root: None,
        }
    }
}

impl Harness {
    pub fn start() -> Harness {
        Harness::start_with(HarnessOptions::default())
    }

    pub fn start_with(options: HarnessOptions) -> Harness {
        let _ = tracing_subscriber::fmt()
            .with_test_writer()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .try_init();
        let (editor_side, proxy_side) = tokio::io::duplex(1 << 16);
        let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
        let (editor_read, editor_write) = tokio::io::split(editor_side);
        let (backend_sender, backends) = mpsc::unbounded_channel();
        let launcher = ScriptedLauncher { backends: backend_sender, fail_launch: options.fail_launch };
        let mut config = if options.with_backend {
            ProxyConfig::new(Some(Box::new(launcher)), "")
        } else {
            ProxyConfig::new(None, "no FSAC found (test)")
        };
        config.workspace_root = Some(options.workspace_root.clone().unwrap_or_else(std::env::temp_dir));
        config.exit_grace = options.exit_grace;
        config.restart_policy = options.restart_policy;
        config.unresponsive_after = options.unresponsive_after;
        let session = tokio::spawn(run_proxy(proxy_read, proxy_write, config));
        Harness {
            editor: Peer::new(editor_read, editor_write),
            backends,
            session: Some(session),
            next_id: 1,
            sent: Vec::new(),
            answers: HashMap::new(),
            unclaimed: HashMap::new(),
            received: Vec::new(),
        }
    }

    /// The backend the proxy launched next.
    pub async fn backend(&mut self) -> ScriptedBackend {
        tokio::time::timeout(TIMEOUT, self.backends.recv()).await.expect("no backend launched").expect("launcher gone")
    }

    /// Sends a request from the editor and returns its id.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.request_with_id(id.clone(), method, params).await;
        id
    }

    pub async fn request_with_id(&mut self, id: Value, method: &str, params: Value) {
        self.sent.push(id.clone());
        self.editor.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    }

    /// Opens a document as an editor would: `didOpen`, F#, version 1.
    pub async fn open_document(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": 1, "text": text}}),
        )
        .await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.editor.send(json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
    }

    /// The next message to the editor, tallying responses.
    pub async fn recv(&mut self) -> Value {
        let message = self.editor.recv().await;
        self.tally(&message);
        message
    }

    fn tally(&mut self, message: &Value) {
        if message.get("method").is_none() {
            *self.answers.entry(message["id"].to_string()).or_default() += 1;
        }
        self.received.push(message.clone());
    }

    /// The response to `id`: one received earlier and not yet claimed, or the next to come.
    pub async fn response(&mut self, id: &Value) -> Value {
        if let Some(message) = self.unclaimed.remove(&id.to_string()) {
            return message;
        }
        loop {
            let message = self.recv().await;
            if message.get("method").is_none() {
                if &message["id"] == id {
                    return message;
                }
                self.unclaimed.insert(message["id"].to_string(), message);
            }
        }
    }

    pub async fn initialize(&mut self, backend: Option<&mut ScriptedBackend>) -> Value {
        let id = self.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": {}})).await;
        if let Some(backend) = backend {
            backend.answer_initialize().await;
        }
        let response = self.response(&id).await;
        self.notify("initialized", json!({})).await;
        response
    }

    /// Sends `initialize`, lets the launched backend answer it like FSAC, and returns that
    /// backend once the editor has the answer.
    pub async fn initialize_with_backend(&mut self) -> ScriptedBackend {
        let initialize = self.request("initialize", json!({"capabilities": {}})).await;
        let mut backend = self.backend().await;
        backend.answer_initialize().await;
        self.response(&initialize).await;
        backend
    }

    pub async fn execute(&mut self, command: &str, argument: Value) -> Value {
        let id = self.start_command(command, argument).await;
        self.response(&id).await
    }

    /// Runs `command` from the command table with `argument`; returns the whole answer.
    pub async fn execute_command(&mut self, command: Command, argument: impl serde::Serialize) -> Value {
        self.execute(command.id(), serde_json::to_value(argument).unwrap()).await
    }

    /// The result of [`Harness::execute_command`] as a `T`; panics showing the answer when it
    /// is an error or not a `T`.
    pub async fn execute_as<T: serde::de::DeserializeOwned>(
        &mut self,
        command: Command,
        argument: impl serde::Serialize,
    ) -> T {
        let answer = self.execute_command(command, argument).await;
        let result = answer.get("result").unwrap_or_else(|| panic!("{} failed: {answer}", command.id()));
        serde_json::from_value(result.clone()).unwrap_or_else(|error| {
            panic!("{} answered what is not the expected type ({error}): {result}", command.id())
        })
    }

    /// Sends `workspace/executeCommand` for `command` and returns its id without waiting.
    pub async fn start_command(&mut self, command: &str, argument: Value) -> Value {
        self.request("workspace/executeCommand", json!({"command": command, "arguments": [argument]})).await
    }

    /// A session whose workspace root is `root`, with a scripted FSAC behind it.
    pub fn start_in(root: &std::path::Path) -> Harness {
        Harness::start_with(HarnessOptions { workspace_root: Some(root.to_owned()), ..HarnessOptions::default() })
    }

    /// Initializes with a scripted FSAC that then reports the workspace loaded, and waits
    /// until `fslens.status` says `ready`.
    pub async fn ready_backend(&mut self) -> ScriptedBackend {
        let mut backend = self.initialize_with_backend().await;
        let finished = json!({"Kind": "workspaceLoad", "Data": {"Status": "finished"}}).to_string();
        backend
            .peer
            .send(json!({"jsonrpc": "2.0", "method": "fsharp/notifyWorkspace", "params": {"content": finished}}))
            .await;
        let status = self.execute("fslens.status", json!({"waitUntil": "ready", "timeoutMs": 5000})).await;
        assert_eq!(status["result"]["state"], json!("ready"), "{status}");
        backend
    }

    /// Ends the session with shutdown + exit and checks every request was answered once.
    pub async fn finish(mut self, backend: Option<ScriptedBackend>) -> SessionEnd {
        let id = self.request("shutdown", Value::Null).await;
        let mut backend = backend;
        if let Some(backend) = backend.as_mut() {
            let (shutdown, _) = backend.peer.recv_until(|message| message["method"] == "shutdown").await;
            backend.peer.send(json!({"jsonrpc": "2.0", "id": shutdown["id"], "result": null})).await;
        }
        self.response(&id).await;
        self.notify("exit", Value::Null).await;
        if let Some(backend) = backend {
            let mut backend = backend;
            backend.peer.recv_method("exit").await;
            backend.die(Some(0), "").await;
        }
        self.finish_without_shutdown().await
    }

    /// Drains the editor stream to its end, then checks answers were exactly once.
    pub async fn finish_without_shutdown(mut self) -> SessionEnd {
        while let Some(body) = self.editor.recv_raw().await {
            let message: Value = serde_json::from_slice(&body).unwrap();
            self.tally(&message);
        }
        let end = tokio::time::timeout(TIMEOUT, self.session.take().unwrap())
            .await
            .expect("session did not end")
            .expect("session panicked")
            .expect("session failed");
        for id in &self.sent {
            let count = self.answers.get(&id.to_string()).copied().unwrap_or(0);
            assert_eq!(count, 1, "request {id} was answered {count} times");
        }
        for (id, count) in &self.answers {
            assert!(self.sent.iter().any(|sent| &sent.to_string() == id), "answer to unknown request {id} ({count}×)");
        }
        end
    }
}

pub mod dotnet;
pub mod double;
pub mod editors;
pub mod markers;
pub mod mcp;
pub mod syntax_find;

/// A shared session of the real proxy core over in-memory pipes: an editor connection, a
/// scripted launcher whose backends the test plays, a supervisor that restarts a dead backend
/// after a millisecond or two (and never gives up), and a session socket other clients join.
pub struct SharedSession {
    pub session: JoinHandle<anyhow::Result<SessionEnd>>,
    /// What the proxy sends the editor (`None` at the end of the stream).
    pub editor_in: mpsc::UnboundedReceiver<Option<Value>>,
    pub editor_out: WriteHalf<DuplexStream>,
    pub backends: mpsc::UnboundedReceiver<ScriptedBackend>,
    /// The session's socket (there once the editor's `initialize` is answered).
    pub socket: std::path::PathBuf,
    /// The session directory and the workspace: keep them alive as long as the session.
    pub directories: [tempfile::TempDir; 2],
}

impl SharedSession {
    pub fn start() -> SharedSession {
        let session_directory = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let (launcher, backends) = ScriptedLauncher::new();
        let mut config = ProxyConfig::new(Some(Box::new(launcher)), "");
        config.workspace_root = Some(workspace.path().to_owned());
        config.share_session = true;
        config.session_directory = Some(session_directory.path().join("fslens"));
        config.exit_grace = Duration::from_millis(200);
        config.restart_policy = fslens::proxy::supervisor::RestartPolicy {
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(2),
            max_crashes_in_window: 10_000,
            ..Default::default()
        };
        let (editor_side, proxy_side) = tokio::io::duplex(1 << 20);
        let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
        let session = tokio::spawn(run_proxy(proxy_read, proxy_write, config));
        let (editor_read, editor_write) = tokio::io::split(editor_side);
        let (editor_in, editor_out) = Peer::new_for_tests(editor_read, editor_write).into_channel();
        let socket = fslens::session::socket_path(
            &session_directory.path().join("fslens"),
            &workspace.path().canonicalize().unwrap(),
        );
        SharedSession { session, editor_in, editor_out, backends, socket, directories: [session_directory, workspace] }
    }
}

/// Connects a client to a session socket: what it receives (`None` at the end) and its writer.
pub async fn connect_session_client(
    socket: &Path,
) -> (mpsc::UnboundedReceiver<Option<Value>>, tokio::net::unix::OwnedWriteHalf) {
    let stream = tokio::net::UnixStream::connect(socket).await.expect("session socket");
    let (read, writer) = stream.into_split();
    (frames_into_channel(FrameReader::new(BufReader::new(read), FrameLimits::default())), writer)
}

/// Every file under `directory` (recursively) whose extension is `extension`, sorted.
pub fn files_under(directory: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![directory.to_path_buf()];
    while let Some(directory) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|found| found == extension) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
