//! The main loop: one task that owns all routing and document state.
//!
//! Peers are served by reader and writer tasks that only move frames; every decision is made
//! here, one event at a time, so notifications keep their arrival order (invariant 3) and no
//! state is shared. The loop never awaits a peer: writes go to unbounded queues drained by
//! the writer tasks, and commands run as tasks of their own that talk back through events.
//!
//! Every request that enters gets exactly one answer (invariant 4): forwarded requests are
//! remembered until FSAC answers them, and when FSAC goes away every remembered request is
//! answered with an error at once.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

use crate::commands::context::{
    CommandContext, CommandKey, Origin, SessionEnded, SessionHandles, SessionInbox, SessionRequest, WhatIfText,
};
use crate::commands::{self, CommandError};
use crate::documents::DocumentMirror;
use crate::lsp::codec::{FrameLimits, FrameReader, write_frame_unflushed};
use crate::lsp::ext;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, MessageKind, RequestId, ResponseError, error_codes, salvage_request_id};
use crate::proxy::backend::{BackendConnection, BackendLauncher, StderrTail, stderr_task};
use crate::proxy::initialize;
use crate::proxy::memory::{MemoryGuard, MemoryGuardConfig};
use crate::proxy::readiness::Readiness;
use crate::proxy::supervisor::{Decision, RestartPolicy, Supervisor};
use crate::proxy::trace::{Direction, Tracer};
use crate::session_state::analysis::{AnalysisSnapshot, AnalysisStore};
use crate::session_state::proxy_ids::ProxyIds;
use crate::session_state::status::StatusSnapshot;

/// Everything the proxy needs to run one editor session.
pub struct ProxyConfig {
    /// The workspace root; when `None` it is taken from `initialize` (`rootUri`, `rootPath`),
    /// else the current directory.
    pub workspace_root: Option<PathBuf>,
    /// How to start FSAC; `None` when no FSAC was found (the reason is `absent_reason`).
    pub launcher: Option<Box<dyn BackendLauncher>>,
    pub absent_reason: String,
    pub tracer: Tracer,
    pub limits: FrameLimits,
    /// How long FSAC may take to exit after `exit` or end of input before it is killed.
    pub exit_grace: Duration,
    /// How FSAC is restarted after a crash.
    pub restart_policy: RestartPolicy,
    /// FSAC silent this long while requests are pending marks the session unresponsive.
    pub unresponsive_after: Duration,
    /// Serve the session socket so other clients (MCP, CLI) can join this session.
    pub share_session: bool,
    /// The directory for session sockets (default: `session::runtime_directory`).
    pub session_directory: Option<PathBuf>,
    /// FSAC's memory: how often it is sampled and the limit that plans a restart.
    pub memory_guard: MemoryGuardConfig,
    /// Test hook: a session client's read of a closed file waits until this file exists
    /// (`fslens` sets it from [`CLIENT_READ_GATE_VARIABLE`]; `None` everywhere else).
    pub client_read_gate: Option<PathBuf>,
}

impl ProxyConfig {
    pub fn new(launcher: Option<Box<dyn BackendLauncher>>, absent_reason: impl Into<String>) -> Self {
        ProxyConfig {
            workspace_root: None,
            launcher,
            absent_reason: absent_reason.into(),
            tracer: Tracer::default(),
            limits: FrameLimits::default(),
            exit_grace: Duration::from_secs(2),
            restart_policy: RestartPolicy::default(),
            unresponsive_after: Duration::from_secs(30),
            share_session: false,
            session_directory: None,
            memory_guard: MemoryGuardConfig::default(),
            client_read_gate: None,
        }
    }
}

/// How the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionEnd {
    /// The process exit code LSP prescribes: 0 after `shutdown`, 1 for `exit` without it.
    pub exit_code: i32,
}

enum Event {
    Editor(EditorEvent),
    Backend {
        generation: u64,
        event: BackendEvent,
    },
    /// A running command asks something of the session.
    Command(SessionRequest),
    /// A command's task ended with its answer.
    CommandFinished {
        key: CommandKey,
        result: Result<Value, CommandError>,
    },
    ClientConnected(tokio::net::UnixStream),
    Client {
        client: u64,
        event: ClientEvent,
    },
    /// A sample of FSAC generation `generation`'s resident memory (`None`: unknown).
    MemorySample {
        generation: u64,
        rss: Option<u64>,
    },
}

enum ClientEvent {
    Message(Message),
    BadFrame {
        error: String,
        salvaged_id: Option<RequestId>,
    },
    Closed,
    /// The disk text of a closed file that a read-only request needs, read off the loop.
    FileRead {
        id: RequestId,
        method: String,
        params: Value,
        uri: String,
        text: Result<String, String>,
    },
}

enum EditorEvent {
    Message(Message),
    BadFrame { error: String, salvaged_id: Option<RequestId> },
    Closed { error: Option<String> },
}

enum BackendEvent {
    Message(Message),
    Exited { code: Option<i32>, stderr_tail: String },
}

/// The main loop's event queue, as the commands' [`SessionInbox`].
struct MainLoopInbox(mpsc::UnboundedSender<Event>);

impl SessionInbox for MainLoopInbox {
    fn post(&self, request: SessionRequest) -> Result<(), SessionEnded> {
        self.0.send(Event::Command(request)).map_err(|_| SessionEnded)
    }
}

struct RunningBackend {
    generation: u64,
    to_backend: Option<mpsc::UnboundedSender<Bytes>>,
    pid: Option<u32>,
    kill: Option<oneshot::Sender<()>>,
    started: Instant,
    initialize_answered: bool,
    /// Started by the supervisor: editor traffic waits until the replay is done.
    replaying: bool,
    /// The task sampling this FSAC's memory; it ends with the backend.
    memory_sampler: Option<AbortHandle>,
}

impl Drop for RunningBackend {
    fn drop(&mut self) {
        if let Some(sampler) = self.memory_sampler.take() {
            sampler.abort();
        }
    }
}

/// A document fslens opened in FSAC on behalf of commands.
struct ProxyDocument {
    uri: String,
    version: i64,
    text: String,
    holders: std::collections::HashSet<CommandKey>,
}

struct PendingForward {
    method: String,
}

/// Who is waiting for the answer to a request fslens sent to FSAC.
enum ProxyCall {
    /// A command task.
    Command { owner: CommandKey, reply: oneshot::Sender<Result<Value, ResponseError>> },
    /// A read-only LSP request of a session client, answered back to it under its own id.
    Client { client: u64, id: RequestId },
    /// The `initialize` of a restarted FSAC: its answer starts the replay.
    RestartInitialize,
    /// A replayed request whose answer nobody needs (e.g. `fsharp/workspaceLoad`).
    Ignored,
}

impl ProxyCall {
    fn owner(&self) -> Option<&CommandKey> {
        match self {
            ProxyCall::Command { owner, .. } => Some(owner),
            _ => None,
        }
    }

    /// Answers whoever waits with `error`; returns the client answer to send, if any.
    fn fail(self, error: ResponseError) -> Option<(u64, Message)> {
        match self {
            ProxyCall::Command { reply, .. } => {
                let _ = reply.send(Err(error));
                None
            }
            ProxyCall::Client { client, id, .. } => Some((client, Message::response_error(id, &error))),
            ProxyCall::RestartInitialize | ProxyCall::Ignored => None,
        }
    }
}

struct Proxy {
    events: mpsc::UnboundedSender<Event>,
    editor_out: Option<mpsc::UnboundedSender<Bytes>>,
    tracer: Tracer,
    limits: FrameLimits,
    exit_grace: Duration,
    launcher: Option<Box<dyn BackendLauncher>>,
    configured_root: Option<PathBuf>,
    workspace_root: Option<PathBuf>,
    documents: DocumentMirror,
    /// Documents fslens opened in FSAC for its commands (never open in the editor), by
    /// canonical URI.
    proxy_documents: HashMap<String, ProxyDocument>,
    analysis: AnalysisStore,
    analysis_changes: watch::Sender<u64>,
    syntax_index: Arc<crate::syntax::index::SyntaxIndex>,
    warm_workspaces: Arc<crate::commands::symbols::warmup::WarmWorkspaces>,
    readiness: Readiness,
    changes: watch::Sender<u64>,
    backend: Option<RunningBackend>,
    backend_generations: u64,
    last_backend_pid: Option<u32>,
    last_stderr_tail: String,
    editor_to_fsac: HashMap<RequestId, PendingForward>,
    fsac_to_editor: HashMap<RequestId, String>,
    proxy_to_editor: HashMap<RequestId, oneshot::Sender<Result<Value, ResponseError>>>,
    /// The client capabilities the editor declared in `initialize`.
    editor_capabilities: Value,
    proxy_to_fsac: HashMap<RequestId, ProxyCall>,
    commands: HashMap<CommandKey, AbortHandle>,
    clients: HashMap<u64, mpsc::UnboundedSender<Bytes>>,
    next_client: u64,
    share_session: bool,
    session_directory: Option<PathBuf>,
    session_socket: Option<PathBuf>,
    /// Mints the ids of the requests fslens itself sends (shared with the commands).
    proxy_ids: Arc<ProxyIds>,
    initialize_received: bool,
    automatic_workspace_init: bool,
    shutdown_received: bool,
    exit_deadline: Option<tokio::time::Instant>,
    exit_code: i32,
    started: Instant,
    supervisor: Supervisor,
    restart_at: Option<tokio::time::Instant>,
    restart_requested: bool,
    /// What a restarted FSAC is told again: the editor's initialize params (as patched for
    /// FSAC), its `initialized`, its last configuration and its last workspace choice.
    initialize_params_for_fsac: Option<Value>,
    replay_initialized: Option<Message>,
    replay_configuration: Option<Message>,
    replay_workspace_load: Option<Value>,
    unresponsive_after: Duration,
    last_heard_from_fsac: Instant,
    unresponsive: bool,
    /// The editor's initialize was answered successfully once; later exits are crashes.
    supervisor_generation_answered: bool,
    /// Session-client requests waiting for the disk text of a closed file (read on a blocking
    /// thread, never on this loop); a cancel or the client leaving removes them.
    client_reads: HashSet<(u64, RequestId)>,
    /// FSAC's sampled memory and the planned restart its limit asks for.
    memory: MemoryGuard,
    /// Ids of requests an exited FSAC sent the editor that the editor has not answered yet.
    stale_fsac_requests: HashSet<RequestId>,
    /// Requests of the current FSAC the editor sees under another id (because an exited
    /// FSAC's unanswered request had the same id): editor-facing id → FSAC's id.
    renamed_fsac_requests: HashMap<RequestId, RequestId>,
    /// A planned restart killed FSAC: its exit is expected and it is started again at once.
    planned_restart_underway: bool,
    /// Why this session does not serve its socket (another live session serves the workspace,
    /// or the directory is unsafe); `None` while serving or when sharing is off.
    session_not_shared: Option<String>,
    /// When to try the socket again: another session served it, and may have ended.
    session_retry_at: Option<Instant>,
    /// Documents FSAC sees hypothetical texts of while what-if checks run.
    what_if: crate::proxy::what_if::WhatIfState<CommandKey>,
    /// Test hook (see [`ProxyConfig::client_read_gate`]).
    client_read_gate: Option<PathBuf>,
}

