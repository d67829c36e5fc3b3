//! The bridge's side of a session: a JSON-RPC connection (Content-Length framing) to the
//! proxy that owns the workspace's FSAC, and the join-or-start logic that finds one.
//!
//! The bridge joins the session already serving the workspace socket (an editor's, another
//! bridge's, a CLI's) when there is one. Otherwise it starts a headless session in this
//! process — the proxy core over an in-memory pipe, with the bridge acting as its editor —
//! that serves the socket, so later clients join it, and then joins that socket like any
//! other client. Nothing here chooses a program, a root or an environment: the FSAC command
//! comes from the caller's `ProxyConfig`, built from the user's own flags.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, anyhow};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

use crate::lsp::codec::{FrameLimits, FrameReader, write_frame};
use crate::lsp::ext;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, MessageKind, RequestId, ResponseError};
use crate::proxy::{ProxyConfig, run_proxy};

/// How long the bridge waits for the session to confirm a cancellation (`-32800`).
pub const CANCEL_CONFIRMATION_TIMEOUT: Duration = Duration::from_secs(3);

/// The answer to one request: its result, or the session's JSON-RPC error.
pub type SessionAnswer = Result<Value, ResponseError>;

/// Why a request got no answer at all.
#[derive(Debug, thiserror::Error)]
pub enum SessionCallError {
    #[error("the fslens session closed the connection")]
    Closed,
    #[error("cancelled by the MCP client; the session {}", if *.confirmed { "confirmed the cancellation (-32800)" } else { "did not confirm the cancellation in time" })]
    Cancelled { confirmed: bool },
}

/// The readiness the session last announced in `fslens/status`.
#[derive(Debug, Clone, Default)]
pub struct AnnouncedStatus {
    pub state: Option<String>,
    pub reason: Option<String>,
}

/// One JSON-RPC connection to a session: a writer task, a reader task dispatching answers to
/// their callers, and the readiness the session announced last.
pub struct SessionConnection {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<HashMap<RequestId, oneshot::Sender<SessionAnswer>>>>,
    next_id: AtomicI64,
    closed: Arc<AtomicBool>,
    announced: watch::Receiver<AnnouncedStatus>,
}

impl SessionConnection {
    /// Starts the reader and writer tasks over a byte stream. Requests from the session
    /// (only a session the bridge started, whose editor it is, sends any) are answered like
    /// an editor without a UI would: `workspace/applyEdit` is declined, the rest get null.
    pub fn start<R, W>(reader: R, writer: W) -> Arc<SessionConnection>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outgoing, queue) = mpsc::unbounded_channel::<Vec<u8>>();
        let pending: Arc<Mutex<HashMap<RequestId, oneshot::Sender<SessionAnswer>>>> = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));
        let (announce, announced) = watch::channel(AnnouncedStatus::default());
        tokio::spawn(session_writer_task(writer, queue, closed.clone()));
        tokio::spawn(session_reader_task(
            FrameReader::new(BufReader::new(reader), FrameLimits::default()),
            pending.clone(),
            closed.clone(),
            outgoing.clone(),
            announce,
        ));
        Arc::new(SessionConnection { outgoing, pending, next_id: AtomicI64::new(1), closed, announced })
    }

    /// Whether the session ended this connection.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// The readiness the session announced last (`fslens/status`), if any.
    pub fn announced_status(&self) -> AnnouncedStatus {
        self.announced.borrow().clone()
    }

    pub fn notify(&self, method: &str, params: Value) -> Result<(), SessionCallError> {
        self.outgoing.send(Message::notification(method, params).bytes().to_vec()).map_err(|_| SessionCallError::Closed)
    }

    /// Sends a request and waits for its answer.
    pub async fn call(&self, method: &str, params: Value) -> Result<SessionAnswer, SessionCallError> {
        let (_id, answer) = self.send_request(method, params)?;
        answer.await.map_err(|_| SessionCallError::Closed)
    }

    /// Sends a request and waits for its answer or for `cancelled` to finish first; in that
    /// case `$/cancelRequest` goes to the session, which stops the command (or the forwarded
    /// FSAC request) and answers `-32800`.
    pub async fn call_cancellable(
        &self,
        method: &str,
        params: Value,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<SessionAnswer, SessionCallError> {
        let (id, mut answer) = self.send_request(method, params)?;
        tokio::select! {
            biased;
            result = &mut answer => result.map_err(|_| SessionCallError::Closed),
            () = cancelled => {
                self.notify("$/cancelRequest", json!({ "id": id.to_json() }))?;
                let confirmed = match tokio::time::timeout(CANCEL_CONFIRMATION_TIMEOUT, answer).await {
                    Ok(Ok(Err(error))) => error.code == crate::lsp::message::error_codes::REQUEST_CANCELLED,
                    _ => false,
                };
                Err(SessionCallError::Cancelled { confirmed })
            }
        }
    }

    fn send_request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(RequestId, oneshot::Receiver<SessionAnswer>), SessionCallError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply, answer) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id.clone(), reply);
        }
        if self.is_closed()
            || self.outgoing.send(Message::request(id.clone(), method, params).bytes().to_vec()).is_err()
        {
            if let Ok(mut pending) = self.pending.lock() {
                pending.remove(&id);
            }
            return Err(SessionCallError::Closed);
        }
        Ok((id, answer))
    }
}

