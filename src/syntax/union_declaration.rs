//! The union's declaration read from the tree-sitter F# syntax tree (its name, its cases and
//! their byte ranges), the text edit that adds, removes or changes one case, and what the tree
//! says about a use of a case: whether it constructs or matches, and which `match` (or
//! `function`) it sits in and whether that one has a catch-all arm. Pure: text in, facts out.

use tree_sitter::{Node, Tree};

/// A union as declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnionDeclaration {
    /// The union's name as written (double backticks removed).
    pub name: String,
    /// Byte offset of the name.
    pub name_start: usize,
    pub cases: Vec<UnionCase>,
}

/// One case of a union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnionCase {
    pub name: String,
    /// Byte offset of the case's name.
    pub name_start: usize,
    /// Byte offset just after the case (its fields included).
    pub end: usize,
    /// The fields as written after `of`, when the case has any.
    pub fields: Option<String>,
}

/// The change asked for, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlannedChange {
    /// Add `case` with `fields`, after the case `after` (default: the last one).
    Add {
        case: String,
        fields: Option<String>,
        after: Option<String>,
    },
    Remove {
        case: String,
    },
    /// Give `case` the fields `fields` (`None`: no fields).
    Change {
        case: String,
        fields: Option<String>,
    },
}

/// An edit of one file in bytes: `start..end` replaced by `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteEdit {
    pub start: usize,
    pub end: usize,
    pub new_text: String,
}

/// A refused change: the argument at fault and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub argument: &'static str,
    pub message: String,
}

fn refuse(argument: &'static str, message: impl Into<String>) -> Refusal {
    Refusal { argument, message: message.into() }
}

/// The union whose declaration holds byte `offset` (its name, a case, anything inside it).
pub fn union_at(tree: &Tree, text: &str, offset: usize) -> Option<UnionDeclaration> {
    let mut node = tree.root_node().descendant_for_byte_range(offset, offset);
    while let Some(current) = node {
        if current.kind() == "union_type_defn" {
            return read_union(current, text);
        }
        node = current.parent();
    }
    None
}

/// Every union declared in the tree, in text order.
pub fn unions_in(tree: &Tree, text: &str) -> Vec<UnionDeclaration> {
    let mut found = Vec::new();
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "union_type_defn" {
            found.extend(read_union(node, text));
            continue;
        }
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    found
}

fn read_union(node: Node, text: &str) -> Option<UnionDeclaration> {
    let mut cursor = node.walk();
    let type_name = node.named_children(&mut cursor).find(|child| child.kind() == "type_name")?;
    // The name is the `type_name` field: an identifier, or a long identifier for a generic
    // union (`BinaryTree<'T>`), whose last identifier it is.
    let mut name_node = type_name.child_by_field_name("type_name")?;
    while name_node.kind() == "long_identifier" {
        let last = u32::try_from(name_node.named_child_count().checked_sub(1)?).ok()?;
        name_node = name_node.named_child(last)?;
    }
    let mut cases = Vec::new();
    let mut cursor = node.walk();
    for list in node.named_children(&mut cursor).filter(|child| child.kind() == "union_type_cases") {
        let mut list_cursor = list.walk();
        for case in list.named_children(&mut list_cursor).filter(|child| child.kind() == "union_type_case") {
            let mut case_cursor = case.walk();
            let children: Vec<Node> = case.named_children(&mut case_cursor).collect();
            let Some(identifier) = children.iter().find(|child| child.kind() == "identifier") else { continue };
            let fields = children
                .iter()
                .find(|child| child.kind() == "union_type_fields")
                .map(|fields| text[fields.byte_range()].trim().to_owned());
            cases.push(UnionCase {
                name: unticked(&text[identifier.byte_range()]),
                name_start: identifier.start_byte(),
                end: case.end_byte(),
                fields,
            });
        }
    }
    Some(UnionDeclaration { name: unticked(&text[name_node.byte_range()]), name_start: name_node.start_byte(), cases })
}

fn unticked(name: &str) -> String {
    name.strip_prefix("``").and_then(|name| name.strip_suffix("``")).unwrap_or(name).to_owned()
}

