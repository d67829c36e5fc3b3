//! Which test (or which function) encloses a site, from the tree-sitter F# syntax tree: a
//! `let` or member carrying a test attribute (`[<Fact>]`, `[<Theory>]`, `[<Test>]`,
//! `[<TestCase…>]`, `[<Property>]`, MSTest's `[<TestMethod>]`), an Expecto `testCase "name"` (and its kin) with the
//! `testList` names around it, or else the outermost function the site sits in (a helper to
//! follow). Pure: text in, facts out.

use std::time::Duration;

use tree_sitter::{Node, Point, Tree};

use crate::syntax::model::GrammarKind;
use crate::syntax::parse::FsharpParsers;

/// How long one file may take to parse.
const PARSE_BUDGET: Duration = Duration::from_secs(5);

/// The Expecto functions that make one test from a name and a body.
const EXPECTO_TESTS: [&str; 15] = [
    "testCase",
    "testCaseAsync",
    "testCaseTask",
    "testTask",
    "testAsync",
    "test",
    "testProperty",
    "testPropertyWithConfig",
    "ptestCase",
    "ptestCaseAsync",
    "ptestProperty",
    "ftestCase",
    "ftestCaseAsync",
    "ftestProperty",
    "testSequenced",
];

/// The Expecto functions that name a list of tests.
const EXPECTO_LISTS: [&str; 5] = ["testList", "ftestList", "ptestList", "testSequencedGroup", "testLabel"];

/// The attribute that made a declaration a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestAttribute {
    /// `[<Fact>]`.
    Fact,
    /// `[<Theory>]` (xUnit's, or NUnit's).
    Theory,
    /// `[<Test>]`, `[<TestCase…>]`, `[<TestCaseSource…>]`.
    Test,
    /// FsCheck's `[<Property>]`.
    Property,
    /// MSTest's `[<TestMethod>]`, `[<DataTestMethod>]`.
    TestMethod,
}

/// A test found around a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoundTest {
    /// A function or member with a test attribute.
    Attributed {
        attribute: TestAttribute,
        /// The declared name, without double backticks.
        name: String,
        /// The enclosing namespace and modules (types), outermost first; nested ones are
        /// `nested`.
        containers: Vec<String>,
        /// 0-based line of the declared name.
        line: u32,
    },
    /// An Expecto test expression.
    Expecto {
        /// The string given to `testCase` (or its kin).
        name: String,
        /// The names of the `testList`s around it, outermost first.
        lists: Vec<String>,
        /// 0-based line where the expression starts.
        line: u32,
    },
}

/// A function a site sits in that is no test: the outermost `let` or member around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnclosingFunction {
    pub name: String,
    /// Where its name is: 0-based line and UTF-16 column.
    pub line: u32,
    pub character: u32,
}

/// What encloses a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Enclosing {
    Test(FoundTest),
    Function(EnclosingFunction),
    /// The site is in no function (a module-level expression, an attribute, a type).
    Nothing,
    /// The file did not parse.
    Unparsed(String),
}

/// The syntax tree of a file, or why it has none.
pub fn parse(parsers: &mut FsharpParsers, text: &str) -> Result<Tree, String> {
    parsers.parse(text, GrammarKind::Implementation, PARSE_BUDGET).map_err(|error| error.to_string())
}

/// What encloses the site at 0-based `line` and UTF-16 `character` of `text` (parsed once per
/// call; [`enclosing_in`] reuses a tree).
pub fn enclosing(parsers: &mut FsharpParsers, text: &str, line: u32, character: u32) -> Enclosing {
    match parse(parsers, text) {
        Ok(tree) => enclosing_in(&tree, text, line, character),
        Err(why) => Enclosing::Unparsed(why),
    }
}

