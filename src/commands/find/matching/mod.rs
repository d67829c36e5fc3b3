//! Resolving a `fslens.find` query to declarations, from the syntax index (always) and
//! FSAC's `workspace/symbol` (when FSAC is ready).
//!
//! Names match exactly (`exact`, the default) or as case-insensitive substrings. A dotted
//! query (`Account.Balance`, `Ledger.Core.Accounts.deposit`) matches when its segments are
//! a suffix of the declaration's full name's segments, so partially and fully qualified
//! names both resolve. FSAC's `workspace/symbol` matches a case-sensitive prefix with
//! `containerName` equal to all but the last segment (docs/fsac-protocol.md §8); it is
//! asked for the last segment alone and its answers are filtered by the same rules here.

pub mod active_patterns;
pub mod compiler_names;
pub mod non_symbol;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::commands::find::model::arguments::{FindArguments, FindKind};
use crate::commands::find::model::work::{FileKey, Work};
use crate::syntax::model::{Access, Declaration, DeclarationKind, HealthStatus, NameId, Position, TextRange};
use crate::syntax::{FileIndex, SyntaxIndex, names, render_signature};

/// One resolved declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    pub full_name: String,
    pub path: PathBuf,
    /// The declared name's range (where references are asked from).
    pub name_range: TextRange,
    /// What the syntax layer says it is; `None` when only FSAC reported it.
    pub kind: Option<DeclarationKind>,
    pub access: Option<Access>,
    /// Header byte range in the file, for `includeInfo` signatures.
    pub header_bytes: Option<(u32, u32)>,
    /// Which sources reported it: `syntax-index`, `fsac-workspace-symbol`, `fsac-definition`.
    pub sources: BTreeSet<&'static str>,
    /// The compiler's full name when it differs from `full_name` (a module beside a type of
    /// its name is `…Module`; see [`compiler_names`]); set once resolution is done.
    pub compiler_name: Option<String>,
}

impl Declared {
    /// A declaration the syntax index has, under `full_name` in `path`, at its name (a dotted
    /// namespace's or module's last segment, [`index_name_range`]).
    pub fn from_index(index: &SyntaxIndex, full_name: String, path: PathBuf, declaration: &Declaration) -> Declared {
        Declared {
            full_name,
            path,
            name_range: index_name_range(&index.name(declaration.name), declaration),
            kind: Some(declaration.kind),
            access: Some(declaration.access),
            header_bytes: Some(declaration.header_bytes),
            sources: BTreeSet::from(["syntax-index"]),
            compiler_name: None,
        }
    }

    /// The symbol's full name as the compiler spells it: what a row names it by.
    pub fn symbol_full_name(&self) -> &str {
        self.compiler_name.as_deref().unwrap_or(&self.full_name)
    }

    /// `symbolKind`: what kind of symbol it is (`type`, `module`, `member`, `field`,
    /// `unionCase`, …); `None` when only FSAC reported it.
    pub fn symbol_kind(&self) -> Option<&'static str> {
        self.kind.map(|kind| compiler_names::symbol_kind(kind, &self.path))
    }

    /// A field by [`field_kind`]'s rule.
    pub fn is_field(&self) -> bool {
        self.kind.is_some_and(|kind| field_kind(kind, &self.path))
    }

    /// Declared in a signature file (`.fsi`): a signature declaration, whose site kind is
    /// `signature`.
    pub fn is_signature(&self) -> bool {
        is_signature_file(&self.path)
    }

    /// The full name in comparison form (segments in [`plain_name`] form), the key that pairs
    /// a signature with its implementation.
    pub fn qualified_key(&self) -> String {
        segments(&self.full_name).join(".")
    }

    pub fn is_member(&self) -> bool {
        self.kind.is_some_and(DeclarationKind::is_member)
    }

    /// The last segment of the full name as written (`value`, ``` ``my value`` ```,
    /// `(.>>.)`): a dot inside backticks or an operator's parentheses does not split.
    pub fn name(&self) -> &str {
        written_segments(&self.full_name).pop().unwrap_or(&self.full_name)
    }

    pub fn to_json(&self, display: &dyn Fn(&Path) -> String, include_info: bool, text: Option<&str>) -> Value {
        let mut value = json!({
            "symbolFullName": self.symbol_full_name(),
            "file": display(&self.path),
            "range": self.name_range.to_json(),
            "declarationKind": self.kind.map(DeclarationKind::as_str),
            "role": if self.is_signature() { "signature" } else { "declaration" },
            "resolvedBy": self.sources.iter().collect::<Vec<_>>(),
        });
        if let Some(kind) = self.symbol_kind() {
            value["symbolKind"] = json!(kind);
        }
        if include_info {
            value["access"] = json!(self.access.map(Access::as_str));
            value["signature"] =
                json!(text.zip(self.header_bytes).map(|(text, header)| render_signature(text, header, 240)));
        }
        value
    }
}

/// One name segment in the form names are compared in: backticks stripped, operators in
/// their display form (`>>=`, `(>>=)` and `op_GreaterGreaterEquals` are one name).
pub fn plain_name(name: &str) -> String {
    names::comparison_key(name)
}

/// Segments of a dotted name; a dot inside double backticks or inside an operator's
/// parentheses (`Parsers.(.>>.)`) does not split, and a name that is an operator alone
/// (`.>>.`) is one segment.
pub fn segments(name: &str) -> Vec<String> {
    if names::is_operator(name.trim()) {
        return vec![plain_name(name)];
    }
    written_segments(name).into_iter().map(plain_name).collect()
}

/// The segments of a dotted name as written, backticks kept: a dot inside double backticks
/// (```` ``Bug #42. async`` ````) or inside an operator's parentheses (`Parsers.(.>>.)`) does
/// not split.
pub fn written_segments(name: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut in_backticks, mut paren_depth) = (0, false, 0u32);
    let bytes = name.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'`' if bytes.get(index + 1) == Some(&b'`') => {
                in_backticks = !in_backticks;
                index += 1;
            }
            b'(' if !in_backticks => paren_depth += 1,
            b')' if !in_backticks => paren_depth = paren_depth.saturating_sub(1),
            b'.' if !in_backticks && paren_depth == 0 => {
                parts.push(&name[start..index]);
                start = index + 1;
            }
            _ => {}
        }
        index += 1;
    }
    parts.push(&name[start..]);
    parts
}

/// Does `name` match `wanted` (exactly, or as a case-insensitive substring)?
pub fn name_matches(name: &str, wanted: &str, exact: bool) -> bool {
    let (name, wanted) = (plain_name(name), plain_name(wanted));
    if exact { name == wanted } else { name.to_lowercase().contains(&wanted.to_lowercase()) }
}

/// Do the query's segments match a suffix of the full name's segments? The last segment
/// follows `exact`; qualifiers always match exactly.
pub fn qualified_matches(full_name: &str, query: &str, exact: bool) -> bool {
    let full = segments(full_name);
    let wanted = segments(query);
    if wanted.len() > full.len() || wanted.is_empty() {
        return false;
    }
    let offset = full.len() - wanted.len();
    let last = wanted.len() - 1;
    wanted.iter().enumerate().all(|(index, segment)| {
        if index == last {
            name_matches(&full[offset + index], segment, exact)
        } else {
            full[offset + index] == *segment
        }
    })
}

