//! The one client of an fslens session, for every caller outside it: the CLI subcommands
//! (`fslens status`, `fslens find`, `fslens navigate`, …) and the MCP bridge (`fslens mcp`).
//!
//! A client joins the session already serving the workspace's socket (an editor's, a bridge's,
//! another CLI's) when there is one. Otherwise it starts the proxy core in this process, over an
//! in-memory pipe, with itself as that session's editor. What happens next depends on the
//! client ([`ClientKind`]): the session a CLI command starts is private and ends with the
//! command; the one the bridge or `fslens navigate` starts serves the socket, and the client
//! joins it through the socket like any other client, so it speaks one protocol whoever started
//! the session. FSAC failing to start keeps the session: its `status` says why. Nothing here
//! chooses a program, a root or an environment: the FSAC command comes from the caller's
//! `ProxyConfig`, built from the user's own flags.
//!
//! `connection` is the JSON-RPC connection (requests, answers, cancellation, the announced
//! status), `failure` the typed failure of a call. [`run_command`] and [`with_cli_session`] are
//! the CLI's conversation: join or start, wait for the workspace to load, one call, and the end
//! of a session the CLI started, so FSAC never outlives the CLI.

pub mod connection;
pub mod failure;

pub use connection::{SessionCallError, SessionConnection};

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::failure::Failure;
use crate::lsp::ext::error_kinds;
use crate::proxy::{ProxyConfig, run_proxy};

/// When a call is given up, and the time that allows (for the `timeout` message).
pub type Deadline = (tokio::time::Instant, Duration);

/// How long a joined session may take to answer `initialize`: fslens answers a session
/// client's `initialize` itself, without FSAC, so only a hung session takes longer.
const JOINED_INITIALIZE_DEADLINE: Duration = Duration::from_secs(10);

/// What the client is, which decides what it does with a session it has to start itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// A CLI subcommand that runs one fslens command (`fslens status`, `fslens find`, …).
    CliCommand,
    /// `fslens navigate`: LSP requests and code actions through the session.
    CliNavigation,
    /// `fslens mcp`: the MCP bridge, alive as long as its MCP client.
    McpBridge,
}

impl ClientKind {
    /// The name in the client's `initialize` (`clientInfo.name`).
    fn name(self) -> &'static str {
        match self {
            ClientKind::CliCommand | ClientKind::CliNavigation => crate::lsp::ext::headless_clients::CLI,
            ClientKind::McpBridge => crate::lsp::ext::headless_clients::MCP,
        }
    }

    /// Whether a session this client starts serves the workspace socket, the client then
    /// joining it through the socket like any other client. The bridge's does, so later
    /// clients join it; `fslens navigate`'s does because a code action is applied through a
    /// session client's `workspace/applyEdit`, which the session relays to its editor. A CLI
    /// command's does not: its session ends with the command, under any client that joined it.
    fn shares_a_started_session(self) -> bool {
        matches!(self, ClientKind::CliNavigation | ClientKind::McpBridge)
    }

    /// Whether a socket that cannot be used safely (a link planted at its path, a runtime
    /// directory others may write to) stops the client. The CLI stops and says why, to the
    /// user who ran it; the bridge, which an agent host starts unattended, runs a session of
    /// its own that is not shared.
    fn refuses_an_unusable_socket(self) -> bool {
        !matches!(self, ClientKind::McpBridge)
    }

    /// Whether a started session warms the syntax index in the background: not for a CLI run,
    /// which ends with its command.
    fn indexes_in_background(self) -> bool {
        matches!(self, ClientKind::McpBridge)
    }
}

/// How the client reached its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionOrigin {
    /// Joined a session that was already serving the workspace socket.
    Joined,
    /// Started a session in this process.
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
    pub connection: std::sync::Arc<SessionConnection>,
    pub origin: SessionOrigin,
    /// The session socket, when the client talks to the session through it.
    pub socket: Option<PathBuf>,
    /// The fslens commands the session advertises (`executeCommandProvider.commands`).
    pub commands: Vec<String>,
    /// Why FSAC did not start, when the client's own session could not start it.
    pub startup_failure: Option<String>,
    /// The client's own session, kept so that it can be shut down with the client.
    own: Mutex<Option<OwnSession>>,
}

