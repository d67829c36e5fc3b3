//! A line comment after code on its line (`type Tree<'T> = // { Root: 'T }`), read by the
//! grammar as the block comment it could be written as.
//!
//! tree-sitter-fsharp 0.3.12 fails at a type definition whose `=` is followed by a `//`
//! comment: `type T = // note` with the union's cases or the record's fields on the next lines
//! is one error region, and every case and member of the type is lost (a comment on a line of
//! its own, or a `(* … *)` comment in the same place, parses). When a tree has errors, the
//! parser is given a second reading of the text where each such trailing comment of four bytes
//! or more is rewritten in place as a block comment of the same length (`// note` becomes
//! `(* no*)`: the `//` becomes `(*`, the last two bytes `*)`), and a shorter one becomes
//! blanks. A comment stays a comment, to the grammar and to what reads the tree (an
//! occurrence of a name inside it is still in a comment); byte offsets, lines and UTF-16
//! columns are the text's, since only ASCII bytes are replaced, by ASCII.
//!
//! Only a comment whose text could not change meaning as a block comment is rewritten: none
//! holding `(*`, `*)` or a `"` (F# reads strings inside block comments), none ending in a
//! non-ASCII character, none where a new delimiter would meet a parenthesis beside it (`//)`
//! would become the operator `(*)`, a `(` before the last two bytes a nested comment's start). Where the comments are comes from the first tree's `line_comment`
//! leaves, so nothing inside a string is taken for one.

use tree_sitter::{Node, Tree};

/// `text` with each trailing line comment the first `tree` holds rewritten as the module docs
/// say; `None` when there is none to rewrite.
pub fn as_block_comments(text: &str, tree: &Tree) -> Option<String> {
    let mut spans = Vec::new();
    collect_line_comments(tree.root_node(), &mut spans);
    let bytes = text.as_bytes();
    let mut rewritten = bytes.to_vec();
    let mut changed = false;
    for (start, end) in spans {
        // The grammar's leaf may begin with the blanks before the `//`.
        let Some(start) =
            bytes.get(start..end).and_then(|leaf| leaf.windows(2).position(|pair| pair == b"//")).map(|at| start + at)
        else {
            continue;
        };
        if !follows_code(bytes, start) {
            continue;
        }
        let Some(comment) = bytes.get(start..end) else { continue };
        if !comment.starts_with(b"//") || comment.starts_with(b"///") {
            continue;
        }
        changed |= rewrite(&mut rewritten[start..end], comment);
    }
    if !changed {
        return None;
    }
    // Only ASCII bytes were replaced, by ASCII, so the text is still UTF-8.
    String::from_utf8(rewritten).ok()
}

/// The byte spans of every `line_comment` leaf under `node`.
fn collect_line_comments(node: Node<'_>, spans: &mut Vec<(usize, usize)>) {
    if node.kind() == "line_comment" {
        spans.push((node.start_byte(), node.end_byte()));
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_line_comments(child, spans);
    }
}

/// Whether something other than blanks (or the byte order mark opening the file) precedes byte
/// `start` on its line.
fn follows_code(bytes: &[u8], start: usize) -> bool {
    let line_start = match bytes[..start].iter().rposition(|byte| *byte == b'\n') {
        Some(newline) => newline + 1,
        None if bytes.starts_with(BYTE_ORDER_MARK) => BYTE_ORDER_MARK.len().min(start),
        None => 0,
    };
    bytes[line_start..start].iter().any(|byte| !byte.is_ascii_whitespace())
}

