//! Tool output: one JSON object, bounded to 40 KiB, with an explicit `truncated` flag and a
//! one-line usage footer (`bytes`, elapsed milliseconds).
//!
//! An answer too large is cut structurally, never mid-token, so what remains is still valid
//! JSON: the largest array loses its tail (repeatedly), then the longest string is shortened.
//! `truncation` says what was cut: per JSON pointer, how many items were kept and omitted.

use std::time::Duration;

use serde_json::{Map, Value, json};

/// The most a tool's text output may take, footer included.
pub const OUTPUT_LIMIT_BYTES: usize = 40 * 1024;

/// Room kept for the footer line.
const FOOTER_RESERVE_BYTES: usize = 160;

/// The text of a tool result and whether it was cut.
#[derive(Debug, Clone)]
pub struct RenderedOutput {
    pub text: String,
    pub truncated: bool,
}

/// Renders a successful answer. A non-object answer is wrapped as `{"result": …}`.
pub fn render_answer(tool: &str, answer: Value, elapsed: Duration) -> RenderedOutput {
    let object = match answer {
        Value::Object(object) => object,
        other => {
            let mut object = Map::new();
            object.insert("result".into(), other);
            object
        }
    };
    render_object(tool, object, None, elapsed)
}

/// Renders a failure: a one-line summary, then `{"error": {errorKind, code, message, data}}`.
pub fn render_error(
    tool: &str,
    kind: &str,
    code: Option<i64>,
    message: &str,
    data: Option<Value>,
    elapsed: Duration,
) -> RenderedOutput {
    let mut error = Map::new();
    error.insert("errorKind".into(), json!(kind));
    if let Some(code) = code {
        error.insert("code".into(), json!(code));
    }
    error.insert("message".into(), json!(message));
    if let Some(data) = data {
        error.insert("data".into(), data);
    }
    let mut object = Map::new();
    object.insert("error".into(), Value::Object(error));
    let first_line: String = message.lines().next().unwrap_or_default().chars().take(300).collect();
    render_object(tool, object, Some(format!("{tool} failed ({kind}): {first_line}")), elapsed)
}

fn render_object(
    tool: &str,
    mut object: Map<String, Value>,
    summary: Option<String>,
    elapsed: Duration,
) -> RenderedOutput {
    // A command's own `truncated` (a page with more after it) stands; the bridge only adds cuts.
    if !object.get("truncated").is_some_and(Value::is_boolean) {
        object.insert("truncated".into(), json!(false));
    }
    let summary_bytes = summary.as_ref().map_or(0, |line| line.len() + 1);
    let budget = OUTPUT_LIMIT_BYTES.saturating_sub(FOOTER_RESERVE_BYTES + summary_bytes);
    let mut value = Value::Object(object);
    let truncated = shrink_to_fit(&mut value, budget);
    let body = serde_json::to_string(&value).unwrap_or_else(|_| "{\"truncated\":true}".to_owned());
    let mut text = String::with_capacity(body.len() + summary_bytes + FOOTER_RESERVE_BYTES);
    if let Some(summary) = summary {
        text.push_str(&summary);
        text.push('\n');
    }
    text.push_str(&body);
    let footer = format!(
        "\n[fslens {tool}: {} bytes, {} ms{}]",
        text.len(),
        elapsed.as_millis(),
        if truncated { ", truncated: narrow the request or page with cursor/maxResults" } else { "" }
    );
    text.push_str(&footer);
    RenderedOutput { text, truncated }
}