/// The query split into what to look for: the name(s) and an optional qualifier that the
/// owning type's full name must end with.
struct Wanted {
    /// Which declarations qualify, by kind and declaring file.
    filter: fn(DeclarationKind, &Path) -> bool,
    /// Matches the declaration's own name (and qualifier) for kinds auto/symbol/definition.
    query: Option<String>,
    /// For fields and members: the owner type's qualified name (suffix rule) and the
    /// member/field name.
    owner: Option<String>,
    member: Option<String>,
}

fn any_kind(_: DeclarationKind, _: &Path) -> bool {
    true
}

/// Record and union fields, and a class's explicit `val` fields: a `val` in an implementation
/// file can only be one (module values there are `let`s; a signature file's `val` declares a
/// value, not a field).
fn field_kind(kind: DeclarationKind, path: &Path) -> bool {
    match kind {
        DeclarationKind::RecordField | DeclarationKind::UnionField => true,
        DeclarationKind::Val => !is_signature_file(path),
        _ => false,
    }
}

fn is_signature_file(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("fsi"))
}

fn member_kind(kind: DeclarationKind, _: &Path) -> bool {
    matches!(
        kind,
        DeclarationKind::Member
            | DeclarationKind::AbstractMember
            | DeclarationKind::Override
            | DeclarationKind::AutoProperty
            | DeclarationKind::Val
            | DeclarationKind::Constructor
            | DeclarationKind::RecordField
            | DeclarationKind::Let
    )
}

/// The kind the sweep behaves as: `auto` with `field` is `field`, with `member` is `members`.
pub fn effective_kind(arguments: &FindArguments) -> FindKind {
    match arguments.kind {
        FindKind::Auto if arguments.field.is_some() => FindKind::Field,
        FindKind::Auto if arguments.member.is_some() => FindKind::Members,
        kind => kind,
    }
}

fn wanted(arguments: &FindArguments) -> Wanted {
    match effective_kind(arguments) {
        FindKind::Field => match &arguments.field {
            Some(field) => {
                Wanted { filter: field_kind, query: None, owner: arguments.query.clone(), member: Some(field.clone()) }
            }
            None => {
                let query = arguments.query.clone().unwrap_or_default();
                let mut parts = segments(&query);
                let field = parts.pop().unwrap_or_default();
                Wanted {
                    filter: field_kind,
                    query: None,
                    owner: (!parts.is_empty()).then(|| parts.join(".")),
                    member: Some(field),
                }
            }
        },
        FindKind::Members => Wanted {
            filter: member_kind,
            query: None,
            owner: arguments.query.clone(),
            member: arguments.member.clone(),
        },
        _ => Wanted { filter: any_kind, query: arguments.query.clone(), owner: None, member: None },
    }
}

/// The declarations of the indexed `files` that the query names.
pub fn syntax_declarations(index: &SyntaxIndex, files: &[PathBuf], arguments: &FindArguments) -> Vec<Declared> {
    let wanted = wanted(arguments);
    // The last segment decides first, once per interned name: the full name is built only
    // for a declaration whose own name matches.
    let query_last = wanted.query.as_deref().and_then(|query| segments(query).pop());
    let mut last_matches: HashMap<NameId, bool> = HashMap::new();
    // A field of an anonymous record type belongs to no type the query can name: only its
    // bare name names it (`Settings.Quiet` is the member, not `{| Quiet: bool |}`).
    let qualified = wanted.owner.is_some() || wanted.query.as_deref().is_some_and(|query| segments(query).len() > 1);
    let mut found = Vec::new();
    for path in files {
        let Some(file) = index.file(path) else { continue };
        let declarations = &file.index.declarations;
        for (slot, declaration) in declarations.iter().enumerate() {
            if !(wanted.filter)(declaration.kind, path) {
                continue;
            }
            if let Some(query) = &wanted.query {
                found.extend(dotted_name_prefixes(index, &file.index, slot, path, query, arguments.exact));
            }
            if let Some(last) = &query_last {
                let matches = *last_matches.entry(declaration.name).or_insert_with(|| {
                    let own = segments(&index.name(declaration.name)).pop().unwrap_or_default();
                    name_matches(&own, last, arguments.exact)
                });
                if !matches {
                    continue;
                }
            }
            if qualified && compiler_names::is_anonymous_record_field(&file.index, slot) {
                continue;
            }
            let selected = match (&wanted.query, &wanted.owner, &wanted.member) {
                (Some(query), _, _) => {
                    let full_name = index.full_name(&file.index, slot);
                    qualified_matches(&full_name, query, arguments.exact)
                        || extension_member_name(index, &file.index, slot)
                            .is_some_and(|name| qualified_matches(&name, query, arguments.exact))
                        || lost_its_container(&file, &full_name, query, arguments.exact)
                }
                (None, owner, member) => {
                    let name = index.name(declaration.name);
                    let member_ok = member.as_deref().is_none_or(|member| name_matches(&name, member, arguments.exact));
                    // The owner is the nearest type (or module) above the member.
                    let owner_ok = match owner {
                        None => true,
                        Some(owner) => {
                            let mut parent = declaration.parent;
                            let mut owner_name = None;
                            let mut steps = 0;
                            while let Some(ancestor) = declarations.get(parent as usize) {
                                if ancestor.kind.is_type() || ancestor.kind == DeclarationKind::Module {
                                    owner_name = Some(index.full_name(&file.index, parent as usize));
                                    break;
                                }
                                parent = ancestor.parent;
                                steps += 1;
                                if steps > declarations.len() {
                                    break;
                                }
                            }
                            owner_name.is_some_and(|owner_name| qualified_matches(&owner_name, owner, true))
                        }
                    };
                    member_ok && owner_ok && (member.is_some() || owner.is_some())
                }
            };
            if selected {
                found.push(Declared::from_index(index, index.full_name(&file.index, slot), path.clone(), declaration));
            }
        }
    }
    found
}

/// In a file the grammar could not read whole, the index's containers past an error region
/// are guesses (a module's range may end early, leaving its later declarations at the top):
/// a declaration whose full name is a proper suffix of the query's (`T` for `M.T`) may be the
/// one the query names. It is swept, listed in `crossCheck.unconfirmedByIndex` with reason
/// `container_lost_in_error_region` (see [`lost_container_places`]), and the answer is not
/// complete.
fn lost_its_container(file: &crate::syntax::index::IndexedFile, full_name: &str, query: &str, exact: bool) -> bool {
    file.index.health.status != HealthStatus::Clean
        && segments(full_name).len() < segments(query).len()
        && qualified_matches(query, full_name, exact)
}

/// The declarations [`syntax_declarations`] kept only because their container may be lost.
pub fn lost_container_places(
    index: &SyntaxIndex,
    declared: &[Declared],
    arguments: &FindArguments,
) -> Vec<Unconfirmed> {
    let Some(query) = arguments.query.as_deref() else { return Vec::new() };
    declared
        .iter()
        .filter(|declared| {
            declared.sources.contains("syntax-index") && !qualified_matches(&declared.full_name, query, arguments.exact)
        })
        .filter(|declared| {
            index
                .file(&declared.path)
                .is_some_and(|file| lost_its_container(&file, &declared.full_name, query, arguments.exact))
        })
        .map(|declared| Unconfirmed {
            path: declared.path.clone(),
            name_range: declared.name_range,
            reason: "container_lost_in_error_region",
        })
        .collect()
}