/// UTF-8's byte order mark, which many F# files open with.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// Rewrites one comment (`target` holds a copy of `comment`); whether anything changed.
fn rewrite(target: &mut [u8], comment: &[u8]) -> bool {
    // A comment ends before its line's end; a `\r` left in it by the grammar stays.
    let length = comment.iter().position(|byte| *byte == b'\r' || *byte == b'\n').unwrap_or(comment.len());
    let body = &comment[2..length];
    // Besides what the body holds, what the new delimiters would make with the bytes beside
    // them: `(*)` is the multiplication operator, not a comment's start (`//) x`), and a `(`
    // before the closing `*)` would open a nested comment (`// f(x` as `(* f*)` is fine, `// ((x`
    // as `(* (*)` is not).
    let unsafe_body = body.windows(2).any(|pair| pair == b"(*" || pair == b"*)")
        || body.contains(&b'"')
        || body.first() == Some(&b')')
        || (length >= 5 && comment[length - 3] == b'(');
    if unsafe_body {
        return false;
    }
    if length < 4 {
        target[..length].fill(b' ');
        return true;
    }
    if !comment[length - 2..length].is_ascii() {
        return false;
    }
    target[..2].copy_from_slice(b"(*");
    target[length - 2..length].copy_from_slice(b"*)");
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::model::GrammarKind;
    use crate::syntax::parse::language_for;

    fn first_tree(text: &str) -> Tree {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language_for(GrammarKind::Implementation)).unwrap();
        parser.parse(text, None).unwrap()
    }

    #[test]
    fn a_trailing_comment_becomes_a_block_comment_of_the_same_length() {
        let text = "module M\ntype T = //{ Root: 'T }\n    | A\n    | B\n// own line\nlet x = 1 // é\nlet y = 2 //\n";
        let rewritten = as_block_comments(text, &first_tree(text)).unwrap();
        assert_eq!(rewritten.len(), text.len());
        assert!(rewritten.contains("type T = (*{ Root: 'T*)\n"), "{rewritten}");
        assert!(rewritten.contains("\n// own line\n"), "a comment on its own line stays: {rewritten}");
        assert!(rewritten.contains("let x = 1 // é\n"), "ends in a non-ASCII character: {rewritten}");
        assert!(rewritten.contains("let y = 2   \n"), "too short to be a block comment: {rewritten}");
    }

    #[test]
    fn a_comment_that_would_read_differently_as_a_block_comment_stays() {
        let text = "module M\nlet a = 1 // (* open\nlet b = 2 // \"quoted\"\nlet c = \"// in a string\"\n";
        assert_eq!(as_block_comments(text, &first_tree(text)), None);
    }

    #[test]
    fn new_delimiters_never_make_an_operator_or_a_nested_comment() {
        let text = "module M\nlet a = 1 //) note\nlet b = 2 // f((x\nlet c = 3 // g(x)\nlet d = 4 // g(x) y\n";
        let rewritten = as_block_comments(text, &first_tree(text)).unwrap();
        assert!(rewritten.contains("let a = 1 //) note\n"), "`(*)` is an operator: {rewritten}");
        assert!(rewritten.contains("let b = 2 // f((x\n"), "`(*)` before the end: {rewritten}");
        assert!(rewritten.contains("let c = 3 // g(x)\n"), "`(*)` at the end: {rewritten}");
        assert!(rewritten.contains("let d = 4 (* g(x)*)\n"), "{rewritten}");
        assert!(!first_tree(&rewritten).root_node().has_error(), "{rewritten}");
    }

    #[test]
    fn a_comment_after_the_byte_order_mark_is_on_its_own_line() {
        let text = "\u{FEFF}// header\nmodule M\nlet a = 1 // note\n";
        let rewritten = as_block_comments(text, &first_tree(text)).unwrap();
        assert!(rewritten.starts_with("\u{FEFF}// header\n"), "{rewritten}");
        assert!(rewritten.contains("let a = 1 (* no*)\n"), "{rewritten}");
    }

    #[test]
    fn the_rewritten_type_keeps_its_cases_and_members() {
        let text = "module M\ntype T<'a> = // note\n    | A\n    | B of 'a\n    member x.Size = 0\n";
        assert!(first_tree(text).root_node().has_error(), "the grammar still fails here");
        let rewritten = as_block_comments(text, &first_tree(text)).unwrap();
        assert!(!first_tree(&rewritten).root_node().has_error());
    }
}