/// Runs one editor session over the given byte streams until `exit` or end of input.
pub async fn run_proxy<R, W>(editor_in: R, editor_out: W, config: ProxyConfig) -> anyhow::Result<SessionEnd>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (events, mut event_receiver) = mpsc::unbounded_channel();
    let (editor_sender, editor_queue) = mpsc::unbounded_channel();
    let editor_writer = tokio::spawn(writer_task(editor_out, editor_queue, "editor"));
    tokio::spawn(editor_reader_task(editor_in, config.limits, events.clone()));

    let readiness = match &config.launcher {
        Some(_) => Readiness::absent("FSAC starts when the editor sends initialize"),
        None => Readiness::absent(config.absent_reason.clone()),
    };
    let mut proxy = Proxy {
        events,
        editor_out: Some(editor_sender),
        tracer: config.tracer,
        limits: config.limits,
        exit_grace: config.exit_grace,
        launcher: config.launcher,
        configured_root: config.workspace_root,
        workspace_root: None,
        documents: DocumentMirror::default(),
        proxy_documents: HashMap::new(),
        analysis: AnalysisStore::default(),
        analysis_changes: watch::channel(0).0,
        syntax_index: Arc::new(crate::syntax::index::SyntaxIndex::new(crate::syntax::index::IndexOptions::default())),
        warm_workspaces: Arc::new(crate::commands::symbols::warmup::WarmWorkspaces::new()),
        readiness,
        changes: watch::channel(0).0,
        backend: None,
        backend_generations: 0,
        last_backend_pid: None,
        last_stderr_tail: String::new(),
        editor_to_fsac: HashMap::new(),
        fsac_to_editor: HashMap::new(),
        proxy_to_editor: HashMap::new(),
        editor_capabilities: Value::Null,
        proxy_to_fsac: HashMap::new(),
        commands: HashMap::new(),
        clients: HashMap::new(),
        next_client: 1,
        share_session: config.share_session,
        session_directory: config.session_directory,
        session_socket: None,
        proxy_ids: Arc::new(ProxyIds::default()),
        initialize_received: false,
        automatic_workspace_init: false,
        shutdown_received: false,
        exit_deadline: None,
        exit_code: 0,
        started: Instant::now(),
        supervisor: Supervisor::new(config.restart_policy),
        restart_at: None,
        restart_requested: false,
        initialize_params_for_fsac: None,
        replay_initialized: None,
        replay_configuration: None,
        replay_workspace_load: None,
        unresponsive_after: config.unresponsive_after,
        last_heard_from_fsac: Instant::now(),
        unresponsive: false,
        supervisor_generation_answered: false,
        client_reads: HashSet::new(),
        memory: MemoryGuard::new(config.memory_guard),
        stale_fsac_requests: HashSet::new(),
        renamed_fsac_requests: HashMap::new(),
        planned_restart_underway: false,
        session_not_shared: None,
        session_retry_at: None,
        what_if: Default::default(),
        client_read_gate: config.client_read_gate,
    };
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    loop {
        if proxy.is_finished() {
            break;
        }
        let deadline = proxy.exit_deadline;
        let restart_at = proxy.restart_at;
        tokio::select! {
            event = event_receiver.recv() => match event {
                Some(event) => {
                    proxy.handle(event);
                    proxy.carry_out_planned_restart_when_due();
                }
                None => break,
            },
            _ = sleep_until_option(deadline), if deadline.is_some() => {
                tracing::warn!("FSAC did not exit within {:?}; killing it", proxy.exit_grace);
                                proxy.kill_backend();
                break;
            }
            _ = sleep_until_option(restart_at), if restart_at.is_some() => proxy.restart_backend(),
            _ = tick.tick() => {
                proxy.check_responsiveness();
                proxy.carry_out_planned_restart_when_due();
                proxy.retry_session_socket_when_due();
            }
        }
    }

    let exit_code = proxy.exit_code;
    proxy.kill_backend();
    for (_, abort) in proxy.commands.drain() {
        abort.abort();
    }
    // Let the editor writer drain everything queued before the session ends.
    drop(proxy);
    let _ = editor_writer.await;
    Ok(SessionEnd { exit_code })
}