async fn session_writer_task<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
    closed: Arc<AtomicBool>,
) {
    while let Some(body) = queue.recv().await {
        if let Err(error) = write_frame(&mut writer, &body).await {
            tracing::info!("the session connection stopped accepting writes: {error}");
            closed.store(true, Ordering::SeqCst);
            return;
        }
    }
}

async fn session_reader_task<R: AsyncRead + Unpin>(
    mut reader: FrameReader<BufReader<R>>,
    pending: Arc<Mutex<HashMap<RequestId, oneshot::Sender<SessionAnswer>>>>,
    closed: Arc<AtomicBool>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    announce: watch::Sender<AnnouncedStatus>,
) {
    loop {
        let body = match reader.read_frame().await {
            Ok(Some(body)) => body,
            Ok(None) => break,
            Err(error) if error.is_fatal() => {
                tracing::info!("the session connection ended: {error}");
                break;
            }
            Err(error) => {
                tracing::warn!("skipping a bad frame from the session: {error}");
                continue;
            }
        };
        let message = match Message::parse(body) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!("skipping an unreadable message from the session: {error}");
                continue;
            }
        };
        match &message.kind {
            MessageKind::Response { id, .. } => {
                let answer = match message.error() {
                    Some(error) => Err(error),
                    None => Ok(message.result().unwrap_or(Value::Null)),
                };
                let reply = pending.lock().ok().and_then(|mut pending| pending.remove(id));
                if let Some(reply) = reply {
                    let _ = reply.send(answer);
                }
            }
            MessageKind::Notification { method } if method == ext::notifications::STATUS => {
                let params = message.params().unwrap_or(Value::Null);
                let _ = announce.send(AnnouncedStatus {
                    state: params["state"].as_str().map(str::to_owned),
                    reason: params["reason"].as_str().map(str::to_owned),
                });
            }
            MessageKind::Notification { .. } => {}
            MessageKind::Request { id, method } => {
                // Only a session the bridge started asks it anything (it is that session's
                // editor). The bridge has no buffers and no UI: it declines edits and
                // answers everything else with null, as an editor without the feature would.
                let result = if method == "workspace/applyEdit" {
                    json!({ "applied": false, "failureReason": "fslens mcp has no editor: it returns edits instead of applying them" })
                } else {
                    Value::Null
                };
                let _ = outgoing.send(Message::response_ok(id.clone(), result).bytes().to_vec());
            }
        }
    }
    closed.store(true, Ordering::SeqCst);
    // Every caller still waiting learns that the session is gone.
    if let Ok(mut pending) = pending.lock() {
        pending.clear();
    }
}

/// How the bridge reached its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionOrigin {
    /// Joined a session that was already serving the workspace socket.
    Joined,
    /// Started a headless session in this process, which serves the socket for others.
    Started,
}

impl SessionOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionOrigin::Joined => "joined",
            SessionOrigin::Started => "started",
        }
    }
}

/// A live session: the connection requests go through, and what the handshake told.
pub struct Session {
    pub connection: Arc<SessionConnection>,
    pub origin: SessionOrigin,
    /// The session socket, when the bridge talks to the session through it.
    pub socket: Option<PathBuf>,
    /// The fslens commands the session advertises (`executeCommandProvider.commands`).
    pub commands: Vec<String>,
    /// Why FSAC did not start, when the bridge's own session could not start it.
    pub startup_failure: Option<String>,
    /// The bridge's own session, kept so that it can be shut down with the bridge.
    own: Mutex<Option<OwnSession>>,
}

struct OwnSession {
    editor: Arc<SessionConnection>,
    task: tokio::task::JoinHandle<anyhow::Result<crate::proxy::main_loop::SessionEnd>>,
}

