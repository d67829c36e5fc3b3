//! `fslens rename`'s text: each file's lines before and after, what is missed, the what-if
//! check's verdict and what was applied; or, for a name that names several symbols, the
//! candidates.

use serde_json::Value;

use crate::commands::rename::{AmbiguousSymbol, AppliedMode, RenameAnswer, RenamePreview};

/// The text form of a rename answer: the preview, or the candidates of an ambiguous name.
pub fn render_text(answer: &RenameAnswer) -> String {
    match answer {
        RenameAnswer::Preview(preview) => preview_text(preview),
        RenameAnswer::Ambiguous(ambiguous) => ambiguous_text(ambiguous),
    }
}

/// An ambiguous name: the message, then each candidate (kind, compiler name, 1-based place)
/// with the flags that rename exactly it.
fn ambiguous_text(answer: &AmbiguousSymbol) -> String {
    let mut lines = vec![format!("rename {} -> {}: AMBIGUOUS: {}", answer.symbol, answer.new_name, answer.message)];
    for candidate in &answer.candidates {
        lines.push(format!(
            "  {} {}  {}:{}:{}  (--path {} --line {} --character {})",
            candidate.symbol_kind.as_deref().unwrap_or("symbol"),
            candidate.symbol_full_name.as_deref().unwrap_or("null"),
            candidate.path,
            candidate.line + 1,
            candidate.character + 1,
            candidate.path,
            candidate.line,
            candidate.character
        ));
    }
    lines.push("nothing was renamed or written".to_owned());
    lines.join("\n")
}

/// A preview: each file's lines before and after, then what is missed.
fn preview_text(answer: &RenamePreview) -> String {
    // A member that may be absent reads `null`, as JSON shows it.
    let or_null = |text: &Option<String>| text.clone().unwrap_or_else(|| "null".to_owned());
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![format!(
        "rename {} -> {}: {} edits in {} files{}",
        or_null(&answer.old_name),
        answer.new_name,
        answer.total_edits,
        answer.total_files,
        if answer.complete { String::new() } else { " (INCOMPLETE: see missed sites)".to_owned() }
    )];
    for file in &answer.files {
        lines.push(format!("{} ({} edits)", file.file, file.edits));
        for row in &file.lines {
            let number = row.line + 1;
            lines.push(format!("  {number:>5} - {}", or_null(&row.before)));
            lines.push(format!("  {number:>5} + {}", or_null(&row.after)));
        }
    }
    if answer.lines_omitted > 0 {
        lines.push(format!("{} more changed lines not shown (raise --max-lines)", answer.lines_omitted));
    }
    for site in &answer.missed_sites {
        let condition = site.condition.as_ref().map(|condition| format!(" [{condition}]")).unwrap_or_default();
        lines.push(format!(
            "MISSED {}:{}:{} {}{condition}",
            site.file,
            site.range.start.line + 1,
            site.range.start.character + 1,
            site.kind
        ));
    }
    for note in &answer.cross_check.notes {
        lines.push(format!("note: {note}"));
    }
    // The what-if check's answer is check's own: read by its members.
    if let Some(verification) = &answer.verification {
        let introduced = verification.delta.as_ref().map_or(&[][..], |delta| &delta.introduced[..]);
        lines.push(format!(
            "verified in memory: {} ({} error(s), {} introduced by the rename)",
            verification.findings.verdict.as_str(),
            verification.findings.counts.error_count,
            introduced.len()
        ));
        for diagnostic in introduced {
            lines.push(format!(
                "  introduced {}:{}: FS{:04} {}",
                diagnostic.file,
                diagnostic.start().map_or(0, |start| start.line + 1),
                diagnostic.code.as_u64().unwrap_or(0),
                text(&diagnostic.message)
            ));
        }
    }
    lines.push(match answer.applied.mode {
        AppliedMode::Disk => "written to disk".to_owned(),
        AppliedMode::Editor if answer.applied.applied => "applied in the editor".to_owned(),
        AppliedMode::Editor => format!(
            "not applied in the editor: {}",
            text(answer.applied.failure_reason.as_ref().unwrap_or(&Value::Null))
        ),
        AppliedMode::None => "preview only: nothing was written".to_owned(),
    });
    lines.join("\n")
}
