//! `fslens.deadCode`: the private and internal declarations (public ones too with
//! `includePublic`) that nothing in the workspace uses.
//!
//! The candidates are the declarations the syntax index knows (values, members, properties,
//! types, record fields, union cases), with the accessibility their own modifier, their
//! enclosing modules and types, and the file's signature (`.fsi`) give them. A candidate is
//! first checked for what keeps it alive whatever its uses are (an attribute, a signature
//! entry, an override or interface implementation, an abstract slot, a name the compiler calls
//! implicitly). Then its uses are looked up: a name with no identifier anywhere in the
//! workspace outside its own declaration has no use (the syntax index says so); any other is
//! asked of FSAC through find's typed [`find::all_sites`] at its name, which sweeps every
//! project that can see it. A use inside the declaration's own range (a recursive call, a
//! type naming itself) is no use. A candidate with no use is still kept alive by `nameof`,
//! `typeof<…>` or a string literal spelling its name; an internal one of a project that grants
//! `InternalsVisibleTo` to an assembly outside the workspace is not ruled out. docs/commands.md
//! (`fslens.deadCode`) says what is covered and what is not.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::deadline::Deadline;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::find::answer::{Completeness, Via};
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments, FindTimeoutMs};
use crate::commands::find::rows::SiteKind;
use crate::commands::find::{self};
use crate::commands::params::{Bounded, CommandArguments, Coordinate};
use crate::commands::{CommandContext, CommandError};
use crate::syntax::index::{IndexedFile, Overlay, SyntaxIndex};
use crate::syntax::model::{Access, Declaration, DeclarationKind, FileIndex, GrammarKind, TextRange};
use crate::workspace::{Project, WorkspaceModel};

/// Default `maxCandidates`.
pub const DEFAULT_MAX_CANDIDATES: u64 = 500;
/// At most this many declarations are named per kept-alive reason.
const KEPT_ALIVE_SAMPLE: usize = 10;

/// The arguments of `fslens.deadCode` and the flags of `fslens dead-code`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeadCodeArguments {
    /// Only this project's declarations (an `.fsproj` path or project name); uses are still
    /// looked up in every project. Default: every project.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub project_path: Option<String>,
    /// Only this file's declarations (relative to the workspace root or absolute inside it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub path: Option<String>,
    /// Also check public declarations (uses by assemblies outside the workspace are then not
    /// ruled out: each such row says so). Default false: private and internal only.
    #[serde(default)]
    #[arg(long)]
    pub include_public: bool,
    /// Only these kinds of declaration: `value`, `member`, `property`, `type`, `recordField`,
    /// `unionCase`. Default: all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[arg(long, value_delimiter = ',', value_enum)]
    pub kinds: Vec<CandidateKind>,
    /// At most this many candidates are checked (in project and file order); the answer says
    /// how many were left. Default 500.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_candidates: Bounded<1, 20_000, DEFAULT_MAX_CANDIDATES>,
    /// One deadline for the whole answer, every find included, in milliseconds.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub timeout_ms: FindTimeoutMs,
}

impl CommandArguments for DeadCodeArguments {
    fn validate(&self) -> Result<(), CommandError> {
        for (name, value) in [("projectPath", &self.project_path), ("path", &self.path)] {
            if value.as_deref().is_some_and(|value| value.trim().is_empty()) {
                return Err(CommandError::invalid_argument(name, "must not be empty"));
            }
        }
        Ok(())
    }
}

/// What a candidate declares.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "camelCase")]
pub enum CandidateKind {
    /// a `let` of a module or class, or a class's `val`
    Value,
    /// a `member` (method or property with a body)
    Member,
    /// an auto-property (`member val`)
    Property,
    /// a record, union, class, interface, enum, delegate, abbreviation or exception
    Type,
    /// a record's field
    #[value(name = "recordField")]
    RecordField,
    /// a union's case
    #[value(name = "unionCase")]
    UnionCase,
}

impl CandidateKind {
    /// The candidate kind of a declaration kind; `None` for what is never a candidate.
    fn of(kind: DeclarationKind) -> Option<CandidateKind> {
        match kind {
            DeclarationKind::Let | DeclarationKind::Val => Some(CandidateKind::Value),
            DeclarationKind::Member | DeclarationKind::Override | DeclarationKind::AbstractMember => {
                Some(CandidateKind::Member)
            }
            DeclarationKind::AutoProperty => Some(CandidateKind::Property),
            // A type extension declares no type of its own.
            DeclarationKind::TypeExtension => None,
            kind if kind.is_type() => Some(CandidateKind::Type),
            DeclarationKind::RecordField => Some(CandidateKind::RecordField),
            DeclarationKind::UnionCase => Some(CandidateKind::UnionCase),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CandidateKind::Value => "value",
            CandidateKind::Member => "member",
            CandidateKind::Property => "property",
            CandidateKind::Type => "type",
            CandidateKind::RecordField => "recordField",
            CandidateKind::UnionCase => "unionCase",
        }
    }
}

/// Who may use a declaration, as written and as its enclosing declarations and signature file
/// narrow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Accessibility {
    /// `private` (itself or an enclosing module or type), or a class's `let`.
    Private,
    /// In a file with a signature file that does not list it: no other file sees it.
    HiddenBySignature,
    /// `internal` (itself or an enclosing module or type).
    Internal,
    /// Public: other assemblies may use it.
    Public,
}

impl Accessibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Accessibility::Private => "private",
            Accessibility::HiddenBySignature => "hiddenBySignature",
            Accessibility::Internal => "internal",
            Accessibility::Public => "public",
        }
    }
}

/// Where a verdict's evidence came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// FSAC's references (find), over every project that can see the declaration.
    Fsac,
    /// The syntax index: no identifier of that name outside the declaration, in any file.
    Syntax,
}

