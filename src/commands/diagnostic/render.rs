//! Plain-text renderings of the diagnostic tools' answers for the CLI (`--json` prints the
//! answer itself).

use serde_json::{Value, json};

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
    (answer["status"] == "unknown").then(|| {
        let kind = answer["blockingReason"]["errorKind"].as_str().map(|kind| format!(" ({kind})")).unwrap_or_default();
        let remedy =
            answer["blockingReason"]["remedy"].as_str().map(|remedy| format!("\nremedy: {remedy}")).unwrap_or_default();
        format!("unknown{kind}: {}{remedy}", text(&answer["reason"]))
    })
}

/// "diagnostic 1 of N here": which one of several matches the answer is about.
fn which_of(answer: &Value) -> Option<String> {
    let matched = answer["matchedCount"].as_u64().filter(|matched| *matched > 1)?;
    Some(format!(
        "diagnostic {} of {matched} at this position (--index picks another)",
        answer["index"].as_u64().unwrap_or(0) + 1
    ))
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
    if let Some(which) = which_of(answer) {
        lines.insert(1, which);
    }
    for related in diagnostic["relatedInformation"].as_array().into_iter().flatten() {
        let start = &related["location"]["range"]["start"];
        lines.push(format!(
            "related: {}:{}:{}: {}",
            related["file"].as_str().unwrap_or_else(|| related["location"]["uri"].as_str().unwrap_or_default()),
            start["line"].as_u64().unwrap_or(0) + 1,
            start["character"].as_u64().unwrap_or(0) + 1,
            text(&related["message"])
        ));
    }
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
    lines.push(match answer["fixes"]["reason"].as_str() {
        Some(why) => format!("FSAC's fixes are unknown: {why}"),
        None if titles.is_empty() => "FSAC offers no fix".to_owned(),
        None => format!("FSAC fixes: {} (diagnostic-fixes previews them)", titles.join("; ")),
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
    if let Some(which) = which_of(answer) {
        lines.push(which);
    }
    let fixes = answer["fixes"].as_array().cloned().unwrap_or_default();
    if fixes.is_empty() {
        lines.push(match answer["note"].as_str() {
            Some(note) => format!("no fixes offered ({note})"),
            None => "no fixes offered".to_owned(),
        });
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
        if let Some(operations) = fix["preview"]["resourceOperationsNotPreviewed"].as_u64().filter(|count| *count > 0) {
            lines.push(format!(
                "    ({operations} file operation(s) of this fix are not previewed; --json has its workspaceEdit)"
            ));
        }
    }
    if answer["truncated"] == json!(true) {
        let omitted = answer["fixesOmitted"]
            .as_u64()
            .unwrap_or_else(|| answer["fixCount"].as_u64().unwrap_or(0).saturating_sub(fixes.len() as u64));
        let by = if answer["truncatedByBudget"] == json!(true) { "the response budget" } else { "the cap of 50" };
        lines.push(format!("… {omitted} more fix(es) not shown (cut by {by})"));
    }
    lines.push("nothing was written to disk".to_owned());
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
    if answer["truncated"] == json!(true) {
        let shown = answer["suggestions"].as_array().map_or(0, Vec::len) as u64;
        let omitted = answer["suggestionsOmitted"]
            .as_u64()
            .unwrap_or_else(|| answer["totalSuggestions"].as_u64().unwrap_or(0).saturating_sub(shown));
        let by = if answer["truncatedByBudget"] == json!(true) { "the response budget" } else { "--max-results" };
        lines.push(format!("… {omitted} more suggestion(s) not shown (cut by {by})"));
    }
    let omitted: Vec<String> = answer["omitted"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, count)| count.as_u64().is_some_and(|count| count > 0))
        .map(|(why, count)| format!("{count} {why}"))
        .collect();
    if !omitted.is_empty() {
        lines.push(format!("left out (cannot be what the name means): {}", omitted.join(", ")));
    }
    if let Some(coverage) = answer["syntax"]["coverage"].as_str() {
        lines.push(format!("searched: {coverage}"));
    }
    if let Some(note) = answer["fsac"]["note"].as_str() {
        lines.push(format!("note: {note}"));
    }
    lines.join("\n")
}
