//! `fslens check` on the command line: the answer as text, and the exit code a script branches on.

use serde_json::Value;

use crate::commands::check::answer::{CheckAnswer, Delta, DeltaEntry, ReportedDiagnostic, range_start};
use crate::commands::check::confirm::BuildError;

/// JSON text without the quotes of a string.
fn text(value: &Value) -> String {
    value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string())
}

/// A diagnostic's start, 1-based, when its range reads as an LSP range.
fn start(range: &Value) -> Option<(u32, u32)> {
    range_start(range).map(|start| (start.line + 1, start.character + 1))
}

fn code(code: &Value) -> u64 {
    code.as_u64().unwrap_or(0)
}

/// `fslens check` as text: the verdict line, why when unknown, the diagnostics, what the list
/// leaves out, and a what-if's baseline and delta.
pub fn render_text(answer: &CheckAnswer) -> String {
    let (coverage, findings) = (&answer.coverage, &answer.findings);
    let mut lines = vec![format!(
        "{} ({} scope, {}): {} error(s), {} warning(s), {} file(s) covered, complete: {}",
        findings.verdict.as_str(),
        text(&serde_json::to_value(coverage.scope).unwrap_or_default()),
        text(&serde_json::to_value(coverage.speed).unwrap_or_default()),
        findings.counts.error_count,
        findings.counts.warning_count,
        findings.files.as_ref().map_or(0, Vec::len),
        findings.complete,
    )];
    if let Some(reason) = &findings.reason {
        lines.push(format!("reason: {reason}"));
    }
    lines.extend(render_verdict_source(answer));
    if let Some(note) = &coverage.configuration_note {
        lines.push(format!("configuration: {note}"));
    }
    if let Some(blocking) = &findings.blocking_reason {
        lines.push(format!("blocking: {}", blocking.error_kind));
        lines.extend(
            blocking.remedy.iter().chain(blocking.remedies.iter().flatten()).map(|remedy| format!("remedy: {remedy}")),
        );
    }
    for (files, label) in
        [(&findings.missing_files, "not analysed"), (&findings.stale_files, "analysed at an older version")]
    {
        let files = files.as_deref().unwrap_or_default();
        if !files.is_empty() {
            lines.push(format!("{} file(s) {label}: {}", files.len(), files.join(", ")));
        }
    }
    lines.extend(findings.diagnostics.iter().map(diagnostic_line));
    // What the list leaves out: the cap, the severity floor, project scope's downstream.
    let listable = findings.counts.total_diagnostics.saturating_sub(findings.below_severity_floor_count);
    if findings.diagnostics_truncated {
        lines.push(format!(
            "… {} more diagnostic(s) not listed (at most {} are; narrow with PATH, --file-glob or --project-path)",
            listable.saturating_sub(findings.diagnostics.len()),
            crate::commands::check::MAX_DIAGNOSTICS
        ));
    }
    let coverage_note = coverage.project_scope.as_ref().map(|note| &note.coverage_note);
    for note in [findings.diagnostics_note.as_ref(), coverage_note].into_iter().flatten() {
        lines.push(format!("note: {note}"));
    }
    lines.extend(coverage.notes.iter().map(|note| format!("note: {note}")));
    lines.extend(render_what_if(answer));
    lines.join("\n")
}

fn diagnostic_line(diagnostic: &ReportedDiagnostic) -> String {
    let (line, character) = start(&diagnostic.range).unwrap_or((1, 1));
    let confirmed = match diagnostic.confirmed_by_build {
        Some(true) => " [build: confirmed]",
        Some(false) => " [build: not confirmed]",
        None => "",
    };
    format!(
        "{}:{line}:{character}: {} FS{:04}{confirmed}: {}",
        diagnostic.file,
        diagnostic.severity.as_str(),
        code(&diagnostic.code),
        text(&diagnostic.message).replace('\n', " "),
    )
}

/// What the verdict rests on, and with `--confirm build` what the build said and the errors
/// only the build reported.
fn render_verdict_source(answer: &CheckAnswer) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(confirmation) = &answer.confirmation {
        lines.push(format!(
            "confirmed by the build ({}): {}",
            text(&serde_json::to_value(confirmation.status).unwrap_or_default()),
            confirmation.note
        ));
        lines
            .extend(confirmation.errors_only_in_build.iter().map(|error| build_error_line(error, "only in the build")));
        lines.extend(
            confirmation.errors_outside_scope.iter().map(|error| build_error_line(error, "build, outside the scope")),
        );
    } else if let Some(note) = &answer.verdict_note {
        lines.push(format!("verdict: {note}"));
    }
    lines
}

fn build_error_line(error: &BuildError, label: &str) -> String {
    let place = match (&error.file, error.line, error.column) {
        (Some(file), Some(line), Some(column)) => format!("{file}:{line}:{column}"),
        (Some(file), Some(line), None) => format!("{file}:{line}"),
        (Some(file), None, _) => file.clone(),
        (None, _, _) => "(no file)".to_owned(),
    };
    format!("{label}: {place}: error {}: {}", error.code, error.message.replace('\n', " "))
}

/// A what-if's baseline and delta as text lines (none for an ordinary check).
fn render_what_if(answer: &CheckAnswer) -> Vec<String> {
    let Some(what_if) = &answer.coverage.what_if else {
        return Vec::new();
    };
    let restored = what_if.restored.map_or_else(|| "null".to_owned(), |restored| restored.to_string());
    let baseline = answer.baseline.as_ref();
    let mut lines = vec![format!(
        "what-if (nothing written; FSAC's view restored: {restored}): before the edits {} with {} error(s)",
        baseline.map_or("unknown", |baseline| baseline.verdict.as_str()),
        baseline.map_or_else(|| "null".to_owned(), |baseline| baseline.counts.error_count.to_string()),
    )];
    let no_delta = Delta { introduced: Vec::new(), resolved: Vec::new(), unchanged: Vec::new(), complete: false };
    let delta = answer.delta.as_ref().unwrap_or(&no_delta);
    for (entries, label) in [(&delta.introduced, "introduced"), (&delta.resolved, "resolved")] {
        lines.extend(entries.iter().map(|entry| delta_line(entry, label)));
    }
    lines
}

fn delta_line(entry: &DeltaEntry, label: &str) -> String {
    format!(
        "{label}: {}:{}: FS{:04}: {}",
        entry.file,
        start(&entry.range).map_or("?".to_owned(), |(line, _)| line.to_string()),
        code(&entry.code),
        entry.message.as_str().unwrap_or_default().replace('\n', " "),
    )
}
