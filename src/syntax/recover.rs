//! Declarations read from the lines of an error region, where the grammar gave no tree.
//!
//! tree-sitter-fsharp fails on shapes real libraries use (SRTP constraints, backticked type
//! parameters, multi-line named-field patterns: docs/syntax.md, "What the grammar gets right and wrong"), and an
//! error at the top of a file can swallow every declaration after it. Inside such a region the
//! lines are read instead: `module X =`, `type X` / `and X` (also `type X internal () =`, and
//! `type A.B with` extending a type named qualified),
//! `let` (with `inline`, `rec`, `mutable` and an access modifier), `val`, `exception X`, and
//! under a recovered type its `member`, `static member`, `override`, `default`, `abstract` and
//! `member val` lines. This module reads one line; the extractor nests what it reads by
//! indentation and marks it uncertain.

use crate::syntax::model::{Access, DeclarationKind};
use crate::syntax::names::{is_operator, operator_display};

/// What a recovered line opens below it, by indentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opens {
    /// A module or a type: its indented lines are its declarations.
    Container,
    /// A `let` or a member: its indented lines are its body (local bindings, never
    /// declarations).
    Body,
    /// A `val`: nothing.
    Nothing,
}

/// A declaration read from one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoveredLine {
    pub kind: DeclarationKind,
    pub access: Access,
    /// The name as the index stores it: an operator in its display form `(<!>)`, an active
    /// pattern `(|Even|Odd|)`, an identifier as written (backticks included).
    pub stored_name: String,
    /// Byte offset of the name's range in the line, and its length in bytes: an operator's or
    /// an active pattern's characters without the parentheses, as the tree path records them.
    pub name_offset: usize,
    pub name_length: usize,
    pub opens: Opens,
}

/// Where a line stands: whether a recovered type encloses it, and what the last recovered
/// declaration at the same indentation was (`and` continues a `let rec` or a `type`).
#[derive(Clone, Copy, Debug)]
pub struct LineContext {
    pub inside_type: bool,
    pub previous_sibling: Option<DeclarationKind>,
}

/// Reads a declaration from `line` (its indentation removed, nothing else), or `None` when the
/// line declares nothing this layer records.
pub fn recovered_line(line: &str, context: LineContext) -> Option<RecoveredLine> {
    let trimmed = without_leading_attributes(line);
    let first = trimmed.split([' ', '\t']).next()?;
    let (kind, opens) = match first {
        "module" => (DeclarationKind::Module, Opens::Container),
        "type" => (DeclarationKind::Class, Opens::Container),
        "and" => match context.previous_sibling {
            Some(DeclarationKind::Let) => (DeclarationKind::Let, Opens::Body),
            _ => (DeclarationKind::Class, Opens::Container),
        },
        "let" => (DeclarationKind::Let, Opens::Body),
        "val" => (DeclarationKind::Val, Opens::Nothing),
        "exception" => (DeclarationKind::Exception, Opens::Nothing),
        "member" | "static" | "override" | "default" | "abstract" if context.inside_type => {
            (member_kind(trimmed), Opens::Body)
        }
        _ => return None,
    };
    let mut rest = trimmed[first.len()..].trim_start();
    let mut access = Access::Default;
    let mut kind = kind;
    loop {
        let word = rest.split([' ', '\t', ':']).next().unwrap_or("");
        match word {
            "inline" | "mutable" | "rec" | "static" | "member" | "override" | "default" | "abstract" => {}
            "val" if matches!(kind, DeclarationKind::Member) => kind = DeclarationKind::AutoProperty,
            "private" | "internal" | "public" => access = Access::from_keyword(word),
            _ => break,
        }
        rest = rest[word.len()..].trim_start();
    }
    if matches!(kind, DeclarationKind::Member | DeclarationKind::Override) {
        rest = without_self_identifier(rest);
    }
    let name_at = line.len() - rest.len();
    let (stored_name, range_start, range_length, written_length) = match first {
        "type" => qualified_extension_name(rest).map_or_else(|| name_at_start(rest), Some)?,
        _ => name_at_start(rest)?,
    };
    let after = rest[written_length..].trim_start();
    let kind =
        if kind == DeclarationKind::Class && (after == "with" || after.ends_with(" with")) && !after.contains('=') {
            DeclarationKind::TypeExtension
        } else {
            kind
        };
    let shaped = match first {
        "module" => after.starts_with('='),
        "val" => after.starts_with(':'),
        "exception" => after.is_empty() || after.starts_with("of ") || after.starts_with('='),
        "type" | "and" if kind != DeclarationKind::Let => {
            after.is_empty()
                || after.starts_with(['=', '<', '(', ':'])
                || after.starts_with("with")
                || constructor_access(after)
        }
        _ => !after.starts_with(['.', ',', ')', ']', '|']) && !after.starts_with("<-"),
    };
    shaped.then_some(RecoveredLine {
        kind,
        access,
        stored_name,
        name_offset: name_at + range_start,
        name_length: range_length,
        opens,
    })
}

