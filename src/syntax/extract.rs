//! Turns one parsed F# file into a [`LocalFileIndex`]: declarations with their parent chain,
//! field-site candidates, access-modifier spans, identifier occurrences and health.
//!
//! The walk is one pre-order pass over the tree with an explicit stack (F# trees get deep:
//! long pipelines nest `infix_expression`s), so it never recurses and never asks tree-sitter
//! for a node's parent (which costs a walk from the root). The node-kind shapes it relies on
//! are the ones docs/syntax.md describes ("What the grammar gets right and wrong").

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use std::num::NonZeroU16;

use tree_sitter::{LanguageRef, Node, Tree};

use crate::syntax::model::{
    Access, AccessModifierSpan, Declaration, DeclarationKind, FieldSite, FieldSiteKind, FileHealth, FileIndex,
    GrammarKind, HealthStatus, INDEX_FORMAT_VERSION, LocalFileIndex, MisparseFinding, MisparseIndicator, NO_PARENT,
    NameId, OccurrencePostings, Position, TextRange, Uncertainty,
};

/// Converts byte offsets to 0-based line and UTF-16 character positions.
pub struct LineIndex<'text> {
    text: &'text str,
    line_starts: Vec<usize>,
    line_is_ascii: Vec<bool>,
    /// The line of the previous lookup: lookups mostly move forward a little.
    hint: Cell<usize>,
}

impl<'text> LineIndex<'text> {
    pub fn new(text: &'text str) -> Self {
        // `str::split` finds newlines with memchr and `is_ascii` checks a word at a time: a
        // byte-by-byte loop here cost ~10 instructions per byte of text.
        let mut line_starts = vec![0];
        let mut line_is_ascii = Vec::new();
        let mut offset = 0;
        for line in text.split('\n') {
            if offset > 0 {
                line_starts.push(offset);
            }
            line_is_ascii.push(line.is_ascii());
            offset += line.len() + 1;
        }
        LineIndex { text, line_starts, line_is_ascii, hint: Cell::new(0) }
    }

    /// Number of lines, counting a last line without a newline.
    pub fn line_count(&self) -> u32 {
        if self.text.is_empty() {
            return 0;
        }
        let complete = self.line_starts.len() - 1;
        let trailing = usize::from(!self.text.ends_with('\n'));
        (complete + trailing) as u32
    }

    pub fn position(&self, byte: usize) -> Position {
        let byte = byte.min(self.text.len());
        let hint = self.hint.get();
        let starts = &self.line_starts;
        let within = |line: usize| {
            starts.get(line).is_some_and(|start| *start <= byte) && starts.get(line + 1).is_none_or(|next| byte < *next)
        };
        let line = if within(hint) {
            hint
        } else if within(hint + 1) {
            hint + 1
        } else {
            starts.partition_point(|start| *start <= byte).saturating_sub(1)
        };
        self.hint.set(line);
        let line_start = self.line_starts[line];
        let character = if self.line_is_ascii.get(line).copied().unwrap_or(false) {
            byte - line_start
        } else {
            // Count UTF-16 units up to `byte`, tolerating an offset inside a character.
            let mut units = 0;
            for (offset, character) in self.text[line_start..].char_indices() {
                if line_start + offset >= byte {
                    break;
                }
                units += character.len_utf16();
            }
            units
        };
        Position { line: line as u32, character: character as u32 }
    }

    pub fn range(&self, start_byte: usize, end_byte: usize) -> TextRange {
        TextRange { start: self.position(start_byte), end: self.position(end_byte) }
    }

    pub fn node_range(&self, node: Node) -> TextRange {
        self.range(node.start_byte(), node.end_byte())
    }
}

/// A file-local string table.
#[derive(Default)]
struct LocalNames {
    ids: crate::syntax::model::FastHashMap<String, NameId>,
    names: Vec<String>,
}

impl LocalNames {
    fn intern(&mut self, name: &str) -> NameId {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = NameId(self.names.len() as u32);
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}

/// Per-grammar tables, built once per process. `Node::kind` goes through the C API and
/// UTF-8-validates the kind's name on every call (~170 instructions, measured with callgrind);
/// the walk asks for the kind of every node, so it looks names up here by kind id instead.
struct KindTable {
    /// The grammar's name, to check that a cached table belongs to the tree's language.
    language_name: Option<&'static str>,
    /// Kind name by kind id, as `Node::kind` would return it.
    names: Vec<&'static str>,
    /// By kind id: is this a named kind that `enter` or `declaration_for` acts on?
    interesting: Vec<bool>,
    /// By kind id: a named kind whose subtree `enter` may read from the text instead of
    /// walking it (see [`OpaqueKind`]).
    opaque: Vec<Option<OpaqueKind>>,
    /// By kind id: `Node::is_named` for a node of this kind (without the C call).
    named: Vec<bool>,
    /// By kind id: a token that never has children (anonymous tokens, `identifier`), so the
    /// walk need not ask the cursor for a first child.
    leaf: Vec<bool>,
    /// The `field` field (of `dot_expression`).
    field_field: Option<NonZeroU16>,
    /// Field ids for `child_by_field_name`, which otherwise looks the name up by string
    /// comparison against every field of the grammar on each call.
    fields: FieldIds,
}

#[derive(Clone, Copy)]
struct FieldIds {
    field: Option<NonZeroU16>,
    assignee: Option<NonZeroU16>,
    name: Option<NonZeroU16>,
    type_name: Option<NonZeroU16>,
    exception_name: Option<NonZeroU16>,
    body: Option<NonZeroU16>,
    method: Option<NonZeroU16>,
}

/// `node.child_by_field_name(name)` for a field id looked up once.
fn child_by_field<'tree>(node: Node<'tree>, field: Option<NonZeroU16>) -> Option<Node<'tree>> {
    field.and_then(|id| node.child_by_field_id(id.get()))
}

impl KindTable {
    fn build(language: &LanguageRef) -> KindTable {
        let count = language.node_kind_count();
        let names: Vec<&'static str> =
            (0..count).map(|id| language.node_kind_for_id(id as u16).unwrap_or("")).collect();
        // Matching by name covers aliases that share a name but not an id.
        let interesting = (0..count)
            .map(|id| language.node_kind_is_named(id as u16) && INTERESTING_KINDS.contains(&names[id]))
            .collect();
        let opaque = (0..count)
            .map(|id| if language.node_kind_is_named(id as u16) { OpaqueKind::for_name(names[id]) } else { None })
            .collect();
        let named: Vec<bool> = (0..count).map(|id| language.node_kind_is_named(id as u16)).collect();
        // The grammar aliases one rule to an anonymous name (`float`'s digits), and its
        // children are numbers only; every other anonymous kind is a token.
        let leaf = (0..count).map(|id| !named[id] || names[id] == "identifier").collect();
        KindTable {
            language_name: language.name(),
            names,
            interesting,
            opaque,
            named,
            leaf,
            field_field: language.field_id_for_name("field"),
            fields: FieldIds {
                field: language.field_id_for_name("field"),
                assignee: language.field_id_for_name("assignee"),
                name: language.field_id_for_name("name"),
                type_name: language.field_id_for_name("type_name"),
                exception_name: language.field_id_for_name("exception_name"),
                body: language.field_id_for_name("body"),
                method: language.field_id_for_name("method"),
            },
        }
    }

    fn fits(&self, language: &LanguageRef) -> bool {
        self.names.len() == language.node_kind_count() && self.language_name == language.name()
    }

    /// The cached table for `grammar`, or a fresh one if `language` is not the grammar's.
    fn for_language(grammar: GrammarKind, language: &LanguageRef) -> std::borrow::Cow<'static, KindTable> {
        static TABLES: [OnceLock<KindTable>; 2] = [OnceLock::new(), OnceLock::new()];
        let slot = match grammar {
            GrammarKind::Implementation => &TABLES[0],
            GrammarKind::Signature => &TABLES[1],
        };
        let table = slot.get_or_init(|| KindTable::build(language));
        if table.fits(language) {
            std::borrow::Cow::Borrowed(table)
        } else {
            std::borrow::Cow::Owned(KindTable::build(language))
        }
    }

    /// `node.kind()`, without the C call for ordinary kinds.
    fn kind(&self, node: Node) -> &'static str {
        self.kind_of_id(node.kind_id()).unwrap_or_else(|| node.kind())
    }

    fn kind_of_id(&self, id: u16) -> Option<&'static str> {
        self.names.get(usize::from(id)).copied()
    }

    /// `Node::is_named` by kind id; ERROR (outside the table) is named.
    fn is_named(&self, id: u16) -> bool {
        self.named.get(usize::from(id)).copied().unwrap_or(true)
    }

    fn is_leaf(&self, id: u16) -> bool {
        self.leaf.get(usize::from(id)).copied().unwrap_or(false)
    }
}

impl Clone for KindTable {
    fn clone(&self) -> Self {
        KindTable {
            language_name: self.language_name,
            names: self.names.clone(),
            interesting: self.interesting.clone(),
            opaque: self.opaque.clone(),
            named: self.named.clone(),
            leaf: self.leaf.clone(),
            field_field: self.field_field,
            fields: self.fields,
        }
    }
}

/// Keywords that open or shape a declaration: read as an identifier, one says the grammar lost
/// the declarations around it (F# never takes a keyword for a name without double backticks).
/// A `match` rather than a list: it runs on every identifier of every file.
fn is_declaration_keyword(text: &str) -> bool {
    matches!(
        text,
        "abstract"
            | "and"
            | "default"
            | "exception"
            | "inherit"
            | "interface"
            | "member"
            | "module"
            | "namespace"
            | "override"
            | "static"
            | "type"
            | "val"
    )
}