/// Whether `name` can name a union case: an identifier starting with an upper-case letter (F#
/// refuses lower-case case names, FS0053), or a double-backticked name.
pub fn is_case_name(name: &str) -> bool {
    if let Some(inner) = name.strip_prefix("``").and_then(|name| name.strip_suffix("``")) {
        return !inner.is_empty() && !inner.contains('`') && !inner.contains('\n');
    }
    let mut characters = name.chars();
    characters.next().is_some_and(char::is_uppercase) && characters.all(crate::syntax::words::is_identifier_char)
}

/// Checks a fields text (`float * float`, `radius: float`): one line, no `|` (which would add
/// cases) and not empty; a leading `of` is dropped.
pub fn fields_text(fields: &str) -> Result<String, Refusal> {
    let trimmed = fields.trim();
    let trimmed = trimmed.strip_prefix("of ").map(str::trim).unwrap_or(trimmed);
    if trimmed.is_empty() {
        return Err(refuse("fields", "expected the case's fields, e.g. `float * float` or `radius: float`"));
    }
    if trimmed.contains('\n') || trimmed.contains('\r') {
        return Err(refuse("fields", "the fields must be written on one line"));
    }
    if trimmed.contains('|') || trimmed.contains('=') {
        return Err(refuse("fields", "the fields of one case cannot hold `|` or `=`"));
    }
    Ok(trimmed.to_owned())
}

fn case_text(case: &str, fields: Option<&str>) -> String {
    match fields {
        Some(fields) => format!("{case} of {fields}"),
        None => case.to_owned(),
    }
}

/// The edit that makes the change in `text` (the file declaring `union`).
pub fn edit_for(union: &UnionDeclaration, text: &str, change: &PlannedChange) -> Result<ByteEdit, Refusal> {
    let find = |name: &str| union.cases.iter().position(|case| case.name == unticked(name));
    match change {
        PlannedChange::Add { case, fields, after } => {
            if find(case).is_some() {
                return Err(refuse("case", format!("{} already has a case {case}", union.name)));
            }
            let anchor = match after {
                Some(after) => find(after).ok_or_else(|| {
                    refuse("after", format!("{} has no case {after} (its cases: {})", union.name, names(union)))
                })?,
                None => union.cases.len().checked_sub(1).ok_or_else(|| {
                    refuse("union", format!("no case of {} could be read from its declaration", union.name))
                })?,
            };
            let anchor = &union.cases[anchor];
            let new_case = case_text(case, fields.as_deref());
            let (line_start, _) = line_bounds(text, anchor.name_start);
            let before_name = &text[line_start..anchor.name_start];
            let new_text = if before_name.trim().is_empty() || before_name.trim() == "|" {
                // One case a line: a new line indented as the anchor's, with its bar.
                let indent: String = before_name.chars().take_while(|character| character.is_whitespace()).collect();
                format!("\n{indent}| {new_case}")
            } else {
                format!(" | {new_case}")
            };
            Ok(ByteEdit { start: anchor.end, end: anchor.end, new_text })
        }
        PlannedChange::Remove { case } => {
            let at = find(case).ok_or_else(|| missing_case(union, case))?;
            if union.cases.len() == 1 {
                return Err(refuse("case", format!("{case} is the only case of {}: a union needs one", union.name)));
            }
            let removed = &union.cases[at];
            let bar = bar_before(text, removed.name_start);
            let start = bar.unwrap_or(removed.name_start);
            let (line_start, line_end) = line_bounds(text, start);
            let (_, case_line_end) = line_bounds(text, removed.end);
            let alone = text[line_start..start].trim().is_empty()
                && case_line_end == line_end
                && text[removed.end..line_end].trim().is_empty();
            if alone {
                // The case's whole line, with its line break.
                let end = if line_end < text.len() { line_end + 1 } else { line_end };
                let start = if line_end >= text.len() && line_start > 0 { line_start - 1 } else { line_start };
                return Ok(ByteEdit { start, end, new_text: String::new() });
            }
            match bar {
                // `A | B | C` → `A | C`: the bar before the case and the blanks before it.
                Some(bar) => {
                    let start = text[..bar].trim_end_matches([' ', '\t']).len();
                    Ok(ByteEdit { start, end: removed.end, new_text: String::new() })
                }
                // The first case with no bar of its own: it and the next bar go.
                None => {
                    let rest = &text[removed.end..];
                    let after_bar = rest
                        .find('|')
                        .filter(|at| rest[..*at].trim().is_empty())
                        .map(|at| removed.end + at + 1)
                        .unwrap_or(removed.end);
                    let end =
                        after_bar + (text[after_bar..].len() - text[after_bar..].trim_start_matches([' ', '\t']).len());
                    Ok(ByteEdit { start: removed.name_start, end, new_text: String::new() })
                }
            }
        }
        PlannedChange::Change { case, fields } => {
            let at = find(case).ok_or_else(|| missing_case(union, case))?;
            let changed = &union.cases[at];
            if changed.fields.as_deref() == fields.as_deref() {
                return Err(refuse("fields", format!("{case} already has these fields")));
            }
            Ok(ByteEdit {
                start: changed.name_start,
                end: changed.end,
                new_text: case_text(
                    &text[changed.name_start..changed.name_start + name_length(text, changed)],
                    fields.as_deref(),
                ),
            })
        }
    }
}

