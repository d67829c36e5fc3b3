//! Plain-text renderings of the diagnostic tools' answers for the CLI (`--json` prints the
//! answer itself), and their exit codes: 0 for `ok`, 2 for anything less definite.

use crate::commands::diagnostic::answer::{
    Blocked, BlockingReason, DescribedFix, DiagnosticSummary, EditPreview, Matched,
};
use crate::commands::diagnostic::explain::{ExplainAnswer, Explanation};
use crate::commands::diagnostic::fixes::{FixesAnswer, OfferedFixes};
use crate::commands::diagnostic::suggest_open::{SuggestOpenAnswer, Suggested, Suggestion};
use crate::lsp::types::{NumberOrString, Position};

/// A code as the JSON shows it: the text, the number, or `null`.
fn code_text(code: Option<&NumberOrString>) -> String {
    match code {
        Some(NumberOrString::String(text)) => text.clone(),
        Some(NumberOrString::Number(number)) => number.to_string(),
        None => "null".to_owned(),
    }
}

/// `file:line:character`, 1-based.
fn location(file: &str, start: Position) -> String {
    format!("{file}:{}:{}", start.line + 1, start.character + 1)
}

fn diagnostic_location(diagnostic: &DiagnosticSummary) -> String {
    location(&diagnostic.file, diagnostic.range.start)
}

/// `unknown (errorKind): reason`, and the remedy when the reason has one.
fn unknown(reason: &str, blocking: Option<&BlockingReason>) -> String {
    let kind = blocking.map(|blocking| format!(" ({})", blocking.error_kind)).unwrap_or_default();
    let remedy = blocking
        .and_then(|blocking| blocking.remedy.as_deref())
        .map(|remedy| format!("\nremedy: {remedy}"))
        .unwrap_or_default();
    format!("unknown{kind}: {reason}{remedy}")
}

fn blocked(answer: &Blocked) -> String {
    unknown(&answer.reason, Some(&answer.blocking_reason))
}

/// "diagnostic 1 of N here": which one of several matches the answer is about.
fn which_of(matched: &Matched) -> Option<String> {
    (matched.matched_count > 1).then(|| {
        format!(
            "diagnostic {} of {} at this position (--index picks another)",
            matched.index + 1,
            matched.matched_count
        )
    })
}

/// `explain-diagnostic` as text.
pub fn explain(answer: &ExplainAnswer) -> String {
    match answer {
        ExplainAnswer::Explained(explanation) => explained(explanation),
        ExplainAnswer::Unknown(answer) => blocked(answer),
    }
}

fn explained(answer: &Explanation) -> String {
    let diagnostic = &answer.diagnostic;
    let summary = &diagnostic.summary;
    let mut lines = vec![
        format!(
            "{}: {} {}: {}",
            diagnostic_location(summary),
            summary.severity.as_str(),
            code_text(summary.code.as_ref()),
            summary.message.trim_end()
        ),
        String::new(),
    ];
    if let Some(which) = which_of(&answer.matched) {
        lines.insert(1, which);
    }
    for related in &diagnostic.related_information {
        let location_of_it = &related.related.location;
        lines.push(format!(
            "related: {}: {}",
            location(related.file.as_deref().unwrap_or(&location_of_it.uri), location_of_it.range.start),
            related.related.message
        ));
    }
    for line in &diagnostic.context_lines {
        lines.push(format!("{:>5} | {}", line.line + 1, line.text));
    }
    let meaning = &answer.meaning;
    lines.push(String::new());
    if meaning.known {
        lines.push(format!(
            "{} ({}): {}",
            meaning.code.as_deref().unwrap_or_default(),
            meaning.title.as_deref().unwrap_or_default(),
            meaning.meaning
        ));
        lines.push(format!("usual fixes: {}", meaning.usual_fixes.as_deref().unwrap_or_default()));
    } else {
        lines.push(meaning.meaning.clone());
    }
    lines.push(match &answer.fixes.reason {
        Some(why) => format!("FSAC's fixes are unknown: {why}"),
        None if answer.fixes.titles.is_empty() => "FSAC offers no fix".to_owned(),
        None => format!("FSAC fixes: {} (diagnostic-fixes previews them)", answer.fixes.titles.join("; ")),
    });
    lines.join("\n")
}

