//! The `workspace/executeCommand` handlers that fslens answers itself, one module each.
//!
//! Every handler takes one JSON object argument and returns one JSON object. Bad input is a
//! [`CommandError`] naming the argument; it becomes a JSON-RPC error (`-32602`) whose `data`
//! carries the typed `errorKind`, so agents can branch on it without parsing prose.

use serde::Serialize;
use serde_json::Value;

use crate::commands::blocking::BlockingReason;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::error_codes;
pub use context::CommandContext;

pub mod affected_tests;
pub mod arguments;
pub mod blocking;
pub mod budget;
pub mod check;
pub mod configurations;
pub mod context;
pub mod cursor;
pub mod dead_code;
pub mod diagnostic;
pub mod diagnostics;
pub mod doctor;
pub mod field_impact;
pub mod find;
pub mod index;
pub mod make_visible;
pub mod outcome;
pub mod outline;
pub mod params;
pub mod paths;
pub mod project_inspect;
pub mod referenced;
pub mod registry;
pub mod rename;
pub mod restart;
pub mod run_tests;
pub mod signature_drift;
pub mod status;
pub mod symbols;
pub mod tests_for_symbol;
pub mod type_hierarchy;
pub mod union_impact;
pub mod workspace_edit;

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
    /// FSAC cannot serve the request (absent, starting, crashed); the message says why.
    #[error("FSAC is not available: {0}")]
    Unavailable(String),
    /// The request's deadline passed before it could be answered.
    #[error("the deadline passed before the answer was complete")]
    Timeout,
    /// Anything else; the message says what failed.
    #[error("{0}")]
    Internal(String),
    /// A failure with its own stable kind (e.g. `find_cursor_stale`), JSON-RPC code and
    /// extra `data` members.
    #[error("{message}")]
    Typed { kind: &'static str, code: i64, message: String, data: Value },
}

impl CommandError {
    pub fn invalid_argument(argument: &str, message: impl Into<String>) -> Self {
        CommandError::InvalidArgument { argument: argument.to_owned(), message: message.into() }
    }

    /// A failure of its own `kind` with `data`'s members beside `errorKind` (a struct or map
    /// that serializes to an object; anything else adds nothing).
    pub fn typed(kind: &'static str, code: i64, message: impl Into<String>, data: impl Serialize) -> Self {
        let data = serde_json::to_value(data).unwrap_or_default();
        CommandError::Typed { kind, code, message: message.into(), data }
    }

    /// The stable, machine-readable name of this error, as sent in `data.errorKind`.
    pub fn kind(&self) -> &'static str {
        match self {
            CommandError::InvalidArgument { .. } => error_kinds::INVALID_ARGUMENT,
            CommandError::InvalidPath { .. } => error_kinds::INVALID_PATH,
            CommandError::Cancelled => error_kinds::CANCELLED,
            CommandError::Timeout => error_kinds::TIMEOUT,
            CommandError::Unavailable(_) => error_kinds::FSAC_UNAVAILABLE,
            CommandError::Internal(_) => error_kinds::INTERNAL_ERROR,
            CommandError::Typed { kind, .. } => kind,
        }
    }

    /// The JSON-RPC error code this failure is reported with.
    pub fn code(&self) -> i64 {
        match self {
            CommandError::InvalidArgument { .. } | CommandError::InvalidPath { .. } => error_codes::INVALID_PARAMS,
            CommandError::Cancelled => error_codes::REQUEST_CANCELLED,
            CommandError::Unavailable(_) => error_codes::REQUEST_FAILED,
            CommandError::Timeout | CommandError::Internal(_) => error_codes::INTERNAL_ERROR,
            CommandError::Typed { code, .. } => *code,
        }
    }

    /// The `data` member of the JSON-RPC error: `errorKind`, the argument or path at fault,
    /// and a typed failure's own members.
    pub fn data(&self) -> Value {
        let (argument, path) = match self {
            CommandError::InvalidArgument { argument, .. } => (Some(argument.as_str()), None),
            CommandError::InvalidPath { path, .. } => (None, Some(path.as_str())),
            _ => (None, None),
        };
        let mut extra = match self {
            CommandError::Typed { data: Value::Object(members), .. } => members.clone(),
            _ => serde_json::Map::new(),
        };
        extra.remove("errorKind");
        serde_json::to_value(ErrorData { error_kind: self.kind(), argument, path, extra }).unwrap_or_default()
    }
}

