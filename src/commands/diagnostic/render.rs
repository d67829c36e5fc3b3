//! Plain-text renderings of the diagnostic tools' answers for the CLI (`--json` prints the
//! answer itself).

use serde_json::Value;

fn text(value: &Value) -> String {
    value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string())
}

fn location(diagnostic: &Value) -> String {
    format!(
        "{}:{}:{}",
        text(&diagnostic["file"]),
        diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
        diagnostic["range"]["start"]["character"].as_u64().unwrap_or(0) + 1
    )
}

fn unknown(answer: &Value) -> Option<String> {
    (answer["status"] == "unknown").then(|| format!("unknown: {}", text(&answer["reason"])))
}

pub fn explain(answer: &Value) -> String {
    if let Some(unknown) = unknown(answer) {
        return unknown;
    }
    let diagnostic = &answer["diagnostic"];
    let mut lines = vec![
        format!(
            "{}: {} {}: {}",
            location(diagnostic),
            text(&diagnostic["severity"]),
            text(&diagnostic["code"]),
            text(&diagnostic["message"]).trim_end()
        ),
        String::new(),
    ];
    for line in diagnostic["contextLines"].as_array().into_iter().flatten() {
        lines.push(format!("{:>5} | {}", line["line"].as_u64().unwrap_or(0) + 1, text(&line["text"])));
    }
    let meaning = &answer["meaning"];
    lines.push(String::new());
    if meaning["known"] == true {
        lines.push(format!("{} ({}): {}", text(&meaning["code"]), text(&meaning["title"]), text(&meaning["meaning"])));
        lines.push(format!("usual fixes: {}", text(&meaning["usualFixes"])));
    } else {
        lines.push(text(&meaning["meaning"]));
    }
    let titles: Vec<String> = answer["fixes"]["titles"].as_array().into_iter().flatten().map(text).collect();
    lines.push(if titles.is_empty() {
        "FSAC offers no fix".to_owned()
    } else {
        format!("FSAC fixes: {}", titles.join("; "))
    });
    lines.join("\n")
}

pub fn fixes(answer: &Value) -> String {
    if let Some(unknown) = unknown(answer) {
        return unknown;
    }
    let diagnostic = &answer["diagnostic"];
    let mut lines = vec![format!(
        "{}: {} {}",
        location(diagnostic),
        text(&diagnostic["code"]),
        text(&diagnostic["message"]).lines().next().unwrap_or_default()
    )];
    let fixes = answer["fixes"].as_array().cloned().unwrap_or_default();
    if fixes.is_empty() {
        lines.push("no fixes offered".to_owned());
    }
    for (number, fix) in fixes.iter().enumerate() {
        lines.push(format!("[{number}] {} ({})", text(&fix["title"]), text(&fix["kind"])));
        for edit in fix["preview"]["edits"].as_array().into_iter().flatten() {
            for before in edit["linesBefore"].as_array().into_iter().flatten() {
                lines.push(format!("    - {}", text(before)));
            }
            for after in edit["linesAfter"].as_array().into_iter().flatten() {
                lines.push(format!("    + {}", text(after)));
            }
        }
    }
    lines.join("\n")
}

pub fn suggest_open(answer: &Value) -> String {
    if let Some(unknown) = unknown(answer) {
        return unknown;
    }
    let mut lines = vec![format!("{} suggestion(s) for {}", answer["totalSuggestions"], text(&answer["name"]))];
    for suggestion in answer["suggestions"].as_array().into_iter().flatten() {
        let what = match suggestion["via"].as_str() {
            Some("fsac") => text(&suggestion["title"]),
            _ => match suggestion["openLine"].as_str() {
                Some(open) => format!("{open}  (then {})", text(&suggestion["useAs"])),
                None => format!("use {}", text(&suggestion["useAs"])),
            },
        };
        let from = suggestion["declaration"]["fullName"].as_str().map(|name| format!("  [{name}]")).unwrap_or_default();
        lines.push(format!("  {what}  via {}{from}", text(&suggestion["via"])));
    }
    if let Some(note) = answer["fsac"]["note"].as_str() {
        lines.push(format!("note: {note}"));
    }
    lines.join("\n")
}
