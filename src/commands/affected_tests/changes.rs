//! The declarations a change touched, from the syntax trees of a file before and after it:
//! each declaration (a `let`, a member, a type, a union case or record field, a `val`, …) is
//! keyed by its containers, kind and name; its own text is its source with the declarations
//! nested in it cut out, so a change inside a member is that member's, not its type's. A
//! declaration whose own text differs changed (its signature when its header differs, else its
//! body); one only after is added, one only before removed. Text outside every declaration
//! (an `open`, a module-level `do`) is said as such. Pure: texts in, facts out.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::syntax::extract::extract_file_index;
use crate::syntax::model::{Declaration, DeclarationKind, GrammarKind, NO_PARENT, Position};
use crate::syntax::parse::FsharpParsers;

/// How long one text may take to parse.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// How a declaration changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    Added,
    Removed,
    /// Its header (name, parameters, type annotations up to `=`) changed.
    Signature,
    /// Its body changed, its header did not.
    Body,
}

impl ChangeKind {
    /// Its name on the wire.
    pub fn wire_name(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Signature => "signature",
            ChangeKind::Body => "body",
        }
    }

    /// In words.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Signature => "signature changed",
            ChangeKind::Body => "body changed",
        }
    }
}

/// One declaration the change touched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedDeclaration {
    pub name: String,
    /// Its containers' names and its own, joined with `.`.
    pub qualified: String,
    /// The syntax layer's kind (`let`, `member`, `record`, …).
    pub declaration_kind: &'static str,
    pub change: ChangeKind,
    /// Where its name is (0-based line, UTF-16 column): in the text after the change, or
    /// before it for a removed declaration.
    pub line: u32,
    pub character: u32,
    /// Its whole range's lines (0-based, inclusive) in the same text.
    pub first_line: u32,
    pub last_line: u32,
}

/// What changed in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileChanges {
    pub declarations: Vec<ChangedDeclaration>,
    /// Text outside every declaration changed (whitespace aside).
    pub outside_declarations: bool,
    /// Why a text did not parse, when one did not.
    pub unparsed: Option<String>,
}

