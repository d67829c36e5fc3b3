//! `fslens.signatureDrift`: for every signature/implementation pair of the workspace's projects
//! (`X.fsi` compiled before `X.fs`, as F# requires), what the implementation declares publicly
//! that the signature lacks (hidden by the signature, maybe on purpose: reported, not judged)
//! and what the signature declares that the implementation no longer has (a build error,
//! FS0193 "requires a value"), each with the edit that would fix it. The edits are previewed
//! and never applied: the command only reads.
//!
//! Both files are read from their syntax trees (`crate::syntax`, tree-sitter-fsharp's
//! implementation and signature grammars). Only module-level items are compared: values
//! (`let` against `val`), types, exceptions and modules, by full name and kind. The `val` line
//! of a value the signature lacks needs the value's type: it is FSAC's (`fsharp/signature` at
//! the implementation's name, docs/fsac-protocol.md §6), and when FSAC cannot say the edit is
//! marked `typeNotKnown`. The signature grammar cannot read member signatures inside types
//! (`member X: T`, `new: …`); the syntax layer recovers those lines but the command compares
//! no members, and says so in `limits`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::commands::paths::{confine, display_relative, project_by_name_or_path};
use crate::commands::{CommandContext, CommandError};
use crate::documents::{LineIndex, Position as LspPosition, Range};
use crate::lsp::types::{TextDocumentIdentifier, TextDocumentPositionParams};
use crate::session_state::status::State;
use crate::syntax::model::{Access, DeclarationKind, GrammarKind, HealthStatus, LocalFileIndex, NO_PARENT, Position};
use crate::workspace::Project;

/// The arguments of `fslens.signatureDrift` (and the flags of `fslens signature-drift`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignatureDriftArguments {
    /// Only this project (its name, or its `.fsproj` relative to the workspace root or
    /// absolute inside it); default: every project of the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub project_path: Option<String>,
    /// Only the pair this file belongs to (its `.fsi` or its `.fs`), relative to the workspace
    /// root or absolute inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub path: Option<String>,
    /// How long to wait for FSAC (its load and its answers) for the types of the values a
    /// signature lacks, in milliseconds; past it those `val` lines are marked `typeNotKnown`.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub timeout_ms: TimeoutMs<60_000>,
}

impl CommandArguments for SignatureDriftArguments {
    fn validate(&self) -> Result<(), CommandError> {
        for (name, value) in [("projectPath", &self.project_path), ("path", &self.path)] {
            if value.as_deref().is_some_and(|value| value.trim().is_empty()) {
                return Err(CommandError::invalid_argument(name, "must not be empty"));
            }
        }
        Ok(())
    }
}

/// What an item of a pair is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DriftKind {
    /// A `let` of the implementation, a `val` of the signature.
    Value,
    /// A record, union, class, interface, enum, delegate or abbreviation.
    Type,
    Exception,
    Module,
}

impl DriftKind {
    fn of(kind: DeclarationKind) -> Option<DriftKind> {
        match kind {
            DeclarationKind::Let | DeclarationKind::Val => Some(DriftKind::Value),
            DeclarationKind::Exception => Some(DriftKind::Exception),
            DeclarationKind::Module => Some(DriftKind::Module),
            DeclarationKind::TypeExtension => None,
            kind if kind.is_type() => Some(DriftKind::Type),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DriftKind::Value => "value",
            DriftKind::Type => "type",
            DriftKind::Exception => "exception",
            DriftKind::Module => "module",
        }
    }
}

/// Where the type of a `val` line of a fix came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TypeSource {
    /// FSAC's `fsharp/signature` at the implementation's name (the compiler's type).
    Fsac,
    /// FSAC could not say (see the pair's `limits`): the line has no type.
    NotKnown,
}

/// Whether a fix's text can be applied as it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FixStatus {
    /// The edit is complete: every `val` type is the compiler's, every copied type has no
    /// members.
    Ready,
    /// A `val` line lacks its type (FSAC could not give it): `<type not known>` stands in.
    TypeNotKnown,
    /// A type was copied from the implementation with its members, whose bodies must be
    /// turned into `member X: T` signatures by hand.
    MembersNeedSignatures,
    /// The item was read where the parser could not read a file cleanly (the signature file
    /// for an addition, the item's own lines for a removal): it may be a misreading, so check
    /// it before applying the edit.
    Unverified,
}

/// One edit, previewed: never applied by the command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixEdit {
    /// The file the edit changes (the signature file), relative to the workspace root.
    pub file: String,
    pub range: Range,
    pub new_text: String,
    /// The text the edit replaces (empty for an insertion).
    pub old_text: String,
    /// What the edit does, in a sentence.
    pub description: String,
    pub status: FixStatus,
}

/// One item declared on one side of a pair and missing on the other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftItem {
    /// The full name, `Namespace.Module.name`.
    pub name: String,
    pub kind: DriftKind,
    /// The file that declares it, relative to the workspace root.
    pub file: String,
    /// 0-based line of its name in that file.
    pub line: u32,
    /// False when the parser read the declaration inside a region it could not parse cleanly.
    pub certain: bool,
    /// For a value the signature lacks: where its `val` type came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_source: Option<TypeSource>,
    pub fix: FixEdit,
}

/// One signature/implementation pair and how they differ.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PairDrift {
    /// The project compiling the pair (the first one, when several do).
    pub project: String,
    pub signature_file: String,
    pub implementation_file: String,
    /// Public items of the implementation the signature does not declare: hidden from other
    /// files by the signature (maybe on purpose). `private`/`internal` ones are not listed.
    pub implementation_only: Vec<DriftItem>,
    /// Items of the signature the implementation does not have: the build fails (FS0193).
    pub signature_only: Vec<DriftItem>,
    /// True when both files parsed cleanly and every fix is `ready`.
    pub complete: bool,
    /// What this pair's answer may have missed.
    pub limits: Vec<String>,
}

/// A signature file with no implementation after it in compile order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnpairedSignature {
    pub project: String,
    pub signature_file: String,
    pub reason: String,
}

