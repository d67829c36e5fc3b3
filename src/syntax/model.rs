//! The data the syntax layer keeps per file: declarations, field-site candidates, access
//! modifier spans, identifier occurrences and parse health.
//!
//! Everything here is small and owned: no tree-sitter trees survive indexing. Names are
//! [`NameId`]s. A freshly extracted [`LocalFileIndex`] numbers them against its own string
//! table (the same shape the on-disk cache stores); [`LocalFileIndex::into_global`] re-numbers
//! them against the workspace-wide [`Interner`], so each distinct name is stored once.
//! Ranges are 0-based lines and UTF-16 code-unit characters, as LSP counts them.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};

/// A small, fast, non-cryptographic string hasher (the Fx hash rustc uses) for the name
/// tables, which hash every identifier of every file. SipHash's flooding resistance buys
/// nothing here: the keys are the workspace's own identifiers.
#[derive(Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` using [`FastHasher`].
pub type FastHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// The version of the index format; part of every cache key, so a change here invalidates old
/// cache entries instead of misreading them (3: a `private new` constructor has its access and
/// its whole header; 4: operators are named `(>>=)` and their uses are occurrences; 5: a
/// signature file's declarations inside error regions are read from its lines; 6: whether the
/// file's head says it was generated; 7: an implementation file's declarations inside error
/// regions are read from its lines too; 8: each case of an active pattern is a declaration;
/// 9: `let`s inside a module's `#if`/`#else` branches and operator members `static member (+)`
/// are declarations; 10: in an error region, `type X internal () =` is a type's line and
/// `exception X of …` an exception's; 11: an object expression's members are no declarations;
/// 12: every `#if`/`#else` branch of the file, with its condition; 13: a member of
/// `interface I with` is an `override` of I's slot; 14: every binding of `let rec … and …` is a
/// declaration; 15: in an error region, `type A.B with` is a type extension's line, and a
/// header the tree read holds the lines recovered under it; 16: where the root is an error, the
/// first `namespace`/`module` line holds the top-level declarations read below it; 17: inline IL
/// `(# … #)` is parsed as the expression `syntax::inline_il` makes of it, so the containers
/// after it are read; 18: in an error region, a line at or left of a nested module's or a
/// type's column is no declaration of it, and a `namespace` line starts a namespace; 19: a type
/// declared without `=`, `[<Measure>] type km` or a signature's abstract `type T`, is a
/// declaration of kind `type`; 20: a file the grammar fails on is parsed again with its `#if`
/// directive lines blanked, and the tree with fewer errors read; 21: in an error region, a
/// declaration the tree read at the top is nested where the lines nest it, and no declaration
/// is named by a modifier keyword such as `inline`; 22: a file the grammar fails on is also
/// parsed with its trailing line comments read as block comments, `syntax::trailing_comments`;
/// 23: that reading is tried after the directive lines are blanked, on the better text, never
/// instead of it; 24: no trailing comment rewritten where a new delimiter meets a parenthesis,
/// nor one after the byte order mark; a declaration keyword read as an identifier is a
/// suspected misparse; 25: a top-level module line the grammar closed on its own line, in an
/// `#if` branch, holds the declarations after it).
pub const INDEX_FORMAT_VERSION: u32 = 25;

/// An interned name: an index into a string table (file-local or workspace-wide).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NameId(pub u32);

/// A 0-based line and UTF-16 character offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// A half-open range of positions. Serialized compactly as `[startLine, startChar, endLine, endChar]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextRange {
    pub start: Position,
    pub end: Position,
}

impl TextRange {
    pub fn to_array(self) -> [u32; 4] {
        [self.start.line, self.start.character, self.end.line, self.end.character]
    }

    pub fn from_array(values: [u32; 4]) -> Self {
        TextRange {
            start: Position { line: values[0], character: values[1] },
            end: Position { line: values[2], character: values[3] },
        }
    }