/// A file's top-level module line (`module A.B`, no `=`) whose node the grammar closed on its
/// own line: written in an `#if`/`#else` branch (`#if FABLE_COMPILER` / `module Hedgehog.Tuple`
/// / `#else` / `module internal Hedgehog.Tuple` / `#endif`, as fsharp-hedgehog writes it), it is
/// read as an empty module and the file's declarations as top-level ones of no module. F# puts
/// everything after the line in the module: each top-level declaration after such lines is
/// made a child of the last one before it, and that module's range reaches it.
fn adopt_by_module_lines(text: &str, declarations: &mut [Declaration]) {
    let module_lines: Vec<usize> = (0..declarations.len())
        .filter(|&slot| {
            let declaration = &declarations[slot];
            let (start, end) = (declaration.header_bytes.0 as usize, declaration.header_bytes.1 as usize);
            declaration.kind == DeclarationKind::Module
                && declaration.parent == NO_PARENT
                && text.get(start..end).is_some_and(|header| {
                    // Past the attributes (`[<RequireQualifiedAccess>]` on the line above).
                    let keyword =
                        header.lines().map(str::trim).find(|line| !line.is_empty() && !line.starts_with("[<"));
                    keyword.is_some_and(|line| line.starts_with("module")) && !header.contains('=')
                })
                && text.get(end..).is_some_and(|after| !after.trim_start().starts_with('='))
                && !declarations.iter().any(|child| child.parent == slot as u32)
        })
        .collect();
    if module_lines.is_empty() {
        return;
    }
    for slot in 0..declarations.len() {
        if declarations[slot].parent != NO_PARENT || module_lines.contains(&slot) {
            continue;
        }
        let start = declarations[slot].range.start;
        let Some(&module) = module_lines.iter().rev().find(|&&module| declarations[module].range.end <= start) else {
            continue;
        };
        declarations[slot].parent = module as u32;
        let end = declarations[slot].range.end;
        if declarations[module].range.end < end {
            declarations[module].range.end = end;
        }
    }
}

/// Where the line of code before the line of byte `at` starts (blank lines skipped); the
/// start of `at`'s own line when none is before it.
fn previous_code_line_start(text: &str, at: usize) -> usize {
    let line_start = |end: usize| text[..end].rfind('\n').map_or(0, |newline| newline + 1);
    let own = line_start(at);
    let mut end = own;
    while end > 0 {
        let start = line_start(end - 1);
        if !text[start..end].trim().is_empty() {
            return start;
        }
        end = start;
    }
    own
}

/// One node on the walk's ancestor stack.
struct Frame<'tree> {
    node: Node<'tree>,
    kind: &'static str,
    /// Whether the node is its parent's `field` child. Only computed for
    /// `long_identifier_or_op`, the one kind whose field the read-candidate rules look at.
    is_field_field: bool,
    /// The declaration this node opened, to pop when the walk leaves it.
    opened_declaration: bool,
    opened_error: bool,
}

struct Extractor<'text, 'tree, 'kinds> {
    text: &'text str,
    lines: LineIndex<'text>,
    names: LocalNames,
    kinds: &'kinds KindTable,
    /// False when the tree has no error anywhere: then no node can be MISSING, and the walk
    /// need not ask each node.
    tree_has_error: bool,
    /// The last representation (record or union type) whose access was looked up, by node id.
    /// The node whose `access_modifier` child gives the access of the declaration being
    /// built (set by `deferred_access`, claimed when the declaration is pushed).
    pending_access_holder: Cell<Option<usize>>,
    /// Declaration index by the node id of its access holder, until the walk meets the
    /// holder's first `access_modifier` child (children come after their parent in the walk,
    /// so the lookup costs no extra cursor steps).
    access_holders: crate::syntax::model::FastHashMap<usize, usize>,
    /// The access written on a record or union representation, by the node id of its
    /// `record_type_defn`/`union_type_defn`: `type T = private { … }`.
    representation_accesses: crate::syntax::model::FastHashMap<usize, Access>,
    declarations: Vec<Declaration>,
    declaration_stack: Vec<u32>,
    declaration_bytes: Vec<(usize, usize)>,
    field_sites: Vec<FieldSite>,
    field_site_bytes: Vec<usize>,
    access_modifiers: Vec<AccessModifierSpan>,
    occurrences: Vec<(NameId, Position)>,
    error_byte_regions: Vec<(usize, usize)>,
    error_regions: Vec<TextRange>,
    misparse_byte_regions: Vec<(usize, usize)>,
    misparses: Vec<MisparseFinding>,
    error_depth: u32,
    claimed_identifiers: HashSet<usize>,
    stack: Vec<Frame<'tree>>,
    /// Set by `enter` when it read the entered node's whole subtree from the text: the walk
    /// then does not descend into it.
    skip_children: bool,
    /// Scratch for the identifier spans of an opaque node.
    segments: Vec<(usize, usize)>,
    /// Byte offsets of every `[`: an application without one cannot be `x[0]`.
    brackets: Vec<usize>,
}

/// True when a sorted offset list has an entry in `start..end`.
fn any_within(offsets: &[usize], start: usize, end: usize) -> bool {
    let first = offsets.partition_point(|offset| *offset < start);
    offsets.get(first).is_some_and(|offset| *offset < end)
}

/// Builds the index of one parsed file. `text` must be the text `tree` was parsed from.
pub fn extract_file_index(text: &str, tree: &Tree, grammar: GrammarKind, content_sha256: [u8; 32]) -> LocalFileIndex {
    let kinds = KindTable::for_language(grammar, &tree.language());
    let root = tree.root_node();
    let mut extractor = Extractor {
        text,
        lines: LineIndex::new(text),
        names: LocalNames::default(),
        kinds: &kinds,
        tree_has_error: root.has_error(),
        pending_access_holder: Cell::new(None),
        access_holders: Default::default(),
        representation_accesses: Default::default(),
        declarations: Vec::new(),
        declaration_stack: Vec::new(),
        declaration_bytes: Vec::new(),
        field_sites: Vec::new(),
        field_site_bytes: Vec::new(),
        access_modifiers: Vec::new(),
        occurrences: Vec::new(),
        error_byte_regions: Vec::new(),
        error_regions: Vec::new(),
        misparse_byte_regions: Vec::new(),
        misparses: Vec::new(),
        error_depth: 0,
        claimed_identifiers: HashSet::new(),
        stack: Vec::new(),
        skip_children: false,
        segments: Vec::new(),
        brackets: text.match_indices('[').map(|(offset, _)| offset).collect(),
    };
    extractor.walk(root);
    let root_is_error = root.is_error();
    if root_is_error || root.has_error() {
        extractor.add_fallback_header();
        extractor.recover_declarations_in_error_regions();
    }
    extractor.add_active_pattern_cases();
    extractor.finish(grammar, content_sha256, root_is_error, root.has_error())
}

