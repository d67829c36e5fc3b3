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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_of_character_and_word_blamed_on_character() {
        assert!(character_or_word(Some(3), None).is_ok() && character_or_word(None, Some("x")).is_ok());
        for (character, word) in [(None, None), (Some(3), Some("x"))] {
            assert_eq!(character_or_word(character, word).unwrap_err().data()["argument"], "character");
        }
    }
}
