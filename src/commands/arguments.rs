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

/// Which whole-word match of `word` on its line a position means, 1-based; default 1. The one
/// bound of every command's `occurrence`.
pub type Occurrence = crate::commands::params::Bounded<1, 100_000, 1>;

/// A position argument as a command was given it: the file (`path`, not yet confined), the
/// 0-based `line`, and the column as `character` (0-based UTF-16) or as the `occurrence`-th
/// whole-word `word` on the line. Every command that takes a position reads it through this
/// view (the argument structs declare its members with [`symbol_position_arguments!`]), so it
/// has one validation ([`validate`](Self::validate)) and one conversion to a column
/// ([`resolve`](Self::resolve)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolPosition<'a> {
    pub path: &'a str,
    pub line: u32,
    pub character: Option<u32>,
    pub word: Option<&'a str>,
    pub occurrence: usize,
}

/// A [`SymbolPosition`] found in its file: the confined path, the file's current text (the
/// editor's buffer, else the disk), the line's text and the column on it.
#[derive(Clone, Debug)]
pub struct ResolvedPosition {
    pub path: std::path::PathBuf,
    pub text: String,
    pub line: u32,
    pub line_text: String,
    pub character: u32,
}

impl SymbolPosition<'_> {
    /// The one rule of a position: exactly one of `character` and `word`
    /// ([`character_or_word`]), a `word` that is not empty; `occurrence` is at least 1 by its
    /// type.
    pub fn validate(&self) -> Result<(), CommandError> {
        character_or_word(self.character, self.word)?;
        if self.word.is_some_and(|word| word.trim().is_empty()) {
            return Err(CommandError::invalid_argument("word", "must not be empty: a whole word on the line"));
        }
        Ok(())
    }

    /// The column of the position in `text` (a file's whole text): its line ([`line_of`],
    /// blamed on `line`), then [`column_on`](Self::column_on).
    pub fn column_in(&self, text: &str) -> Result<u32, CommandError> {
        self.column_on(line_of(text, self.line)?)
    }

    /// The column on `line_text` (the text of line `self.line`): [`column_of_position`].
    pub fn column_on(&self, line_text: &str) -> Result<u32, CommandError> {
        column_of_position(line_text, self.line, self.character, self.word, self.occurrence)
    }

    /// The position in its file: `path` confined to `root` (blamed on `path`), its current text
    /// under `overlay`, the line ([`line_of`], blamed on `line`) and the column
    /// ([`column_of_position`], blamed on `word` or `character`).
    pub fn resolve(
        &self,
        root: &std::path::Path,
        overlay: &crate::syntax::index::Overlay,
    ) -> Result<ResolvedPosition, CommandError> {
        let path = crate::commands::paths::confine(root, self.path, "path")?;
        let text = crate::commands::paths::current_text(overlay, &path)?;
        let line_text = line_of(&text, self.line)?.to_owned();
        let character = self.column_on(&line_text)?;
        Ok(ResolvedPosition { path, text, line: self.line, line_text, character })
    }
}