/// Where an index declaration is declared, and where its references are asked: its name,
/// except a dotted namespace or module (`namespace A.B`, `module A.B`), declared at its last
/// segment (the first names namespace `A`).
fn index_name_range(name: &str, declaration: &Declaration) -> TextRange {
    dotted_segment_ranges(name, declaration).pop().map_or_else(|| declaration.name_range(), |(_, range)| range)
}

/// The segments of a dotted namespace or module name (`namespace A.B.C`, `module A.B`,
/// ```module A.``Bug #42 -- async`` ```) with the range each covers; empty for any other
/// declaration, or a name the split cannot place (spaces or comments around the dots).
fn dotted_segment_ranges(name: &str, declaration: &Declaration) -> Vec<(String, TextRange)> {
    if !matches!(declaration.kind, DeclarationKind::Namespace | DeclarationKind::Module) {
        return Vec::new();
    }
    let written = written_segments(name);
    let placed =
        |segment: &&str| !segment.is_empty() && (segment.starts_with("``") || !segment.contains(char::is_whitespace));
    if written.len() < 2 || !written.iter().all(placed) {
        return Vec::new();
    }
    let mut ranges = Vec::new();
    let mut character = declaration.name_start.character;
    for segment in written {
        let length = segment.encode_utf16().count() as u32;
        let start = Position { line: declaration.name_start.line, character };
        let end = Position { line: declaration.name_start.line, character: character + length };
        ranges.push((segment.to_owned(), TextRange { start, end }));
        character += length + 1;
    }
    ranges
}

/// The namespaces a dotted name declares on the way (`namespace A.B.C` declares `A` and
/// `A.B` too, `module A.B` declares namespace `A`) that the query names: each at its own
/// segment, where FSAC's references of that namespace are asked.
fn dotted_name_prefixes(
    index: &SyntaxIndex,
    file: &crate::syntax::model::FileIndex,
    slot: usize,
    path: &Path,
    query: &str,
    exact: bool,
) -> Vec<Declared> {
    let declaration = &file.declarations[slot];
    // Called for every declaration of every file read: only a namespace or module name is read.
    if !matches!(declaration.kind, DeclarationKind::Namespace | DeclarationKind::Module) {
        return Vec::new();
    }
    let name = index.name(declaration.name);
    let ranges = dotted_segment_ranges(&name, declaration);
    if ranges.len() < 2 {
        return Vec::new();
    }
    let outer = match file.declarations.get(declaration.parent as usize) {
        Some(_) => format!("{}.", index.full_name(file, declaration.parent as usize)),
        None => String::new(),
    };
    let mut prefix = outer;
    let mut found = Vec::new();
    for (position, (segment, range)) in ranges.iter().enumerate().take(ranges.len() - 1) {
        if position > 0 {
            prefix.push('.');
        }
        prefix.push_str(segment);
        if qualified_matches(&prefix, query, exact) {
            let mut declared = Declared::from_index(index, prefix.clone(), path.to_path_buf(), declaration);
            declared.name_range = *range;
            declared.kind = Some(DeclarationKind::Namespace);
            declared.header_bytes = None;
            found.push(declared);
        }
    }
    found
}

/// The compiler's full name of a member declared in an optional extension (`module M = type T
/// with member _.X`): `…M.X`, the enclosing module's name with the member's, without the
/// extended type. A user writes either (`T.X` or `M.X`); `None` for anything else (an
/// intrinsic augmentation's member is the type's: `T.X` only).
fn extension_member_name(index: &SyntaxIndex, file: &crate::syntax::model::FileIndex, slot: usize) -> Option<String> {
    let declaration = file.declarations.get(slot)?;
    let parent = file.declarations.get(declaration.parent as usize)?;
    if !compiler_names::is_optional_extension(index, file, declaration.parent as usize) {
        return None;
    }
    // The extended type may be written qualified (`type Microsoft.FSharp.Control.Async with`):
    // all of its segments go.
    let mut enclosing = segments(&index.full_name(file, declaration.parent as usize));
    let extended = segments(&index.name(parent.name)).len().max(1);
    enclosing.truncate(enclosing.len().saturating_sub(extended));
    enclosing.push(segments(&index.name(declaration.name)).pop().unwrap_or_default());
    Some(enclosing.join("."))
}

/// Can a signature declaration of kind `signature` stand for an implementation of kind
/// `implementation`? Types pair with types, modules with modules, and a `val` with a value,
/// function or member.
fn kinds_pair(signature: DeclarationKind, implementation: DeclarationKind) -> bool {
    let value_like = |kind: DeclarationKind| {
        matches!(
            kind,
            DeclarationKind::Val
                | DeclarationKind::Let
                | DeclarationKind::Member
                | DeclarationKind::AbstractMember
                | DeclarationKind::Override
                | DeclarationKind::AutoProperty
                | DeclarationKind::Constructor
        )
    };
    (signature.is_type() && implementation.is_type())
        || (signature == implementation)
        || (value_like(signature) && value_like(implementation))
}

/// The signature declarations of `declared`'s implementations and the implementations of its
/// signatures that `declared` does not hold yet: a `.fsi` declaration and a `.fs` declaration
/// with the same qualified name and pairing kinds, compiled by one project with it, are one symbol.
///
/// Linear in the declarations: each is looked up by its qualified key and by its place, never
/// compared with every other (a name declared in every module made this quadratic).
pub fn signature_partners(
    index: &SyntaxIndex,
    files: &[PathBuf],
    declared: &[Declared],
    same_project: &dyn Fn(&Path, &Path) -> bool,
    work: &Work,
) -> Vec<Declared> {
    let mut known = KnownPlaces::new(declared);
    let mut partners = partners_by_qualified_name(index, files, declared, same_project, &mut known, work);
    // A file the parser could not read whole loses the modules around its declarations, so
    // qualified names differ: a declaration still unpaired pairs with the one declaration of
    // its name and a pairing kind in its partner file (`X.fsi` for `X.fs` and back).
    let mut keys: HashSet<(String, bool)> = declared
        .iter()
        .chain(&partners)
        .map(|declaration| (declaration.qualified_key(), declaration.is_signature()))
        .collect();
    let in_files: HashSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    for declaration in declared {
        let key = declaration.qualified_key();
        work.compared(1);
        if keys.contains(&(key, !declaration.is_signature())) {
            continue; // paired already
        }
        if let Some(partner) = partner_in_partner_file(index, &in_files, &mut known, declaration, work) {
            keys.insert((partner.qualified_key(), partner.is_signature()));
            partners.push(partner);
        }
    }
    partners
}

/// The places (file, name range) of the declarations known so far, to tell whether a
/// candidate is one of them: by the path as written, else by the file on disk.
struct KnownPlaces {
    places: HashMap<TextRange, Vec<PathBuf>>,
}

impl KnownPlaces {
    fn new(declared: &[Declared]) -> KnownPlaces {
        let mut known = KnownPlaces { places: HashMap::new() };
        for declaration in declared {
            known.insert(&declaration.path, declaration.name_range);
        }
        known
    }

    fn insert(&mut self, path: &Path, range: TextRange) {
        self.places.entry(range).or_default().push(path.to_path_buf());
    }

