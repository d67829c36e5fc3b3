//! Inline IL `(# "instr" args : type #)`, which tree-sitter-fsharp 0.3.12 cannot parse, read
//! by the grammar as an expression it can.
//!
//! FSharp.Core and libraries that retype values for free (`(# "" x : 'U #)`) write inline IL;
//! the grammar fails at it, and its recovery loses the containers of what follows (a type
//! declared after it is read inside the module before it, its members at the top). Before a
//! parse, each inline IL expression is rewritten in place to the same number of bytes: the
//! `#` delimiters, the instruction string and a `type (…)` argument become blanks, and the
//! arguments and the return type are kept where they are, so `(# "" a : 'b #)` is read as
//! `(     a : 'b  )`, a typed expression. Without arguments the instruction's place holds `()`
//! (`(# "ldnull" : 'T #)` is read as `( ()       : 'T  )`), and a unit return type `: ()` is
//! blanked. Byte offsets, lines and UTF-16 columns are those of the text: every kept
//! character stays at its place, and only ASCII is replaced by ASCII.
//!
//! Only real inline IL is rewritten, as FCS's grammar has it (`LPAREN HASH string
//! opt_inlineAssemblyTypeArg optCurriedArgExprs optInlineAssemblyReturnTypes HASH RPAREN`):
//! `(#` in code (not in a string, a character literal or a comment), followed by blanks and a
//! string literal, and closed by `#)` on the same line. Anything else is left as written.

use std::borrow::Cow;

/// `text` with every inline IL expression rewritten as the module docs say; borrowed when the
/// text has none.
pub fn neutralize(text: &str) -> Cow<'_, str> {
    if !text.contains("(#") {
        return Cow::Borrowed(text);
    }
    let spans = inline_il_spans(text.as_bytes());
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for span in &spans {
        rewrite(&mut bytes, span);
    }
    // Only ASCII bytes were replaced, by ASCII, so the text is still UTF-8.
    match String::from_utf8(bytes) {
        Ok(rewritten) => Cow::Owned(rewritten),
        Err(_) => Cow::Borrowed(text),
    }
}

/// One inline IL expression: byte offsets into the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct InlineIl {
    /// The `(` of `(#`.
    open: usize,
    /// The instruction string, quotes included.
    instruction: (usize, usize),
    /// A `type (…)` argument after the instruction, when there is one.
    type_argument: Option<(usize, usize)>,
    /// The arguments: from after the instruction (and type argument) to the return type's
    /// `:` or the closing `#`.
    arguments: (usize, usize),
    /// The `:` of the return type, when there is one.
    colon: Option<usize>,
    /// The `#` of `#)`.
    close_hash: usize,
}

fn rewrite(bytes: &mut [u8], span: &InlineIl) {
    let blank = |bytes: &mut [u8], from: usize, to: usize| {
        for byte in &mut bytes[from..to] {
            *byte = b' ';
        }
    };
    blank(bytes, span.open + 1, span.open + 2);
    blank(bytes, span.instruction.0, span.instruction.1);
    if let Some((from, to)) = span.type_argument {
        blank(bytes, from, to);
    }
    let arguments = &bytes[span.arguments.0..span.arguments.1];
    if arguments.iter().all(u8::is_ascii_whitespace) {
        // The instruction string is at least `""`: room for `()`.
        bytes[span.instruction.0] = b'(';
        bytes[span.instruction.0 + 1] = b')';
    }
    if let Some(colon) = span.colon {
        let return_type = &bytes[colon + 1..span.close_hash];
        let unit = return_type.iter().filter(|byte| !byte.is_ascii_whitespace()).eq(b"()".iter());
        if unit {
            blank(bytes, colon, span.close_hash);
        }
    }
    blank(bytes, span.close_hash, span.close_hash + 1);
}

/// Where the lexer is: in code or inside something that may span lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Code,
    /// Inside `(* … *)`, nested this deep.
    BlockComment(u32),
    /// Inside `"…"` (escapes apply) or `@"…"` (`""` is a quote).
    String {
        verbatim: bool,
    },
    TripleQuoted,
}