/// Cuts `value` (an object) until its compact serialization fits `budget` bytes; records what
/// was cut under `truncation` and sets `truncated`. Returns whether anything was cut.
pub fn shrink_to_fit(value: &mut Value, budget: usize) -> bool {
    let mut cuts: Map<String, Value> = Map::new();
    let mut truncated = false;
    // Each round halves an array or a string, so a few dozen rounds cover any size.
    for _ in 0..256 {
        if serialized_len(value) <= budget {
            break;
        }
        truncated = true;
        value["truncated"] = json!(true);
        value["truncation"] = Value::Object(cuts.clone());
        if serialized_len(value) <= budget {
            break;
        }
        // Cut the largest array or long string, whichever is bigger, so one big member does
        // not cost every other member its content.
        let candidate = largest(value, "", |node| match node {
            Value::Array(items) => !items.is_empty(),
            Value::String(text) => text.len() > 64,
            _ => false,
        });
        let Some((pointer, length)) = candidate.filter(|(pointer, _)| !pointer.starts_with("/truncation")) else {
            break;
        };
        match value.pointer_mut(&pointer) {
            Some(Value::Array(items)) => {
                let total = items.len();
                let keep = total / 2;
                items.truncate(keep);
                let entry = cuts.entry(pointer).or_insert_with(|| json!({ "kept": 0, "omitted": 0 }));
                let omitted_before = entry["omitted"].as_u64().unwrap_or(0);
                entry["kept"] = json!(keep);
                entry["omitted"] = json!(omitted_before + (total - keep) as u64);
            }
            Some(Value::String(text)) => {
                let mut cut = (length / 2).min(text.len());
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.push_str("…[truncated]");
                cuts.insert(pointer, json!({ "shortenedTo": cut }));
            }
            _ => break,
        }
    }
    if serialized_len(value) > budget {
        // Nothing left to cut sensibly (a huge object of small members): say so plainly.
        *value = json!({
            "truncated": true,
            "truncation": { "note": "the answer was too large to shorten structurally; narrow the request" },
        });
        truncated = true;
    }
    truncated
}

fn serialized_len(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len())
}

/// The JSON pointer and serialized size of the largest node satisfying `accept`.
fn largest(value: &Value, pointer: &str, accept: fn(&Value) -> bool) -> Option<(String, usize)> {
    let mut best: Option<(String, usize)> = None;
    let mut consider = |candidate: Option<(String, usize)>| {
        if let Some((path, size)) = candidate
            && best.as_ref().is_none_or(|(_, best_size)| size > *best_size)
        {
            best = Some((path, size));
        }
    };
    if accept(value) {
        consider(Some((pointer.to_owned(), serialized_len(value))));
    }
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                consider(largest(member, &format!("{pointer}/{escaped}"), accept));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                consider(largest(item, &format!("{pointer}/{index}"), accept));
            }
        }
        _ => {}
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_answers_pass_with_a_footer_and_the_flag() {
        let output = render_answer("status", json!({"state": "ready"}), Duration::from_millis(7));
        assert!(!output.truncated);
        let (body, footer) = output.text.rsplit_once('\n').unwrap();
        assert_eq!(serde_json::from_str::<Value>(body).unwrap(), json!({"state": "ready", "truncated": false}));
        assert_eq!(footer, format!("[fslens status: {} bytes, 7 ms]", body.len()));
    }

    #[test]
    fn large_answers_are_cut_to_valid_json_within_the_limit() {
        let rows: Vec<Value> =
            (0..5000).map(|index| json!({"file": format!("src/File{index}.fs"), "line": index})).collect();
        let answer = json!({"sites": rows, "note": "x".repeat(100_000), "outcome": "found"});
        let output = render_answer("find", answer, Duration::from_millis(3));
        assert!(output.truncated);
        assert!(output.text.len() <= OUTPUT_LIMIT_BYTES, "{}", output.text.len());
        let (body, footer) = output.text.rsplit_once('\n').unwrap();
        assert!(footer.contains("truncated"));
        let parsed: Value = serde_json::from_str(body).unwrap();
        assert_eq!(parsed["truncated"], json!(true));
        assert_eq!(parsed["outcome"], json!("found"));
        let kept = parsed["sites"].as_array().unwrap().len();
        assert!(kept > 0 && kept < 5000);
        assert_eq!(parsed["truncation"]["/sites"]["omitted"], json!(5000 - kept));
        assert_eq!(parsed["truncation"]["/sites"]["kept"], json!(kept));
    }

    #[test]
    fn errors_have_a_summary_line() {
        let output = render_error(
            "check",
            "invalid_path",
            Some(crate::lsp::message::error_codes::INVALID_PARAMS),
            "outside the workspace",
            Some(json!({"path": "../x"})),
            Duration::ZERO,
        );
        let mut lines = output.text.lines();
        assert_eq!(lines.next().unwrap(), "check failed (invalid_path): outside the workspace");
        let parsed: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(parsed["error"]["data"]["path"], json!("../x"));
    }

    #[test]
    fn objects_of_many_small_members_still_fit() {
        let mut object = Map::new();
        for index in 0..20_000 {
            object.insert(format!("k{index}"), json!(index));
        }
        let output = render_answer("x", Value::Object(object), Duration::ZERO);
        assert!(output.truncated && output.text.len() <= OUTPUT_LIMIT_BYTES);
    }
}
