//! F# identifiers and whole words in plain text: the one identifier-character test, a plain
//! (unquoted) identifier, and where a word stands as a whole identifier on a line (how a
//! `line`/`word`/`occurrence` argument becomes a column). Pure: text in, facts out.

/// Can `character` be part of an F# identifier (a letter, a digit, `_` or `'`)?
pub fn is_identifier_char(character: char) -> bool {
    character.is_alphanumeric() || character == '_' || character == '\''
}

/// [`is_identifier_char`] over UTF-8 bytes: ASCII letters and digits, `_`, `'`, and every byte
/// of a non-ASCII character (so a multi-byte letter is never a word boundary).
pub fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'\'' || byte >= 0x80
}

/// An identifier F# accepts without backticks: a letter or `_`, then letters, digits, `_`, `'`.
pub fn is_plain_identifier(text: &str) -> bool {
    let mut characters = text.chars();
    characters.next().is_some_and(|first| first.is_alphabetic() || first == '_') && characters.all(is_identifier_char)
}

/// The 0-based UTF-16 columns where `word` stands on `line` as a whole identifier: no identifier
/// character touches it (a side of `word` that is not an identifier character, as in an
/// operator, needs no boundary).
pub fn whole_word_columns(line: &str, word: &str) -> Vec<u32> {
    let Some(first) = word.chars().next() else { return Vec::new() };
    let last = word.chars().next_back().unwrap_or(first);
    let mut columns = Vec::new();
    let mut from = 0;
    while let Some(found) = line[from..].find(word) {
        let start = from + found;
        let end = start + word.len();
        let starts_clean =
            !is_identifier_char(first) || line[..start].chars().next_back().is_none_or(|c| !is_identifier_char(c));
        let ends_clean = !is_identifier_char(last) || line[end..].chars().next().is_none_or(|c| !is_identifier_char(c));
        if starts_clean && ends_clean {
            columns.push(line[..start].encode_utf16().count() as u32);
        }
        from = start + first.len_utf8();
    }
    columns
}

/// The 0-based UTF-16 column of the `occurrence`-th (1-based) whole-identifier `word` on `line`.
pub fn word_column(line: &str, word: &str, occurrence: usize) -> Option<u32> {
    whole_word_columns(line, word).get(occurrence.checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_skip_longer_identifiers_and_count_utf16() {
        let line = "let total' = total + subtotal + é total";
        assert_eq!(whole_word_columns(line, "total"), vec![13, 34]);
        assert_eq!(word_column(line, "total", 2), Some(34));
        assert_eq!(word_column(line, "total", 3), None);
        assert_eq!(word_column(line, "total", 0), None);
        assert_eq!(word_column(line, "", 1), None);
        assert_eq!(whole_word_columns("a >>= b >>=c", ">>="), vec![2, 8]);
    }

    #[test]
    fn plain_identifiers() {
        assert!(is_plain_identifier("total'"));
        assert!(is_plain_identifier("_x1"));
        assert!(!is_plain_identifier("1st"));
        assert!(!is_plain_identifier("grand total"));
        assert!(!is_plain_identifier(""));
    }
}