/// Why a declaration is not reported although it may have no use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum KeptAliveReason {
    /// `[<EntryPoint>]`: the runtime calls it.
    EntryPointAttribute,
    /// A test or benchmark attribute (`Fact`, `Theory`, `Test`, `TestCase`, `Tests`,
    /// `Property`, `Benchmark`, set-up and tear-down attributes): the runner calls it.
    TestAttribute,
    /// An interop attribute (`DllImport`, `UnmanagedCallersOnly`, `ModuleInitializer`).
    InteropAttribute,
    /// A serialization attribute on it or its type (`DataMember`, `DataContract`,
    /// `JsonProperty`, `JsonPropertyName`, `JsonInclude`, `JsonConstructor`, `CLIMutable`,
    /// `Serializable`, `XmlElement`, `XmlAttribute`, `ProtoMember`, `Key`, …): a serializer
    /// reads or writes it by reflection.
    SerializationAttribute,
    /// Listed in the file's signature (`.fsi`): public API.
    SignatureFile,
    /// `override`, `default` or a member of `interface … with`: called through its slot.
    OverrideOrInterfaceImplementation,
    /// An abstract member: its implementations and calls through the slot are not told apart.
    AbstractSlot,
    /// A name the compiler or runtime calls without spelling it: computation-expression
    /// builder methods, `Dispose`, `GetEnumerator`, `Current`, `MoveNext`, `Item`, `GetSlice`,
    /// `Invoke`, `op_Implicit`, `op_Explicit`.
    ImplicitCall,
    /// No reference, but `nameof` names it.
    Nameof,
    /// No reference, but `typeof<…>` or `typedefof<…>` names it.
    Typeof,
    /// No reference, but a string literal spells its name (reflection, `EntryPoint = "…"`).
    NamedInString,
}

/// Why a declaration with no use found is not reported as unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NotRuledOutReason {
    /// Internal, and its project grants `InternalsVisibleTo` to an assembly that is no project
    /// of the workspace.
    InternalsVisibleToOutside,
    /// find's answer was not complete (FSAC not ready, a project not analysed, the deadline).
    FindIncomplete,
    /// find failed at the declaration's name.
    FindFailed,
}

/// A declaration nothing in the workspace uses.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnusedRow {
    pub name: String,
    /// The enclosing modules and types and the name, from the syntax tree.
    pub full_name: String,
    pub kind: CandidateKind,
    /// The syntax layer's kind (`let`, `member`, `union-case`, …).
    pub declared_as: String,
    pub accessibility: Accessibility,
    /// The project compiling the file (its path relative to the workspace root).
    pub project: String,
    pub path: String,
    /// 0-based line and UTF-16 character of the name.
    pub line: u32,
    pub character: u32,
    pub source: Source,
    /// What was looked at, in words.
    pub evidence: String,
    /// Uses inside its own declaration (recursive calls), which do not count.
    pub self_references: usize,
    /// For a public declaration: uses by assemblies outside the workspace are not ruled out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
}

/// A declaration kept alive, briefly.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamedDeclaration {
    pub full_name: String,
    pub path: String,
    pub line: u32,
}

/// How many candidates one reason kept alive, with the first few.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptAliveGroup {
    pub reason: KeptAliveReason,
    pub count: usize,
    /// The first declarations (at most 10; `count` is the total).
    pub sample: Vec<NamedDeclaration>,
}

/// A declaration with no use found whose verdict is left open.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRuledOutRow {
    pub name: String,
    pub full_name: String,
    pub kind: CandidateKind,
    pub accessibility: Accessibility,
    pub project: String,
    pub path: String,
    pub line: u32,
    pub reason: NotRuledOutReason,
    pub detail: String,
}

/// What was checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateCounts {
    /// Candidates in scope (after `kinds` and the accessibility filter).
    pub total: usize,
    /// Candidates checked (at most `maxCandidates`, fewer when the deadline passed).
    pub checked: usize,
    pub used: usize,
    /// Of `used`: counted used on a name match of the syntax layer alone (FSAC did not answer
    /// find), which may hide unused ones; `complete` is false then.
    pub used_by_name_only: usize,
    pub unused: usize,
    pub kept_alive: usize,
    pub not_ruled_out: usize,
    /// Candidates not checked (`maxCandidates` or the deadline); `complete` is false then.
    pub left_unchecked: usize,
    /// How many finds asked FSAC (the other lookups ended in the syntax index).
    pub asked_fsac: usize,
}

/// The answer of `fslens.deadCode`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeadCodeAnswer {
    /// Always `deadCode`.
    pub tool: String,
    /// `fsac` when FSAC's references decided at least one verdict, else `syntax`.
    pub via: Via,
    /// True only when every candidate in scope was checked, none was counted used on a name
    /// match alone and nothing is left in `notRuledOut`.
    pub complete: bool,
    /// The projects whose declarations were candidates.
    pub projects: Vec<String>,
    pub include_public: bool,
    pub candidates: CandidateCounts,
    /// Every unused declaration found, in project and file order.
    pub unused: Vec<UnusedRow>,
    pub kept_alive: Vec<KeptAliveGroup>,
    pub not_ruled_out: Vec<NotRuledOutRow>,
    /// Why `complete` is false (empty when it is true).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub incomplete: Vec<String>,
    /// What counts as a use.
    pub use_rule: String,
    /// What the command does not see, whatever the answer.
    pub limits: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub elapsed_ms: u64,
}

/// One declaration to check.
#[derive(Clone, Debug)]
struct Candidate {
    name: String,
    full_name: String,
    kind: CandidateKind,
    declaration: Declaration,
    accessibility: Accessibility,
    project: String,
    /// Its project grants `InternalsVisibleTo` to these assemblies outside the workspace.
    visible_outside_to: Vec<String>,
    path: PathBuf,
    display_path: String,
    /// Kept alive before any use is looked up.
    kept_alive: Option<KeptAliveReason>,
    /// For a record or union: its fields or cases (name and declaration), whose uses are its
    /// uses too.
    parts: Vec<(String, Declaration)>,
    /// The innermost `#if`/`#else` branch holding its name, as written.
    branch: Option<String>,
}

/// What each file's text names outside identifiers: `nameof`, `typeof`, string literals.
#[derive(Default)]
struct TextualNames {
    nameof: BTreeSet<String>,
    typeof_: BTreeSet<String>,
    strings: BTreeSet<String>,
}

/// What the verdict of one candidate is.
enum Verdict {
    /// Used; `resolved` when the compiler resolved the use (or no lookup was needed).
    Used {
        resolved: bool,
    },
    Unused {
        source: Source,
        evidence: String,
        self_references: usize,
    },
    KeptAlive(KeptAliveReason),
    NotRuledOut(NotRuledOutReason, String),
}