/// Every inline IL expression of `bytes`, in order.
fn inline_il_spans(bytes: &[u8]) -> Vec<InlineIl> {
    let mut spans = Vec::new();
    let mut state = State::Code;
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        match state {
            State::Code => {
                if rest.starts_with(b"//") {
                    at += rest.iter().position(|byte| *byte == b'\n').unwrap_or(rest.len());
                } else if rest.starts_with(b"(#") {
                    match inline_il_at(bytes, at) {
                        Some(span) => {
                            at = span.close_hash + 2;
                            spans.push(span);
                        }
                        None => at += 2,
                    }
                } else if rest.starts_with(b"(*)") {
                    at += 3; // the operator `( * )` written without blanks, not a comment
                } else if rest.starts_with(b"(*") {
                    state = State::BlockComment(1);
                    at += 2;
                } else if rest.starts_with(b"\"\"\"") {
                    state = State::TripleQuoted;
                    at += 3;
                } else if rest.starts_with(b"@\"") {
                    state = State::String { verbatim: true };
                    at += 2;
                } else if rest[0] == b'"' {
                    state = State::String { verbatim: false };
                    at += 1;
                } else if rest[0] == b'\'' {
                    at += character_literal_length(rest).unwrap_or(1);
                } else {
                    at += 1;
                }
            }
            State::BlockComment(depth) => {
                if rest.starts_with(b"(*") {
                    state = State::BlockComment(depth + 1);
                    at += 2;
                } else if rest.starts_with(b"*)") {
                    state = if depth == 1 { State::Code } else { State::BlockComment(depth - 1) };
                    at += 2;
                } else {
                    at += 1;
                }
            }
            State::String { verbatim } => {
                // An escape in a regular string, a doubled quote in a verbatim one.
                let skipped_pair = if verbatim { rest.starts_with(b"\"\"") } else { rest[0] == b'\\' };
                if skipped_pair {
                    at += 2;
                } else {
                    if rest[0] == b'"' {
                        state = State::Code;
                    }
                    at += 1;
                }
            }
            State::TripleQuoted => {
                if rest.starts_with(b"\"\"\"") {
                    state = State::Code;
                    at += 3;
                } else {
                    at += 1;
                }
            }
        }
    }
    spans
}

/// The length of the character literal at the start of `rest` (`'x'`, `'\n'`, `'\''`, `'"'`);
/// `None` for a type variable (`'T`), which has no closing quote.
fn character_literal_length(rest: &[u8]) -> Option<usize> {
    if rest.len() >= 4 && rest[1] == b'\\' {
        // `'\''`: the escaped character, then the closing quote.
        let close = rest[3..].iter().take(8).position(|byte| *byte == b'\'')?;
        return Some(close + 4);
    }
    // `'x'`, `'é'`: one character (of any UTF-8 width), then the closing quote.
    let width = match *rest.get(1)? {
        byte if byte < 0x80 => 1,
        byte if byte >= 0xF0 => 4,
        byte if byte >= 0xE0 => 3,
        _ => 2,
    };
    (rest.get(1 + width) == Some(&b'\'')).then_some(width + 2)
}