struct OwnSession {
    editor: std::sync::Arc<SessionConnection>,
    task: tokio::task::JoinHandle<anyhow::Result<crate::proxy::main_loop::SessionEnd>>,
}

impl Session {
    /// Joins the session serving `canonical_root`, or starts one with `config` when none runs.
    pub async fn join_or_start(
        canonical_root: &Path,
        config: ProxyConfig,
        kind: ClientKind,
    ) -> anyhow::Result<Session> {
        let directory = config
            .session_directory
            .clone()
            .unwrap_or_else(|| crate::session::runtime_directory(std::env::var_os("XDG_RUNTIME_DIR").as_deref()));
        let socket = crate::session::socket_path(&directory, canonical_root);
        match crate::session::server::connect(&socket).await {
            Ok(Some(stream)) => {
                tracing::info!("joining the session at {}", socket.display());
                let (connection, commands) = handshake_through_socket(stream, kind).await?;
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
            Err(error) if kind.refuses_an_unusable_socket() => return Err(error.into()),
            // An unsafe runtime directory is not ours to fix: run a private session instead.
            Err(error) => tracing::warn!("cannot join a session: {error}; starting one that is not shared"),
        }
        Session::start(canonical_root, socket, config, kind).await
    }

    async fn start(
        canonical_root: &Path,
        socket: PathBuf,
        mut config: ProxyConfig,
        kind: ClientKind,
    ) -> anyhow::Result<Session> {
        tracing::info!("no session serves {}; starting one", canonical_root.display());
        config.workspace_root = Some(canonical_root.to_owned());
        config.share_session = kind.shares_a_started_session();
        if !kind.indexes_in_background() {
            config.index_in_background = false;
        }
        let (client_side, proxy_side) = tokio::io::duplex(1 << 20);
        let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
        let task = tokio::spawn(run_proxy(proxy_in, proxy_out, config));
        let (client_in, client_out) = tokio::io::split(client_side);
        let editor = SessionConnection::start(client_in, client_out);
        let root_uri = crate::uri::path_to_uri(canonical_root)
            .ok_or_else(|| anyhow!("cannot make a URI of {}", canonical_root.display()))?;
        let initialize = json!({
            "processId": std::process::id(),
            "clientInfo": { "name": kind.name(), "version": env!("CARGO_PKG_VERSION") },
            "rootUri": root_uri,
            "capabilities": { "textDocument": { "publishDiagnostics": {} }, "window": { "workDoneProgress": false } },
        });
        let mut startup_failure = None;
        let mut commands = Vec::new();
        match editor.call("initialize", initialize).await.context("the session did not answer initialize")? {
            Ok(result) => commands = advertised_commands(&result),
            // FSAC failing to start (an SDK pin it cannot satisfy, say) keeps the session: the
            // command still runs, and `status` says why FSAC is missing.
            Err(error)
                if error.data.as_ref().is_some_and(|data| data["errorKind"] == error_kinds::FSAC_STARTUP_FAILED) =>
            {
                tracing::info!("FSAC did not start: {}", error.message);
                startup_failure = Some(error.message.clone());
            }
            Err(error) => {
                return Err(anyhow!("the session did not initialize: {} (code {})", error.message, error.code));
            }
        }
        editor.notify("initialized", json!({}))?;
        let own = Mutex::new(Some(OwnSession { editor: editor.clone(), task }));
        let joined = if kind.shares_a_started_session() {
            match crate::session::server::connect(&socket).await {
                Ok(Some(stream)) => Some(handshake_through_socket(stream, kind).await?),
                _ => {
                    tracing::warn!("the session socket is not available; talking to the session as its editor");
                    None
                }
            }
        } else {
            None
        };
        let (connection, socket) = match joined {
            Some((connection, advertised)) => {
                commands = advertised;
                (connection, Some(socket))
            }
            None => {
                if commands.is_empty() {
                    commands = crate::commands::registry::Command::ids().map(str::to_owned).collect();
                }
                (editor, None)
            }
        };
        Ok(Session { connection, origin: SessionOrigin::Started, socket, commands, startup_failure, own })
    }

    /// Runs an fslens command in the session.
    pub async fn execute(&self, command: &str, argument: Value) -> Result<Value, Failure> {
        let params = json!({ "command": command, "arguments": [argument] });
        match self.connection.call("workspace/executeCommand", params).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(Failure::from(error)),
            Err(error) => Err(Failure::from(error)),
        }
    }