/// `fslens.deadCode`.
pub async fn dead_code(arguments: DeadCodeArguments, context: CommandContext) -> Result<DeadCodeAnswer, CommandError> {
    let started = Instant::now();
    let deadline = Deadline::after(started, arguments.timeout_ms.as_duration_ms());
    let root = context.workspace_root()?.to_path_buf();
    let model = crate::commands::load_workspace_model(&root).await?;
    if model.projects.is_empty() {
        return Err(CommandError::invalid_argument("projectPath", "the workspace has no F# project"));
    }
    let (project_filter, file_filter) = filters_of(&arguments, &model, &root)?;
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    let scan = {
        let (model, index, overlay, arguments) = (model.clone(), index.clone(), overlay.clone(), arguments.clone());
        crate::commands::run_blocking(move || {
            Ok(scan_workspace(&model, &index, &overlay, &arguments, project_filter.as_deref(), file_filter.as_deref()))
        })
        .await?
    };
    let Scan { candidates, projects, textual, files, notes: scan_notes } = scan;

    let bound = arguments.max_candidates.as_usize();
    let mut tally =
        Tally { counts: CandidateCounts { total: candidates.len(), ..CandidateCounts::default() }, ..Tally::default() };
    let mut fsac_answered = false;
    let mut deadline_passed = false;
    for candidate in candidates.iter().take(bound) {
        if deadline.passed() {
            deadline_passed = true;
            break;
        }
        tally.counts.checked += 1;
        let verdict = match candidate.kept_alive {
            Some(reason) => Verdict::KeptAlive(reason),
            None => {
                let mut asked = Vec::new();
                let verdict = uses_of(candidate, &index, &files, &textual, &context, deadline, &mut asked).await?;
                tally.counts.asked_fsac += asked.len();
                fsac_answered |= asked.contains(&Via::Fsac);
                verdict
            }
        };
        tally.record(candidate, unless_visible_outside(candidate, verdict));
    }
    let Tally { mut counts, unused, kept, not_ruled_out } = tally;
    counts.left_unchecked = counts.total - counts.checked;
    let incomplete = what_is_incomplete(&counts, not_ruled_out.len(), &arguments, deadline_passed);
    let kept_alive =
        kept.into_iter().map(|(reason, (count, sample))| KeptAliveGroup { reason, count, sample }).collect();
    let mut notes = scan_notes;
    if counts.asked_fsac > 0 && !fsac_answered {
        notes.push(
            "FSAC did not answer any find (not ready?): the verdicts that needed it are name matches of the syntax \
             layer (candidates.usedByNameOnly) or in notRuledOut"
                .to_owned(),
        );
    }
    Ok(DeadCodeAnswer {
        tool: "deadCode".to_owned(),
        via: if fsac_answered { Via::Fsac } else { Via::Syntax },
        complete: incomplete.is_empty(),
        projects,
        include_public: arguments.include_public,
        candidates: counts,
        unused,
        kept_alive,
        not_ruled_out,
        incomplete,
        use_rule: USE_RULE.to_owned(),
        limits: LIMITS.iter().map(|limit| (*limit).to_owned()).collect(),
        notes,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// The project (`projectPath`) and the file (`path`) the search is limited to, each checked.
fn filters_of(
    arguments: &DeadCodeArguments,
    model: &WorkspaceModel,
    root: &Path,
) -> Result<(Option<PathBuf>, Option<PathBuf>), CommandError> {
    let project_filter = match &arguments.project_path {
        Some(written) => Some(crate::commands::paths::project_by_name_or_path(model, root, written)?.path.clone()),
        None => None,
    };
    let file_filter = match &arguments.path {
        Some(written) => {
            let path = crate::commands::paths::confine(root, written, "path")?;
            if model.projects_compiling(&path).is_empty() {
                return Err(CommandError::invalid_argument("path", format!("{written} is compiled by no project")));
            }
            Some(path)
        }
        None => None,
    };
    Ok((project_filter, file_filter))
}

/// An internal declaration with no use whose project grants InternalsVisibleTo an assembly
/// outside the workspace is not ruled out; any other verdict stands.
fn unless_visible_outside(candidate: &Candidate, verdict: Verdict) -> Verdict {
    match verdict {
        Verdict::Unused { .. }
            if candidate.accessibility == Accessibility::Internal && !candidate.visible_outside_to.is_empty() =>
        {
            Verdict::NotRuledOut(
                NotRuledOutReason::InternalsVisibleToOutside,
                format!(
                    "no use in the workspace, but {} grants InternalsVisibleTo {}, which is no project of the \
                     workspace",
                    candidate.project,
                    candidate.visible_outside_to.join(", ")
                ),
            )
        }
        verdict => verdict,
    }
}

/// The verdicts so far: the counts and the rows of the answer.
#[derive(Default)]
struct Tally {
    counts: CandidateCounts,
    unused: Vec<UnusedRow>,
    kept: BTreeMap<KeptAliveReason, (usize, Vec<NamedDeclaration>)>,
    not_ruled_out: Vec<NotRuledOutRow>,
}

impl Tally {
    /// Counts one candidate's verdict and adds its row.
    fn record(&mut self, candidate: &Candidate, verdict: Verdict) {
        let counts = &mut self.counts;
        match verdict {
            Verdict::Used { resolved } => {
                counts.used += 1;
                if !resolved {
                    counts.used_by_name_only += 1;
                }
            }
            Verdict::KeptAlive(reason) => {
                counts.kept_alive += 1;
                let (count, sample) = self.kept.entry(reason).or_default();
                *count += 1;
                if sample.len() < KEPT_ALIVE_SAMPLE {
                    sample.push(NamedDeclaration {
                        full_name: candidate.full_name.clone(),
                        path: candidate.display_path.clone(),
                        line: candidate.declaration.name_start.line,
                    });
                }
            }
            Verdict::NotRuledOut(reason, detail) => {
                counts.not_ruled_out += 1;
                self.not_ruled_out.push(NotRuledOutRow {
                    name: candidate.name.clone(),
                    full_name: candidate.full_name.clone(),
                    kind: candidate.kind,
                    accessibility: candidate.accessibility,
                    project: candidate.project.clone(),
                    path: candidate.display_path.clone(),
                    line: candidate.declaration.name_start.line,
                    reason,
                    detail,
                });
            }
            Verdict::Unused { source, evidence, self_references } => {
                counts.unused += 1;
                self.unused.push(UnusedRow {
                    name: candidate.name.clone(),
                    full_name: candidate.full_name.clone(),
                    kind: candidate.kind,
                    declared_as: candidate.declaration.kind.as_str().to_owned(),
                    accessibility: candidate.accessibility,
                    project: candidate.project.clone(),
                    path: candidate.display_path.clone(),
                    line: candidate.declaration.name_start.line,
                    character: candidate.declaration.name_start.character,
                    source,
                    evidence,
                    self_references,
                    caveat: (candidate.accessibility == Accessibility::Public)
                        .then(|| "public: uses by assemblies outside the workspace are not ruled out".to_owned()),
                });
            }
        }
    }
}

/// Why the answer is not complete: candidates left unchecked, uses by name only, candidates
/// not ruled out (empty when it is complete).
fn what_is_incomplete(
    counts: &CandidateCounts,
    not_ruled_out: usize,
    arguments: &DeadCodeArguments,
    deadline_passed: bool,
) -> Vec<String> {
    let mut incomplete = Vec::new();
    if counts.left_unchecked > 0 {
        let why = if deadline_passed {
            format!("the deadline (timeoutMs = {}) passed", arguments.timeout_ms.get())
        } else {
            format!("maxCandidates = {} were checked", arguments.max_candidates.as_usize())
        };
        incomplete.push(format!("{} of {} candidates were not checked: {why}", counts.left_unchecked, counts.total));
    }
    if counts.used_by_name_only > 0 {
        incomplete.push(format!(
            "{} candidate(s) were counted used on name matches alone (FSAC did not resolve them): some may be unused",
            counts.used_by_name_only
        ));
    }
    if not_ruled_out > 0 {
        incomplete.push(format!("{not_ruled_out} candidate(s) with no use found are not ruled out (notRuledOut)"));
    }
    incomplete
}

/// What counts as a use, as the answer says it.
pub const USE_RULE: &str = "a use is any site FSAC's references report other than the declaration itself and its \
     signature entry (a call, a read, a pattern, a construction of a record or union case, a type annotation, \
     `typeof`, `nameof`, a site in an inactive `#if` branch), outside the declaration's own range: a private \
     function called only by itself (recursion) or a type named only inside itself is unused";

/// What the command never sees, whatever the answer.
pub const LIMITS: &[&str] = &[
    "not candidates: namespaces, modules, constructors, type extensions, enum cases, named fields of union cases, \
     active-pattern cases, local bindings and parameters (the compiler's FS1182 warning covers those)",
    "reflection that builds a name (string concatenation, a name from configuration) and SRTP member constraints \
     (`(^T : (member Name : …))`) resolved only at inlining are not seen; a string literal spelling the name keeps \
     it alive",
    "public declarations may be used by assemblies outside the workspace; InternalsVisibleTo is read from the \
     project files and from source files' `[<assembly: InternalsVisibleTo(\"…\")>]`, not from imported MSBuild \
     files (Directory.Build.props); a workspace project's assembly name is taken to be its project file's name",
    "a member of an interface implementation or override is never reported, nor an abstract member; members \
     called only through an interface the type implements are reported only when FSAC reports no call",
    "signature files are matched by name: a declaration is kept alive when its file's .fsi declares the same name",
];

/// What scanning the syntax index found.
struct Scan {
    candidates: Vec<Candidate>,
    projects: Vec<String>,
    textual: TextualNames,
    /// Every workspace file, sorted (for the occurrence lookups).
    files: Vec<PathBuf>,
    notes: Vec<String>,
}

/// Indexes the workspace's files and lists the candidates in scope, in project and file order.
fn scan_workspace(
    model: &WorkspaceModel,
    index: &SyntaxIndex,
    overlay: &Overlay,
    arguments: &DeadCodeArguments,
    project_filter: Option<&Path>,
    file_filter: Option<&Path>,
) -> Scan {
    let all_files = model.files_to_index();
    index.index_paths(&all_files, overlay);
    let mut textual = TextualNames::default();
    let mut texts: HashMap<PathBuf, Arc<str>> = HashMap::new();
    for path in &all_files {
        if let Ok(text) = crate::commands::paths::current_text(overlay, path) {
            textual.add(&text);
            texts.insert(path.clone(), Arc::from(text));
        }
    }
    let project_names: BTreeSet<&str> = model.projects.iter().map(|project| project.name.as_str()).collect();
    let mut candidates = Vec::new();
    let mut projects = Vec::new();
    let mut notes = Vec::new();
    let mut seen_files = BTreeSet::new();
    let ordered: Vec<&Project> =
        model.project_order.iter().filter_map(|path| model.project(path)).chain(model.projects.iter()).collect();
    let mut seen_projects = BTreeSet::new();
    for project in ordered {
        if !seen_projects.insert(project.path.clone()) || project_filter.is_some_and(|only| only != project.path) {
            continue;
        }
        let display = model.display_path(&project.path);
        let grants = internals_visible_to(project, &texts);
        let outside: Vec<String> =
            grants.iter().filter(|grant| !project_names.contains(grant.as_str())).cloned().collect();
        let mut any_file = false;
        for item in project.compile_items.iter().filter(|item| item.exists) {
            if file_filter.is_some_and(|only| only != item.path)
                || GrammarKind::for_path(&item.path) != Some(GrammarKind::Implementation)
            {
                continue;
            }
            if !seen_files.insert(item.path.clone()) {
                continue;
            }
            any_file = true;
            let (Some(file), Some(text)) = (index.file(&item.path), texts.get(&item.path)) else {
                notes.push(format!(
                    "{} could not be read or indexed: its declarations are not candidates",
                    model.display_path(&item.path)
                ));
                continue;
            };
            let signature = signature_names(index, project, &item.path);
            let source = FileSource { file: &file, text, index, signature: signature.as_ref() };
            for slot in 0..file.index.declarations.len() {
                let Some(candidate) = source.candidate(slot, arguments, &display, &outside, model) else { continue };
                candidates.push(candidate);
            }
            if !file.index.health.error_regions.is_empty() {
                notes.push(format!(
                    "{} has syntax errors: declarations inside them may be missing from the candidates",
                    model.display_path(&item.path)
                ));
            }
        }
        if any_file {
            projects.push(display);
        }
    }
    let mut files = all_files;
    files.sort();
    Scan { candidates, projects, textual, files, notes }
}

/// One implementation file and what a candidate of it needs.
struct FileSource<'a> {
    file: &'a IndexedFile,
    text: &'a str,
    index: &'a SyntaxIndex,
    /// The names its signature file declares, when it has one.
    signature: Option<&'a BTreeSet<String>>,
}

impl FileSource<'_> {
    /// Declaration `slot` as a candidate in scope, or `None`.
    fn candidate(
        &self,
        slot: usize,
        arguments: &DeadCodeArguments,
        project: &str,
        visible_outside_to: &[String],
        model: &WorkspaceModel,
    ) -> Option<Candidate> {
        let file = &self.file.index;
        let declaration = file.declarations.get(slot)?;
        let kind = CandidateKind::of(declaration.kind)?;
        if !arguments.kinds.is_empty() && !arguments.kinds.contains(&kind) {
            return None;
        }
        let name = self.index.name(declaration.name).to_string();
        if name.is_empty() || name.starts_with('_') || declaration.name_length == 0 {
            return None;
        }
        let listed = self.signature.map(|names| names.contains(name.trim_matches('`')));
        let accessibility = accessibility_of(file, slot, listed);
        if accessibility == Accessibility::Public && !arguments.include_public {
            return None;
        }
        let kept_alive = if listed == Some(true) {
            Some(KeptAliveReason::SignatureFile)
        } else {
            self.kept_alive_by_declaration(slot, &name)
        };
        let parts = if matches!(declaration.kind, DeclarationKind::Record | DeclarationKind::Union) {
            file.declarations
                .iter()
                .filter(|part| {
                    part.parent as usize == slot
                        && matches!(part.kind, DeclarationKind::RecordField | DeclarationKind::UnionCase)
                })
                .map(|part| (self.index.name(part.name).to_string(), part.clone()))
                .collect()
        } else {
            Vec::new()
        };
        let line = declaration.name_start.line;
        let branch = file.conditionals.iter().rev().find(|branch| branch.holds(line)).map(|branch| branch.display());
        Some(Candidate {
            branch,
            parts,
            full_name: self.index.full_name(file, slot),
            name,
            kind,
            declaration: declaration.clone(),
            accessibility,
            project: project.to_owned(),
            visible_outside_to: visible_outside_to.to_vec(),
            display_path: model.display_path(&self.file.path),
            path: self.file.path.clone(),
            kept_alive,
        })
    }

    /// What keeps declaration `slot` alive whatever its uses: its kind, its name, its
    /// attributes or its type's.
    fn kept_alive_by_declaration(&self, slot: usize, name: &str) -> Option<KeptAliveReason> {
        let file = &self.file.index;
        let declaration = &file.declarations[slot];
        match declaration.kind {
            DeclarationKind::Override => return Some(KeptAliveReason::OverrideOrInterfaceImplementation),
            DeclarationKind::AbstractMember => return Some(KeptAliveReason::AbstractSlot),
            DeclarationKind::Member | DeclarationKind::AutoProperty if is_implicitly_called(name) => {
                return Some(KeptAliveReason::ImplicitCall);
            }
            _ => {}
        }
        let own = attributes_before(self.text, declaration);
        let parent = file
            .declarations
            .get(declaration.parent as usize)
            .filter(|parent| parent.kind.is_type())
            .map(|parent| attributes_before(self.text, parent))
            .unwrap_or_default();
        kept_by_attributes(declaration.kind, &own, &parent)
    }
}

/// Attributes that make a type serializable: they keep its fields, union cases and
/// auto-properties alive, not the type itself nor its methods.
const TYPE_SERIALIZATION_ATTRIBUTES: &[&str] =
    &["DataContract", "CLIMutable", "Serializable", "ProtoContract", "MessagePackObject"];

/// What the attributes written on a declaration (`own`) and on its enclosing type (`parent`)
/// keep alive.
fn kept_by_attributes(kind: DeclarationKind, own: &[String], parent: &[String]) -> Option<KeptAliveReason> {
    let serialized_part = matches!(
        kind,
        DeclarationKind::RecordField
            | DeclarationKind::UnionCase
            | DeclarationKind::Val
            | DeclarationKind::AutoProperty
    );
    let type_level = |name: &String| TYPE_SERIALIZATION_ATTRIBUTES.contains(&name.as_str());
    if let Some(reason) = own.iter().filter(|name| !type_level(name)).find_map(|name| attribute_reason(name)) {
        return Some(reason);
    }
    (serialized_part && parent.iter().any(type_level)).then_some(KeptAliveReason::SerializationAttribute)
}

/// The accessibility of declaration `slot`: the narrowest of its own modifier and its
/// enclosing declarations'; a class's `let` is private; a declaration its file's signature
/// does not list (`listed == Some(false)`) is hidden from other files.
fn accessibility_of(file: &FileIndex, slot: usize, listed: Option<bool>) -> Accessibility {
    let mut narrowest = Accessibility::Public;
    let chain = file.declaration_chain(slot);
    for (position, &link) in chain.iter().enumerate() {
        let Some(declaration) = file.declarations.get(link) else { continue };
        let own = match declaration.access {
            Access::Private => Accessibility::Private,
            Access::Internal => Accessibility::Internal,
            Access::Public | Access::Default => Accessibility::Public,
        };
        narrowest = narrowest.min(own);
        let class_let = matches!(declaration.kind, DeclarationKind::Let | DeclarationKind::Val)
            && position > 0
            && file.declarations.get(chain[position - 1]).is_some_and(|parent| parent.kind.is_type());
        if class_let && declaration.kind == DeclarationKind::Let {
            narrowest = Accessibility::Private;
        }
    }
    if listed == Some(false) && narrowest > Accessibility::HiddenBySignature {
        narrowest = Accessibility::HiddenBySignature;
    }
    narrowest
}

/// The names a `.fsi` beside `path` (same stem, compiled by the same project) declares.
fn signature_names(index: &SyntaxIndex, project: &Project, path: &Path) -> Option<BTreeSet<String>> {
    let signature = path.with_extension("fsi");
    if !project.compiles(&signature) {
        return None;
    }
    let file = index.file(&signature)?;
    Some(
        file.index
            .declarations
            .iter()
            .map(|declaration| index.name(declaration.name).trim_matches('`').to_owned())
            .collect(),
    )
}

/// The assemblies `project` grants `InternalsVisibleTo`: `<InternalsVisibleTo Include>`
/// items, `<AssemblyAttribute>` items and `[<assembly: InternalsVisibleTo("…")>]` in its files.
fn internals_visible_to(project: &Project, texts: &HashMap<PathBuf, Arc<str>>) -> BTreeSet<String> {
    let mut grants = BTreeSet::new();
    let assembly = |written: &str| written.split(',').next().unwrap_or_default().trim().to_owned();
    if let Ok(text) = std::fs::read_to_string(&project.path)
        && let Ok(document) = crate::workspace::xml::parse_xml(&text)
    {
        for element in document.descendants() {
            let name = crate::workspace::xml::local_name(&element.name);
            if name == "InternalsVisibleTo"
                && let Some(include) = element.attribute("Include")
            {
                grants.insert(assembly(include));
            }
            if name == "AssemblyAttribute"
                && element.attribute("Include").is_some_and(|include| include.ends_with("InternalsVisibleToAttribute"))
                && let Some(parameter) = element.child_text("_Parameter1")
            {
                grants.insert(assembly(parameter));
            }
        }
    }
    for item in &project.compile_items {
        let Some(text) = texts.get(&item.path) else { continue };
        for (at, _) in text.match_indices("InternalsVisibleTo") {
            let rest = text[at + "InternalsVisibleTo".len()..].trim_start();
            let rest = rest.strip_prefix("Attribute").unwrap_or(rest).trim_start();
            if let Some(argument) = rest.strip_prefix('(').map(str::trim_start).and_then(|rest| rest.strip_prefix('"'))
                && let Some(end) = argument.find('"')
            {
                grants.insert(assembly(&argument[..end]));
            }
        }
    }
    grants.retain(|grant| !grant.is_empty());
    grants
}

/// One declaration whose uses are looked up: a candidate, or a field or case of a candidate
/// record or union.
struct Lookup<'a> {
    name: &'a str,
    declaration: &'a Declaration,
    path: &'a Path,
    display_path: &'a str,
}