    /// Is a known declaration's name at `range` in `path`? Only the declarations at that
    /// range are compared (a partner is rare: this runs for candidates that pair).
    fn contains(&self, path: &Path, range: TextRange, work: &Work) -> bool {
        let at_range = self.places.get(&range).map(Vec::as_slice).unwrap_or_default();
        at_range.iter().any(|known| known == path)
            || at_range.iter().any(|known| {
                work.compared(1);
                work.same_file(known, path)
            })
    }
}

/// The declarations of every file whose qualified name and kind pair with one of `declared`
/// on the other side (signature or implementation), compiled by one project with it.
fn partners_by_qualified_name(
    index: &SyntaxIndex,
    files: &[PathBuf],
    declared: &[Declared],
    same_project: &dyn Fn(&Path, &Path) -> bool,
    known: &mut KnownPlaces,
    work: &Work,
) -> Vec<Declared> {
    // Each wanted declaration under its qualified key: a candidate is compared only with the
    // declarations of its own qualified name.
    let mut wanted: HashMap<String, Vec<(bool, DeclarationKind, &Path)>> = HashMap::new();
    for declaration in declared {
        if let Some(kind) = declaration.kind {
            wanted.entry(declaration.qualified_key()).or_default().push((
                declaration.is_signature(),
                kind,
                declaration.path.as_path(),
            ));
        }
    }
    if wanted.is_empty() {
        return Vec::new();
    }
    // A partner's qualified key ends with its own name: that is compared first, once per name.
    let wanted_last: HashSet<String> =
        declared.iter().filter_map(|declaration| segments(&declaration.full_name).pop()).collect();
    let mut last_wanted: HashMap<NameId, bool> = HashMap::new();
    let mut partners: Vec<Declared> = Vec::new();
    for path in files {
        let Some(file) = index.file(path) else { continue };
        let signature_file = is_signature_file(path);
        for (slot, declaration) in file.index.declarations.iter().enumerate() {
            let own_name_wanted = *last_wanted.entry(declaration.name).or_insert_with(|| {
                segments(&index.name(declaration.name)).pop().is_some_and(|own| wanted_last.contains(&own))
            });
            if !own_name_wanted {
                continue;
            }
            let full_name = index.full_name(&file.index, slot);
            let key = segments(&full_name).join(".");
            let Some(same_key) = wanted.get(&key) else { continue };
            let pairs = same_key.iter().any(|(wanted_signature, wanted_kind, wanted_path)| {
                work.compared(1);
                *wanted_signature != signature_file
                    && if signature_file {
                        kinds_pair(declaration.kind, *wanted_kind)
                    } else {
                        kinds_pair(*wanted_kind, declaration.kind)
                    }
                    && same_project(wanted_path, path)
            });
            if !pairs {
                continue;
            }
            let partner = Declared::from_index(index, full_name, path.clone(), declaration);
            if !known.contains(path, partner.name_range, work) {
                known.insert(path, partner.name_range);
                partners.push(partner);
            }
        }
    }
    partners
}

/// For a declaration no partner pairs with yet: the one declaration of its name and a pairing
/// kind in its partner file that is not another declaration's partner, when there is exactly
/// one and it is not known already.
fn partner_in_partner_file(
    index: &SyntaxIndex,
    files: &HashSet<&Path>,
    known: &mut KnownPlaces,
    declaration: &Declared,
    work: &Work,
) -> Option<Declared> {
    let kind = declaration.kind?;
    let partner_path = partner_file(&declaration.path).filter(|path| files.contains(path.as_path()))?;
    let file = index.file(&partner_path)?;
    let own = index.file(&declaration.path)?;
    let name = plain_name(declaration.name());
    // The qualified names the declaration's own file gives this name: a candidate with one of
    // them is that declaration's partner, never this one's (a `.fsi` whose `module LowPriority`
    // members the grammar lost or put in the class, beside `HighPriority.Bind`: `LowPriority.Bind`
    // of the `.fs` is not `HighPriority`'s).
    let own_full_names: HashSet<String> =
        named_in(index, &own.index, &name, work).map(|(own_slot, _)| index.full_name(&own.index, own_slot)).collect();
    let signature_partner = is_signature_file(&partner_path);
    let mut unpaired = named_in(index, &file.index, &name, work)
        .filter(
            |(_, candidate)| {
                if signature_partner { kinds_pair(candidate.kind, kind) } else { kinds_pair(kind, candidate.kind) }
            },
        )
        .map(|(slot, candidate)| (index.full_name(&file.index, slot), candidate))
        .filter(|(full_name, _)| !own_full_names.contains(full_name));
    let (Some((full_name, candidate)), None) = (unpaired.next(), unpaired.next()) else { return None };
    let partner = Declared::from_index(index, full_name, partner_path.clone(), candidate);
    if known.contains(&partner_path, partner.name_range, work) {
        return None;
    }
    known.insert(&partner_path, partner.name_range);
    Some(partner)
}

/// The declarations of `file` (with their slots) whose plain name is `name`.
fn named_in<'a>(
    index: &'a SyntaxIndex,
    file: &'a FileIndex,
    name: &'a str,
    work: &'a Work,
) -> impl Iterator<Item = (usize, &'a Declaration)> + 'a {
    file.declarations.iter().enumerate().filter(move |(_, declaration)| {
        work.compared(1);
        plain_name(&index.name(declaration.name)) == name
    })
}

/// `X.fs` for `X.fsi` and `X.fsi` for `X.fs`.
pub fn partner_file(path: &Path) -> Option<PathBuf> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "fsi" => Some(path.with_extension("fs")),
        "fs" => Some(path.with_extension("fsi")),
        _ => None,
    }
}

/// What `workspace/symbol` is asked: the last segment of the name looked for.
pub fn workspace_symbol_query(arguments: &FindArguments) -> Option<String> {
    let wanted = wanted(arguments);
    let name = wanted.member.or(wanted.query)?;
    let last = segments(&name).pop().unwrap_or_default();
    let last = names::operator_core(&last).map(str::to_owned).unwrap_or(last);
    // FSAC matches a case-sensitive prefix: a substring search cannot be expressed.
    (!last.is_empty() && arguments.exact).then_some(last)
}

/// A declaration the backend reports that the syntax index can neither confirm nor refute:
/// it has no declaration there, but the place lies in a region its parser could not read.
/// The declaration is kept (the backend's word is not overruled without proof), and the
/// disagreement makes the answer partial and is listed (`crossCheck.unconfirmedByIndex`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unconfirmed {
    pub path: PathBuf,
    pub name_range: TextRange,
    /// Why the index cannot tell: `error_region`, `container_unknown_to_index` (FSAC's
    /// container is no declaration the index has in that file), or `qualifier_unknown` (FSAC names no
    /// container and the index cannot read the place, so the query's qualifier is unverified),
    /// or `container_lost_in_error_region` (the index's containers of the place are its guesses
    /// past an error region, and its name differs from the query's).
    pub reason: &'static str,
}

/// What the syntax index says of the place a `workspace/symbol` item names (`declared`: the
/// index holds a declaration there).
fn index_reading_of_item(
    index: &SyntaxIndex,
    path: &Path,
    range: TextRange,
    container: &str,
    declared: bool,
) -> IndexReading {
    let index_reading = if declared { IndexReading::Declares } else { index_reading_at(index, path, range) };
    // No proof either where FSAC names a container the index does not know in that file:
    // the grammar lost the container (its header in an error region), so its parse of the
    // members below is no reading of them (`ListBuilder.Yield` under a lost `ListBuilder`).
    if index_reading == IndexReading::ProvesNone && !container.is_empty() && !index_declares(index, path, container) {
        return IndexReading::CannotTell("container_unknown_to_index");
    }
    index_reading
}