    /// `1:4-1:9` style, 0-based, for snapshots and plain-text output.
    pub fn display_compact(&self) -> String {
        format!("{}:{}-{}:{}", self.start.line, self.start.character, self.end.line, self.end.character)
    }

    /// The LSP-shaped JSON object `{start:{line,character}, end:{…}}`.
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "start": { "line": self.start.line, "character": self.start.character },
            "end": { "line": self.end.line, "character": self.end.character },
        })
    }
}

impl Serialize for TextRange {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_array().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TextRange {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(TextRange::from_array(<[u32; 4]>::deserialize(deserializer)?))
    }
}

/// Which tree-sitter-fsharp grammar a file is parsed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GrammarKind {
    /// `.fs` and `.fsx`.
    Implementation,
    /// `.fsi`.
    Signature,
}

impl GrammarKind {
    /// The grammar for a path, or `None` when the extension is not an F# source extension.
    pub fn for_path(path: &std::path::Path) -> Option<GrammarKind> {
        if !crate::workspace::paths::is_fsharp_source(path) {
            return None;
        }
        let signature = path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("fsi"));
        Some(if signature { GrammarKind::Signature } else { GrammarKind::Implementation })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GrammarKind::Implementation => "implementation",
            GrammarKind::Signature => "signature",
        }
    }
}

/// An F# access modifier as written; `Default` means none was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Access {
    Default,
    Public,
    Internal,
    Private,
}

impl Access {
    pub fn from_keyword(text: &str) -> Access {
        match text {
            "private" => Access::Private,
            "internal" => Access::Internal,
            "public" => Access::Public,
            _ => Access::Default,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Access::Default => "default",
            Access::Public => "public",
            Access::Internal => "internal",
            Access::Private => "private",
        }
    }
}

/// What a declaration declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DeclarationKind {
    Namespace,
    Module,
    Record,
    Union,
    Class,
    Interface,
    Enum,
    Delegate,
    Abbreviation,
    TypeExtension,
    /// A type declared without `=`: a unit of measure `[<Measure>] type km`, or a signature
    /// file's abstract `type T`, whose representation is its implementation's.
    OpaqueType,
    Exception,
    RecordField,
    UnionCase,
    /// A named field of a union case, `| Circle of radius: float`.
    UnionField,
    EnumCase,
    Member,
    AbstractMember,
    Override,
    Constructor,
    AutoProperty,
    /// A `let` binding (module level or class level).
    Let,
    /// A `val` (signature file value, or an explicit class field).
    Val,
    /// A case of an active pattern, `Even` of `let (|Even|Odd|) n = …`: its range is the
    /// pattern's declaration, its name the case's characters.
    ActivePatternCase,
}