async fn sleep_until_option(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl Proxy {
    fn is_finished(&self) -> bool {
        self.exit_deadline.is_some() && self.backend.is_none()
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Editor(EditorEvent::Message(message)) => self.on_editor_message(message),
            Event::Editor(EditorEvent::BadFrame { error, salvaged_id }) => {
                tracing::warn!("bad frame from the editor: {error}");
                if let Some(id) = salvaged_id {
                    let error = ResponseError::new(
                        error_codes::PARSE_ERROR,
                        format!("fslens could not read this request: {error}"),
                    );
                    self.send_to_editor(&Message::response_error(id, &error));
                }
            }
            Event::Editor(EditorEvent::Closed { error }) => {
                match error {
                    Some(error) => tracing::warn!("editor stream failed: {error}"),
                    None => tracing::info!("editor closed its stream"),
                }
                self.begin_exit(if self.shutdown_received { 0 } else { 1 });
            }
            Event::Backend { generation, event } => {
                let current = self.backend.as_ref().map(|backend| backend.generation);
                if current != Some(generation) {
                    return;
                }
                match event {
                    BackendEvent::Message(message) => self.on_backend_message(message),
                    BackendEvent::Exited { code, stderr_tail } => self.on_backend_exited(code, stderr_tail),
                }
            }
            Event::Command(request) => self.on_session_request(request),
            Event::CommandFinished { key, result } => self.on_command_finished(key, result),
            Event::ClientConnected(stream) => self.on_client_connected(stream),
            Event::Client { client, event } => self.on_client_event(client, event),
            Event::MemorySample { generation, rss } => self.on_memory_sample(generation, rss),
        }
    }

    // ----- editor → proxy -------------------------------------------------------------------

    fn on_editor_message(&mut self, message: Message) {
        self.tracer.record(Direction::EditorToProxy, message.bytes());
        match message.kind.clone() {
            MessageKind::Request { id, method } => self.on_editor_request(id, &method, message),
            MessageKind::Notification { method } => self.on_editor_notification(&method, message),
            MessageKind::Response { id, .. } => self.on_editor_response(id, message),
        }
    }

    fn on_editor_request(&mut self, id: RequestId, method: &str, message: Message) {
        if self.exit_deadline.is_some() {
            return self.reply_error(id, ResponseError::new(error_codes::INVALID_REQUEST, "the session is exiting"));
        }
        match method {
            "initialize" => self.on_initialize(id, message),
            "shutdown" => {
                self.shutdown_received = true;
                if self.backend_accepts_requests() {
                    self.forward_request(id, method, message);
                } else {
                    self.send_to_editor(&Message::response_ok(id, Value::Null));
                }
            }
            "workspace/executeCommand" => {
                let params = message.params().unwrap_or(Value::Null);
                let command = params.get("command").and_then(Value::as_str).unwrap_or_default().to_owned();
                if command.starts_with(ext::commands::PREFIX) {
                    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
                    self.start_command(Origin::Editor, id, command, arguments);
                } else {
                    self.forward_request(id, method, message);
                }
            }
            "fsharp/workspaceLoad" => {
                // An editor that chooses projects itself (Ionide) is replayed after a restart.
                self.replay_workspace_load = message.params().ok();
                self.forward_request(id, method, message);
            }
            _ => self.forward_request(id, method, message),
        }
    }

    fn on_editor_notification(&mut self, method: &str, message: Message) {
        match method {
            "exit" => {
                self.forward_notification(message);
                self.begin_exit(if self.shutdown_received { 0 } else { 1 });
                return;
            }
            "initialized" => self.replay_initialized = Some(message.clone()),
            "workspace/didChangeConfiguration" => self.replay_configuration = Some(message.clone()),
            "$/cancelRequest" => {
                let params = message.params().unwrap_or(Value::Null);
                if let Some(id) = params.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
                    && self.commands.contains_key(&(Origin::Editor, id.clone()))
                {
                    self.cancel_command((Origin::Editor, id));
                    return;
                }
            }
            "textDocument/didOpen" | "textDocument/didChange" | "textDocument/didClose" | "textDocument/didSave"
                if self.is_held_by_what_if(&message) =>
            {
                return self.hold_for_what_if(method, message);
            }
            "textDocument/didOpen" | "textDocument/didChange" | "textDocument/didClose" => {
                // The mirror is updated before the message is forwarded (invariant 3).
                let params = message.params().unwrap_or(Value::Null);
                // An open or a change gives FSAC new text: the empty-document rule needs when.
                let sent_text_of = (method != "textDocument/didClose")
                    .then(|| params.pointer("/textDocument/uri").and_then(Value::as_str).map(str::to_owned))
                    .flatten();
                if method == "textDocument/didOpen"
                    && let Some(uri) = params.pointer("/textDocument/uri").and_then(Value::as_str)
                {
                    self.hand_proxy_document_to_editor(uri);
                }
                let applied = match method {
                    "textDocument/didOpen" => self.documents.did_open(params),
                    "textDocument/didChange" => self.documents.did_change(params),
                    _ => self.documents.did_close(params),
                };
                if let Err(error) = applied {
                    tracing::warn!("document mirror: {error}");
                }
                if let Some(uri) = sent_text_of {
                    self.analysis.observe_sent(&uri);
                }
            }
            _ => {}
        }
        self.forward_notification(message);
    }

    fn on_editor_response(&mut self, id: RequestId, message: Message) {
        if let Some(reply) = self.proxy_to_editor.remove(&id) {
            let answer = match message.error() {
                Some(error) => Err(error),
                None => Ok(message.result().unwrap_or(Value::Null)),
            };
            let _ = reply.send(answer);
            return;
        }
        if self.fsac_to_editor.remove(&id).is_some() {
            match self.renamed_fsac_requests.remove(&id) {
                Some(original) => self.send_to_backend(&with_id(&message, &original)),
                None => self.send_to_backend(&message),
            }
        } else if self.stale_fsac_requests.remove(&id) {
            tracing::debug!("dropping the editor's answer {id}: it was asked by an FSAC that has exited");
        } else {
            tracing::warn!("dropping the editor's answer {id}: no such request is pending");
        }
    }

    fn on_initialize(&mut self, id: RequestId, message: Message) {
        if self.initialize_received {
            return self
                .reply_error(id, ResponseError::new(error_codes::INVALID_REQUEST, "initialize was already received"));
        }
        self.initialize_received = true;
        let params = message.params().unwrap_or(Value::Null);
        self.editor_capabilities = params.get("capabilities").cloned().unwrap_or(Value::Null);
        let root = self.configured_root.clone().or_else(|| root_from_initialize(&params));
        let root = root.or_else(|| std::env::current_dir().ok()).unwrap_or_else(|| PathBuf::from("."));
        self.workspace_root = Some(root.clone());
        if self.share_session {
            self.serve_session_socket(&root);
        }

        let Some(launcher) = self.launcher.as_mut() else {
            self.send_to_editor(&Message::response_ok(id, initialize::result_without_fsac()));
            return self.state_changed();
        };
        let connection = match launcher.launch(&root) {
            Ok(connection) => connection,
            Err(error) => {
                let reason = format!("{error:#}");
                self.readiness.failed_to_start(reason.clone());
                self.state_changed();
                let error =
                    ResponseError::new(error_codes::INTERNAL_ERROR, format!("fslens could not start FSAC: {reason}"))
                        .with_data(json!({ "retry": false, "errorKind": error_kinds::FSAC_STARTUP_FAILED }));
                return self.reply_error(id, error);
            }
        };
        self.start_backend(connection, false);
        let patched = initialize::patch_params_for_fsac(params);
        self.initialize_params_for_fsac = Some(patched.clone());
        self.automatic_workspace_init = initialize::automatic_workspace_init(&patched);
        let forwarded = json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": patched });
        match Message::from_value(&forwarded) {
            Ok(forwarded) => {
                self.editor_to_fsac.insert(id, PendingForward { method: "initialize".to_owned() });
                self.send_to_backend(&forwarded);
            }
            Err(error) => self.reply_error(id, ResponseError::new(error_codes::INTERNAL_ERROR, error.to_string())),
        }
    }

    fn start_backend(&mut self, connection: BackendConnection, replaying: bool) {
        self.backend_generations += 1;
        let generation = self.backend_generations;
        let (to_backend, queue) = mpsc::unbounded_channel();
        tokio::spawn(writer_task(connection.stdin, queue, "FSAC"));
        let tail = StderrTail::default();
        let stderr = connection.stderr.map(|stderr| tokio::spawn(stderr_task(stderr, tail.clone())));
        tokio::spawn(backend_reader_task(
            connection.stdout,
            self.limits,
            generation,
            self.events.clone(),
            stderr,
            tail,
            connection.exit,
        ));
        self.last_backend_pid = connection.pid;
        let measurable = self.launcher.as_ref().is_some_and(|launcher| launcher.measures_memory());
        self.memory.backend_started(measurable);
        let memory_sampler =
            connection.pid.filter(|_| measurable).map(|pid| self.spawn_memory_sampler(generation, pid));
        self.backend = Some(RunningBackend {
            generation,
            to_backend: Some(to_backend),
            pid: connection.pid,
            kill: connection.kill,
            started: Instant::now(),
            initialize_answered: false,
            replaying,
            memory_sampler,
        });
        self.last_heard_from_fsac = Instant::now();
        self.unresponsive = false;
        self.readiness = Readiness::starting();
        self.state_changed();
    }

    fn backend_accepts_requests(&self) -> bool {
        self.backend.as_ref().is_some_and(|backend| backend.to_backend.is_some() && !backend.replaying)
    }

    fn forward_request(&mut self, id: RequestId, method: &str, message: Message) {
        if !self.initialize_received {
            return self.reply_error(
                id,
                ResponseError::new(
                    error_codes::SERVER_NOT_INITIALIZED,
                    format!("{method}: the editor has not sent initialize yet"),
                ),
            );
        }
        if !self.backend_accepts_requests() {
            let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
            let error =
                ResponseError::new(error_codes::REQUEST_FAILED, format!("{method}: FSAC is not running: {reason}"))
                    .with_data(json!({ "errorKind": error_kinds::FSAC_UNAVAILABLE, "state": self.readiness.state() }));
            return self.reply_error(id, error);
        }
        self.editor_to_fsac.insert(id, PendingForward { method: method.to_owned() });
        self.send_to_backend(&message);
    }

    fn forward_notification(&mut self, message: Message) {
        if self.backend_accepts_requests() {
            self.send_to_backend(&message);
        } else {
            tracing::debug!("dropping {:?}: FSAC is not running", message.method());
        }
    }

    // ----- FSAC → proxy ---------------------------------------------------------------------

    fn on_backend_message(&mut self, message: Message) {
        self.tracer.record(Direction::FsacToProxy, message.bytes());
        self.last_heard_from_fsac = Instant::now();
        if self.unresponsive {
            self.unresponsive = false;
            self.state_changed();
        }
        match message.kind.clone() {
            MessageKind::Response { id, .. } => self.on_backend_response(id, message),
            MessageKind::Notification { method } => {
                match method.as_str() {
                    "fsharp/notifyWorkspace" | "$/progress" => {
                        let params = message.params().unwrap_or(Value::Null);
                        if self.readiness.observe_notification(&method, &params) {
                            self.state_changed();
                        }
                    }
                    "textDocument/publishDiagnostics" | "fsharp/documentAnalyzed" | "fsharp/fileParsed" => {
                        let params = message.params().unwrap_or(Value::Null);
                        let generation = self.backend_generations;
                        let uri = match method.as_str() {
                            "textDocument/publishDiagnostics" => self.analysis.observe_publish(&params, generation),
                            "fsharp/documentAnalyzed" => self.analysis.observe_analyzed(&params, generation),
                            _ => self.analysis.observe_parsed(&params, generation),
                        };
                        self.analysis_changes.send_modify(|sequence| *sequence += 1);
                        if !self.route_what_if_notification(uri.as_deref(), &method, &params, &message) {
                            return;
                        }
                        if self.is_proxy_document(uri) {
                            return;
                        }
                    }
                    // Sent after every parse, so also after fslens's own opens. Nothing else reads
                    // it, so with no document of fslens's own open (the usual case) its params,
                    // which list every test in the file, are not even parsed.
                    "fsharp/testDetected" if !self.proxy_documents.is_empty() => {
                        let params = message.params().unwrap_or(Value::Null);
                        if self.is_proxy_document(
                            params.get("file").and_then(Value::as_str).map(crate::uri::canonical_uri),
                        ) {
                            return;
                        }
                    }
                    "fsharp/testDetected"
                        if self.what_if.overlaid_count() > 0 && self.what_if_test_detection(&message) =>
                    {
                        return;
                    }
                    _ => {}
                }
                self.send_to_editor(&message);
            }
            MessageKind::Request { id, method } => self.forward_fsac_request(id, method, message),
        }
    }

    /// True for a document only fslens has open in FSAC (by canonical URI): the editor never
    /// hears FSAC's notifications about it.
    fn is_proxy_document(&self, canonical_uri: Option<String>) -> bool {
        canonical_uri.is_some_and(|uri| self.proxy_documents.contains_key(&uri))
    }

    fn on_backend_response(&mut self, id: RequestId, message: Message) {
        if let Some(call) = self.proxy_to_fsac.remove(&id) {
            let answer = match message.error() {
                Some(error) => Err(error),
                None => Ok(message.result().unwrap_or(Value::Null)),
            };
            match call {
                ProxyCall::Command { reply, .. } => {
                    let _ = reply.send(answer);
                }
                ProxyCall::Client { client, id, .. } => {
                    self.release_documents_of(&(Origin::Client(client), id.clone()));
                    let response = match answer {
                        Ok(result) => Message::response_ok(id, result),
                        Err(error) => Message::response_error(id, &error),
                    };
                    self.send_to_client(client, &response);
                }
                ProxyCall::RestartInitialize => self.on_restart_initialized(answer),
                ProxyCall::Ignored => {}
            }
            return;
        }
        let Some(pending) = self.editor_to_fsac.remove(&id) else {
            tracing::debug!("dropping FSAC's answer {id}: nothing is waiting for it (cancelled or answered already)");
            return;
        };
        if pending.method == "initialize" {
            if let Some(backend) = self.backend.as_mut() {
                backend.initialize_answered = true;
            }
            if !matches!(message.kind, MessageKind::Response { is_error: true, .. }) {
                self.supervisor_generation_answered = true;
                let result = initialize::patch_result_for_editor(message.result().unwrap_or(Value::Null));
                self.readiness.initialized(self.automatic_workspace_init);
                self.state_changed();
                return self.send_to_editor(&Message::response_ok(id, result));
            }
        }
        self.send_to_editor(&message);
    }

    fn on_backend_exited(&mut self, code: Option<i32>, stderr_tail: String) {
        let Some(backend) = self.backend.take() else {
            return;
        };
        let code_text = code.map_or("no exit code (killed by a signal)".to_owned(), |code| format!("exit code {code}"));
        // A user-requested or planned restart is not a crash.
        let planned = std::mem::take(&mut self.planned_restart_underway);
        if !planned {
            self.memory.forget_plan();
        }
        let expected = self.exit_deadline.is_some() || self.shutdown_received || self.restart_requested || planned;
        tracing::info!("FSAC (pid {:?}) ended with {code_text}", backend.pid);
        self.last_stderr_tail = stderr_tail.clone();

        let before_initialize = !backend.initialize_answered;
        let reason = if planned {
            planned_restart_reason(&self.memory)
        } else if before_initialize {
            format!("FSAC exited before answering initialize ({code_text}); its stderr ends with:\n{stderr_tail}")
        } else {
            format!("FSAC exited ({code_text})")
        };
        if before_initialize && !expected {
            self.readiness.failed_to_start(reason.clone());
        } else {
            self.readiness.exited(expected, reason.clone());
        }

        let mut pending_requests: Vec<_> = std::mem::take(&mut self.editor_to_fsac).into_iter().collect();
        pending_requests.sort_by(|a, b| a.0.cmp(&b.0));
        for (id, pending) in pending_requests {
            let error = if pending.method == "initialize" {
                ResponseError::new(error_codes::INTERNAL_ERROR, reason.clone()).with_data(json!({
                    "retry": false,
                    "errorKind": error_kinds::FSAC_STARTUP_FAILED,
                    "exitCode": code,
                    "stderrTail": stderr_tail,
                }))
            } else if planned {
                restarting_error(&pending.method, &reason)
            } else {
                ResponseError::new(
                    error_codes::REQUEST_FAILED,
                    format!("{}: {reason} while this request was pending", pending.method),
                )
                .with_data(json!({ "errorKind": error_kinds::FSAC_EXITED, "exitCode": code }))
            };
            self.reply_error(id, error);
        }
        for (_, call) in std::mem::take(&mut self.proxy_to_fsac) {
            let error = if planned {
                restarting_error("the request", &reason)
            } else {
                ResponseError::new(error_codes::REQUEST_FAILED, reason.clone())
                    .with_data(json!({ "errorKind": error_kinds::FSAC_EXITED, "exitCode": code }))
            };
            if let Some((client, answer)) = call.fail(error) {
                self.send_to_client(client, &answer);
            }
        }
        // FSAC's own requests to the editor can no longer be answered (the editor may still
        // answer them: those answers are dropped, see `forward_fsac_request`), and the
        // documents fslens had opened in it are gone with it.
        self.forget_fsac_requests();
        self.proxy_documents.clear();
        self.abandon_what_ifs();
        self.unresponsive = false;

        if self.restart_requested || planned {
            self.restart_requested = false;
            self.restart_at = Some(tokio::time::Instant::now());
        } else if !expected && self.initialize_params_for_fsac.is_some() && self.session_was_initialized() {
            self.supervise_crash(&reason);
        }
        self.state_changed();
    }

    /// Whether the editor's initialize succeeded at some point, so a crash is a crash of a
    /// working session (and not a start-up failure the editor was already told about).
    fn session_was_initialized(&self) -> bool {
        self.supervisor_generation_answered
    }

    fn supervise_crash(&mut self, reason: &str) {
        match self.supervisor.on_crash(Instant::now()) {
            Decision::RestartAfter(backoff) => {
                self.restart_at = Some(tokio::time::Instant::now() + backoff);
                let message = format!("{reason}; fslens restarts it in {:.1} s", backoff.as_secs_f64());
                self.readiness.exited(false, message.clone());
                self.show_message(2, &format!("F# language server: {message}."));
            }
            Decision::GiveUp { crashes_in_window } => {
                self.restart_at = None;
                let message = format!(
                    "{reason}; FSAC crashed {crashes_in_window} times within {} s, so fslens stopped restarting it \
                     (run the command fslens.restart to try again)",
                    self.supervisor.to_json(Instant::now())["windowSeconds"]
                );
                self.readiness.exited(false, message.clone());
                self.show_message(1, &format!("F# language server: {message}."));
            }
        }
    }

    /// Starts a new FSAC and replays the session into it.
    fn restart_backend(&mut self) {
        self.restart_at = None;
        if self.exit_deadline.is_some() || self.backend.is_some() {
            return;
        }
        let (Some(launcher), Some(root), Some(params)) =
            (self.launcher.as_mut(), self.workspace_root.clone(), self.initialize_params_for_fsac.clone())
        else {
            return;
        };
        match launcher.launch(&root) {
            Ok(connection) => {
                self.supervisor.restarted();
                self.start_backend(connection, true);
                let id = self.next_backend_id();
                self.proxy_to_fsac.insert(id.clone(), ProxyCall::RestartInitialize);
                self.send_to_backend(&Message::request(id, "initialize", params));
            }
            Err(error) => {
                let reason = format!("fslens could not restart FSAC: {error:#}");
                self.supervise_crash(&reason);
                self.state_changed();
            }
        }
    }

    /// The restarted FSAC answered `initialize`: tell it what the editor told the old one.
    fn on_restart_initialized(&mut self, answer: Result<Value, ResponseError>) {
        if let Err(error) = answer {
            tracing::warn!("the restarted FSAC refused initialize: {}", error.message);
            self.kill_backend_for_restart();
            return;
        }
        if let Some(backend) = self.backend.as_mut() {
            backend.initialize_answered = true;
            backend.replaying = false;
        }
        self.readiness.initialized(self.automatic_workspace_init);
        if let Some(initialized) = self.replay_initialized.clone() {
            self.send_to_backend(&initialized);
        }
        if let Some(configuration) = self.replay_configuration.clone() {
            self.send_to_backend(&configuration);
        }
        if let Some(load) = self.replay_workspace_load.clone() {
            let id = self.next_backend_id();
            self.proxy_to_fsac.insert(id.clone(), ProxyCall::Ignored);
            self.send_to_backend(&Message::request(id, "fsharp/workspaceLoad", load));
        }
        let mut documents: Vec<_> = self.documents.iter().cloned().collect();
        documents.sort_by(|a, b| a.uri.cmp(&b.uri));
        for document in documents {
            let open = Message::notification(
                "textDocument/didOpen",
                json!({ "textDocument": {
                    "uri": document.uri,
                    "languageId": document.language_id,
                    "version": document.version,
                    "text": document.text,
                }}),
            );
            self.send_to_backend(&open);
        }
        self.show_message(3, "F# language server: FSAC restarted; open documents were sent to it again.");
        self.state_changed();
    }

    fn kill_backend_for_restart(&mut self) {
        if let Some(backend) = self.backend.as_mut()
            && let Some(kill) = backend.kill.take()
        {
            let _ = kill.send(());
        }
    }

    fn next_backend_id(&self) -> RequestId {
        self.proxy_ids.mint()
    }

    fn show_message(&mut self, kind: u8, text: &str) {
        if self.initialize_received {
            let message = Message::notification("window/showMessage", json!({ "type": kind, "message": text }));
            self.send_to_editor(&message);
        }
    }

    /// Marks the session unresponsive when FSAC stays silent while requests wait for it.
    fn check_responsiveness(&mut self) {
        let waiting = !self.editor_to_fsac.is_empty() || !self.proxy_to_fsac.is_empty();
        let silent = self.last_heard_from_fsac.elapsed();
        let unresponsive = self.backend.is_some() && waiting && silent >= self.unresponsive_after;
        if unresponsive != self.unresponsive {
            self.unresponsive = unresponsive;
            if unresponsive {
                tracing::warn!("FSAC has been silent for {silent:?} with requests pending");
            }
            self.state_changed();
        }
    }

    // ----- commands -------------------------------------------------------------------------

    fn start_command(&mut self, origin: Origin, id: RequestId, command: String, arguments: Value) {
        let key = (origin, id);
        if self.commands.contains_key(&key) {
            let error = ResponseError::new(error_codes::INVALID_REQUEST, "a request with this id is still running");
            return self.send_to_origin(&key.0, &Message::response_error(key.1, &error));
        }
        let session = SessionHandles {
            inbox: Arc::new(MainLoopInbox(self.events.clone())),
            ids: self.proxy_ids.clone(),
            changes: self.changes.subscribe(),
            analysis_changes: self.analysis_changes.subscribe(),
            syntax_index: self.syntax_index.clone(),
            warm_workspaces: self.warm_workspaces.clone(),
            workspace_root: self.workspace_root.clone(),
        };
        let context = CommandContext::new(key.clone(), session);
        let events = self.events.clone();
        let task_key = key.clone();
        let task = tokio::spawn(async move {
            let argument = commands::single_argument(arguments);
            let result = match argument {
                Ok(argument) => commands::dispatch(&command, argument, context).await,
                Err(error) => Err(error),
            };
            let _ = events.send(Event::CommandFinished { key: task_key, result });
        });
        self.commands.insert(key, task.abort_handle());
    }

    fn cancel_command(&mut self, key: CommandKey) {
        if let Some(abort) = self.commands.remove(&key) {
            abort.abort();
            self.cancel_backend_calls_of(&key);
            self.release_documents_of(&key);
            self.restore_what_if_of(&key);
            let error = ResponseError::new(error_codes::REQUEST_CANCELLED, "cancelled by the client");
            self.send_to_origin(&key.0, &Message::response_error(key.1, &error));
        }
    }

    fn acquire_document(&mut self, owner: CommandKey, uri: &str, text: String) -> Result<(), CommandError> {
        if let Some(overlaid) = self.what_if.overlaid(uri) {
            // The what-if's own hypothetical text is what FSAC checks; nobody else may rely on it.
            return if overlaid.owner == owner {
                Ok(())
            } else {
                Err(CommandError::Unavailable("a what-if check is showing FSAC a hypothetical text of it".to_owned()))
            };
        }
        if self.documents.get(uri).is_some() {
            return Ok(()); // the editor's buffer is what FSAC checks
        }
        if !self.backend_accepts_requests() {
            let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
            return Err(CommandError::Unavailable(reason));
        }
        let key = crate::uri::canonical_uri(uri);
        if let Some(document) = self.proxy_documents.get_mut(&key) {
            document.holders.insert(owner);
            if document.text != text {
                document.version += 1;
                document.text = text;
                let change = Message::notification(
                    "textDocument/didChange",
                    json!({ "textDocument": { "uri": document.uri, "version": document.version },
                            "contentChanges": [{ "text": document.text }] }),
                );
                self.analysis.observe_sent(uri);
                self.send_to_backend(&change);
            }
            return Ok(());
        }
        let open = Message::notification(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "fsharp", "version": 1, "text": text } }),
        );
        self.analysis.observe_sent(uri);
        self.send_to_backend(&open);
        let holders = std::iter::once(owner).collect();
        self.proxy_documents.insert(key, ProxyDocument { uri: uri.to_owned(), version: 1, text, holders });
        Ok(())
    }

    fn release_document(&mut self, owner: &CommandKey, uri: &str) {
        let key = crate::uri::canonical_uri(uri);
        let Some(document) = self.proxy_documents.get_mut(&key) else { return };
        document.holders.remove(owner);
        if document.holders.is_empty()
            && let Some(document) = self.proxy_documents.remove(&key)
        {
            let close =
                Message::notification("textDocument/didClose", json!({ "textDocument": { "uri": document.uri } }));
            self.send_to_backend(&close);
        }
    }

    fn release_documents_of(&mut self, owner: &CommandKey) {
        let held: Vec<String> = self
            .proxy_documents
            .values()
            .filter(|document| document.holders.contains(owner))
            .map(|document| document.uri.clone())
            .collect();
        let mut held = held;
        held.sort();
        for uri in held {
            self.release_document(owner, &uri);
        }
    }

    /// The editor opens a document fslens has open for a command: FSAC ignores a second
    /// `didOpen`, so fslens closes its own first and the editor's buffer takes over.
    fn hand_proxy_document_to_editor(&mut self, uri: &str) {
        if let Some(document) = self.proxy_documents.remove(&crate::uri::canonical_uri(uri)) {
            let close =
                Message::notification("textDocument/didClose", json!({ "textDocument": { "uri": document.uri } }));
            self.send_to_backend(&close);
        }
    }

    // ----- what-if checks --------------------------------------------------------------------

    /// True for an editor document notification about a document a what-if overlays: it waits
    /// until the restore (issue 19).
    fn is_held_by_what_if(&self, message: &Message) -> bool {
        self.what_if.overlaid_count() > 0
            && document_notification_uri(message).is_some_and(|uri| self.what_if.is_overlaid(&uri))
    }

    fn hold_for_what_if(&mut self, method: &str, message: Message) {
        let Some(uri) = document_notification_uri(&message) else { return };
        if let Some(message) = self.what_if.hold(&uri, method, message) {
            self.on_editor_notification(method, message);
        }
    }

    /// Shows FSAC the hypothetical texts at versions fslens owns: a full-text `didChange` for a
    /// document the editor has open, a `didOpen` for the others. Nothing is sent unless every
    /// document can be overlaid.
    fn begin_what_if(&mut self, owner: CommandKey, documents: Vec<WhatIfText>) -> Result<Vec<i64>, CommandError> {
        if !self.commands.contains_key(&owner) {
            return Err(CommandError::Cancelled);
        }
        if !self.backend_accepts_requests() {
            let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
            return Err(CommandError::Unavailable(reason));
        }
        for document in &documents {
            let key = crate::uri::canonical_uri(&document.uri);
            let busy = self.what_if.is_overlaid(&document.uri)
                || self
                    .proxy_documents
                    .get(&key)
                    .is_some_and(|open| open.holders.iter().any(|holder| holder != &owner));
            if busy {
                return Err(CommandError::Unavailable(format!(
                    "another command has {} open in FSAC; try the what-if again when it is done",
                    document.uri
                )));
            }
            let editor_version = self.documents.get(&document.uri).map(|open| open.version);
            if editor_version != document.editor_version {
                return Err(CommandError::Internal(format!(
                    "the editor's buffer of {} changed while the what-if was prepared",
                    document.uri
                )));
            }
        }
        let mut versions = Vec::with_capacity(documents.len());
        for document in documents {
            self.release_document(&owner, &document.uri);
            let editor_uri = self.documents.get(&document.uri).map(|open| open.uri.clone());
            let uri = editor_uri.clone().unwrap_or_else(|| document.uri.clone());
            let version = self.what_if.overlay(&uri, owner.clone(), editor_uri.is_some());
            let message = if editor_uri.is_some() {
                Message::notification(
                    "textDocument/didChange",
                    json!({ "textDocument": { "uri": uri, "version": version },
                            "contentChanges": [{ "text": document.text }] }),
                )
            } else {
                Message::notification(
                    "textDocument/didOpen",
                    json!({ "textDocument": { "uri": uri, "languageId": "fsharp", "version": version, "text": document.text } }),
                )
            };
            self.send_to_backend(&message);
            versions.push(version);
        }
        Ok(versions)
    }

    /// Restores FSAC's view of every document `owner` overlaid: closes fslens's text and
    /// reopens the editor's buffer at the editor's version, then applies the editor's
    /// notifications held meanwhile, in order.
    fn restore_what_if_of(&mut self, owner: &CommandKey) {
        for (document, held) in self.what_if.take_documents_of(owner) {
            if self.backend_accepts_requests() {
                let close =
                    Message::notification("textDocument/didClose", json!({ "textDocument": { "uri": document.uri } }));
                self.send_to_backend(&close);
                if let Some(open) = self.documents.get(&document.uri) {
                    let reopen = Message::notification(
                        "textDocument/didOpen",
                        json!({ "textDocument": {
                            "uri": open.uri,
                            "languageId": open.language_id,
                            "version": open.version,
                            "text": open.text,
                        }}),
                    );
                    let empty = open.text.is_empty();
                    self.send_to_backend(&reopen);
                    if empty {
                        self.what_if.lift_quarantine(&document.uri);
                    }
                }
            }
            for (method, message) in held {
                self.on_editor_notification(&method, message);
            }
        }
    }

    /// FSAC went away during a what-if: the next FSAC is given the editor's texts only, so
    /// the held editor notifications go into the mirror now (FSAC gets them with the replay).
    fn abandon_what_ifs(&mut self) {
        for (method, message) in self.what_if.abandon() {
            self.on_editor_notification(&method, message);
        }
    }

    /// True for FSAC's test detection in a text a what-if shows it: the editor never hears it.
    fn what_if_test_detection(&self, message: &Message) -> bool {
        let params = message.params().unwrap_or(Value::Null);
        params.get("file").and_then(Value::as_str).is_some_and(|file| self.what_if.is_overlaid(file))
    }

    /// Whether an FSAC notification about `uri` may reach the editor; hands over a held
    /// publish of a restored document first.
    fn route_what_if_notification(
        &mut self,
        uri: Option<&str>,
        method: &str,
        params: &Value,
        message: &Message,
    ) -> bool {
        let Some(uri) = uri else { return true };
        let version = params.pointer("/textDocument/version").and_then(Value::as_i64);
        match self.what_if.route(uri, method, version, message) {
            crate::proxy::what_if::Routing::Forward => true,
            crate::proxy::what_if::Routing::Swallow => false,
            crate::proxy::what_if::Routing::ForwardAfter(publish) => {
                if !self.is_proxy_document(Some(uri.to_owned())) {
                    self.send_to_editor(&publish);
                }
                true
            }
        }
    }

    fn analysis_snapshot(&self, uri: &str) -> AnalysisSnapshot {
        let editor_document = self.documents.get(uri);
        let proxy_document = self.proxy_documents.get(&crate::uri::canonical_uri(uri));
        let editor_version = editor_document.map(|document| document.version);
        let proxy_version = proxy_document.map(|document| document.version);
        let text_is_empty = match (editor_document, proxy_document) {
            (Some(document), _) => document.text.is_empty(),
            (None, Some(document)) => document.text.is_empty(),
            (None, None) => false,
        };
        let what_if_version = self.what_if.overlaid(uri).map(|document| document.version);
        AnalysisSnapshot {
            uri: uri.to_owned(),
            expected_version: what_if_version.or(editor_version).or(proxy_version),
            open_in_editor: editor_version.is_some(),
            published: self.analysis.published(uri).cloned(),
            analyzed: self.analysis.analyzed(uri).copied(),
            parsed: self.analysis.parsed(uri).copied(),
            sent_sequence: self.analysis.sent(uri),
            text_is_empty,
            generation: if self.backend_accepts_requests() { self.backend_generations } else { 0 },
        }
    }

    fn cancel_backend_calls_of(&mut self, owner: &CommandKey) {
        let owned: Vec<RequestId> = self
            .proxy_to_fsac
            .iter()
            .filter(|(_, call)| call.owner() == Some(owner))
            .map(|(id, _)| id.clone())
            .collect();
        for id in owned {
            self.cancel_backend_call(id);
        }
    }

    fn cancel_backend_call(&mut self, id: RequestId) {
        if self.proxy_to_fsac.remove(&id).is_some() {
            let cancel = Message::notification("$/cancelRequest", json!({ "id": id }));
            self.send_to_backend(&cancel);
        }
    }

    fn on_command_finished(&mut self, key: CommandKey, result: Result<Value, CommandError>) {
        if self.commands.remove(&key).is_none() {
            return; // cancelled and answered already
        }
        self.cancel_backend_calls_of(&key);
        self.release_documents_of(&key);
        self.restore_what_if_of(&key);
        let (origin, id) = key;
        let answer = match result {
            Ok(value) => Message::response_ok(id, value),
            Err(error) => Message::response_error(
                id,
                &ResponseError::new(error.code(), error.to_string()).with_data(error.data()),
            ),
        };
        self.send_to_origin(&origin, &answer);
    }

    fn on_session_request(&mut self, request: SessionRequest) {
        match request {
            SessionRequest::BackendCall { owner, id, method, params, reply } => {
                if !self.commands.contains_key(&owner) {
                    let _ = reply
                        .send(Err(ResponseError::new(error_codes::REQUEST_CANCELLED, "the command was cancelled")));
                    return;
                }
                if !self.backend_accepts_requests() {
                    let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
                    let _ = reply.send(Err(ResponseError::new(
                        error_codes::REQUEST_FAILED,
                        format!("FSAC is not running: {reason}"),
                    )
                    .with_data(json!({ "errorKind": error_kinds::FSAC_UNAVAILABLE }))));
                    return;
                }
                let request = Message::request(id.clone(), &method, params);
                self.proxy_to_fsac.insert(id, ProxyCall::Command { owner, reply });
                self.send_to_backend(&request);
            }
            SessionRequest::CancelBackendCall { id } => self.cancel_backend_call(id),
            SessionRequest::Restart { reply } => {
                let answer = if self.initialize_params_for_fsac.is_none() {
                    Err(CommandError::Internal(
                        "FSAC was never initialized in this session; nothing to restart".to_owned(),
                    ))
                } else {
                    self.supervisor.reset();
                    if self.backend.is_some() {
                        self.restart_requested = true;
                        self.kill_backend_for_restart();
                    } else {
                        self.restart_at = Some(tokio::time::Instant::now());
                    }
                    Ok(json!({ "restarting": true, "generation": self.backend_generations + 1 }))
                };
                let _ = reply.send(answer);
            }
            SessionRequest::Acquire { owner, uri, text, reply } => {
                let answer = self.acquire_document(owner, &uri, text);
                let _ = reply.send(answer);
            }
            SessionRequest::Release { owner, uri } => self.release_document(&owner, &uri),
            SessionRequest::WhatIfEditorTexts { uris, reply } => {
                let texts = uris
                    .iter()
                    .map(|uri| self.documents.get(uri).map(|document| (document.text.clone(), document.version)))
                    .collect();
                let _ = reply.send(texts);
            }
            SessionRequest::WhatIfBegin { owner, documents, reply } => {
                let _ = reply.send(self.begin_what_if(owner, documents));
            }
            SessionRequest::WhatIfEnd { owner, reply } => {
                self.restore_what_if_of(&owner);
                let _ = reply.send(());
            }
            SessionRequest::EditorRequest { method, params, capability, reply } => {
                if let Some(reason) = self.editor_refuses(&method, &capability) {
                    let _ = reply.send(Err(ResponseError::new(error_codes::REQUEST_FAILED, reason)));
                    return;
                }
                let id = self.next_backend_id();
                self.proxy_to_editor.insert(id.clone(), reply);
                self.send_to_editor(&Message::request(id, &method, params));
            }
            SessionRequest::EditorBuffers { reply } => {
                let mut overlay = crate::syntax::index::Overlay::new();
                for document in self.documents.iter() {
                    if let Some(path) = crate::uri::uri_to_path(&document.uri) {
                        overlay.insert(path, document.text.as_str());
                    }
                }
                let _ = reply.send(overlay);
            }
            SessionRequest::AllAnalyses { reply } => {
                let uris: Vec<String> = self.analysis.all_published().map(|(uri, _)| uri.clone()).collect();
                let snapshots = uris.into_iter().map(|uri| self.analysis_snapshot(&uri)).collect();
                let _ = reply.send(snapshots);
            }
            SessionRequest::Analysis { uris, reply } => {
                let snapshots = uris.into_iter().map(|uri| self.analysis_snapshot(&uri)).collect();
                let _ = reply.send(snapshots);
            }
            SessionRequest::Status { reply } => {
                let _ = reply.send(self.status_snapshot());
            }
            SessionRequest::StatusReport { reply } => {
                let _ = reply.send((self.status_snapshot(), self.status()));
            }
        }
    }

    /// What a command may know about FSAC now (read from the same fields as [`Proxy::status`]).
    fn status_snapshot(&self) -> StatusSnapshot {
        StatusSnapshot {
            state: self.readiness.state(),
            reason: self.readiness.reason().map(str::to_owned),
            fsac_configured: self.launcher.is_some(),
            generation: self.backend_generations,
            fsac_running: self.backend.is_some(),
            stderr_tail: self.last_stderr_tail.clone(),
            restart_scheduled: self.restart_at.is_some(),
            projects_loaded: self.readiness.projects_loaded(),
            project_errors: self.readiness.project_errors().to_vec(),
        }
    }

    /// The `fslens.status` object.
    fn status(&self) -> Value {
        let mut documents: Vec<Value> = self
            .documents
            .iter()
            .map(|document| {
                json!({
                    "uri": document.uri,
                    "version": document.version,
                    "analyzedVersion": self.analysis.analyzed(&document.uri).and_then(|analyzed| analyzed.version),
                })
            })
            .collect();
        documents.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
        let mut status = self.readiness.to_json();
        let backend = self.backend.as_ref();
        status["fslensVersion"] = json!(env!("CARGO_PKG_VERSION"));
        status["workspaceRoot"] = json!(self.workspace_root.as_ref().map(|root| root.display().to_string()));
        status["fsac"] = json!({
            "command": self.launcher.as_ref().map(|launcher| launcher.describe()),
            "source": self.launcher.as_ref().and_then(|launcher| launcher.source()),
            "pid": backend.and_then(|backend| backend.pid).or(self.last_backend_pid),
            "running": backend.is_some(),
            "generation": self.backend_generations,
            "uptimeMs": backend.map(|backend| backend.started.elapsed().as_millis() as u64),
            "stderrTail": if self.last_stderr_tail.is_empty() { Value::Null } else { json!(self.last_stderr_tail) },
        });
        merge_object(&mut status["fsac"], self.memory.status_fields(Instant::now()));
        status["openDocuments"] = json!(documents);
        status["editor"] = json!({
            "initialized": self.initialize_received,
            "applyEdit": self.editor_capabilities.pointer("/workspace/applyEdit") == Some(&json!(true)),
        });
        status["documentsAnalyzed"] = json!(self.analysis.analyzed_count());
        status["fslensDocuments"] = json!(self.proxy_documents.len());
        status["pendingRequests"] = json!({
            "editorToFsac": self.editor_to_fsac.len(),
            "fsacToEditor": self.fsac_to_editor.len(),
            "proxyToFsac": self.proxy_to_fsac.len(),
            "commands": self.commands.len(),
        });
        status["uptimeMs"] = json!(self.started.elapsed().as_millis() as u64);
        status["supervisor"] = self.supervisor.to_json(Instant::now());
        // Planned restarts are counted apart from crashes and never trip the crash-loop stop.
        status["supervisor"]["plannedRestarts"] = json!(self.memory.planned_restarts());
        status["supervisor"]["nextRestartInMs"] = json!(
            self.restart_at.map(|at| at.saturating_duration_since(tokio::time::Instant::now()).as_millis() as u64)
        );
        status["unresponsive"] = json!(self.unresponsive);
        status["session"] = json!({
            "socket": self.session_socket.as_ref().map(|path| path.display().to_string()),
            "clients": self.clients.len(),
            "notShared": self.session_not_shared,
        });
        status["silentForMs"] =
            json!(self.backend.as_ref().map(|_| self.last_heard_from_fsac.elapsed().as_millis() as u64));
        status
    }

    // ----- session clients ------------------------------------------------------------------

    fn serve_session_socket(&mut self, root: &std::path::Path) {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        let directory = self
            .session_directory
            .clone()
            .unwrap_or_else(|| crate::session::runtime_directory(std::env::var_os("XDG_RUNTIME_DIR").as_deref()));
        let path = crate::session::socket_path(&directory, &canonical);
        self.session_retry_at = None;
        match crate::session::server::bind(&path) {
            Ok(crate::session::server::BindOutcome::Listening(mut listener)) => {
                tracing::info!("session socket: {}", path.display());
                self.session_socket = Some(path);
                self.session_not_shared = None;
                let events = self.events.clone();
                tokio::spawn(async move {
                    loop {
                        match listener.accept().await {
                            Ok(stream) => {
                                if events.send(Event::ClientConnected(stream)).is_err() {
                                    return; // the session ended; dropping the listener removes the socket
                                }
                            }
                            Err(error) => {
                                tracing::warn!("session socket stopped accepting: {error}");
                                return;
                            }
                        }
                    }
                });
            }
            Ok(crate::session::server::BindOutcome::AlreadyServed(path)) => {
                let reason = format!(
                    "another fslens session already serves this workspace at {}: session clients join that one; \
                     this session takes the socket over when it ends",
                    path.display()
                );
                if self.session_not_shared.as_ref() != Some(&reason) {
                    tracing::warn!("{reason}");
                }
                self.session_not_shared = Some(reason);
                self.session_retry_at = Some(Instant::now() + SESSION_SOCKET_RETRY);
            }
            Err(error) => {
                let reason = format!("cannot share this session: {error}");
                tracing::warn!("{reason}");
                self.session_not_shared = Some(reason);
            }
        }
    }

    /// Tries the socket again when another session held it: the first to go hands it on.
    fn retry_session_socket_when_due(&mut self) {
        if self.session_retry_at.is_some_and(|at| Instant::now() >= at)
            && self.session_socket.is_none()
            && self.exit_deadline.is_none()
            && let Some(root) = self.workspace_root.clone()
        {
            self.serve_session_socket(&root);
        }
    }

    fn on_client_connected(&mut self, stream: tokio::net::UnixStream) {
        let client = self.next_client;
        self.next_client += 1;
        let (reader, writer) = stream.into_split();
        let (sender, queue) = mpsc::unbounded_channel();
        tokio::spawn(writer_task(writer, queue, "session client"));
        tokio::spawn(client_reader_task(reader, self.limits, client, self.events.clone()));
        self.clients.insert(client, sender);
        tracing::info!("session client {client} joined");
    }

    fn on_client_event(&mut self, client: u64, event: ClientEvent) {
        match event {
            ClientEvent::Message(message) => match message.kind.clone() {
                MessageKind::Request { id, method } => self.on_client_request(client, id, &method, message),
                MessageKind::Notification { method } => {
                    if method == "$/cancelRequest"
                        && let Some(id) = message
                            .params()
                            .ok()
                            .and_then(|params| serde_json::from_value::<RequestId>(params["id"].clone()).ok())
                    {
                        self.cancel_client_request(client, id);
                    } else if method == "exit" {
                        self.drop_client(client);
                    }
                }
                MessageKind::Response { .. } => {}
            },
            ClientEvent::BadFrame { error, salvaged_id } => {
                tracing::warn!("bad frame from session client {client}: {error}");
                if let Some(id) = salvaged_id {
                    let error = ResponseError::new(
                        error_codes::PARSE_ERROR,
                        format!("fslens could not read this request: {error}"),
                    );
                    self.send_to_client(client, &Message::response_error(id, &error));
                }
            }
            ClientEvent::Closed => self.drop_client(client),
            ClientEvent::FileRead { id, method, params, uri, text } => {
                if !self.client_reads.remove(&(client, id.clone())) {
                    return; // cancelled, or the client left, while the file was read
                }
                if let Err(error) = self.backend_error_for_client(&method) {
                    return self.send_to_client(client, &Message::response_error(id, &error));
                }
                match text {
                    Ok(text) => {
                        if self.documents.get(&uri).is_none() {
                            let _ = self.acquire_document((Origin::Client(client), id.clone()), &uri, text);
                        }
                        self.forward_client_request(client, id, &method, params);
                    }
                    Err(message) => {
                        let error = unreadable_client_path(&method, &message, &uri);
                        self.send_to_client(client, &Message::response_error(id, &error));
                    }
                }
            }
        }
    }

    /// The error a session client's forwarded request gets while FSAC cannot take requests.
    fn backend_error_for_client(&self, method: &str) -> Result<(), ResponseError> {
        if self.backend_accepts_requests() {
            return Ok(());
        }
        let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
        Err(ResponseError::new(error_codes::REQUEST_FAILED, format!("{method}: FSAC is not running: {reason}"))
            .with_data(json!({ "errorKind": error_kinds::FSAC_UNAVAILABLE, "state": self.readiness.state() })))
    }

    fn forward_client_request(&mut self, client: u64, id: RequestId, method: &str, params: Value) {
        let proxy_id = self.next_backend_id();
        self.proxy_to_fsac.insert(proxy_id.clone(), ProxyCall::Client { client, id });
        self.send_to_backend(&Message::request(proxy_id, method, params));
    }

    fn on_client_request(&mut self, client: u64, id: RequestId, method: &str, message: Message) {
        let params = message.params().unwrap_or(Value::Null);
        match method {
            // A session client speaks a small LSP subset; `initialize` tells it what it may use.
            "initialize" => {
                let result = initialize::patch_result_for_editor(json!({
                    "capabilities": { "hoverProvider": true, "definitionProvider": true, "referencesProvider": true,
                        "documentSymbolProvider": true, "workspaceSymbolProvider": true, "codeActionProvider": true },
                    "serverInfo": { "name": "fslens-session", "version": env!("CARGO_PKG_VERSION") },
                }));
                self.send_to_client(client, &Message::response_ok(id, result));
            }
            "shutdown" => self.send_to_client(client, &Message::response_ok(id, Value::Null)),
            "workspace/executeCommand" => {
                let command = params.get("command").and_then(Value::as_str).unwrap_or_default().to_owned();
                if command.starts_with(ext::commands::PREFIX) {
                    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
                    self.start_command(Origin::Client(client), id, command, arguments);
                } else {
                    let error = ResponseError::new(error_codes::INVALID_PARAMS, format!("unknown command {command:?}"))
                        .with_data(json!({ "errorKind": error_kinds::INVALID_ARGUMENT, "argument": "command" }));
                    self.send_to_client(client, &Message::response_error(id, &error));
                }
            }
            ext::SESSION_APPLY_EDIT => self.forward_client_apply_edit(client, id, params),
            method if ext::SESSION_READ_ONLY_METHODS.contains(&method) => {
                if let Err(error) = self.backend_error_for_client(method) {
                    return self.send_to_client(client, &Message::response_error(id, &error));
                }
                // FSAC answers position requests only for open files: open the file for the
                // duration of the request when the editor has not (the editor sees nothing).
                // The disk is read on a blocking thread, so a slow file system never holds up
                // the editor's traffic; the request continues when the text arrives.
                if let Some(uri) = params.pointer("/textDocument/uri").and_then(Value::as_str)
                    && self.documents.get(uri).is_none()
                {
                    let path = match self.client_readable_path(uri) {
                        Ok(path) => path,
                        Err(message) => {
                            let error = unreadable_client_path(method, &message, uri);
                            return self.send_to_client(client, &Message::response_error(id, &error));
                        }
                    };
                    self.client_reads.insert((client, id.clone()));
                    let events = self.events.clone();
                    let (uri, method) = (uri.to_owned(), method.to_owned());
                    let gate = self.client_read_gate.clone();
                    tokio::spawn(async move {
                        let text = read_for_client(path, gate).await;
                        let event = ClientEvent::FileRead { id, method, params, uri, text };
                        let _ = events.send(Event::Client { client, event });
                    });
                    return;
                }
                self.forward_client_request(client, id, method, params);
            }
            other => {
                let error = ResponseError::new(
                    error_codes::METHOD_NOT_FOUND,
                    format!("{other} is not available to session clients (see docs/commands.md)"),
                );
                self.send_to_client(client, &Message::response_error(id, &error));
            }
        }
    }

    /// Why a request to the editor cannot be sent: no editor is connected, or it did not
    /// declare `capability` (a JSON pointer into its client capabilities) as true.
    fn editor_refuses(&self, method: &str, capability: &str) -> Option<String> {
        if !self.initialize_received || self.exit_deadline.is_some() {
            return Some("no editor is connected to this session".to_owned());
        }
        if self.editor_capabilities.pointer(capability) != Some(&json!(true)) {
            return Some(format!("the editor does not support {method} (client capability {capability})"));
        }
        None
    }

    /// A session client's edit for the editor (`navigate` `codeActions` with `apply:
    /// "editor"`): sent on as one `workspace/applyEdit` under a proxy id when the editor
    /// accepts it, and the editor's answer relayed; otherwise answered `applied: false` with
    /// the reason, as rename's editor mode answers.
    fn forward_client_apply_edit(&mut self, client: u64, id: RequestId, params: Value) {
        let method = ext::SESSION_APPLY_EDIT;
        if let Some(reason) = self.editor_refuses(method, "/workspace/applyEdit") {
            let answer = json!({ "applied": false, "failureReason": reason });
            return self.send_to_client(client, &Message::response_ok(id, answer));
        }
        let Some(sender) = self.clients.get(&client).cloned() else { return };
        let (reply, answer) = oneshot::channel();
        let editor_id = self.next_backend_id();
        self.proxy_to_editor.insert(editor_id.clone(), reply);
        self.send_to_editor(&Message::request(editor_id, method, params));
        tokio::spawn(async move {
            let result = match answer.await {
                Ok(Ok(result)) => result,
                Ok(Err(error)) => json!({ "applied": false, "failureReason": error.message }),
                Err(_) => json!({ "applied": false, "failureReason": "the editor left before answering" }),
            };
            let _ = sender.send(Message::response_ok(id, result).shared_bytes());
        });
    }

    /// The path of a file a session client asks about; it must lie inside the workspace.
    fn client_readable_path(&self, uri: &str) -> Result<PathBuf, String> {
        let path = crate::uri::uri_to_path(uri).ok_or_else(|| format!("{uri} is not a file URI"))?;
        let root = self.workspace_root.as_ref().ok_or("the session has no workspace root")?;
        crate::commands::paths::confine(root, &path.to_string_lossy(), "textDocument.uri")
            .map_err(|error| error.to_string())
    }

    fn cancel_client_request(&mut self, client: u64, id: RequestId) {
        if self.client_reads.remove(&(client, id.clone())) {
            let error = ResponseError::new(error_codes::REQUEST_CANCELLED, "cancelled by the client");
            return self.send_to_client(client, &Message::response_error(id, &error));
        }
        let key = (Origin::Client(client), id.clone());
        if self.commands.contains_key(&key) {
            return self.cancel_command(key);
        }
        let forwarded = self.proxy_to_fsac.iter().find_map(|(proxy_id, call)| match call {
            ProxyCall::Client { client: owner, id: client_id, .. } if *owner == client && *client_id == id => {
                Some(proxy_id.clone())
            }
            _ => None,
        });
        if let Some(proxy_id) = forwarded {
            self.cancel_backend_call(proxy_id);
            // A file opened in FSAC for this request is closed again, as when it is answered.
            self.release_documents_of(&(Origin::Client(client), id.clone()));
            let error = ResponseError::new(error_codes::REQUEST_CANCELLED, "cancelled by the client");
            self.send_to_client(client, &Message::response_error(id, &error));
        }
    }

    fn drop_client(&mut self, client: u64) {
        if self.clients.remove(&client).is_none() {
            return;
        }
        tracing::info!("session client {client} left");
        self.client_reads.retain(|(owner, _)| *owner != client);
        let commands: Vec<CommandKey> =
            self.commands.keys().filter(|(origin, _)| *origin == Origin::Client(client)).cloned().collect();
        for key in commands {
            if let Some(abort) = self.commands.remove(&key) {
                abort.abort();
            }
            self.cancel_backend_calls_of(&key);
            self.release_documents_of(&key);
        }
        let forwarded: Vec<(RequestId, RequestId)> = self
            .proxy_to_fsac
            .iter()
            .filter_map(|(proxy_id, call)| match call {
                ProxyCall::Client { client: owner, id, .. } if *owner == client => Some((proxy_id.clone(), id.clone())),
                _ => None,
            })
            .collect();
        for (proxy_id, client_id) in forwarded {
            self.cancel_backend_call(proxy_id);
            self.release_documents_of(&(Origin::Client(client), client_id));
        }
    }

    fn send_to_client(&mut self, client: u64, message: &Message) {
        if let Some(sender) = self.clients.get(&client) {
            let _ = sender.send(message.shared_bytes());
        }
    }

    fn send_to_origin(&mut self, origin: &Origin, message: &Message) {
        match origin {
            Origin::Editor => self.send_to_editor(message),
            Origin::Client(client) => self.send_to_client(*client, message),
        }
    }

    // ----- plumbing -------------------------------------------------------------------------

    fn state_changed(&mut self) {
        self.changes.send_modify(|generation| *generation += 1);
        // The loaded projects travel with every change, so that a client which read them while
        // the workspace was loading (an empty list) has the full list once the state is ready.
        let projects_loaded = self.readiness.to_json()["projectsLoaded"].take();
        let notification = Message::notification(
            ext::notifications::STATUS,
            json!({
                "state": self.readiness.state(),
                "reason": self.readiness.reason(),
                "unresponsive": self.unresponsive,
                "generation": self.backend_generations,
                "projectsLoaded": projects_loaded,
            }),
        );
        if self.initialize_received {
            self.send_to_editor(&notification);
        }
        let clients: Vec<u64> = self.clients.keys().copied().collect();
        for client in clients {
            self.send_to_client(client, &notification);
        }
    }

    fn begin_exit(&mut self, exit_code: i32) {
        if self.exit_deadline.is_some() {
            return;
        }
        self.exit_code = exit_code;
        self.exit_deadline = Some(tokio::time::Instant::now() + self.exit_grace);
        if let Some(backend) = self.backend.as_mut() {
            // Closing FSAC's stdin ends its JSON-RPC loop even if it ignored `exit`.
            backend.to_backend = None;
        }
    }

    fn kill_backend(&mut self) {
        if let Some(mut backend) = self.backend.take()
            && let Some(kill) = backend.kill.take()
        {
            let _ = kill.send(());
        }
    }

    fn reply_error(&mut self, id: RequestId, error: ResponseError) {
        self.send_to_editor(&Message::response_error(id, &error));
    }

    fn send_to_editor(&mut self, message: &Message) {
        self.tracer.record(Direction::ProxyToEditor, message.bytes());
        if let Some(editor) = &self.editor_out {
            let _ = editor.send(message.shared_bytes());
        }
    }

    fn send_to_backend(&mut self, message: &Message) {
        if let Some(to_backend) = self.backend.as_ref().and_then(|backend| backend.to_backend.as_ref()) {
            self.tracer.record(Direction::ProxyToFsac, message.bytes());
            let _ = to_backend.send(message.shared_bytes());
        }
    }
}

