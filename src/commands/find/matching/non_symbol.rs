//! What is not a symbol at a position: a string, a comment (leaves of the syntax tree) or an
//! F# keyword. Find's active-pattern cases, rename, navigation and typeHierarchy ask it before
//! they ask FSAC about a position.

use std::path::Path;

use crate::documents::{LineIndex, Position};

/// F#'s reserved words: a new name spelled as one of these needs double backticks.
pub const KEYWORDS: &[&str] = &[
    "abstract",
    "and",
    "as",
    "assert",
    "base",
    "begin",
    "class",
    "default",
    "delegate",
    "do",
    "done",
    "downcast",
    "downto",
    "elif",
    "else",
    "end",
    "exception",
    "extern",
    "false",
    "finally",
    "fixed",
    "for",
    "fun",
    "function",
    "global",
    "if",
    "in",
    "inherit",
    "inline",
    "interface",
    "internal",
    "lazy",
    "let",
    "match",
    "member",
    "module",
    "mutable",
    "namespace",
    "new",
    "not",
    "null",
    "of",
    "open",
    "or",
    "override",
    "private",
    "public",
    "rec",
    "return",
    "select",
    "sig",
    "static",
    "struct",
    "then",
    "to",
    "true",
    "try",
    "type",
    "upcast",
    "use",
    "val",
    "void",
    "when",
    "while",
    "with",
    "yield",
    "const",
];

/// Why the 0-based `line` and UTF-16 `character` of `path`'s `text` hold no symbol: `string`,
/// `comment` (a leaf of the syntax tree) or `keyword`; `None` when they may.
pub fn non_symbol_at(text: &str, path: &Path, line: u32, character: u32) -> Option<&'static str> {
    let grammar =
        crate::syntax::model::GrammarKind::for_path(path).unwrap_or(crate::syntax::model::GrammarKind::Implementation);
    let lines = LineIndex::new(text);
    let offset = lines.offset(text, Position { line, character });
    if let Some(kind) = literal_at(text, grammar, line as usize, offset) {
        return Some(kind);
    }
    let line_text = lines.line_text(text, line as usize)?;
    crate::commands::find::matching::identifier_at(line_text, character)
        .filter(|name| KEYWORDS.contains(&name.as_str()))
        .map(|_| "keyword")
}

/// `string` or `comment` when the byte `offset` is inside one (a leaf of the syntax tree).
pub fn literal_at(
    text: &str,
    grammar: crate::syntax::model::GrammarKind,
    line: usize,
    offset: usize,
) -> Option<&'static str> {
    let leaves = crate::syntax::tokens::leaves_on_line(text, grammar, line)?;
    let leaf = leaves.iter().find(|leaf| leaf.start_byte <= offset && offset < leaf.end_byte)?;
    if leaf.kind.contains("comment") || leaf.kind == "xml_doc" {
        Some("comment")
    } else if leaf.kind.contains("string") || leaf.kind == "char" {
        Some("string")
    } else {
        None
    }
}