impl<'text, 'tree> Extractor<'text, 'tree, '_> {
    fn walk(&mut self, root: Node<'tree>) {
        let mut cursor = root.walk();
        self.enter(root, root.kind_id(), root.is_named(), false, 0);
        // For each node on the path below the root: how many named children of it were seen.
        let mut named_counters: Vec<u32> = Vec::new();
        loop {
            let descend = !std::mem::take(&mut self.skip_children);
            if descend && cursor.goto_first_child() {
                named_counters.push(0);
                self.visit_cursor_node(&cursor, &mut named_counters);
                continue;
            }
            // The current node has no children: leave it, then climb until a sibling exists.
            loop {
                self.leave();
                if cursor.goto_next_sibling() {
                    self.visit_cursor_node(&cursor, &mut named_counters);
                    break;
                }
                if !cursor.goto_parent() {
                    return; // the root was just left
                }
                named_counters.pop();
            }
        }
    }

    fn visit_cursor_node(&mut self, cursor: &tree_sitter::TreeCursor<'tree>, named_counters: &mut [u32]) {
        let node = cursor.node();
        let kind_id = node.kind_id();
        let named = self.kinds.is_named(kind_id);
        // Only a `long_identifier_or_op`'s field is ever looked at (see `on_identifier`).
        let is_field_field = named
            && self.kinds.kind_of_id(kind_id) == Some("long_identifier_or_op")
            && self.kinds.field_field.is_some()
            && cursor.field_id() == self.kinds.field_field;
        let named_index = named_counters.last().copied().unwrap_or(0);
        if named && let Some(counter) = named_counters.last_mut() {
            *counter += 1;
        }
        self.enter(node, kind_id, named, is_field_field, named_index);
        if self.kinds.is_leaf(kind_id) {
            self.skip_children = true;
        }
    }

    fn leave(&mut self) {
        if let Some(frame) = self.stack.pop() {
            if frame.opened_declaration {
                self.declaration_stack.pop();
            }
            if frame.opened_error {
                self.error_depth = self.error_depth.saturating_sub(1);
            }
        }
    }

    fn node_text(&self, node: Node) -> &'text str {
        self.text.get(node.start_byte()..node.end_byte()).unwrap_or("")
    }

    fn parent_kind(&self, levels_up: usize) -> &'static str {
        // The stack's last frame is the current node's parent while `enter` runs.
        self.stack.len().checked_sub(levels_up).and_then(|index| self.stack.get(index)).map_or("", |frame| frame.kind)
    }

    fn parent_frame(&self, levels_up: usize) -> Option<&Frame<'tree>> {
        self.stack.len().checked_sub(levels_up).and_then(|index| self.stack.get(index))
    }

    fn enter(&mut self, node: Node<'tree>, kind_id: u16, named: bool, is_field_field: bool, named_index: u32) {
        let kind = self.kinds.kind_of_id(kind_id).unwrap_or_else(|| node.kind());
        let mut opened_declaration = false;
        let mut opened_error = false;
        // `is_error` is `kind_id == ts_builtin_sym_error`; a MISSING node gives every ancestor
        // an error cost, so a tree without errors has none.
        let is_error = kind_id == u16::MAX;
        let is_missing = self.tree_has_error && node.is_missing();
        if is_error || is_missing {
            if self.error_depth == 0 {
                let (start, end) = if is_missing {
                    self.parent_frame(1).map_or((node.start_byte(), node.end_byte()), |frame| {
                        (frame.node.start_byte(), frame.node.end_byte())
                    })
                } else {
                    (node.start_byte(), node.end_byte())
                };
                self.error_regions.push(self.lines.range(start, end));
                // Sites near an error are suspect beyond the ERROR node itself: the recovery
                // often swallows or re-labels neighbouring rules. Widen to the enclosing
                // match/function, else the enclosing declaration.
                let widened = self
                    .stack
                    .iter()
                    .rev()
                    .find(|frame| matches!(frame.kind, "match_expression" | "function_expression" | "try_expression"))
                    .or_else(|| {
                        self.stack.iter().rev().find(|frame| {
                            matches!(frame.kind, "function_or_value_defn" | "member_defn" | "type_definition")
                        })
                    })
                    .map_or((start, end), |frame| (frame.node.start_byte().min(start), frame.node.end_byte().max(end)));
                self.error_byte_regions.push(widened);
            }
            self.error_depth += 1;
            opened_error = true;
        }
        if named
            && let Some(Some(opaque)) = self.kinds.opaque.get(usize::from(kind_id)).copied()
            && !is_error
            && (!self.tree_has_error || !node.has_error())
            && self.read_opaque(node, opaque, is_field_field)
        {
            self.skip_children = true;
            self.stack.push(Frame { node, kind, is_field_field, opened_declaration, opened_error });
            return;
        }
        // Most nodes are of no interest; one table lookup spares them ~30 string compares.
        let interesting = named && self.kinds.interesting.get(usize::from(kind_id)).copied().unwrap_or(false);
        if !interesting {
            self.stack.push(Frame { node, kind, is_field_field, opened_declaration, opened_error });
            return;
        }
        let handled_kind = kind;
        match handled_kind {
            "identifier" => self.on_identifier(node, named_index),
            "access_modifier" => {
                let access = Access::from_keyword(self.node_text(node).trim());
                self.access_modifiers.push(AccessModifierSpan { access, range: self.lines.node_range(node) });
                if let Some(parent) = self.parent_frame(1) {
                    let parent_id = parent.node.id();
                    let representation = matches!(parent.kind, "record_type_defn" | "union_type_defn");
                    // The first modifier child of a holder decides, as a child scan would.
                    if let Some(index) = self.access_holders.remove(&parent_id)
                        && let Some(declaration) = self.declarations.get_mut(index)
                    {
                        declaration.access = access;
                    }
                    if representation {
                        self.representation_accesses.entry(parent_id).or_insert(access);
                    }
                }
            }
            "infix_op" => self.on_infix_op(node),
            "op_identifier" => self.on_operator_name(node),
            "application_expression" => self.on_application(node),
            "field_initializer" => self.on_field_initializer(node),
            "field_pattern" => {
                if let Some(label) = first_named_child(node) {
                    self.add_label_sites(label, FieldSiteKind::Pattern, Uncertainty::None, false);
                }
            }
            "named_field" => {
                if let Some(label) = first_named_child(node).filter(|child| self.kinds.kind(*child) == "identifier") {
                    let name = self.node_text(label);
                    self.add_site(FieldSiteKind::Pattern, name, name, label, Uncertainty::None);
                }
            }
            "mutate_expression" => self.on_mutation(node),
            _ => {}
        }
        self.pending_access_holder.set(None);
        if let Some(declaration) = self.declaration_for(node, handled_kind) {
            let index = self.declarations.len() as u32;
            if let Some(holder) = self.pending_access_holder.take() {
                self.access_holders.insert(holder, index as usize);
            }
            let parent = declaration.parent;
            let kind = declaration.kind;
            self.declaration_bytes.push((node.start_byte(), node.end_byte()));
            self.declarations.push(declaration);
            self.declaration_stack.push(index);
            opened_declaration = true;
            if kind == DeclarationKind::Let {
                self.add_and_bindings(node, parent);
            }
        }
        self.stack.push(Frame { node, kind, is_field_field, opened_declaration, opened_error });
    }

    fn on_identifier(&mut self, node: Node<'tree>, named_index: u32) {
        let text = self.node_text(node);
        if text.is_empty() {
            return;
        }
        if self.error_depth == 0 && is_declaration_keyword(text) {
            self.on_keyword_as_identifier((node.start_byte(), node.end_byte()));
        }
        let id = self.names.intern(text);
        self.occurrences.push((id, self.lines.position(node.start_byte())));
        if !self.claimed_identifiers.is_empty() && self.claimed_identifiers.contains(&node.start_byte()) {
            return;
        }
        // Read candidates: the non-first segments of a dotted name in expression position, and
        // every segment on the `field:` side of a `dot_expression` (notes §3).
        let parent = self.parent_kind(1);
        let read = match parent {
            "long_identifier" => {
                let owner = self.parent_frame(2);
                let owner_is_expression = owner.is_some_and(|frame| frame.kind == "long_identifier_or_op");
                let in_pattern = self.parent_kind(3) == "identifier_pattern";
                let on_field_side =
                    owner.is_some_and(|frame| frame.is_field_field) && self.parent_kind(3) == "dot_expression";
                owner_is_expression && !in_pattern && (named_index > 0 || on_field_side)
            }
            "long_identifier_or_op" => {
                let frame = self.parent_frame(1);
                let on_field_side =
                    frame.is_some_and(|frame| frame.is_field_field) && self.parent_kind(2) == "dot_expression";
                let in_pattern = self.parent_kind(2) == "identifier_pattern";
                !in_pattern && (named_index > 0 || on_field_side)
            }
            _ => false,
        };
        if read {
            let path = self.parent_frame(1).map_or(text, |frame| self.node_text(frame.node));
            let path = compact_path(path);
            self.add_site(FieldSiteKind::Read, text, &path, node, Uncertainty::NeedsResolution);
        }
    }

    /// Reads an opaque node's identifiers from the text, with exactly the occurrences and
    /// read candidates the walk would have produced from its leaves. Returns false (and
    /// records nothing) when the text is not the plain shape this handles; the walk then
    /// descends as usual. Only called on nodes without errors below them.
    fn read_opaque(&mut self, node: Node<'tree>, opaque: OpaqueKind, is_field_field: bool) -> bool {
        let (start, end) = (node.start_byte(), node.end_byte());
        let Some(text) = self.text.get(start..end) else {
            return false;
        };
        let mut segments = std::mem::take(&mut self.segments);
        segments.clear();
        let handled = match opaque {
            OpaqueKind::Constant => !text.as_bytes().contains(&b'{'),
            OpaqueKind::DottedNameOrOperator => {
                // Identifiers in a `long_identifier_or_op` are read candidates (notes §3): every
                // segment after the first, and every segment on the `field:` side of a
                // `dot_expression`, unless the name is a pattern's.
                let children = node.child_count();
                if !dotted_segments(text, start, &mut segments)
                    || !(children == 1 || children == 3 && segments.len() >= 2)
                {
                    false
                } else {
                    let in_pattern = self.parent_kind(1) == "identifier_pattern";
                    let on_field_side = is_field_field && self.parent_kind(1) == "dot_expression";
                    // Two shapes: `long_identifier` (or one identifier) alone, whose text is the
                    // node's; or `long_identifier . identifier`, whose last identifier is the
                    // node's own child (its second named child) and the others the prefix's.
                    let prefix_end = if children == 3 { segments[segments.len() - 2].1 } else { end };
                    let last = segments.len() - 1;
                    for (index, &(segment_start, segment_end)) in segments.iter().enumerate() {
                        let own_child = children == 3 && index == last;
                        let read = !in_pattern && (index > 0 || on_field_side);
                        let path = if own_child { text } else { &self.text[start..prefix_end] };
                        self.record_identifier((segment_start, segment_end), read.then_some(path));
                    }
                    true
                }
            }
            OpaqueKind::DottedName => {
                // A `long_identifier` below a `long_identifier_or_op` gives read candidates; the
                // walk handles those (it only gets here when the owner could not be read).
                if self.parent_kind(1) == "long_identifier_or_op" || !dotted_segments(text, start, &mut segments) {
                    false
                } else {
                    for &segment in &segments {
                        self.record_identifier(segment, None);
                    }
                    true
                }
            }
            OpaqueKind::TypeArgument => {
                // `choice("_", seq("'" | "^", identifier))` in the grammar.
                let plain = match text.as_bytes().first() {
                    Some(b'_') => text == "_",
                    Some(b'\'' | b'^') => dotted_segments(&text[1..], start + 1, &mut segments) && segments.len() == 1,
                    _ => false,
                };
                if plain {
                    for &segment in &segments {
                        self.record_identifier(segment, None);
                    }
                }
                plain
            }
            OpaqueKind::TypeName => {
                // A lone `_` (`List<_>`) is an anonymous token there, not an identifier.
                let plain = match text.as_bytes().first() {
                    _ if text == "_" => false,
                    Some(b'\'' | b'^') => dotted_segments(&text[1..], start + 1, &mut segments) && segments.len() == 1,
                    _ => dotted_segments(text, start, &mut segments),
                };
                if plain {
                    for &segment in &segments {
                        self.record_identifier(segment, None);
                    }
                }
                plain
            }
        };
        self.segments = segments;
        handled
    }

    /// One identifier occurrence at `bytes`; with `read_path`, also a read candidate (as
    /// `on_identifier` does for an identifier leaf).
    fn record_identifier(&mut self, (start, end): (usize, usize), read_path: Option<&'text str>) {
        let text = &self.text[start..end];
        if self.error_depth == 0 && is_declaration_keyword(text) {
            self.on_keyword_as_identifier((start, end));
        }
        let id = self.names.intern(text);
        self.occurrences.push((id, self.lines.position(start)));
        if !self.claimed_identifiers.is_empty() && self.claimed_identifiers.contains(&start) {
            return;
        }
        if let Some(path) = read_path {
            let path = compact_path(path);
            self.add_site_at(FieldSiteKind::Read, text, &path, (start, end), Uncertainty::NeedsResolution);
        }
    }

    fn on_infix_op(&mut self, node: Node<'tree>) {
        let text = self.node_text(node);
        let indicator = match text.trim() {
            "->" => MisparseIndicator::InfixArrow,
            "|" => MisparseIndicator::InfixBar,
            "<-" => MisparseIndicator::InfixAssign,
            operator => {
                // A use of an operator, `x >>= f`: an occurrence of `(>>=)` (keywords that the
                // grammar also calls infix operators, `:>` and `:?>`, are no operator's name).
                if crate::syntax::names::is_operator(operator) && !matches!(operator, ":>" | ":?>" | ":?") {
                    let leading = text.len() - text.trim_start().len();
                    let id = self.names.intern(&crate::syntax::names::operator_display(operator));
                    self.occurrences.push((id, self.lines.position(node.start_byte() + leading)));
                }
                return;
            }
        };
        // The suspect region: for `->`/`|` the enclosing match/function (its later rules were
        // folded into the first rule's body); for `<-` the assignment expression itself.
        let region = if indicator == MisparseIndicator::InfixAssign {
            self.parent_frame(1).map(|frame| frame.node)
        } else {
            self.stack
                .iter()
                .rev()
                .find(|frame| matches!(frame.kind, "match_expression" | "function_expression" | "try_expression"))
                .or_else(|| self.parent_frame(1))
                .map(|frame| frame.node)
        };
        let region = region.unwrap_or(node);
        self.misparse_byte_regions.push((region.start_byte(), region.end_byte()));
        self.misparses.push(MisparseFinding {
            indicator,
            range: self.lines.node_range(node),
            region: self.lines.node_range(region),
        });
    }

    /// A declaration keyword the grammar read as an identifier (a keyword is never one unless
    /// written in double backticks, which the identifier's text would hold): a suspected
    /// misparse, its region's declarations uncertain. The grammar went astray where the
    /// expression that swallowed the keyword began, on its line or the code line before it
    /// (`inherit Base()` above `static member …`, a body's last line above `and private f`),
    /// and what it read after that, to the end of the module's or namespace's element around
    /// it, is suspect; what it read before is not.
    fn on_keyword_as_identifier(&mut self, (start, end): (usize, usize)) {
        // One finding per suspect stretch: a region reaches the end of its element, so a later
        // keyword inside one adds nothing.
        if self
            .misparse_byte_regions
            .iter()
            .any(|(region_start, region_end)| (*region_start..*region_end).contains(&start))
        {
            return;
        }
        let holds_elements = |kind: &str| matches!(kind, "file" | "namespace" | "named_module" | "module_defn");
        let (element_start, element_end) = (1..self.stack.len())
            .rev()
            .find(|index| holds_elements(self.stack[index - 1].kind))
            .map_or((start, end), |index| (self.stack[index].node.start_byte(), self.stack[index].node.end_byte()));
        let region_start = previous_code_line_start(self.text, start).max(element_start);
        let region_end = element_end.max(end);
        self.misparse_byte_regions.push((region_start, region_end));
        self.misparses.push(MisparseFinding {
            indicator: MisparseIndicator::KeywordAsIdentifier,
            range: self.lines.range(start, end),
            region: self.lines.range(region_start, region_end),
        });
    }

    fn on_application(&mut self, node: Node<'tree>) {
        // A list argument starts with `[`; without one in range there is nothing to find. (In a
        // tree with errors a list may lack its bracket, so look anyway.)
        if !self.tree_has_error && !any_within(&self.brackets, node.start_byte(), node.end_byte()) {
            return;
        }
        let (Some(callee), Some(argument)) = (node.named_child(0), node.named_child(1)) else {
            return;
        };
        // `x[0]` gives the list directly; `x.Items[0].Name` gives a dot_expression whose
        // leftmost part is the list (notes §5 B.3).
        let mut leftmost = argument;
        for _ in 0..4 {
            if self.kinds.kind(leftmost) == "list_expression" {
                break;
            }
            match leftmost.named_child(0) {
                Some(child) if child.start_byte() == leftmost.start_byte() => leftmost = child,
                _ => break,
            }
        }
        if self.kinds.kind(leftmost) == "list_expression" && argument.start_byte() == callee.end_byte() {
            let argument = leftmost;
            self.misparse_byte_regions.push((node.start_byte(), node.end_byte()));
            self.misparses.push(MisparseFinding {
                indicator: MisparseIndicator::AdjacentListApplication,
                range: self.lines.node_range(argument),
                region: self.lines.node_range(node),
            });
        }
    }

    fn on_field_initializer(&mut self, node: Node<'tree>) {
        let Some(label) = child_by_field(node, self.kinds.fields.field) else {
            return;
        };
        // field_initializer < field_initializers < brace/anon_record (construction) or
        // < with_field_expression (copy-and-update).
        let container = self.parent_kind(2);
        match container {
            "with_field_expression" => {
                self.add_label_sites(label, FieldSiteKind::CopyUpdate, Uncertainty::None, true);
            }
            "brace_expression" | "anon_record_expression" => {
                self.add_label_sites(label, FieldSiteKind::Construction, Uncertainty::None, false);
            }
            _ => {
                // An object-expression or other container: still a construction-like label,
                // but not one syntax can vouch for.
                self.add_label_sites(label, FieldSiteKind::Construction, Uncertainty::NeedsResolution, false);
            }
        }
    }

    /// Adds a site for the last identifier of `label` and, for nested copy-and-update paths,
    /// an uncertain site for each leading segment.
    fn add_label_sites(&mut self, label: Node<'tree>, kind: FieldSiteKind, uncertainty: Uncertainty, nested: bool) {
        // The usual label is a plain `long_identifier` (`X`, `Inner.Depth`): its identifiers are
        // its dotted segments, read from the text without walking the label.
        let text = self.node_text(label);
        let mut spans = std::mem::take(&mut self.segments);
        spans.clear();
        let plain = self.kinds.kind(label) == "long_identifier"
            && (!self.tree_has_error || !label.has_error())
            && dotted_segments(text, label.start_byte(), &mut spans);
        if plain && let Some(&last) = spans.last() {
            let path = compact_path(text);
            if nested {
                for &(start, end) in &spans[..spans.len() - 1] {
                    self.add_site_at(
                        kind,
                        &self.text[start..end],
                        &path,
                        (start, end),
                        Uncertainty::QualifierOrNestedPath,
                    );
                }
            }
            self.add_site_at(kind, &self.text[last.0..last.1], &path, last, uncertainty);
            self.segments = spans;
            return;
        }
        self.segments = spans;
        let segments = identifier_segments(self.kinds, label);
        let Some(last) = segments.last().copied() else {
            return;
        };
        let path = compact_path(self.node_text(label));
        if nested {
            for segment in &segments[..segments.len() - 1] {
                let name = self.node_text(*segment);
                self.add_site(kind, name, &path, *segment, Uncertainty::QualifierOrNestedPath);
            }
        }
        let name = self.node_text(last);
        self.add_site(kind, name, &path, last, uncertainty);
    }

    fn on_mutation(&mut self, node: Node<'tree>) {
        let Some(assignee) = child_by_field(node, self.kinds.fields.assignee) else {
            return;
        };
        let target = match self.kinds.kind(assignee) {
            "long_identifier_or_op" | "dot_expression" => last_identifier(self.kinds, assignee),
            _ => None, // `r.Arr.[0] <- 1` mutates an element, not the field.
        };
        let Some(target) = target else {
            return;
        };
        let single = self.kinds.kind(assignee) == "long_identifier_or_op"
            && identifier_segments(self.kinds, assignee).len() == 1;
        let uncertainty = if single { Uncertainty::MayBeLocalVariable } else { Uncertainty::None };
        let path = compact_path(self.node_text(assignee));
        let name = self.node_text(target);
        self.claimed_identifiers.insert(target.start_byte());
        self.add_site(FieldSiteKind::SetMutation, name, &path, target, uncertainty);
    }

    fn add_site(&mut self, kind: FieldSiteKind, name: &str, path: &str, node: Node, uncertainty: Uncertainty) {
        self.add_site_at(kind, name, path, (node.start_byte(), node.end_byte()), uncertainty);
    }

    fn add_site_at(
        &mut self,
        kind: FieldSiteKind,
        name: &str,
        path: &str,
        (start, end): (usize, usize),
        uncertainty: Uncertainty,
    ) {
        let field = self.names.intern(name);
        let path = self.names.intern(path);
        self.field_site_bytes.push(start);
        let range = self.lines.range(start, end);
        let length = if range.end.line == range.start.line {
            range.end.character.saturating_sub(range.start.character).min(u32::from(u16::MAX)) as u16
        } else {
            0
        };
        self.field_sites.push(FieldSite { kind, uncertainty, length, field, path, start: range.start });
    }

    /// The access of the declaration being built is that of `holder`'s first
    /// `access_modifier` child. The walk visits that child right after the declaration is
    /// pushed and fills it in then; until then it is `Default`.
    fn deferred_access(&self, holder: Node) -> Access {
        self.pending_access_holder.set(Some(holder.id()));
        Access::Default
    }

    /// `let rec f … and g … and private h …`: one definition node whose bindings after the first
    /// are declarations too, siblings of the first (same parent, each with its own access).
    fn add_and_bindings(&mut self, node: Node<'tree>, parent: u32) {
        let children = direct_children(node);
        let mut lefts = children
            .iter()
            .enumerate()
            .filter(|(_, child)| {
                matches!(self.kinds.kind(**child), "function_declaration_left" | "value_declaration_left")
            })
            .skip(1)
            .peekable();
        if lefts.peek().is_none() {
            return;
        }
        let lefts: Vec<(usize, Node<'tree>)> = lefts.map(|(position, child)| (position, *child)).collect();
        for (position, left) in lefts {
            let Some(name_node) = first_name_skipping_access(self.kinds, left) else { continue };
            // The binding's body: the first expression after its `=`.
            let body = children[position + 1..]
                .iter()
                .enumerate()
                .find(|(offset, _)| node.field_name_for_child((position + 1 + offset) as u32) == Some("body"))
                .map(|(_, body)| *body);
            let header_end = body.map_or(left.end_byte(), |body| body.start_byte());
            let end = body.map_or(left.end_byte(), |body| body.end_byte());
            let Some((name, (name_start, name_end))) = self.declared_name(name_node) else { continue };
            let index = self.declarations.len();
            self.access_holders.insert(left.id(), index);
            self.declaration_bytes.push((left.start_byte(), end));
            self.declarations.push(Declaration {
                kind: DeclarationKind::Let,
                access: Access::Default,
                name: self.names.intern(&name),
                parent,
                range: self.lines.range(left.start_byte(), end),
                name_start: self.lines.position(name_start),
                name_length: crate::syntax::model::single_line_length(self.lines.range(name_start, name_end)),
                header_bytes: (left.start_byte() as u32, header_end.max(left.start_byte()) as u32),
                certain: true,
            });
        }
    }

    fn declaration_for(&mut self, node: Node<'tree>, kind: &str) -> Option<Declaration> {
        let parent = self.declaration_stack.last().copied().unwrap_or(NO_PARENT);
        let (declaration_kind, name_node, access, header_end): (DeclarationKind, Node, Access, usize) = match kind {
            "namespace" => {
                let name = child_by_field(node, self.kinds.fields.name)?;
                (DeclarationKind::Namespace, name, Access::Default, name.end_byte())
            }
            "named_module" => {
                let name = child_by_field(node, self.kinds.fields.name)?;
                (DeclarationKind::Module, name, self.deferred_access(node), name.end_byte())
            }
            "module_defn" => {
                let name = child_of_kind(self.kinds, node, "identifier")?;
                (DeclarationKind::Module, name, self.deferred_access(node), name.end_byte())
            }
            "record_type_defn"
            | "union_type_defn"
            | "anon_type_defn"
            | "interface_type_defn"
            | "enum_type_defn"
            | "delegate_type_defn"
            | "type_abbrev_defn"
            | "type_extension"
            | "type_declaration" => {
                let type_name = child_of_kind(self.kinds, node, "type_name")?;
                let name = child_by_field(type_name, self.kinds.fields.type_name)?;
                let mut header_end = type_name.end_byte();
                if let Some(arguments) = child_of_kind(self.kinds, node, "primary_constr_args") {
                    header_end = arguments.end_byte();
                }
                let declaration_kind = match kind {
                    "record_type_defn" => DeclarationKind::Record,
                    "union_type_defn" => DeclarationKind::Union,
                    "interface_type_defn" => DeclarationKind::Interface,
                    "enum_type_defn" => DeclarationKind::Enum,
                    "delegate_type_defn" => DeclarationKind::Delegate,
                    "type_abbrev_defn" => DeclarationKind::Abbreviation,
                    "type_extension" => DeclarationKind::TypeExtension,
                    // `[<Measure>] type km`, a signature's abstract `type T`: no `=`, no
                    // representation written here.
                    "type_declaration" => DeclarationKind::OpaqueType,
                    _ if looks_like_interface(self.kinds, node) => DeclarationKind::Interface,
                    _ => DeclarationKind::Class,
                };
                (declaration_kind, name, self.deferred_access(type_name), header_end)
            }
            "exception_definition" => {
                let name = child_by_field(node, self.kinds.fields.exception_name)?;
                (DeclarationKind::Exception, name, Access::Default, node.end_byte())
            }
            "record_field" => {
                let name = child_of_kind(self.kinds, node, "identifier")?;
                (DeclarationKind::RecordField, name, self.representation_access(), node.end_byte())
            }
            "union_type_case" => {
                let name = child_of_kind(self.kinds, node, "identifier")?;
                (DeclarationKind::UnionCase, name, self.representation_access(), node.end_byte())
            }
            "union_type_field" => {
                let name = child_of_kind(self.kinds, node, "identifier")?;
                (DeclarationKind::UnionField, name, Access::Default, node.end_byte())
            }
            "enum_type_case" => {
                let name = child_of_kind(self.kinds, node, "identifier")?;
                (DeclarationKind::EnumCase, name, Access::Default, node.end_byte())
            }
            // A member of an object expression `{ new IShape with member _.Area = … }`
            // implements the interface for that one object: it is no member of the type or
            // module the expression sits in.
            "member_defn" if self.stack.iter().any(|frame| frame.kind == "object_expression") => return None,
            "member_defn" => self.member_declaration(node)?,
            "function_or_value_defn" => {
                let container = self.parent_kind(1);
                // A `#if` / `#else` branch between a module's declarations (at any column: a
                // library style puts the directives at column 0 inside an indented module)
                // holds declarations of that module: the compiler sees them in one branch.
                let mut level = 2;
                while matches!(self.parent_kind(level), "preproc_if" | "preproc_else") {
                    level += 1;
                }
                let module_level = (container == "declaration_expression"
                    && matches!(
                        self.parent_kind(level),
                        "file" | "namespace" | "named_module" | "module_defn" | "ERROR"
                    ))
                    || container == "type_extension_elements";
                if !module_level {
                    return None;
                }
                let left = first_named_child_of_kinds(
                    self.kinds,
                    node,
                    &["function_declaration_left", "value_declaration_left"],
                )?;
                let name = first_name_skipping_access(self.kinds, left)?;
                let header_end =
                    child_by_field(node, self.kinds.fields.body).map_or(left.end_byte(), |body| body.start_byte());
                (DeclarationKind::Let, name, self.deferred_access(left), header_end)
            }
            "value_definition" => {
                let left = first_named_child_of_kinds(self.kinds, node, &["value_declaration_left"])?;
                let name = first_name_skipping_access(self.kinds, left)?;
                (DeclarationKind::Val, name, self.deferred_access(left), node.end_byte())
            }
            _ => return None,
        };
        let (name, (name_start, name_end)) = self.declared_name(name_node)?;
        Some(Declaration {
            kind: declaration_kind,
            access,
            name: self.names.intern(&name),
            parent,
            range: self.lines.node_range(node),
            name_start: self.lines.position(name_start),
            name_length: crate::syntax::model::single_line_length(self.lines.range(name_start, name_end)),
            header_bytes: (node.start_byte() as u32, header_end.max(node.start_byte()) as u32),
            certain: true,
        })
    }

    /// The stored name of a declaration's name node and the bytes its name range covers: an
    /// identifier as written (backticks included, as the compiler's ranges include them); an
    /// operator `(>>=)` in its display form, covering only the operator's characters; an active
    /// pattern `(|Even|Odd|)` likewise, covering `|Even|Odd|`. `None` for a modifier read as
    /// the name (`val inline f` inside an error region, where the grammar's tree goes wrong): no
    /// declaration is named by a keyword without backticks.
    fn declared_name(&self, name_node: Node) -> Option<(String, (usize, usize))> {
        let text = self.node_text(name_node);
        let (start, end) = (name_node.start_byte(), name_node.end_byte());
        match self.kinds.kind(name_node) {
            "op_identifier" | "active_pattern" => {
                let (core, core_start) = parenthesized_core(text, start);
                let stored = if self.kinds.kind(name_node) == "op_identifier" {
                    crate::syntax::names::operator_display(core)
                } else {
                    format!("({core})")
                };
                Some((stored, (core_start, core_start + core.len())))
            }
            _ => {
                let trimmed = text.trim();
                let leading = text.len() - text.trim_start().len();
                let range = (start + leading, (start + leading + trimmed.len()).min(end));
                (!is_modifier_keyword(trimmed)).then(|| (trimmed.to_owned(), range))
            }
        }
    }

    /// An operator name `(>>=)` (an `op_identifier` leaf, in a definition or an expression):
    /// one occurrence of `(>>=)` at the operator's first character.
    fn on_operator_name(&mut self, node: Node<'tree>) {
        let (core, core_start) = parenthesized_core(self.node_text(node), node.start_byte());
        if !crate::syntax::names::is_operator(core) {
            return;
        }
        let id = self.names.intern(&crate::syntax::names::operator_display(core));
        self.occurrences.push((id, self.lines.position(core_start)));
    }

    /// `type T = private { … }` / `private | A | B`: the representation's access applies to
    /// its fields and cases.
    fn representation_access(&self) -> Access {
        let Some(frame) =
            self.stack.iter().rev().find(|frame| matches!(frame.kind, "record_type_defn" | "union_type_defn"))
        else {
            return Access::Default;
        };
        // Its modifier comes before its fields and cases, so the walk has met it already.
        self.representation_accesses.get(&frame.node.id()).copied().unwrap_or(Access::Default)
    }

    /// Whether the member being read sits in an `interface I with` block (nearer than any
    /// type definition above it).
    fn in_interface_implementation(&self) -> bool {
        for frame in self.stack.iter().rev() {
            match frame.kind {
                "interface_implementation" => return true,
                "type_definition" | "type_extension" | "object_expression" => return false,
                kind if kind.ends_with("_type_defn") => return false,
                _ => {}
            }
        }
        false
    }

    fn member_declaration(&self, node: Node<'tree>) -> Option<(DeclarationKind, Node<'tree>, Access, usize)> {
        let children = direct_children(node);
        let has_token =
            |token: &str| children.iter().any(|child| !child.is_named() && self.kinds.kind(*child) == token);
        let access = self.deferred_access(node);
        if let Some(method) = children.iter().find(|child| self.kinds.kind(**child) == "method_or_prop_defn") {
            let name_holder = child_by_field(*method, self.kinds.fields.name)?;
            // `static member (<<<)(…)` names its member with an operator: the holder's
            // `op_identifier`, stored as `(<<<)` like a `let` operator.
            let name = child_by_field(name_holder, self.kinds.fields.method)
                .or_else(|| last_identifier(self.kinds, name_holder))
                .or_else(|| child_of_kind(self.kinds, name_holder, "op_identifier"))?;
            // A member of `interface I with` implements I's slot as an override does: the
            // compiler resolves its name to the slot (calls reach it only through I).
            let kind = if has_token("override") || has_token("default") || self.in_interface_implementation() {
                DeclarationKind::Override
            } else {
                DeclarationKind::Member
            };
            // The header runs up to the body: the last named child that is neither name nor args.
            let mut header_end = method.end_byte();
            let mut cursor = method.walk();
            for (index, child) in method.children(&mut cursor).enumerate() {
                let field = method.field_name_for_child(index as u32);
                if child.is_named() && field.is_none() && child.start_byte() > name_holder.start_byte() {
                    header_end = child.start_byte();
                }
            }
            return Some((kind, name, access, header_end));
        }
        if let Some(signature) = children.iter().find(|child| self.kinds.kind(**child) == "member_signature") {
            let name = first_named_child_of_kinds(self.kinds, *signature, &["identifier"])?;
            return Some((DeclarationKind::AbstractMember, name, access, node.end_byte()));
        }
        if let Some(constructor) = children.iter().find(|child| self.kinds.kind(**child) == "additional_constr_defn") {
            // `private new (x) = …`: the modifier is the constructor's child, not the member's,
            // and the header runs to the end of the argument pattern after `new`.
            let keyword = child_of_kind(self.kinds, *constructor, "new")?;
            let header_end = find_child(*constructor, |child| {
                child.is_named()
                    && child.start_byte() >= keyword.end_byte()
                    && self.kinds.kind(child) != "access_modifier"
            })
            .map_or(constructor.end_byte(), |arguments| arguments.end_byte());
            let access = self.deferred_access(*constructor);
            return Some((DeclarationKind::Constructor, keyword, access, header_end));
        }
        if has_token("val") {
            if let Some(property) = children.iter().find(|child| self.kinds.kind(**child) == "property_or_ident") {
                let name = last_identifier(self.kinds, *property)?;
                return Some((DeclarationKind::AutoProperty, name, access, property.end_byte()));
            }
            let name = children.iter().find(|child| self.kinds.kind(**child) == "identifier")?;
            return Some((DeclarationKind::Val, *name, access, node.end_byte()));
        }
        None
    }

    /// When the root node is ERROR the namespace/module wrapper is lost (notes §2); recover
    /// the header from the first `module`/`namespace` line so the outline still has one, and
    /// so the declarations the tree read below it (`module Seeds =` under `namespace
    /// Qualifiers.Trees`) are named inside it, as the compiler names them. Where a later
    /// unindented `namespace` line starts another one, the header holds what lies before it.
    fn add_fallback_header(&mut self) {
        let Some(header) = fallback_header(self.text) else {
            return;
        };
        let header_line = self.lines.position(header.line_start).line;
        // The tree (or an earlier recovery) read the header's line: nothing is lost.
        if self.declarations.iter().any(|declaration| {
            matches!(declaration.kind, DeclarationKind::Namespace | DeclarationKind::Module)
                && (declaration.range.start.line == header_line || declaration.name_start.line == header_line)
        }) {
            return;
        }
        // A file module (`module A.B`) the tree read elsewhere, or a namespace it read: a
        // top-level header it has already.
        if self
            .declarations
            .iter()
            .any(|declaration| declaration.parent == NO_PARENT && declaration.kind == DeclarationKind::Namespace)
        {
            return;
        }
        let next_namespace = self.text[header.line_end..]
            .match_indices("\nnamespace ")
            .next()
            .map_or(self.text.len(), |(at, _)| header.line_end + at + 1);
        let declaration = Declaration {
            kind: header.kind,
            access: header.access,
            name: self.names.intern(&header.name),
            parent: NO_PARENT,
            range: self.lines.range(header.line_start, next_namespace),
            name_start: self.lines.position(header.name_start),
            name_length: crate::syntax::model::single_line_length(
                self.lines.range(header.name_start, header.name_start + header.name.len()),
            ),
            header_bytes: (header.line_start as u32, header.line_end as u32),
            certain: false,
        };
        for (existing, (start, _)) in self.declarations.iter_mut().zip(&self.declaration_bytes) {
            existing.parent = match existing.parent {
                NO_PARENT if *start < next_namespace => 0,
                NO_PARENT => NO_PARENT,
                parent => parent + 1,
            };
        }
        self.declarations.insert(0, declaration);
        self.declaration_bytes.insert(0, (header.line_start, next_namespace));
    }

    /// Inside each error region the lines are read instead of the tree
    /// ([`crate::syntax::recover`]): in a signature file the grammar fails on member signatures
    /// and the error swallows every `val` after it; in an implementation file an error at the
    /// top (SRTP constraints, backticked type parameters) can swallow a whole module of `let`s
    /// and members. What a line declares is nested by indentation under the recovered module or
    /// type above it, or under the declaration that encloses the region; a line inside a
    /// recovered `let`'s or member's body is a local and never a declaration, and at the
    /// region's outer level no line right of its declarations' indentation counts. Everything
    /// recovered is uncertain; nothing is recovered where the tree has a declaration's name.
    fn recover_declarations_in_error_regions(&mut self) {
        use crate::syntax::recover::{LineContext, Opens, block_end, recovered_line};
        // The tree's own declarations by where their names start: a header the tree read (a
        // module whose `val`s parsed before an error inside it) is not recovered twice, but it
        // still holds the recovered lines indented under it.
        let known: HashMap<Position, u32> = self
            .declarations
            .iter()
            .enumerate()
            .map(|(slot, declaration)| (declaration.name_start, slot as u32))
            .collect();
        let mut regions = self.error_byte_regions.clone();
        regions.sort_unstable();
        let mut done_until = 0usize;
        for (region_start, region_end) in regions {
            let region_start = region_start.max(done_until);
            if region_start >= region_end {
                continue;
            }
            done_until = region_end;
            // Recovered declarations that hold the lines below them: (indent, index, opens).
            let mut open: Vec<(usize, u32, Opens)> = Vec::new();
            // The last recovered declaration at an indentation: (indent, kind).
            let mut previous: Option<(usize, DeclarationKind)> = None;
            let mut enclosing = self.enclosing_container(region_start);
            let mut outer_indent = self.children_indent(enclosing);
            let line_start = self.text[..region_start].rfind('\n').map_or(0, |newline| newline + 1);
            let mut offset = line_start;
            for line in self.text[line_start..region_end.min(self.text.len())].split_inclusive('\n') {
                let start = offset;
                offset += line.len();
                let content = line.trim_end();
                let trimmed = content.trim_start();
                if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with('#') {
                    continue;
                }
                let indent = content.len() - trimmed.len();
                // A `namespace` line the region swallowed holds what follows it.
                if indent == 0
                    && let Some(slot) = self.recover_namespace_line(trimmed, start, region_end, &known)
                {
                    (enclosing, outer_indent, previous) = (slot, None, None);
                    open.clear();
                    continue;
                }
                while open.last().is_some_and(|(open_indent, _, _)| *open_indent >= indent) {
                    open.pop();
                }
                if open.last().is_some_and(|(_, _, opens)| *opens == Opens::Body) {
                    continue;
                }
                if open.is_empty() && outer_indent.is_some_and(|outer| indent > outer) {
                    continue;
                }
                let inside_type = open.last().is_some_and(|(_, index, _)| {
                    !matches!(self.declarations[*index as usize].kind, DeclarationKind::Module)
                });
                let previous_sibling = previous.filter(|(at, _)| *at == indent).map(|(_, kind)| kind);
                let Some(recovered) = recovered_line(trimmed, LineContext { inside_type, previous_sibling }) else {
                    continue;
                };
                let name_start_byte = start + indent + recovered.name_offset;
                let name_start = self.lines.position(name_start_byte);
                if open.is_empty() {
                    outer_indent = Some(outer_indent.map_or(indent, |outer| outer.min(indent)));
                }
                previous = Some((indent, recovered.kind));
                if let Some(&slot) = known.get(&name_start) {
                    let tree_kind = self.declarations[slot as usize].kind;
                    let same_kind = tree_kind == recovered.kind || (tree_kind.is_type() && recovered.kind.is_type());
                    // A declaration the tree read inside the region but at the top, outside
                    // every container (the error lost them: a signature's `val`s after a
                    // `type T with` extension), belongs where the lines nest it, uncertain.
                    if same_kind && self.declarations[slot as usize].parent == NO_PARENT {
                        let parent = open
                            .last()
                            .map_or_else(|| self.offside_container(enclosing, indent), |(_, index, _)| *index);
                        if parent != NO_PARENT && parent != slot {
                            self.declarations[slot as usize].parent = parent;
                            self.declarations[slot as usize].certain = false;
                        }
                    }
                    if recovered.opens != Opens::Nothing && same_kind {
                        open.push((indent, slot, recovered.opens));
                    }
                    continue;
                }
                let parent =
                    open.last().map_or_else(|| self.offside_container(enclosing, indent), |(_, index, _)| *index);
                // A header with no indented lines after it ends with its own line.
                let line_end = start + content.len();
                let end_byte = match recovered.opens {
                    Opens::Nothing => line_end,
                    _ => Some(block_end(self.text, offset, indent, region_end))
                        .filter(|end| *end != offset.min(region_end))
                        .unwrap_or(line_end),
                };
                let name_end_byte = name_start_byte + recovered.name_length;
                let index = self.declarations.len() as u32;
                self.declarations.push(Declaration {
                    kind: recovered.kind,
                    access: recovered.access,
                    name: self.names.intern(&recovered.stored_name),
                    parent,
                    range: self.lines.range(start + indent, end_byte),
                    name_start,
                    name_length: crate::syntax::model::single_line_length(
                        self.lines.range(name_start_byte, name_end_byte),
                    ),
                    header_bytes: ((start + indent) as u32, (start + content.len()) as u32),
                    certain: false,
                });
                self.declaration_bytes.push((start + indent, end_byte));
                if recovered.opens != Opens::Nothing {
                    open.push((indent, index, recovered.opens));
                }
            }
        }
    }

    /// Each case of an active pattern `let (|Even|Odd|) n = …` is a declaration of its own, a
    /// sibling of the pattern (code names it `M.Even`), so a find or a read of `Even` resolves.
    /// A partial pattern's `_` is no case.
    fn add_active_pattern_cases(&mut self) {
        // (the pattern's slot, the case, the byte where the case's name starts)
        let mut cases = Vec::new();
        for (slot, (declaration, (start, end))) in self.declarations.iter().zip(&self.declaration_bytes).enumerate() {
            let name = &self.names.names[declaration.name.0 as usize];
            let Some(core) = name.strip_prefix("(|").and_then(|rest| rest.strip_suffix("|)")) else { continue };
            // The declaration's first `|A|B|` is its name: nothing but `let` and modifiers before it.
            let Some(core_at) = self.text.get(*start..*end).and_then(|text| text.find(&name[1..name.len() - 1])) else {
                continue;
            };
            let mut offset = start + core_at + 1;
            for case in core.split('|') {
                if !case.is_empty() && case != "_" {
                    cases.push((slot, case.to_owned(), offset));
                }
                offset += case.len() + 1;
            }
        }
        for (slot, case, case_start) in cases {
            let pattern = self.declarations[slot].clone();
            let bytes = self.declaration_bytes[slot];
            let name = self.names.intern(&case);
            self.declarations.push(Declaration {
                kind: DeclarationKind::ActivePatternCase,
                name,
                name_start: self.lines.position(case_start),
                name_length: crate::syntax::model::single_line_length(
                    self.lines.range(case_start, case_start + case.len()),
                ),
                ..pattern
            });
            self.declaration_bytes.push(bytes);
        }
    }

    /// The column of the declarations the tree found directly in `container` (the leftmost),
    /// if it found any.
    fn children_indent(&self, container: u32) -> Option<usize> {
        if container == NO_PARENT {
            return None;
        }
        self.declarations
            .iter()
            .filter(|declaration| declaration.parent == container)
            .map(|declaration| declaration.range.start.character as usize)
            .min()
    }

    /// The innermost namespace or module whose range holds `byte`; else the last top-level
    /// one that starts before it (an error after `module A.B` leaves the module's node short,
    /// but the whole file is the module's); else [`NO_PARENT`].
    /// The namespace a line at column 0 of an error region declares (`namespace Narrowing`,
    /// `namespace rec A.B`; not `namespace global`), recovered as a top-level declaration up
    /// to the region's end; its slot, or the tree's when the tree has a declaration there.
    fn recover_namespace_line(
        &mut self,
        line: &str,
        start: usize,
        region_end: usize,
        known: &HashMap<Position, u32>,
    ) -> Option<u32> {
        let rest = line.strip_prefix("namespace")?.strip_prefix([' ', '\t'])?.trim_start();
        let rest = rest.strip_prefix("rec ").map_or(rest, str::trim_start);
        let name = rest.split(|c: char| c.is_whitespace() || c == '/').next().filter(|name| {
            !name.is_empty()
                && *name != "global"
                && name.split('.').all(|segment| {
                    segment.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                        && segment.chars().all(crate::syntax::words::is_identifier_char)
                })
        })?;
        let name_start_byte = start + (line.len() - rest.len());
        let name_start = self.lines.position(name_start_byte);
        if let Some(&slot) = known.get(&name_start) {
            return Some(slot);
        }
        // Up to the region's last character, as the compiler's range of a namespace ends.
        let end_byte = start + self.text.get(start..region_end.min(self.text.len()))?.trim_end().len();
        self.declarations.push(Declaration {
            kind: DeclarationKind::Namespace,
            access: Access::Default,
            name: self.names.intern(name),
            parent: NO_PARENT,
            range: self.lines.range(start, end_byte),
            name_start,
            name_length: crate::syntax::model::single_line_length(
                self.lines.range(name_start_byte, name_start_byte + name.len()),
            ),
            header_bytes: (start as u32, (start + line.len()) as u32),
            certain: false,
        });
        self.declaration_bytes.push((start, end_byte));
        Some(self.declarations.len() as u32 - 1)
    }

    /// `container`, or the first container around it that a line at column `indent` can lie
    /// in by the offside rule: a nested module (`module M =`) or a type holds only lines
    /// indented right of its header, a namespace or a file's top-level module any line. An
    /// error region can stretch a module's range over what follows it (inline IL the grammar
    /// cannot read in `module private Conv =`, then `type Widener =` at column 0).
    fn offside_container(&self, mut container: u32, indent: usize) -> u32 {
        while let Some(declaration) = self.declarations.get(container as usize) {
            let nested = match declaration.kind {
                DeclarationKind::Namespace => false,
                DeclarationKind::Module => {
                    let header_end = declaration.header_bytes.1 as usize;
                    self.text.get(header_end..).is_some_and(|after| after.trim_start().starts_with('='))
                }
                _ => true,
            };
            if !nested || (declaration.range.start.character as usize) < indent {
                return container;
            }
            container = declaration.parent;
        }
        container
    }

    fn enclosing_container(&self, byte: usize) -> u32 {
        let is_container =
            |slot: usize| matches!(self.declarations[slot].kind, DeclarationKind::Namespace | DeclarationKind::Module);
        let holding = self
            .declaration_bytes
            .iter()
            .enumerate()
            .filter(|(slot, (start, end))| *start <= byte && byte < *end && is_container(*slot))
            .max_by_key(|(_, (start, _))| *start)
            .map(|(slot, _)| slot as u32);
        holding
            .or_else(|| {
                self.declaration_bytes
                    .iter()
                    .enumerate()
                    .filter(|(slot, (start, _))| {
                        *start <= byte && is_container(*slot) && self.declarations[*slot].parent == NO_PARENT
                    })
                    .max_by_key(|(_, (start, _))| *start)
                    .map(|(slot, _)| slot as u32)
            })
            .unwrap_or(NO_PARENT)
    }

    fn finish(
        self,
        grammar: GrammarKind,
        content_sha256: [u8; 32],
        root_is_error: bool,
        has_error: bool,
    ) -> LocalFileIndex {
        let Extractor {
            text,
            lines,
            names,
            mut declarations,
            declaration_bytes,
            mut field_sites,
            field_site_bytes,
            access_modifiers,
            occurrences,
            error_byte_regions,
            error_regions,
            misparse_byte_regions,
            misparses,
            ..
        } = self;
        adopt_by_module_lines(text, &mut declarations);
        let inside =
            |regions: &[(usize, usize)], byte: usize| regions.iter().any(|(start, end)| *start <= byte && byte < *end);
        for (site, byte) in field_sites.iter_mut().zip(field_site_bytes) {
            if inside(&error_byte_regions, byte) {
                site.uncertainty = Uncertainty::InsideErrorRegion;
            } else if inside(&misparse_byte_regions, byte) {
                site.uncertainty = Uncertainty::InsideSuspectedMisparse;
            }
        }
        for (declaration, (start, _)) in declarations.iter_mut().skip_while(|_| false).zip(declaration_bytes) {
            if declaration.certain && (inside(&error_byte_regions, start) || inside(&misparse_byte_regions, start)) {
                declaration.certain = false;
            }
        }
        if root_is_error {
            for declaration in &mut declarations {
                declaration.certain = false;
            }
        }
        let degraded = has_error || root_is_error || !error_regions.is_empty() || !misparses.is_empty();
        let health = FileHealth {
            status: if degraded { HealthStatus::Degraded } else { HealthStatus::Clean },
            root_is_error,
            error_regions,
            misparses,
            detail: None,
        };
        declarations.shrink_to_fit();
        field_sites.shrink_to_fit();
        let mut access_modifiers = access_modifiers;
        access_modifiers.shrink_to_fit();
        LocalFileIndex {
            format_version: INDEX_FORMAT_VERSION,
            names: names.names,
            index: FileIndex {
                grammar,
                content_sha256,
                bytes: text.len() as u32,
                lines: lines.line_count(),
                health,
                generated_header: has_generated_header(text),
                declarations,
                field_sites,
                access_modifiers,
                occurrences: OccurrencePostings::build(occurrences),
                conditionals: crate::syntax::conditionals::scan(text),
            },
        }
    }
}