/// The full name of a `workspace/symbol` item (`container` and `name` as FSAC gave them):
/// the index's for the declaration at its place, else FSAC's.
fn full_name_of_item(
    index: &SyntaxIndex,
    (path, range): (&Path, TextRange),
    from_index: Option<&(String, Declaration)>,
    (container, name): (&str, &str),
    query: &str,
    exact: bool,
) -> String {
    match from_index {
        Some((full_name, _)) => {
            // In a file the grammar could not read whole, the index's containers past an
            // error region are guesses (a module's range may end early, leaving its
            // later bindings at the namespace): FSAC's container names the declaration
            // too, so either name may match, and FSAC's wins when only it does.
            let degraded = index.file(path).is_some_and(|file| file.index.health.status != HealthStatus::Clean);
            let fsac_name = fsac_full_name(full_name, container, name);
            match fsac_name {
                Some(fsac_name)
                    if degraded
                        && !qualified_matches(full_name, query, exact)
                        && qualified_matches(&fsac_name, query, exact) =>
                {
                    fsac_name
                }
                _ => full_name.clone(),
            }
        }
        None if container.is_empty() => name.to_owned(),
        // FSAC names the immediate container only: its full name is the index's when the file
        // declares one container of that name (the namespace a partial parse kept around it).
        None => match container_full_name(index, path, container, range) {
            Some(container) => format!("{container}.{name}"),
            None => format!("{container}.{name}"),
        },
    }
}

/// The index's full name of the namespace, module or type named `container` (its last
/// segment) that holds `range` in `path` (the innermost), else of the one such declaration
/// the file has; `None` when it has none or several and none holds the place.
fn container_full_name(index: &SyntaxIndex, path: &Path, container: &str, range: TextRange) -> Option<String> {
    let file = index.file(path)?;
    let wanted = plain_name(container);
    let named: Vec<(usize, &Declaration)> = file
        .index
        .declarations
        .iter()
        .enumerate()
        .filter(|(_, declaration)| {
            declaration.kind.is_container()
                && segments(&index.name(declaration.name)).pop().is_some_and(|own| plain_name(&own) == wanted)
        })
        .collect();
    let holding = named
        .iter()
        .filter(|(_, declaration)| declaration.range.start <= range.start && range.end <= declaration.range.end)
        .max_by_key(|(_, declaration)| declaration.range.start);
    let slot = match (holding, named.as_slice()) {
        (Some((slot, _)), _) => *slot,
        (None, [(slot, _)]) => *slot,
        _ => return None,
    };
    Some(index.full_name(&file.index, slot))
}

/// Merges `workspace/symbol` answers into `declared`: a known declaration gains the source,
/// an unknown one is added when it matches (kinds auto, symbol and definition only: FSAC's
/// answer does not say which type owns a member). Answers the added declarations that the
/// index could not confirm ([`Unconfirmed`]).
///
/// `text_of` reads a file's text (the editor's buffer first): an item whose range is not its
/// name (an abstract member's) is placed at its name ([`name_before_signature`]).
pub fn merge_workspace_symbols(
    declared: &mut Vec<Declared>,
    answer: &Value,
    arguments: &FindArguments,
    index: &SyntaxIndex,
    in_workspace: &dyn Fn(&Path) -> bool,
    text_of: &dyn Fn(&Path) -> Option<String>,
    work: &Work,
) -> Vec<Unconfirmed> {
    let mut unconfirmed = Vec::new();
    let wanted = wanted(arguments);
    // The declarations by file and the start of their name: an answer names a known one when
    // its range starts there (its whole range or its name's), the first in `declared` order.
    let mut by_start: HashMap<(FileKey, Position), usize> = HashMap::new();
    for (slot, declaration) in declared.iter().enumerate() {
        by_start.entry((work.file_key(&declaration.path), declaration.name_range.start)).or_insert(slot);
    }
    // Each file's text, read once for all its items.
    let mut texts: HashMap<PathBuf, Option<String>> = HashMap::new();
    for item in answer.as_array().into_iter().flatten() {
        let Some(uri) = item.pointer("/location/uri").and_then(Value::as_str) else { continue };
        let Some(path) = crate::uri::uri_to_path(uri) else { continue };
        let Some(range) = item.pointer("/location/range").and_then(range_from_json) else { continue };
        let name = item["name"].as_str().unwrap_or_default();
        work.compared(1);
        if let Some(slot) = by_start.get(&(work.file_key(&path), range.start)) {
            declared[*slot].sources.insert("fsac-workspace-symbol");
            continue;
        }
        // FSAC lists an abstract member at its signature's type (FCS's navigation range), a
        // place with no name at all or another symbol's (`'T`): the declaration is the name
        // written before it. Asked at that range, FSAC's references were the range itself or
        // the uses of a type parameter, listed as this member's (AsyncSeq's
        // `AsyncSeqOp.FoldAsync`, complete with a site the compiler does not have).
        let text = texts.entry(path.clone()).or_insert_with(|| text_of(&path));
        let range = text
            .as_deref()
            .and_then(|text| name_before_signature(text, range, name.trim_start_matches("``").trim_end_matches("``")))
            .unwrap_or(range);
        if let Some(slot) = by_start.get(&(work.file_key(&path), range.start)) {
            declared[*slot].sources.insert("fsac-workspace-symbol");
            continue;
        }
        let Some(query) = &wanted.query else { continue };
        if !in_workspace(&path) {
            continue;
        }
        // Prefer the syntax layer's full name for the declaration at that place.
        let from_index = index_declaration_at(index, &path, range, name);
        // An anonymous record's field is named by no type: a qualified query does not name it.
        if from_index.as_ref().is_some_and(|(_, _, anonymous)| *anonymous) && segments(query).len() > 1 {
            continue;
        }
        let from_index = from_index.map(|(full_name, declaration, _)| (full_name, declaration));
        // FSAC's range of a dotted namespace or module (`module Orders.Order`, its whole range)
        // names the declaration the index holds at the name's last segment.
        if let Some((_, declaration)) = &from_index {
            let at = index_name_range(&index.name(declaration.name), declaration).start;
            if let Some(slot) = by_start.get(&(work.file_key(&path), at)) {
                declared[*slot].sources.insert("fsac-workspace-symbol");
                continue;
            }
        }
        // The syntax index decides what is a declaration where it has proof: a place FSAC
        // lists where a clean parse holds no declaration (a pattern `| Case _`, a use) is not
        // taken as one. Where the index cannot tell (an error region of a degraded file), the
        // backend's declaration is kept and the disagreement is listed.
        let container = item["containerName"].as_str().unwrap_or_default();
        let index_reading = index_reading_of_item(index, &path, range, container, from_index.is_some());
        if index_reading == IndexReading::ProvesNone {
            continue;
        }
        let mut full_name =
            full_name_of_item(index, (&path, range), from_index.as_ref(), (container, name), query, arguments.exact);
        let mut reading = index_reading;
        if !qualified_matches(&full_name, query, arguments.exact) {
            let item = ItemPlace { index, path: &path, container, name };
            match kept_though_named_otherwise(&item, from_index.as_ref(), index_reading, query, arguments.exact) {
                Some((placed, reason)) => {
                    full_name = placed.unwrap_or(full_name);
                    reading = IndexReading::CannotTell(reason);
                }
                None => continue,
            }
        }
        let name_range = from_index
            .as_ref()
            .map_or(range, |(_, declaration)| index_name_range(&index.name(declaration.name), declaration));
        let item = ItemPlace { index, path: &path, container, name };
        let read_by_its_line =
            confirmed_by_its_line(&item, texts[&path].as_deref(), (range, name_range), reading, from_index.is_some());
        if let IndexReading::CannotTell(reason) = reading
            && read_by_its_line.is_none()
        {
            unconfirmed.push(Unconfirmed { path: path.clone(), name_range, reason });
        }
        // FSAC's range of a member can be its whole definition: the line gives its name's.
        let name_range = read_by_its_line.map_or(name_range, |(_, name)| name);
        by_start.entry((work.file_key(&path), name_range.start)).or_insert(declared.len());
        declared.push(Declared {
            full_name,
            path,
            name_range,
            kind: from_index
                .as_ref()
                .map(|(_, declaration)| declaration.kind)
                .or(read_by_its_line.map(|(kind, _)| kind)),
            access: from_index.as_ref().map(|(_, declaration)| declaration.access),
            header_bytes: from_index.as_ref().map(|(_, declaration)| declaration.header_bytes),
            sources: BTreeSet::from(["fsac-workspace-symbol"]),
            compiler_name: None,
        });
    }
    unconfirmed
}