/// What encloses the site at 0-based `line` and UTF-16 `character` of `text`, whose tree is
/// `tree`.
pub fn enclosing_in(tree: &Tree, text: &str, line: u32, character: u32) -> Enclosing {
    let bytes = text.as_bytes();
    let point = Point { row: line as usize, column: byte_column(text, line, character) };
    let Some(start) = tree.root_node().descendant_for_point_range(point, point) else {
        return Enclosing::Nothing;
    };
    let mut expecto_test: Option<(String, u32)> = None;
    let mut lists: Vec<(usize, String)> = Vec::new();
    let mut outermost: Option<Node> = None;
    let mut node = Some(start);
    while let Some(current) = node {
        let source = &text[current.start_byte()..current.end_byte().min(text.len())];
        if expecto_test.is_none() {
            if let Some(name) = expecto_call(source, &EXPECTO_TESTS) {
                expecto_test = Some((name, current.start_position().row as u32));
            }
        } else if let Some(name) = expecto_call(source, &EXPECTO_LISTS)
            && !lists.iter().any(|(start, _)| *start == current.start_byte())
        {
            lists.push((current.start_byte(), name));
        }
        if is_declaration(current) {
            if expecto_test.is_none()
                && let Some(attribute) = test_attribute(current, text)
            {
                let (name, line) = declared_name(current, bytes).unwrap_or_default();
                return Enclosing::Test(FoundTest::Attributed {
                    attribute,
                    name,
                    containers: containers(current, bytes),
                    line,
                });
            }
            outermost = Some(current);
        }
        node = current.parent();
    }
    if let Some((name, line)) = expecto_test {
        let lists = lists.into_iter().rev().map(|(_, name)| name).collect();
        return Enclosing::Test(FoundTest::Expecto { name, lists, line });
    }
    match outermost.and_then(|declaration| declared_name_at(declaration, text)) {
        Some(function) => Enclosing::Function(function),
        None => Enclosing::Nothing,
    }
}

/// The text of the computation-expression block whose builder expression holds the site at
/// 0-based `line` and UTF-16 `character` (`asyncSeq` in `asyncSeq { … }`, `mk ()` in
/// `(mk ()) { … }`); `None` when the site is no block's builder (a plain use of the value).
pub fn builder_block_at<'t>(tree: &Tree, text: &'t str, line: u32, character: u32) -> Option<&'t str> {
    let point = Point { row: line as usize, column: byte_column(text, line, character) };
    let start = tree.root_node().descendant_for_point_range(point, point)?;
    let mut node = Some(start);
    while let Some(current) = node {
        if current.kind() == "ce_expression" {
            let builder = current.named_child(0)?;
            let inside = builder.start_byte() <= start.start_byte() && start.end_byte() <= builder.end_byte();
            let block = current.child_by_field_name("block")?;
            return inside.then(|| text.get(block.start_byte()..block.end_byte())).flatten();
        }
        node = current.parent();
    }
    None
}

/// The byte column of a UTF-16 column on a line (the line's end when past it).
fn byte_column(text: &str, line: u32, character: u32) -> usize {
    let Some(line_text) = text.split('\n').nth(line as usize) else { return 0 };
    crate::columns::byte_at_column(line_text, character).unwrap_or(line_text.len())
}

/// `testCase "name" …` → `name`, when `source` starts with one of `functions` applied to a
/// string literal.
fn expecto_call(source: &str, functions: &[&str]) -> Option<String> {
    let head_length = source.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))?;
    let head = &source[..head_length];
    let function = head.rsplit('.').next()?;
    if !functions.contains(&function) || head.split('.').count() > 2 {
        return None;
    }
    let rest = source[head_length..].trim_start_matches([' ', '\t']);
    let literal = rest.strip_prefix('"')?;
    let end = literal.find('"')?;
    Some(literal[..end].to_owned())
}

/// A `let` (module-level or local) or a member.
fn is_declaration(node: Node) -> bool {
    matches!(node.kind(), "function_or_value_defn" | "member_defn")
}

