//! The one typed failure of a call made from outside a session: a CLI subcommand, a tool call
//! of the MCP bridge, a navigation. It carries the stable `errorKind`, the JSON-RPC code when
//! there was one, the message and the error's `data` (`argument`, `path`, …), from whichever
//! layer failed: a command's typed error (`From<CommandError>`, in `commands`), the session's
//! JSON-RPC error (`From<ResponseError>`, here), the connection (`From<SessionCallError>`, in
//! `session_client`). Each conversion lives beside the type it converts from, so this module
//! imports nothing above the wire. The MCP bridge renders a failure as a `CallToolResult` with
//! `is_error`; the CLI carries it to `main`, where `cli::contract` gives it its exit code and,
//! with `--json`, its JSON object.

use serde_json::{Value, json};

use crate::lsp::ext::error_kinds;
use crate::lsp::message::{ResponseError, error_codes};

/// A failed call: its stable `errorKind`, the JSON-RPC code when the session answered one, the
/// message and the error's `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub error_kind: String,
    pub code: Option<i64>,
    pub message: String,
    pub data: Option<Value>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl Failure {
    pub fn new(error_kind: &str, message: impl Into<String>) -> Failure {
        Failure { error_kind: error_kind.to_owned(), code: None, message: message.into(), data: None }
    }

    /// A refused argument, named as a flag or argument of the command (`data.argument`): the
    /// failure a command's `CommandError::InvalidArgument` converts to.
    pub fn invalid_argument(argument: &str, message: impl Into<String>) -> Failure {
        Failure {
            error_kind: error_kinds::INVALID_ARGUMENT.to_owned(),
            code: Some(error_codes::INVALID_PARAMS),
            message: format!("invalid argument `{argument}`: {}", message.into()),
            data: Some(json!({ "errorKind": error_kinds::INVALID_ARGUMENT, "argument": argument })),
        }
    }

    /// A workspace or file that does not exist, or lies outside the workspace (`data.path`):
    /// the failure a command's `CommandError::InvalidPath` converts to.
    pub fn invalid_path(path: &str, message: impl Into<String>) -> Failure {
        Failure {
            error_kind: error_kinds::INVALID_PATH.to_owned(),
            code: Some(error_codes::INVALID_PARAMS),
            message: format!("invalid path `{path}`: {}", message.into()),
            data: Some(json!({ "errorKind": error_kinds::INVALID_PATH, "path": path })),
        }
    }

    /// The failure an error stands for: the [`Failure`] it carries (through any context added
    /// on the way), else an `internal_error` with the whole chain as its message.
    pub fn of(error: &anyhow::Error) -> Failure {
        error
            .chain()
            .find_map(|cause| cause.downcast_ref::<Failure>())
            .cloned()
            .unwrap_or_else(|| Failure::new(error_kinds::INTERNAL_ERROR, format!("{error:#}").replace('\n', " ")))
    }
}

impl From<ResponseError> for Failure {
    fn from(error: ResponseError) -> Failure {
        let error_kind = error
            .data
            .as_ref()
            .and_then(|data| data.get("errorKind"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                if error.code == error_codes::REQUEST_CANCELLED {
                    error_kinds::CANCELLED.to_owned()
                } else {
                    error_kinds::SESSION_ERROR.to_owned()
                }
            });
        Failure { error_kind, code: Some(error.code), message: error.message, data: error.data }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_found_under_added_context() {
        let error = anyhow::Error::new(Failure::invalid_path("x.fs", "no such file")).context("reading the file");
        assert_eq!(Failure::of(&error).error_kind, "invalid_path");
        let untyped = Failure::of(&anyhow::anyhow!("the session closed"));
        assert_eq!(untyped.error_kind, "internal_error");
    }

    #[test]
    fn a_session_error_without_a_kind_is_a_session_error_and_a_cancel_is_cancelled() {
        let plain = ResponseError { code: error_codes::INTERNAL_ERROR, message: "boom".into(), data: None };
        assert_eq!(Failure::from(plain).error_kind, "session_error");
        let cancelled = ResponseError { code: error_codes::REQUEST_CANCELLED, message: "cancelled".into(), data: None };
        assert_eq!(Failure::from(cancelled).error_kind, "cancelled");
    }
}