/// A `workspace/symbol` item: the index, its file, FSAC's container and name.
struct ItemPlace<'a> {
    index: &'a SyntaxIndex,
    path: &'a Path,
    container: &'a str,
    name: &'a str,
}

/// A declaration whose full name does not match the query that is kept all the same, listed
/// (the answer is not complete), with the reason and, when it is FSAC's, the name it goes by:
/// one the index cannot read for which FSAC names no container (its qualifier is unknown, so it
/// can be neither ruled out nor confirmed: `Builders.ListBuilder` declared right after a member
/// body the grammar could not read); or one the index read past an error region under a
/// container that is its guess (the index's name contradicts the query, FSAC's does not).
fn kept_though_named_otherwise(
    item: &ItemPlace,
    from_index: Option<&(String, Declaration)>,
    reading: IndexReading,
    query: &str,
    exact: bool,
) -> Option<(Option<String>, &'static str)> {
    let qualifier_unknown = from_index.is_none()
        && item.container.is_empty()
        && matches!(reading, IndexReading::CannotTell(_) | IndexReading::Unread)
        && qualified_matches(item.name, &segments(query).pop().unwrap_or_default(), exact);
    if qualifier_unknown {
        return Some((None, "qualifier_unknown"));
    }
    from_index
        .and_then(|(_, declaration)| name_past_lost_container(item.index, item.path, declaration, item.container))
        .filter(|placed| qualified_matches(placed, query, exact))
        .map(|placed| (Some(placed), "container_lost_in_error_region"))
}

/// Where the grammar's reading cannot tell, the line itself may: a declaration header whose
/// name stands exactly where FSAC puts it (`static member val Instance` that the grammar read
/// as a constructor's argument) confirms FSAC's declaration ([`declared_by_its_line`]). Only
/// where the declaration's full name is the index's (`indexed`, or its container read): a name
/// made of FSAC's container alone lacks the namespaces, and the answer must not say complete
/// under it.
fn confirmed_by_its_line(
    item: &ItemPlace,
    text: Option<&str>,
    (range, name_range): (TextRange, TextRange),
    reading: IndexReading,
    indexed: bool,
) -> Option<(DeclarationKind, TextRange)> {
    let named_by_the_index = indexed
        || (!item.container.is_empty() && container_full_name(item.index, item.path, item.container, range).is_some());
    match reading {
        IndexReading::CannotTell("error_region" | "suspected_misparse") if named_by_the_index => {
            declared_by_its_line(text?, name_range, item.name)
        }
        _ => None,
    }
}

/// The kind and the name's range of the declaration the text of `range`'s first line declares
/// with its name `name` starting at `range`'s start (read as [`crate::syntax::recover`] reads
/// the lines of an error region: `let`, `member`, `static member val`, `override`, `type`, …),
/// if it does.
fn declared_by_its_line(text: &str, range: TextRange, name: &str) -> Option<(DeclarationKind, TextRange)> {
    use crate::syntax::recover::{LineContext, recovered_line};
    let line = text.lines().nth(range.start.line as usize)?;
    let at = crate::columns::exact_byte_at_column(line, range.start.character)?;
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let wanted = name.trim_start_matches("``").trim_end_matches("``");
    [true, false].into_iter().find_map(|inside_type| {
        let read = recovered_line(trimmed, LineContext { inside_type, previous_sibling: None })?;
        let stored = read.stored_name.trim_start_matches("``").trim_end_matches("``");
        let written = line.get(at..at + read.name_length)?;
        let end = range.start.character + written.encode_utf16().count() as u32;
        let name_range = TextRange {
            start: range.start,
            end: crate::syntax::model::Position { line: range.start.line, character: end },
        };
        (indent + read.name_offset == at && stored == wanted).then_some((read.kind, name_range))
    })
}

/// The full name of a `workspace/symbol` item whose declaration the index holds under
/// containers it guessed past an error region (the grammar lost where a module ends, and the
/// lines after it were read into that module: `type Widener` at column 0 under `module private
/// Conv` whose inline IL it could not read): the index's namespaces, FSAC's container (its
/// immediate parent, when it names one) and the name. `None` where the index's reading is no
/// guess: a file the grammar read whole, or a declaration the tree read with no error region
/// between its container's start and its name.
fn name_past_lost_container(
    index: &SyntaxIndex,
    path: &Path,
    declaration: &Declaration,
    container: &str,
) -> Option<String> {
    let file = index.file(path)?;
    let health = &file.index.health;
    if health.status == HealthStatus::Clean {
        return None;
    }
    let slot =
        file.index.declarations.iter().position(|candidate| {
            candidate.name_start == declaration.name_start && candidate.name == declaration.name
        })?;
    let chain = file.index.declaration_chain(slot);
    let parent = file.index.declarations.get(declaration.parent as usize)?;
    let after_error = health
        .error_regions
        .iter()
        .any(|region| parent.range.start <= region.start && region.start <= declaration.name_start);
    if declaration.certain && !after_error {
        return None;
    }
    let mut placed: Vec<String> = chain
        .iter()
        .filter_map(|link| file.index.declarations.get(*link))
        .take_while(|link| link.kind == DeclarationKind::Namespace)
        .flat_map(|namespace| segments(&index.name(namespace.name)))
        .collect();
    if !container.is_empty() && !placed.ends_with(&segments(container)) {
        placed.extend(segments(container));
    }
    placed.push(index.name(declaration.name).to_string());
    Some(placed.join("."))
}