/// The case name's length in bytes as written (backticks included).
fn name_length(text: &str, case: &UnionCase) -> usize {
    let rest = &text[case.name_start..case.end];
    if let Some(inner) = rest.strip_prefix("``") {
        inner.find("``").map_or(rest.len(), |end| end + 4)
    } else {
        rest.find(|character: char| !crate::syntax::words::is_identifier_char(character)).unwrap_or(rest.len())
    }
}

fn missing_case(union: &UnionDeclaration, case: &str) -> Refusal {
    refuse("case", format!("{} has no case {case} (its cases: {})", union.name, names(union)))
}

fn names(union: &UnionDeclaration) -> String {
    union.cases.iter().map(|case| case.name.as_str()).collect::<Vec<_>>().join(", ")
}

/// The byte offset of the `|` written before `offset` (blanks and line breaks between), if any.
fn bar_before(text: &str, offset: usize) -> Option<usize> {
    let before = text[..offset].trim_end();
    before.ends_with('|').then(|| before.len() - 1)
}

/// The start of `offset`'s line and the offset of its line break (or the text's end).
fn line_bounds(text: &str, offset: usize) -> (usize, usize) {
    let start = text[..offset].rfind('\n').map_or(0, |at| at + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |at| offset + at);
    (start, end)
}

/// How a use of a case is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UseKind {
    /// In an expression: it builds a value of the union (or passes the case as a function).
    Construction,
    /// In a pattern: a `match`/`function` arm, a `let` or a parameter pattern.
    Pattern,
    /// Neither (an attribute, a type, a syntax error region).
    Other,
}

/// Whether the use at byte `offset` constructs or matches: the nearest enclosing pattern or
/// expression node decides.
pub fn use_kind(tree: &Tree, offset: usize) -> UseKind {
    let mut node = tree.root_node().descendant_for_byte_range(offset, offset);
    while let Some(current) = node {
        let kind = current.kind();
        if kind.ends_with("_pattern") || kind == "argument_patterns" {
            return UseKind::Pattern;
        }
        if kind.ends_with("_expression") || kind == "rule" || kind.ends_with("_defn") {
            return UseKind::Construction;
        }
        if kind == "ERROR" || kind == "file" {
            return UseKind::Other;
        }
        node = current.parent();
    }
    UseKind::Other
}

/// A `match` or `function` expression found around a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchExpression {
    /// Byte offset of the `match` (or `function`) keyword.
    pub start: usize,
    /// Byte offset of the first arm whose pattern takes every value (`_`, or a lower-case name
    /// binding it) and that has no `when` guard.
    pub catch_all_arm: Option<usize>,
}

/// The `match`/`function` expression whose arm's pattern holds byte `offset`.
pub fn enclosing_match(tree: &Tree, text: &str, offset: usize) -> Option<MatchExpression> {
    let mut node = tree.root_node().descendant_for_byte_range(offset, offset);
    let mut in_pattern = false;
    while let Some(current) = node {
        match current.kind() {
            "rule" => {
                let pattern = current.child_by_field_name("pattern")?;
                in_pattern = pattern.byte_range().contains(&offset);
            }
            "match_expression" | "function_expression" if in_pattern => {
                return Some(MatchExpression {
                    start: current.start_byte(),
                    catch_all_arm: catch_all_arm(current, text),
                });
            }
            _ => {}
        }
        node = current.parent();
    }
    None
}

