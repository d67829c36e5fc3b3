//! `fslens.outline`: structural overviews from the syntax index, labelled `via: "syntax"`.
//!
//! Three views share one response-budget mechanism (see [`crate::commands::budget`]):
//! * `file` — one file's namespaces, modules and types. `summaryOnly` (the default) gives
//!   headers and per-kind member counts; `summaryOnly: false` adds signatures, ranges and
//!   the members themselves, and is downgraded to the summary shape (flagged
//!   `downgradedToSummary`) when the full entries would not fit the budget.
//! * `project` — a project's files in compile order (or every project's, then the orphan
//!   files), each with health and its top-level declarations, plus the project metadata.
//! * `publicApi` — every public (optionally internal) module and type with its public
//!   members and signatures, sorted by full name so two snapshots diff cleanly; `.fsi` files
//!   stand in for their implementation files.
//!
//! Every answer carries `completeness: "syntactic"` and the health of what it covers: a
//! degraded file's entities say `certain: false` rather than being presented as exact. The
//! arguments are one typed struct ([`OutlineArguments`]); the answer is one [`OutlineAnswer`]
//! tagged by `view`, each view a header of its own and the shared [`OutlinePage`] of its typed
//! entries. The answer derives `Deserialize` too, so the CLI text reads it typed.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::budget::{
    PageBudget, PageByteBudget, PageCharBudget, RESPONSE_HARD_CEILING, Size, cursor_digest, encode_cursor, page_budget,
    page_offset, paginate, serialized_size, serialized_utf16_len,
};
use crate::commands::find::rows::RowRange;
use crate::commands::params::{Bounded, CommandArguments};
use crate::commands::symbols::{AccessName, Completeness, HealthName, KindName, SyntaxVia};
use crate::syntax::index::IndexedFile;
use crate::syntax::model::{Access, DeclarationKind, FileIndex, HealthStatus, NO_PARENT};
use crate::syntax::{Overlay, SyntaxIndex, render_signature};
use crate::workspace::{Project, WorkspaceModel, load_workspace};

/// Longest rendered signature, in characters.
const SIGNATURE_MAX_CHARS: usize = 240;
/// At most this many error regions and mis-parse findings are listed per file.
const HEALTH_DETAIL_LIMIT: usize = 20;

/// A 0-based position in a result stream (`offset`).
pub type StreamOffset = Bounded<0, { u32::MAX as u64 }>;

// ---- arguments ------------------------------------------------------------------------------

/// Which outline to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum OutlineView {
    /// one file's namespaces, modules and types
    File,
    /// the projects' files in compile order, then the orphan files
    Project,
    /// the public modules and types with their members, sorted by full name
    PublicApi,
}

/// The arguments of `fslens.outline` (all optional), and the flags of `fslens outline`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutlineArguments {
    /// Which outline; default `file` when `path` is given, else `project`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long, value_enum)]
    pub view: Option<OutlineView>,
    /// The file to outline (view `file`; required there). Relative to the workspace root or
    /// absolute inside it; paths outside are refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "P")]
    pub path: Option<String>,
    /// A project, by path or name (views `project` and `publicApi`); default: every project.
    /// A path is relative to the workspace root or absolute inside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub project: Option<String>,
    /// View `file`: headers and per-kind member counts only. `false` adds signatures, ranges
    /// and the members, downgraded to the summary (`downgradedToSummary`) when they would not
    /// fit the budget.
    #[serde(default = "summary_by_default")]
    // On the command line the flag says the opposite: `--full` asks for the full entries.
    #[arg(long = "full", action = clap::ArgAction::SetFalse, help = "Full entries with signatures and members instead of the summary")]
    pub summary_only: bool,
    /// Entities per page, 1 to 1000; default 200 (100 for `publicApi`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub max_results: Option<Bounded<1, 1000>>,
    /// `nextCursor` of the previous page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub cursor: Option<String>,
    /// Start at this entity (0-based) instead of at a cursor.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub offset: Option<StreamOffset>,
    /// Only entities at or under this namespace or module (a full name, matched by whole
    /// dotted segments).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub namespace_filter: Option<String>,
    /// View `publicApi`: also internal modules, types and members.
    #[serde(default)]
    #[arg(long)]
    pub include_internal: bool,
    /// UTF-16 units of entries one page may hold, 200 to 45,000; default 45,000 (30,000
    /// through the MCP bridge, so a page fits its output).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_char_budget: Option<PageCharBudget>,
    /// UTF-8 bytes of entries one page may hold, 200 to 10,000,000; absent, no byte limit
    /// (30,000 through the MCP bridge, so a page of non-ASCII text fits its output too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_byte_budget: Option<PageByteBudget>,
}

fn summary_by_default() -> bool {
    true
}

impl CommandArguments for OutlineArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if self.view() == OutlineView::File && self.path.is_none() {
            return Err(CommandError::invalid_argument("path", "required for view `file`"));
        }
        if self.cursor.is_some() && self.offset.is_some() {
            return Err(CommandError::invalid_argument("offset", "give either `cursor` or `offset`, not both"));
        }
        Ok(())
    }
}

impl OutlineArguments {
    /// The view asked for, or the one `path` implies.
    pub fn view(&self) -> OutlineView {
        match (self.view, &self.path) {
            (Some(view), _) => view,
            (None, Some(_)) => OutlineView::File,
            (None, None) => OutlineView::Project,
        }
    }

    fn max_results(&self) -> usize {
        let default = if self.view() == OutlineView::PublicApi { 100 } else { 200 };
        self.max_results.map_or(default, Bounded::as_usize)
    }

    fn response_char_budget(&self) -> usize {
        self.response_char_budget.unwrap_or_default().as_usize()
    }

    fn page_budget(&self) -> PageBudget {
        page_budget(self.response_char_budget, self.response_byte_budget)
    }

    fn offset(&self) -> Option<usize> {
        self.offset.map(Bounded::as_usize)
    }