    /// Waits up to `timeout` for FSAC to load the workspace (`fslens.status` with
    /// `waitUntil: "ready"`); a workspace that does not load in time is no failure: the command
    /// that follows says what it could do without it.
    pub async fn wait_until_ready(&self, timeout: Duration) -> Result<Value, Failure> {
        let wait = json!({ "waitUntil": "ready", "timeoutMs": timeout.as_millis() as u64 });
        self.execute(crate::commands::registry::Command::Status.id(), wait).await
    }

    /// One request to the session, given up when `cancelled` fires (the caller's cancel) or at
    /// `deadline` when there is one: the request is then cancelled in the session (and so in
    /// FSAC) and the call fails with `timeout`, naming the method and the time allowed.
    pub async fn call_until(
        &self,
        method: &str,
        params: Value,
        cancelled: &CancellationToken,
        deadline: Option<Deadline>,
    ) -> Result<Value, Failure> {
        let token = cancelled.clone();
        let cancelled = token.clone();
        let give_up = async move {
            match deadline {
                Some((at, _)) => tokio::select! {
                    () = cancelled.cancelled_owned() => {}
                    () = tokio::time::sleep_until(at) => {}
                },
                None => cancelled.cancelled_owned().await,
            }
        };
        match self.connection.call_cancellable(method, params, give_up).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(Failure::from(error)),
            Err(SessionCallError::Cancelled { confirmed }) if !token.is_cancelled() => {
                let allowed_ms = deadline.map_or(0, |(_, allowed)| allowed.as_millis() as u64);
                Err(Failure {
                    error_kind: error_kinds::TIMEOUT.to_owned(),
                    code: None,
                    message: format!(
                        "FSAC did not answer {method} within timeoutMs = {allowed_ms}; the request was cancelled (is FSAC still loading? see status)"
                    ),
                    data: Some(
                        json!({ "errorKind": error_kinds::TIMEOUT, "timeoutMs": allowed_ms, "sessionConfirmed": confirmed }),
                    ),
                })
            }
            Err(error) => Err(Failure::from(error)),
        }
    }

    /// Ends the client's own session (and so its FSAC); a joined session is left running.
    pub async fn close(&self) {
        let own = self.own.lock().ok().and_then(|mut own| own.take());
        if let Some(own) = own {
            let _ = tokio::time::timeout(Duration::from_secs(5), own.editor.call("shutdown", Value::Null)).await;
            let _ = own.editor.notify("exit", Value::Null);
            let _ = tokio::time::timeout(Duration::from_secs(5), own.task).await;
        }
    }
}

/// `initialize` as a session client over the socket; returns the connection and the advertised
/// fslens commands. Bounded, so a hung session (stopped, deadlocked) fails fast.
async fn handshake_through_socket(
    stream: crate::session::server::SessionStream,
    kind: ClientKind,
) -> anyhow::Result<(std::sync::Arc<SessionConnection>, Vec<String>)> {
    let (reader, writer) = stream.into_split();
    let connection = SessionConnection::start(reader, writer);
    let initialize = json!({
        "processId": std::process::id(),
        "clientInfo": { "name": kind.name(), "version": env!("CARGO_PKG_VERSION") },
        "capabilities": {},
    });
    let answer = tokio::time::timeout(JOINED_INITIALIZE_DEADLINE, connection.call("initialize", initialize))
        .await
        .map_err(|_| {
        anyhow!(
            "the session did not answer initialize within {} s: it may be hung",
            JOINED_INITIALIZE_DEADLINE.as_secs()
        )
    })??;
    match answer {
        Ok(result) => Ok((connection, advertised_commands(&result))),
        Err(error) => Err(anyhow!("the session refused initialize: {} (code {})", error.message, error.code)),
    }
}