/// `diagnostic-fixes` as text: each fix with `-`/`+` lines.
pub fn fixes(answer: &FixesAnswer) -> String {
    match answer {
        FixesAnswer::Offered(offered) => offered_fixes(offered),
        FixesAnswer::NotAnswered(answer) => unknown(&answer.reason, None),
        FixesAnswer::Unknown(answer) => blocked(answer),
    }
}

fn offered_fixes(answer: &OfferedFixes) -> String {
    let diagnostic = &answer.found.diagnostic;
    let mut lines = vec![format!(
        "{}: {} {}",
        diagnostic_location(diagnostic),
        code_text(diagnostic.code.as_ref()),
        diagnostic.message.lines().next().unwrap_or_default()
    )];
    if let Some(which) = which_of(&answer.found.matched) {
        lines.push(which);
    }
    if answer.fixes.is_empty() {
        lines.push(match &answer.note {
            Some(note) => format!("no fixes offered ({note})"),
            None => "no fixes offered".to_owned(),
        });
    }
    for (number, fix) in answer.fixes.iter().enumerate() {
        lines.push(format!("[{number}] {} ({})", fix.title, fix.kind.as_deref().unwrap_or("null")));
        lines.extend(fix_lines(fix));
    }
    if answer.truncated {
        let by = if answer.truncated_by_budget { "the response budget" } else { "the cap of 50" };
        lines.push(format!("… {} more fix(es) not shown (cut by {by})", answer.fixes_omitted));
    }
    lines.push("nothing was written to disk".to_owned());
    lines.join("\n")
}

/// A fix's previewed edits as `-`/`+` lines, and the file operations it does not preview.
fn fix_lines(fix: &DescribedFix) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(preview) = &fix.preview else { return lines };
    for edit in &preview.edits {
        if let EditPreview::Previewed(edit) = edit {
            lines.extend(edit.lines_before.iter().map(|before| format!("    - {before}")));
            lines.extend(edit.lines_after.iter().map(|after| format!("    + {after}")));
        }
    }
    if preview.resource_operations_not_previewed > 0 {
        lines.push(format!(
            "    ({} file operation(s) of this fix are not previewed; --json has its workspaceEdit)",
            preview.resource_operations_not_previewed
        ));
    }
    lines
}

/// `suggest-open` as text: each suggestion with its source.
pub fn suggest_open(answer: &SuggestOpenAnswer) -> String {
    match answer {
        SuggestOpenAnswer::Suggested(suggested) => suggestions(suggested),
        SuggestOpenAnswer::NameUnknown(answer) => unknown(&answer.reason, answer.blocking_reason.as_ref()),
    }
}

fn suggestions(answer: &Suggested) -> String {
    let mut lines = vec![format!("{} suggestion(s) for {}", answer.total_suggestions, answer.name)];
    for suggestion in &answer.suggestions {
        let (what, via, from) = match suggestion {
            Suggestion::Fsac(fix) => (fix.title.clone(), "fsac", String::new()),
            Suggestion::Syntax(syntax) => (
                match &syntax.open_line {
                    Some(open) => format!("{open}  (then {})", syntax.use_as),
                    None => format!("use {}", syntax.use_as),
                },
                "syntax",
                format!("  [{}]", syntax.declaration.full_name),
            ),
        };
        lines.push(format!("  {what}  via {via}{from}"));
    }
    if answer.truncated {
        let by = if answer.truncated_by_budget { "the response budget" } else { "--max-results" };
        lines.push(format!("… {} more suggestion(s) not shown (cut by {by})", answer.suggestions_omitted));
    }
    let omitted: Vec<String> = answer
        .omitted
        .counts()
        .into_iter()
        .filter(|(_, count)| *count > 0)
        .map(|(why, count)| format!("{count} {why}"))
        .collect();
    if !omitted.is_empty() {
        lines.push(format!("left out (cannot be what the name means): {}", omitted.join(", ")));
    }
    lines.push(format!("searched: {}", answer.syntax.coverage));
    if let Some(note) = &answer.fsac.note {
        lines.push(format!("note: {note}"));
    }
    lines.join("\n")
}