/// Where the answer's facts came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DriftVia {
    /// The syntax trees of both files; no type was needed or FSAC gave none.
    Syntax,
    /// The syntax trees, and FSAC's types for the `val` lines.
    SyntaxAndFsac,
}

/// What FSAC was asked, and why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FsacUse {
    /// Whether FSAC was asked for the types of the values a signature lacks.
    pub asked: bool,
    /// FSAC's state when the command looked.
    pub state: Option<State>,
    /// Why it was not asked, or what it could not answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The answer of `fslens.signatureDrift`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureDriftAnswer {
    /// The projects whose compile items were searched for pairs.
    pub projects: Vec<String>,
    pub pairs: Vec<PairDrift>,
    pub unpaired_signatures: Vec<UnpairedSignature>,
    pub via: DriftVia,
    pub fsac: FsacUse,
    /// True when every pair is complete (nothing below is cut: the lists are whole).
    pub complete: bool,
    /// What no answer of this command compares (true of every pair).
    pub limits: Vec<String>,
    /// Always false: the fixes are previews.
    pub written_to_disk: bool,
}

/// What the command never compares, said in every answer.
const LIMITS: [&str; 4] = [
    "only module-level items are compared (values, types, exceptions, modules), by full name and kind: members \
     of types (member, abstract, new, override signatures) and type representations (record fields, union cases) \
     are not",
    "a `val` whose type differs from the implementation's (FS0034) is not detected: names are compared, not types",
    "`#if` branches are not evaluated: declarations of every branch count on both sides",
    "pairs are found in fslens's reading of the project files (Compile items in order); a pair FSAC compiles \
     under a Condition fslens cannot evaluate still counts",
];

pub async fn signature_drift(
    arguments: SignatureDriftArguments,
    mut context: CommandContext,
) -> Result<SignatureDriftAnswer, CommandError> {
    let deadline = tokio::time::Instant::now() + arguments.timeout_ms.as_duration_ms();
    let root = context.workspace_root()?.to_path_buf();
    let model = crate::commands::load_workspace_model(&root).await?;
    crate::commands::refuse_without_projects(&model)?;
    let projects: Vec<&Project> = match &arguments.project_path {
        Some(written) => vec![project_by_name_or_path(&model, &root, written)?],
        None => model.projects.iter().collect(),
    };
    let (mut pairs, unpaired) = pairs_of(&projects);
    if let Some(written) = &arguments.path {
        let path = confine(&root, written, "path")?;
        pairs.retain(|pair| pair.signature == path || pair.implementation == path);
        if pairs.is_empty() {
            return Err(CommandError::invalid_argument(
                "path",
                format!(
                    "`{written}` is neither the signature file nor the implementation file of a pair in {} (a pair is \
                     X.fsi compiled before X.fs)",
                    if arguments.project_path.is_some() { "that project" } else { "the workspace's projects" }
                ),
            ));
        }
    }
    let overlay = context.editor_buffers().await?;
    let read_pairs = pairs.clone();
    let compared = crate::commands::run_blocking(move || {
        read_pairs
            .iter()
            .map(|pair| {
                let signature = crate::commands::paths::current_text(&overlay, &pair.signature)?;
                let implementation = crate::commands::paths::current_text(&overlay, &pair.implementation)?;
                Ok(compare(&signature, &implementation))
            })
            .collect::<Result<Vec<Comparison>, CommandError>>()
    })
    .await?;

    // The types of the values the signatures lack, from FSAC.
    let wanted: Vec<(PathBuf, Position)> = pairs
        .iter()
        .zip(&compared)
        .flat_map(|(pair, comparison)| {
            comparison.values_needing_types().into_iter().map(|position| (pair.implementation.clone(), position))
        })
        .collect();
    let (types, fsac) = if wanted.is_empty() {
        (HashMap::new(), FsacUse { asked: false, state: None, reason: Some("no type was needed".to_owned()) })
    } else {
        types_from_fsac(&mut context, &pairs, &compared, &wanted, deadline).await
    };

    let display = |path: &Path| display_relative(&root, path);
    let mut answer_pairs = Vec::new();
    for (pair, comparison) in pairs.iter().zip(compared) {
        answer_pairs.push(comparison.into_pair(pair, &types, &fsac, &display));
    }
    let used_fsac = answer_pairs
        .iter()
        .flat_map(|pair| &pair.implementation_only)
        .any(|item| item.type_source == Some(TypeSource::Fsac));
    let complete = answer_pairs.iter().all(|pair| pair.complete);
    Ok(SignatureDriftAnswer {
        projects: projects.iter().map(|project| display(&project.path)).collect(),
        pairs: answer_pairs,
        unpaired_signatures: unpaired
            .into_iter()
            .map(|(project, signature, reason)| UnpairedSignature {
                project: display(&project),
                signature_file: display(&signature),
                reason,
            })
            .collect(),
        via: if used_fsac { DriftVia::SyntaxAndFsac } else { DriftVia::Syntax },
        fsac,
        complete,
        limits: LIMITS.iter().map(|limit| (*limit).to_owned()).collect(),
        written_to_disk: false,
    })
}

/// A signature file and the implementation it describes.
#[derive(Clone, Debug)]
struct Pair {
    project: PathBuf,
    signature: PathBuf,
    implementation: PathBuf,
}