fn catch_all_arm(expression: Node, text: &str) -> Option<usize> {
    let mut cursor = expression.walk();
    let rules = expression.named_children(&mut cursor).find(|child| child.kind() == "rules")?;
    let mut rules_cursor = rules.walk();
    rules.named_children(&mut rules_cursor).filter(|rule| rule.kind() == "rule").find_map(|rule| {
        if rule.child_by_field_name("guard").is_some() {
            return None;
        }
        let pattern = rule.child_by_field_name("pattern")?;
        takes_everything(pattern, text).then_some(pattern.start_byte())
    })
}

/// `_`, a lower-case name, or either in parentheses or with `as`.
fn takes_everything(pattern: Node, text: &str) -> bool {
    match pattern.kind() {
        "wildcard_pattern" => true,
        "paren_pattern" | "as_pattern" | "typed_pattern" => {
            let mut cursor = pattern.walk();
            let first = pattern.named_children(&mut cursor).next();
            first.is_some_and(|inner| takes_everything(inner, text))
        }
        "identifier_pattern" => {
            let written = text[pattern.byte_range()].trim();
            written.chars().next().is_some_and(|first| first.is_lowercase() || first == '_')
                && written.chars().all(crate::syntax::words::is_identifier_char)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse::FsharpParsers;

    const SHAPES: &str = "namespace Geometry\n\ntype Shape =\n    | Circle of radius: float\n    | Square of side: float\n    | Rectangle of width: float * height: float\n\nmodule Shape =\n    let area shape =\n        match shape with\n        | Circle r -> r\n        | Square s -> s * s\n        | _ -> 0.0\n\n    let unit = Square 1.0\n";

    fn tree(text: &str) -> Tree {
        crate::syntax::enclosing::parse(&mut FsharpParsers::new(), text).unwrap()
    }

    fn applied(text: &str, edit: &ByteEdit) -> String {
        format!("{}{}{}", &text[..edit.start], edit.new_text, &text[edit.end..])
    }

    fn shape() -> UnionDeclaration {
        union_at(&tree(SHAPES), SHAPES, SHAPES.find("Shape =").unwrap()).expect("the union")
    }

    #[test]
    fn the_union_and_its_cases_are_read() {
        let union = shape();
        assert_eq!(union.name, "Shape");
        let cases: Vec<(&str, Option<&str>)> =
            union.cases.iter().map(|case| (case.name.as_str(), case.fields.as_deref())).collect();
        assert_eq!(
            cases,
            [
                ("Circle", Some("radius: float")),
                ("Square", Some("side: float")),
                ("Rectangle", Some("width: float * height: float"))
            ]
        );
        // From a case's name too; the module of the same name is no union.
        assert_eq!(union_at(&tree(SHAPES), SHAPES, SHAPES.find("Square of").unwrap()), Some(union));
        assert_eq!(union_at(&tree(SHAPES), SHAPES, SHAPES.find("module Shape").unwrap() + 8), None);
        assert_eq!(unions_in(&tree(SHAPES), SHAPES).len(), 1);
    }

    #[test]
    fn a_generic_union_is_read() {
        let text =
            "namespace A\n\ntype BinaryTree<'T> =\n    | Leaf\n    | Branch of 'T * BinaryTree<'T> * BinaryTree<'T>\n";
        let union = union_at(&tree(text), text, text.find("BinaryTree").unwrap()).expect("the union");
        assert_eq!((union.name.as_str(), union.name_start), ("BinaryTree", text.find("BinaryTree").unwrap()));
        let cases: Vec<&str> = union.cases.iter().map(|case| case.name.as_str()).collect();
        assert_eq!(cases, ["Leaf", "Branch"]);
    }

    #[test]
    fn add_goes_on_its_own_line_after_the_last_case_or_the_named_one() {
        let union = shape();
        let add = |after: Option<&str>| PlannedChange::Add {
            case: "Triangle".to_owned(),
            fields: Some("float * float".to_owned()),
            after: after.map(str::to_owned),
        };
        let edit = edit_for(&union, SHAPES, &add(None)).unwrap();
        assert!(applied(SHAPES, &edit).contains("height: float\n    | Triangle of float * float\n\nmodule"));
        let edit = edit_for(&union, SHAPES, &add(Some("Circle"))).unwrap();
        assert!(
            applied(SHAPES, &edit).contains("| Circle of radius: float\n    | Triangle of float * float\n    | Square")
        );
        let refused = edit_for(&union, SHAPES, &add(Some("Hexagon"))).unwrap_err();
        assert_eq!(refused.argument, "after");
        let twice = PlannedChange::Add { case: "Square".to_owned(), fields: None, after: None };
        assert_eq!(edit_for(&union, SHAPES, &twice).unwrap_err().argument, "case");
    }

    #[test]
    fn remove_takes_the_whole_line_or_the_bar_on_one_line() {
        let union = shape();
        let edit = edit_for(&union, SHAPES, &PlannedChange::Remove { case: "Square".to_owned() }).unwrap();
        assert!(applied(SHAPES, &edit).contains("| Circle of radius: float\n    | Rectangle of"));
        let one_line = "type T = A | B of int | C\n";
        let union = union_at(&tree(one_line), one_line, 5).unwrap();
        let remove = |case: &str| edit_for(&union, one_line, &PlannedChange::Remove { case: case.to_owned() }).unwrap();
        assert_eq!(applied(one_line, &remove("B")), "type T = A | C\n");
        assert_eq!(applied(one_line, &remove("A")), "type T = B of int | C\n");
        assert_eq!(applied(one_line, &remove("C")), "type T = A | B of int\n");
        let missing = edit_for(&union, one_line, &PlannedChange::Remove { case: "D".to_owned() }).unwrap_err();
        assert_eq!((missing.argument, missing.message.as_str()), ("case", "T has no case D (its cases: A, B, C)"));
        let add = PlannedChange::Add { case: "D".to_owned(), fields: None, after: None };
        assert_eq!(applied(one_line, &edit_for(&union, one_line, &add).unwrap()), "type T = A | B of int | C | D\n");
    }

    #[test]
    fn change_rewrites_the_fields_only() {
        let union = shape();
        let change = PlannedChange::Change { case: "Square".to_owned(), fields: Some("side: int".to_owned()) };
        let edit = edit_for(&union, SHAPES, &change).unwrap();
        assert!(applied(SHAPES, &edit).contains("    | Square of side: int\n    | Rectangle"));
        let same = PlannedChange::Change { case: "Square".to_owned(), fields: Some("side: float".to_owned()) };
        assert_eq!(edit_for(&union, SHAPES, &same).unwrap_err().argument, "fields");
        let none = PlannedChange::Change { case: "Circle".to_owned(), fields: None };
        assert!(applied(SHAPES, &edit_for(&union, SHAPES, &none).unwrap()).contains("    | Circle\n    | Square"));
    }

    #[test]
    fn uses_are_told_apart_and_catch_all_arms_found() {
        let tree = tree(SHAPES);
        let pattern = SHAPES.find("Square s").unwrap();
        assert_eq!(use_kind(&tree, pattern), UseKind::Pattern);
        assert_eq!(use_kind(&tree, SHAPES.find("Square 1.0").unwrap()), UseKind::Construction);
        let found = enclosing_match(&tree, SHAPES, pattern).expect("the match");
        assert_eq!(found.start, SHAPES.find("match shape").unwrap());
        assert_eq!(found.catch_all_arm, Some(SHAPES.find("_ -> 0.0").unwrap()));
        assert_eq!(enclosing_match(&tree, SHAPES, SHAPES.find("Square 1.0").unwrap()), None);
    }

    #[test]
    fn names_and_fields_are_checked() {
        assert!(is_case_name("Triangle") && is_case_name("``Odd case``") && is_case_name("Ünit'2"));
        assert!(!is_case_name("triangle") && !is_case_name("Tri angle") && !is_case_name("") && !is_case_name("A.B"));
        assert_eq!(fields_text(" of float * float ").unwrap(), "float * float");
        assert_eq!(fields_text("").unwrap_err().argument, "fields");
        assert_eq!(fields_text("int | B").unwrap_err().argument, "fields");
        assert_eq!(fields_text("int\nB").unwrap_err().argument, "fields");
    }
}
