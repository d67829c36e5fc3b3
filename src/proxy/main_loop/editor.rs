//! The editor's side of the loop: its requests, notifications and answers, and the
//! `initialize` that starts FSAC.
//!
//! Document notifications update the mirror before they are forwarded (invariant 3); an
//! editor request for FSAC is remembered until FSAC answers it.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::commands::context::Origin;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, MessageKind, RequestId, ResponseError, error_codes};
use crate::proxy::initialize;
use crate::proxy::trace::Direction;

use super::renumbering::with_id;
use super::request_table::Completion;
use super::{ForwardedRequest, FsacRequest, Proxy};

impl Proxy {
    pub(super) fn on_editor_message(&mut self, message: Message) {
        self.tracer.record(Direction::EditorToProxy, message.bytes());
        match message.kind.clone() {
            MessageKind::Request { id, method } => self.on_editor_request(id, &method, message),
            MessageKind::Notification { method } => self.on_editor_notification(&method, message),
            MessageKind::Response { id, .. } => self.on_editor_response(id, message),
        }
    }

    pub(super) fn on_editor_request(&mut self, id: RequestId, method: &str, message: Message) {
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
                if command.starts_with(crate::commands::registry::PREFIX) {
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

    pub(super) fn on_editor_notification(&mut self, method: &str, message: Message) {
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
                    && self.commands.contains(&(Origin::Editor, id.clone()))
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

    pub(super) fn on_editor_response(&mut self, id: RequestId, message: Message) {
        match self.proxy_to_editor.complete(&id) {
            Completion::Waiting(reply) => {
                let answer = match message.error() {
                    Some(error) => Err(error),
                    None => Ok(message.result().unwrap_or(Value::Null)),
                };
                let _ = reply.send(answer);
                return;
            }
            Completion::Late => {
                return tracing::debug!("dropping the editor's answer {id}: the command that asked has ended");
            }
            Completion::Unknown => {}
        }
        match self.fsac_to_editor.complete(&id) {
            Completion::Waiting(FsacRequest { renamed_from: Some(original) }) => {
                self.send_to_backend(&with_id(&message, &original))
            }
            Completion::Waiting(FsacRequest { renamed_from: None }) => self.send_to_backend(&message),
            Completion::Late => {
                tracing::debug!("dropping the editor's answer {id}: it was asked by an FSAC that has exited")
            }
            Completion::Unknown => tracing::warn!("dropping the editor's answer {id}: no such request is pending"),
        }
    }

    pub(super) fn on_initialize(&mut self, id: RequestId, message: Message) {
        if self.initialize_received {
            return self
                .reply_error(id, ResponseError::new(error_codes::INVALID_REQUEST, "initialize was already received"));
        }
        self.initialize_received = true;
        let params = message.params().unwrap_or(Value::Null);
        self.editor_capabilities = params.get("capabilities").cloned().unwrap_or(Value::Null);
        let client_name = params.pointer("/clientInfo/name").and_then(Value::as_str).unwrap_or_default();
        self.headless = crate::lsp::ext::headless_clients::ALL.contains(&client_name);
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
                let owner = Some((Origin::Editor, id.clone()));
                self.editor_to_fsac.register(id, owner, ForwardedRequest { method: "initialize".to_owned() });
                self.send_to_backend(&forwarded);
            }
            Err(error) => self.reply_error(id, ResponseError::new(error_codes::INTERNAL_ERROR, error.to_string())),
        }
    }

    pub(super) fn forward_request(&mut self, id: RequestId, method: &str, message: Message) {
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
        let owner = Some((Origin::Editor, id.clone()));
        self.editor_to_fsac.register(id, owner, ForwardedRequest { method: method.to_owned() });
        self.send_to_backend(&message);
    }

    pub(super) fn forward_notification(&mut self, message: Message) {
        if self.backend_accepts_requests() {
            self.send_to_backend(&message);
        } else {
            tracing::debug!("dropping {:?}: FSAC is not running", message.method());
        }
    }
}

pub(super) fn root_from_initialize(params: &Value) -> Option<PathBuf> {
    if let Some(uri) = params.get("rootUri").and_then(Value::as_str)
        && let Some(path) = crate::uri::uri_to_path(uri)
    {
        return Some(path);
    }
    params.get("rootPath").and_then(Value::as_str).filter(|path| !path.is_empty()).map(PathBuf::from)
}