    /// The filter, when one is given: an empty filter is no filter.
    fn namespace_filter(&self) -> Option<&str> {
        self.namespace_filter.as_deref().filter(|filter| !filter.is_empty())
    }

    /// Everything that identifies the query, for cursor binding: all arguments but the
    /// position in the stream.
    fn query_identity(&self) -> Value {
        let identity = QueryIdentity {
            view: self.view(),
            path: self.path.as_deref(),
            project: self.project.as_deref(),
            summary_only: self.summary_only,
            max_results: self.max_results(),
            namespace_filter: self.namespace_filter(),
            include_internal: self.include_internal,
            response_char_budget: self.response_char_budget(),
            response_byte_budget: self.response_byte_budget,
        };
        serde_json::to_value(identity).unwrap_or_default()
    }
}

/// What binds a cursor to its query: every argument but the position in the stream.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QueryIdentity<'a> {
    view: OutlineView,
    path: Option<&'a str>,
    project: Option<&'a str>,
    summary_only: bool,
    max_results: usize,
    namespace_filter: Option<&'a str>,
    include_internal: bool,
    response_char_budget: usize,
    response_byte_budget: Option<PageByteBudget>,
}

// ---- entry points -----------------------------------------------------------------------------

/// `fslens.outline` in a session: the session's long-lived index and the editor's unsaved
/// buffers, the project model read and the files indexed off the routing thread.
pub async fn outline(arguments: OutlineArguments, context: CommandContext) -> Result<OutlineAnswer, CommandError> {
    let root = context.workspace_root()?.to_path_buf();
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    crate::commands::run_blocking(move || {
        let model = load_workspace(&root).map_err(|error| CommandError::InvalidPath {
            path: root.display().to_string(),
            message: format!("{error:#}"),
        })?;
        outline_with_index(&index, &model, &arguments, &overlay)
    })
    .await
}

/// `fslens.outline` against an index the caller keeps (the proxy's long-lived one). Files
/// the view needs are refreshed first; unchanged files cost a hash each.
pub fn outline_with_index(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<OutlineAnswer, CommandError> {
    match arguments.view() {
        OutlineView::File => file_outline(index, model, arguments, overlay),
        OutlineView::Project => project_outline(index, model, arguments, overlay),
        OutlineView::PublicApi => public_api(index, model, arguments, overlay),
    }
}

// ---- the answer, paged ------------------------------------------------------------------------

/// One outline answer, tagged by `view`: the view's own header, then the page of entities.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(tag = "view", rename_all = "camelCase")]
pub enum OutlineAnswer {
    File(Outlined<FileHeader, FileEntity>),
    Project(Outlined<ProjectHeader, ProjectFileEntry>),
    PublicApi(Outlined<PublicApiHeader, PublicApiEntity>),
}

/// A view's answer: who answered, its header and one page of its entities.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Outlined<Header, Entry> {
    pub via: SyntaxVia,
    pub completeness: Completeness,
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub page: OutlinePage<Entry>,
}

/// The members every paged outline answer shares.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct OutlinePage<Entry> {
    pub count: usize,
    pub total_entities: usize,
    pub offset: usize,
    pub entries: Vec<Entry>,
    pub returned_entry_count: usize,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Not::not")]
    pub truncated_by_budget: bool,
    #[serde(default, skip_serializing_if = "Not::not")]
    pub response_truncated_by_budget: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// A view's entities in stream order, with what binds a cursor to them.
struct EntityStream<Entry> {
    entities: Vec<Entry>,
    digest: String,
    offset: usize,
}

impl<Entry> EntityStream<Entry> {
    /// The stream, and where this page starts in it (a cursor from another query or stream is
    /// refused).
    fn new(arguments: &OutlineArguments, entities: Vec<Entry>, stream_identity: &str) -> Result<Self, CommandError> {
        let digest = cursor_digest(&arguments.query_identity(), stream_identity);
        let offset = starting_offset(arguments, &digest, entities.len())?;
        Ok(EntityStream { entities, digest, offset })
    }
}

/// The answer for one page of `stream`: at most `maxResults` whole entities within the page
/// budget, then, as a final guard, no more than the assembled answer's ceiling allows. `view`
/// makes the answer of the view's header and page.
fn paged_answer<Header: Clone, Entry: Serialize + Clone>(
    header: Header,
    arguments: &OutlineArguments,
    stream: &EntityStream<Entry>,
    hint_for_remainder: impl Fn(usize) -> Option<String>,
    view: fn(Outlined<Header, Entry>) -> OutlineAnswer,
) -> OutlineAnswer {
    let EntityStream { entities, digest, offset } = stream;
    let max_results = arguments.max_results();
    let page = paginate(entities, *offset, max_results, arguments.page_budget());
    let mut entries = page.entries;
    let mut next_offset = page.next_offset;
    let (mut truncated, mut truncated_by_budget, mut response_truncated) =
        (page.truncated, page.truncated_by_budget, false);
    loop {
        let answer = view(Outlined {
            via: SyntaxVia::Syntax,
            completeness: Completeness::Syntactic,
            header: header.clone(),
            page: OutlinePage {
                count: entities.len().min(max_results),
                total_entities: entities.len(),
                offset: *offset,
                returned_entry_count: entries.len(),
                truncated,
                truncated_by_budget,
                response_truncated_by_budget: response_truncated,
                next_cursor: next_offset.map(|next| encode_cursor(next, digest)),
                hint: next_offset.and_then(&hint_for_remainder),
                entries: entries.clone(),
            },
        });
        if serialized_utf16_len(&answer) <= RESPONSE_HARD_CEILING || entries.len() <= 1 {
            return answer;
        }
        entries.pop();
        (truncated, truncated_by_budget, response_truncated) = (true, true, true);
        next_offset = Some(offset + entries.len());
    }
}

