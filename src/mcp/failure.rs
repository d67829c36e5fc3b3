//! A failed MCP tool call, before it is rendered as a `CallToolResult` with `is_error`: the
//! typed `errorKind`, the JSON-RPC code when there was one, the message and the error's
//! `data`, from whichever layer failed (a command, the session, the connection).

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::ResponseError;
use crate::mcp::session::SessionCallError;

/// A failure of a tool call, rendered as a `CallToolResult` with `is_error`.
#[derive(Debug)]
pub struct ToolFailure {
    pub kind: String,
    pub code: Option<i64>,
    pub message: String,
    pub data: Option<Value>,
}

impl ToolFailure {
    pub fn new(kind: &str, message: impl Into<String>) -> ToolFailure {
        ToolFailure { kind: kind.to_owned(), code: None, message: message.into(), data: None }
    }

    pub fn invalid_argument(argument: &str, message: impl Into<String>) -> ToolFailure {
        ToolFailure::from(CommandError::invalid_argument(argument, message))
    }
}

impl From<CommandError> for ToolFailure {
    fn from(error: CommandError) -> ToolFailure {
        ToolFailure {
            kind: error.kind().to_owned(),
            code: Some(error.code()),
            message: error.to_string(),
            data: Some(error.data()),
        }
    }
}

impl From<ResponseError> for ToolFailure {
    fn from(error: ResponseError) -> ToolFailure {
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
        ToolFailure { kind, code: Some(error.code), message: error.message, data: error.data }
    }
}

impl From<SessionCallError> for ToolFailure {
    fn from(error: SessionCallError) -> ToolFailure {
        match error {
            SessionCallError::Closed => ToolFailure::new(
                error_kinds::SESSION_CLOSED,
                "the fslens session ended (was the editor closed?); the next call joins or starts a new one",
            ),
            SessionCallError::Cancelled { confirmed } => ToolFailure {
                kind: error_kinds::CANCELLED.to_owned(),
                code: Some(crate::lsp::message::error_codes::REQUEST_CANCELLED),
                message: error.to_string(),
                data: Some(json!({ "errorKind": error_kinds::CANCELLED, "sessionConfirmed": confirmed })),
            },
        }
    }
}
