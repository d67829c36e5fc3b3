//! `fslens check` on the command line: the answer as text, and the exit code a script branches on.

use serde_json::{Value, json};

use crate::cli_contract::exit_codes;

/// `fslens check` as text: the verdict line, why when unknown, the diagnostics, what the list
/// leaves out, and a what-if's baseline and delta.
pub fn render_text(answer: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![format!(
        "{} ({} scope, {}): {} error(s), {} warning(s), {} file(s) covered, complete: {}",
        text(&answer["verdict"]),
        text(&answer["scope"]),
        text(&answer["speed"]),
        answer["errorCount"],
        answer["warningCount"],
        answer["files"].as_array().map_or(0, Vec::len),
        answer["complete"],
    )];
    if let Some(reason) = answer["reason"].as_str() {
        lines.push(format!("reason: {reason}"));
    }
    if let Some(note) = answer["configurationNote"].as_str() {
        lines.push(format!("configuration: {note}"));
    }
    let blocking = &answer["blockingReason"];
    if let Some(kind) = blocking["errorKind"].as_str() {
        lines.push(format!("blocking: {kind}"));
    }
    if let Some(remedy) = blocking["remedy"].as_str() {
        lines.push(format!("remedy: {remedy}"));
    }
    for remedy in blocking["remedies"].as_array().into_iter().flatten() {
        lines.push(format!("remedy: {}", text(remedy)));
    }
    for (field, label) in [("missingFiles", "not analysed"), ("staleFiles", "analysed at an older version")] {
        let files: Vec<String> = answer[field].as_array().into_iter().flatten().map(text).collect();
        if !files.is_empty() {
            lines.push(format!("{} file(s) {label}: {}", files.len(), files.join(", ")));
        }
    }
    let diagnostics = answer["diagnostics"].as_array().map_or(&[][..], Vec::as_slice);
    for diagnostic in diagnostics {
        lines.push(format!(
            "{}:{}:{}: {} FS{:04}: {}",
            text(&diagnostic["file"]),
            diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
            diagnostic["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
            text(&diagnostic["severity"]),
            diagnostic["code"].as_u64().unwrap_or(0),
            text(&diagnostic["message"]).replace('\n', " "),
        ));
    }
    // What the list leaves out: the cap, the severity floor, project scope's downstream.
    let listable = answer["totalDiagnostics"]
        .as_u64()
        .unwrap_or(0)
        .saturating_sub(answer["belowSeverityFloorCount"].as_u64().unwrap_or(0));
    if answer["diagnosticsTruncated"] == json!(true) {
        lines.push(format!(
            "… {} more diagnostic(s) not listed (at most {} are; narrow with PATH, --file-glob or --project-path)",
            listable.saturating_sub(diagnostics.len() as u64),
            crate::commands::check::MAX_DIAGNOSTICS
        ));
    }
    for note in [&answer["diagnosticsNote"], &answer["coverageNote"]] {
        if let Some(note) = note.as_str() {
            lines.push(format!("note: {note}"));
        }
    }
    for note in answer["notes"].as_array().into_iter().flatten() {
        lines.push(format!("note: {}", text(note)));
    }
    lines.extend(render_what_if(answer));
    lines.join("\n")
}

/// A what-if's baseline and delta as text lines (none for an ordinary check).
fn render_what_if(answer: &Value) -> Vec<String> {
    if answer.get("whatIf").is_none() {
        return Vec::new();
    }
    let baseline = &answer["baseline"];
    let mut lines = vec![format!(
        "what-if (nothing written; FSAC's view restored: {}): before the edits {} with {} error(s)",
        answer["whatIf"]["restored"],
        baseline["verdict"].as_str().unwrap_or("unknown"),
        baseline["errorCount"],
    )];
    for (kind, label) in [("introduced", "introduced"), ("resolved", "resolved")] {
        for diagnostic in answer["delta"][kind].as_array().into_iter().flatten() {
            lines.push(format!(
                "{label}: {}:{}: FS{:04}: {}",
                diagnostic["file"].as_str().unwrap_or_default(),
                diagnostic["range"]["start"]["line"].as_u64().map_or("?".to_owned(), |line| (line + 1).to_string()),
                diagnostic["code"].as_u64().unwrap_or(0),
                diagnostic["message"].as_str().unwrap_or_default().replace('\n', " "),
            ));
        }
    }
    lines
}

/// 0 clean, 1 errors, 2 unknown (a refused request or a failure of fslens has codes of its own:
/// `exit_codes`).
pub fn exit_code(answer: &Value) -> u8 {
    match answer["verdict"].as_str() {
        Some("clean") => exit_codes::SUCCESS,
        Some("errors") => exit_codes::CHECK_ERRORS,
        _ => exit_codes::NOT_DEFINITE,
    }
}
