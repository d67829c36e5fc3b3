//! Reading positions and locations for navigation: locating a word on a line (tolerant of a
//! line off by a few), and making FSAC's answers readable for an agent or a shell
//! (workspace-relative paths, the text of each location's line, a hover's plain text).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::arguments::SymbolPosition;
use crate::commands::paths::display_relative;

/// How many lines above and below the given one a word is looked for when it is not there.
pub const LINE_TOLERANCE: usize = 5;

/// The longest line text attached to a location, in characters.
const MAX_LINE_TEXT_CHARS: usize = 512;

/// At most this many locations get their line text read from disk.
const MAX_LINE_TEXT_LOOKUPS: usize = 400;

/// A word found in a file: 0-based line and UTF-16 column of its first character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordPosition {
    pub line: usize,
    pub character: usize,
    /// Set when the word was not on the line asked for but on a line near it.
    pub moved_from_line: Option<usize>,
}

/// Where `position` (a `word` position) is in `text`: its column on its line, as every
/// position argument is read ([`SymbolPosition::column_in`]: the `occurrence`-th whole-word
/// match, the line past the end blamed on `line`); or, when that line lacks the word
/// altogether, its first match on the nearest line within [`LINE_TOLERANCE`].
pub fn locate_word(text: &str, position: &SymbolPosition<'_>) -> Result<WordPosition, CommandError> {
    let line = position.line as usize;
    let line_text = crate::commands::arguments::line_of(text, position.line)?;
    let refused = match position.column_on(line_text) {
        Ok(character) => return Ok(WordPosition { line, character: character as usize, moved_from_line: None }),
        Err(refused) => refused,
    };
    let Some(word) = position.word.filter(|word| whole_word_columns(line_text, word).is_empty()) else {
        return Err(refused);
    };
    let lines: Vec<&str> = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
    for distance in 1..=LINE_TOLERANCE {
        for candidate in [line.checked_sub(distance), line.checked_add(distance)].into_iter().flatten() {
            if let Some(text_line) = lines.get(candidate)
                && let Some(character) = whole_word_columns(text_line, word).first()
            {
                return Ok(WordPosition { line: candidate, character: *character, moved_from_line: Some(line) });
            }
        }
    }
    Err(CommandError::invalid_argument(
        "word",
        format!(
            "`{word}` is not a whole word on line {line} ({:?}) nor within {LINE_TOLERANCE} lines of it",
            line_text.trim()
        ),
    ))
}

/// UTF-16 columns where `word` starts as a whole identifier on `line`.
fn whole_word_columns(line: &str, word: &str) -> Vec<usize> {
    crate::syntax::words::whole_word_columns(line, word).into_iter().map(|column| column as usize).collect()
}

/// Adds `file` (workspace-relative) and `lineText` to every LSP location in `value` (objects
/// with a `uri` or `targetUri` and a range), reading lines from disk.
pub fn enrich_locations(value: &mut Value, root: &Path) {
    let mut cache: HashMap<PathBuf, Option<Vec<String>>> = HashMap::new();
    let mut lookups = 0usize;
    enrich(value, root, &mut cache, &mut lookups);
}

fn enrich(value: &mut Value, root: &Path, cache: &mut HashMap<PathBuf, Option<Vec<String>>>, lookups: &mut usize) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|item| enrich(item, root, cache, lookups)),
        Value::Object(object) => {
            let uri = object.get("targetUri").or_else(|| object.get("uri")).and_then(Value::as_str).map(str::to_owned);
            let range = object.get("targetSelectionRange").or_else(|| object.get("range")).cloned();
            if let Some(path) = uri.as_deref().and_then(crate::uri::uri_to_path) {
                let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
                // Only files inside the workspace are named and read: a location FSAC gives
                // elsewhere (a decompiled FSharp.Core, say) keeps its URI and gets no line text.
                let inside = path.starts_with(&canonical_root);
                if inside {
                    object.insert("file".into(), json!(display_relative(root, &path)));
                }
                if let Some(line) =
                    range.as_ref().and_then(|range| range.pointer("/start/line")).and_then(Value::as_u64)
                    && inside
                    && *lookups < MAX_LINE_TEXT_LOOKUPS
                {
                    *lookups += 1;
                    let lines = cache.entry(path.clone()).or_insert_with(|| {
                        crate::source_files::read_regular_text(&path)
                            .ok()
                            .map(|text| text.lines().map(str::to_owned).collect())
                    });
                    if let Some(text) = lines.as_ref().and_then(|lines| lines.get(line as usize)) {
                        object.insert(
                            "lineText".into(),
                            json!(text.chars().take(MAX_LINE_TEXT_CHARS).collect::<String>()),
                        );
                    }
                }
            }
            for member in object.values_mut() {
                if member.is_array() || member.is_object() {
                    enrich(member, root, cache, lookups);
                }
            }
        }
        _ => {}
    }
}