/// What the uses of one declaration are.
enum Uses {
    /// At least one use outside its own declaration; `resolved` when FSAC's references found
    /// it (not the syntax layer's name matches while FSAC is not ready).
    Found { resolved: bool },
    /// None: where that was seen, and how many uses lie inside its own declaration.
    None { source: Source, evidence: String, self_references: usize },
    /// No use found, but the lookup was not complete.
    Open(NotRuledOutReason, String),
}

/// The verdict on `candidate`: its own uses; for a record or union type, the uses of its
/// fields or cases too (`{ X = 0 }` uses a record whose name it never writes); then `nameof`,
/// `typeof` and strings. Every find's `via` is pushed on `asked`.
async fn uses_of(
    candidate: &Candidate,
    index: &SyntaxIndex,
    files: &[PathBuf],
    textual: &TextualNames,
    context: &CommandContext,
    deadline: Deadline,
    asked: &mut Vec<Via>,
) -> Result<Verdict, CommandError> {
    let lookup = Lookup {
        name: &candidate.name,
        declaration: &candidate.declaration,
        path: &candidate.path,
        display_path: &candidate.display_path,
    };
    let (source, mut evidence, self_references) =
        match direct_uses(&lookup, index, files, context, deadline, asked).await? {
            Uses::Found { resolved } => return Ok(Verdict::Used { resolved }),
            Uses::Open(reason, detail) => {
                let branch = candidate.branch.as_ref().map(|branch| {
                    format!("; it is declared inside `{branch}`, which the configuration FSAC loaded may not compile")
                });
                return Ok(Verdict::NotRuledOut(reason, detail + &branch.unwrap_or_default()));
            }
            Uses::None { source, evidence, self_references } => (source, evidence, self_references),
        };
    for (name, part) in &candidate.parts {
        let lookup = Lookup { name, declaration: part, path: &candidate.path, display_path: &candidate.display_path };
        match direct_uses(&lookup, index, files, context, deadline, asked).await? {
            Uses::Found { resolved } => return Ok(Verdict::Used { resolved }),
            Uses::Open(reason, detail) => {
                return Ok(Verdict::NotRuledOut(reason, format!("its field or case {name}: {detail}")));
            }
            Uses::None { .. } => {}
        }
    }
    if !candidate.parts.is_empty() {
        evidence.push_str(&format!("; none of its {} fields or cases is used", candidate.parts.len()));
    }
    if let Some(reason) = textual.keeps_alive(&candidate.name) {
        return Ok(Verdict::KeptAlive(reason));
    }
    Ok(Verdict::Unused { source, evidence, self_references })
}

