//! `fslens.diagnostics`: the diagnostics FSAC has published in this session, each with how
//! fresh it is — never a guess that a file without diagnostics is clean (`fslens.check` is
//! the command that proves that).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::params::{Bounded, CommandArguments};
use crate::commands::paths::{confine, display_relative};
use crate::session_state::analysis::AnalysisSnapshot;

/// The arguments of `fslens.diagnostics` (all optional).
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiagnosticsArguments {
    /// Only this file. Relative to the workspace root or absolute inside it; paths outside are
    /// refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// At most this many files are listed (sorted by path); `truncated` says when more had
    /// diagnostics.
    #[serde(default)]
    pub max_results: Bounded<1, 1000, 200>,
}

impl CommandArguments for DiagnosticsArguments {}

/// How far a file's published diagnostics can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Freshness {
    /// Analysed at the content FSAC has now.
    Current,
    /// An open buffer changed since.
    Stale,
    /// A closed file: what FSAC said when it last saw it.
    Unverified,
    /// Published by an FSAC that has exited since.
    FromPreviousFsac,
}

/// One file's published diagnostics.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PublishedFile {
    file: String,
    open_in_editor: bool,
    version: Option<i64>,
    analyzed_version: Option<i64>,
    freshness: Freshness,
    error_count: usize,
    warning_count: usize,
    diagnostics: Vec<Value>,
}

/// The answer of `fslens.diagnostics`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DiagnosticsAnswer {
    files: Vec<PublishedFile>,
    total_diagnostics: usize,
    truncated: bool,
    via: &'static str,
    note: &'static str,
}

pub async fn diagnostics(arguments: DiagnosticsArguments, context: CommandContext) -> Result<Value, CommandError> {
    let root = context.workspace_root()?.to_path_buf();
    let only = match &arguments.path {
        Some(path) => Some(confine(&root, path, "path")?),
        None => None,
    };
    let mut files = Vec::new();
    let mut total = 0usize;
    for snapshot in context.all_analyses().await? {
        let Some(path) = crate::uri::uri_to_path(&snapshot.uri) else { continue };
        if only.as_ref().is_some_and(|only| only != &path) {
            continue;
        }
        let Some(file) = published_file(&snapshot, display_relative(&root, &path)) else { continue };
        total += file.diagnostics.len();
        files.push(file);
    }
    files.sort_by(|a, b| a.file.cmp(&b.file));
    let max_results = arguments.max_results.as_usize();
    let truncated = files.len() > max_results;
    files.truncate(max_results);
    let answer = DiagnosticsAnswer {
        files,
        total_diagnostics: total,
        truncated,
        via: "fsac",
        note: "what FSAC published in this session; `current` = analysed at the content it has now. A file absent here is not known to be clean: use fslens.check.",
    };
    serde_json::to_value(answer).map_err(|error| CommandError::Internal(error.to_string()))
}

/// What FSAC published for one document, if it published anything.
fn published_file(snapshot: &AnalysisSnapshot, file: String) -> Option<PublishedFile> {
    let published = snapshot.published.as_ref()?;
    let freshness = if published.generation != snapshot.generation {
        Freshness::FromPreviousFsac
    } else if snapshot.current_diagnostics().is_some() {
        Freshness::Current
    } else if snapshot.open_in_editor {
        Freshness::Stale
    } else {
        Freshness::Unverified
    };
    let count = |severity: u64| published.diagnostics.iter().filter(|d| d["severity"] == json!(severity)).count();
    Some(PublishedFile {
        file,
        open_in_editor: snapshot.open_in_editor,
        version: snapshot.expected_version,
        analyzed_version: snapshot.analyzed.and_then(|analyzed| analyzed.version),
        freshness,
        error_count: count(1),
        warning_count: count(2),
        diagnostics: published.diagnostics.clone(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::DiagnosticsArguments;
    use crate::commands::CommandError;
    use crate::commands::params::parse_arguments;

    fn blamed(argument: serde_json::Value) -> String {
        match parse_arguments::<DiagnosticsArguments>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn arguments_default_and_name_what_is_wrong() {
        assert_eq!(blamed(json!({"maxResults": 0})), "maxResults");
        assert_eq!(blamed(json!({"maxResults": 1001})), "maxResults");
        assert_eq!(blamed(json!({"path": 3})), "path");
        assert_eq!(blamed(json!({"file": "A.fs"})), "file");
        let defaults: DiagnosticsArguments = parse_arguments(json!([])).unwrap();
        assert_eq!((defaults.path, defaults.max_results.get()), (None, 200));
    }

    #[test]
    fn the_schema_has_the_bounds_and_the_default() {
        let schema = crate::commands::params::input_schema::<super::DiagnosticsArguments>();
        assert_eq!(schema["properties"]["maxResults"]["maximum"], json!(1000));
        assert_eq!(schema["properties"]["maxResults"]["default"], json!(200));
        assert_eq!(schema["properties"]["path"]["type"], json!("string"));
    }
}
