//! `fslens.diagnostics`: the diagnostics FSAC has published in this session, each with how
//! fresh it is — never a guess that a file without diagnostics is clean (`fslens.check` is
//! the command that proves that).

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_integer, optional_string, reject_unknown};
use crate::commands::paths::{confine, display_relative};

pub async fn diagnostics(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let object = object_of(&argument)?;
    reject_unknown(object, &["path", "maxResults"])?;
    let root = context.workspace_root()?.to_path_buf();
    let only = match optional_string(object, "path")? {
        Some(path) => Some(confine(&root, &path, "path")?),
        None => None,
    };
    let max_results = optional_integer(object, "maxResults", 1, 1000)?.unwrap_or(200) as usize;
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

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}