/// A command's typed error as the one failure of a call (`crate::failure`), for callers outside
/// the session (the CLI running a command from files, the session client's own checks).
impl From<CommandError> for crate::failure::Failure {
    fn from(error: CommandError) -> crate::failure::Failure {
        crate::failure::Failure {
            error_kind: error.kind().to_owned(),
            code: Some(error.code()),
            message: error.to_string(),
            data: Some(error.data()),
        }
    }
}

/// The `data` of a command's JSON-RPC error.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorData<'a> {
    error_kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    argument: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

/// The one argument of a command out of `workspace/executeCommand`'s `arguments` array: its
/// single element, or `null` when there is none. What counts as the empty argument object
/// (`null`, `[]` — Neovim encodes `arguments = { {} }` as `[[]]`) is `params::parse_arguments`'
/// rule, the one place it is decided.
pub fn single_argument(arguments: Value) -> Result<Value, CommandError> {
    match arguments {
        Value::Null => Ok(Value::Null),
        Value::Array(mut items) if items.len() <= 1 => Ok(items.pop().unwrap_or(Value::Null)),
        Value::Array(items) => Err(CommandError::invalid_argument(
            "arguments",
            format!("expected one JSON object, got {} arguments", items.len()),
        )),
        other => Err(CommandError::invalid_argument(
            "arguments",
            format!("expected an array holding one object, got {other}"),
        )),
    }
}

/// The typed `no_projects` reason when the workspace has no F# project: `{errorKind, message,
/// searched, skippedDirectories, sourceFiles, problems?}`. `status`, `find` and `check` give it
/// instead of an answer that would read as "nothing there" (0 projects loaded, `not_found`, a
/// verdict over nothing).
pub fn no_projects(model: &crate::workspace::WorkspaceModel) -> Option<BlockingReason> {
    if !model.projects.is_empty() {
        return None;
    }
    let skipped = crate::workspace::paths::SKIPPED_DIRECTORIES;
    let mut message = format!(
        "no F# project: no .fsproj, and no solution naming one, under {} (searched it and every subdirectory except {})",
        model.root.display(),
        skipped.join(", ")
    );
    if !model.source_files.is_empty() {
        message.push_str(&format!("; {} F# source file(s) belong to no project", model.source_files.len()));
    }
    Some(BlockingReason {
        searched: Some(model.root.display().to_string()),
        skipped_directories: Some(skipped.iter().map(|directory| directory.to_string()).collect()),
        source_files: Some(model.source_files.len()),
        problems: (!model.problems.is_empty()).then(|| model.problems.clone()),
        ..BlockingReason::new(error_kinds::NO_PROJECTS, message)
    })
}

/// The `no_projects` reason as a command's error, for a command that has nothing to answer
/// about a workspace without a project.
pub fn refuse_without_projects(model: &crate::workspace::WorkspaceModel) -> Result<(), CommandError> {
    match no_projects(model) {
        None => Ok(()),
        Some(reason) => Err(CommandError::typed(
            error_kinds::NO_PROJECTS,
            error_codes::INVALID_PARAMS,
            reason.message.clone(),
            reason,
        )),
    }
}

/// Runs CPU-heavy work (parsing, indexing) off the routing thread.
pub async fn run_blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| CommandError::Internal(format!("a worker thread failed: {error}")))?
}

/// The workspace's project model, read off the routing thread. An unreadable root is an
/// `invalid_path` error naming it.
pub async fn load_workspace_model(root: &std::path::Path) -> Result<crate::workspace::WorkspaceModel, CommandError> {
    let root = root.to_path_buf();
    run_blocking(move || {
        crate::workspace::load_workspace(&root).map_err(|error| CommandError::InvalidPath {
            path: root.display().to_string(),
            message: format!("{error:#}"),
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Failure;

    #[test]
    fn a_refused_argument_or_path_is_the_same_failure_from_a_command_or_the_command_line() {
        assert_eq!(
            Failure::from(CommandError::invalid_argument("line", "the file has 3 lines")),
            Failure::invalid_argument("line", "the file has 3 lines")
        );
        let path = CommandError::InvalidPath { path: "x.fs".into(), message: "no such file".into() };
        assert_eq!(Failure::from(path), Failure::invalid_path("x.fs", "no such file"));
    }
}
