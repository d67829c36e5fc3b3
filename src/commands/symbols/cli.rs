//! The CLI faces of the symbol tools: `fslens symbol-search QUERY`, `fslens read-symbol NAME`
//! and `fslens read-enclosing --path P --line N`, their mapping onto command arguments and
//! their plain-text renderings. The CLI waits for the index build (`--wait-ms`, default two
//! minutes) since a one-shot process has no later call to retry with.

use serde_json::{Map, Value, json};

/// `fslens symbol-search`.
#[derive(clap::Args, Debug, Clone)]
pub struct SymbolSearchCliArgs {
    /// One or more identifiers (quote several: "Shipment weigh").
    pub query: String,
    /// At most this many files.
    #[arg(long)]
    pub max_results: Option<u32>,
    /// Best lines shown per file (0-10).
    #[arg(long)]
    pub lines_per_file: Option<u32>,
    /// Continue from a previous answer's nextCursor.
    #[arg(long)]
    pub cursor: Option<String>,
    /// How long to wait for the first index build, in milliseconds (0: answer at once).
    #[arg(long, default_value_t = 120_000)]
    pub wait_ms: u64,
    /// Print the JSON answer instead of a readable list.
    #[arg(long)]
    pub json: bool,
}

impl SymbolSearchCliArgs {
    pub fn to_arguments(&self) -> Value {
        let mut arguments = Map::new();
        arguments.insert("query".into(), json!(self.query));
        if let Some(max) = self.max_results {
            arguments.insert("maxResults".into(), json!(max));
        }
        if let Some(lines) = self.lines_per_file {
            arguments.insert("linesPerFile".into(), json!(lines));
        }
        if let Some(cursor) = &self.cursor {
            arguments.insert("cursor".into(), json!(cursor));
        }
        arguments.insert("waitForIndexMs".into(), json!(self.wait_ms));
        Value::Object(arguments)
    }
}

/// `fslens read-symbol`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReadSymbolCliArgs {
    /// The declared name, plain or dotted (`Shipment.weigh`).
    pub name: String,
    /// Only declarations in this file.
    #[arg(long)]
    pub path: Option<String>,
    /// 0-based line of the declaration, to pick among candidates.
    #[arg(long)]
    pub line: Option<u32>,
    /// Declaration kinds, comma-separated (`type`, `record`, `member`, `let`, …).
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// At most this many source lines.
    #[arg(long)]
    pub max_lines: Option<u32>,
    /// How long to wait for the first index build, in milliseconds.
    #[arg(long, default_value_t = 120_000)]
    pub wait_ms: u64,
    /// Print the JSON answer instead of the source.
    #[arg(long)]
    pub json: bool,
}

impl ReadSymbolCliArgs {
    pub fn to_arguments(&self) -> Value {
        let mut arguments = json!({ "name": self.name });
        if self.path.is_none() {
            arguments["waitForIndexMs"] = json!(self.wait_ms);
        }
        if let Some(path) = &self.path {
            arguments["path"] = json!(path);
        }
        if let Some(line) = self.line {
            arguments["line"] = json!(line);
        }
        if !self.kinds.is_empty() {
            arguments["kinds"] = json!(self.kinds);
        }
        if let Some(max) = self.max_lines {
            arguments["maxLines"] = json!(max);
        }
        arguments
    }
}

/// `fslens read-enclosing`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReadEnclosingCliArgs {
    /// The file (relative to the workspace or absolute inside it).
    #[arg(long)]
    pub path: String,
    /// 0-based line.
    #[arg(long)]
    pub line: u32,
    /// 0-based UTF-16 column.
    #[arg(long)]
    pub character: Option<u32>,
    /// Declaration kinds to consider, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// Longest body returned whole.
    #[arg(long)]
    pub max_lines: Option<u32>,
    /// error | slice | outline: what to return when the body is longer than max-lines.
    #[arg(long)]
    pub on_oversize: Option<String>,
    /// Lines in a slice.
    #[arg(long)]
    pub around_line: Option<u32>,
    /// Print the JSON answer instead of the source.
    #[arg(long)]
    pub json: bool,
}

impl ReadEnclosingCliArgs {
    pub fn to_arguments(&self) -> Value {
        let mut arguments = json!({ "path": self.path, "line": self.line });
        if let Some(character) = self.character {
            arguments["character"] = json!(character);
        }
        if !self.kinds.is_empty() {
            arguments["kinds"] = json!(self.kinds);
        }
        if let Some(max) = self.max_lines {
            arguments["maxLines"] = json!(max);
        }
        if let Some(mode) = &self.on_oversize {
            arguments["onOversize"] = json!(mode);
        }
        if let Some(around) = self.around_line {
            arguments["aroundLine"] = json!(around);
        }
        arguments
    }
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
        Some("ok") | Some("slice") => {
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
        Some("ambiguous") => {
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
            more(
                &mut lines,
                &answer["candidatesOmitted"],
                "candidate(s)",
                "qualify the name, or pass --path or --line",
            );
            lines.join("\n")
        }
        Some("outline") => {
            let mut lines =
                vec![format!("{} ({} lines):", text(&answer["symbol"]["fullName"]), answer["oversize"]["lines"])];
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
        _ if answer["available"] == json!(false) => {
            format!("not available yet: {} (retry after {} ms)", text(&answer["reason"]), answer["retryAfterMs"])
        }
        _ => {
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
    }
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
