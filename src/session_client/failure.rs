//! A connection's failure ([`SessionCallError`]) as the one typed [`Failure`] of a call
//! (`crate::failure`): the session ended, or the call was cancelled (and whether the session
//! confirmed the cancel).

use serde_json::json;

use crate::failure::Failure;
use crate::lsp::ext::error_kinds;
use crate::session_client::SessionCallError;

impl From<SessionCallError> for Failure {
    fn from(error: SessionCallError) -> Failure {
        match error {
            SessionCallError::Closed => Failure::new(
                error_kinds::SESSION_CLOSED,
                "the fslens session ended (was the editor closed?); the next call joins or starts a new one",
            ),
            SessionCallError::Cancelled { confirmed } => Failure {
                error_kind: error_kinds::CANCELLED.to_owned(),
                code: Some(crate::lsp::message::error_codes::REQUEST_CANCELLED),
                message: error.to_string(),
                data: Some(json!({ "errorKind": error_kinds::CANCELLED, "sessionConfirmed": confirmed })),
            },
        }
    }
}