/// The test attribute on a declaration: in its own text before `let`/`member`, or in the
/// `attributes` right before it in its parent.
fn test_attribute(declaration: Node, text: &str) -> Option<TestAttribute> {
    let mut attribute_texts = Vec::new();
    let mut sibling = declaration.prev_named_sibling();
    while let Some(previous) = sibling {
        if previous.kind() != "attributes" && previous.kind() != "attribute" {
            break;
        }
        attribute_texts.push(&text[previous.start_byte()..previous.end_byte()]);
        sibling = previous.prev_named_sibling();
    }
    if let Some(parent) = declaration.parent() {
        let mut cursor = parent.walk();
        for child in parent.named_children(&mut cursor) {
            if child.start_byte() >= declaration.start_byte() {
                break;
            }
            if child.kind() == "attributes" {
                attribute_texts.push(&text[child.start_byte()..child.end_byte()]);
            }
        }
        if parent.start_byte() < declaration.start_byte() && !is_declaration(parent) {
            let before = &text[parent.start_byte()..declaration.start_byte()];
            if before.trim_start().starts_with("[<") {
                attribute_texts.push(before);
            }
        }
    }
    let own = &text[declaration.start_byte()..declaration.end_byte()];
    if let Some(keyword) = own.find("let ").or_else(|| own.find("member ")) {
        attribute_texts.push(&own[..keyword]);
    }
    attribute_texts.into_iter().flat_map(attribute_names).find_map(|name| match name.as_str() {
        "Fact" => Some(TestAttribute::Fact),
        "Theory" => Some(TestAttribute::Theory),
        "Test" | "TestCase" | "TestCaseSource" => Some(TestAttribute::Test),
        "Property" => Some(TestAttribute::Property),
        "TestMethod" | "DataTestMethod" => Some(TestAttribute::TestMethod),
        _ => None,
    })
}

