//! `fslens.diagnostics`: the diagnostics FSAC has published in this session, each with how
//! fresh it is — never a guess that a file without diagnostics is clean (`fslens.check` is
//! the command that proves that).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::diagnostic::answer::Via;
use crate::commands::params::{Bounded, CommandArguments};
use crate::commands::paths::{confine, display_relative};
use crate::lsp::types::{Diagnostic, DiagnosticSeverity};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Freshness {
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedFile {
    pub file: String,
    pub open_in_editor: bool,
    pub version: Option<i64>,
    pub analyzed_version: Option<i64>,
    pub freshness: Freshness,
    pub error_count: usize,
    pub warning_count: usize,
    /// As FSAC published them: passed on, not read (the counts are read from them).
    pub diagnostics: Vec<Value>,
}

/// The answer of `fslens.diagnostics`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsAnswer {
    pub files: Vec<PublishedFile>,
    pub total_diagnostics: usize,
    pub truncated: bool,
    pub via: Via,
    pub note: String,
}

pub async fn diagnostics(
    arguments: DiagnosticsArguments,
    context: CommandContext,
) -> Result<DiagnosticsAnswer, CommandError> {
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
    Ok(DiagnosticsAnswer {
        files,
        total_diagnostics: total,
        truncated,
        via: Via::Fsac,
        note: "what FSAC published in this session; `current` = analysed at the content it has now. A file absent here is not known to be clean: use fslens.check.".to_owned(),
    })
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
    let severities: Vec<Option<DiagnosticSeverity>> =
        published.diagnostics.iter().map(|value| Diagnostic::read(value).and_then(|read| read.severity)).collect();
    let count = |severity: DiagnosticSeverity| severities.iter().filter(|read| **read == Some(severity)).count();
    Some(PublishedFile {
        file,
        open_in_editor: snapshot.open_in_editor,
        version: snapshot.expected_version,
        analyzed_version: snapshot.analyzed.and_then(|analyzed| analyzed.version),
        freshness,
        error_count: count(DiagnosticSeverity::Error),
        warning_count: count(DiagnosticSeverity::Warning),
        diagnostics: published.diagnostics.clone(),
    })
}

/// What FSAC reported is always a definite answer (freshness is said per file).
impl crate::commands::outcome::Answered for DiagnosticsAnswer {}

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
    fn an_answer_reads_back_to_the_value_sent() {
        let sent = json!({
            "files": [{
                "file": "src/A.fs", "openInEditor": true, "version": 3, "analyzedVersion": null,
                "freshness": "from_previous_fsac", "errorCount": 1, "warningCount": 0,
                "diagnostics": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "severity": 1, "code": "39", "message": "m", "data": {"kept": true}}],
            }],
            "totalDiagnostics": 1,
            "truncated": false,
            "via": "fsac",
            "note": "n",
        });
        let read: super::DiagnosticsAnswer = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(read.files[0].freshness, super::Freshness::FromPreviousFsac);
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
    }

    #[test]
    fn the_schema_has_the_bounds_and_the_default() {
        let schema = crate::commands::params::input_schema::<super::DiagnosticsArguments>();
        assert_eq!(schema["properties"]["maxResults"]["maximum"], json!(1000));
        assert_eq!(schema["properties"]["maxResults"]["default"], json!(200));
        assert_eq!(schema["properties"]["path"]["type"], json!("string"));
    }
}