impl DeclarationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DeclarationKind::Namespace => "namespace",
            DeclarationKind::Module => "module",
            DeclarationKind::Record => "record",
            DeclarationKind::Union => "union",
            DeclarationKind::Class => "class",
            DeclarationKind::Interface => "interface",
            DeclarationKind::Enum => "enum",
            DeclarationKind::Delegate => "delegate",
            DeclarationKind::Abbreviation => "abbreviation",
            DeclarationKind::TypeExtension => "type-extension",
            DeclarationKind::OpaqueType => "type",
            DeclarationKind::Exception => "exception",
            DeclarationKind::RecordField => "record-field",
            DeclarationKind::UnionCase => "union-case",
            DeclarationKind::UnionField => "union-field",
            DeclarationKind::EnumCase => "enum-case",
            DeclarationKind::Member => "member",
            DeclarationKind::AbstractMember => "abstract-member",
            DeclarationKind::Override => "override",
            DeclarationKind::Constructor => "constructor",
            DeclarationKind::AutoProperty => "auto-property",
            DeclarationKind::Let => "let",
            DeclarationKind::Val => "val",
            DeclarationKind::ActivePatternCase => "active-pattern-case",
        }
    }

    /// The compiler's kind of the symbol a declaration of this kind declares (`symbolKind` on
    /// the wire): `type` for every type but an exception, `member` for members, properties and
    /// constructors, `field` for record, union-case and class fields (a `val` in an
    /// implementation file is a class's explicit field; in a signature file, a value).
    pub fn symbol_kind(self, in_signature_file: bool) -> &'static str {
        match self {
            DeclarationKind::Namespace => "namespace",
            DeclarationKind::Module => "module",
            DeclarationKind::Exception => "exception",
            DeclarationKind::Record
            | DeclarationKind::Union
            | DeclarationKind::Class
            | DeclarationKind::Interface
            | DeclarationKind::Enum
            | DeclarationKind::Delegate
            | DeclarationKind::Abbreviation
            | DeclarationKind::TypeExtension
            | DeclarationKind::OpaqueType => "type",
            DeclarationKind::RecordField | DeclarationKind::UnionField => "field",
            DeclarationKind::Val if !in_signature_file => "field",
            DeclarationKind::Val | DeclarationKind::Let => "value",
            DeclarationKind::UnionCase => "unionCase",
            DeclarationKind::EnumCase => "enumCase",
            DeclarationKind::Member
            | DeclarationKind::AbstractMember
            | DeclarationKind::Override
            | DeclarationKind::AutoProperty
            | DeclarationKind::Constructor => "member",
            DeclarationKind::ActivePatternCase => "activePatternCase",
        }
    }

    /// True for members: methods and properties (intrinsic, abstract, overriding, auto) and
    /// constructors.
    pub fn is_member(self) -> bool {
        self.symbol_kind(false) == "member"
    }

    /// True for the kinds that are entities in an outline: namespaces, modules and types.
    pub fn is_container(self) -> bool {
        matches!(self, DeclarationKind::Namespace | DeclarationKind::Module) || self.is_type()
    }

    /// True for types, exceptions included (the compiler's kind word `type` or `exception`).
    pub fn is_type(self) -> bool {
        matches!(self.symbol_kind(false), "type" | "exception")
    }
}

/// A declared name is one identifier on one line: its length as a `u16` in UTF-16 units.
pub fn single_line_length(range: TextRange) -> u16 {
    if range.end.line == range.start.line {
        range.end.character.saturating_sub(range.start.character).min(u32::from(u16::MAX)) as u16
    } else {
        0
    }
}

/// Marker for "no parent" in [`Declaration::parent`].
pub const NO_PARENT: u32 = u32::MAX;

/// One declaration. `parent` indexes the same file's declaration list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    pub kind: DeclarationKind,
    pub access: Access,
    pub name: NameId,
    pub parent: u32,
    /// The whole declaration.
    pub range: TextRange,
    /// Where the declared name starts; it ends `name_length` UTF-16 units later on the same
    /// line (stored this way to keep declarations at 48 bytes).
    pub name_start: Position,
    pub name_length: u16,
    /// Byte offsets of the header (the declaration up to its `=` or body), used to render
    /// signatures on demand from the text instead of storing them.
    pub header_bytes: (u32, u32),
    /// False when the declaration sits inside a parse error or a suspected mis-parse.
    pub certain: bool,
}

/// How a record or union field is used at a site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FieldSiteKind {
    /// `{ X = 1 }`, `{| A = 1 |}`.
    Construction,
    /// `{ r with X = 1 }`, including nested `{ r with A.B = 1 }`.
    CopyUpdate,
    /// `r.X <- 1`.
    SetMutation,
    /// `{ X = x }` in a pattern, `Case(field = x)`.
    Pattern,
    /// `r.X`: only a candidate, the same syntax as `Module.value`.
    Read,
}

impl FieldSiteKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldSiteKind::Construction => "field-construction",
            FieldSiteKind::CopyUpdate => "field-copy-update",
            FieldSiteKind::SetMutation => "field-set-mutation",
            FieldSiteKind::Pattern => "field-pattern",
            FieldSiteKind::Read => "field-read",
        }
    }
}

