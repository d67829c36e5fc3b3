//! FSAC's requests to the editor across restarts.
//!
//! A restarted FSAC numbers its requests to the editor from the start again, so its request 1
//! may reach the editor while the editor still owes the exited FSAC an answer to its own
//! request 1. Forwarded unchanged, the editor's late answer would be taken by the new FSAC as
//! the answer to its request. Such a colliding request is forwarded under a fresh id instead,
//! and the editor's answers to the exited FSAC's requests are dropped.

use crate::lsp::message::{Message, RequestId};

use super::Proxy;

impl Proxy {
    pub(super) fn forward_fsac_request(&mut self, id: RequestId, method: String, message: Message) {
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
    pub(super) fn forget_fsac_requests(&mut self) {
        const MOST_STALE_REQUESTS: usize = 4096;
        if self.stale_fsac_requests.len() > MOST_STALE_REQUESTS {
            self.stale_fsac_requests.clear();
        }
        self.renamed_fsac_requests.clear();
        self.stale_fsac_requests.extend(self.fsac_to_editor.drain().map(|(id, _)| id));
    }
}

/// `message` (a request or a response) under another id; the rest is kept as it was.
pub(super) fn with_id(message: &Message, id: &RequestId) -> Message {
    let renamed = message.to_value().ok().and_then(|mut value| {
        value["id"] = serde_json::to_value(id).ok()?;
        Message::from_value(&value).ok()
    });
    renamed.unwrap_or_else(|| message.clone())
}