fn starting_offset(arguments: &OutlineArguments, digest: &str, total: usize) -> Result<usize, CommandError> {
    let offset = match (&arguments.cursor, arguments.offset()) {
        (Some(cursor), _) => page_offset(cursor, digest)?,
        (None, Some(offset)) => offset,
        (None, None) => 0,
    };
    if offset > total {
        let argument = if arguments.cursor.is_some() { "cursor" } else { "offset" };
        return Err(CommandError::invalid_argument(argument, format!("offset {offset} is past the {total} entities")));
    }
    Ok(offset)
}

/// Binds cursors to the entities: their JSON text, in order.
fn stream_identity<Entry: Serialize>(entities: &[Entry]) -> String {
    let mut identity = crate::commands::cursor::StreamIdentity::new();
    for entity in entities {
        identity.add_serialized(entity);
    }
    identity.finish()
}

// ---- shared pieces ----------------------------------------------------------------------------

/// The path an argument names, as the workspace model spells paths (joined to its root), once
/// it is known to stay inside the workspace, symbolic links followed; else `invalid_path`.
fn resolve_argument_path(model: &WorkspaceModel, written: &str, argument: &str) -> Result<PathBuf, CommandError> {
    crate::commands::paths::confine(&model.root, written, argument)?;
    let path = Path::new(written);
    let joined = if path.is_absolute() { path.to_path_buf() } else { model.root.join(path) };
    Ok(crate::workspace::paths::normalize_lexically(&joined))
}

/// A file's parse health, with at most `HEALTH_DETAIL_LIMIT` (20) regions and findings.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub status: HealthName,
    pub root_is_error: bool,
    pub error_region_count: usize,
    pub misparse_count: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_regions: Option<Vec<RowRange>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misparses: Option<Vec<Misparse>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A suspected mis-parse: which indicator found it, and where.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Misparse {
    pub indicator: MisparseName,
    pub range: RowRange,
}

/// A mis-parse indicator as answers spell it.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MisparseName {
    /// `->` as an infix operator: a one-line multi-rule `match`/`function`.
    InfixArrow,
    /// `|` as an infix operator: the same.
    InfixBar,
    /// `<-` as an infix operator: dot-less indexed assignment.
    InfixAssign,
    /// `x[0]` parsed as applying `x` to a list.
    AdjacentListApplication,
    /// A declaration keyword (`member`, `override`, …) read as an identifier.
    KeywordAsIdentifier,
}

impl From<crate::syntax::model::MisparseIndicator> for MisparseName {
    fn from(indicator: crate::syntax::model::MisparseIndicator) -> MisparseName {
        use crate::syntax::model::MisparseIndicator as Indicator;
        match indicator {
            Indicator::InfixArrow => MisparseName::InfixArrow,
            Indicator::InfixBar => MisparseName::InfixBar,
            Indicator::InfixAssign => MisparseName::InfixAssign,
            Indicator::AdjacentListApplication => MisparseName::AdjacentListApplication,
            Indicator::KeywordAsIdentifier => MisparseName::KeywordAsIdentifier,
        }
    }
}

/// Which grammar a file was parsed with.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GrammarName {
    /// `.fs`, `.fsx`.
    Implementation,
    /// `.fsi`.
    Signature,
}

impl From<crate::syntax::GrammarKind> for GrammarName {
    fn from(grammar: crate::syntax::GrammarKind) -> GrammarName {
        match grammar {
            crate::syntax::GrammarKind::Implementation => GrammarName::Implementation,
            crate::syntax::GrammarKind::Signature => GrammarName::Signature,
        }
    }
}

impl GrammarName {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GrammarName::Implementation => "implementation",
            GrammarName::Signature => "signature",
        }
    }
}

impl Health {
    fn of(file: &FileIndex) -> Health {
        let health = &file.health;
        Health {
            status: health.status.into(),
            root_is_error: health.root_is_error,
            error_region_count: health.error_regions.len(),
            misparse_count: health.misparses.len(),
            error_regions: (!health.error_regions.is_empty()).then(|| {
                health.error_regions.iter().take(HEALTH_DETAIL_LIMIT).map(|range| RowRange::of(*range)).collect()
            }),
            misparses: (!health.misparses.is_empty()).then(|| {
                health
                    .misparses
                    .iter()
                    .take(HEALTH_DETAIL_LIMIT)
                    .map(|finding| Misparse { indicator: finding.indicator.into(), range: RowRange::of(finding.range) })
                    .collect()
            }),
            detail: health.detail.clone(),
        }
    }
}

/// How many of the files a view covers parsed cleanly, degraded, timed out or failed.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub files_requested: usize,
    pub files_clean: usize,
    pub files_degraded: usize,
    pub files_timed_out: usize,
    pub files_failed: usize,
}

impl Coverage {
    fn of(index: &SyntaxIndex, files: &[PathBuf]) -> Coverage {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for path in files {
            let status = index.file(path).map_or("missing", |file| file.index.health.status.as_str());
            *counts.entry(status).or_default() += 1;
        }
        let count = |status: &str| counts.get(status).copied().unwrap_or(0);
        Coverage {
            files_requested: files.len(),
            files_clean: count("clean"),
            files_degraded: count("degraded"),
            files_timed_out: count("timed-out"),
            files_failed: count("failed") + count("missing"),
        }
    }
}

/// The text the index was built from, re-read and checked against the content hash.
fn text_for(index: &SyntaxIndex, path: &Path, overlay: &Overlay) -> Option<(std::sync::Arc<IndexedFile>, String)> {
    for _ in 0..2 {
        let file = index.file(path)?;
        let text = overlay.current_text_lossy(path).ok()?;
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        if digest == file.index.content_sha256 {
            return Some((file, text));
        }
        // The file changed between indexing and reading: index the new text once more.
        index.refresh_path(path, overlay);
    }
    None
}