/// Why a site is not certain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Uncertainty {
    /// Syntax alone classifies this site.
    None,
    /// A dotted read `a.B`: could be a field, a property, a module value or a namespace.
    NeedsResolution,
    /// A leading segment of `{ r with A.B = … }`: a nested path or a type qualifier.
    QualifierOrNestedPath,
    /// `x <- v` with one identifier: may be a local `let mutable`.
    MayBeLocalVariable,
    /// Inside a parse-error region.
    InsideErrorRegion,
    /// Inside a region where a silent mis-parse indicator fired.
    InsideSuspectedMisparse,
}

impl Uncertainty {
    pub fn as_str(self) -> &'static str {
        match self {
            Uncertainty::None => "none",
            Uncertainty::NeedsResolution => "needs-resolution",
            Uncertainty::QualifierOrNestedPath => "qualifier-or-nested-path",
            Uncertainty::MayBeLocalVariable => "may-be-local-variable",
            Uncertainty::InsideErrorRegion => "inside-error-region",
            Uncertainty::InsideSuspectedMisparse => "inside-suspected-misparse",
        }
    }
}

/// One field-site candidate. The field's name is one identifier on one line, so the range is
/// stored as a start and a UTF-16 length (20 bytes per site instead of 28).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSite {
    pub kind: FieldSiteKind,
    pub uncertainty: Uncertainty,
    /// Length of the field's name in UTF-16 code units.
    pub length: u16,
    /// The field's own name (the last segment of the written label).
    pub field: NameId,
    /// The label or access path as written, `A.B` or `r.X`.
    pub path: NameId,
    /// Where the field's name starts.
    pub start: Position,
}

impl Declaration {
    /// The range of the declared name.
    pub fn name_range(&self) -> TextRange {
        TextRange {
            start: self.name_start,
            end: Position {
                line: self.name_start.line,
                character: self.name_start.character + u32::from(self.name_length),
            },
        }
    }
}

impl FieldSite {
    pub fn certain(&self) -> bool {
        self.uncertainty == Uncertainty::None
    }

    /// The range of the field's name.
    pub fn range(&self) -> TextRange {
        TextRange {
            start: self.start,
            end: Position { line: self.start.line, character: self.start.character + u32::from(self.length) },
        }
    }
}

/// One `private`/`internal`/`public` keyword in the text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessModifierSpan {
    pub access: Access,
    pub range: TextRange,
}

/// The silent mis-parses that tree-sitter-fsharp 0.3.12 produces without an ERROR node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MisparseIndicator {
    /// `->` as an `infix_op`: a one-line multi-rule `match`/`function`.
    InfixArrow,
    /// `|` as an `infix_op`: the same.
    InfixBar,
    /// `<-` as an `infix_op`: dot-less indexed assignment `arr[0] <- 1`.
    InfixAssign,
    /// `x[0]` parsed as applying `x` to a list.
    AdjacentListApplication,
    /// A declaration keyword (`member`, `override`, `static`, `and`, …) read as an identifier:
    /// the grammar lost the structure around it without an error (members indented past an
    /// `inherit` line read as arguments of the inherited type's constructor).
    KeywordAsIdentifier,
}

impl MisparseIndicator {
    pub fn as_str(self) -> &'static str {
        match self {
            MisparseIndicator::InfixArrow => "infix-arrow",
            MisparseIndicator::InfixBar => "infix-bar",
            MisparseIndicator::InfixAssign => "infix-assign",
            MisparseIndicator::AdjacentListApplication => "adjacent-list-application",
            MisparseIndicator::KeywordAsIdentifier => "keyword-as-identifier",
        }
    }
}

/// Where a mis-parse indicator fired, and the region it makes uncertain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MisparseFinding {
    pub indicator: MisparseIndicator,
    /// The operator or the glued argument.
    pub range: TextRange,
    /// The enclosing `match`/`function`/expression whose structure is suspect.
    pub region: TextRange,
}