/// Whether the start of a file says it was generated by a tool.
pub fn has_generated_header(text: &str) -> bool {
    let head: String = text.lines().take(8).collect::<Vec<_>>().join("\n").to_ascii_lowercase();
    head.contains("<auto-generated") || head.contains("auto-generated") || head.contains("autogenerated")
}

/// The named node kinds `enter` and `declaration_for` act on.
const INTERESTING_KINDS: &[&str] = &[
    "identifier",
    "access_modifier",
    "infix_op",
    "op_identifier",
    "application_expression",
    "field_initializer",
    "field_pattern",
    "named_field",
    "mutate_expression",
    "namespace",
    "named_module",
    "module_defn",
    "record_type_defn",
    "union_type_defn",
    "anon_type_defn",
    "interface_type_defn",
    "enum_type_defn",
    "delegate_type_defn",
    "type_abbrev_defn",
    "type_extension",
    "type_declaration",
    "exception_definition",
    "record_field",
    "union_type_case",
    "union_type_field",
    "enum_type_case",
    "member_defn",
    "function_or_value_defn",
    "value_definition",
];

/// Node kinds whose subtree holds nothing the index wants except identifiers, so `enter` can
/// read them from the node's text instead of walking their leaves (each cursor step costs
/// hundreds of instructions in this grammar's deeply hidden trees). Per node-types.json their
/// only named descendants are identifiers (or, for constants, nothing unless an interpolated
/// string's `{…}` hole holds an expression).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpaqueKind {
    /// `long_identifier_or_op`: identifiers are read candidates.
    DottedNameOrOperator,
    /// `long_identifier` (outside a `long_identifier_or_op`): occurrences only.
    DottedName,
    /// `simple_type`, `property_or_ident`: occurrences only.
    TypeName,
    /// `type_argument`: `'T` or `^T` (an occurrence of `T`), or `_` (an anonymous token).
    TypeArgument,
    /// `const`: nothing at all, unless it holds `{`.
    Constant,
}