impl Session {
    /// Joins the session serving `canonical_root`, or starts one with `config` when none runs.
    pub async fn join_or_start(canonical_root: &Path, config: ProxyConfig) -> anyhow::Result<Session> {
        let directory = config
            .session_directory
            .clone()
            .unwrap_or_else(|| crate::session::runtime_directory(std::env::var_os("XDG_RUNTIME_DIR").as_deref()));
        let socket = crate::session::socket_path(&directory, canonical_root);
        match crate::session::server::connect(&socket).await {
            Ok(Some(stream)) => {
                tracing::info!("joining the session at {}", socket.display());
                let (reader, writer) = stream.into_split();
                let connection = SessionConnection::start(reader, writer);
                let commands = client_handshake(&connection).await?;
                return Ok(Session {
                    connection,
                    origin: SessionOrigin::Joined,
                    socket: Some(socket),
                    commands,
                    startup_failure: None,
                    own: Mutex::new(None),
                });
            }
            Ok(None) => {}
            // An unsafe runtime directory is not ours to fix: run a private session instead.
            Err(error) => tracing::warn!("cannot join a session: {error}; starting one that is not shared"),
        }
        Session::start(canonical_root, socket, config).await
    }

    async fn start(canonical_root: &Path, socket: PathBuf, mut config: ProxyConfig) -> anyhow::Result<Session> {
        tracing::info!("no session serves {}; starting one", canonical_root.display());
        config.workspace_root = Some(canonical_root.to_owned());
        config.share_session = true;
        let (bridge_side, proxy_side) = tokio::io::duplex(1 << 20);
        let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
        let task = tokio::spawn(run_proxy(proxy_in, proxy_out, config));
        let (bridge_in, bridge_out) = tokio::io::split(bridge_side);
        let editor = SessionConnection::start(bridge_in, bridge_out);
        let root_uri = crate::uri::path_to_uri(canonical_root)
            .ok_or_else(|| anyhow!("cannot make a URI of {}", canonical_root.display()))?;
        let initialize = json!({
            "processId": std::process::id(),
            "clientInfo": { "name": "fslens-mcp", "version": env!("CARGO_PKG_VERSION") },
            "rootUri": root_uri,
            "capabilities": { "textDocument": { "publishDiagnostics": {} }, "window": { "workDoneProgress": false } },
        });
        let mut startup_failure = None;
        let mut commands = Vec::new();
        match editor.call("initialize", initialize).await.context("the session did not answer initialize")? {
            Ok(result) => commands = advertised_commands(&result),
            // FSAC failing to start keeps the session: `status` says why.
            Err(error)
                if error.data.as_ref().is_some_and(|data| data["errorKind"] == error_kinds::FSAC_STARTUP_FAILED) =>
            {
                tracing::warn!("FSAC did not start: {}", error.message);
                startup_failure = Some(error.message.clone());
            }
            Err(error) => {
                return Err(anyhow!("the session did not initialize: {} (code {})", error.message, error.code));
            }
        }
        editor.notify("initialized", json!({}))?;
        // Join our own session through its socket like any other client, so the bridge
        // speaks one protocol whoever started the session.
        let connection = match crate::session::server::connect(&socket).await {
            Ok(Some(stream)) => {
                let (reader, writer) = stream.into_split();
                let connection = SessionConnection::start(reader, writer);
                commands = client_handshake(&connection).await?;
                Some(connection)
            }
            _ => None,
        };
        let (connection, socket) = match connection {
            Some(connection) => (connection, Some(socket)),
            None => {
                tracing::warn!("the session socket is not available; talking to the session as its editor");
                if commands.is_empty() {
                    commands = crate::commands::registry::Command::ids().map(str::to_owned).collect();
                }
                (editor.clone(), None)
            }
        };
        Ok(Session {
            connection,
            origin: SessionOrigin::Started,
            socket,
            commands,
            startup_failure,
            own: Mutex::new(Some(OwnSession { editor, task })),
        })
    }

    /// Ends the bridge's own session (and so its FSAC); a joined session is left running.
    pub async fn close(&self) {
        let own = self.own.lock().ok().and_then(|mut own| own.take());
        if let Some(own) = own {
            let _ = tokio::time::timeout(Duration::from_secs(5), own.editor.call("shutdown", Value::Null)).await;
            let _ = own.editor.notify("exit", Value::Null);
            let _ = tokio::time::timeout(Duration::from_secs(5), own.task).await;
        }
    }
}

/// `initialize` as a session client; returns the advertised fslens commands.
async fn client_handshake(connection: &SessionConnection) -> anyhow::Result<Vec<String>> {
    let initialize = json!({
        "processId": std::process::id(),
        "clientInfo": { "name": "fslens-mcp", "version": env!("CARGO_PKG_VERSION") },
        "capabilities": {},
    });
    match connection.call("initialize", initialize).await? {
        Ok(result) => Ok(advertised_commands(&result)),
        Err(error) => Err(anyhow!("the session refused initialize: {} (code {})", error.message, error.code)),
    }
}

/// The fslens commands in an `initialize` answer.
pub fn advertised_commands(result: &Value) -> Vec<String> {
    result
        .pointer("/capabilities/executeCommandProvider/commands")
        .and_then(Value::as_array)
        .map(|commands| {
            commands
                .iter()
                .filter_map(Value::as_str)
                .filter(|command| command.starts_with(crate::commands::registry::PREFIX))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