/// How a file's parse went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HealthStatus {
    /// No ERROR/MISSING node and no mis-parse indicator.
    Clean,
    /// Errors or indicators; see the regions.
    Degraded,
    /// The parse ran past its deadline and was cancelled; nothing was indexed.
    TimedOut,
    /// The file could not be read or parsed at all.
    Failed,
}

impl HealthStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HealthStatus::Clean => "clean",
            HealthStatus::Degraded => "degraded",
            HealthStatus::TimedOut => "timed-out",
            HealthStatus::Failed => "failed",
        }
    }
}

/// Per-file health.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHealth {
    pub status: HealthStatus,
    /// True when the root node itself is ERROR (namespace/module wrapper lost).
    pub root_is_error: bool,
    /// Outermost ERROR nodes and the parents of MISSING nodes.
    pub error_regions: Vec<TextRange>,
    pub misparses: Vec<MisparseFinding>,
    /// Why the file failed or timed out, when it did.
    pub detail: Option<String>,
}

impl FileHealth {
    pub fn failed(status: HealthStatus, detail: String) -> FileHealth {
        FileHealth {
            status,
            root_is_error: false,
            error_regions: Vec::new(),
            misparses: Vec::new(),
            detail: Some(detail),
        }
    }
}

/// Identifier occurrences, grouped by name. `directory` holds, per distinct name in id
/// order, the varint pair (name-id delta, byte length of its run); `data` holds the runs of
/// varint `(line delta, character)` pairs. About two bytes per occurrence plus two or three
/// per distinct name; a lookup scans the directory, which is a few microseconds per file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccurrencePostings {
    pub directory: Vec<u8>,
    pub data: Vec<u8>,
}

impl OccurrencePostings {
    /// Builds postings from `(name, position)` pairs in any order.
    pub fn build(occurrences: Vec<(NameId, Position)>) -> OccurrencePostings {
        let occurrences = sort_by_name_then_position(occurrences);
        let mut postings = OccurrencePostings::default();
        let mut previous_name = 0u32;
        let mut index = 0;
        while index < occurrences.len() {
            let name = occurrences[index].0;
            let run_start = postings.data.len();
            let mut previous_line = 0u32;
            while index < occurrences.len() && occurrences[index].0 == name {
                let position = occurrences[index].1;
                write_varint(&mut postings.data, position.line - previous_line);
                write_varint(&mut postings.data, position.character);
                previous_line = position.line;
                index += 1;
            }
            write_varint(&mut postings.directory, name.0 - previous_name);
            write_varint(&mut postings.directory, (postings.data.len() - run_start) as u32);
            previous_name = name.0;
        }
        postings.directory.shrink_to_fit();
        postings.data.shrink_to_fit();
        postings
    }

    /// `(name, occurrences)` for every distinct name, in id order, without decoding positions
    /// (a run holds two varints per occurrence, and every varint ends in a byte below 0x80).
    pub fn counts(&self) -> Vec<(NameId, u32)> {
        self.runs()
            .into_iter()
            .map(|(name, run)| (name, (run.iter().filter(|byte| **byte < 0x80).count() / 2) as u32))
            .collect()
    }

    /// `(name, run bytes)` for every distinct name, in id order.
    pub fn runs(&self) -> Vec<(NameId, &[u8])> {
        let mut runs = Vec::new();
        let mut cursor = 0;
        let mut name = 0u32;
        let mut offset = 0usize;
        while cursor < self.directory.len() {
            let (Some(delta), Some(length)) =
                (read_varint(&self.directory, &mut cursor), read_varint(&self.directory, &mut cursor))
            else {
                break;
            };
            name = name.saturating_add(delta);
            let end = (offset + length as usize).min(self.data.len());
            runs.push((NameId(name), &self.data[offset.min(end)..end]));
            offset = end;
        }
        runs
    }