/// The extended type of `type Microsoft.FSharp.Control.AsyncBuilder with` (also with type
/// arguments, `type System.Collections.Generic.List<'T> with`): the dotted name, stored whole
/// with its range over every segment, as the tree path stores it. `None` unless the name has
/// a dot and the line ends with `with` (no other declaration is named dotted after `type`).
fn qualified_extension_name(rest: &str) -> Option<(String, usize, usize, usize)> {
    let length = rest
        .find(|character: char| !(crate::syntax::words::is_identifier_char(character) || character == '.'))
        .unwrap_or(rest.len());
    let name = &rest[..length];
    let dotted = name.contains('.') && name.split('.').all(|segment| is_identifier(segment) && !is_keyword(segment));
    let after = rest[length..].trim_end();
    let extends =
        (after.trim_start() == "with" || after.ends_with(" with") || after.ends_with(">with")) && !after.contains('=');
    (dotted && extends).then(|| (name.to_owned(), 0, length, length))
}

/// A primary constructor with an access modifier after the type's name, `type Builder
/// internal () =`, `type Token private (value: string) =`.
fn constructor_access(after: &str) -> bool {
    ["private", "internal", "public"]
        .iter()
        .any(|keyword| after.strip_prefix(keyword).is_some_and(|rest| rest.trim_start().starts_with('(')))
}

/// `member`, `override`/`default` or `abstract`, from the line's keywords.
fn member_kind(trimmed: &str) -> DeclarationKind {
    let words: Vec<&str> = trimmed.split([' ', '\t']).take(4).collect();
    if words.contains(&"abstract") {
        DeclarationKind::AbstractMember
    } else if words.contains(&"override") || words.contains(&"default") {
        DeclarationKind::Override
    } else {
        DeclarationKind::Member
    }
}

/// The line after any `[<…>]` attribute lists that start it.
fn without_leading_attributes(line: &str) -> &str {
    let mut rest = line;
    while let Some(inside) = rest.strip_prefix("[<") {
        let Some(end) = inside.find(">]") else { break };
        rest = inside[end + 2..].trim_start();
    }
    rest
}

/// `x.Name` / `_.Name` / `__.Name` → `Name`; anything else as it is.
fn without_self_identifier(rest: &str) -> &str {
    let head_length =
        rest.find(|character: char| !crate::syntax::words::is_identifier_char(character)).unwrap_or(rest.len());
    match rest[head_length..].strip_prefix('.') {
        Some(after) if head_length > 0 && !after.starts_with('.') => after,
        _ => rest,
    }
}

/// The name that starts `rest`: (stored name, the name range's start and length, the length
/// written). `None` for a tuple or any other pattern.
fn name_at_start(rest: &str) -> Option<(String, usize, usize, usize)> {
    if let Some(after) = rest.strip_prefix("``") {
        let length = after.find("``")? + 4;
        return Some((rest[..length].to_owned(), 0, length, length));
    }
    if let Some(after) = rest.strip_prefix('(') {
        let close = after.find(')')?;
        let inner = &after[..close];
        let core = inner.trim();
        let core_start = 1 + (inner.len() - inner.trim_start().len());
        let written = close + 2;
        if is_operator(core) {
            return Some((operator_display(core), core_start, core.len(), written));
        }
        let is_active_pattern = core.len() > 2
            && core.starts_with('|')
            && core.ends_with('|')
            && core[1..core.len() - 1].split('|').all(|case| case == "_" || is_identifier(case));
        return is_active_pattern.then(|| (format!("({core})"), core_start, core.len(), written));
    }
    let length =
        rest.find(|character: char| !crate::syntax::words::is_identifier_char(character)).unwrap_or(rest.len());
    let name = &rest[..length];
    (is_identifier(name) && !is_keyword(name)).then(|| (name.to_owned(), 0, length, length))
}

fn is_identifier(text: &str) -> bool {
    crate::syntax::words::is_plain_identifier(text)
}

/// Words that follow `let`/`member` without being a name (`let!` never matches the first
/// word; `new` is a constructor; `_` is a discard).
fn is_keyword(word: &str) -> bool {
    matches!(word, "new" | "do" | "this" | "base" | "_" | "with" | "get" | "set")
}

