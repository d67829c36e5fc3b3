//! Active-pattern cases as FSAC sees them. FSAC's lexer reads a banana clip `(|Even|Odd|)` as
//! one identifier, the pattern itself: at a case's name inside the clip, `references`,
//! `prepareRename` and `rename` all answer for the whole pattern, not for the case. A use of
//! the case elsewhere (the pattern's body returning it, a match) names the case alone, so that
//! is where fslens asks about a case.

use std::path::{Path, PathBuf};

use crate::documents::{LineIndex, Position};
use crate::syntax::index::OccurrenceHit;

/// How many occurrences of the name [`case_use_after`] and [`case_use_elsewhere`] look at
/// before they give up.
const MOST_TRIED: usize = 64;

/// The first use of the case `name` in `text` at or after `from` that is code: a whole word,
/// not another name of a banana clip (a `|` beside it), not in a comment or a string.
pub fn case_use_after(text: &str, path: &Path, name: &str, from: Position) -> Option<Position> {
    let lines = LineIndex::new(text);
    let start = lines.offset(text, from);
    let is_word = crate::syntax::words::is_identifier_char;
    let mut tried = 0;
    for (found, _) in text.get(start..)?.match_indices(name) {
        let at = start + found;
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        if before.is_some_and(is_word) || after.is_some_and(is_word) || before == Some('|') || after == Some('|') {
            continue;
        }
        tried += 1;
        if tried > MOST_TRIED {
            return None;
        }
        let position = lines.position(text, at);
        if crate::commands::find::matching::non_symbol::non_symbol_at(text, path, position.line, position.character)
            .is_none()
        {
            return Some(position);
        }
    }
    None
}

/// The first of `hits` (the syntax index's occurrences of the case `name`, in path then text
/// order) outside the `declaring` file that is a use of the case, with its file's text (read
/// once per file through `text_of`).
pub fn case_use_elsewhere(
    hits: impl IntoIterator<Item = OccurrenceHit>,
    declaring: &Path,
    name: &str,
    mut text_of: impl FnMut(&Path) -> Option<String>,
) -> Option<(PathBuf, String, Position)> {
    let mut read: Option<(PathBuf, Option<String>)> = None;
    for hit in hits.into_iter().filter(|hit| hit.path != declaring).take(MOST_TRIED) {
        if read.as_ref().is_none_or(|(path, _)| *path != hit.path) {
            read = Some((hit.path.clone(), text_of(&hit.path)));
        }
        let Some((path, Some(text))) = &read else { continue };
        let at = Position { line: hit.position.line, character: hit.position.character };
        if case_use_after(text, path, name, at) == Some(at) {
            return Some((path.clone(), text.clone(), at));
        }
    }
    None
}

/// The case named `word` when `resolved` (what FSAC resolved at a position, as written) is a
/// banana clip with that case: `(|Even|Odd|)` or `|Even|Odd|` with `Even`.
pub fn case_of_clip<'word>(resolved: &str, word: &'word str) -> Option<&'word str> {
    let clip = resolved.trim_start_matches('(').trim_end_matches(')');
    let is_clip = clip.starts_with('|') && clip.ends_with('|') && clip.len() > 2;
    (is_clip && clip.split('|').any(|case| case == word)).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_of_the_case_is_code_outside_the_clip() {
        let text = "let (|Even|Odd|) v = if v % 2 = 0 then Even else Odd\n// Even\nlet s = \"Even\"\nmatch 1 with Even -> ()\n";
        let path = Path::new("P.fs");
        // After the clip: the body's `Even`.
        assert_eq!(
            case_use_after(text, path, "Even", Position { line: 0, character: 10 }),
            Some(Position { line: 0, character: 39 })
        );
        // From the top, the clip's own `Even` is skipped (a `|` beside it).
        assert_eq!(
            case_use_after(text, path, "Even", Position { line: 0, character: 0 }),
            Some(Position { line: 0, character: 39 })
        );
        // A comment and a string are not uses.
        assert_eq!(
            case_use_after(text, path, "Even", Position { line: 1, character: 0 }),
            Some(Position { line: 3, character: 13 })
        );
        assert_eq!(case_use_after("let Evens = 1\n", path, "Even", Position { line: 0, character: 0 }), None);
    }

    #[test]
    fn a_use_elsewhere_skips_the_declaring_file_clips_and_comments() {
        let hit = |path: &str, line: u32, character: u32| OccurrenceHit {
            path: PathBuf::from(path),
            position: crate::syntax::model::Position { line, character },
            length: 4,
        };
        let texts = |path: &Path| match path.to_str() {
            Some("A.fs") => Some("// Even\nmatch 1 with Even -> ()\n".to_owned()),
            Some("P.fs") => Some("let (|Even|Odd|) v = Even\n".to_owned()),
            _ => None,
        };
        let hits = vec![hit("P.fs", 0, 24), hit("A.fs", 0, 3), hit("A.fs", 1, 13), hit("Gone.fs", 0, 0)];
        let found = case_use_elsewhere(hits, Path::new("P.fs"), "Even", texts);
        assert_eq!(
            found.map(|(path, _, at)| (path, at)),
            Some((PathBuf::from("A.fs"), Position { line: 1, character: 13 }))
        );
        assert_eq!(case_use_elsewhere(vec![hit("P.fs", 0, 24)], Path::new("P.fs"), "Even", texts), None);
    }

    #[test]
    fn a_clip_names_its_cases() {
        assert_eq!(case_of_clip("(|Even|Odd|)", "Even"), Some("Even"));
        assert_eq!(case_of_clip("|Even|Odd|", "Odd"), Some("Odd"));
        assert_eq!(case_of_clip("|Positive|_|", "Positive"), Some("Positive"));
        assert_eq!(case_of_clip("Even", "Even"), None);
        assert_eq!(case_of_clip("(|Even|Odd|)", "Ev"), None);
    }
}