// ----- FSAC's requests to the editor across restarts -----------------------------------------
//
// A restarted FSAC numbers its requests to the editor from the start again, so its request 1
// may reach the editor while the editor still owes the exited FSAC an answer to its own
// request 1. Forwarded unchanged, the editor's late answer would be taken by the new FSAC as
// the answer to its request. Such a colliding request is forwarded under a fresh id instead,
// and the editor's answers to the exited FSAC's requests are dropped.

impl Proxy {
    fn forward_fsac_request(&mut self, id: RequestId, method: String, message: Message) {
        if !self.stale_fsac_requests.contains(&id) && !self.fsac_to_editor.contains_key(&id) {
            self.fsac_to_editor.insert(id, method);
            return self.send_to_editor(&message);
        }
        let renamed = self.next_backend_id();
        tracing::debug!("forwarding FSAC's request {id} to the editor as {renamed}: the id is still owed an answer");
        self.fsac_to_editor.insert(renamed.clone(), method);
        self.renamed_fsac_requests.insert(renamed.clone(), id);
        self.send_to_editor(&with_id(&message, &renamed));
    }

    /// FSAC exited: what it asked the editor and was not answered is remembered as stale (a
    /// bounded set; the editor may never answer).
    fn forget_fsac_requests(&mut self) {
        const MOST_STALE_REQUESTS: usize = 4096;
        if self.stale_fsac_requests.len() > MOST_STALE_REQUESTS {
            self.stale_fsac_requests.clear();
        }
        self.renamed_fsac_requests.clear();
        self.stale_fsac_requests.extend(self.fsac_to_editor.drain().map(|(id, _)| id));
    }
}