/// The attribute names in `[<A; B(1)>] [<C>]`, without namespace and `Attribute` suffix.
fn attribute_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for list in text.split("[<").skip(1) {
        let list = list.split(">]").next().unwrap_or("");
        for attribute in list.split(';') {
            let head = attribute.trim().split(['(', ' ']).next().unwrap_or("");
            let last = head.rsplit('.').next().unwrap_or("");
            let name = last.strip_suffix("Attribute").unwrap_or(last);
            if !name.is_empty() {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// The name a declaration declares and its 0-based line.
fn declared_name(declaration: Node, bytes: &[u8]) -> Option<(String, u32)> {
    let identifier = name_node(declaration)?;
    let name = identifier.utf8_text(bytes).ok()?;
    Some((unticked(name), identifier.start_position().row as u32))
}

/// The declaration's name as an [`EnclosingFunction`] (UTF-16 column).
fn declared_name_at(declaration: Node, text: &str) -> Option<EnclosingFunction> {
    let identifier = name_node(declaration)?;
    let name = identifier.utf8_text(text.as_bytes()).ok()?;
    let position = identifier.start_position();
    let line_start = identifier.start_byte() - position.column;
    let character = text[line_start..identifier.start_byte()].encode_utf16().count() as u32;
    Some(EnclosingFunction { name: unticked(name), line: position.row as u32, character })
}

/// The identifier a `let` or member declares: the first identifier of its left-hand side
/// (a member's name after `this.`).
fn name_node(declaration: Node) -> Option<Node> {
    let mut cursor = declaration.walk();
    let left = declaration.named_children(&mut cursor).find(|child| {
        matches!(child.kind(), "function_declaration_left" | "value_declaration_left" | "method_or_prop_defn")
    })?;
    if left.kind() == "method_or_prop_defn" {
        let mut cursor = left.walk();
        let name = left.named_children(&mut cursor).find(|child| child.kind() == "property_or_ident")?;
        return last_identifier(name);
    }
    first_identifier(left)
}

fn first_identifier(node: Node) -> Option<Node> {
    if node.kind() == "identifier" {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(first_identifier)
}

fn last_identifier(node: Node) -> Option<Node> {
    if node.kind() == "identifier" {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().rev().find_map(last_identifier)
}

/// ``` ``add adds`` ``` → `add adds`.
fn unticked(name: &str) -> String {
    name.strip_prefix("``").and_then(|name| name.strip_suffix("``")).unwrap_or(name).to_owned()
}

/// The namespace, modules and types around a declaration, outermost first: a namespace as
/// `N:` and its dotted name, a module (top-level or nested) or a type as `T:` and its name.
fn containers(declaration: Node, bytes: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut node = declaration.parent();
    while let Some(current) = node {
        let name = |kinds: &[&str]| {
            let mut cursor = current.walk();
            current
                .named_children(&mut cursor)
                .find(|child| kinds.contains(&child.kind()))
                .and_then(|child| child.utf8_text(bytes).ok().map(str::to_owned))
        };
        let dotted = |name: String| name.split('.').map(|part| unticked(part.trim())).collect::<Vec<_>>().join(".");
        match current.kind() {
            "namespace" => {
                if let Some(name) = name(&["long_identifier", "identifier"]) {
                    names.push(format!("N:{}", dotted(name)));
                }
            }
            "named_module" => {
                if let Some(name) = name(&["long_identifier", "identifier"]) {
                    names.push(format!("T:{}", dotted(name)));
                }
            }
            "module_defn" => {
                if let Some(name) = name(&["identifier"]) {
                    names.push(format!("T:{}", unticked(&name)));
                }
            }
            "type_definition" => {
                let mut cursor = current.walk();
                let type_name = current.named_children(&mut cursor).find_map(|child| {
                    let mut inner = child.walk();
                    child
                        .named_children(&mut inner)
                        .find(|grandchild| grandchild.kind() == "type_name")
                        .and_then(first_identifier)
                        .and_then(|identifier| identifier.utf8_text(bytes).ok().map(str::to_owned))
                });
                if let Some(type_name) = type_name {
                    names.push(format!("T:{}", unticked(&type_name)));
                }
            }
            _ => {}
        }
        node = current.parent();
    }
    names.reverse();
    names
}

/// The full name VSTest gives an attributed F# test: the declaring type's .NET full name (a
/// type in a namespace joined with `.`, one nested in a module or type with `+`) and the
/// name, joined with `.`; `None` for a test in no module or type.
pub fn fully_qualified_name(containers: &[String], name: &str) -> Option<String> {
    let mut type_name = String::new();
    let mut after_type = false;
    let mut has_type = false;
    for container in containers {
        let (is_type, part) = match (container.strip_prefix("T:"), container.strip_prefix("N:")) {
            (Some(part), _) => (true, part),
            (None, Some(part)) => (false, part),
            (None, None) => (false, container.as_str()),
        };
        if !type_name.is_empty() {
            type_name.push(if after_type { '+' } else { '.' });
        }
        type_name.push_str(part);
        after_type = is_type;
        has_type |= is_type;
    }
    has_type.then(|| format!("{type_name}.{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str, nth: usize) -> (u32, u32) {
        let offset = text.match_indices(needle).nth(nth).expect("needle").0;
        let line = text[..offset].matches('\n').count() as u32;
        let line_start = text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
        (line, text[line_start..offset].encode_utf16().count() as u32)
    }

    fn enclosing_of(text: &str, needle: &str, nth: usize) -> Enclosing {
        let (line, character) = at(text, needle, nth);
        enclosing(&mut FsharpParsers::new(), text, line, character)
    }

    const XUNIT: &str = "module Tally.Xunit.CounterTests\n\nopen Xunit\nopen Tally.Counter\n\n[<Fact>]\nlet ``a new tally counts nothing`` () = Assert.Equal(0, (start \"tea\").Count)\n\n[<Fact>]\nlet ``add adds`` () =\n    let tally = start \"tea\" |> add 2 |> add 3\n    Assert.Equal(5, tally.Count)\n\n[<Theory>]\n[<InlineData(-5, 0)>]\nlet ``clampTo keeps`` (amount: int, expected: int) =\n    Assert.Equal(expected, (start \"tea\" |> add amount |> clampTo 0 10).Count)\n\nlet helper x = add x (start \"h\")\n";

    #[test]
    fn an_attributed_let_is_the_test_even_from_a_local_binding() {
        let found = enclosing_of(XUNIT, "add 2", 0);
        let Enclosing::Test(FoundTest::Attributed { attribute, name, containers, line }) = found else {
            panic!("{found:?}")
        };
        assert_eq!((attribute, name.as_str(), line), (TestAttribute::Fact, "add adds", 9));
        assert_eq!(fully_qualified_name(&containers, &name).as_deref(), Some("Tally.Xunit.CounterTests.add adds"));
        let theory = enclosing_of(XUNIT, "add amount", 0);
        assert!(
            matches!(&theory, Enclosing::Test(FoundTest::Attributed { attribute: TestAttribute::Theory, name, .. }) if name == "clampTo keeps"),
            "{theory:?}"
        );
    }

    #[test]
    fn a_plain_function_is_a_helper_with_its_name_position() {
        let found = enclosing_of(XUNIT, "add x", 0);
        let (line, _) = at(XUNIT, "helper", 0);
        assert_eq!(found, Enclosing::Function(EnclosingFunction { name: "helper".to_owned(), line, character: 4 }));
    }

    #[test]
    fn expecto_test_cases_carry_their_list_names() {
        let text = "module Tally.Expecto.CounterTests\n\nopen Expecto\n\nlet tests =\n    testList \"counter\" [\n        testList \"inner\" [\n            testCase \"add adds\" <| fun () ->\n                Expect.equal (add 4) 4 \"four\"\n        ]\n        testProperty \"prop\" <| fun (x: int) -> add x = x\n    ]\n";
        let found = enclosing_of(text, "add 4", 0);
        assert_eq!(
            found,
            Enclosing::Test(FoundTest::Expecto {
                name: "add adds".to_owned(),
                lists: vec!["counter".to_owned(), "inner".to_owned()],
                line: 7
            })
        );
        let property = enclosing_of(text, "add x", 0);
        assert!(
            matches!(&property, Enclosing::Test(FoundTest::Expecto { name, lists, .. }) if name == "prop" && lists == &["counter"]),
            "{property:?}"
        );
    }

    #[test]
    fn nunit_members_in_a_class_are_named_by_namespace_and_type() {
        let text = "namespace Tally.Tests\n\nopen NUnit.Framework\n\ntype CounterTests() =\n    [<Test>]\n    member _.``adds`` () = Assert.That(add 1 2, Is.EqualTo 3)\n";
        let found = enclosing_of(text, "add 1", 0);
        let Enclosing::Test(FoundTest::Attributed { attribute, name, containers, .. }) = found else {
            panic!("{found:?}")
        };
        assert_eq!(attribute, TestAttribute::Test);
        assert_eq!(fully_qualified_name(&containers, &name).as_deref(), Some("Tally.Tests.CounterTests.adds"));
    }

    #[test]
    fn mstest_methods_are_tests() {
        let text = "namespace Tally.Tests\n\nopen Microsoft.VisualStudio.TestTools.UnitTesting\n\n[<TestClass>]\ntype CounterTests() =\n    [<TestMethod>]\n    member _.Adds () = Assert.AreEqual(3, add 1 2)\n";
        let found = enclosing_of(text, "add 1", 0);
        let Enclosing::Test(FoundTest::Attributed { attribute, name, containers, .. }) = found else {
            panic!("{found:?}")
        };
        assert_eq!(attribute, TestAttribute::TestMethod);
        assert_eq!(fully_qualified_name(&containers, &name).as_deref(), Some("Tally.Tests.CounterTests.Adds"));
    }

    #[test]
    fn a_test_in_a_nested_module_is_named_with_a_plus() {
        let text = "module Tally.Tests\n\nmodule Counter =\n    [<Xunit.Fact>]\n    let adds () = add 1 2 |> ignore\n";
        let found = enclosing_of(text, "add 1", 0);
        let Enclosing::Test(FoundTest::Attributed { name, containers, .. }) = found else { panic!("{found:?}") };
        assert_eq!(fully_qualified_name(&containers, &name).as_deref(), Some("Tally.Tests+Counter.adds"));
    }
}