/// The pairs of the projects' compile items (each pair once, under the first project compiling
/// it), and the signature files without an implementation after them.
fn pairs_of(projects: &[&Project]) -> (Vec<Pair>, Vec<(PathBuf, PathBuf, String)>) {
    let mut pairs: Vec<Pair> = Vec::new();
    let mut unpaired = Vec::new();
    let mut seen = HashSet::new();
    for project in projects {
        let items = &project.compile_items;
        for (slot, item) in items.iter().enumerate() {
            if GrammarKind::for_path(&item.path) != Some(GrammarKind::Signature) {
                continue;
            }
            let stem = item.path.with_extension("");
            let implementation = items[slot + 1..]
                .iter()
                .find(|later| {
                    later.path.with_extension("") == stem
                        && GrammarKind::for_path(&later.path) == Some(GrammarKind::Implementation)
                })
                .map(|later| later.path.clone());
            match implementation {
                Some(implementation) if item.exists => {
                    if seen.insert(item.path.clone()) {
                        pairs.push(Pair {
                            project: project.path.clone(),
                            signature: item.path.clone(),
                            implementation,
                        });
                    }
                }
                Some(_) => unpaired.push((
                    project.path.clone(),
                    item.path.clone(),
                    "the signature file does not exist (the project names it)".to_owned(),
                )),
                None => unpaired.push((
                    project.path.clone(),
                    item.path.clone(),
                    "no implementation file of the same name follows it in compile order (FS0240 in a build)"
                        .to_owned(),
                )),
            }
        }
    }
    (pairs, unpaired)
}

// ---- the comparison (pure) ---------------------------------------------------------------------

/// One module-level item of one file.
#[derive(Clone, Debug)]
struct Item {
    slot: usize,
    /// The name compared: the full name without namespaces and the whole-file module.
    key: String,
    full_name: String,
    name: String,
    kind: DriftKind,
    parent: Option<usize>,
    public: bool,
    certain: bool,
    name_start: Position,
    range_start_line: u32,
    range_end_line: u32,
    /// Member-like declarations under it (a type with members cannot be copied as it is).
    has_members: bool,
}

/// One file read for the comparison.
struct ReadFile {
    text: String,
    lines: LineIndex,
    parsed: Option<LocalFileIndex>,
    /// Why the file could not be read (a parse that failed or timed out).
    failure: Option<String>,
    items: Vec<Item>,
    /// The containers (namespaces and modules) by slot: their full names.
    containers: HashMap<usize, (String, DeclarationKind)>,
}

impl ReadFile {
    fn read(text: &str, grammar: GrammarKind) -> ReadFile {
        let lines = LineIndex::new(text);
        let mut file = ReadFile {
            text: text.to_owned(),
            lines,
            parsed: None,
            failure: None,
            items: Vec::new(),
            containers: HashMap::new(),
        };
        match crate::syntax::describe::index_text(text, grammar) {
            Ok(parsed) => {
                file.collect(&parsed);
                if matches!(parsed.index.health.status, HealthStatus::TimedOut | HealthStatus::Failed) {
                    file.failure =
                        Some(parsed.index.health.detail.clone().unwrap_or_else(|| "the parse failed".to_owned()));
                }
                file.parsed = Some(parsed);
            }
            Err(failure) => file.failure = Some(failure.to_string()),
        }
        file
    }

    fn collect(&mut self, parsed: &LocalFileIndex) {
        let index = &parsed.index;
        let name = |slot: usize| -> String {
            index
                .declarations
                .get(slot)
                .and_then(|declaration| parsed.names.get(declaration.name.0 as usize))
                .cloned()
                .unwrap_or_default()
        };
        for (slot, declaration) in index.declarations.iter().enumerate() {
            let chain = index.declaration_chain(slot);
            let full_name = chain.iter().map(|link| name(*link)).collect::<Vec<_>>().join(".");
            // The name compared leaves out namespaces and the whole-file module (`module A.B`
            // with no `=`): when the parser loses a file's wrapper (its root is ERROR, as for
            // most signature files with member signatures), the declarations recovered from
            // the lines have no namespace, and they must still match.
            let key = chain
                .iter()
                .filter(|link| {
                    index.declarations.get(**link).is_some_and(|link_declaration| {
                        !(link_declaration.kind == DeclarationKind::Namespace
                            || (link_declaration.kind == DeclarationKind::Module
                                && link_declaration.parent == NO_PARENT
                                && !self.line(link_declaration.name_start.line).trim_end().ends_with('=')))
                    })
                })
                .map(|link| name(*link))
                .collect::<Vec<_>>()
                .join(".");
            let parent = (declaration.parent != NO_PARENT).then_some(declaration.parent as usize);
            if matches!(declaration.kind, DeclarationKind::Namespace | DeclarationKind::Module) {
                self.containers.insert(slot, (key.clone(), declaration.kind));
            }
            let Some(kind) = DriftKind::of(declaration.kind) else { continue };
            // Module-level only: the parent is a namespace or a module (or nothing).
            let module_level = parent.is_none_or(|parent| {
                index
                    .declarations
                    .get(parent)
                    .is_some_and(|parent| matches!(parent.kind, DeclarationKind::Namespace | DeclarationKind::Module))
            });
            // A declaration recovered from the lines of a region the parser could not read may
            // sit inside a type (`val internal array: 'T[]` of a struct): module-level only
            // when the nearest less indented line above it opens a module or a namespace.
            if !module_level || (!declaration.certain && !self.opens_module_above(declaration.name_start.line)) {
                continue;
            }
            let public = chain.iter().all(|link| {
                index
                    .declarations
                    .get(*link)
                    .is_some_and(|declaration| matches!(declaration.access, Access::Default | Access::Public))
            });
            let has_members = index.declarations.iter().any(|child| {
                child.parent as usize == slot
                    && matches!(
                        child.kind,
                        DeclarationKind::Member
                            | DeclarationKind::AbstractMember
                            | DeclarationKind::Override
                            | DeclarationKind::Constructor
                            | DeclarationKind::AutoProperty
                            | DeclarationKind::Let
                            | DeclarationKind::Val
                    )
            });
            self.items.push(Item {
                slot,
                key,
                full_name,
                name: name(slot),
                kind,
                parent,
                public,
                certain: declaration.certain,
                name_start: declaration.name_start,
                range_start_line: declaration.range.start.line,
                range_end_line: declaration.range.end.line,
                has_members,
            });
        }
    }

    fn line(&self, line: u32) -> &str {
        self.lines.line_text(&self.text, line as usize).unwrap_or("").trim_end_matches('\r')
    }

