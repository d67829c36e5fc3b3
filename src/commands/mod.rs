//! The `workspace/executeCommand` handlers that fslens answers itself, one module each.
//!
//! Every handler takes one JSON object argument and returns one JSON object. Bad input is a
//! [`CommandError`] naming the argument; it becomes a JSON-RPC error (`-32602`) whose `data`
//! carries the typed `errorKind`, so agents can branch on it without parsing prose.

pub mod budget;
pub mod index;
pub mod outline;

use serde_json::{Value, json};

/// A typed failure of a command, turned into a JSON-RPC error at the edge.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// An argument is missing, of the wrong type or out of range.
    #[error("invalid argument `{argument}`: {message}")]
    InvalidArgument { argument: String, message: String },
    /// A path argument points outside the workspace root or to nothing.
    #[error("invalid path `{path}`: {message}")]
    InvalidPath { path: String, message: String },
    /// The request was cancelled by its caller.
    #[error("request cancelled")]
    Cancelled,
    /// Anything else; the message says what failed.
    #[error("{0}")]
    Internal(String),
}

impl CommandError {
    pub fn invalid_argument(argument: &str, message: impl Into<String>) -> Self {
        CommandError::InvalidArgument {
            argument: argument.to_owned(),
            message: message.into(),
        }
    }

    /// The stable, machine-readable name of this error, as sent in `data.errorKind`.
    pub fn kind(&self) -> &'static str {
        match self {
            CommandError::InvalidArgument { .. } => "invalid_argument",
            CommandError::InvalidPath { .. } => "invalid_path",
            CommandError::Cancelled => "cancelled",
            CommandError::Internal(_) => "internal_error",
        }
    }

    /// The JSON-RPC error code this failure is reported with.
    pub fn code(&self) -> i64 {
        match self {
            CommandError::InvalidArgument { .. } | CommandError::InvalidPath { .. } => -32602,
            CommandError::Cancelled => -32800,
            CommandError::Internal(_) => -32603,
        }
    }

    /// The `data` member of the JSON-RPC error.
    pub fn data(&self) -> Value {
        match self {
            CommandError::InvalidArgument { argument, .. } => {
                json!({ "errorKind": self.kind(), "argument": argument })
            }
            CommandError::InvalidPath { path, .. } => {
                json!({ "errorKind": self.kind(), "path": path })
            }
            _ => json!({ "errorKind": self.kind() }),
        }
    }
}