/// The uses of one declaration: the syntax index first (no identifier or field site of its
/// name outside its own declaration is no use), then FSAC's references through find at its
/// name.
async fn direct_uses(
    lookup: &Lookup<'_>,
    index: &SyntaxIndex,
    files: &[PathBuf],
    context: &CommandContext,
    deadline: Deadline,
    asked: &mut Vec<Via>,
) -> Result<Uses, CommandError> {
    let own = lookup.declaration.range;
    let mut occurrences: Vec<(PathBuf, crate::syntax::model::Position)> =
        index.find_occurrences_in(lookup.name, files).into_iter().map(|hit| (hit.path, hit.position)).collect();
    // A field's label in a construction or pattern is a field site, which may not be an
    // identifier occurrence.
    occurrences.extend(index.find_field_sites_in(lookup.name, files).into_iter().map(|hit| (hit.path, hit.site.start)));
    occurrences.sort();
    occurrences.dedup();
    let mut self_references = 0;
    let mut elsewhere = 0;
    for (path, position) in &occurrences {
        if path == lookup.path && *position == lookup.declaration.name_start {
            continue;
        }
        let signature = path.extension().is_some_and(|extension| extension == "fsi");
        if path == lookup.path && inside(own, position.line, position.character) {
            self_references += 1;
        } else if !signature {
            elsewhere += 1;
        }
    }
    if elsewhere == 0 {
        return Ok(Uses::None {
            source: Source::Syntax,
            evidence: format!(
                "no identifier `{}` in any file of the workspace outside its own declaration (syntax index){}",
                lookup.name,
                self_uses(self_references)
            ),
            self_references,
        });
    }
    let own_arguments = FindOwnArguments { kind: FindKind::Position, ..FindOwnArguments::default() };
    let mut find_arguments = FindArguments::new(own_arguments);
    find_arguments.path = Some(lookup.display_path.to_owned());
    find_arguments.line = Some(Coordinate::clamped(u64::from(lookup.declaration.name_start.line)));
    find_arguments.character = Some(Coordinate::clamped(u64::from(lookup.declaration.name_start.character)));
    find_arguments.timeout_ms = FindTimeoutMs::clamped(deadline.remaining_ms());
    let found = match find::all_sites(find_arguments, context.clone()).await {
        Ok(found) => found,
        Err(CommandError::Cancelled) => return Err(CommandError::Cancelled),
        Err(error) => {
            return Ok(Uses::Open(NotRuledOutReason::FindFailed, format!("find failed at its name: {error}")));
        }
    };
    asked.push(found.via);
    let mut fsac_self_references = 0;
    let mut uses = 0;
    for site in found.rows.iter().filter(|site| !matches!(site.kind, SiteKind::Definition | SiteKind::Signature)) {
        if site.file == lookup.display_path && inside(own, site.range.start.line, site.range.start.character) {
            fsac_self_references += 1;
        } else {
            uses += 1;
        }
    }
    if uses > 0 {
        return Ok(Uses::Found { resolved: found.via == Via::Fsac });
    }
    if found.completeness != Completeness::Complete {
        return Ok(Uses::Open(
            NotRuledOutReason::FindIncomplete,
            format!(
                "no use found, but find's answer is {} (via {}){}",
                found.completeness.as_str(),
                found.via.as_str(),
                found.notes.first().map(|note| format!(": {note}")).unwrap_or_default()
            ),
        ));
    }
    let swept: Vec<&str> = found.per_project.iter().map(|row| row.project.as_str()).collect();
    Ok(Uses::None {
        source: Source::Fsac,
        evidence: format!(
            "no use found by FSAC's references over projects [{}]; {elsewhere} same-named identifier(s) elsewhere \
             are other symbols{}",
            swept.join(", "),
            self_uses(fsac_self_references)
        ),
        self_references: fsac_self_references,
    })
}