/// `message` (a request or a response) under another id; the rest is kept as it was.
fn with_id(message: &Message, id: &RequestId) -> Message {
    let renamed = message.to_value().ok().and_then(|mut value| {
        value["id"] = serde_json::to_value(id).ok()?;
        Message::from_value(&value).ok()
    });
    renamed.unwrap_or_else(|| message.clone())
}

// ----- memory guard and planned restarts ----------------------------------------------------
//
// Kept apart from the rest of the loop so that they move as one piece: FSAC's memory is sampled
// by a task per FSAC generation; a sample past the limit plans a restart, which is carried out
// when no editor request waits for FSAC (or when the grace period is over, answering what still
// waits with `fsac_restarting`). The restart itself is the crash restart's replay, without the
// back-off and without counting as a crash.

impl Proxy {
    fn spawn_memory_sampler(&self, generation: u64, pid: u32) -> AbortHandle {
        let events = self.events.clone();
        let interval = self.memory.config.sample_interval.max(Duration::from_millis(10));
        let task = tokio::spawn(async move {
            loop {
                let rss = crate::proxy::memory::resident_bytes(pid).await;
                if events.send(Event::MemorySample { generation, rss }).is_err() {
                    return;
                }
                tokio::time::sleep(interval).await;
            }
        });
        task.abort_handle()
    }

