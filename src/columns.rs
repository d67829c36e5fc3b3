//! An LSP column (UTF-16 code units, as editors and FSAC count) on one line of text, as a byte
//! offset into that line: the one tolerant reader and the one strict reader. Imports nothing of
//! fslens, so every layer (documents, the pure syntax layer, the commands) reads columns here.

/// The byte offset in `line` of the first character at or after UTF-16 column `character`
/// (the line's length at its end); `None` past the end. The one tolerant reader of an LSP
/// column: a column inside a surrogate pair moves to the next character.
pub fn byte_at_column(line: &str, character: u32) -> Option<usize> {
    let mut units = 0u32;
    for (at, scalar) in line.char_indices() {
        if units >= character {
            return Some(at);
        }
        units += scalar.len_utf16() as u32;
    }
    (units >= character).then_some(line.len())
}

/// The byte offset in `line` where UTF-16 column `character` is, when a character starts there
/// or the line ends there; `None` inside a character (a split surrogate pair) or past the end.
/// The one strict reader of an LSP column.
pub fn exact_byte_at_column(line: &str, character: u32) -> Option<usize> {
    let mut units = 0u32;
    for (at, scalar) in line.char_indices() {
        if units >= character {
            return (units == character).then_some(at);
        }
        units += scalar.len_utf16() as u32;
    }
    (units == character).then_some(line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_reads_tolerantly_or_strictly() {
        // 𝔸 is two UTF-16 units and four bytes.
        let line = "a𝔸b";
        assert_eq!(byte_at_column(line, 1), Some(1));
        assert_eq!(byte_at_column(line, 2), Some(5), "inside 𝔸: the next character");
        assert_eq!(exact_byte_at_column(line, 2), None, "inside 𝔸");
        assert_eq!(exact_byte_at_column(line, 3), Some(5));
        assert_eq!((byte_at_column(line, 4), exact_byte_at_column(line, 4)), (Some(6), Some(6)), "the end");
        assert_eq!((byte_at_column(line, 5), exact_byte_at_column(line, 5)), (None, None), "past the end");
    }
}
