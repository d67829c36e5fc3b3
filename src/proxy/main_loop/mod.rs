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
//!
//! This module holds the loop's state, its construction and the event dispatch; the handling
//! is split by peer: `editor`, `fsac` (and `renumbering`, FSAC's requests to the editor
//! across restarts), `command_tasks` (fslens's own commands), `clients` (session clients),
//! `peer_tasks` (the reader and writer tasks), `status`, `what_if_checks` and
//! `memory_guard`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

use crate::commands::CommandError;
use crate::commands::context::{CommandKey, Origin, SessionRequest};
use crate::documents::DocumentMirror;
use crate::lsp::codec::FrameLimits;
use crate::lsp::message::{Message, RequestId, ResponseError, error_codes};
use crate::proxy::backend::BackendLauncher;
use crate::proxy::memory::{MemoryGuard, MemoryGuardConfig};
use crate::proxy::readiness::Readiness;
use crate::proxy::supervisor::{RestartPolicy, Supervisor};
use crate::proxy::trace::{Direction, Tracer};
use crate::session_state::analysis::AnalysisStore;
use crate::session_state::proxy_ids::ProxyIds;

mod clients;
mod command_tasks;
mod editor;
mod fsac;
mod memory_guard;
mod peer_tasks;
mod renumbering;
mod request_table;
mod status;
mod what_if_checks;

use peer_tasks::{editor_reader_task, writer_task};
use request_table::{RequestTable, Waiter};

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
    /// Whether a command that indexed only part of the workspace (a find reads the files that
    /// hold its names) starts the full index in the background for later commands; off for
    /// the CLI's own one-command session, which ends with its answer.
    pub index_in_background: bool,
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
            index_in_background: true,
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
    ClientConnected(crate::session::server::SessionStream),
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
    holders: HashSet<CommandKey>,
}

/// An editor request forwarded to FSAC: FSAC's answer goes back to the editor as it is.
struct ForwardedRequest {
    method: String,
}

impl Waiter<RequestId> for ForwardedRequest {
    fn fail(self, id: &RequestId, error: ResponseError) -> Option<(Origin, Message)> {
        Some((Origin::Editor, Message::response_error(id.clone(), &error)))
    }
}

/// FSAC's request forwarded to the editor: the editor's answer goes back to FSAC, under FSAC's
/// own id `renamed_from` when the editor was shown another (see `renumbering`).
struct FsacRequest {
    renamed_from: Option<RequestId>,
}

impl Waiter<RequestId> for FsacRequest {
    /// The FSAC that asked has exited: nobody is left to answer.
    fn fail(self, _: &RequestId, _: ResponseError) -> Option<(Origin, Message)> {
        None
    }
}

/// A command's request to the editor (e.g. `workspace/applyEdit`).
type EditorCall = oneshot::Sender<Result<Value, ResponseError>>;

/// Who is waiting for the answer to a request fslens sent to FSAC.
enum ProxyCall {
    /// A command task.
    Command { reply: oneshot::Sender<Result<Value, ResponseError>> },
    /// A read-only LSP request of a session client, answered back to it under its own id.
    Client { client: u64, id: RequestId },
    /// The `initialize` of a restarted FSAC: its answer starts the replay.
    RestartInitialize,
    /// A replayed request whose answer nobody needs (e.g. `fsharp/workspaceLoad`).
    Ignored,
}

impl Waiter<RequestId> for ProxyCall {
    fn fail(self, _: &RequestId, error: ResponseError) -> Option<(Origin, Message)> {
        match self {
            ProxyCall::Command { reply } => {
                let _ = reply.send(Err(error));
                None
            }
            ProxyCall::Client { client, id } => Some((Origin::Client(client), Message::response_error(id, &error))),
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
    warm_workspaces: crate::commands::context::WarmState,
    readiness: Readiness,
    changes: watch::Sender<u64>,
    backend: Option<RunningBackend>,
    backend_generations: u64,
    last_backend_pid: Option<u32>,
    last_stderr_tail: String,
    // Every request waiting for an answer, one table per direction (invariant 4 lives in
    // `RequestTable`).
    editor_to_fsac: RequestTable<RequestId, ForwardedRequest>,
    fsac_to_editor: RequestTable<RequestId, FsacRequest>,
    proxy_to_editor: RequestTable<RequestId, EditorCall>,
    /// The client capabilities the editor declared in `initialize`.
    editor_capabilities: Value,
    /// The session's editor is one of fslens's own clients (the CLI or the MCP bridge started
    /// the session): no person is at an editor.
    headless: bool,
    proxy_to_fsac: RequestTable<RequestId, ProxyCall>,
    /// The running commands, by who asked and their id.
    commands: RequestTable<CommandKey, AbortHandle>,
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
    client_reads: RequestTable<CommandKey, ()>,
    /// FSAC's sampled memory and the planned restart its limit asks for.
    memory: MemoryGuard,
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

impl Proxy {
    /// The state of a session that has not heard from its editor yet; `events` is the loop's
    /// own queue and `editor_out` the editor writer's.
    fn new(
        config: ProxyConfig,
        events: mpsc::UnboundedSender<Event>,
        editor_out: mpsc::UnboundedSender<Bytes>,
    ) -> Self {
        let readiness = match &config.launcher {
            Some(_) => Readiness::absent("FSAC starts when the editor sends initialize"),
            None => Readiness::absent(config.absent_reason.clone()),
        };
        Proxy {
            events,
            editor_out: Some(editor_out),
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
            syntax_index: Arc::new(crate::syntax::index::SyntaxIndex::new(
                crate::syntax::index::IndexOptions::default(),
            )),
            warm_workspaces: Arc::new(crate::commands::symbols::warmup::WarmWorkspaces::new(
                config.index_in_background,
            )),
            readiness,
            changes: watch::channel(0).0,
            backend: None,
            backend_generations: 0,
            last_backend_pid: None,
            last_stderr_tail: String::new(),
            editor_to_fsac: RequestTable::default(),
            fsac_to_editor: RequestTable::default(),
            proxy_to_editor: RequestTable::default(),
            editor_capabilities: Value::Null,
            headless: false,
            proxy_to_fsac: RequestTable::default(),
            commands: RequestTable::default(),
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
            client_reads: RequestTable::default(),
            memory: MemoryGuard::new(config.memory_guard),
            planned_restart_underway: false,
            session_not_shared: None,
            session_retry_at: None,
            what_if: Default::default(),
            client_read_gate: config.client_read_gate,
        }
    }
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

    let mut proxy = Proxy::new(config, events, editor_sender);
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

    fn backend_accepts_requests(&self) -> bool {
        self.backend.as_ref().is_some_and(|backend| backend.to_backend.is_some() && !backend.replaying)
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

/// The document a `textDocument/did*` notification is about.
fn document_notification_uri(message: &Message) -> Option<String> {
    let params = message.params().ok()?;
    params.pointer("/textDocument/uri").and_then(Value::as_str).map(str::to_owned)
}

/// Test hook: when this environment variable names a file, the `fslens` binary sets
/// [`ProxyConfig::client_read_gate`] to it, so a session client's read of a closed file waits
/// until that file exists (tests/it/proxy_with_double.rs shows that the editor is served
/// meanwhile).
pub const CLIENT_READ_GATE_VARIABLE: &str = "FSLENS_TEST_CLIENT_READ_GATE";
