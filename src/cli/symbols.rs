//! The CLI faces of the symbol tools: the plain-text renderings and exit codes of
//! `fslens symbol-search QUERY`, `fslens read-symbol NAME` and `fslens read-enclosing --path P
//! --line N`, which read the typed answers (the table reads them back from the wire JSON). The
//! flags are the commands' own argument structs; `symbol-search` waits for the index build
//! (`--wait-ms`, default two minutes) since a one-shot process has no later call to retry with;
//! `read-symbol` reads only the files that hold the name and waits for nothing by default.

use crate::commands::symbols::read::{
    EnclosingOutcome, LeadingLines, ReadEnclosingAnswer, ReadSymbolAnswer, ReadSymbolOutcome, SourceRange, SymbolFacts,
};
use crate::commands::symbols::{SymbolSearchAnswer, Unavailable};

fn not_available(answer: &Unavailable) -> String {
    format!("not available yet: {} (retry after {} ms)", answer.reason, answer.retry_after_ms)
}

/// `symbol-search` as text: one line per file, then its best lines.
pub fn search_text(answer: &SymbolSearchAnswer) -> String {
    let answer = match answer {
        SymbolSearchAnswer::Ranked(answer) => answer,
        SymbolSearchAnswer::Unavailable(answer) => return not_available(answer),
    };
    let mut lines = vec![format!(
        "{} of {} files for {:?} (via syntax{})",
        answer.returned,
        answer.total_files,
        answer.query,
        match (answer.truncated, answer.truncated_by_budget) {
            (true, true) => ", cut by the response budget, more with --cursor",
            (true, false) => ", more with --cursor",
            _ => "",
        }
    )];
    for row in &answer.results {
        let terms: Vec<String> = row.terms.iter().map(|term| format!("{}×{}", term.term, term.count)).collect();
        let priors: Vec<&str> = row.priors.iter().map(|prior| prior.as_str()).collect();
        lines.push(format!(
            "{:>8.3}  {}  [{}]{}",
            row.score,
            row.path,
            terms.join(" "),
            if priors.is_empty() { String::new() } else { format!(" ({})", priors.join(", ")) }
        ));
        for line in row.lines.iter().flatten() {
            lines.push(format!(
                "          {}{}: {}",
                line.line + 1,
                if line.declaration { "*" } else { " " },
                line.text.as_deref().unwrap_or_default().trim()
            ));
        }
    }
    if let Some(cursor) = &answer.next_cursor {
        lines.push(format!("next: --cursor {cursor}"));
    }
    lines.join("\n")
}

/// `read-symbol` as text: the source, or the candidates, or why not.
pub fn read_symbol_text(answer: &ReadSymbolAnswer) -> String {
    match &answer.outcome {
        ReadSymbolOutcome::Ok(found) => source_text(&Source {
            symbol: &found.symbol,
            source: &found.source,
            leading: found.leading.as_ref(),
            source_range: &found.source_range,
            truncated: found.truncated,
            lines_omitted: found.lines_omitted.unwrap_or(0),
            slice_of: None,
            hint: found.hint.as_deref(),
        }),
        ReadSymbolOutcome::Ambiguous(found) => {
            let mut lines = vec![found.message.clone()];
            for candidate in &found.candidates {
                let symbol = &candidate.symbol;
                lines.push(format!(
                    "  {} {}  {}:{}",
                    symbol.kind.as_str(),
                    symbol.full_name,
                    symbol.path,
                    symbol.line + 1
                ));
            }
            more(&mut lines, found.candidates_omitted, "candidate(s)", "qualify the name, or pass --path or --line");
            lines.join("\n")
        }
        ReadSymbolOutcome::NotFound(missing) => no_source_text(
            "not_found",
            &missing.message,
            Some(&missing.hint),
            (!missing.certain).then_some((missing.files_not_cleanly_parsed, missing.files_searched)),
        ),
    }
}