/// For each declaration, the index of its nearest container ancestor (or `NO_PARENT`).
fn nearest_containers(file: &FileIndex) -> Vec<u32> {
    file.declarations
        .iter()
        .map(|declaration| {
            let mut parent = declaration.parent;
            let mut steps = 0;
            while parent != NO_PARENT && steps <= file.declarations.len() {
                match file.declarations.get(parent as usize) {
                    Some(ancestor) if ancestor.kind.is_container() => return parent,
                    Some(ancestor) => parent = ancestor.parent,
                    None => return NO_PARENT,
                }
                steps += 1;
            }
            NO_PARENT
        })
        .collect()
}

/// A declaration's access as outlines say it: no modifier is `public`.
fn access_text(access: Access) -> AccessName {
    match access {
        Access::Default | Access::Public => AccessName::Public,
        Access::Internal => AccessName::Internal,
        Access::Private => AccessName::Private,
    }
}

fn signature_for(text: Option<&str>, file: &FileIndex, slot: usize) -> Option<String> {
    let text = text?;
    let declaration = file.declarations.get(slot)?;
    let header = render_signature(text, declaration.header_bytes, SIGNATURE_MAX_CHARS);
    Some(if declaration.kind.is_type() && declaration.kind != DeclarationKind::Exception {
        format!("type {header}")
    } else {
        header
    })
}

fn is_true(value: &bool) -> bool {
    *value
}

fn yes() -> bool {
    true
}

fn matches_namespace(full_name: &str, filter: &str) -> bool {
    full_name == filter || full_name.strip_prefix(filter).is_some_and(|rest| rest.starts_with('.'))
}

fn is_script(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("fsx") || extension.eq_ignore_ascii_case("fsscript"))
}

fn select_projects<'a>(model: &'a WorkspaceModel, written: Option<&str>) -> Result<Vec<&'a Project>, CommandError> {
    let ordered: Vec<&Project> = model.project_order.iter().filter_map(|path| model.project(path)).collect();
    let Some(written) = written else {
        return Ok(ordered);
    };
    let path = resolve_argument_path(model, written, "project")?;
    let chosen: Vec<_> = ordered
        .into_iter()
        .filter(|project| project.path == path || project.name.eq_ignore_ascii_case(written))
        .collect();
    if chosen.is_empty() {
        let known: Vec<String> = model.projects.iter().map(|project| model.display_path(&project.path)).collect();
        return Err(CommandError::invalid_argument(
            "project",
            format!("no project `{written}` in the workspace; known: {}", known.join(", ")),
        ));
    }
    Ok(chosen)
}

// ---- view `file` ------------------------------------------------------------------------------

/// The members of a `file` outline besides the page.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct FileHeader {
    pub path: String,
    pub grammar: GrammarName,
    pub from_unsaved_buffer: bool,
    pub health: Health,
    pub lines: u32,
    pub summary_only: bool,
    pub member_counts: BTreeMap<KindName, usize>,
    pub projects: Vec<String>,
    #[serde(default, skip_serializing_if = "Not::not")]
    pub downgraded_to_summary: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downgrade_hint: Option<String>,
}

