//! A failed call through a session client: the typed `errorKind`, the JSON-RPC code when
//! there was one, the message and the error's `data`, from whichever layer failed (a command,
//! the session, the connection). The MCP bridge renders it as a `CallToolResult` with
//! `is_error`; the CLI carries it to `main` as a `CliFailure`.

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::ResponseError;
use crate::session_client::SessionCallError;

/// A failed call: a tool call of the MCP bridge, a CLI subcommand, a navigation.
#[derive(Debug)]
pub struct CallFailure {
    pub kind: String,
    pub code: Option<i64>,
    pub message: String,
    pub data: Option<Value>,
}

impl CallFailure {
    pub fn new(kind: &str, message: impl Into<String>) -> CallFailure {
        CallFailure { kind: kind.to_owned(), code: None, message: message.into(), data: None }
    }

    pub fn invalid_argument(argument: &str, message: impl Into<String>) -> CallFailure {
        CallFailure::from(CommandError::invalid_argument(argument, message))
    }
}

impl From<CommandError> for CallFailure {
    fn from(error: CommandError) -> CallFailure {
        CallFailure {
            kind: error.kind().to_owned(),
            code: Some(error.code()),
            message: error.to_string(),
            data: Some(error.data()),
        }
    }
}

impl From<ResponseError> for CallFailure {
    fn from(error: ResponseError) -> CallFailure {
        let kind = error
            .data
            .as_ref()
            .and_then(|data| data.get("errorKind"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                if error.code == crate::lsp::message::error_codes::REQUEST_CANCELLED {
                    error_kinds::CANCELLED.to_owned()
                } else {
                    error_kinds::SESSION_ERROR.to_owned()
                }
            });
        CallFailure { kind, code: Some(error.code), message: error.message, data: error.data }
    }
}

impl From<SessionCallError> for CallFailure {
    fn from(error: SessionCallError) -> CallFailure {
        match error {
            SessionCallError::Closed => CallFailure::new(
                error_kinds::SESSION_CLOSED,
                "the fslens session ended (was the editor closed?); the next call joins or starts a new one",
            ),
            SessionCallError::Cancelled { confirmed } => CallFailure {
                kind: error_kinds::CANCELLED.to_owned(),
                code: Some(crate::lsp::message::error_codes::REQUEST_CANCELLED),
                message: error.to_string(),
                data: Some(json!({ "errorKind": error_kinds::CANCELLED, "sessionConfirmed": confirmed })),
            },
        }
    }
}
