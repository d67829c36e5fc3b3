//! Conditional compilation: every `#if` / `#else` / `#endif` branch of a file, read from its
//! lines, and whether a branch is active under a set of defines.
//!
//! The syntax index reads every branch (a declaration under `#if NET6_0_OR_GREATER` is a
//! declaration whatever the defines), while the compiler behind FSAC sees only the branches
//! active under the defines the project is loaded with. The branches kept here let a command
//! tell which of the index's sites the compiler never saw.
//!
//! The scan follows the F# lexer where it matters: a directive is a line whose first
//! non-blank characters are `#if`, `#else` or `#endif` outside a block comment or a string
//! (regular, verbatim, triple-quoted). F# has no `#elif`. An `#if` expression is identifiers,
//! `!`, `&&`, `||` and parentheses.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// One branch of an `#if`: the `#if` part, or its `#else`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionalBranch {
    /// The `#if` expression as written, trimmed (`NET6_0_OR_GREATER`, `!FABLE_COMPILER`).
    pub condition: String,
    /// The `#else` branch: active when `condition` is false.
    pub is_else: bool,
    /// The branch's directive line (0-based).
    pub directive_line: u32,
    /// The line of the directive that ends the branch (`#else` or `#endif`; the file's line
    /// count when it is missing). The branch's code is on the lines between the two.
    pub end_line: u32,
    /// The enclosing branch, an index into the same list.
    pub parent: Option<u32>,
}

impl ConditionalBranch {
    /// Whether `line` is one of the branch's code lines.
    pub fn holds(&self, line: u32) -> bool {
        self.directive_line < line && line < self.end_line
    }

    /// How the branch is written: `#if COND`, or `#else (of #if COND)`.
    pub fn display(&self) -> String {
        if self.is_else { format!("#else (of #if {})", self.condition) } else { format!("#if {}", self.condition) }
    }

    /// Whether the branch's own directive holds under `defines` (not its parents'): `None`
    /// when the expression cannot be read.
    pub fn holds_under(&self, defines: &BTreeSet<String>) -> Option<bool> {
        evaluate(&self.condition, defines).map(|value| value != self.is_else)
    }
}

/// The innermost inactive branch holding `line` under `defines`, if the line is inactive: the
/// line is active only when every branch around it is. A branch whose expression cannot be
/// read counts as inactive (no answer may rest on it being compiled).
pub fn inactive_branch_at<'a>(
    branches: &'a [ConditionalBranch],
    line: u32,
    defines: &BTreeSet<String>,
) -> Option<&'a ConditionalBranch> {
    branches.iter().rev().find(|branch| branch.holds(line) && branch.holds_under(defines) != Some(true))
}

/// Every `#if` branch of `text`, in order of their directives.
pub fn scan(text: &str) -> Vec<ConditionalBranch> {
    let mut branches: Vec<ConditionalBranch> = Vec::new();
    // The open branches, innermost last (indexes into `branches`).
    let mut open: Vec<usize> = Vec::new();
    let line_count = each_directive(text, |number, directive| match directive {
        Directive::If(condition) => {
            branches.push(ConditionalBranch {
                condition,
                is_else: false,
                directive_line: number,
                end_line: u32::MAX,
                parent: open.last().map(|parent| *parent as u32),
            });
            open.push(branches.len() - 1);
        }
        Directive::Else => {
            if let Some(index) = open.pop() {
                branches[index].end_line = number;
                let branch = ConditionalBranch {
                    condition: branches[index].condition.clone(),
                    is_else: true,
                    directive_line: number,
                    end_line: u32::MAX,
                    parent: branches[index].parent,
                };
                branches.push(branch);
                open.push(branches.len() - 1);
            }
        }
        Directive::EndIf => {
            if let Some(index) = open.pop() {
                branches[index].end_line = number;
            }
        }
    });
    for index in open {
        branches[index].end_line = line_count;
    }
    branches
}

/// `text` with every directive line (`#if`, `#else`, `#endif`) blanked to spaces, byte for
/// byte (offsets, lines and columns stay `text`'s), every branch's code kept; `None` when
/// `text` has no directive.
///
/// tree-sitter-fsharp 0.3.12 reads directives between top-level declarations, but one inside a
/// type's members or an expression can throw its recovery off for the rest of the file
/// (FSharp.Control.AsyncSeq's `AsyncSeq.fs`: an `#if` among an extension's static members, and
/// the whole 3,000-line file is one error region). Both branches read as written in sequence
/// usually parse; [`crate::syntax::parse`] keeps whichever tree has fewer errors.
pub fn without_directives(text: &str) -> Option<String> {
    let mut lines = Vec::new();
    each_directive(text, |number, _| lines.push(number));
    if lines.is_empty() {
        return None;
    }
    // Every byte of a directive line but its tabs and line end becomes a space: the bytes
    // replaced (the directive's ASCII, or a trailing comment's UTF-8) are replaced by ASCII.
    let mut bytes = text.as_bytes().to_vec();
    let mut start = 0;
    let mut next = lines.iter().peekable();
    for (number, line) in text.split_inclusive('\n').enumerate() {
        if next.next_if(|directive| **directive == number as u32).is_some() {
            for byte in &mut bytes[start..start + line.len()] {
                if !matches!(*byte, b'\t' | b'\r' | b'\n') {
                    *byte = b' ';
                }
            }
        }
        start += line.len();
    }
    String::from_utf8(bytes).ok()
}