/// The syntax index's declaration at the place a `workspace/symbol` item names (`range`, the
/// item's `name`): its full name, the declaration, and whether it is an anonymous record's
/// field. FSAC's range may be the whole binding after the name (`describe (x: int) = …`).
fn index_declaration_at(
    index: &SyntaxIndex,
    path: &Path,
    range: TextRange,
    name: &str,
) -> Option<(String, Declaration, bool)> {
    let file = index.file(path)?;
    let same_name = |declaration: &Declaration| plain_name(&index.name(declaration.name)) == plain_name(name);
    let declarations = || file.index.declarations.iter().enumerate();
    declarations()
        .find(|(_, declaration)| {
            declaration.name_range() == range
                || declaration.range == range
                || (declaration.name_start == range.start && same_name(declaration))
                // FSAC's range of the whole declaration, where the index read its end
                // elsewhere (a suspected misparse cut it short).
                || (declaration.range.start == range.start && same_name(declaration))
        })
        // FSAC's range of the whole declaration with its doc comment or attributes (`///
        // Validation<'a, 'err> is …` above `type Validation<…> =`, `[<RequireQualifiedAccess>]`
        // above `module Validation =`): the outermost declaration of the name inside it.
        .or_else(|| {
            declarations()
                .filter(|(_, declaration)| {
                    let name_range = declaration.name_range();
                    range.start <= declaration.range.start && name_range.end <= range.end && same_name(declaration)
                })
                .min_by_key(|(_, declaration)| declaration.range.start)
        })
        .map(|(slot, declaration)| {
            let anonymous = compiler_names::is_anonymous_record_field(&file.index, slot);
            (index.full_name(&file.index, slot), declaration.clone(), anonymous)
        })
}

/// The name of an abstract member whose `workspace/symbol` range is its signature's type
/// (`abstract member Fold : 'S -> 'S` listed at `'S -> 'S`, as FCS's navigation items give
/// it; FSAC passes the range on unchanged): the `name` written right before the range's `:`
/// (with type parameters, `Fold<'a> :`), on the range's line or, when the type starts a line,
/// at the end of the line above. `None` when the range does not follow `name :`.
pub fn name_before_signature(text: &str, range: TextRange, name: &str) -> Option<TextRange> {
    if name.is_empty() {
        return None;
    }
    let line_text = |line: u32| text.split('\n').nth(line as usize).map(|line| line.trim_end_matches('\r'));
    let line = line_text(range.start.line)?;
    let cut = crate::columns::exact_byte_at_column(line, range.start.character)?;
    let (at_line, before) = if line[..cut].trim().is_empty() && range.start.line > 0 {
        (range.start.line - 1, line_text(range.start.line - 1)?)
    } else {
        (range.start.line, &line[..cut])
    };
    let before_colon = before.trim_end().strip_suffix(':')?.trim_end();
    let before_name = match before_colon.strip_suffix('>') {
        Some(open) => &open[..open.rfind('<')?],
        None => before_colon,
    };
    let backticked = format!("``{name}``");
    let written = [backticked.as_str(), name].into_iter().find(|written| before_name.ends_with(written))?;
    let start = before_name.len() - written.len();
    let is_identifier = crate::syntax::words::is_identifier_char;
    if before_name[..start].chars().next_back().is_some_and(|character| is_identifier(character) || character == '.') {
        return None;
    }
    let column = |byte: usize| before_name[..byte].encode_utf16().count() as u32;
    Some(TextRange {
        start: Position { line: at_line, character: column(start) },
        end: Position { line: at_line, character: column(before_name.len()) },
    })
}

/// The full name FSAC's `workspace/symbol` item gives a declaration the index names
/// `index_name`: the index's enclosing name with FSAC's container (its immediate parent) and
/// FSAC's name, when FSAC names a container the index's name does not end with.
fn fsac_full_name(index_name: &str, container: &str, name: &str) -> Option<String> {
    if container.is_empty() {
        return None;
    }
    let mut index_segments = segments(index_name);
    index_segments.pop();
    if index_segments.last().map(String::as_str) == Some(container) {
        return None;
    }
    let mut full = index_segments.join(".");
    if !full.is_empty() {
        full.push('.');
    }
    Some(format!("{full}{container}.{name}"))
}

/// True when the index has a declaration named `name` (its last segment) in `path`.
fn index_declares(index: &SyntaxIndex, path: &Path, name: &str) -> bool {
    let wanted = segments(name).pop().unwrap_or_default();
    index.file(path).is_some_and(|file| {
        file.index.declarations.iter().any(|declaration| {
            segments(&index.name(declaration.name)).pop().is_some_and(|own| name_matches(&own, &wanted, true))
        })
    })
}

/// What the syntax index says about a place the backend calls a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IndexReading {
    /// It has a declaration there.
    Declares,
    /// A clean parse of that place holds no declaration: proof that there is none.
    ProvesNone,
    /// It has no declaration there, but its parse of the place is not to be trusted.
    CannotTell(&'static str),
    /// It has not read the file with a usable tree (timed out, failed, its root an error):
    /// the backend's word alone decides, as it always has for such files.
    Unread,
}

/// The index's reading of `range`'s start in `path`, when it has no declaration there: proof
/// only where the file has a usable tree and the place lies outside every error region its
/// health lists (the silent mis-parses bend expressions, never a declaration's place).
fn index_reading_at(index: &SyntaxIndex, path: &Path, range: TextRange) -> IndexReading {
    let Some(file) = index.file(path) else { return IndexReading::Unread };
    let health = &file.index.health;
    let usable = matches!(health.status, HealthStatus::Clean | HealthStatus::Degraded) && !health.root_is_error;
    if !usable {
        return IndexReading::Unread;
    }
    if file.index.declarations.iter().any(|declaration| declaration.name_start == range.start) {
        return IndexReading::Declares;
    }
    // By lines: a region can end a few characters before a declaration's name on the same
    // line (`type ListBuilder() =` after a member body the grammar could not read), and what
    // the grammar resumed with on that line is no proof.
    let inside = |region: &TextRange| region.start.line <= range.start.line && range.start.line <= region.end.line;
    if health.error_regions.iter().any(inside) {
        return IndexReading::CannotTell("error_region");
    }
    // Nor where the grammar read the code without an error but wrongly (members read as a
    // constructor's arguments, their keywords as identifiers).
    if health.misparses.iter().any(|misparse| inside(&misparse.region)) {
        return IndexReading::CannotTell("suspected_misparse");
    }
    IndexReading::ProvesNone
}

/// Paths compare equal when they name the same file (symbolic links resolved when possible).
pub fn same_file(left: &Path, right: &Path) -> bool {
    left == right || (left.canonicalize().ok().is_some_and(|left| right.canonicalize().ok() == Some(left)))
}

/// An LSP range object as a [`TextRange`].
pub fn range_from_json(value: &Value) -> Option<TextRange> {
    let number = |pointer: &str| value.pointer(pointer).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
    Some(TextRange::from_array([
        number("/start/line")?,
        number("/start/character")?,
        number("/end/line")?,
        number("/end/character")?,
    ]))
}