/// Declares an argument struct whose first members are a required position (`path`, `line`,
/// `character`, `word`, `occurrence`, with one wording and one bound each) followed by its own
/// members, and gives it `position()`, its [`SymbolPosition`]. In the optional form (the
/// `path?` marker, after any of the struct's own members) each position member is optional and
/// `position()` is `None` without `path` and `line`. `path`'s description is the
/// command's own (which file it means), written as doc comments before the `path` marker. A
/// macro rather than a `#[serde(flatten)]` member for the reason `find_sweep_arguments!` gives:
/// serde's `deny_unknown_fields` does not see through a flattened struct.
macro_rules! symbol_position_arguments {
    (
        // `all()` when the struct also derives `clap::Args` (the members are then CLI flags),
        // `any()` when it does not.
        cli: $cli:meta;
        $(#[$attribute:meta])* pub struct $name:ident {
            $(#[doc = $path_doc:literal])*
            path,
            $($own:tt)*
        }
    ) => {
        $(#[$attribute])*
        pub struct $name {
            $(#[doc = $path_doc])*
            #[cfg_attr($cli, arg(long))]
            pub path: String,
            /// 0-based line of the position.
            #[cfg_attr($cli, arg(long))]
            pub line: $crate::commands::params::Coordinate,
            /// 0-based UTF-16 column on the line, instead of `word`.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long, conflicts_with = "word"))]
            pub character: Option<$crate::commands::params::Coordinate>,
            /// A whole word on the line (the symbol's name), instead of `character`.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long))]
            pub word: Option<String>,
            /// Which occurrence of `word` on the line, from 1; default 1.
            #[serde(default)]
            #[cfg_attr($cli, arg(long, default_value_t))]
            pub occurrence: $crate::commands::arguments::Occurrence,
            $($own)*
        }

        impl $name {
            /// The position these arguments name.
            pub fn position(&self) -> $crate::commands::arguments::SymbolPosition<'_> {
                $crate::commands::arguments::SymbolPosition {
                    path: &self.path,
                    line: self.line.as_u32(),
                    character: self.character.map($crate::commands::params::Coordinate::as_u32),
                    word: self.word.as_deref(),
                    occurrence: self.occurrence.as_usize(),
                }
            }
        }
    };
    // The optional form: members of the struct's own, then the `path?` marker (its doc
    // comments before it), then the rest of its own members. The members before the marker are
    // read one at a time (`@before`), so any number of them may come first.
    (
        cli: $cli:meta;
        $(#[$attribute:meta])* pub struct $name:ident { $($members:tt)* }
    ) => {
        $crate::commands::arguments::symbol_position_arguments! {
            @before cli: $cli; [$(#[$attribute])* pub struct $name] [] $($members)*
        }
    };
    (
        @before cli: $cli:meta; [$($head:tt)*] [$($before:tt)*]
        $(#[$field_attribute:meta])* pub $field:ident: $field_type:ty, $($rest:tt)*
    ) => {
        $crate::commands::arguments::symbol_position_arguments! {
            @before cli: $cli; [$($head)*] [$($before)* $(#[$field_attribute])* pub $field: $field_type,] $($rest)*
        }
    };
    (
        @before cli: $cli:meta; [$(#[$attribute:meta])* pub struct $name:ident] [$($before:tt)*]
        $(#[doc = $path_doc:literal])*
        path? $(unless $other:literal)?,
        $($own:tt)*
    ) => {
        $(#[$attribute])*
        pub struct $name {
            $($before)*
            $(#[doc = $path_doc])*
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long $(, required_unless_present = $other)?))]
            pub path: Option<String>,
            /// 0-based line of the position (with `path`).
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long $(, required_unless_present = $other)?))]
            pub line: Option<$crate::commands::params::Coordinate>,
            /// 0-based UTF-16 column on the line, instead of `word`.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long, conflicts_with = "word"))]
            pub character: Option<$crate::commands::params::Coordinate>,
            /// A whole word on the line (the symbol's name), instead of `character`.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long))]
            pub word: Option<String>,
            /// Which occurrence of `word` on the line, from 1; default 1.
            #[serde(skip_serializing_if = "Option::is_none")]
            #[cfg_attr($cli, arg(long))]
            pub occurrence: Option<$crate::commands::arguments::Occurrence>,
            $($own)*
        }

        impl $name {
            /// The position these arguments name, when they give `path` and `line`.
            pub fn position(&self) -> Option<$crate::commands::arguments::SymbolPosition<'_>> {
                Some($crate::commands::arguments::SymbolPosition {
                    path: self.path.as_deref()?,
                    line: self.line?.as_u32(),
                    character: self.character.map($crate::commands::params::Coordinate::as_u32),
                    word: self.word.as_deref(),
                    occurrence: self.occurrence.unwrap_or_default().as_usize(),
                })
            }

            /// The first position member given, for a refusal of a position given together with
            /// what replaces it.
            pub fn first_position_member(&self) -> Option<&'static str> {
                [
                    ("path", self.path.is_some()),
                    ("line", self.line.is_some()),
                    ("character", self.character.is_some()),
                    ("word", self.word.is_some()),
                    ("occurrence", self.occurrence.is_some()),
                ]
                .into_iter()
                .find_map(|(name, given)| given.then_some(name))
            }

            /// The one rule of an optional position: `path` and `line` both or neither, and when
            /// they are given, [`SymbolPosition::validate`]; `word`, `character` or `occurrence`
            /// without them is blamed on `path`.
            pub fn validate_position(&self) -> Result<(), $crate::commands::CommandError> {
                match (self.path.is_some(), self.line.is_some()) {
                    (true, false) => Err($crate::commands::CommandError::invalid_argument("line", "required (0-based)")),
                    (false, _) => match self.first_position_member() {
                        Some(_) => Err($crate::commands::CommandError::invalid_argument("path", "required with a position (line, word or character)")),
                        None => Ok(()),
                    },
                    (true, true) => self.position().map_or(Ok(()), |position| position.validate()),
                }
            }
        }
    };
}
pub(crate) use symbol_position_arguments;

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