    /// The start positions of `name`'s occurrences, in text order.
    pub fn positions_of(&self, wanted: NameId) -> Vec<Position> {
        let mut cursor = 0;
        let mut name = 0u32;
        let mut offset = 0usize;
        while cursor < self.directory.len() {
            let (Some(delta), Some(length)) =
                (read_varint(&self.directory, &mut cursor), read_varint(&self.directory, &mut cursor))
            else {
                break;
            };
            name = name.saturating_add(delta);
            let end = (offset + length as usize).min(self.data.len());
            if name == wanted.0 {
                return decode_positions(&self.data[offset.min(end)..end]);
            }
            if name > wanted.0 {
                break;
            }
            offset = end;
        }
        Vec::new()
    }

    /// Every `(name, position)` pair.
    pub fn all(&self) -> Vec<(NameId, Position)> {
        let mut result = Vec::new();
        for (name, run) in self.runs() {
            for position in decode_positions(run) {
                result.push((name, position));
            }
        }
        result
    }

    pub fn occurrence_count(&self) -> usize {
        self.runs().iter().map(|(_, run)| decode_positions(run).len()).sum()
    }

    /// Re-numbers names without re-encoding: the runs are moved, not decoded.
    fn renumber(&self, map: impl Fn(NameId) -> NameId) -> OccurrencePostings {
        let mut runs: Vec<(NameId, &[u8])> = self.runs().into_iter().map(|(name, run)| (map(name), run)).collect();
        runs.sort_by_key(|(name, _)| *name);
        let mut postings = OccurrencePostings {
            directory: Vec::with_capacity(self.directory.len() + 8),
            data: Vec::with_capacity(self.data.len()),
        };
        let mut previous_name = 0u32;
        for (name, run) in runs {
            write_varint(&mut postings.directory, name.0.saturating_sub(previous_name));
            write_varint(&mut postings.directory, run.len() as u32);
            postings.data.extend_from_slice(run);
            previous_name = name.0;
        }
        postings.directory.shrink_to_fit();
        postings
    }

    fn heap_bytes(&self) -> usize {
        self.directory.capacity() + self.data.capacity()
    }
}

/// `occurrences` sorted by name, then position, without duplicates. Extraction pushes them
/// in text order, so a stable counting sort by name (names are small dense ids) leaves each
/// name's positions already in order: linear time instead of a comparison sort. Any other
/// input still comes out sorted: a run found out of order is sorted on its own, and sparse ids
/// fall back to a plain sort.
fn sort_by_name_then_position(mut occurrences: Vec<(NameId, Position)>) -> Vec<(NameId, Position)> {
    let name_count = occurrences.iter().map(|(name, _)| name.0 as usize + 1).max().unwrap_or(0);
    if name_count > occurrences.len().saturating_mul(4).saturating_add(1024) {
        occurrences.sort_unstable();
        occurrences.dedup();
        return occurrences;
    }
    let mut run_starts = vec![0usize; name_count + 1];
    for (name, _) in &occurrences {
        run_starts[name.0 as usize + 1] += 1;
    }
    for index in 1..run_starts.len() {
        run_starts[index] += run_starts[index - 1];
    }
    let mut next_slot = run_starts.clone();
    let mut sorted = vec![(NameId(0), Position::default()); occurrences.len()];
    for (name, position) in occurrences {
        let slot = &mut next_slot[name.0 as usize];
        sorted[*slot] = (name, position);
        *slot += 1;
    }
    for bounds in run_starts.windows(2) {
        let run = &mut sorted[bounds[0]..bounds[1]];
        if !run.is_sorted() {
            run.sort_unstable();
        }
    }
    sorted.dedup();
    sorted
}

fn write_varint(output: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        output.push((value as u8) | 0x80);
        value >>= 7;
    }
    output.push(value as u8);
}

fn read_varint(data: &[u8], cursor: &mut usize) -> Option<u32> {
    let mut value = 0u32;
    let mut shift = 0;
    while let Some(byte) = data.get(*cursor) {
        *cursor += 1;
        value |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(value);
        }
        shift += 7;
    }
    None
}