/// The inline IL expression whose `(#` is at `open`, when it is one: blanks, an instruction
/// string, an optional `type (…)`, arguments, an optional `: type`, and `#)`, all on one line.
fn inline_il_at(bytes: &[u8], open: usize) -> Option<InlineIl> {
    let line_end = bytes[open..].iter().position(|byte| *byte == b'\n').map_or(bytes.len(), |end| open + end);
    let line = &bytes[..line_end];
    let mut at = open + 2;
    let skip_blanks = |mut at: usize| {
        while at < line.len() && (line[at] == b' ' || line[at] == b'\t') {
            at += 1;
        }
        at
    };
    at = skip_blanks(at);
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let instruction_start = at;
    at += 1;
    loop {
        match line.get(at)? {
            b'\\' => at += 2,
            b'"' => break,
            _ => at += 1,
        }
    }
    let instruction = (instruction_start, at + 1);
    at = skip_blanks(at + 1);
    let mut type_argument = None;
    if line[at..].starts_with(b"type") {
        let open_paren = skip_blanks(at + 4);
        if line.get(open_paren) == Some(&b'(') {
            let close = balanced_close(line, open_paren)?;
            type_argument = Some((at, close + 1));
            at = close + 1;
        }
    }
    // The arguments run to a `:` or `#` outside parentheses, brackets and strings.
    let arguments_start = at;
    let mut depth = 0usize;
    let mut colon = None;
    let close_hash = loop {
        let byte = *line.get(at)?;
        match byte {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
            b'"' => at = string_end(line, at)?,
            b':' if depth == 0 && colon.is_none() => colon = Some(at),
            b'#' if depth == 0 && line.get(at + 1) == Some(&b')') => break at,
            _ => {}
        }
        at += 1;
    };
    let arguments_end = colon.unwrap_or(close_hash);
    Some(InlineIl { open, instruction, type_argument, arguments: (arguments_start, arguments_end), colon, close_hash })
}

/// The `)` closing the `(` at `open` within `line`.
fn balanced_close(line: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, byte) in line[open..].iter().enumerate() {
        match byte {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + offset);
                }
            }
            _ => {}
        }
    }
    None
}

/// The closing quote of the regular string whose opening quote is at `open`.
fn string_end(line: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    loop {
        match line.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inline_il_expression_becomes_a_typed_expression_in_place() {
        let text = "let inline cast (a: 'a) : 'b = (# \"\" a : 'b #)\n";
        let rewritten = neutralize(text);
        assert_eq!(rewritten, "let inline cast (a: 'a) : 'b = (     a : 'b  )\n");
        assert_eq!(rewritten.len(), text.len());
    }

    #[test]
    fn instructions_without_arguments_and_with_type_arguments() {
        for (text, read) in [
            ("let n = (# \"ldnull\" : 'T #)", "let n = (  ()       : 'T  )"),
            ("let s = (# \"sizeof !0\" type('T) : int #)", "let s = (  ()                   : int  )"),
            ("let a = (# \"add\" x y : int #)", "let a = (        x y : int  )"),
            ("let p = (# \"pop\" (f x) : () #)", "let p = (        (f x)       )"),
            ("let t = (# \"throw\" (e :> exn) : 'U #)", "let t = (          (e :> exn) : 'U  )"),
            ("let q = (# \"ldstr \\\"#)\\\"\" : string #)", "let q = (  ()             : string  )"),
        ] {
            let rewritten = neutralize(text);
            assert_eq!(rewritten, read, "{text}");
            assert_eq!(rewritten.len(), text.len(), "{text}");
        }
    }

    #[test]
    fn strings_comments_and_other_hashes_are_left_alone() {
        for text in [
            "let s = \"(# \\\"\\\" a : 'b #)\"",
            "let v = @\"(# \"\"\"\" a #)\"",
            "let t = \"\"\"(# \"\" a #)\"\"\"",
            "// (# \"\" a : 'b #)",
            "(* (# \"\" a : 'b #) *)",
            "(* outer (* (# \"\" a #) *) still *)",
            "let f (xs: (#seq<int>)) = xs",
            "let g = (# \"\" a : 'b\n  #)",
            "let c = '\"' in (#",
        ] {
            assert_eq!(neutralize(text), text, "{text}");
        }
        assert!(matches!(neutralize("let x = 1"), Cow::Borrowed(_)));
    }

    #[test]
    fn code_after_a_string_or_a_character_literal_is_still_read() {
        assert_eq!(neutralize("let c = '\"' in (# \"\" c : int #)"), "let c = '\"' in (     c : int  )");
        assert_eq!(neutralize("let s = \"a\\\"\" + (# \"\" s : 'b #)"), "let s = \"a\\\"\" + (     s : 'b  )");
        assert_eq!(neutralize("(* é *) (# \"\" a : 'b #)"), "(* é *) (     a : 'b  )");
    }
}