    /// `(name, kind)` of each declaration line (`val`, `type`, `and`, `exception`, `module`) in
    /// the regions the parser could not read, from the text.
    fn declarations_in_error_regions(&self) -> HashSet<(String, DriftKind)> {
        let mut found = HashSet::new();
        for (start, end) in self.error_lines() {
            for line in start..=end {
                let mut words = self.line(line).split_whitespace().peekable();
                let kind = match words.next() {
                    Some("val") => DriftKind::Value,
                    Some("type" | "and") => DriftKind::Type,
                    Some("exception") => DriftKind::Exception,
                    Some("module") => DriftKind::Module,
                    _ => continue,
                };
                let name = words
                    .find(|word| {
                        !matches!(*word, "inline" | "mutable" | "private" | "internal" | "public" | "rec")
                            && !word.starts_with("[<")
                    })
                    .unwrap_or_default();
                let name: String = name
                    .chars()
                    .take_while(|character| character.is_alphanumeric() || matches!(character, '_' | '\''))
                    .collect();
                if !name.is_empty() {
                    found.insert((name, kind));
                }
            }
        }
        found
    }

    /// Whether the nearest line above `line` that is less indented (blank lines, comments and
    /// attributes skipped) opens a module or a namespace; true at column 0.
    fn opens_module_above(&self, line: u32) -> bool {
        let indent = self.indent_of(line).len();
        if indent == 0 {
            return true;
        }
        for above in (0..line).rev() {
            let text = self.line(above);
            let trimmed = text.trim_start();
            if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with("(*") || trimmed.starts_with("[<")
            {
                continue;
            }
            if text.len() - trimmed.len() < indent {
                return trimmed.starts_with("module ") || trimmed.starts_with("namespace ");
            }
        }
        true
    }

    fn indent_of(&self, line: u32) -> String {
        self.line(line).chars().take_while(|character| *character == ' ').collect()
    }

    fn key_of_slot(&self, slot: usize) -> Option<(String, DriftKind)> {
        self.items.iter().find(|item| item.slot == slot).map(|item| (item.key.clone(), item.kind))
    }

    /// The 0-based ranges of lines the parser could not read cleanly, for `limits`.
    fn error_lines(&self) -> Vec<(u32, u32)> {
        self.parsed
            .iter()
            .flat_map(|parsed| &parsed.index.health.error_regions)
            .map(|region| (region.start.line, region.end.line))
            .collect()
    }

    fn position(&self, line: u32, character: u32) -> LspPosition {
        LspPosition { line, character }
    }

    /// The end of `line` (before its line break).
    fn line_end(&self, line: u32) -> LspPosition {
        let length: u32 = self.line(line).encode_utf16().count() as u32;
        self.position(line, length)
    }
}

/// A piece of the text of a fix that adds an item to the signature.
#[derive(Clone, Debug)]
enum Piece {
    Line(String),
    /// A `val` line whose type is asked of FSAC at `position` in the implementation.
    Value {
        indent: String,
        name: String,
        position: Position,
    },
}

/// An item the signature lacks and the edit that adds it (its text still in pieces).
struct Addition {
    item: Item,
    at: LspPosition,
    /// Put before the pieces (a line break, a blank line).
    before: String,
    pieces: Vec<Piece>,
    after: String,
    copied_members: bool,
}

/// The comparison of one pair.
struct Comparison {
    signature: ReadFile,
    implementation: ReadFile,
    additions: Vec<Addition>,
    removals: Vec<(Item, Range, String)>,
    /// Implementation items found declared only in the text of the signature's unreadable
    /// regions.
    matched_by_text: Vec<String>,
}

fn compare(signature_text: &str, implementation_text: &str) -> Comparison {
    let signature = ReadFile::read(signature_text, GrammarKind::Signature);
    let implementation = ReadFile::read(implementation_text, GrammarKind::Implementation);
    let signature_keys: HashSet<(String, DriftKind)> =
        signature.items.iter().map(|item| (item.key.clone(), item.kind)).collect();
    let implementation_keys: HashSet<(String, DriftKind)> =
        implementation.items.iter().map(|item| (item.key.clone(), item.kind)).collect();

    let text_declarations = signature.declarations_in_error_regions();
    let mut matched_by_text = Vec::new();
    // Implementation-only: public, and whose parent item (a module) the signature has (a child
    // of a module the signature lacks is part of that module's addition).
    let mut additions = Vec::new();
    for item in implementation.items.iter().filter(|item| item.public) {
        if signature_keys.contains(&(item.key.clone(), item.kind)) {
            continue;
        }
        let parent_item_missing = item
            .parent
            .and_then(|parent| implementation.key_of_slot(parent))
            .is_some_and(|key| !signature_keys.contains(&key));
        if parent_item_missing {
            continue;
        }
        // A signature the parser could not read cleanly: a declaration line of its unreadable
        // regions that names the item counts as declaring it (the line recovery of the syntax
        // layer misses some, such as `val empty<'T> : …`).
        if text_declarations.contains(&(item.name.clone(), item.kind)) {
            matched_by_text.push(item.full_name.clone());
            continue;
        }
        additions.push(addition(item, &signature, &implementation, &signature_keys));
    }

    // Signature-only: whose parent item the implementation has.
    let mut removals = Vec::new();
    for item in &signature.items {
        if implementation_keys.contains(&(item.key.clone(), item.kind)) {
            continue;
        }
        let parent_item_missing = item
            .parent
            .and_then(|parent| signature.key_of_slot(parent))
            .is_some_and(|key| !implementation_keys.contains(&key));
        if parent_item_missing {
            continue;
        }
        let (range, old_text) = removal_range(&signature, item);
        removals.push((item.clone(), range, old_text));
    }
    Comparison { signature, implementation, additions, removals, matched_by_text }
}