    fn on_memory_sample(&mut self, generation: u64, rss: Option<u64>) {
        if self.backend.as_ref().map(|backend| backend.generation) != Some(generation) {
            return;
        }
        let crossed = self.memory.observe(rss, Instant::now());
        if !crossed {
            return;
        }
        if !self.session_was_initialized() || self.exit_deadline.is_some() || self.shutdown_received {
            // Nothing to replay into a new FSAC yet, or the session is ending anyway.
            self.memory.forget_plan();
            return;
        }
        self.announce_planned_restart();
    }

    /// Tells the editor (`window/showMessage`, `fslens/status` with reason `memory_limit`) and
    /// every session client that FSAC will be restarted.
    fn announce_planned_restart(&mut self) {
        let rss = self.memory.rss().unwrap_or_default();
        let limit = self.memory.limit_bytes().unwrap_or_default();
        let text = format!(
            "FSAC uses {} of memory, over the limit of {} (--fsac-memory-limit); fslens restarts it as soon as              no request is pending (at most {:.0} s from now) and sends it the open documents again",
            mebibytes(rss),
            mebibytes(limit),
            self.memory.config.restart_grace.as_secs_f64()
        );
        tracing::warn!("{text}");
        self.show_message(2, &format!("F# language server: {text}."));
        self.send_restart_announcement(&text, "planned");
    }