impl OpaqueKind {
    fn for_name(name: &str) -> Option<OpaqueKind> {
        match name {
            "long_identifier_or_op" => Some(OpaqueKind::DottedNameOrOperator),
            "long_identifier" => Some(OpaqueKind::DottedName),
            "simple_type" | "property_or_ident" => Some(OpaqueKind::TypeName),
            "type_argument" => Some(OpaqueKind::TypeArgument),
            "const" => Some(OpaqueKind::Constant),
            _ => None,
        }
    }
}

/// Keywords that modify a declaration (`val inline f`, `let mutable x`, `member private _.M`)
/// and never name one.
fn is_modifier_keyword(name: &str) -> bool {
    matches!(
        name,
        "inline"
            | "mutable"
            | "rec"
            | "private"
            | "internal"
            | "public"
            | "static"
            | "abstract"
            | "override"
            | "default"
            | "member"
            | "val"
            | "let"
            | "type"
            | "module"
            | "namespace"
            | "extern"
    )
}

/// Splits `text` (starting at byte `offset` of the file) into identifiers separated by dots,
/// `A.b . C`, appending their byte spans. False for anything else — other characters,
/// comments, backticks, non-ASCII, an empty segment — so the caller walks the tree instead.
fn dotted_segments(text: &str, offset: usize, segments: &mut Vec<(usize, usize)>) -> bool {
    let bytes = text.as_bytes();
    let mut index = 0;
    let mut expect_identifier = true;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b' ' || byte == b'\n' || byte == b'\r' || byte == b'\t' {
            index += 1;
        } else if expect_identifier && (byte.is_ascii_alphabetic() || byte == b'_') {
            let start = index;
            while index < bytes.len()
                && (bytes[index].is_ascii() && crate::syntax::words::is_identifier_byte(bytes[index]))
            {
                index += 1;
            }
            segments.push((offset + start, offset + index));
            expect_identifier = false;
        } else if !expect_identifier && byte == b'.' {
            index += 1;
            expect_identifier = true;
        } else {
            return false;
        }
    }
    !expect_identifier
}