/// One declaration of a text, ready to compare.
struct Unit {
    key: (String, &'static str, String, usize),
    name: String,
    qualified: String,
    kind: &'static str,
    own_text: String,
    header: String,
    name_start: Position,
    first_line: u32,
    last_line: u32,
}

/// The declarations `before` and `after` differ in (`None`: the file did not exist).
pub fn changed_declarations(
    parsers: &mut FsharpParsers,
    grammar: GrammarKind,
    before: Option<&str>,
    after: Option<&str>,
) -> FileChanges {
    let mut changes = FileChanges::default();
    let mut read = |text: Option<&str>| -> Option<(Vec<Unit>, String)> {
        // git's text at a revision keeps a UTF-8 byte-order mark that the text read from disk
        // (crate::source_files) has not: the mark is no change.
        let text = text?.trim_start_matches('\u{feff}');
        match parsers.parse(text, grammar, PARSE_BUDGET) {
            Ok(tree) => Some(units_of(text, &tree, grammar)),
            Err(error) => {
                changes.unparsed = Some(error.to_string());
                None
            }
        }
    };
    let (before_units, before_rest) = read(before).unwrap_or_default();
    let (after_units, after_rest) = read(after).unwrap_or_default();
    if changes.unparsed.is_some() {
        return changes;
    }
    let before_by_key: HashMap<_, &Unit> = before_units.iter().map(|unit| (unit.key.clone(), unit)).collect();
    let after_keys: std::collections::HashSet<_> = after_units.iter().map(|unit| unit.key.clone()).collect();
    for unit in &after_units {
        let change = match before_by_key.get(&unit.key) {
            None => Some(ChangeKind::Added),
            Some(old) if old.own_text == unit.own_text => None,
            Some(old) if old.header != unit.header => Some(ChangeKind::Signature),
            Some(_) => Some(ChangeKind::Body),
        };
        if let Some(change) = change {
            changes.declarations.push(changed(unit, change));
        }
    }
    for unit in before_units.iter().filter(|unit| !after_keys.contains(&unit.key)) {
        changes.declarations.push(changed(unit, ChangeKind::Removed));
    }
    changes.outside_declarations = before_rest != after_rest;
    changes
}

fn changed(unit: &Unit, change: ChangeKind) -> ChangedDeclaration {
    ChangedDeclaration {
        name: unit.name.clone(),
        qualified: unit.qualified.clone(),
        declaration_kind: unit.kind,
        change,
        line: unit.name_start.line,
        character: unit.name_start.character,
        first_line: unit.first_line,
        last_line: unit.last_line,
    }
}

/// The comparable declarations of a text, and the text outside them (whitespace removed).
fn units_of(text: &str, tree: &tree_sitter::Tree, grammar: GrammarKind) -> (Vec<Unit>, String) {
    let index = extract_file_index(text, tree, grammar, [0; 32]);
    let names = index.names;
    let declarations = index.index.declarations;
    let lines = crate::documents::LineIndex::new(text);
    let is_unit =
        |declaration: &Declaration| !matches!(declaration.kind, DeclarationKind::Namespace | DeclarationKind::Module);
    let name_of = |declaration: &Declaration| {
        let name = names.get(declaration.name.0 as usize).cloned().unwrap_or_default();
        name.strip_prefix("``").and_then(|name| name.strip_suffix("``")).map(str::to_owned).unwrap_or(name)
    };
    let span = |declaration: &Declaration| {
        let byte =
            |at: Position| lines.offset(text, crate::documents::Position { line: at.line, character: at.character });
        let (start, end) = (byte(declaration.range.start), byte(declaration.range.end));
        (with_attributes(text, start), without_trailing_comments(text, start, end))
    };
    let mut seen: HashMap<(String, &'static str, String), usize> = HashMap::new();
    let mut units = Vec::new();
    for (index, declaration) in declarations.iter().enumerate() {
        if !is_unit(declaration) {
            continue;
        }
        let mut containers = Vec::new();
        let mut parent = declaration.parent;
        while parent != NO_PARENT {
            let Some(container) = declarations.get(parent as usize) else { break };
            containers.push(name_of(container));
            parent = container.parent;
        }
        containers.reverse();
        let name = name_of(declaration);
        let kind = declaration.kind.as_str();
        let path = containers.join(".");
        let occurrence = seen.entry((path.clone(), kind, name.clone())).or_insert(0);
        let key = (path.clone(), kind, name.clone(), *occurrence);
        *occurrence += 1;
        let (start, end) = span(declaration);
        let children: Vec<(usize, usize)> =
            declarations.iter().filter(|child| child.parent as usize == index && is_unit(child)).map(span).collect();
        let own_text = cut(text, start, end, &children, "\u{0}");
        let (header_start, header_end) = (declaration.header_bytes.0 as usize, declaration.header_bytes.1 as usize);
        let header =
            text.get(header_start..header_end).unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
        let qualified = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
        units.push(Unit {
            key,
            name,
            qualified,
            kind,
            own_text,
            header,
            name_start: declaration.name_start,
            first_line: declaration.range.start.line,
            last_line: declaration.range.end.line,
        });
    }
    let top: Vec<(usize, usize)> = declarations
        .iter()
        .filter(|declaration| {
            is_unit(declaration)
                && (declaration.parent == NO_PARENT
                    || declarations.get(declaration.parent as usize).is_some_and(|parent| !is_unit(parent)))
        })
        .map(span)
        .collect();
    let rest: String = cut(text, 0, text.len(), &top, "").chars().filter(|c| !c.is_whitespace()).collect();
    (units, rest)
}

/// `start` moved back over the lines of attribute lists (`[<Test>]`, one line each) just before
/// it: a declaration's attributes are its own text, so adding a test is not a change outside
/// the declarations. An attribute list over several lines stays outside (said as such).
fn with_attributes(text: &str, start: usize) -> usize {
    let mut start = start;
    loop {
        let before = text[..start].trim_end();
        let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
        let line = before[line_start..].trim_start();
        if !(line.starts_with("[<") && line.ends_with(">]")) || line_start == start {
            return start;
        }
        start = before.len() - line.len();
    }
}

/// `end` moved back over the whitespace and whole-line `//` comments that end the range: the
/// syntax tree gives a declaration the comments that follow it (up to the next declaration),
/// so a declaration added after one would change it.
fn without_trailing_comments(text: &str, start: usize, end: usize) -> usize {
    let mut end = end;
    loop {
        let kept = text[start..end].trim_end();
        let last_line_start = kept.rfind('\n').map_or(0, |newline| newline + 1);
        let last_line = &kept[last_line_start..];
        if last_line_start == 0 || !last_line.trim_start().starts_with("//") {
            return start + kept.len();
        }
        end = start + last_line_start;
    }
}

/// `text[start..end]` with each of `holes` (byte ranges inside it) replaced by `marker`.
fn cut(text: &str, start: usize, end: usize, holes: &[(usize, usize)], marker: &str) -> String {
    let mut holes: Vec<(usize, usize)> =
        holes.iter().copied().filter(|(from, to)| *from >= start && *to <= end && from < to).collect();
    holes.sort_unstable();
    let mut own = String::new();
    let mut at = start;
    for (from, to) in holes {
        if from < at {
            continue;
        }
        own.push_str(text.get(at..from).unwrap_or_default());
        own.push_str(marker);
        at = to;
    }
    own.push_str(text.get(at..end).unwrap_or_default());
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(before: &str, after: &str) -> Vec<(String, ChangeKind, u32)> {
        let found =
            changed_declarations(&mut FsharpParsers::new(), GrammarKind::Implementation, Some(before), Some(after));
        assert_eq!(found.unparsed, None);
        let mut rows: Vec<_> =
            found.declarations.into_iter().map(|changed| (changed.qualified, changed.change, changed.line)).collect();
        rows.sort();
        rows
    }

    const LEDGER: &str = "module Calc.Ledger\n\nlet total (entries: string list) =\n    entries |> List.length\n\nlet count (entries: string list) = List.length entries\n\ntype Book() =\n    member _.Pages = 3\n    member _.Title = \"t\"\n";

    #[test]
    fn a_body_a_signature_an_addition_and_a_removal_are_told_apart() {
        let body = LEDGER.replace("entries |> List.length", "entries |> List.distinct |> List.length");
        assert_eq!(changes(LEDGER, &body), [("Calc.Ledger.total".to_owned(), ChangeKind::Body, 2)]);
        let signature = LEDGER.replace("let count (entries: string list)", "let count (entries: int list)");
        assert_eq!(changes(LEDGER, &signature), [("Calc.Ledger.count".to_owned(), ChangeKind::Signature, 5)]);
        let added = format!("{LEDGER}\nlet more = 1\n");
        assert_eq!(changes(LEDGER, &added), [("Calc.Ledger.more".to_owned(), ChangeKind::Added, 11)]);
        let removed = LEDGER.replace("let count (entries: string list) = List.length entries\n", "");
        assert_eq!(changes(LEDGER, &removed), [("Calc.Ledger.count".to_owned(), ChangeKind::Removed, 5)]);
    }

    #[test]
    fn a_change_inside_a_member_is_the_members_and_moving_code_down_is_none() {
        let member = LEDGER.replace("member _.Pages = 3", "member _.Pages = 4");
        assert_eq!(changes(LEDGER, &member), [("Calc.Ledger.Book.Pages".to_owned(), ChangeKind::Body, 8)]);
        let moved = LEDGER.replace("module Calc.Ledger\n", "module Calc.Ledger\n\n\n");
        assert_eq!(changes(LEDGER, &moved), []);
    }

    #[test]
    fn a_byte_order_mark_only_before_is_no_change_outside_the_declarations() {
        let body = LEDGER.replace("entries |> List.length", "entries |> List.distinct |> List.length");
        let found = changed_declarations(
            &mut FsharpParsers::new(),
            GrammarKind::Implementation,
            Some(&format!("\u{feff}{LEDGER}")),
            Some(&body),
        );
        let rows: Vec<_> =
            found.declarations.iter().map(|changed| (changed.qualified.as_str(), changed.change)).collect();
        assert_eq!(rows, [("Calc.Ledger.total", ChangeKind::Body)]);
        assert!(!found.outside_declarations, "{found:?}");
    }

    #[test]
    fn a_test_added_after_another_changes_neither_that_one_nor_the_text_outside() {
        let tests = "module Calc.Tests\n\n[<Test>]\nlet ``one`` () =\n    Assert.Pass()\n\n// ===== two =====\n\n[<Test>]\nlet ``two`` () = Assert.Pass()\n";
        let added = tests.replace("\n\n// =====", "\n\n[<Test>]\nlet ``three`` () =\n    Assert.Pass()\n\n// =====");
        let found =
            changed_declarations(&mut FsharpParsers::new(), GrammarKind::Implementation, Some(tests), Some(&added));
        let rows: Vec<_> =
            found.declarations.iter().map(|changed| (changed.qualified.as_str(), changed.change)).collect();
        assert_eq!(rows, [("Calc.Tests.three", ChangeKind::Added)]);
        assert!(!found.outside_declarations, "{found:?}");
        // An attribute is its declaration's own text.
        let ignored = tests.replace("[<Test>]\nlet ``two``", "[<Test; Ignore>]\nlet ``two``");
        assert_eq!(changes(tests, &ignored), [("Calc.Tests.two".to_owned(), ChangeKind::Body, 9)]);
    }

    #[test]
    fn an_open_is_a_change_outside_the_declarations() {
        let opened = LEDGER.replace("module Calc.Ledger\n", "module Calc.Ledger\n\nopen System\n");
        let found =
            changed_declarations(&mut FsharpParsers::new(), GrammarKind::Implementation, Some(LEDGER), Some(&opened));
        assert!(found.declarations.is_empty() && found.outside_declarations, "{found:?}");
    }
}
