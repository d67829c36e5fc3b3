//! Running fslens's own commands: each is a task of its own holding a `CommandContext`; what
//! it asks of the session arrives here as a `SessionRequest` and is answered from the loop's
//! state (documents opened in FSAC for it, its requests to FSAC and the editor, snapshots).
//!
//! When a command ends, or is cancelled, everything it held is given back: its requests to
//! FSAC are cancelled, the documents opened for it closed and its what-if restored.

use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::commands;
use crate::commands::CommandError;
use crate::commands::context::{
    CommandContext, CommandKey, Origin, SessionEnded, SessionHandles, SessionInbox, SessionRequest,
};
use crate::lsp::ext::error_kinds;
use crate::lsp::message::{Message, RequestId, ResponseError, error_codes};
use crate::session_state::analysis::AnalysisSnapshot;
use crate::syntax::index::Overlay;

use super::request_table::Completion;
use super::{Event, Proxy, ProxyCall, ProxyDocument};

/// The text a panic was raised with, when it is a string.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

impl Proxy {
    pub(super) fn start_command(&mut self, origin: Origin, id: RequestId, command: String, arguments: Value) {
        let key = (origin, id);
        if self.commands.contains(&key) {
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
            // A command that panics is answered with an internal error naming it (as
            // rust-analyzer and ruff answer a panicking handler), and the session goes on:
            // CommandFinished winds up what it held as for any other end.
            let run = async {
                let argument = commands::single_argument(arguments)?;
                commands::registry::dispatch(&command, argument, context).await
            };
            let result = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
                Ok(result) => result,
                Err(panic) => Err(CommandError::Internal(format!(
                    "{command} failed with an internal error ({}); the session goes on",
                    panic_message(panic.as_ref())
                ))),
            };
            let _ = events.send(Event::CommandFinished { key: task_key, result });
        });
        self.commands.register(key.clone(), Some(key), task.abort_handle());
    }

    pub(super) fn cancel_command(&mut self, key: CommandKey) {
        if let Some(abort) = self.commands.cancel(&key) {
            abort.abort();
            self.wind_up_command(&key);
            let error = ResponseError::new(error_codes::REQUEST_CANCELLED, "cancelled by the client");
            self.send_to_origin(&key.0, &Message::response_error(key.1, &error));
        }
    }

    pub(super) fn acquire_document(&mut self, owner: CommandKey, uri: &str, text: String) -> Result<(), CommandError> {
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

    pub(super) fn release_document(&mut self, owner: &CommandKey, uri: &str) {
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

    pub(super) fn release_documents_of(&mut self, owner: &CommandKey) {
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
    pub(super) fn hand_proxy_document_to_editor(&mut self, uri: &str) {
        if let Some(document) = self.proxy_documents.remove(&crate::uri::canonical_uri(uri)) {
            let close =
                Message::notification("textDocument/didClose", json!({ "textDocument": { "uri": document.uri } }));
            self.send_to_backend(&close);
        }
    }

    pub(super) fn analysis_snapshot(&self, uri: &str) -> AnalysisSnapshot {
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

    /// `owner` (a command, or a session client's forwarded request) no longer waits: FSAC is
    /// sent `$/cancelRequest` for what it still asked, and the editor's answers to its
    /// requests will be dropped.
    pub(super) fn cancel_requests_of(&mut self, owner: &CommandKey) {
        for (id, _) in self.proxy_to_fsac.drop_owned_by(owner) {
            self.send_cancel_to_backend(&id);
        }
        self.proxy_to_editor.drop_owned_by(owner);
    }

    pub(super) fn cancel_backend_call(&mut self, id: RequestId) {
        if self.proxy_to_fsac.cancel(&id).is_some() {
            self.send_cancel_to_backend(&id);
        }
    }

    pub(super) fn send_cancel_to_backend(&mut self, id: &RequestId) {
        let cancel = Message::notification("$/cancelRequest", json!({ "id": id }));
        self.send_to_backend(&cancel);
    }

    /// Gives back what a command that has ended (finished, cancelled, or its client gone) still
    /// holds: its requests to FSAC and the editor, the documents it opened in FSAC, and a
    /// what-if's hypothetical texts.
    pub(super) fn wind_up_command(&mut self, key: &CommandKey) {
        self.cancel_requests_of(key);
        self.release_documents_of(key);
        self.restore_what_if_of(key);
    }

    pub(super) fn on_command_finished(&mut self, key: CommandKey, result: Result<Value, CommandError>) {
        if !matches!(self.commands.complete(&key), Completion::Waiting(_)) {
            return; // cancelled and answered already
        }
        self.wind_up_command(&key);
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

    /// Answers what a running command asks of the session (each `reply` once).
    pub(super) fn on_session_request(&mut self, request: SessionRequest) {
        match request {
            SessionRequest::BackendCall { owner, id, method, params, reply } => {
                if let Err(error) = self.backend_call_allowed(&owner) {
                    let _ = reply.send(Err(error));
                    return;
                }
                let request = Message::request(id.clone(), &method, params);
                self.proxy_to_fsac.register(id, Some(owner), ProxyCall::Command { reply });
                self.send_to_backend(&request);
            }
            SessionRequest::CancelBackendCall { id } => self.cancel_backend_call(id),
            SessionRequest::Restart { reply } => {
                let _ = reply.send(self.restart_on_request());
            }
            SessionRequest::Acquire { owner, uri, text, reply } => {
                let _ = reply.send(self.acquire_document(owner, &uri, text));
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
            SessionRequest::EditorRequest { owner, method, params, capability, reply } => {
                if let Err(error) = self.editor_request_allowed(&method, &capability) {
                    let _ = reply.send(Err(error));
                    return;
                }
                let id = self.next_backend_id();
                self.proxy_to_editor.register(id.clone(), Some(owner), reply);
                self.send_to_editor(&Message::request(id, &method, params));
            }
            SessionRequest::Build { owner, request, reply } => self.run_build(&owner, request, reply),
            SessionRequest::EditorBuffers { reply } => {
                let _ = reply.send(self.editor_buffers());
            }
            SessionRequest::GitChanges { revision, wanted, reply } => {
                let Some(root) = self.workspace_root.clone() else {
                    let _ = reply.send(Err("the session has no workspace root".to_owned()));
                    return;
                };
                tokio::spawn(async move {
                    let _ = reply.send(crate::proxy::backend::git_changes(&root, &revision, wanted).await);
                });
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

    /// Starts the build a command asked for (`check` with `confirm: "build"`) as a task of its
    /// own; the build is stopped (its process killed) once nobody waits for the answer: the
    /// command ended or was cancelled.
    fn run_build(
        &mut self,
        owner: &CommandKey,
        request: crate::commands::context::BuildRequest,
        mut reply: tokio::sync::oneshot::Sender<crate::commands::context::BuildRun>,
    ) {
        if !self.commands.contains(owner) {
            return; // cancelled: dropping the reply tells nobody anything new
        }
        tokio::spawn(async move {
            let run = tokio::select! {
                run = crate::proxy::backend::run_build(request) => run,
                () = reply.closed() => return,
            };
            let _ = reply.send(run);
        });
    }

    /// Why the command `owner` may not send FSAC a request now, if it may not.
    fn backend_call_allowed(&self, owner: &CommandKey) -> Result<(), ResponseError> {
        if !self.commands.contains(owner) {
            return Err(ResponseError::new(error_codes::REQUEST_CANCELLED, "the command was cancelled"));
        }
        if !self.backend_accepts_requests() {
            let reason = self.readiness.reason().unwrap_or("FSAC is not running").to_owned();
            return Err(ResponseError::new(error_codes::REQUEST_FAILED, format!("FSAC is not running: {reason}"))
                .with_data(json!({ "errorKind": error_kinds::FSAC_UNAVAILABLE })));
        }
        Ok(())
    }

    /// Why a command may not send the editor `method` now, if it may not: no editor is
    /// connected, or it did not declare the client `capability` (a JSON pointer) true.
    pub(super) fn editor_request_allowed(&self, method: &str, capability: &str) -> Result<(), ResponseError> {
        if !self.initialize_received || self.exit_deadline.is_some() {
            return Err(ResponseError::new(error_codes::REQUEST_FAILED, "no editor is connected to this session"));
        }
        if self.editor_capabilities.pointer(capability) != Some(&json!(true)) {
            return Err(ResponseError::new(
                error_codes::REQUEST_FAILED,
                format!("the editor does not support {method} (client capability {capability})"),
            ));
        }
        Ok(())
    }

    /// `fslens.restart`: restarts FSAC now, forgetting earlier crashes.
    fn restart_on_request(&mut self) -> Result<Value, CommandError> {
        if self.initialize_params_for_fsac.is_none() {
            return Err(CommandError::Internal(
                "FSAC was never initialized in this session; nothing to restart".to_owned(),
            ));
        }
        self.supervisor.reset();
        if self.backend.is_some() {
            self.restart_requested = true;
            self.kill_backend_for_restart();
        } else {
            self.restart_at = Some(tokio::time::Instant::now());
        }
        Ok(json!({ "restarting": true, "generation": self.backend_generations + 1 }))
    }

    /// The editor's buffers, by path, for the syntax layer.
    fn editor_buffers(&self) -> Overlay {
        let mut overlay = Overlay::new();
        for document in self.documents.iter() {
            if let Some(path) = crate::uri::uri_to_path(&document.uri) {
                overlay.insert(path, document.text.as_str());
            }
        }
        overlay
    }
}

/// The main loop's event queue, as the commands' [`SessionInbox`].
pub(super) struct MainLoopInbox(mpsc::UnboundedSender<Event>);

impl SessionInbox for MainLoopInbox {
    fn post(&self, request: SessionRequest) -> Result<(), SessionEnded> {
        self.0.send(Event::Command(request)).map_err(|_| SessionEnded)
    }
}