fn direct_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// The first direct child of `node` for which `wanted` holds, without collecting children.
fn find_child<'tree>(node: Node<'tree>, mut wanted: impl FnMut(Node<'tree>) -> bool) -> Option<Node<'tree>> {
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return None;
    }
    loop {
        let child = cursor.node();
        if wanted(child) {
            return Some(child);
        }
        if !cursor.goto_next_sibling() {
            return None;
        }
    }
}

/// The first direct child of `node` of kind `kind`.
fn child_of_kind<'tree>(kinds: &KindTable, node: Node<'tree>, kind: &str) -> Option<Node<'tree>> {
    find_child(node, |child| kinds.kind(child) == kind)
}

fn first_named_child(node: Node) -> Option<Node> {
    node.named_child(0)
}

fn first_named_child_of_kinds<'tree>(kinds: &KindTable, node: Node<'tree>, wanted: &[&str]) -> Option<Node<'tree>> {
    find_child(node, |child| wanted.contains(&kinds.kind(child)))
}

/// `(>>=)` or `( *** )` (starting at byte `start`): the text inside the parentheses without
/// the spaces around it, and the byte where it starts.
fn parenthesized_core(text: &str, start: usize) -> (&str, usize) {
    let inner_start = usize::from(text.starts_with('('));
    let inner_end = if text.ends_with(')') && text.len() > inner_start { text.len() - 1 } else { text.len() };
    let inner = &text[inner_start..inner_end];
    let leading = inner.len() - inner.trim_start().len();
    (inner.trim(), start + inner_start + leading)
}