    /// A `fslens/status` notification saying why FSAC is (being) restarted on purpose.
    fn send_restart_announcement(&mut self, text: &str, phase: &str) {
        let notification = Message::notification(
            ext::notifications::STATUS,
            json!({
                "state": self.readiness.state(),
                "reason": ext::restart_reasons::MEMORY_LIMIT,
                "message": text,
                "plannedRestart": phase,
                "rssBytes": self.memory.rss(),
                "memoryLimitBytes": self.memory.limit_bytes(),
                "unresponsive": self.unresponsive,
                "generation": self.backend_generations,
            }),
        );
        if self.initialize_received {
            self.send_to_editor(&notification);
        }
        let clients: Vec<u64> = self.clients.keys().copied().collect();
        for client in clients {
            self.send_to_client(client, &notification);
        }
    }

    /// Carries out a planned restart once no editor request waits for FSAC, or once the grace
    /// period is over.
    fn carry_out_planned_restart_when_due(&mut self) {
        if !self.memory.restart_planned() || self.planned_restart_underway {
            return;
        }
        let Some(backend) = self.backend.as_ref() else {
            return self.memory.forget_plan();
        };
        if backend.replaying || self.exit_deadline.is_some() || self.shutdown_received {
            return;
        }
        let now = Instant::now();
        let pending = self.editor_to_fsac.len();
        if pending > 0 && !self.memory.grace_over(now) {
            return;
        }
        self.memory.restarting(now, pending);
        self.planned_restart_underway = true;
        let text = planned_restart_reason(&self.memory);
        tracing::warn!("{text}");
        self.send_restart_announcement(&text, "restarting");
        if let Some(backend) = self.backend.as_mut() {
            // Nothing more is sent to this FSAC: what arrives meanwhile gets `fsac_unavailable`
            // (documents go to the new FSAC with the replay).
            backend.to_backend = None;
        }
        self.kill_backend_for_restart();
    }
}