/// The identifier around UTF-16 column `character` of `line`, if any.
pub fn identifier_at(line: &str, character: u32) -> Option<String> {
    let is_identifier = crate::syntax::words::is_identifier_char;
    let target = crate::columns::byte_at_column(line, character).filter(|at| *at < line.len())?;
    let start =
        line[..target].char_indices().rev().take_while(|(_, c)| is_identifier(*c)).last().map_or(target, |(b, _)| b);
    let end = line[target..].char_indices().find(|(_, c)| !is_identifier(*c)).map_or(line.len(), |(b, _)| target + b);
    (start < end).then(|| line[start..end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_queries_match_suffixes() {
        assert!(qualified_matches("Shipping.Domain.Shipment.Weight", "Weight", true));
        assert!(qualified_matches("Shipping.Domain.Shipment.Weight", "Shipment.Weight", true));
        assert!(qualified_matches("Shipping.Domain.Shipment.Weight", "Shipping.Domain.Shipment.Weight", true));
        assert!(!qualified_matches("Shipping.Domain.Parcel.Weight", "Shipment.Weight", true));
        assert!(!qualified_matches("Shipping.Domain.Shipment.Weight", "hipment.Weight", true));
        assert!(qualified_matches("Shipping.Domain.Shipment.Weight", "Shipment.eig", false));
        assert!(!qualified_matches("Shipping.Domain.Shipment.Weight", "Shipment.eig", true));
        assert_eq!(segments("A.``b.c``.D"), ["A", "b.c", "D"]);
        assert_eq!(written_segments("A.``Bug #42 (b.c)``"), ["A", "``Bug #42 (b.c)``"]);
        assert_eq!(written_segments("Parsers.(.>>.)"), ["Parsers", "(.>>.)"]);
    }

    /// FCS's navigation range of an abstract member is its type; the name is before the `:`.
    #[test]
    fn an_abstract_members_signature_range_names_the_member_written_before_it() {
        let range = |line: u32, start: u32, end: u32| TextRange::from_array([line, start, line, end]);
        let text = "type T<'T>() =\n  abstract member Fold : ('S -> 'T -> 'S) -> 'S\n  abstract Items: 'T list\n  abstract Pick<'U> : 'U -> 'U\n  abstract member ``Ünïcode name`` : int\n  abstract member Long :\n      'T -> 'T\n";
        assert_eq!(name_before_signature(text, range(1, 24, 47), "Fold"), Some(range(1, 18, 22)));
        assert_eq!(name_before_signature(text, range(2, 17, 24), "Items"), Some(range(2, 11, 16)));
        assert_eq!(name_before_signature(text, range(3, 22, 30), "Pick"), Some(range(3, 11, 15)));
        assert_eq!(name_before_signature(text, range(4, 36, 39), "Ünïcode name"), Some(range(4, 18, 34)));
        assert_eq!(name_before_signature(text, range(6, 6, 14), "Long"), Some(range(5, 18, 22)));
        // A range at the name, or after another name, is left alone.
        assert_eq!(name_before_signature(text, range(1, 18, 22), "Fold"), None);
        assert_eq!(name_before_signature(text, range(1, 24, 47), "Old"), None);
    }

    /// A member the grammar read as a constructor's argument: its line declares it where FSAC
    /// puts it, whatever FSAC's range spans; a line that declares another name there, or
    /// nothing, does not.
    #[test]
    fn a_declaration_s_own_line_confirms_it_where_its_name_starts() {
        let range =
            |line: u32, start: u32, end_line: u32, end: u32| TextRange::from_array([line, start, end_line, end]);
        let text = "type R() =\n  inherit B()\n\n   static member val Instance = R() with get\n   override this.Invoke(x) =\n     x + 1\n";
        assert_eq!(
            declared_by_its_line(text, range(3, 21, 3, 29), "Instance"),
            Some((DeclarationKind::AutoProperty, range(3, 21, 3, 29)))
        );
        assert_eq!(
            declared_by_its_line(text, range(4, 17, 5, 10), "Invoke"),
            Some((DeclarationKind::Override, range(4, 17, 4, 23)))
        );
        assert_eq!(declared_by_its_line(text, range(4, 17, 5, 10), "Run"), None);
        assert_eq!(declared_by_its_line(text, range(4, 12, 4, 16), "this"), None);
        assert_eq!(declared_by_its_line(text, range(5, 5, 5, 6), "x"), None);
    }

    #[test]
    fn positions_from_words() {
        let line = "    bumped.Weight <- bumped.Weight + 1.0";
        assert_eq!(crate::syntax::words::word_column(line, "Weight", 1), Some(11));
        assert_eq!(crate::syntax::words::word_column(line, "Weight", 2), Some(28));
        assert_eq!(crate::syntax::words::word_column(line, "Weight", 3), None);
        assert_eq!(crate::syntax::words::word_column(line, "eight", 1), None);
        assert_eq!(crate::syntax::words::word_column("é.Weight", "Weight", 1), Some(2));
        assert_eq!(identifier_at(line, 13).as_deref(), Some("Weight"));
        assert_eq!(identifier_at(line, 0), None);
        assert_eq!(identifier_at(line, 500), None);
    }
}

#[cfg(test)]
mod lost_container_tests {
    use super::*;

    /// A type the index reads under `module private Conv` past inline IL it could not read,
    /// where FSAC names no container (a namespace's type): the index's name contradicts the
    /// query, FSAC's does not, so the declaration is kept and listed, never dropped (FSharp.UMX's
    /// `type UMX` after `module private Unsafe` answered `not_found` while complete).
    #[test]
    fn a_declaration_the_index_placed_past_an_error_region_is_kept_when_the_backend_does_not_contradict_it() {
        let text = "namespace Ns\n\nmodule private Conv =\n    let inline toInt64 (a : int) : int64 =\n        (# \"conv.i8\" a\n            : int64 #)\n    type Widener =\n        static member widen (x : int) : int64 = toInt64 x\n";
        let path = PathBuf::from("/w/Conv.fs");
        let mut overlay = crate::syntax::Overlay::new();
        overlay.insert(path.clone(), text);
        let index = SyntaxIndex::new(crate::syntax::IndexOptions::without_cache());
        index.refresh_path(&path, &overlay);
        let item = |container: &str| {
            json!([{
                "name": "Widener",
                "kind": 5,
                "location": {
                    "uri": "file:///w/Conv.fs",
                    "range": { "start": { "line": 6, "character": 9 }, "end": { "line": 7, "character": 57 } }
                },
                "containerName": container
            }])
        };
        let arguments: FindArguments = serde_json::from_value(json!({ "query": "Ns.Widener" })).unwrap();
        let merge = |answer: &Value| {
            let mut declared = syntax_declarations(&index, std::slice::from_ref(&path), &arguments);
            assert!(declared.is_empty(), "the index reads Ns.Conv.Widener: {declared:?}");
            let unconfirmed = merge_workspace_symbols(
                &mut declared,
                answer,
                &arguments,
                &index,
                &|_| true,
                &|_| Some(text.to_owned()),
                &Work::default(),
            );
            (declared, unconfirmed)
        };

        let (declared, unconfirmed) = merge(&item(""));
        let names: Vec<&str> = declared.iter().map(|declared| declared.full_name.as_str()).collect();
        assert_eq!(names, ["Ns.Widener"]);
        assert_eq!(declared[0].name_range, TextRange::from_array([6, 9, 6, 16]));
        assert_eq!(
            unconfirmed,
            [Unconfirmed {
                path: path.clone(),
                name_range: TextRange::from_array([6, 9, 6, 16]),
                reason: "container_lost_in_error_region"
            }]
        );

        // FSAC naming the module the index read agrees with the index: the query names none.
        let (declared, unconfirmed) = merge(&item("Conv"));
        assert!(declared.is_empty() && unconfirmed.is_empty(), "{declared:?} {unconfirmed:?}");
    }
}