/// The first declared name below `node`, depth-first, skipping access modifiers and types:
/// an identifier, an operator name `(>>=)` or an active pattern `(|Even|Odd|)`.
fn first_name_skipping_access<'tree>(kinds: &KindTable, node: Node<'tree>) -> Option<Node<'tree>> {
    // A cursor rooted at `node` never leaves its subtree; children are looked at lazily, so the
    // usual `f` in `let f x = …` costs one step.
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        let kind = kinds.kind(current);
        if matches!(kind, "identifier" | "op_identifier" | "active_pattern") {
            return Some(current);
        }
        let skip = matches!(kind, "access_modifier" | "simple_type" | "generic_type" | "attributes" | "const");
        if !skip && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// The identifiers of a dotted name (`long_identifier`, `long_identifier_or_op` or a
/// `dot_expression` chain), flattened in text order.
fn identifier_segments<'tree>(kinds: &KindTable, node: Node<'tree>) -> Vec<Node<'tree>> {
    let mut segments = Vec::new();
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        match kinds.kind(current) {
            "identifier" => segments.push(current),
            "long_identifier" | "long_identifier_or_op" | "dot_expression" | "property_or_ident" => {
                let before = stack.len();
                let mut cursor = current.walk();
                stack.extend(current.children(&mut cursor));
                stack[before..].reverse();
            }
            _ => {}
        }
    }
    segments
}