/// The reason a planned restart gives: FSAC's memory against the limit.
fn planned_restart_reason(memory: &MemoryGuard) -> String {
    format!(
        "fslens restarted FSAC on purpose: its memory ({}) crossed the limit of {} (reason {})",
        mebibytes(memory.rss().unwrap_or_default()),
        mebibytes(memory.limit_bytes().unwrap_or_default()),
        ext::restart_reasons::MEMORY_LIMIT
    )
}

/// The answer to a request still waiting for FSAC when a planned restart happens.
fn restarting_error(what: &str, reason: &str) -> ResponseError {
    ResponseError::new(error_codes::REQUEST_FAILED, format!("{what}: {reason}; ask again once it is back"))
        .with_data(json!({ "errorKind": error_kinds::FSAC_RESTARTING, "reason": ext::restart_reasons::MEMORY_LIMIT }))
}

fn mebibytes(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Copies the members of `extra` into the object `target`.
fn merge_object(target: &mut Value, extra: Value) {
    if let (Some(target), Value::Object(extra)) = (target.as_object_mut(), extra) {
        target.extend(extra);
    }
}

/// The document a `textDocument/did*` notification is about.
fn document_notification_uri(message: &Message) -> Option<String> {
    let params = message.params().ok()?;
    params.pointer("/textDocument/uri").and_then(Value::as_str).map(str::to_owned)
}

fn root_from_initialize(params: &Value) -> Option<PathBuf> {
    if let Some(uri) = params.get("rootUri").and_then(Value::as_str)
        && let Some(path) = crate::uri::uri_to_path(uri)
    {
        return Some(path);
    }
    params.get("rootPath").and_then(Value::as_str).filter(|path| !path.is_empty()).map(PathBuf::from)
}

// ----- peer tasks ---------------------------------------------------------------------------

/// Writes queued frames to a peer, flushing once the queue is drained.
async fn writer_task<W: AsyncWrite + Unpin>(writer: W, mut queue: mpsc::UnboundedReceiver<Bytes>, peer: &'static str) {
    use tokio::io::AsyncWriteExt;
    // One write system call per drained batch rather than two per frame.
    let mut writer = tokio::io::BufWriter::with_capacity(64 * 1024, writer);
    while let Some(body) = queue.recv().await {
        if let Err(error) = write_frame_unflushed(&mut writer, &body).await {
            tracing::debug!("cannot write to {peer}: {error}");
            return;
        }
        if queue.is_empty()
            && let Err(error) = writer.flush().await
        {
            tracing::debug!("cannot flush to {peer}: {error}");
            return;
        }
    }
    let _ = writer.flush().await;
    let _ = writer.shutdown().await;
}

async fn editor_reader_task<R: AsyncRead + Unpin>(
    reader: R,
    limits: FrameLimits,
    events: mpsc::UnboundedSender<Event>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), limits);
    loop {
        let event = match frames.read_frame().await {
            Ok(Some(body)) => match Message::classify(&body) {
                Ok(kind) => EditorEvent::Message(Message::from_classified(kind, body)),
                Err(error) => {
                    EditorEvent::BadFrame { error: error.to_string(), salvaged_id: salvage_request_id(&body) }
                }
            },
            Ok(None) => {
                let _ = events.send(Event::Editor(EditorEvent::Closed { error: None }));
                return;
            }
            Err(error) if error.is_fatal() => {
                let _ = events.send(Event::Editor(EditorEvent::Closed { error: Some(error.to_string()) }));
                return;
            }
            Err(error) => EditorEvent::BadFrame { error: error.to_string(), salvaged_id: None },
        };
        if events.send(Event::Editor(event)).is_err() {
            return;
        }
    }
}

async fn client_reader_task(
    reader: tokio::net::unix::OwnedReadHalf,
    limits: FrameLimits,
    client: u64,
    events: mpsc::UnboundedSender<Event>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), limits);
    loop {
        let event = match frames.read_frame().await {
            Ok(Some(body)) => match Message::classify(&body) {
                Ok(kind) => ClientEvent::Message(Message::from_classified(kind, body)),
                Err(error) => {
                    ClientEvent::BadFrame { error: error.to_string(), salvaged_id: salvage_request_id(&body) }
                }
            },
            Ok(None) => ClientEvent::Closed,
            Err(error) if error.is_fatal() => ClientEvent::Closed,
            Err(error) => ClientEvent::BadFrame { error: error.to_string(), salvaged_id: None },
        };
        let closed = matches!(event, ClientEvent::Closed);
        if events.send(Event::Client { client, event }).is_err() || closed {
            return;
        }
    }
}

async fn backend_reader_task(
    reader: Box<dyn AsyncRead + Send + Unpin>,
    limits: FrameLimits,
    generation: u64,
    events: mpsc::UnboundedSender<Event>,
    stderr: Option<tokio::task::JoinHandle<()>>,
    tail: StderrTail,
    exit: oneshot::Receiver<Option<i32>>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), limits);
    loop {
        match frames.read_frame().await {
            Ok(Some(body)) => match Message::parse(body) {
                Ok(message) => {
                    if events.send(Event::Backend { generation, event: BackendEvent::Message(message) }).is_err() {
                        return;
                    }
                }
                Err(error) => tracing::warn!("skipping an undecodable message from FSAC: {error}"),
            },
            Ok(None) => break,
            Err(error) if error.is_fatal() => {
                tracing::warn!("FSAC's output failed: {error}");
                break;
            }
            Err(error) => tracing::warn!("skipping a bad frame from FSAC: {error}"),
        }
    }
    // The process may still be writing its last words to stderr; give it a moment.
    if let Some(stderr) = stderr {
        let _ = tokio::time::timeout(Duration::from_secs(2), stderr).await;
    }
    let code = tokio::time::timeout(Duration::from_secs(2), exit).await.ok().and_then(Result::ok).flatten();
    let _ = events.send(Event::Backend { generation, event: BackendEvent::Exited { code, stderr_tail: tail.text() } });
}

/// The answer to a session client's request about a file it may not or cannot read.
fn unreadable_client_path(method: &str, message: &str, uri: &str) -> ResponseError {
    ResponseError::new(error_codes::INVALID_PARAMS, format!("{method}: {message}"))
        .with_data(json!({ "errorKind": error_kinds::INVALID_PATH, "path": uri }))
}

/// The disk text of a file a session client asked about, read on a blocking thread.
async fn read_for_client(path: PathBuf, gate: Option<PathBuf>) -> Result<String, String> {
    let display = path.display().to_string();
    tokio::task::spawn_blocking(move || {
        if let Some(gate) = gate {
            // Test hook: the read waits until the gate file exists.
            while !gate.exists() {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        crate::source_files::read_regular_text(&path)
    })
    .await
    .map_err(|error| format!("cannot read {display}: {error}"))?
    .map_err(|error| format!("cannot read {display}: {error}"))
}

/// How often a session whose workspace socket another session serves tries to take it over.
const SESSION_SOCKET_RETRY: Duration = Duration::from_secs(2);

/// Test hook: when this environment variable names a file, the `fslens` binary sets
/// [`ProxyConfig::client_read_gate`] to it, so a session client's read of a closed file waits
/// until that file exists (tests/it/proxy_with_double.rs shows that the editor is served
/// meanwhile).
pub const CLIENT_READ_GATE_VARIABLE: &str = "FSLENS_TEST_CLIENT_READ_GATE";