/// One container of a file (namespace, module, type), or the implicit module that holds the
/// top-level declarations outside any container (scripts).
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct FileEntity {
    pub name: String,
    pub kind: KindName,
    pub full_name: String,
    #[serde(default, skip_serializing_if = "Not::not")]
    pub implicit: bool,
    pub access: AccessName,
    /// Absent for the implicit module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<RowRange>,
    pub member_counts: BTreeMap<KindName, usize>,
    pub certain: bool,
    /// Full entries only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Full entries only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<FileMember>>,
    /// The file has errors or suspected mis-parses: said on every entity that is otherwise certain.
    #[serde(default, skip_serializing_if = "Not::not")]
    pub file_degraded: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct FileMember {
    pub name: String,
    pub kind: KindName,
    pub access: AccessName,
    pub range: RowRange,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Absent when `true`.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub certain: bool,
}

fn file_outline(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<OutlineAnswer, CommandError> {
    let written = arguments.path.as_deref().unwrap_or("");
    let path = outlined_file(model, written, overlay)?;
    index.refresh_path(&path, overlay);
    let (file, text) = text_for(index, &path, overlay).ok_or_else(|| CommandError::InvalidPath {
        path: written.to_owned(),
        message: "the file could not be read".to_owned(),
    })?;
    let source = FileSource { index, file: &file.index, text: &text, implicit_name: implicit_module_name(&path) };
    let (entities, downgraded) = file_entities_within_budget(&source, arguments)?;
    let mut member_counts: BTreeMap<KindName, usize> = BTreeMap::new();
    for declaration in &file.index.declarations {
        *member_counts.entry(declaration.kind.into()).or_default() += 1;
    }
    let header = FileHeader {
        path: model.display_path(&path),
        grammar: file.index.grammar.into(),
        from_unsaved_buffer: file.from_overlay,
        health: Health::of(&file.index),
        lines: file.index.lines,
        summary_only: arguments.summary_only,
        member_counts,
        projects: model.projects_compiling(&path).iter().map(|project| model.display_path(&project.path)).collect(),
        downgraded_to_summary: downgraded,
        downgrade_hint: downgraded.then(|| format!(
            "full entries for this page would exceed the {}-unit response budget; returned headers only. Lower maxResults (now {}) to get full signatures in pages.",
            arguments.response_char_budget(), arguments.max_results()
        )),
    };
    let stream = EntityStream::new(arguments, entities, &crate::syntax::cache::to_hex(&file.index.content_sha256))?;
    let hint =
        |_| Some("more entities remain: call again with nextCursor, or lower the page size with maxResults".to_owned());
    Ok(paged_answer(header, arguments, &stream, hint, OutlineAnswer::File))
}

/// The file `path` names, once it is known to be an F# source file the editor or the disk holds.
fn outlined_file(model: &WorkspaceModel, written: &str, overlay: &Overlay) -> Result<PathBuf, CommandError> {
    let path = resolve_argument_path(model, written, "path")?;
    if crate::syntax::GrammarKind::for_path(&path).is_none() {
        return Err(CommandError::InvalidPath {
            path: written.to_owned(),
            message: "not an F# source file (.fs, .fsi, .fsx)".to_owned(),
        });
    }
    if overlay.get(&path).is_none() && !path.is_file() {
        return Err(CommandError::InvalidPath { path: written.to_owned(), message: "no such file".to_owned() });
    }
    Ok(path)
}

/// The summary entities, or the full ones when `summaryOnly: false` and this page of them fits
/// the budget; the flag says the full entries were asked for and did not fit.
fn file_entities_within_budget(
    source: &FileSource<'_>,
    arguments: &OutlineArguments,
) -> Result<(Vec<FileEntity>, bool), CommandError> {
    let summary = source.entities(false);
    if arguments.summary_only {
        return Ok((summary, false));
    }
    let full = source.entities(true);
    let first = arguments.offset().unwrap_or(0).min(full.len());
    let comma = Size { units: 1, bytes: 1 };
    let window = full
        .iter()
        .skip(first)
        .take(arguments.max_results())
        .fold(Size::default(), |used, entity| used + serialized_size(entity) + comma);
    if arguments.page_budget().admits(window) { Ok((full, false)) } else { Ok((summary, true)) }
}

/// What a file's entities are built from.
struct FileSource<'a> {
    index: &'a SyntaxIndex,
    file: &'a FileIndex,
    text: &'a str,
    implicit_name: String,
}

impl FileSource<'_> {
    /// The outline entities of the file: one per container and one implicit module for
    /// top-level declarations outside any container.
    fn entities(&self, full: bool) -> Vec<FileEntity> {
        let containers = nearest_containers(self.file);
        let mut members_of: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (slot, declaration) in self.file.declarations.iter().enumerate() {
            // An active pattern's cases are listed as the pattern itself.
            if !declaration.kind.is_container() && declaration.kind != DeclarationKind::ActivePatternCase {
                members_of.entry(containers[slot]).or_default().push(slot);
            }
        }
        let mut entities = Vec::new();
        if let Some(top_level) = members_of.get(&NO_PARENT) {
            entities.push(self.entity(None, top_level, full));
        }
        for (slot, declaration) in self.file.declarations.iter().enumerate() {
            if declaration.kind.is_container() {
                let members = members_of.get(&(slot as u32)).map(Vec::as_slice).unwrap_or(&[]);
                entities.push(self.entity(Some(slot), members, full));
            }
        }
        entities
    }

    /// The container at `slot` (the implicit module when `None`) with its `members`.
    fn entity(&self, slot: Option<usize>, members: &[usize], full: bool) -> FileEntity {
        let mut member_counts: BTreeMap<KindName, usize> = BTreeMap::new();
        for member in members {
            *member_counts.entry(self.file.declarations[*member].kind.into()).or_default() += 1;
        }
        let container = slot.and_then(|slot| Some((slot, self.file.declarations.get(slot)?)));
        let certain = container.is_none_or(|(_, declaration)| declaration.certain) && !self.file.health.root_is_error;
        FileEntity {
            name: container.map_or_else(
                || self.implicit_name.clone(),
                |(_, declaration)| self.index.name(declaration.name).to_string(),
            ),
            kind: container.map_or(KindName::Module, |(_, declaration)| declaration.kind.into()),
            full_name: container
                .map_or_else(|| self.implicit_name.clone(), |(slot, _)| self.index.full_name(self.file, slot)),
            implicit: container.is_none(),
            access: container.map_or(AccessName::Public, |(_, declaration)| access_text(declaration.access)),
            range: container.map(|(_, declaration)| RowRange::of(declaration.range)),
            member_counts,
            certain,
            signature: container.and_then(|(slot, _)| signature_for(Some(self.text), self.file, slot)).filter(|_| full),
            members: full.then(|| members.iter().map(|member| self.member(*member)).collect()),
            file_degraded: certain && self.file.health.status != HealthStatus::Clean,
        }
    }

    fn member(&self, slot: usize) -> FileMember {
        let declaration = &self.file.declarations[slot];
        FileMember {
            name: self.index.name(declaration.name).to_string(),
            kind: declaration.kind.into(),
            access: access_text(declaration.access),
            range: RowRange::of(declaration.range),
            signature: signature_for(Some(self.text), self.file, slot),
            certain: declaration.certain,
        }
    }
}

fn implicit_module_name(path: &Path) -> String {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let mut characters = stem.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => stem,
    }
}

// ---- view `project` ---------------------------------------------------------------------------

/// The members of a `project` outline besides the page.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ProjectHeader {
    pub root: String,
    pub projects: Vec<ProjectSummary>,
    pub coverage: Coverage,
    pub summary_only: bool,
    /// Without a `project` argument only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orphan_file_count: Option<usize>,
    /// Without a `project` argument only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solutions: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSummary {
    pub path: String,
    pub name: String,
    pub target_frameworks: Vec<String>,
    pub project_references: Vec<String>,
    /// `name@version`, or the name when no version is written.
    pub package_references: Vec<String>,
    pub compile_item_count: usize,
    pub problems: Vec<String>,
}

/// One file of the project view, in compile order (orphans: `compileOrder` 0, `project` null).
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ProjectFileEntry {
    pub path: String,
    pub project: Option<String>,
    pub compile_order: usize,
    /// The parse health, or `missing` when the file is neither on disk nor in the editor.
    pub health: FileHealth,
    #[serde(flatten)]
    pub indexed: Option<IndexedFileSummary>,
}

/// A project file's parse health, or `missing`.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FileHealth {
    Clean,
    Degraded,
    TimedOut,
    Failed,
    /// Neither on disk nor in the editor.
    Missing,
}

