//! The text of `fslens status`.

use crate::commands::status::*;

/// `fslens status` as text: the state, FSAC, the projects and what is not ready.
pub fn render_text(status: &StatusAnswer) -> String {
    let or_null = |text: Option<&str>| text.unwrap_or("null").to_owned();
    let state = serde_json::to_value(status.state).ok().and_then(|state| state.as_str().map(str::to_owned));
    let mut lines = vec![
        format!("state:      {}", or_null(state.as_deref())),
        format!("reason:     {}", or_null(status.reason.as_deref())),
        format!("workspace:  {}", or_null(status.workspace_root.as_deref())),
        format!("fsac:       {}", or_null(status.fsac.command.as_deref())),
        format!("fsac pid:   {}", status.fsac.pid.map_or_else(|| "null".to_owned(), |pid| pid.to_string())),
    ];
    lines.push(format!("projects:   {} loaded", status.projects_loaded.len()));
    if let Some(reason) = status.no_projects.as_ref().map(|reason| &reason.message) {
        lines.push(format!("no_projects: {reason}"));
    }
    lines.extend(status.projects_loading.iter().map(|project| format!("  loading {project}")));
    if let Some(wait) = status.wait.as_ref().filter(|wait| !wait.satisfied) {
        let why = if wait.timed_out { "the timeout passed" } else { "waiting could not help" };
        lines.push(format!("not ready after {} ms: {why}", wait.waited_ms));
    }
    if status.unresponsive {
        let silent = status.silent_for_ms.map_or_else(|| "null".to_owned(), |ms| ms.to_string());
        lines.push(format!("unresponsive: FSAC silent for {silent} ms with requests pending"));
    }
    lines.extend(status.projects_loaded.iter().map(|project| format!("  {project}")));
    for error in &status.project_errors {
        let code = error.code.map_or_else(|| "null".to_owned(), |code| code.to_string());
        lines.push(format!("  error {code}: {} ({})", error.message, error.project));
    }
    lines.join("\n")
}