/// Calls `on_directive` with each directive line's number (0-based) and what it is, read as
/// the module docs say; returns the line count.
fn each_directive(text: &str, mut on_directive: impl FnMut(u32, Directive)) -> u32 {
    let mut state = LexState::Code;
    let mut line_count = 0u32;
    for (number, line) in text.lines().enumerate() {
        let number = number as u32;
        line_count = number + 1;
        if state == LexState::Code
            && let Some(directive) = directive_of(line.trim_start())
        {
            on_directive(number, directive);
            continue;
        }
        state = lex_line(line, state);
    }
    line_count
}

enum Directive {
    If(String),
    Else,
    EndIf,
}

fn directive_of(trimmed: &str) -> Option<Directive> {
    let word_end = |rest: &str| rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '/');
    if let Some(rest) = trimmed.strip_prefix("#if")
        && rest.starts_with(|c: char| c.is_whitespace() || c == '(' || c == '!')
    {
        let condition = rest.split("//").next().unwrap_or_default().trim();
        return Some(Directive::If(condition.to_owned()));
    }
    if let Some(rest) = trimmed.strip_prefix("#else")
        && word_end(rest)
    {
        return Some(Directive::Else);
    }
    if let Some(rest) = trimmed.strip_prefix("#endif")
        && word_end(rest)
    {
        return Some(Directive::EndIf);
    }
    None
}

/// Where the lexer is at the end of a line: in code, or inside something that spans lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LexState {
    Code,
    /// Inside `(* … *)`, nested this deep.
    BlockComment(u32),
    String,
    Verbatim,
    TripleQuoted,
}

/// The state after `line`, starting in `state`.
fn lex_line(line: &str, mut state: LexState) -> LexState {
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        match state {
            LexState::Code => {
                if rest.starts_with(b"//") {
                    return state;
                } else if rest.starts_with(b"(*)") {
                    at += 3; // the operator `( * )` written without blanks, not a comment
                    continue;
                } else if rest.starts_with(b"(*") {
                    state = LexState::BlockComment(1);
                    at += 2;
                    continue;
                } else if rest.starts_with(b"\"\"\"") {
                    state = LexState::TripleQuoted;
                    at += 3;
                    continue;
                } else if rest.starts_with(b"@\"") {
                    state = LexState::Verbatim;
                    at += 2;
                    continue;
                } else if rest[0] == b'"' {
                    state = LexState::String;
                } else if rest[0] == b'\'' {
                    // A character literal: 'x', '\n', '\''; a type variable 'T has no closing quote.
                    if rest.len() >= 3 && rest[1] != b'\\' && rest[2] == b'\'' {
                        at += 3;
                        continue;
                    }
                    if rest.len() >= 4
                        && rest[1] == b'\\'
                        && let Some(close) = rest[2..].iter().position(|byte| *byte == b'\'')
                    {
                        at += close + 3;
                        continue;
                    }
                }
                at += 1;
            }
            LexState::BlockComment(depth) => {
                if rest.starts_with(b"(*") {
                    state = LexState::BlockComment(depth + 1);
                    at += 2;
                } else if rest.starts_with(b"*)") {
                    state = if depth == 1 { LexState::Code } else { LexState::BlockComment(depth - 1) };
                    at += 2;
                } else {
                    at += 1;
                }
            }
            LexState::String => {
                if rest[0] == b'\\' {
                    at += 2;
                } else {
                    if rest[0] == b'"' {
                        state = LexState::Code;
                    }
                    at += 1;
                }
            }
            LexState::Verbatim => {
                if rest.starts_with(b"\"\"") {
                    at += 2;
                } else {
                    if rest[0] == b'"' {
                        state = LexState::Code;
                    }
                    at += 1;
                }
            }
            LexState::TripleQuoted => {
                if rest.starts_with(b"\"\"\"") {
                    state = LexState::Code;
                    at += 3;
                } else {
                    at += 1;
                }
            }
        }
    }
    state
}

/// The value of an `#if` expression under `defines`; `None` when it cannot be read.
pub fn evaluate(condition: &str, defines: &BTreeSet<String>) -> Option<bool> {
    let tokens = tokenize(condition)?;
    let mut parser = Parser { tokens: &tokens, at: 0, defines };
    let value = parser.or()?;
    (parser.at == tokens.len()).then_some(value)
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Name(String),
    Not,
    And,
    Or,
    Open,
    Close,
}

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '!' => tokens.push(Token::Not),
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            '&' if chars.next() == Some('&') => tokens.push(Token::And),
            '|' if chars.next() == Some('|') => tokens.push(Token::Or),
            c if c.is_alphanumeric() || c == '_' => {
                let mut name = c.to_string();
                while let Some(next) = chars.peek().copied().filter(|next| next.is_alphanumeric() || *next == '_') {
                    name.push(next);
                    chars.next();
                }
                tokens.push(Token::Name(name));
            }
            _ => return None,
        }
    }
    Some(tokens)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    defines: &'a BTreeSet<String>,
}