/// Where in the signature the missing `item` goes, and its text: after the signature's copy of
/// the nearest earlier sibling, else at the top of the signature's copy of its parent, else at
/// the end of the file.
fn addition(
    item: &Item,
    signature: &ReadFile,
    implementation: &ReadFile,
    signature_keys: &HashSet<(String, DriftKind)>,
) -> Addition {
    let earlier_sibling = implementation
        .items
        .iter()
        .filter(|other| other.parent == item.parent && other.slot < item.slot)
        .rev()
        .find_map(|other| {
            signature_keys
                .contains(&(other.key.clone(), other.kind))
                .then(|| signature.items.iter().find(|mine| mine.key == other.key && mine.kind == other.kind))
                .flatten()
        });
    let parent_container = item.parent.and_then(|parent| implementation.containers.get(&parent));
    let (at, before, after, indent) = if let Some(anchor) = earlier_sibling {
        let indent = signature.indent_of(anchor.range_start_line);
        (signature.line_end(anchor.range_end_line), "\n\n".to_owned(), String::new(), indent)
    } else if let Some((parent_name, parent_kind)) = parent_container
        && let Some((&slot, _)) =
            signature.containers.iter().find(|(_, (name, kind))| name == parent_name && kind == parent_kind)
        && let Some(parsed) = &signature.parsed
        && let Some(parent) = parsed.index.declarations.get(slot)
    {
        let header_line = parent.name_start.line;
        let header = signature.line(header_line);
        // A nested module (`module M =`) indents its items; a namespace or a whole-file module
        // does not.
        let nested = header.trim_end().ends_with('=');
        let indent = if nested { format!("{}    ", signature.indent_of(header_line)) } else { String::new() };
        (signature.line_end(header_line), if nested { "\n" } else { "\n\n" }.to_owned(), String::new(), indent)
    } else {
        let last = signature.lines.line_count().saturating_sub(1) as u32;
        (signature.line_end(last), "\n".to_owned(), "\n".to_owned(), String::new())
    };
    let mut pieces = Vec::new();
    let copied_members = pieces_of(item, implementation, &indent, &mut pieces);
    Addition { item: item.clone(), at, before, pieces, after, copied_members }
}

/// The signature text of `item`, indented by `indent`; true when a copied type has members.
fn pieces_of(item: &Item, implementation: &ReadFile, indent: &str, pieces: &mut Vec<Piece>) -> bool {
    match item.kind {
        DriftKind::Value => {
            pieces.push(Piece::Value { indent: indent.to_owned(), name: item.name.clone(), position: item.name_start });
            false
        }
        DriftKind::Type | DriftKind::Exception => {
            let first = item.range_start_line;
            let own_indent = implementation.indent_of(first).len();
            for line in first..=item.range_end_line {
                let text = implementation.line(line);
                let strip = text.chars().take(own_indent).take_while(|character| *character == ' ').count();
                let rest = &text[strip..];
                pieces.push(Piece::Line(if rest.is_empty() { String::new() } else { format!("{indent}{rest}") }));
            }
            item.has_members
        }
        DriftKind::Module => {
            pieces.push(Piece::Line(format!("{indent}module {} =", item.name)));
            let inner = format!("{indent}    ");
            let mut copied_members = false;
            let children: Vec<&Item> =
                implementation.items.iter().filter(|child| child.parent == Some(item.slot) && child.public).collect();
            for (position, child) in children.iter().enumerate() {
                if position > 0 {
                    pieces.push(Piece::Line(String::new()));
                }
                copied_members |= pieces_of(child, implementation, &inner, pieces);
            }
            copied_members
        }
    }
}

/// The lines of a signature item to delete: its doc comment and attributes above it, its own
/// lines, and one blank line so that no double blank is left.
fn removal_range(signature: &ReadFile, item: &Item) -> (Range, String) {
    let mut first = item.range_start_line.min(item.name_start.line);
    while first > 0 {
        let above = signature.line(first - 1).trim_start();
        if above.starts_with("///") || above.starts_with("[<") {
            first -= 1;
        } else {
            break;
        }
    }
    let last = item.range_end_line;
    let line_count = signature.lines.line_count() as u32;
    let blank_above = first >= 2 && signature.line(first - 1).trim().is_empty();
    let (start, end) = if blank_above {
        // From the end of the line before the blank one to the end of the item's last line.
        (signature.line_end(first - 2), signature.line_end(last))
    } else if last + 1 < line_count {
        (signature.position(first, 0), signature.position(last + 1, 0))
    } else {
        (signature.position(first, 0), signature.line_end(last))
    };
    let range = Range { start, end };
    let start_offset = signature.lines.offset(&signature.text, start);
    let end_offset = signature.lines.offset(&signature.text, end);
    let old_text = signature.text.get(start_offset..end_offset).unwrap_or("").to_owned();
    (range, old_text)
}

impl Comparison {
    /// The name positions (in the implementation) of the values whose `val` lines need a type.
    fn values_needing_types(&self) -> Vec<Position> {
        self.additions
            .iter()
            .flat_map(|addition| &addition.pieces)
            .filter_map(|piece| match piece {
                Piece::Value { position, .. } => Some(*position),
                Piece::Line(_) => None,
            })
            .collect()
    }

    fn into_pair(
        self,
        pair: &Pair,
        types: &HashMap<(PathBuf, Position), String>,
        fsac: &FsacUse,
        display: &dyn Fn(&Path) -> String,
    ) -> PairDrift {
        let signature_file = display(&pair.signature);
        let implementation_file = display(&pair.implementation);
        let mut limits = self.parse_limits(&signature_file, &implementation_file);
        let files = (signature_file.as_str(), implementation_file.as_str());
        let signature_degraded = self.signature.failure.is_some() || !self.signature.error_lines().is_empty();
        let mut implementation_only = Vec::new();
        let mut any_type_unknown = false;
        for addition in self.additions {
            let (item, type_unknown) = addition_item(addition, signature_degraded, pair, types, files);
            any_type_unknown |= type_unknown;
            implementation_only.push(item);
        }
        limits.extend(hidden_type_limits(&implementation_only));
        if any_type_unknown {
            limits.push(format!(
                "the type of some values the signature lacks is not known: FSAC gave none ({})",
                fsac.reason.as_deref().unwrap_or("no reason given")
            ));
        }
        let signature_only: Vec<DriftItem> = self
            .removals
            .into_iter()
            .map(|(item, range, old_text)| removal_item(item, range, old_text, files))
            .collect();
        let uncertain = implementation_only.iter().chain(&signature_only).any(|item| !item.certain);
        let complete = self.signature.failure.is_none()
            && self.implementation.failure.is_none()
            && !uncertain
            && implementation_only.iter().all(|item| item.type_source != Some(TypeSource::NotKnown))
            && self.signature.error_lines().is_empty()
            && self.implementation.error_lines().is_empty();
        PairDrift {
            project: display(&pair.project),
            signature_file,
            implementation_file,
            implementation_only,
            signature_only,
            complete,
            limits,
        }
    }

