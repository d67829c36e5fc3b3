//! The CLI faces of the symbol tools: `fslens symbol-search QUERY`, `fslens read-symbol NAME`
//! and `fslens read-enclosing --path P --line N`, whose flags are the commands' own argument
//! structs, and their plain-text renderings. `symbol-search` waits for the index build
//! (`--wait-ms`, default two minutes) since a one-shot process has no later call to retry with;
//! `read-symbol` reads only the files that hold the name and waits for nothing by default.

use serde_json::{Value, json};

use crate::commands::params::to_argument_object;
use crate::commands::symbols::WaitForIndexMs;
use crate::commands::symbols::read::ReadSymbolArguments;

/// `fslens read-symbol`'s arguments as sent: with `--path` only that file is read, so there is
/// no index build to wait for.
pub fn read_symbol_arguments(arguments: &ReadSymbolArguments) -> Value {
    let mut arguments = arguments.clone();
    if arguments.path.is_some() {
        arguments.wait_for_index_ms = WaitForIndexMs::default();
    }
    to_argument_object(&arguments)
}

fn text(value: &Value) -> String {
    value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string())
}

/// `symbol-search` as text: one line per file, then its best lines.
pub fn render_search(answer: &Value) -> String {
    if answer["available"] == json!(false) {
        return format!("not available yet: {} (retry after {} ms)", text(&answer["reason"]), answer["retryAfterMs"]);
    }
    let mut lines = vec![format!(
        "{} of {} files for {:?} (via syntax{})",
        answer["returned"],
        answer["totalFiles"],
        text(&answer["query"]),
        match (answer["truncated"] == json!(true), answer["truncatedByBudget"] == json!(true)) {
            (true, true) => ", cut by the response budget, more with --cursor",
            (true, false) => ", more with --cursor",
            _ => "",
        }
    )];
    for row in answer["results"].as_array().into_iter().flatten() {
        let terms: Vec<String> = row["terms"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|term| format!("{}×{}", text(&term["term"]), term["count"]))
            .collect();
        let priors: Vec<String> = row["priors"].as_array().into_iter().flatten().map(text).collect();
        lines.push(format!(
            "{:>8.3}  {}  [{}]{}",
            row["score"].as_f64().unwrap_or(0.0),
            text(&row["path"]),
            terms.join(" "),
            if priors.is_empty() { String::new() } else { format!(" ({})", priors.join(", ")) }
        ));
        for line in row["lines"].as_array().into_iter().flatten() {
            lines.push(format!(
                "          {}{}: {}",
                line["line"].as_u64().unwrap_or(0) + 1,
                if line["declaration"] == json!(true) { "*" } else { " " },
                text(&line["text"]).trim()
            ));
        }
    }
    if let Some(cursor) = answer["nextCursor"].as_str() {
        lines.push(format!("next: --cursor {cursor}"));
    }
    lines.join("\n")
}

/// `read-symbol` / `read-enclosing` as text: the source, or the candidates, or why not.
pub fn render_read(answer: &Value) -> String {
    match answer["status"].as_str() {
        Some("ok") | Some("slice") => render_source(answer),
        Some("ambiguous") => render_candidates(answer),
        Some("outline") => render_nested(answer),
        _ if answer["available"] == json!(false) => {
            format!("not available yet: {} (retry after {} ms)", text(&answer["reason"]), answer["retryAfterMs"])
        }
        _ => render_no_source(answer),
    }
}

