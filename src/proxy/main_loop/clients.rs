//! Session clients: the MCP bridge and CLI processes that join this session over its Unix
//! socket. They speak a small LSP subset: fslens's commands and a few read-only requests,
//! which are sent to FSAC under proxy ids and answered back under the client's own id.
//!
//! A client's request about a closed file reads the file on a blocking thread, never on the
//! loop (invariant 10); a client that leaves takes its commands and requests with it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::commands::context::Origin;
use crate::lsp::ext;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, MessageKind, RequestId, ResponseError, error_codes};
use crate::proxy::initialize;

use super::peer_tasks::{client_reader_task, writer_task};
use super::request_table::Completion;
use super::{ClientEvent, Event, Proxy, ProxyCall};

impl Proxy {
    pub(super) fn serve_session_socket(&mut self, root: &std::path::Path) {
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
    pub(super) fn retry_session_socket_when_due(&mut self) {
        if self.session_retry_at.is_some_and(|at| Instant::now() >= at)
            && self.session_socket.is_none()
            && self.exit_deadline.is_none()
            && let Some(root) = self.workspace_root.clone()
        {
            self.serve_session_socket(&root);
        }
    }

    pub(super) fn on_client_connected(&mut self, stream: crate::session::server::SessionStream) {
        let client = self.next_client;
        self.next_client += 1;
        let (reader, writer) = stream.into_split();
        let (sender, queue) = mpsc::unbounded_channel();
        tokio::spawn(writer_task(writer, queue, "session client"));
        tokio::spawn(client_reader_task(reader, self.limits, client, self.events.clone()));
        self.clients.insert(client, sender);
        tracing::info!("session client {client} joined");
    }

    pub(super) fn on_client_event(&mut self, client: u64, event: ClientEvent) {
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
                let read = self.client_reads.complete(&(Origin::Client(client), id.clone()));
                if !matches!(read, Completion::Waiting(())) {
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
    pub(super) fn backend_error_for_client(&self, method: &str) -> Result<(), ResponseError> {
        if self.backend_accepts_requests() {
            return Ok(());
        }
        let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
        Err(ResponseError::new(error_codes::REQUEST_FAILED, format!("{method}: FSAC is not running: {reason}"))
            .with_data(json!({ "errorKind": error_kinds::FSAC_UNAVAILABLE, "state": self.readiness.state() })))
    }

    pub(super) fn forward_client_request(&mut self, client: u64, id: RequestId, method: &str, params: Value) {
        let proxy_id = self.next_backend_id();
        let owner = Some((Origin::Client(client), id.clone()));
        self.proxy_to_fsac.register(proxy_id.clone(), owner, ProxyCall::Client { client, id });
        self.send_to_backend(&Message::request(proxy_id, method, params));
    }

    pub(super) fn on_client_request(&mut self, client: u64, id: RequestId, method: &str, message: Message) {
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
                if command.starts_with(crate::commands::registry::PREFIX) {
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
                // FSAC answers position requests only for open files (a call hierarchy's calls
                // need its item's file): open the file for the duration of the request when the
                // editor has not (the editor sees nothing). The disk is read on a blocking
                // thread, so a slow file system never holds up the editor's traffic; the request
                // continues when the text arrives.
                if let Some(uri) =
                    params.pointer("/textDocument/uri").or_else(|| params.pointer("/item/uri")).and_then(Value::as_str)
                    && self.documents.get(uri).is_none()
                {
                    let path = match self.client_readable_path(uri) {
                        Ok(path) => path,
                        Err(message) => {
                            let error = unreadable_client_path(method, &message, uri);
                            return self.send_to_client(client, &Message::response_error(id, &error));
                        }
                    };
                    let key = (Origin::Client(client), id.clone());
                    self.client_reads.register(key.clone(), Some(key), ());
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

    /// The path of a file a session client asks about; it must lie inside the workspace.
    pub(super) fn client_readable_path(&self, uri: &str) -> Result<PathBuf, String> {
        let path = crate::uri::uri_to_path(uri).ok_or_else(|| format!("{uri} is not a file URI"))?;
        let root = self.workspace_root.as_ref().ok_or("the session has no workspace root")?;
        crate::commands::paths::confine(root, &path.to_string_lossy(), "textDocument.uri")
            .map_err(|error| error.to_string())
    }

    pub(super) fn cancel_client_request(&mut self, client: u64, id: RequestId) {
        let key = (Origin::Client(client), id.clone());
        let cancelled = ResponseError::new(error_codes::REQUEST_CANCELLED, "cancelled by the client");
        if self.client_reads.cancel(&key).is_some() {
            return self.send_to_client(client, &Message::response_error(id, &cancelled));
        }
        if self.commands.contains(&key) {
            return self.cancel_command(key);
        }
        let forwarded = self.proxy_to_fsac.drop_owned_by(&key);
        if !forwarded.is_empty() {
            for (proxy_id, _) in forwarded {
                self.send_cancel_to_backend(&proxy_id);
            }
            // A file opened in FSAC for this request is closed again, as when it is answered.
            self.release_documents_of(&key);
            self.send_to_client(client, &Message::response_error(id, &cancelled));
        }
    }

    pub(super) fn drop_client(&mut self, client: u64) {
        if self.clients.remove(&client).is_none() {
            return;
        }
        tracing::info!("session client {client} left");
        let origin = Origin::Client(client);
        self.client_reads.drop_owner(&origin);
        for (key, abort) in self.commands.drop_owner(&origin) {
            abort.abort();
            self.wind_up_command(&key);
        }
        // What is left of the client's: its own requests forwarded to FSAC.
        for (proxy_id, call) in self.proxy_to_fsac.drop_owner(&origin) {
            self.send_cancel_to_backend(&proxy_id);
            if let ProxyCall::Client { id, .. } = call {
                self.release_documents_of(&(origin.clone(), id));
            }
        }
    }

    /// A session client's edit for the editor (`navigate` `codeActions` with `apply:
    /// "editor"`): sent on as one `workspace/applyEdit` under a proxy id when the editor
    /// accepts it, and the editor's answer relayed; otherwise answered `applied: false` with
    /// the reason, as rename's editor mode answers. The request is the client's own, so it
    /// is dropped with the client.
    fn forward_client_apply_edit(&mut self, client: u64, id: RequestId, params: Value) {
        let method = ext::SESSION_APPLY_EDIT;
        if let Err(refusal) = self.editor_request_allowed(method, "/workspace/applyEdit") {
            let answer = json!({ "applied": false, "failureReason": refusal.message });
            return self.send_to_client(client, &Message::response_ok(id, answer));
        }
        let Some(sender) = self.clients.get(&client).cloned() else { return };
        let (reply, answer) = tokio::sync::oneshot::channel();
        let editor_id = self.next_backend_id();
        let owner = (Origin::Client(client), id.clone());
        self.proxy_to_editor.register(editor_id.clone(), Some(owner), reply);
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

    pub(super) fn send_to_client(&mut self, client: u64, message: &Message) {
        if let Some(sender) = self.clients.get(&client) {
            let _ = sender.send(message.shared_bytes());
        }
    }

    pub(super) fn send_to_origin(&mut self, origin: &Origin, message: &Message) {
        match origin {
            Origin::Editor => self.send_to_editor(message),
            Origin::Client(client) => self.send_to_client(*client, message),
        }
    }
}

/// The answer to a session client's request about a file it may not or cannot read.
pub(super) fn unreadable_client_path(method: &str, message: &str, uri: &str) -> ResponseError {
    ResponseError::new(error_codes::INVALID_PARAMS, format!("{method}: {message}"))
        .with_data(json!({ "errorKind": error_kinds::INVALID_PATH, "path": uri }))
}

/// The disk text of a file a session client asked about, read on a blocking thread.
pub(super) async fn read_for_client(path: PathBuf, gate: Option<PathBuf>) -> Result<String, String> {
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
pub(super) const SESSION_SOCKET_RETRY: Duration = Duration::from_secs(2);