impl From<HealthStatus> for FileHealth {
    fn from(status: HealthStatus) -> FileHealth {
        match status {
            HealthStatus::Clean => FileHealth::Clean,
            HealthStatus::Degraded => FileHealth::Degraded,
            HealthStatus::TimedOut => FileHealth::TimedOut,
            HealthStatus::Failed => FileHealth::Failed,
        }
    }
}

impl FileHealth {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FileHealth::Missing => "missing",
            FileHealth::Clean => HealthName::Clean.as_str(),
            FileHealth::Degraded => HealthName::Degraded.as_str(),
            FileHealth::TimedOut => HealthName::TimedOut.as_str(),
            FileHealth::Failed => HealthName::Failed.as_str(),
        }
    }
}

/// What the index holds of a project file that exists.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct IndexedFileSummary {
    pub grammar: GrammarName,
    pub lines: u32,
    pub declaration_count: usize,
    pub declarations: Vec<ContainerName>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ContainerName {
    pub name: String,
    pub kind: KindName,
    pub full_name: String,
}

/// A file of the project view: its path, the project compiling it and its 1-based position in
/// the compile order (0 for an orphan).
type CompiledFile<'a> = (PathBuf, Option<&'a Project>, usize);

fn project_outline(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<OutlineAnswer, CommandError> {
    let projects = select_projects(model, arguments.project.as_deref())?;
    let files = files_in_compile_order(model, &projects, arguments);
    let existing: BTreeSet<PathBuf> = files
        .iter()
        .map(|(path, _, _)| path.clone())
        .filter(|path| overlay.get(path).is_some() || path.is_file())
        .collect();
    index.index_paths(&existing.into_iter().collect::<Vec<_>>(), overlay);
    let entries: Vec<ProjectFileEntry> = files
        .iter()
        .filter_map(|file| project_file_entry(index, model, overlay, arguments.namespace_filter(), file))
        .collect();
    let all_paths: Vec<PathBuf> = files.iter().map(|(path, _, _)| path.clone()).collect();
    let whole_workspace = arguments.project.is_none();
    let header = ProjectHeader {
        root: model.root.display().to_string(),
        projects: projects.iter().map(|project| project_summary(model, project)).collect(),
        coverage: Coverage::of(index, &all_paths),
        summary_only: arguments.summary_only,
        orphan_file_count: whole_workspace.then_some(model.orphan_files.len()),
        solutions: whole_workspace
            .then(|| model.solutions.iter().map(|solution| model.display_path(&solution.path)).collect()),
    };
    let identity = stream_identity(&entries);
    let stream = EntityStream::new(arguments, entries, &identity)?;
    let hint =
        |_| Some("more files remain: call again with nextCursor, or narrow with project or namespaceFilter".to_owned());
    Ok(paged_answer(header, arguments, &stream, hint, OutlineAnswer::Project))
}

/// The projects' compile items in order, then (for the whole workspace) the orphan files.
fn files_in_compile_order<'a>(
    model: &WorkspaceModel,
    projects: &[&'a Project],
    arguments: &OutlineArguments,
) -> Vec<CompiledFile<'a>> {
    let mut files: Vec<CompiledFile<'a>> = Vec::new();
    for project in projects {
        for (position, item) in project.compile_items.iter().enumerate() {
            files.push((item.path.clone(), Some(*project), position + 1));
        }
    }
    if arguments.project.is_none() {
        files.extend(model.orphan_files.iter().map(|orphan| (orphan.clone(), None, 0)));
    }
    files
}

/// A file's entry, or `None` when `namespace_filter` leaves it out (a missing file is left out
/// by any filter: it declares nothing).
fn project_file_entry(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    overlay: &Overlay,
    namespace_filter: Option<&str>,
    (path, project, position): &CompiledFile<'_>,
) -> Option<ProjectFileEntry> {
    let mut entry = ProjectFileEntry {
        path: model.display_path(path),
        project: project.map(|project| model.display_path(&project.path)),
        compile_order: *position,
        health: FileHealth::Missing,
        indexed: None,
    };
    let file = index.file(path).filter(|_| overlay.get(path).is_some() || path.is_file());
    let Some(file) = file else {
        return namespace_filter.is_none().then_some(entry);
    };
    let declarations: Vec<ContainerName> = file
        .index
        .declarations
        .iter()
        .enumerate()
        .filter(|(_, declaration)| declaration.kind.is_container())
        .map(|(slot, declaration)| ContainerName {
            name: index.name(declaration.name).to_string(),
            kind: declaration.kind.into(),
            full_name: index.full_name(&file.index, slot),
        })
        .collect();
    if let Some(filter) = namespace_filter
        && !declarations.iter().any(|container| matches_namespace(&container.full_name, filter))
    {
        return None;
    }
    entry.health = file.index.health.status.into();
    entry.indexed = Some(IndexedFileSummary {
        grammar: file.index.grammar.into(),
        lines: file.index.lines,
        declaration_count: file.index.declarations.len(),
        declarations,
    });
    Some(entry)
}

fn project_summary(model: &WorkspaceModel, project: &Project) -> ProjectSummary {
    ProjectSummary {
        path: model.display_path(&project.path),
        name: project.name.clone(),
        target_frameworks: project.target_frameworks.clone(),
        project_references: project.project_references.iter().map(|path| model.display_path(path)).collect(),
        package_references: project
            .package_references
            .iter()
            .map(|package| match &package.version {
                Some(version) => format!("{}@{}", package.name, version),
                None => package.name.clone(),
            })
            .collect(),
        compile_item_count: project.compile_items.len(),
        problems: project.problems.iter().take(HEALTH_DETAIL_LIMIT).cloned().collect(),
    }
}

// ---- view `publicApi` -------------------------------------------------------------------------

/// The members of a `publicApi` outline besides the page.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct PublicApiHeader {
    pub include_internal: bool,
    pub namespace_filter: Option<String>,
    pub projects: Vec<String>,
    pub coverage: Coverage,
}

