//! Headless sessions: the CLI subcommands (`fslens status`, …) run the same proxy core with
//! an in-memory "editor" that initializes the session, waits for readiness, runs one command
//! and shuts down. Whatever an editor would see, the CLI sees.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};

use crate::cli_contract::CliFailure;
use crate::lsp::codec::{FrameLimits, FrameReader, write_frame};
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, MessageKind, RequestId};
use crate::proxy::{ProxyConfig, run_proxy};

/// One command to run in a headless session.
pub struct HeadlessRequest {
    pub workspace_root: PathBuf,
    pub command: String,
    pub argument: Value,
    /// How long to wait for FSAC to be ready before running the command anyway; `None` for
    /// commands the syntax layer answers.
    pub readiness_timeout: Option<Duration>,
}

/// Runs `request` in the session already serving the workspace (an editor's, or an MCP
/// bridge's) when there is one, else in a fresh session of its own.
pub async fn run_headless(request: HeadlessRequest, mut config: ProxyConfig) -> anyhow::Result<Value> {
    let root = request.workspace_root.canonicalize().map_err(|error| {
        let written = request.workspace_root.display().to_string();
        CliFailure::invalid_path(&written, format!("workspace {written} does not exist: {error}"))
    })?;
    let directory = config
        .session_directory
        .clone()
        .unwrap_or_else(|| crate::session::runtime_directory(std::env::var_os("XDG_RUNTIME_DIR").as_deref()));
    let socket = crate::session::socket_path(&directory, &root);
    if let Some(stream) = crate::session::server::connect(&socket).await? {
        tracing::info!("joining the session at {}", socket.display());
        let (reader, writer) = stream.into_split();
        let mut client = HeadlessClient {
            reader: FrameReader::new(BufReader::new(reader), FrameLimits::default()),
            writer,
            initialize_deadline: None,
        };
        // A joined session is not ours to shut down: closing the connection is enough. It is not
        // ours to trust either: a hung session (stopped, deadlocked) must not hang the CLI.
        client.initialize_deadline = Some(JOINED_INITIALIZE_DEADLINE);
        let bound = joined_session_deadline(&request);
        return match tokio::time::timeout(bound, client.converse(&root, &request)).await {
            Ok(answer) => answer,
            Err(_) => bail!(
                "the session at {} did not answer within {} s (its own deadlines passed too): it may be hung; \
                 stop the process serving it, or run with --no-share",
                socket.display(),
                bound.as_secs()
            ),
        };
    }
    config.workspace_root = Some(root.clone());
    config.index_in_background = false;
    let (client_side, proxy_side) = tokio::io::duplex(1 << 20);
    let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
    let session = tokio::spawn(run_proxy(proxy_in, proxy_out, config));
    let (client_in, client_out) = tokio::io::split(client_side);
    let mut client = HeadlessClient {
        reader: FrameReader::new(BufReader::new(client_in), FrameLimits::default()),
        writer: client_out,
        initialize_deadline: None,
    };

    let answer = client.converse(&root, &request).await;
    // Whatever happened, end the session so FSAC does not outlive the CLI.
    let _ = client.shutdown().await;
    drop(client);
    let _ = tokio::time::timeout(Duration::from_secs(5), session).await;
    answer
}

/// How long a joined session may take to answer `initialize`: fslens answers a session
/// client's `initialize` itself, without FSAC, so only a hung session takes longer.
const JOINED_INITIALIZE_DEADLINE: Duration = Duration::from_secs(10);

/// The longest a joined session may take for the whole conversation: its readiness wait and
/// the command's own `timeoutMs` (default two minutes), plus a minute of grace for the answer
/// to arrive after either deadline.
fn joined_session_deadline(request: &HeadlessRequest) -> Duration {
    let readiness = request.readiness_timeout.unwrap_or_default();
    let command = request.argument.get("timeoutMs").and_then(Value::as_u64).unwrap_or(120_000);
    JOINED_INITIALIZE_DEADLINE + readiness + Duration::from_millis(command) + Duration::from_secs(60)
}