fn decode_positions(data: &[u8]) -> Vec<Position> {
    let mut positions = Vec::new();
    let mut cursor = 0;
    let mut line = 0u32;
    while cursor < data.len() {
        let (Some(line_delta), Some(character)) = (read_varint(data, &mut cursor), read_varint(data, &mut cursor))
        else {
            break;
        };
        line = line.saturating_add(line_delta);
        positions.push(Position { line, character });
    }
    positions
}

/// The index of one file. Names are [`NameId`]s into some string table (see module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIndex {
    pub grammar: GrammarKind,
    pub content_sha256: [u8; 32],
    pub bytes: u32,
    pub lines: u32,
    pub health: FileHealth,
    /// The file's first lines say a tool generated it (`<auto-generated>`, …).
    pub generated_header: bool,
    pub declarations: Vec<Declaration>,
    pub field_sites: Vec<FieldSite>,
    pub access_modifiers: Vec<AccessModifierSpan>,
    pub occurrences: OccurrencePostings,
    /// Every `#if` and `#else` branch, in order of their directives: a declaration or an
    /// occurrence in a branch inactive under a project's defines is code the compiler behind
    /// FSAC never saw.
    pub conditionals: Vec<crate::syntax::conditionals::ConditionalBranch>,
}

impl FileIndex {
    /// An index with no content, for files that timed out or failed.
    pub fn empty(grammar: GrammarKind, content_sha256: [u8; 32], bytes: u32, lines: u32, health: FileHealth) -> Self {
        FileIndex {
            grammar,
            content_sha256,
            bytes,
            lines,
            health,
            generated_header: false,
            declarations: Vec::new(),
            field_sites: Vec::new(),
            access_modifiers: Vec::new(),
            occurrences: OccurrencePostings::default(),
            conditionals: Vec::new(),
        }
    }

    /// Calls `map` on every name id, then restores the postings' sort order.
    pub fn renumber_names(&mut self, map: impl Fn(NameId) -> NameId) {
        for declaration in &mut self.declarations {
            declaration.name = map(declaration.name);
        }
        for site in &mut self.field_sites {
            site.field = map(site.field);
            site.path = map(site.path);
        }
        self.occurrences = self.occurrences.renumber(&map);
    }

    /// The parent chain of declaration `index`, outermost first, ending with the declaration.
    pub fn declaration_chain(&self, index: usize) -> Vec<usize> {
        let mut chain = vec![index];
        let mut current = index;
        while let Some(declaration) = self.declarations.get(current) {
            if declaration.parent == NO_PARENT || chain.len() > self.declarations.len() {
                break;
            }
            current = declaration.parent as usize;
            chain.push(current);
        }
        chain.reverse();
        chain
    }

    /// Bytes this index owns on the heap (capacities, not lengths), for the memory estimate.
    pub fn heap_bytes(&self) -> usize {
        self.declarations.capacity() * std::mem::size_of::<Declaration>()
            + self.field_sites.capacity() * std::mem::size_of::<FieldSite>()
            + self.access_modifiers.capacity() * std::mem::size_of::<AccessModifierSpan>()
            + self.occurrences.heap_bytes()
            + self.health.error_regions.capacity() * std::mem::size_of::<TextRange>()
            + self.health.misparses.capacity() * std::mem::size_of::<MisparseFinding>()
            + self.health.detail.as_ref().map_or(0, String::capacity)
            + self
                .conditionals
                .iter()
                .map(|branch| std::mem::size_of_val(branch) + branch.condition.capacity())
                .sum::<usize>()
    }
}

/// A file index whose names are numbered against its own `names` table: the output of
/// extraction and the unit the on-disk cache stores.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LocalFileIndex {
    pub format_version: u32,
    pub names: Vec<String>,
    pub index: FileIndex,
}