    /// What the parser could not read in either file, and what was matched by text instead.
    fn parse_limits(&self, signature_file: &str, implementation_file: &str) -> Vec<String> {
        let mut limits = Vec::new();
        for (read, shown) in [(&self.signature, signature_file), (&self.implementation, implementation_file)] {
            if let Some(failure) = &read.failure {
                limits.push(format!("{shown} could not be parsed ({failure}): its declarations are not known"));
            }
            for (start, end) in read.error_lines() {
                limits.push(format!(
                    "{shown}: the parser could not read lines {}-{} cleanly; declarations there were recovered from \
                     the lines and are marked certain: false",
                    start + 1,
                    end + 1
                ));
            }
        }
        if !self.matched_by_text.is_empty() {
            limits.push(format!(
                "matched by the text of the signature's unreadable lines (by name and kind, not by module): {}",
                self.matched_by_text.join(", ")
            ));
        }
        limits
    }
}

/// A declaration the signature lacks, with the fix that adds it (its `val` lines typed by
/// FSAC where it answered); and whether some value's type is not known. `files` are the
/// signature's and the implementation's as shown.
fn addition_item(
    addition: Addition,
    signature_degraded: bool,
    pair: &Pair,
    types: &HashMap<(PathBuf, Position), String>,
    (signature_file, implementation_file): (&str, &str),
) -> (DriftItem, bool) {
    let mut status = if signature_degraded {
        FixStatus::Unverified
    } else if addition.copied_members {
        FixStatus::MembersNeedSignatures
    } else {
        FixStatus::Ready
    };
    let mut any_type_unknown = false;
    let mut type_source = None;
    let mut body = Vec::new();
    for piece in &addition.pieces {
        match piece {
            Piece::Line(line) => body.push(line.clone()),
            Piece::Value { indent, name, position } => match types.get(&(pair.implementation.clone(), *position)) {
                Some(signature) => {
                    body.push(format!("{indent}{signature}"));
                    type_source.get_or_insert(TypeSource::Fsac);
                }
                None => {
                    body.push(format!("{indent}val {name}: <type not known>"));
                    type_source = Some(TypeSource::NotKnown);
                    if status != FixStatus::Unverified {
                        status = FixStatus::TypeNotKnown;
                    }
                    any_type_unknown = true;
                }
            },
        }
    }
    let item = addition.item;
    let new_text = format!("{}{}{}", addition.before, body.join("\n"), addition.after);
    let description =
        format!("add the {} `{}` to the signature, after which other files can use it", item.kind.as_str(), item.name);
    let drift = DriftItem {
        name: item.full_name.clone(),
        kind: item.kind,
        file: implementation_file.to_owned(),
        line: item.name_start.line,
        certain: item.certain,
        type_source,
        fix: FixEdit {
            file: signature_file.to_owned(),
            range: Range { start: addition.at, end: addition.at },
            new_text,
            old_text: String::new(),
            description,
            status,
        },
    };
    (drift, any_type_unknown)
}

/// A `val` naming a type the signature also hides needs that type's fix too (else the
/// signature does not compile: FS0039): one limit per such pair.
fn hidden_type_limits(implementation_only: &[DriftItem]) -> Vec<String> {
    let mut limits = Vec::new();
    let hidden_types: Vec<&DriftItem> =
        implementation_only.iter().filter(|item| matches!(item.kind, DriftKind::Type | DriftKind::Exception)).collect();
    for value in implementation_only.iter().filter(|item| item.kind == DriftKind::Value) {
        for hidden in &hidden_types {
            let short = hidden.name.rsplit('.').next().unwrap_or(&hidden.name);
            let names_it = value
                .fix
                .new_text
                .split(|character: char| !(character.is_alphanumeric() || character == '_'))
                .any(|word| word == short);
            if names_it {
                limits.push(format!(
                    "the `val` of {} names the type {short}, which the signature hides too: add both, or the signature \
                     does not compile (FS0039)",
                    value.name
                ));
            }
        }
    }
    limits
}

/// A declaration only the signature has, with the fix that removes it.
fn removal_item(
    item: Item,
    range: Range,
    old_text: String,
    (signature_file, implementation_file): (&str, &str),
) -> DriftItem {
    DriftItem {
        name: item.full_name.clone(),
        kind: item.kind,
        file: signature_file.to_owned(),
        line: item.name_start.line,
        certain: item.certain,
        type_source: None,
        fix: FixEdit {
            file: signature_file.to_owned(),
            range,
            new_text: String::new(),
            old_text,
            description: format!(
                "remove the {} `{}` from the signature (or implement it in {implementation_file}): the build fails \
                 until one of the two is done",
                item.kind.as_str(),
                item.name
            ),
            status: if item.certain { FixStatus::Ready } else { FixStatus::Unverified },
        },
    }
}

// ---- FSAC's types -------------------------------------------------------------------------------

/// FSAC's answer to `fsharp/signature`: `{content}` holding `{Kind: "typesig", Data}` as JSON
/// text (docs/fsac-protocol.md).
#[derive(Deserialize)]
struct SignatureEnvelope {
    content: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TypeSignature {
    kind: String,
    data: String,
}

/// The `val` line of FSAC's tooltip signature: its lines joined, when it is one.
fn val_line(signature: &str) -> Option<String> {
    let joined = signature.lines().map(str::trim).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" ");
    joined.starts_with("val ").then_some(joined)
}

