//! The main loop's part of a what-if check (`fslens.check` with `edits`): showing
//! FSAC hypothetical texts at versions fslens owns, holding the editor's notifications about
//! those documents meanwhile, routing FSAC's notifications about them, and restoring FSAC's
//! view afterwards. The bookkeeping itself is `proxy::what_if::WhatIfState`.

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::context::{CommandKey, WhatIfText};
use crate::lsp::message::Message;

use super::{Proxy, document_notification_uri};

impl Proxy {
    /// True for an editor document notification about a document a what-if overlays: it waits
    /// until the restore (docs/architecture.md, invariant 9b).
    pub(super) fn is_held_by_what_if(&self, message: &Message) -> bool {
        self.what_if.overlaid_count() > 0
            && document_notification_uri(message).is_some_and(|uri| self.what_if.is_overlaid(&uri))
    }

    pub(super) fn hold_for_what_if(&mut self, method: &str, message: Message) {
        let Some(uri) = document_notification_uri(&message) else { return };
        if let Some(message) = self.what_if.hold(&uri, method, message) {
            self.on_editor_notification(method, message);
        }
    }

    /// Shows FSAC the hypothetical texts at versions fslens owns: a full-text `didChange` for a
    /// document the editor has open, a `didOpen` for the others. Nothing is sent unless every
    /// document can be overlaid.
    pub(super) fn begin_what_if(
        &mut self,
        owner: CommandKey,
        documents: Vec<WhatIfText>,
    ) -> Result<Vec<i64>, CommandError> {
        if !self.commands.contains(&owner) {
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
    pub(super) fn restore_what_if_of(&mut self, owner: &CommandKey) {
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
    pub(super) fn abandon_what_ifs(&mut self) {
        for (method, message) in self.what_if.abandon() {
            self.on_editor_notification(&method, message);
        }
    }

    /// True for FSAC's test detection in a text a what-if shows it: the editor never hears it.
    pub(super) fn what_if_test_detection(&self, message: &Message) -> bool {
        let params = message.params().unwrap_or(Value::Null);
        params.get("file").and_then(Value::as_str).is_some_and(|file| self.what_if.is_overlaid(file))
    }

    /// Whether an FSAC notification about `uri` may reach the editor; hands over a held
    /// publish of a restored document first.
    pub(super) fn route_what_if_notification(
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
}