/// Where the indented block after a header line (ending at byte `from`) ends: before the first
/// non-blank line indented at most `indent`, or at `limit`.
pub fn block_end(text: &str, from: usize, indent: usize, limit: usize) -> usize {
    let mut offset = from;
    let mut end = from.min(limit);
    for line in text[from.min(text.len())..limit.min(text.len())].split_inclusive('\n') {
        let content = line.trim_end();
        let trimmed = content.trim_start();
        if !trimmed.is_empty() && !trimmed.starts_with("//") && content.len() - trimmed.len() <= indent {
            return end;
        }
        offset += line.len();
        if !trimmed.is_empty() {
            end = offset - (line.len() - content.len());
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: LineContext = LineContext { inside_type: false, previous_sibling: None };
    const IN_TYPE: LineContext = LineContext { inside_type: true, previous_sibling: None };

    /// What a line reads as: kind, stored name, the text its name range covers.
    type Read<'a> = Option<(DeclarationKind, &'a str, &'a str)>;

    fn read(line: &str, context: LineContext) -> Option<(DeclarationKind, String, String)> {
        recovered_line(line, context).map(|recovered| {
            let range = &line[recovered.name_offset..recovered.name_offset + recovered.name_length];
            (recovered.kind, recovered.stored_name, range.to_owned())
        })
    }

    #[test]
    fn reads_the_names_real_libraries_declare_in_lines_the_grammar_fails_on() {
        let cases: &[(&str, LineContext, Read)] = &[
            (
                "let inline (<!>) (f: 'T->'U) (x: '``Functor<'T>``) : '``Functor<'U>`` = Map.Invoke f x",
                TOP,
                Some((DeclarationKind::Let, "(<!>)", "<!>")),
            ),
            ("let inline ( *** ) f g = f >> g", TOP, Some((DeclarationKind::Let, "( *** )", "***"))),
            (
                "let inline (|Parsed|_|) str : 'T option = tryParse str",
                TOP,
                Some((DeclarationKind::Let, "(|Parsed|_|)", "|Parsed|_|")),
            ),
            ("let private rec go x = x", TOP, Some((DeclarationKind::Let, "go", "go"))),
            ("let ``my value`` = 1", TOP, Some((DeclarationKind::Let, "``my value``", "``my value``"))),
            ("let mutable counter = 0", TOP, Some((DeclarationKind::Let, "counter", "counter"))),
            ("[<CompiledName(\"Map\")>] let map f x = x", TOP, Some((DeclarationKind::Let, "map", "map"))),
            ("module Operators =", TOP, Some((DeclarationKind::Module, "Operators", "Operators"))),
            ("type internal Shape<'T> =", TOP, Some((DeclarationKind::Class, "Shape", "Shape"))),
            ("type GenBuilder internal () =", TOP, Some((DeclarationKind::Class, "GenBuilder", "GenBuilder"))),
            ("exception GenFailure of string", TOP, Some((DeclarationKind::Exception, "GenFailure", "GenFailure"))),
            ("exception Stopped", TOP, Some((DeclarationKind::Exception, "Stopped", "Stopped"))),
            ("type Token private (value: string) =", TOP, Some((DeclarationKind::Class, "Token", "Token"))),
            ("type List<'T> with", TOP, Some((DeclarationKind::TypeExtension, "List", "List"))),
            (
                "type Microsoft.FSharp.Control.AsyncBuilder with",
                TOP,
                Some((
                    DeclarationKind::TypeExtension,
                    "Microsoft.FSharp.Control.AsyncBuilder",
                    "Microsoft.FSharp.Control.AsyncBuilder",
                )),
            ),
            (
                "type System.Collections.Generic.List<'T> with",
                TOP,
                Some((
                    DeclarationKind::TypeExtension,
                    "System.Collections.Generic.List",
                    "System.Collections.Generic.List",
                )),
            ),
            ("and Node = { Value: int }", TOP, Some((DeclarationKind::Class, "Node", "Node"))),
            (
                "and walk x = x",
                LineContext { inside_type: false, previous_sibling: Some(DeclarationKind::Let) },
                Some((DeclarationKind::Let, "walk", "walk")),
            ),
            ("val mutable count : int", TOP, Some((DeclarationKind::Val, "count", "count"))),
            ("static member inline Invoke (x: 'T) = x", IN_TYPE, Some((DeclarationKind::Member, "Invoke", "Invoke"))),
            (
                "static member        ``<*>`` (f, x) = f x",
                IN_TYPE,
                Some((DeclarationKind::Member, "``<*>``", "``<*>``")),
            ),
            ("member inline this.Length = 3", IN_TYPE, Some((DeclarationKind::Member, "Length", "Length"))),
            ("override _.ToString () = \"\"", IN_TYPE, Some((DeclarationKind::Override, "ToString", "ToString"))),
            ("abstract member Area : float", IN_TYPE, Some((DeclarationKind::AbstractMember, "Area", "Area"))),
            ("member val Name = \"\" with get, set", IN_TYPE, Some((DeclarationKind::AutoProperty, "Name", "Name"))),
            // Nothing a declaration: patterns, constructors, members outside a type, bodies.
            ("let (a, b) = pair", TOP, None),
            ("let! value = work", TOP, None),
            ("new (x) = { inner = x }", IN_TYPE, None),
            ("static member Invoke x = x", TOP, None),
            ("module Shipping.Domain", TOP, None),
            ("x.Value <- 3", TOP, None),
            ("| Some x -> x", TOP, None),
            ("type", TOP, None),
            ("type Shipping.Domain = int", TOP, None),
        ];
        for (line, context, expected) in cases {
            let expected = expected.map(|(kind, stored, range)| (kind, stored.to_owned(), range.to_owned()));
            assert_eq!(read(line, *context), expected, "{line}");
        }
    }

    #[test]
    fn a_block_ends_before_the_first_line_at_or_left_of_its_header() {
        let text = "let f x =\n    let y = x\n    y\n\nlet g = 2\n";
        assert_eq!(&text[..block_end(text, 10, 0, text.len())], "let f x =\n    let y = x\n    y");
    }
}