/// Asks FSAC for the type of each value in `wanted`; what it could not give is left out, with
/// the reason in the [`FsacUse`].
async fn types_from_fsac(
    context: &mut CommandContext,
    pairs: &[Pair],
    compared: &[Comparison],
    wanted: &[(PathBuf, Position)],
    deadline: tokio::time::Instant,
) -> (HashMap<(PathBuf, Position), String>, FsacUse) {
    let mut types = HashMap::new();
    let status = match context.status_when_ready(deadline).await {
        Ok(status) => status,
        Err(error) => {
            return (
                types,
                FsacUse { asked: false, state: None, reason: Some(format!("FSAC's state is not known: {error}")) },
            );
        }
    };
    if status.state != State::Ready {
        let reason = status.reason.clone().unwrap_or_else(|| "FSAC is not running".to_owned());
        return (
            types,
            FsacUse {
                asked: false,
                state: Some(status.state),
                reason: Some(format!("FSAC is {}: {reason}", status.state.as_str())),
            },
        );
    }
    let texts: BTreeMap<&PathBuf, &str> = pairs
        .iter()
        .zip(compared)
        .map(|(pair, comparison)| (&pair.implementation, comparison.implementation.text.as_str()))
        .collect();
    let mut failures: Vec<String> = Vec::new();
    for (file, positions) in group_by_file(wanted) {
        let Some(uri) = crate::uri::path_to_uri(file) else { continue };
        let text = texts.get(file).copied().unwrap_or_default();
        if let Err(error) = context.acquire_document(&uri, text.to_owned()).await {
            failures.push(format!("{} could not be opened in FSAC: {error}", file.display()));
            continue;
        }
        for position in positions {
            let params = TextDocumentPositionParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                position: LspPosition { line: position.line, character: position.character },
            };
            let Ok(params) = serde_json::to_value(params) else { continue };
            match context.backend_request("fsharp/signature", params, deadline).await {
                Ok(Ok(answer)) => {
                    let line = serde_json::from_value::<Option<SignatureEnvelope>>(answer)
                        .ok()
                        .flatten()
                        .and_then(|envelope| serde_json::from_str::<TypeSignature>(&envelope.content).ok())
                        .filter(|signature| signature.kind == "typesig")
                        .and_then(|signature| val_line(&signature.data));
                    match line {
                        Some(line) => {
                            types.insert((file.clone(), position), line);
                        }
                        None => failures.push(format!(
                            "FSAC gave no `val` signature at {}:{}",
                            file.display(),
                            position.line + 1
                        )),
                    }
                }
                Ok(Err(error)) => failures.push(format!(
                    "FSAC answered an error at {}:{}: {}",
                    file.display(),
                    position.line + 1,
                    error.message
                )),
                Err(error) => {
                    failures.push(format!("FSAC did not answer: {error}"));
                    break;
                }
            }
        }
        context.release_document(&uri);
    }
    let reason = (!failures.is_empty()).then(|| failures.join("; "));
    (types, FsacUse { asked: true, state: Some(status.state), reason })
}

fn group_by_file(wanted: &[(PathBuf, Position)]) -> BTreeMap<&PathBuf, Vec<Position>> {
    let mut grouped: BTreeMap<&PathBuf, Vec<Position>> = BTreeMap::new();
    for (file, position) in wanted {
        grouped.entry(file).or_default().push(*position);
    }
    grouped
}

// ---- the command line ---------------------------------------------------------------------------