/// One visible module or type with its visible members, sorted by name, kind and signature.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct PublicApiEntity {
    pub full_name: String,
    pub kind: KindName,
    pub access: AccessName,
    pub signature: String,
    pub path: String,
    pub range: RowRange,
    pub members: Vec<PublicApiMember>,
    /// Only when the declaration or its file is not certain.
    #[serde(flatten)]
    pub uncertainty: Option<Uncertainty>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Uncertainty {
    pub certain: bool,
    pub file_health: HealthName,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct PublicApiMember {
    pub name: String,
    pub kind: KindName,
    pub access: AccessName,
    pub signature: String,
    /// Absent when `true`.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub certain: bool,
}

fn public_api(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<OutlineAnswer, CommandError> {
    let projects = select_projects(model, arguments.project.as_deref())?;
    let files = public_surface_files(model, &projects, overlay);
    index.index_paths(&files, overlay);
    let mut entities: Vec<PublicApiEntity> = Vec::new();
    for path in &files {
        if let Some((file, text)) = text_for(index, path, overlay) {
            let surface = ApiSurface { index, file: &file.index, text: &text, arguments };
            entities.extend(surface.entities(&model.display_path(path)));
        }
    }
    entities.sort_by(|left, right| left.full_name.cmp(&right.full_name).then_with(|| left.path.cmp(&right.path)));
    let names: Vec<String> = entities.iter().map(|entity| entity.full_name.clone()).collect();
    let header = PublicApiHeader {
        include_internal: arguments.include_internal,
        namespace_filter: arguments.namespace_filter().map(str::to_owned),
        projects: projects.iter().map(|project| model.display_path(&project.path)).collect(),
        coverage: Coverage::of(index, &files),
    };
    let identity = stream_identity(&entities);
    let stream = EntityStream::new(arguments, entities, &identity)?;
    let hint = |next| Some(narrowing_hint(&names, next));
    Ok(paged_answer(header, arguments, &stream, hint, OutlineAnswer::PublicApi))
}

/// The files that define the public surface: every project's compile items present on disk or
/// in the editor (without a project file, every non-script source file), a signature file
/// standing in for its implementation file.
fn public_surface_files(model: &WorkspaceModel, projects: &[&Project], overlay: &Overlay) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    if projects.is_empty() {
        files.extend(model.source_files.iter().filter(|path| !is_script(path)).cloned());
    }
    for project in projects {
        files.extend(
            project
                .compile_items
                .iter()
                .filter(|item| item.exists || overlay.get(&item.path).is_some())
                .map(|item| item.path.clone()),
        );
    }
    let unique: BTreeSet<PathBuf> = files.into_iter().collect();
    unique
        .iter()
        .filter(|path| {
            let is_implementation = path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("fs"));
            !(is_implementation && unique.contains(&path.with_extension("fsi")))
        })
        .cloned()
        .collect()
}

/// Two or three real namespaces from the remainder of the stream, so the caller can narrow.
fn narrowing_hint(names: &[String], next: usize) -> String {
    let mut namespaces: Vec<&str> = Vec::new();
    for name in names.iter().skip(next) {
        let namespace = name.rsplit_once('.').map_or(name.as_str(), |(prefix, _)| prefix);
        if !namespaces.contains(&namespace) {
            namespaces.push(namespace);
        }
        if namespaces.len() == 3 {
            break;
        }
    }
    format!(
        "more entities remain: continue with nextCursor, or narrow with namespaceFilter, e.g. {}",
        namespaces.iter().map(|namespace| format!("\"{namespace}\"")).collect::<Vec<_>>().join(", ")
    )
}

/// One file's part of the public surface.
struct ApiSurface<'a> {
    index: &'a SyntaxIndex,
    file: &'a FileIndex,
    text: &'a str,
    arguments: &'a OutlineArguments,
}

impl ApiSurface<'_> {
    fn visible(&self, access: Access) -> bool {
        match access {
            Access::Default | Access::Public => true,
            Access::Internal => self.arguments.include_internal,
            Access::Private => false,
        }
    }

    /// Visible only if every ancestor is visible too.
    fn chain_visible(&self, slot: usize) -> bool {
        let declarations = &self.file.declarations;
        self.file
            .declaration_chain(slot)
            .into_iter()
            .all(|link| declarations.get(link).is_some_and(|item| self.visible(item.access)))
    }

    /// The file's visible containers under the namespace filter; a namespace only when it holds
    /// visible members of its own.
    fn entities(&self, display_path: &str) -> Vec<PublicApiEntity> {
        let containers = nearest_containers(self.file);
        let mut entities = Vec::new();
        for (slot, declaration) in self.file.declarations.iter().enumerate() {
            if !declaration.kind.is_container() || !self.chain_visible(slot) {
                continue;
            }
            let full_name = self.index.full_name(self.file, slot);
            if let Some(filter) = self.arguments.namespace_filter()
                && !matches_namespace(&full_name, filter)
            {
                continue;
            }
            let members = self.members_of(slot, &containers);
            if declaration.kind == DeclarationKind::Namespace && members.is_empty() {
                continue;
            }
            let degraded = !declaration.certain || self.file.health.status != HealthStatus::Clean;
            entities.push(PublicApiEntity {
                full_name,
                kind: declaration.kind.into(),
                access: access_text(declaration.access),
                signature: signature_for(Some(self.text), self.file, slot).unwrap_or_default(),
                path: display_path.to_owned(),
                range: RowRange::of(declaration.range),
                members,
                uncertainty: degraded.then(|| Uncertainty {
                    certain: declaration.certain && !self.file.health.root_is_error,
                    file_health: self.file.health.status.into(),
                }),
            });
        }
        entities
    }

    /// The visible non-container members whose nearest container is `container`, sorted.
    fn members_of(&self, container: usize, containers: &[u32]) -> Vec<PublicApiMember> {
        let mut members: Vec<PublicApiMember> = self
            .file
            .declarations
            .iter()
            .enumerate()
            .filter(|(slot, member)| {
                containers[*slot] == container as u32
                    && !member.kind.is_container()
                    && member.kind != DeclarationKind::ActivePatternCase
                    && self.chain_visible(*slot)
            })
            .map(|(slot, member)| PublicApiMember {
                name: self.index.name(member.name).to_string(),
                kind: member.kind.into(),
                access: access_text(member.access),
                signature: signature_for(Some(self.text), self.file, slot).unwrap_or_default(),
                certain: member.certain,
            })
            .collect();
        members.sort_by(|left, right| {
            (&left.name, left.kind.as_str(), &left.signature).cmp(&(&right.name, right.kind.as_str(), &right.signature))
        });
        members
    }
}