fn self_uses(count: usize) -> String {
    if count == 0 { String::new() } else { format!("; used only inside its own declaration ({count} time(s))") }
}

/// Whether 0-based `line`:`character` lies inside `range`.
fn inside(range: TextRange, line: u32, character: u32) -> bool {
    let at = (line, character);
    (range.start.line, range.start.character) <= at && at < (range.end.line, range.end.character)
}

/// Members the compiler or runtime calls without their name written at the call.
fn is_implicitly_called(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "Bind",
        "BindReturn",
        "Bind2",
        "MergeSources",
        "Return",
        "ReturnFrom",
        "Yield",
        "YieldFrom",
        "Zero",
        "Delay",
        "Run",
        "Combine",
        "For",
        "While",
        "TryWith",
        "TryFinally",
        "Using",
        "Source",
        "Quote",
        "Dispose",
        "GetEnumerator",
        "Current",
        "MoveNext",
        "Item",
        "GetSlice",
        "Invoke",
        "op_Implicit",
        "op_Explicit",
    ];
    NAMES.contains(&name)
}

/// The attribute names written on `declaration`: in its header before its name, and on the
/// lines right above it that open with `[<`. Names lose a target (`return:`), their namespace
/// and an `Attribute` suffix.
fn attributes_before(text: &str, declaration: &Declaration) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut written = String::new();
    let first = declaration.range.start.line as usize;
    let mut above = first;
    while above > 0 && lines.get(above - 1).is_some_and(|line| line.trim_start().starts_with("[<")) {
        above -= 1;
    }
    for line in lines.iter().take(first).skip(above) {
        written.push_str(line);
        written.push('\n');
    }
    let name_line = declaration.name_start.line as usize;
    for (number, line) in lines.iter().enumerate().take(name_line + 1).skip(first) {
        if number == name_line {
            let end =
                line.char_indices().nth(declaration.name_start.character as usize).map_or(line.len(), |(at, _)| at);
            written.push_str(&line[..end]);
        } else {
            written.push_str(line);
            written.push('\n');
        }
    }
    attribute_names(&written)
}