/// The source under a `// kind name — path:line` header, then what was left out.
fn render_source(answer: &Value) -> String {
    let symbol = &answer["symbol"];
    let mut out = format!(
        "// {} {} — {}:{}{}\n",
        text(&symbol["kind"]),
        text(&symbol["fullName"]),
        text(&symbol["path"]),
        answer["sourceRange"]["startLine"].as_u64().unwrap_or(0) + 1,
        if answer["truncated"] == json!(true) { " (truncated)" } else { "" }
    );
    if let Some(leading) = answer["leading"].as_str() {
        out.push_str(leading.trim_end_matches('\n'));
        out.push('\n');
    }
    out.push_str(answer["source"].as_str().unwrap_or_default());
    let mut out = out.trim_end().to_owned();
    let omitted = answer["linesOmitted"].as_u64().unwrap_or(0);
    if answer["status"] == json!("slice") {
        out.push_str(&format!(
            "\n… {omitted} more line(s) of the declaration not shown (this slice is lines {}-{} of {}; \
             --on-oversize outline lists its parts)",
            answer["sourceRange"]["startLine"].as_u64().unwrap_or(0) + 1,
            answer["sourceRange"]["endLine"].as_u64().unwrap_or(0) + 1,
            text(&answer["oversize"]["lines"])
        ));
    } else if answer["truncated"] == json!(true) {
        out.push_str(&format!("\n… {omitted} more line(s) not shown"));
    }
    if let Some(hint) = answer["hint"].as_str() {
        out.push_str(&format!("\nhint: {hint}"));
    }
    out
}

fn render_candidates(answer: &Value) -> String {
    let mut lines = vec![text(&answer["message"])];
    for candidate in answer["candidates"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  {} {}  {}:{}",
            text(&candidate["kind"]),
            text(&candidate["fullName"]),
            text(&candidate["path"]),
            candidate["line"].as_u64().unwrap_or(0) + 1
        ));
    }
    more(&mut lines, &answer["candidatesOmitted"], "candidate(s)", "qualify the name, or pass --path or --line");
    lines.join("\n")
}

fn render_nested(answer: &Value) -> String {
    let mut lines = vec![format!("{} ({} lines):", text(&answer["symbol"]["fullName"]), answer["oversize"]["lines"])];
    for nested in answer["nested"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  {}{} {}  lines {}-{}",
            "  ".repeat(nested["depth"].as_u64().unwrap_or(1).saturating_sub(1) as usize),
            text(&nested["kind"]),
            text(&nested["name"]),
            nested["startLine"].as_u64().unwrap_or(0) + 1,
            nested["endLine"].as_u64().unwrap_or(0) + 1
        ));
    }
    more(&mut lines, &answer["nestedOmitted"], "nested declaration(s)", "read one of them with its lines");
    if let Some(hint) = answer["hint"].as_str() {
        lines.push(format!("hint: {hint}"));
    }
    lines.join("\n")
}

/// `not_found`, `no_enclosing_declaration`, `oversize`: the status, why, and what to do.
fn render_no_source(answer: &Value) -> String {
    let mut lines = vec![format!("{}: {}", text(&answer["status"]), text(&answer["message"]))];
    if let Some(hint) = answer["hint"].as_str() {
        lines.push(format!("hint: {hint}"));
    }
    if answer["certain"] == json!(false) {
        lines.push(format!(
            "not certain: {} of {} file(s) searched did not parse cleanly",
            text(&answer["filesNotCleanlyParsed"]),
            text(&answer["filesSearched"])
        ));
    }
    lines.join("\n")
}

/// "… N more WHAT (HOW)" when `count` says something was left out.
fn more(lines: &mut Vec<String>, count: &Value, what: &str, how: &str) {
    if let Some(count) = count.as_u64().filter(|count| *count > 0) {
        lines.push(format!("… {count} more {what} not shown ({how})"));
    }
}

/// The exit code of `read-symbol` and `read-enclosing`: 0 for source (`ok`, and the `slice` or
/// `outline` that `--on-oversize` asked for), 2 for no source: `available: false`,
/// `ambiguous`, `not_found`, `no_enclosing_declaration`, `oversize`.
pub fn read_exit_code(answer: &Value) -> u8 {
    match answer["status"].as_str() {
        Some("ok" | "slice" | "outline") => 0,
        _ => 2,
    }
}

/// `symbol-search`'s exit code: 2 while the index is still being built (`available: false`).
pub fn search_exit_code(answer: &Value) -> u8 {
    if answer["available"] == json!(false) {
        crate::cli_contract::exit_codes::NOT_DEFINITE
    } else {
        crate::cli_contract::exit_codes::SUCCESS
    }
}