/// An outline is always definite.
impl crate::commands::outcome::Answered for OutlineAnswer {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{OutlineAnswer, OutlineArguments, OutlineView};
    use crate::commands::CommandError;
    use crate::commands::params::parse_arguments;

    fn blamed(argument: serde_json::Value) -> String {
        match parse_arguments::<OutlineArguments>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn defaults_follow_the_view() {
        let project: OutlineArguments = parse_arguments(json!({})).unwrap();
        assert_eq!((project.view(), project.max_results(), project.summary_only), (OutlineView::Project, 200, true));
        let file: OutlineArguments = parse_arguments(json!({"path": "A.fs", "namespaceFilter": ""})).unwrap();
        assert_eq!((file.view(), file.namespace_filter()), (OutlineView::File, None));
        let api: OutlineArguments = parse_arguments(json!({"view": "publicApi"})).unwrap();
        assert_eq!((api.max_results(), api.response_char_budget()), (100, 45_000));
    }

    #[test]
    fn cross_field_rules_name_the_argument() {
        assert_eq!(blamed(json!({"view": "file"})), "path");
        assert_eq!(blamed(json!({"path": "A.fs", "cursor": "o1.x", "offset": 1})), "offset");
        assert_eq!(blamed(json!({"responseCharBudget": 199})), "responseCharBudget");
        assert_eq!(blamed(json!({"view": "publicAPI"})), "view");
    }

    fn header(path: String) -> super::FileHeader {
        let health = super::Health {
            status: crate::commands::symbols::HealthName::Clean,
            root_is_error: false,
            error_region_count: 0,
            misparse_count: 0,
            error_regions: None,
            misparses: None,
            detail: None,
        };
        super::FileHeader {
            path,
            grammar: super::GrammarName::Implementation,
            from_unsaved_buffer: false,
            health,
            lines: 1,
            summary_only: true,
            member_counts: Default::default(),
            projects: Vec::new(),
            downgraded_to_summary: false,
            downgrade_hint: None,
        }
    }

    fn entity(name: String) -> super::FileEntity {
        super::FileEntity {
            full_name: name.clone(),
            name,
            kind: crate::commands::symbols::KindName::Module,
            implicit: false,
            access: crate::commands::symbols::AccessName::Public,
            range: None,
            member_counts: Default::default(),
            certain: true,
            signature: None,
            members: None,
            file_degraded: false,
        }
    }

    #[test]
    fn the_assembled_answer_stays_under_the_ceiling() {
        let arguments: OutlineArguments = parse_arguments(json!({"path": "A.fs", "maxResults": 100})).unwrap();
        let entities: Vec<super::FileEntity> = (0..30).map(|n| entity(format!("{n}{}", "x".repeat(650)))).collect();
        let stream = super::EntityStream::new(&arguments, entities, "stream").unwrap();
        // A header of this many characters leaves room for fewer entries than the page budget.
        let large = header("y".repeat(20_000));
        let answer = super::paged_answer(large, &arguments, &stream, |_| None, OutlineAnswer::File);
        let OutlineAnswer::File(page) = &answer else { panic!("a file answer") };
        let returned = page.page.returned_entry_count;
        assert!(returned < 30 && returned > 1, "{returned} entries returned");
        assert_eq!(page.page.entries.len(), returned);
        assert!(super::serialized_utf16_len(&answer) <= super::RESPONSE_HARD_CEILING);
        assert!(page.page.truncated && page.page.response_truncated_by_budget);
        assert!(page.page.next_cursor.as_deref().unwrap().starts_with(&format!("page.{returned}.")));
        // Without the large header the budget alone closes the page, and the ceiling never bites.
        let small = super::paged_answer(header("A.fs".to_owned()), &arguments, &stream, |_| None, OutlineAnswer::File);
        let OutlineAnswer::File(small) = small else { panic!("a file answer") };
        assert!(!small.page.response_truncated_by_budget);
        assert_eq!(small.page.returned_entry_count, 30);
    }

    #[test]
    fn every_view_reads_back_as_sent() {
        use serde::Deserialize;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax-workspace");
        let model = crate::workspace::load_workspace(&root).expect("the fixture loads");
        let index = crate::syntax::SyntaxIndex::new(crate::syntax::IndexOptions::without_cache());
        let views = [
            json!({ "path": "src/Core/Types.fs" }),
            json!({ "path": "src/Core/Types.fs", "summaryOnly": false }),
            json!({ "maxResults": 2 }),
            json!({ "view": "publicApi", "includeInternal": true }),
        ];
        for arguments in views {
            let arguments: OutlineArguments = parse_arguments(arguments).unwrap();
            let answer = super::outline_with_index(&index, &model, &arguments, &crate::syntax::Overlay::new()).unwrap();
            let sent = serde_json::to_value(&answer).unwrap();
            assert_eq!(sent["view"], json!(arguments.view()), "{sent:#}");
            let read = OutlineAnswer::deserialize(&sent).unwrap_or_else(|error| panic!("{error}: {sent:#}"));
            assert_eq!(serde_json::to_value(&read).unwrap(), sent);
            assert!(!crate::cli::outline::render_text(&read).is_empty());
        }
    }
}