impl Parser<'_> {
    fn or(&mut self) -> Option<bool> {
        let mut value = self.and()?;
        while self.tokens.get(self.at) == Some(&Token::Or) {
            self.at += 1;
            value |= self.and()?;
        }
        Some(value)
    }

    fn and(&mut self) -> Option<bool> {
        let mut value = self.unary()?;
        while self.tokens.get(self.at) == Some(&Token::And) {
            self.at += 1;
            value &= self.unary()?;
        }
        Some(value)
    }

    fn unary(&mut self) -> Option<bool> {
        match self.tokens.get(self.at)? {
            Token::Not => {
                self.at += 1;
                Some(!self.unary()?)
            }
            Token::Open => {
                self.at += 1;
                let value = self.or()?;
                (self.tokens.get(self.at) == Some(&Token::Close)).then_some(())?;
                self.at += 1;
                Some(value)
            }
            Token::Name(name) => {
                self.at += 1;
                Some(self.defines.contains(name))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Directive lines become blanks of the same bytes, code and directive-like text inside a
    /// string or comment stay, and a text without directives gives nothing to parse again.
    #[test]
    fn without_directives_blanks_directive_lines_byte_for_byte() {
        let text = "module M\n    #if !FABLE // ünïcode\r\n    let a = 1\n#else\n    let a = 2\n    #endif\nlet s = \"\n#if X\n\"\n(*\n#endif\n*)\n";
        let blanked = without_directives(text).unwrap();
        assert_eq!(blanked.len(), text.len());
        let lines: Vec<&str> = blanked.split('\n').collect();
        assert_eq!(lines[1].trim(), "");
        assert!(lines[1].ends_with('\r'));
        assert_eq!(lines[2], "    let a = 1");
        assert_eq!(lines[3], "     ");
        assert_eq!(lines[4], "    let a = 2");
        assert_eq!(lines[5], "          ");
        // Inside a string and a block comment a `#if` line is no directive.
        assert_eq!(lines[7], "#if X");
        assert_eq!(lines[10], "#endif");
        assert_eq!(without_directives("let a = 1\nlet s = \"#if\"\n"), None);
    }

    fn defines(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn expressions_follow_fsharp_precedence() {
        let set = defines(&["A", "NET6_0_OR_GREATER"]);
        assert_eq!(evaluate("A", &set), Some(true));
        assert_eq!(evaluate("!A", &set), Some(false));
        assert_eq!(evaluate("B || A && !C", &set), Some(true));
        assert_eq!(evaluate("(B || A) && B", &set), Some(false));
        assert_eq!(evaluate("NET6_0_OR_GREATER && !FABLE_COMPILER", &set), Some(true));
        assert_eq!(evaluate("A &&", &set), None);
        assert_eq!(evaluate("A = 1", &set), None);
    }

    #[test]
    fn branches_nest_and_skip_strings_and_comments() {
        let text = "module M\n#if NET6_0_OR_GREATER\nlet a = 1\n  #if !FABLE\nlet b = 2\n  #else\nlet c = 3\n  #endif\n#endif\nlet s = \"\"\"\n#if X\n\"\"\"\n(* \n#if Y\n*)\n#if Z // why\nlet d = 4\n";
        let branches = scan(text);
        let shown: Vec<(String, u32, u32, Option<u32>)> = branches
            .iter()
            .map(|branch| (branch.display(), branch.directive_line, branch.end_line, branch.parent))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("#if NET6_0_OR_GREATER".to_owned(), 1, 8, None),
                ("#if !FABLE".to_owned(), 3, 5, Some(0)),
                ("#else (of #if !FABLE)".to_owned(), 5, 7, Some(0)),
                ("#if Z".to_owned(), 15, 17, None),
            ]
        );
        let net8 = defines(&["NET6_0_OR_GREATER"]);
        assert!(inactive_branch_at(&branches, 2, &net8).is_none());
        assert!(inactive_branch_at(&branches, 4, &net8).is_none());
        assert_eq!(
            inactive_branch_at(&branches, 6, &net8).map(|branch| branch.display()).as_deref(),
            Some("#else (of #if !FABLE)")
        );
        assert_eq!(
            inactive_branch_at(&branches, 4, &defines(&[])).map(|branch| branch.display()).as_deref(),
            Some("#if NET6_0_OR_GREATER")
        );
        assert_eq!(inactive_branch_at(&branches, 16, &net8).map(|branch| branch.display()).as_deref(), Some("#if Z"));
        assert!(inactive_branch_at(&branches, 9, &defines(&[])).is_none());
    }
}