/// The attribute names inside every `[< … >]` of `text`.
fn attribute_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("[<") {
        let after = &rest[open + 2..];
        let close = after.find(">]").unwrap_or(after.len());
        for part in split_top_level(&after[..close]) {
            let part = part.trim();
            let part = part.split_once(':').filter(|(target, _)| !target.contains('(')).map_or(part, |(_, name)| name);
            let name: String = part
                .trim()
                .chars()
                .take_while(|character| character.is_alphanumeric() || *character == '_' || *character == '.')
                .collect();
            let last = name.rsplit('.').next().unwrap_or_default();
            let last = last.strip_suffix("Attribute").filter(|stripped| !stripped.is_empty()).unwrap_or(last);
            if !last.is_empty() {
                names.push(last.to_owned());
            }
        }
        rest = &after[close.min(after.len())..];
    }
    names
}

/// `a; b(c; d)` → `a`, `b(c; d)`.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quoted) = (0i32, 0, false);
    for (at, character) in text.char_indices() {
        match character {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ';' if !quoted && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The reason an attribute keeps its declaration alive, if it does.
fn attribute_reason(name: &str) -> Option<KeptAliveReason> {
    const TEST: &[&str] = &[
        "Fact",
        "Theory",
        "Test",
        "TestCase",
        "TestCaseSource",
        "TestMethod",
        "DataTestMethod",
        "Tests",
        "FTests",
        "PTests",
        "Property",
        "Benchmark",
        "GlobalSetup",
        "GlobalCleanup",
        "SetUp",
        "TearDown",
        "OneTimeSetUp",
        "OneTimeTearDown",
        "TestInitialize",
        "TestCleanup",
        "ClassInitialize",
        "ClassCleanup",
    ];
    const INTEROP: &[&str] = &["DllImport", "UnmanagedCallersOnly", "ModuleInitializer"];
    const SERIALIZATION: &[&str] = &[
        "DataMember",
        "DataContract",
        "JsonProperty",
        "JsonPropertyName",
        "JsonInclude",
        "JsonConstructor",
        "JsonExtensionData",
        "CLIMutable",
        "Serializable",
        "XmlElement",
        "XmlAttribute",
        "XmlRoot",
        "XmlArray",
        "XmlArrayItem",
        "XmlText",
        "ProtoMember",
        "ProtoContract",
        "Key",
        "MessagePackObject",
    ];
    if name == "EntryPoint" {
        Some(KeptAliveReason::EntryPointAttribute)
    } else if TEST.contains(&name) {
        Some(KeptAliveReason::TestAttribute)
    } else if INTEROP.contains(&name) {
        Some(KeptAliveReason::InteropAttribute)
    } else if SERIALIZATION.contains(&name) {
        Some(KeptAliveReason::SerializationAttribute)
    } else {
        None
    }
}

impl TextualNames {
    /// Adds what `text` names by `nameof`, `typeof<…>`/`typedefof<…>` and string literals.
    fn add(&mut self, text: &str) {
        for (at, _) in text.match_indices("nameof") {
            let before = text[..at].chars().next_back();
            if before.is_some_and(crate::syntax::words::is_identifier_char) {
                continue;
            }
            let rest = text[at + "nameof".len()..].trim_start_matches([' ', '(', '<', '\t']);
            if let Some(name) = last_segment(rest) {
                self.nameof.insert(name);
            }
        }
        for keyword in ["typeof<", "typedefof<"] {
            for (at, _) in text.match_indices(keyword) {
                if let Some(name) = last_segment(text[at + keyword.len()..].trim_start()) {
                    self.typeof_.insert(name);
                }
            }
        }
        for line in text.lines() {
            let mut parts = line.split('"');
            parts.next();
            while let Some(inside) = parts.next() {
                let identifier = !inside.is_empty()
                    && inside.len() <= 200
                    && inside.chars().all(|character| character.is_alphanumeric() || "_.".contains(character));
                if identifier {
                    self.strings.insert(inside.to_owned());
                    if let Some(last) = inside.rsplit('.').next() {
                        self.strings.insert(last.to_owned());
                    }
                }
                parts.next();
            }
        }
    }

    fn keeps_alive(&self, name: &str) -> Option<KeptAliveReason> {
        let name = name.trim_matches('`');
        if self.nameof.contains(name) {
            Some(KeptAliveReason::Nameof)
        } else if self.typeof_.contains(name) {
            Some(KeptAliveReason::Typeof)
        } else if self.strings.contains(name) {
            Some(KeptAliveReason::NamedInString)
        } else {
            None
        }
    }
}

/// The last segment of the dotted identifier at the start of `text`.
fn last_segment(text: &str) -> Option<String> {
    let path: String = text
        .chars()
        .take_while(|character| {
            character.is_alphanumeric() || *character == '_' || *character == '.' || *character == '\''
        })
        .collect();
    let last = path.trim_end_matches('.').rsplit('.').next()?.to_owned();
    (!last.is_empty()).then_some(last)
}

/// Definite when the answer is complete, not definite otherwise.
impl crate::commands::outcome::Answered for DeadCodeAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(self.complete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_names_drop_targets_namespaces_and_the_suffix() {
        assert_eq!(
            attribute_names(
                "[<EntryPoint>]\n[<System.Runtime.InteropServices.DllImportAttribute(\"c\", EntryPoint = \"x\"); Obsolete>]"
            ),
            vec!["EntryPoint", "DllImport", "Obsolete"]
        );
        assert_eq!(attribute_names("[<return: MarshalAs(UnmanagedType.Bool)>]"), vec!["MarshalAs"]);
        assert_eq!(attribute_names("let private f x ="), Vec::<String>::new());
    }

    #[test]
    fn attributes_decide_the_reasons_and_a_literal_is_no_reason() {
        assert_eq!(attribute_reason("EntryPoint"), Some(KeptAliveReason::EntryPointAttribute));
        assert_eq!(attribute_reason("Fact"), Some(KeptAliveReason::TestAttribute));
        assert_eq!(attribute_reason("Tests"), Some(KeptAliveReason::TestAttribute));
        assert_eq!(attribute_reason("DllImport"), Some(KeptAliveReason::InteropAttribute));
        assert_eq!(attribute_reason("JsonPropertyName"), Some(KeptAliveReason::SerializationAttribute));
        assert_eq!(attribute_reason("Literal"), None);
        assert_eq!(attribute_reason("Obsolete"), None);
    }

    #[test]
    fn a_serializable_type_keeps_its_fields_alive_but_not_itself_nor_its_methods() {
        let names = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect::<Vec<_>>();
        let serializable = names(&["Serializable"]);
        assert_eq!(kept_by_attributes(DeclarationKind::Record, &serializable, &[]), None);
        assert_eq!(
            kept_by_attributes(DeclarationKind::RecordField, &[], &serializable),
            Some(KeptAliveReason::SerializationAttribute)
        );
        assert_eq!(
            kept_by_attributes(DeclarationKind::AutoProperty, &[], &names(&["CLIMutable"])),
            Some(KeptAliveReason::SerializationAttribute)
        );
        assert_eq!(kept_by_attributes(DeclarationKind::Member, &[], &serializable), None);
        assert_eq!(
            kept_by_attributes(DeclarationKind::Member, &names(&["DataMember"]), &[]),
            Some(KeptAliveReason::SerializationAttribute)
        );
        assert_eq!(
            kept_by_attributes(DeclarationKind::Let, &names(&["Obsolete", "EntryPoint"]), &[]),
            Some(KeptAliveReason::EntryPointAttribute)
        );
    }

    #[test]
    fn nameof_typeof_and_strings_are_read_from_text() {
        let mut names = TextualNames::default();
        names.add(
            "let a = nameof Core.hidden\nlet b = nameof(other)\nlet c = typeof<Marker>.Name\n\
             let d = t.GetMethod(\"reflected\")\nlet e = renameof x\nlet f = \"two words\"",
        );
        assert_eq!(names.keeps_alive("hidden"), Some(KeptAliveReason::Nameof));
        assert_eq!(names.keeps_alive("other"), Some(KeptAliveReason::Nameof));
        assert_eq!(names.keeps_alive("Marker"), Some(KeptAliveReason::Typeof));
        assert_eq!(names.keeps_alive("reflected"), Some(KeptAliveReason::NamedInString));
        assert_eq!(names.keeps_alive("x"), None);
        assert_eq!(names.keeps_alive("two"), None);
    }
}