fn last_identifier<'tree>(kinds: &KindTable, node: Node<'tree>) -> Option<Node<'tree>> {
    if kinds.kind(node) == "dot_expression" {
        return child_by_field(node, kinds.fields.field).and_then(|field| last_identifier(kinds, field));
    }
    identifier_segments(kinds, node).last().copied()
}

/// An `anon_type_defn` with no primary constructor whose members are all abstract.
fn looks_like_interface(kinds: &KindTable, node: Node) -> bool {
    let children = direct_children(node);
    if children.iter().any(|child| kinds.kind(*child) == "primary_constr_args") {
        return false;
    }
    let mut members = 0;
    for elements in children.iter().filter(|child| kinds.kind(**child) == "type_extension_elements") {
        for member in direct_children(*elements) {
            let kind = kinds.kind(member);
            if kind == "interface_implementation" || kind == "function_or_value_defn" {
                return false;
            }
            if kind == "member_defn" {
                members += 1;
                let abstract_member = child_of_kind(kinds, member, "abstract").is_some();
                if !abstract_member {
                    return false;
                }
            }
        }
    }
    members > 0
}

/// `a . B` → `a.B`: a dotted path without whitespace, bounded in length.
fn compact_path(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.bytes().any(|byte| byte.is_ascii_whitespace()) && text.len() <= 120 {
        return std::borrow::Cow::Borrowed(text);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut path = words.join(" ").replace(" .", ".").replace(". ", ".");
    if path.len() > 120 {
        let mut cut = 120;
        while !path.is_char_boundary(cut) {
            cut -= 1;
        }
        path.truncate(cut);
    }
    std::borrow::Cow::Owned(path)
}

/// Renders a declaration's header from the file text: whitespace collapsed, the trailing `=`
/// removed, at most `max_chars` characters.
pub fn render_signature(text: &str, header_bytes: (u32, u32), max_chars: usize) -> String {
    let (start, end) = (header_bytes.0 as usize, header_bytes.1 as usize);
    let raw = text.get(start.min(text.len())..end.min(text.len())).unwrap_or("");
    let mut collapsed = String::with_capacity(raw.len());
    let mut in_line_comment = false;
    let mut previous = ' ';
    for (index, character) in raw.char_indices() {
        if in_line_comment {
            if character == '\n' {
                in_line_comment = false;
            } else {
                continue;
            }
        }
        if character == '/' && raw[index..].starts_with("//") {
            in_line_comment = true;
            continue;
        }
        let character = if character.is_whitespace() { ' ' } else { character };
        if character == ' ' && previous == ' ' {
            continue;
        }
        collapsed.push(character);
        previous = character;
    }
    let trimmed = collapsed.trim().trim_end_matches('=').trim_end();
    if trimmed.chars().count() > max_chars {
        let mut shortened: String = trimmed.chars().take(max_chars).collect();
        shortened.push('…');
        shortened
    } else {
        trimmed.to_owned()
    }
}

/// A `module`/`namespace` header recovered from the text.
#[derive(Debug, PartialEq, Eq)]
pub struct FallbackHeader {
    pub kind: DeclarationKind,
    pub access: Access,
    pub name: String,
    pub line_start: usize,
    pub line_end: usize,
    pub name_start: usize,
}

/// The first unindented `module X` / `namespace X` line that is not a nested module
/// (`module X =`), if any.
pub fn fallback_header(text: &str) -> Option<FallbackHeader> {
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        let (kind, rest) = if let Some(rest) = line.strip_prefix("namespace ") {
            (DeclarationKind::Namespace, rest)
        } else if let Some(rest) = line.strip_prefix("module ") {
            (DeclarationKind::Module, rest)
        } else {
            continue;
        };
        let keyword_length = line.len() - rest.len();
        let rest = rest.split("//").next().unwrap_or("");
        if rest.contains('=') {
            continue;
        }
        let words: Vec<&str> = rest.split_whitespace().collect();
        let access = words.iter().map(|word| Access::from_keyword(word)).find(|access| *access != Access::Default);
        let name =
            words.iter().rev().find(|word| !matches!(**word, "private" | "internal" | "public" | "rec" | "global"))?;
        let name_offset = keyword_length + rest.rfind(name).unwrap_or(0);
        return Some(FallbackHeader {
            kind,
            access: access.unwrap_or(Access::Default),
            name: (*name).to_owned(),
            line_start,
            line_end: line_start + line.trim_end().len(),
            name_start: line_start + name_offset.min(line.len()),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_header_reads_the_first_top_level_header() {
        let text = "// c\nmodule internal rec Acme.Broken // x\nlet a = 1\n";
        let header = fallback_header(text).expect("header");
        assert_eq!(header.kind, DeclarationKind::Module);
        assert_eq!(header.access, Access::Internal);
        assert_eq!(header.name, "Acme.Broken");
        assert_eq!(header.line_start, 5);
        assert_eq!(&text[header.name_start..header.name_start + 11], "Acme.Broken");
        assert!(fallback_header("module Nested =\n    let a = 1\n").is_none());
        assert_eq!(fallback_header("namespace global\n").map(|header| header.name), None);
        assert_eq!(fallback_header("namespace A.B\n").map(|header| header.kind), Some(DeclarationKind::Namespace));
    }

    #[test]
    fn utf16_positions() {
        let lines = LineIndex::new("ab\nh\u{e9}\u{1d11e}x\n");
        assert_eq!(lines.position(3 + 1 + 2 + 4), Position { line: 1, character: 4 });
        assert_eq!(lines.position(100), Position { line: 2, character: 0 });
        assert_eq!(lines.line_count(), 2);
    }
}