/// The plain text of an LSP hover answer (`MarkupContent`, `MarkedString` or a list of them).
pub fn hover_text(hover: &Value) -> Option<String> {
    let contents = hover.get("contents")?;
    let piece = |value: &Value| -> Option<String> {
        match value {
            Value::String(text) => Some(text.clone()),
            Value::Object(object) => object.get("value").and_then(Value::as_str).map(str::to_owned),
            _ => None,
        }
    };
    let text = match contents {
        Value::Array(items) => items.iter().filter_map(piece).collect::<Vec<_>>().join("\n\n"),
        other => piece(other)?,
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_whole_with_utf16_columns_and_tolerance() {
        let text = "let total = 1\nlet subtotal = total + total\n// é total\n";
        let at = |line: u32, word: &'static str, occurrence: usize| SymbolPosition {
            path: "A.fs",
            line,
            character: None,
            word: Some(word),
            occurrence,
        };
        let blamed = |position: SymbolPosition<'_>| {
            locate_word(text, &position).unwrap_err().data()["argument"].as_str().unwrap().to_owned()
        };
        assert_eq!(
            locate_word(text, &at(1, "total", 1)).unwrap(),
            WordPosition { line: 1, character: 15, moved_from_line: None }
        );
        assert_eq!(locate_word(text, &at(1, "total", 2)).unwrap().character, 23);
        assert_eq!(locate_word(text, &at(2, "total", 1)).unwrap().character, 5);
        assert_eq!(blamed(at(1, "total", 3)), "word", "on the line, but not three times: not looked for elsewhere");
        let moved = locate_word(text, &at(2, "subtotal", 1)).unwrap();
        assert_eq!(moved, WordPosition { line: 1, character: 4, moved_from_line: Some(2) });
        assert_eq!(blamed(at(0, "missing", 1)), "word");
        assert_eq!(blamed(at(99, "total", 1)), "line");
    }

    #[test]
    fn hover_contents_of_every_shape() {
        assert_eq!(hover_text(&json!({"contents": {"kind": "markdown", "value": "x: int"}})).unwrap(), "x: int");
        assert_eq!(hover_text(&json!({"contents": ["a", {"language": "fsharp", "value": "b"}]})).unwrap(), "a\n\nb");
        assert_eq!(hover_text(&json!(null)), None);
    }

    #[test]
    fn locations_get_relative_files_and_line_text() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(directory.path().join("A.fs"), "module A\nlet a = 1\n").unwrap();
        let uri = crate::uri::path_to_uri(&directory.path().canonicalize().unwrap().join("A.fs")).unwrap();
        let mut answer =
            json!([{"uri": uri, "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 5}}}]);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("B.fs"), "secret\n").unwrap();
        let outside_uri = crate::uri::path_to_uri(&outside.path().canonicalize().unwrap().join("B.fs")).unwrap();
        answer
            .as_array_mut()
            .unwrap()
            .push(json!({"uri": outside_uri, "range": {"start": {"line": 0, "character": 0}}}));
        enrich_locations(&mut answer, directory.path());
        assert_eq!(answer[0]["file"], json!("A.fs"));
        assert_eq!(answer[0]["lineText"], json!("let a = 1"));
        assert!(answer[1].get("file").is_none() && answer[1].get("lineText").is_none(), "{answer}");
    }
}