/// `read-enclosing` as text: the source (whole or sliced), the nested parts, or why not.
pub fn read_enclosing_text(answer: &ReadEnclosingAnswer) -> String {
    match &answer.outcome {
        EnclosingOutcome::Ok(found) => source_text(&Source {
            symbol: &found.symbol,
            source: &found.body.source,
            leading: found.body.leading.as_ref(),
            source_range: &found.body.source_range,
            truncated: found.body.truncated,
            lines_omitted: 0,
            slice_of: None,
            hint: None,
        }),
        EnclosingOutcome::Slice(found) => source_text(&Source {
            symbol: &found.symbol,
            source: &found.body.source,
            leading: None,
            source_range: &found.body.source_range,
            truncated: found.body.truncated,
            lines_omitted: found.body.lines_omitted,
            slice_of: Some(found.body.oversize.lines),
            hint: None,
        }),
        EnclosingOutcome::Outline(found) => {
            let parts = &found.body;
            let mut lines = vec![format!("{} ({} lines):", found.symbol.full_name, parts.oversize.lines)];
            for nested in &parts.nested {
                lines.push(format!(
                    "  {}{} {}  lines {}-{}",
                    "  ".repeat(nested.depth.saturating_sub(1)),
                    nested.kind.as_str(),
                    nested.name,
                    nested.start_line + 1,
                    nested.end_line + 1
                ));
            }
            more(&mut lines, parts.nested_omitted, "nested declaration(s)", "read one of them with its lines");
            if let Some(hint) = &parts.hint {
                lines.push(format!("hint: {hint}"));
            }
            lines.join("\n")
        }
        EnclosingOutcome::Oversize(found) => {
            no_source_text("oversize", &found.body.message, Some(&found.body.hint), None)
        }
        EnclosingOutcome::NoEnclosingDeclaration(none) => {
            no_source_text("no_enclosing_declaration", &none.message, None, None)
        }
    }
}

/// What a source rendering shows, from either tool's answer.
struct Source<'a> {
    symbol: &'a SymbolFacts,
    source: &'a str,
    leading: Option<&'a LeadingLines>,
    source_range: &'a SourceRange,
    truncated: bool,
    lines_omitted: u32,
    /// For a slice: the declaration's length in lines.
    slice_of: Option<u32>,
    hint: Option<&'a str>,
}

/// The source under a `// kind name — path:line` header, then what was left out.
fn source_text(shown: &Source) -> String {
    let symbol = shown.symbol;
    let mut out = format!(
        "// {} {} — {}:{}{}\n",
        symbol.kind.as_str(),
        symbol.full_name,
        symbol.path,
        shown.source_range.start_line + 1,
        if shown.truncated { " (truncated)" } else { "" }
    );
    if let Some(leading) = shown.leading {
        out.push_str(leading.leading.trim_end_matches('\n'));
        out.push('\n');
    }
    out.push_str(shown.source);
    let mut out = out.trim_end().to_owned();
    let omitted = shown.lines_omitted;
    if let Some(lines) = shown.slice_of {
        out.push_str(&format!(
            "\n… {omitted} more line(s) of the declaration not shown (this slice is lines {}-{} of {lines}; \
             --on-oversize outline lists its parts)",
            shown.source_range.start_line + 1,
            shown.source_range.end_line + 1,
        ));
    } else if shown.truncated {
        out.push_str(&format!("\n… {omitted} more line(s) not shown"));
    }
    if let Some(hint) = shown.hint {
        out.push_str(&format!("\nhint: {hint}"));
    }
    out
}

/// `not_found`, `no_enclosing_declaration`, `oversize`: the status, why, and what to do;
/// `uncertain` is (files not cleanly parsed, files searched) when the answer is not certain.
fn no_source_text(status: &str, message: &str, hint: Option<&str>, uncertain: Option<(usize, usize)>) -> String {
    let mut lines = vec![format!("{status}: {message}")];
    if let Some(hint) = hint {
        lines.push(format!("hint: {hint}"));
    }
    if let Some((unclean, searched)) = uncertain {
        lines.push(format!("not certain: {unclean} of {searched} file(s) searched did not parse cleanly"));
    }
    lines.join("\n")
}

/// "… N more WHAT (HOW)" when `count` says something was left out.
fn more(lines: &mut Vec<String>, count: usize, what: &str, how: &str) {
    if count > 0 {
        lines.push(format!("… {count} more {what} not shown ({how})"));
    }
}