struct HeadlessClient<R, W> {
    reader: FrameReader<BufReader<R>>,
    writer: W,
    /// A bound on `initialize` (for a joined session), so a hung one fails fast.
    initialize_deadline: Option<Duration>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> HeadlessClient<R, W> {
    async fn converse(&mut self, root: &Path, request: &HeadlessRequest) -> anyhow::Result<Value> {
        let root_uri =
            crate::uri::path_to_uri(root).ok_or_else(|| anyhow!("cannot make a URI of {}", root.display()))?;
        let initialize = json!({
            "processId": std::process::id(),
            "clientInfo": { "name": "fslens-cli", "version": env!("CARGO_PKG_VERSION") },
            "rootUri": root_uri,
            "capabilities": { "textDocument": { "publishDiagnostics": {} }, "window": { "workDoneProgress": false } },
        });
        // FSAC failing to start (an SDK pin it cannot satisfy, say) leaves the session up:
        // the command still runs and reports why FSAC is missing, instead of a bare error.
        let initialized = match self.initialize_deadline {
            Some(deadline) => {
                tokio::time::timeout(deadline, self.call_raw("initialize", initialize)).await.map_err(|_| {
                    anyhow!("the session did not answer initialize within {} s: it may be hung", deadline.as_secs())
                })?
            }
            None => self.call_raw("initialize", initialize).await,
        };
        match initialized? {
            Ok(_) => {}
            Err(error)
                if error.data.as_ref().is_some_and(|data| data["errorKind"] == error_kinds::FSAC_STARTUP_FAILED) =>
            {
                tracing::info!("FSAC did not start: {}", error.message);
            }
            Err(error) => bail!("the session did not initialize: {} (code {})", error.message, error.code),
        }
        self.notify("initialized", json!({})).await?;
        if let Some(timeout) = request.readiness_timeout
            && request.command != crate::commands::registry::Command::Status.id()
        {
            let wait = json!({ "waitUntil": "ready", "timeoutMs": timeout.as_millis() as u64 });
            self.call(
                "workspace/executeCommand",
                json!({ "command": crate::commands::registry::Command::Status.id(), "arguments": [wait] }),
            )
            .await?;
        }
        self.call("workspace/executeCommand", json!({ "command": request.command, "arguments": [request.argument] }))
            .await
    }

    async fn shutdown(&mut self) -> anyhow::Result<()> {
        self.call("shutdown", Value::Null).await?;
        self.notify("exit", Value::Null).await
    }

    async fn notify(&mut self, method: &str, params: Value) -> anyhow::Result<()> {
        write_frame(&mut self.writer, Message::notification(method, params).bytes()).await.context("the session closed")
    }

    async fn call(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        match self.call_raw(method, params).await? {
            Ok(result) => Ok(result),
            // The session's typed error reaches `main` whole: its `errorKind` and `data` are
            // what `--json` prints and what the exit code is chosen by.
            Err(error) => Err(anyhow::Error::new(CliFailure::from(error))),
        }
    }

    /// Sends a request and returns its result or its JSON-RPC error.
    async fn call_raw(
        &mut self,
        method: &str,
        params: Value,
    ) -> anyhow::Result<Result<Value, crate::lsp::message::ResponseError>> {
        static NEXT_ID: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(1);
        let id = RequestId::Number(NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        write_frame(&mut self.writer, Message::request(id.clone(), method, params).bytes())
            .await
            .context("the session closed")?;
        loop {
            let Some(body) = self.reader.read_frame().await? else {
                bail!("the session ended before answering {method}");
            };
            let message = Message::parse(body)?;
            match &message.kind {
                MessageKind::Response { id: answered, .. } if *answered == id => {
                    return Ok(match message.error() {
                        Some(error) => Err(error),
                        None => Ok(message.result()?),
                    });
                }
                MessageKind::Request { id: asked, .. } => {
                    // The CLI declares no client capabilities worth asking about; answer null.
                    write_frame(&mut self.writer, Message::response_ok(asked.clone(), Value::Null).bytes()).await?;
                }
                _ => {}
            }
        }
    }
}
