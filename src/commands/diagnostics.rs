//! `fslens.diagnostics`: the diagnostics FSAC has published in this session, each with how
//! fresh it is — never a guess that a file without diagnostics is clean (`fslens.check` is
//! the command that proves that).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::paths::{confine, display_relative};
use crate::proxy::main_loop::CommandContext;

pub async fn diagnostics(
    argument: Value,
    context: CommandContext,
    root: Option<PathBuf>,
) -> Result<Value, CommandError> {
    let object =
        argument.as_object().ok_or_else(|| CommandError::invalid_argument("arguments", "expected an object"))?;
    if let Some(unknown) = object.keys().find(|key| !["path", "maxResults"].contains(&key.as_str())) {
        return Err(CommandError::invalid_argument(unknown, "unknown argument; expected path or maxResults"));
    }
    let root = root.ok_or_else(|| CommandError::Internal("the session has no workspace root yet".to_owned()))?;
    let only = match object.get("path") {
        None | Some(Value::Null) => None,
        Some(Value::String(path)) => Some(confine(&root, path, "path")?),
        Some(_) => return Err(CommandError::invalid_argument("path", "expected a string")),
    };
    let max_results = match object.get("maxResults") {
        None | Some(Value::Null) => 200,
        Some(value) => value
            .as_u64()
            .filter(|count| (1..=1000).contains(count))
            .ok_or_else(|| CommandError::invalid_argument("maxResults", "expected an integer from 1 to 1000"))?
            as usize,
    };
    let mut files = Vec::new();
    let mut total = 0usize;
    for snapshot in context.all_analyses().await? {
        let Some(path) = crate::uri::uri_to_path(&snapshot.uri) else { continue };
        if only.as_ref().is_some_and(|only| only != &path) {
            continue;
        }
        let Some(published) = &snapshot.published else { continue };
        let freshness = if published.generation != snapshot.generation {
            "from_previous_fsac"
        } else if snapshot.current_diagnostics().is_some() {
            "current"
        } else if snapshot.open_in_editor {
            "stale"
        } else {
            "unverified"
        };
        total += published.diagnostics.len();
        files.push(json!({
            "file": display_relative(&root, &path),
            "openInEditor": snapshot.open_in_editor,
            "version": snapshot.expected_version,
            "analyzedVersion": snapshot.analyzed.and_then(|analyzed| analyzed.version),
            "freshness": freshness,
            "errorCount": published.diagnostics.iter().filter(|d| d["severity"] == json!(1)).count(),
            "warningCount": published.diagnostics.iter().filter(|d| d["severity"] == json!(2)).count(),
            "diagnostics": published.diagnostics,
        }));
    }
    files.sort_by(|a, b| a["file"].as_str().cmp(&b["file"].as_str()));
    let truncated = files.len() > max_results;
    files.truncate(max_results);
    Ok(json!({
        "files": files,
        "totalDiagnostics": total,
        "truncated": truncated,
        "via": "fsac",
        "note": "what FSAC published in this session; `current` = analysed at the content it has now. A file absent here is not known to be clean: use fslens.check.",
    }))
}