impl LocalFileIndex {
    /// Re-numbers the names against the workspace interner.
    pub fn into_global(self, interner: &Interner) -> FileIndex {
        let global_ids = interner.intern_all(&self.names);
        let mut index = self.index;
        index.renumber_names(|local| global_ids.get(local.0 as usize).copied().unwrap_or(NameId(0)));
        index
    }
}

/// The workspace-wide name table. Ids are stable for the interner's lifetime.
#[derive(Default, Debug)]
pub struct Interner {
    inner: RwLock<InternerTables>,
}

#[derive(Default, Debug)]
struct InternerTables {
    ids: FastHashMap<Arc<str>, NameId>,
    names: Vec<Arc<str>>,
    bytes: usize,
}

impl Interner {
    pub fn new() -> Self {
        Interner::default()
    }

    /// Interns a batch under one lock; returns the ids in order.
    pub fn intern_all(&self, names: &[String]) -> Vec<NameId> {
        // A poisoned lock only means another thread panicked mid-insert; the tables are still
        // consistent (insertions are single statements), so keep going.
        let mut tables = self.inner.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        names
            .iter()
            .map(|name| {
                if let Some(id) = tables.ids.get(name.as_str()) {
                    return *id;
                }
                let id = NameId(tables.names.len() as u32);
                let shared: Arc<str> = Arc::from(name.as_str());
                tables.bytes += name.len();
                tables.names.push(shared.clone());
                tables.ids.insert(shared, id);
                id
            })
            .collect()
    }

    pub fn intern(&self, name: &str) -> NameId {
        self.intern_all(&[name.to_owned()])[0]
    }

    /// The id of `name` if it was ever interned.
    pub fn lookup(&self, name: &str) -> Option<NameId> {
        let tables = self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        tables.ids.get(name).copied()
    }

    pub fn resolve(&self, id: NameId) -> Arc<str> {
        let tables = self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        tables.names.get(id.0 as usize).cloned().unwrap_or_else(|| Arc::from(""))
    }

    /// Every interned name, in id order.
    pub fn names(&self) -> Vec<Arc<str>> {
        self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner()).names.clone()
    }

    pub fn len(&self) -> usize {
        self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner()).names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Estimated heap bytes: string data, the two tables and per-allocation overhead.
    pub fn heap_bytes(&self) -> usize {
        let tables = self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        let arc_overhead = 16 + 16; // Arc counts plus allocator rounding
        tables.bytes
            + tables.names.len() * arc_overhead
            + tables.names.capacity() * std::mem::size_of::<Arc<str>>()
            + tables.ids.capacity() * (std::mem::size_of::<Arc<str>>() + std::mem::size_of::<NameId>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn postings_round_trip_and_renumber() {
        let postings = OccurrencePostings::build(vec![
            (NameId(7), at(3, 4)),
            (NameId(2), at(0, 1)),
            (NameId(7), at(1, 200)),
            (NameId(2), at(900, 0)),
            (NameId(7), at(1, 200)),
        ]);
        assert_eq!(postings.positions_of(NameId(7)), [at(1, 200), at(3, 4)]);
        assert_eq!(postings.positions_of(NameId(2)), [at(0, 1), at(900, 0)]);
        assert!(postings.positions_of(NameId(3)).is_empty());
        assert_eq!(postings.occurrence_count(), 4);
        // Swap the two ids: runs move, positions stay.
        let renumbered = postings.renumber(|name| if name == NameId(7) { NameId(1) } else { NameId(9) });
        assert_eq!(renumbered.positions_of(NameId(1)), [at(1, 200), at(3, 4)]);
        assert_eq!(renumbered.positions_of(NameId(9)), [at(0, 1), at(900, 0)]);
        // Garbage never panics.
        let garbage = OccurrencePostings { directory: vec![0xff, 0xff, 0xff, 0xff, 0xff, 0x01], data: vec![0x80] };
        let _ = garbage.all();
        let _ = garbage.positions_of(NameId(1));
    }
}