/// The fslens commands in an `initialize` answer.
fn advertised_commands(result: &Value) -> Vec<String> {
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

/// One fslens command for the CLI to run in the workspace's session.
pub struct CommandRequest {
    pub workspace_root: PathBuf,
    pub command: String,
    pub argument: Value,
    /// How long to wait for FSAC to be ready before running the command anyway; `None` for
    /// commands the syntax layer answers.
    pub readiness_timeout: Option<Duration>,
}

/// Runs `request` in the session already serving the workspace (an editor's, or an MCP
/// bridge's) when there is one, else in a private session of its own that ends with it.
pub async fn run_command(request: CommandRequest, config: ProxyConfig) -> anyhow::Result<Value> {
    let root = request.workspace_root.canonicalize().map_err(|error| {
        let written = request.workspace_root.display().to_string();
        Failure::invalid_path(&written, format!("workspace {written} does not exist: {error}"))
    })?;
    // `fslens status` waits by itself; every other command waits before it runs.
    let wait = request.readiness_timeout.filter(|_| request.command != crate::commands::registry::Command::Status.id());
    let command_timeout = request.argument.get("timeoutMs").and_then(Value::as_u64).unwrap_or(120_000)
        + crate::commands::check::arguments::build_allowance_ms(&request.argument);
    let allowed = request.readiness_timeout.unwrap_or_default() + Duration::from_millis(command_timeout);
    let CommandRequest { command, argument, .. } = request;
    with_cli_session(&root, config, ClientKind::CliCommand, wait, allowed, async |session: &Session| {
        session.execute(&command, argument).await
    })
    .await
}

/// The CLI's conversation with a session: joins the one serving `canonical_root` or starts one,
/// waits up to `wait` for the workspace to load, makes `call`, and ends a session it started.
/// `allowed` is the time the session's own deadlines give the wait and the call: a joined
/// session is not the CLI's to trust, so one that has not answered a minute after that (a
/// stopped or deadlocked session) fails the CLI instead of hanging it.
pub async fn with_cli_session<T>(
    canonical_root: &Path,
    config: ProxyConfig,
    kind: ClientKind,
    wait: Option<Duration>,
    allowed: Duration,
    call: impl AsyncFnOnce(&Session) -> Result<T, Failure>,
) -> anyhow::Result<T> {
    let session = Session::join_or_start(canonical_root, config, kind).await?;
    let converse = async {
        if let Some(timeout) = wait {
            session.wait_until_ready(timeout).await?;
        }
        call(&session).await
    };
    let answer = match session.origin {
        SessionOrigin::Started => converse.await,
        SessionOrigin::Joined => {
            let bound = JOINED_INITIALIZE_DEADLINE + allowed + Duration::from_secs(60);
            match tokio::time::timeout(bound, converse).await {
                Ok(answer) => answer,
                Err(_) => {
                    let socket = session.socket.as_deref().unwrap_or(Path::new("?")).display().to_string();
                    bail!(
                        "the session at {socket} did not answer within {} s (its own deadlines passed too): it may be hung; \
                         stop the process serving it, or run with --no-share",
                        bound.as_secs()
                    );
                }
            }
        }
    };
    // Whatever happened, end a session the CLI started, so FSAC does not outlive the CLI.
    session.close().await;
    // The typed failure reaches `main` whole: its `errorKind` and `data` are what `--json`
    // prints and what the exit code is chosen by.
    answer.map_err(anyhow::Error::new)
}
