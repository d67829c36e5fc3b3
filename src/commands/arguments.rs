//! The argument rules several commands share, beyond what their typed structs
//! (`commands::params`) say by themselves.

use crate::commands::CommandError;

/// The largest `timeoutMs` any command takes: an hour.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// The one rule for a position given by column or by word: exactly one of `character` (a
/// 0-based UTF-16 column) and `word` (an identifier on the line), blamed on `character`.
pub fn character_or_word(character: Option<u32>, word: Option<&str>) -> Result<(), CommandError> {
    match (character, word) {
        (None, None) => Err(CommandError::invalid_argument("character", "give character (0-based UTF-16) or word")),
        (Some(_), Some(_)) => Err(CommandError::invalid_argument("character", "give character or word, not both")),
        _ => Ok(()),
    }
}

/// The text of 0-based `line` of `text` (LSP's lines: split at `\n`, a trailing `\r` dropped; a
/// text ending in a newline has one more, empty, line), or `invalid_argument` naming `line`
/// when the text has no such line. A position past the end of a file is a mistake of the
/// caller, never a position where nothing is found.
pub fn line_of(text: &str, line: u32) -> Result<&str, CommandError> {
    text.split('\n')
        .nth(line as usize)
        .map(|found| found.strip_suffix('\r').unwrap_or(found))
        .ok_or_else(|| CommandError::invalid_argument("line", past_the_end_message(text, line)))
}

/// The one wording of a line past the end, so every command counts a file's lines alike: its
/// lines as an editor shows them (a last line without a newline counts, the empty position
/// after a final newline does not), and the 0-based lines a position may name (that empty
/// position included).
pub fn past_the_end_message(text: &str, line: u32) -> String {
    let positions = text.split('\n').count();
    let lines = if text.is_empty() { 0 } else { positions - usize::from(text.ends_with('\n')) };
    format!(
        "line {line} is past the end of the file, which has {lines} lines (0-based positions: lines 0 to {})",
        positions - 1
    )
}

/// `character` when it lies on `line_text` (at most its length in UTF-16 units: the end of
/// the line is a position), else `invalid_argument` naming `character`.
pub fn column_on_line(line_text: &str, line: u32, character: u32) -> Result<u32, CommandError> {
    let length = line_text.encode_utf16().count() as u32;
    if character > length {
        return Err(CommandError::invalid_argument(
            "character",
            format!("character {character} is past the end of line {line}, which has {length} UTF-16 units"),
        ));
    }
    Ok(character)
}

/// The one conversion of a position argument to a column on `line_text` (0-based `line`): the
/// `occurrence`-th (1-based) whole-identifier `word` when a word is given, else `character`
/// when it lies on the line ([`column_on_line`]); neither is `invalid_argument` on `character`,
/// as [`character_or_word`] says.
pub fn column_of_position(
    line_text: &str,
    line: u32,
    character: Option<u32>,
    word: Option<&str>,
    occurrence: usize,
) -> Result<u32, CommandError> {
    match (word, character) {
        (Some(word), _) => crate::syntax::words::word_column(line_text, word, occurrence).ok_or_else(|| {
            CommandError::invalid_argument(
                "word",
                format!("`{word}` (occurrence {occurrence}) is not a whole word on line {line}"),
            )
        }),
        (None, Some(character)) => column_on_line(line_text, line, character),
        (None, None) => character_or_word(None, None).map(|()| 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_past_the_end_names_its_argument() {
        let text = "let a = 1\r\nlet b = 2\n";
        assert_eq!(line_of(text, 0).unwrap(), "let a = 1");
        assert_eq!(line_of(text, 2).unwrap(), "", "the empty line after the last newline is a line");
        assert_eq!(line_of(text, 3).unwrap_err().data()["argument"], "line");
        assert_eq!(column_on_line("let a = 1", 0, 9).unwrap(), 9);
        assert_eq!(column_on_line("let a = 1", 0, 10).unwrap_err().data()["argument"], "character");
    }

    #[test]
    fn exactly_one_of_character_and_word_blamed_on_character() {
        assert!(character_or_word(Some(3), None).is_ok() && character_or_word(None, Some("x")).is_ok());
        for (character, word) in [(None, None), (Some(3), Some("x"))] {
            assert_eq!(character_or_word(character, word).unwrap_err().data()["argument"], "character");
        }
    }
}
