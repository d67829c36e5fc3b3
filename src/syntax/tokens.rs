//! Token-level recovery where the grammar silently mis-parses a declaration.
//!
//! tree-sitter-fsharp 0.3.12 reads a second binding of a `let … and …` group that carries an
//! access modifier (`and private second () = …`) as an application expression of the
//! identifiers `and`, `private`, `second`. The leaves are still the right tokens — strings,
//! comments and character literals are single leaves, so nothing inside them can match — and
//! the token sequence `and [inline|rec|mutable]* private NAME` at the start of a line is
//! unambiguous. This module reads that sequence from the tree, never from raw text.

use std::time::Duration;

use tree_sitter::Node;

use crate::syntax::model::GrammarKind;
use crate::syntax::parse::FsharpParsers;

/// A leaf token of the syntax tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    pub kind: String,
    pub text: String,
    pub start_byte: usize,
    pub end_byte: usize,
}

/// The leaves whose start lies on 0-based `line`, in order. Named leaves inside strings and
/// comments are the string or comment node itself.
pub fn leaves_on_line(text: &str, grammar: GrammarKind, line: usize) -> Option<Vec<Leaf>> {
    let mut parsers = FsharpParsers::new();
    let tree = parsers.parse(text, grammar, Duration::from_secs(2)).ok()?;
    let mut leaves = Vec::new();
    collect(tree.root_node(), text, line, &mut leaves);
    Some(leaves)
}

fn is_atomic(node: Node<'_>) -> bool {
    let kind = node.kind();
    kind.contains("string") || kind.contains("comment") || kind == "char" || kind == "xml_doc"
}

fn collect(node: Node<'_>, text: &str, line: usize, leaves: &mut Vec<Leaf>) {
    if node.end_position().row < line || node.start_position().row > line {
        return;
    }
    if node.child_count() == 0 || is_atomic(node) {
        if node.start_position().row == line {
            leaves.push(Leaf {
                kind: node.kind().to_owned(),
                text: text.get(node.start_byte()..node.end_byte()).unwrap_or_default().to_owned(),
                start_byte: node.start_byte(),
                end_byte: node.end_byte(),
            });
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, text, line, leaves);
    }
}

/// In a mis-parsed `and … private NAME` binding on `line`: the byte span of `private` and the
/// bound name.
pub fn private_and_binding(text: &str, grammar: GrammarKind, line: usize) -> Option<((usize, usize), String)> {
    let leaves = leaves_on_line(text, grammar, line)?;
    let mut tokens = leaves.iter().filter(|leaf| !leaf.kind.contains("comment"));
    if tokens.next()?.text != "and" {
        return None;
    }
    let mut private = None;
    for leaf in tokens {
        match leaf.text.as_str() {
            "inline" | "rec" | "mutable" if private.is_none() => continue,
            "private" if private.is_none() => private = Some((leaf.start_byte, leaf.end_byte)),
            name if private.is_some() && leaf.kind == "identifier" => return Some((private?, name.to_owned())),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_private_of_an_and_binding_only_outside_strings() {
        let text = "module M\nlet private first () = 1\nand private second () = \"and private x\"\nlet s = \"and private y\"\n// and private z\n";
        let ((start, end), name) = private_and_binding(text, GrammarKind::Implementation, 2).unwrap();
        assert_eq!((&text[start..end], name.as_str()), ("private", "second"));
        assert_eq!(private_and_binding(text, GrammarKind::Implementation, 3), None);
        assert_eq!(private_and_binding(text, GrammarKind::Implementation, 4), None);
        assert_eq!(private_and_binding(text, GrammarKind::Implementation, 1), None);
    }
}