/// Definite when every pair is in step; errors when a signature declares what its
/// implementation lacks (the build fails); not definite when only hidden items were found or
/// the answer is incomplete.
impl crate::commands::outcome::Answered for SignatureDriftAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        if self.pairs.iter().any(|pair| !pair.signature_only.is_empty()) {
            crate::commands::outcome::Outcome::Errors
        } else {
            crate::commands::outcome::definite_if(
                self.complete && self.pairs.iter().all(|pair| pair.implementation_only.is_empty()),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIGNATURE: &str = "module Drift.Geometry\n\n/// A shape.\ntype Shape =\n    | Circle of radius: float\n\n/// Area.\nval area: shape: Shape -> float\n\n/// Gone.\nval gone: int\n\nmodule Units =\n    val toCentimetres: inches: float -> float\n";
    const IMPLEMENTATION: &str = "module Drift.Geometry\n\ntype Shape =\n    | Circle of radius: float\n\nlet private square x = x * x\n\nlet area shape = 1.0\n\nlet perimeter shape = 2.0\n\nlet internal hidden = 3\n\ntype Corner = { X: float }\n\nmodule Units =\n    let toCentimetres inches = inches * 2.54\n\n    let toInches centimetres = centimetres / 2.54\n";

    fn names(items: &[String]) -> Vec<&str> {
        items.iter().map(String::as_str).collect()
    }

    #[test]
    fn public_items_missing_from_the_signature_and_signature_items_missing_from_the_implementation() {
        let comparison = compare(SIGNATURE, IMPLEMENTATION);
        let added: Vec<String> = comparison.additions.iter().map(|addition| addition.item.full_name.clone()).collect();
        assert_eq!(
            names(&added),
            ["Drift.Geometry.perimeter", "Drift.Geometry.Corner", "Drift.Geometry.Units.toInches"]
        );
        let removed: Vec<String> = comparison.removals.iter().map(|(item, _, _)| item.full_name.clone()).collect();
        assert_eq!(names(&removed), ["Drift.Geometry.gone"]);
        // The removal takes the doc comment and the blank line above it.
        assert_eq!(comparison.removals[0].2, "\n\n/// Gone.\nval gone: int");
    }

    #[test]
    fn additions_go_after_the_nearest_sibling_the_signature_has_with_its_indentation() {
        let comparison = compare(SIGNATURE, IMPLEMENTATION);
        let mut types = HashMap::new();
        for position in comparison.values_needing_types() {
            types.insert((PathBuf::from("G.fs"), position), format!("val v{}: int", position.line));
        }
        let pair = Pair { project: "P.fsproj".into(), signature: "G.fsi".into(), implementation: "G.fs".into() };
        let fsac = FsacUse { asked: true, state: Some(State::Ready), reason: None };
        let drift = comparison.into_pair(&pair, &types, &fsac, &|path| path.display().to_string());
        let perimeter = &drift.implementation_only[0];
        assert_eq!(perimeter.fix.range.start, LspPosition { line: 7, character: 31 });
        assert_eq!(perimeter.fix.new_text, "\n\nval v9: int");
        let corner = &drift.implementation_only[1];
        assert_eq!(corner.fix.new_text, "\n\ntype Corner = { X: float }");
        let to_inches = &drift.implementation_only[2];
        assert_eq!(to_inches.fix.range.start, LspPosition { line: 13, character: 45 });
        assert_eq!(to_inches.fix.new_text, "\n\n    val v18: int");
        assert!(drift.complete, "{drift:?}");
        let applied = apply(SIGNATURE, &drift.implementation_only[2].fix);
        assert!(applied.ends_with("    val toCentimetres: inches: float -> float\n\n    val v18: int\n"), "{applied}");
    }

    #[test]
    fn without_fsac_the_val_lines_say_the_type_is_not_known() {
        let comparison = compare(SIGNATURE, IMPLEMENTATION);
        let pair = Pair { project: "P.fsproj".into(), signature: "G.fsi".into(), implementation: "G.fs".into() };
        let fsac = FsacUse { asked: false, state: Some(State::Absent), reason: Some("FSAC is absent".to_owned()) };
        let drift = comparison.into_pair(&pair, &HashMap::new(), &fsac, &|path| path.display().to_string());
        let perimeter = &drift.implementation_only[0];
        assert_eq!(perimeter.fix.status, FixStatus::TypeNotKnown);
        assert_eq!(perimeter.type_source, Some(TypeSource::NotKnown));
        assert_eq!(perimeter.fix.new_text, "\n\nval perimeter: <type not known>");
        assert!(!drift.complete);
        assert!(drift.limits.iter().any(|limit| limit.contains("FSAC is absent")), "{:?}", drift.limits);
    }

    /// Member signatures the signature grammar cannot read: whatever the parser loses, the
    /// items still match, and a `val` inside a type is no module-level item.
    #[test]
    fn a_signature_the_grammar_reads_badly_still_matches_its_implementation() {
        let signature = "namespace Coll\n\n[<Sealed>]\ntype Bag<'T> =\n    interface System.Collections.IEnumerable\n    member IsEmpty: bool\n    member Length: unit -> int\n\n[<Struct>]\ntype Flat<'T> =\n    val internal array: 'T[]\n    member Item: int -> 'T with get\n\n[<RequireQualifiedAccess>]\nmodule Bag =\n    val empty<'T> : Bag<'T>\n    val length: Bag<'T> -> int\n";
        let implementation = "namespace Coll\n\ntype Bag<'T>(items: 'T list) =\n    member _.IsEmpty = List.isEmpty items\n    member _.Length() = List.length items\n    interface System.Collections.IEnumerable with\n        member _.GetEnumerator() = (items :> System.Collections.IEnumerable).GetEnumerator()\n\n[<Struct>]\ntype Flat<'T> =\n    val internal array: 'T[]\n    member x.Item with get (i: int) = x.array.[i]\n\n[<RequireQualifiedAccess>]\nmodule Bag =\n    let empty<'T> : Bag<'T> = Bag<'T>([])\n    let length (bag: Bag<'T>) = bag.Length()\n";
        let comparison = compare(signature, implementation);
        let added: Vec<String> = comparison.additions.iter().map(|addition| addition.item.full_name.clone()).collect();
        let removed: Vec<String> = comparison.removals.iter().map(|(item, _, _)| item.full_name.clone()).collect();
        assert!(
            added.is_empty() && removed.is_empty(),
            "added {added:?}, removed {removed:?}\n{}\n{}",
            crate::syntax::describe::describe_text(signature, GrammarKind::Signature),
            crate::syntax::describe::describe_text(implementation, GrammarKind::Implementation)
        );
    }

    #[test]
    fn a_val_naming_a_hidden_type_says_the_type_is_needed_too() {
        let signature = "module M\n\nval a: int\n";
        let implementation = "module M\n\nlet a = 1\n\ntype Hidden = { X: int }\n\nlet make x = { X = x }\n";
        let comparison = compare(signature, implementation);
        let mut types = HashMap::new();
        for position in comparison.values_needing_types() {
            types.insert((PathBuf::from("M.fs"), position), "val make: x: int -> Hidden".to_owned());
        }
        let pair = Pair { project: "P.fsproj".into(), signature: "M.fsi".into(), implementation: "M.fs".into() };
        let fsac = FsacUse { asked: true, state: Some(State::Ready), reason: None };
        let drift = comparison.into_pair(&pair, &types, &fsac, &|path| path.display().to_string());
        assert_eq!(drift.implementation_only.len(), 2, "{drift:?}");
        assert!(
            drift.limits.iter().any(|limit| limit.contains("M.make") && limit.contains("type Hidden")),
            "{:?}",
            drift.limits
        );
    }

    fn apply(text: &str, fix: &FixEdit) -> String {
        let lines = LineIndex::new(text);
        let start = lines.offset(text, fix.range.start);
        let end = lines.offset(text, fix.range.end);
        format!("{}{}{}", &text[..start], fix.new_text, &text[end..])
    }

    #[test]
    fn fsac_tooltips_become_one_val_line() {
        assert_eq!(
            val_line("val f:\n   a: int ->\n   b: int\n   -> int").as_deref(),
            Some("val f: a: int -> b: int -> int")
        );
        assert_eq!(val_line("type T = int"), None);
    }
}
