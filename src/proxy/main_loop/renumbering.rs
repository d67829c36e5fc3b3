//! FSAC's requests to the editor across restarts.
//!
//! A restarted FSAC numbers its requests to the editor from the start again, so its request 1
//! may reach the editor while the editor still owes the exited FSAC an answer to its own
//! request 1. Forwarded unchanged, the editor's late answer would be taken by the new FSAC as
//! the answer to its request. Such a colliding request is forwarded under a fresh id instead,
//! and the editor's answers to the exited FSAC's requests are dropped.

use crate::lsp::ext::fsac_requests;
use crate::lsp::message::{Message, RequestId, ResponseError, error_codes};

use super::{FsacRequest, Proxy};

impl Proxy {
    pub(super) fn forward_fsac_request(&mut self, id: RequestId, method: String, message: Message) {
        if method == fsac_requests::PROCESS_WAITING_FOR_DEBUGGER && self.headless {
            // No person at an editor can attach a debugger: `false` at once lets the test host
            // run on without one, where FSAC would otherwise wait with no time limit.
            tracing::info!("answering FSAC's {method} false: this session has no editor to attach a debugger");
            return self.send_to_backend(&Message::response_ok(id, serde_json::Value::Bool(false)));
        }
        if !self.fsac_to_editor.is_owed(&id) {
            self.fsac_to_editor.register(id, None, FsacRequest { renamed_from: None });
            return self.send_to_editor(&message);
        }
        let renamed = self.next_backend_id();
        tracing::debug!(
            "forwarding FSAC's {method} request {id} to the editor as {renamed}: the id is still owed an answer"
        );
        self.send_to_editor(&with_id(&message, &renamed));
        self.fsac_to_editor.register(renamed, None, FsacRequest { renamed_from: Some(id) });
    }

    /// FSAC exited: nobody is left to take the editor's answers to what it asked. The table
    /// remembers those requests (boundedly; the editor may never answer), so that their late
    /// answers are dropped and their ids are not reused for the next FSAC's requests.
    pub(super) fn forget_fsac_requests(&mut self) {
        let exited =
            |_: &FsacRequest| ResponseError::new(error_codes::REQUEST_FAILED, "the FSAC that asked has exited");
        for (origin, message) in self.fsac_to_editor.fail_all(exited) {
            self.send_to_origin(&origin, &message);
        }
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
