//! `fslens.symbolSearch`, `fslens.readSymbol` and `fslens.readEnclosing`: the syntax-only
//! discovery tools. `symbolSearch` ranks files for identifiers ([`search`], [`terms`]) from a
//! workspace index built in the background ([`warmup`]); `readSymbol` and `readEnclosing`
//! return one declaration's verbatim source ([`read`]). Every answer is labelled
//! `via: "syntax"` and `completeness: "syntactic"`; none needs FSAC. Each tool's arguments are
//! one typed struct (its MCP schema is generated from it) and each answer a typed struct that
//! derives `Deserialize` too, so the CLI text ([`cli`]) reads it typed.

pub mod read;
pub mod search;
pub mod terms;
pub mod warmup;

use std::collections::HashMap;
use std::ops::Not;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::budget::{PageByteBudget, PageCharBudget, page_budget};
use crate::commands::budget::{Size, serialized_size};
use crate::commands::budget::{cursor_digest, encode_cursor, page_offset};
use crate::commands::params::{Bounded, CommandArguments};
use crate::syntax::index::IndexedFile;
use crate::syntax::model::DeclarationKind;
use crate::syntax::{Overlay, SyntaxIndex};
use search::{RankedFile, SearchTables};
use terms::QueryTerm;
use warmup::{BuildPhase, ReadyWorkspace, WarmWorkspace, WarmWorkspaces};

/// What a caller is told to wait before asking again while the index builds.
pub const RETRY_AFTER_MS: u64 = 500;
/// A best line's text is cut at this many characters.
const LINE_TEXT_MAX_CHARS: usize = 200;
/// At most this many declaring symbols are listed per file.
const DECLARATIONS_PER_FILE: usize = 5;

/// `waitForIndexMs`: how long a call may wait for the first index build, in milliseconds.
pub type WaitForIndexMs = Bounded<0, 600_000, 0>;

// ---- symbolSearch's arguments -----------------------------------------------------------------

/// The arguments of `fslens.symbolSearch` (and of `fslens symbol-search`, where `query` is
/// positional and `--wait-ms` waits two minutes by default: a one-shot process has no later
/// call to retry with).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchArguments {
    /// One or more identifiers, separated by spaces or commas; a dotted name gives one term per
    /// segment, a ``` ``quoted name`` ``` stays whole; at most 16 terms. Matches exactly, in any
    /// case, or by camelCase words (`Shipment` finds `ShipmentId`).
    pub query: String,
    /// Files per page.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_results: Bounded<1, 200, 20>,
    /// Best lines shown per file.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub lines_per_file: Bounded<0, 10, 3>,
    /// `nextCursor` of the previous page (refused when the ranking changed since).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub cursor: Option<String>,
    /// UTF-16 units of result rows one page may hold, 200 to 45,000; default 45,000 (30,000
    /// through the MCP bridge, so a page fits its output).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_char_budget: Option<PageCharBudget>,
    /// UTF-8 bytes of result rows one page may hold, 200 to 10,000,000; absent, no byte limit
    /// (30,000 through the MCP bridge, so a page of non-ASCII text fits its output too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_byte_budget: Option<PageByteBudget>,
    /// Wait this long, in milliseconds, for the first index build instead of answering
    /// `available: false` at once.
    #[serde(default)]
    #[arg(long = "wait-ms", value_name = "WAIT_MS", default_value_t = WaitForIndexMs::clamped(120_000))]
    pub wait_for_index_ms: WaitForIndexMs,
}

impl CommandArguments for SearchArguments {
    fn validate(&self) -> Result<(), CommandError> {
        self.terms().map(drop)
    }
}

impl SearchArguments {
    /// The query's terms; a query with none is an `invalid_argument` on `query`.
    pub fn terms(&self) -> Result<Vec<QueryTerm>, CommandError> {
        terms::parse_query(&self.query)
    }

    fn query_identity(&self, terms: &[QueryTerm]) -> Value {
        let identity = QueryIdentity {
            tool: "symbolSearch",
            terms: terms.iter().map(|term| term.text.as_str()).collect(),
            max_results: self.max_results.get(),
            lines_per_file: self.lines_per_file.get(),
            response_char_budget: self.response_char_budget.unwrap_or_default().get(),
            response_byte_budget: self.response_byte_budget,
        };
        serde_json::to_value(identity).unwrap_or_default()
    }
}

/// What binds a cursor to its query: the terms and every argument that shapes the ranking's
/// pages.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QueryIdentity<'a> {
    tool: &'static str,
    terms: Vec<&'a str>,
    max_results: u64,
    lines_per_file: u64,
    response_char_budget: u64,
    response_byte_budget: Option<PageByteBudget>,
}

// ---- the `kinds` filter -----------------------------------------------------------------------

/// One entry of a `kinds` filter: a declaration kind, or `type` for every type kind.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum KindName {
    Type,
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
    Exception,
    RecordField,
    UnionCase,
    UnionField,
    EnumCase,
    Member,
    AbstractMember,
    Override,
    Constructor,
    AutoProperty,
    Let,
    Val,
    ActivePatternCase,
}

impl KindName {
    /// The declaration kind this name is; `None` for `type`, which stands for several.
    fn declaration_kind(self) -> Option<DeclarationKind> {
        use DeclarationKind as Kind;
        Some(match self {
            KindName::Type => return None,
            KindName::Namespace => Kind::Namespace,
            KindName::Module => Kind::Module,
            KindName::Record => Kind::Record,
            KindName::Union => Kind::Union,
            KindName::Class => Kind::Class,
            KindName::Interface => Kind::Interface,
            KindName::Enum => Kind::Enum,
            KindName::Delegate => Kind::Delegate,
            KindName::Abbreviation => Kind::Abbreviation,
            KindName::TypeExtension => Kind::TypeExtension,
            KindName::Exception => Kind::Exception,
            KindName::RecordField => Kind::RecordField,
            KindName::UnionCase => Kind::UnionCase,
            KindName::UnionField => Kind::UnionField,
            KindName::EnumCase => Kind::EnumCase,
            KindName::Member => Kind::Member,
            KindName::AbstractMember => Kind::AbstractMember,
            KindName::Override => Kind::Override,
            KindName::Constructor => Kind::Constructor,
            KindName::AutoProperty => Kind::AutoProperty,
            KindName::Let => Kind::Let,
            KindName::Val => Kind::Val,
            KindName::ActivePatternCase => Kind::ActivePatternCase,
        })
    }
}

/// The declaration kinds a `kinds` filter selects (`type` expanded); `None` selects every kind.
pub fn selected_kinds(names: Option<&[KindName]>) -> Option<Vec<DeclarationKind>> {
    use clap::ValueEnum;
    let names = names?;
    // `type` also selects a type declared without `=` (`[<Measure>] type km`, a signature's
    // abstract `type T`), which has no kind name of its own.
    let every_type_kind = || {
        KindName::value_variants()
            .iter()
            .filter_map(|name| name.declaration_kind())
            .filter(|kind| kind.is_type())
            .chain([DeclarationKind::OpaqueType])
    };
    let mut kinds = Vec::new();
    for name in names {
        match name.declaration_kind() {
            Some(kind) => kinds.push(kind),
            None => kinds.extend(every_type_kind()),
        }
    }
    Some(kinds)
}

/// Reads `kinds` as one value, so that a bad entry is blamed on `kinds` itself, with the known
/// names; an empty list is refused (leave `kinds` out for every kind).
pub fn kinds_argument<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<KindName>>, D::Error> {
    use serde::de::Error;
    let value = Value::deserialize(deserializer)?;
    if value.is_null() {
        return Ok(None);
    }
    let names: Vec<KindName> = serde_json::from_value(value.clone()).map_err(|_| {
        use clap::ValueEnum;
        let known: Vec<String> = KindName::value_variants()
            .iter()
            .filter_map(|name| Some(name.to_possible_value()?.get_name().to_owned()))
            .collect();
        D::Error::custom(format!("expected an array of kind names ({}), got {value}", known.join(", ")))
    })?;
    if names.is_empty() {
        return Err(D::Error::custom("give at least one kind, or leave it out for every kind"));
    }
    Ok(Some(names))
}

// ---- the workspace index ----------------------------------------------------------------------

/// The session's warm workspace, waiting up to `wait` for its first build. `Ok(None)` means
/// still building: the caller answers `available: false`.
pub async fn ready_workspace(
    index: &Arc<SyntaxIndex>,
    workspaces: &WarmWorkspaces,
    root: &Path,
    wait: Duration,
) -> Result<(Arc<WarmWorkspace>, Option<Arc<ReadyWorkspace>>), CommandError> {
    let warm = workspaces.for_root(index, root);
    let give_up = Instant::now() + wait;
    loop {
        match warm.phase() {
            BuildPhase::Ready(ready) => {
                warm.refresh_if_old(index);
                return Ok((warm, Some(ready)));
            }
            BuildPhase::Failed(message) => {
                warm.retry_after_failure(index);
                return Err(CommandError::InvalidPath { path: root.display().to_string(), message });
            }
            BuildPhase::Building { .. } if Instant::now() >= give_up => return Ok((warm, None)),
            BuildPhase::Building { .. } => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

// ---- what the answers share -------------------------------------------------------------------

/// `via` of every syntax tool's answer.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SyntaxVia {
    /// The syntax index alone; FSAC is never asked.
    Syntax,
}

/// `completeness` of a syntax tool's answer.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Completeness {
    /// Every file read was read by the parser; names the compiler resolves differently are
    /// not told apart.
    Syntactic,
    /// Nothing was searched (the index is still being built).
    None,
}

/// `index.state`.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IndexState {
    Building,
    Ready,
}

/// A declaration's `kind` as answers spell it (`record-field`, `union-case`, …): the
/// [`KindName`] of its [`DeclarationKind`] (never `type`, which only filters).
impl From<DeclarationKind> for KindName {
    fn from(kind: DeclarationKind) -> KindName {
        use clap::ValueEnum;
        KindName::value_variants()
            .iter()
            .copied()
            .find(|name| name.declaration_kind() == Some(kind))
            .unwrap_or(KindName::Type)
    }
}

impl KindName {
    /// The wire spelling (kebab case, as [`DeclarationKind::as_str`]).
    pub fn as_str(self) -> &'static str {
        self.declaration_kind().map_or("type", DeclarationKind::as_str)
    }
}

/// A declaration's `access` as written (`default` when no modifier was).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AccessName {
    Default,
    Public,
    Internal,
    Private,
}

impl AccessName {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AccessName::Default => "default",
            AccessName::Public => "public",
            AccessName::Internal => "internal",
            AccessName::Private => "private",
        }
    }
}

impl From<crate::syntax::model::Access> for AccessName {
    fn from(access: crate::syntax::model::Access) -> AccessName {
        use crate::syntax::model::Access;
        match access {
            Access::Default => AccessName::Default,
            Access::Public => AccessName::Public,
            Access::Internal => AccessName::Internal,
            Access::Private => AccessName::Private,
        }
    }
}

/// A file's parse `health` as answers spell it.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HealthName {
    Clean,
    Degraded,
    TimedOut,
    Failed,
}

impl From<crate::syntax::model::HealthStatus> for HealthName {
    fn from(status: crate::syntax::model::HealthStatus) -> HealthName {
        use crate::syntax::model::HealthStatus;
        match status {
            HealthStatus::Clean => HealthName::Clean,
            HealthStatus::Degraded => HealthName::Degraded,
            HealthStatus::TimedOut => HealthName::TimedOut,
            HealthStatus::Failed => HealthName::Failed,
        }
    }
}

impl HealthName {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthName::Clean => "clean",
            HealthName::Degraded => "degraded",
            HealthName::TimedOut => "timed-out",
            HealthName::Failed => "failed",
        }
    }
}

/// The `available: false` answer while the first build runs.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Unavailable {
    pub tool: String,
    pub via: SyntaxVia,
    /// `none`: nothing was searched, so no answer here is even syntactically complete.
    pub completeness: Completeness,
    /// Always `false`.
    pub available: bool,
    pub reason: String,
    pub retry_after_ms: u64,
    pub hint: String,
    pub index: BuildingIndex,
}

/// `index` while the first build runs.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct BuildingIndex {
    pub state: IndexState,
    pub elapsed_ms: u64,
    pub files: Option<usize>,
}

/// The `available: false` answer of `tool` while the first build runs.
pub fn unavailable(tool: &'static str, warm: &WarmWorkspace) -> Unavailable {
    let (elapsed, files) = match warm.phase() {
        BuildPhase::Building { started, files } => (started.elapsed().as_millis() as u64, files),
        _ => (0, None),
    };
    let files_text = files.map(|count| format!(" ({count} files)")).unwrap_or_default();
    Unavailable {
        tool: tool.to_owned(),
        via: SyntaxVia::Syntax,
        completeness: Completeness::None,
        available: false,
        reason: format!("the workspace syntax index is still being built{files_text}; nothing was searched yet"),
        retry_after_ms: RETRY_AFTER_MS,
        hint: "call again after retryAfterMs, or pass waitForIndexMs to wait for the build".to_owned(),
        index: BuildingIndex { state: IndexState::Building, elapsed_ms: elapsed, files },
    }
}

/// Re-indexes the editor's buffers that belong to the workspace, so answers see unsaved text,
/// and files indexed from a buffer the editor has closed since, so they show the disk again.
pub fn apply_editor_buffers(index: &SyntaxIndex, root: &Path, overlay: &Overlay) {
    let mut paths: Vec<PathBuf> = overlay
        .paths()
        .filter(|path| path.starts_with(root) && crate::syntax::GrammarKind::for_path(path).is_some())
        .cloned()
        .collect();
    for path in index.paths() {
        if overlay.get(&path).is_none() && index.file(&path).is_some_and(|file| file.from_overlay) {
            paths.push(path);
        }
    }
    if !paths.is_empty() {
        index.index_paths(&paths, overlay);
    }
}

/// `index` facts for answers: generation, files (and how many were only partly or not at all
/// readable to the parser), age of the last full build.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct IndexFacts {
    pub state: IndexState,
    pub generation: u64,
    pub files_indexed: usize,
    pub files_degraded: usize,
    pub files_unparsed: usize,
    pub workspace_files: usize,
    pub indexed_ago_ms: u64,
    pub last_build_ms: u64,
    pub refreshing: bool,
}

impl IndexFacts {
    pub fn of(index: &SyntaxIndex, warm: &WarmWorkspace, ready: &ReadyWorkspace) -> IndexFacts {
        let totals = index.totals();
        IndexFacts {
            state: IndexState::Ready,
            generation: index.generation(),
            files_indexed: index.file_count(),
            files_degraded: totals.degraded,
            files_unparsed: totals.timed_out + totals.failed,
            workspace_files: ready.files.len(),
            indexed_ago_ms: ready.built_at.elapsed().as_millis() as u64,
            last_build_ms: ready.build_time.as_millis() as u64,
            refreshing: warm.refreshing(),
        }
    }
}

// ---- symbolSearch -----------------------------------------------------------------------------

/// `fslens.symbolSearch` in a session.
pub async fn symbol_search(
    arguments: SearchArguments,
    context: CommandContext,
) -> Result<SymbolSearchAnswer, CommandError> {
    let started = Instant::now();
    let root = context.workspace_root()?.to_path_buf();
    let index = context.syntax_index();
    let wait = arguments.wait_for_index_ms.as_duration_ms();
    let (warm, ready) = ready_workspace(&index, &warmup::of(&context), &root, wait).await?;
    let Some(ready) = ready else { return Ok(SymbolSearchAnswer::Unavailable(unavailable("symbolSearch", &warm))) };
    let overlay = context.editor_buffers().await?;
    crate::commands::run_blocking(move || {
        apply_editor_buffers(&index, &root, &overlay);
        let mut answer = search_answer(&index, &warm.tables, &ready, &arguments, &overlay)?;
        answer.index = Some(IndexFacts::of(&index, &warm, &ready));
        answer.elapsed_ms = Some(started.elapsed().as_millis() as u64);
        Ok(SymbolSearchAnswer::Ranked(answer))
    })
    .await
}

/// The answer of `fslens.symbolSearch`: the ranked page, or `available: false` while the
/// first index build runs (the two are told apart by their members).
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum SymbolSearchAnswer {
    Ranked(SearchAnswer),
    Unavailable(Unavailable),
}

/// The ranked page of `fslens.symbolSearch`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SearchAnswer {
    pub tool: String,
    pub via: SyntaxVia,
    pub completeness: Completeness,
    /// Always `true`.
    pub available: bool,
    pub query: String,
    pub terms: Vec<TermSummary>,
    pub results: Vec<ResultRow>,
    pub returned: usize,
    pub offset: usize,
    pub total_files: usize,
    pub truncated: bool,
    pub truncated_by_budget: bool,
    pub next_cursor: Option<String>,
    pub tables_generation: Option<u64>,
    pub scoring: String,
    /// In a session: the index the answer was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexFacts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
}

/// How the query was split, and in how many files each term matched.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TermSummary {
    pub term: String,
    pub words: Vec<String>,
    pub files: usize,
}

/// The ranked page for `arguments` over a built index: the part of `fslens.symbolSearch`
/// that needs no session (the benchmark calls it directly).
pub fn search_answer(
    index: &SyntaxIndex,
    tables: &std::sync::Mutex<SearchTables>,
    ready: &ReadyWorkspace,
    arguments: &SearchArguments,
    overlay: &Overlay,
) -> Result<SearchAnswer, CommandError> {
    let terms = arguments.terms()?;
    let relative = |path: &Path| ready.model.display_path(path);
    let mut tables = tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let started = std::time::Instant::now();
    tables.refresh(index);
    let refreshed = started.elapsed();
    let ranked = search::rank(&tables, index, &terms, &relative);
    tracing::debug!(
        "search tables refreshed in {refreshed:?}, {} files ranked in {:?}",
        ranked.len(),
        started.elapsed() - refreshed
    );
    let generation = tables.generation();
    drop(tables);

    let digest = cursor_digest(&arguments.query_identity(&terms), &ranking_identity(&ranked));
    let offset = match &arguments.cursor {
        Some(cursor) => page_offset(cursor, &digest)?,
        None => 0,
    };
    if offset > ranked.len() {
        return Err(CommandError::invalid_argument(
            "cursor",
            format!("offset {offset} is past the {} files", ranked.len()),
        ));
    }
    let rows = RowSource { index, terms: &terms, lines_per_file: arguments.lines_per_file.as_usize(), overlay, ready };
    let (results, closed_by_budget) = rows.page(&ranked, offset, arguments);
    let next = offset + results.len();
    let truncated = next < ranked.len();
    let term_summaries: Vec<TermSummary> = terms
        .iter()
        .enumerate()
        .map(|(number, term)| TermSummary {
            term: term.text.clone(),
            words: term.words.clone(),
            files: ranked.iter().filter(|file| file.terms.iter().any(|hit| hit.term == number)).count(),
        })
        .collect();
    Ok(SearchAnswer {
        tool: "symbolSearch".to_owned(),
        via: SyntaxVia::Syntax,
        completeness: Completeness::Syntactic,
        available: true,
        query: arguments.query.clone(),
        terms: term_summaries,
        returned: results.len(),
        results,
        offset,
        total_files: ranked.len(),
        truncated,
        truncated_by_budget: truncated && closed_by_budget,
        next_cursor: truncated.then(|| encode_cursor(next, &digest)),
        tables_generation: generation,
        scoring: "BM25 over identifier counts (k1 1.2, b 0.75) + declaration bonus, times priors test 0.5, generated 0.3, vendored 0.3".to_owned(),
        index: None,
        elapsed_ms: None,
    })
}

/// Binds cursors to the ranked list: its paths and scores.
fn ranking_identity(ranked: &[RankedFile]) -> String {
    let mut identity = crate::commands::cursor::StreamIdentity::new();
    for file in ranked {
        identity.add_bytes(file.path.as_os_str().as_encoded_bytes());
        identity.add_bytes(&file.score.to_bits().to_le_bytes());
    }
    identity.finish()
}

/// One ranked file of `results[]`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ResultRow {
    pub path: String,
    pub score: f64,
    pub score_parts: ScoreParts,
    pub priors: Vec<search::Prior>,
    /// The projects compiling the file; `[]` for scripts and orphans.
    pub projects: Vec<String>,
    pub terms: Vec<TermInRow>,
    pub declares: Vec<DeclaredName>,
    pub declares_omitted: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<BestLine>>,
    #[serde(default, skip_serializing_if = "Not::not")]
    pub from_editor_buffer: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ScoreParts {
    pub bm25: f64,
    pub declaration_bonus: f64,
    pub prior: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TermInRow {
    pub term: String,
    pub count: u32,
    pub names: Vec<NameInRow>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct NameInRow {
    pub name: String,
    #[serde(rename = "match")]
    pub match_kind: terms::MatchKind,
    pub count: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredName {
    pub name: String,
    pub full_name: String,
    pub kind: KindName,
    pub line: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct BestLine {
    pub line: u32,
    pub declaration: bool,
    /// Absent when the file changed since it was indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What the result rows are built from.
struct RowSource<'a> {
    index: &'a SyntaxIndex,
    terms: &'a [QueryTerm],
    lines_per_file: usize,
    overlay: &'a Overlay,
    ready: &'a ReadyWorkspace,
}

fn rounded(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

impl RowSource<'_> {
    /// The rows from `offset` until `maxResults`, or until the next row would pass the budget
    /// (the page always holds one); the flag says the budget closed it.
    fn page(&self, ranked: &[RankedFile], offset: usize, arguments: &SearchArguments) -> (Vec<ResultRow>, bool) {
        let budget = page_budget(arguments.response_char_budget, arguments.response_byte_budget);
        let comma = Size { units: 1, bytes: 1 };
        let mut results = Vec::new();
        let mut used = Size::default();
        for file in ranked.iter().skip(offset).take(arguments.max_results.as_usize()) {
            let row = self.row(file);
            let size = serialized_size(&row) + comma;
            if !results.is_empty() && !budget.admits(used + size) {
                return (results, true);
            }
            used = used + size;
            results.push(row);
        }
        (results, false)
    }

    fn row(&self, file: &RankedFile) -> ResultRow {
        let index = self.index;
        let declarations = &file.file.index.declarations;
        let matching = file.matching_declarations();
        let declares: Vec<DeclaredName> = matching
            .iter()
            .take(DECLARATIONS_PER_FILE)
            .filter_map(|&slot| {
                let declaration = declarations.get(slot)?;
                Some(DeclaredName {
                    name: index.name(declaration.name).to_string(),
                    full_name: index.full_name(&file.file.index, slot),
                    kind: declaration.kind.into(),
                    line: declaration.name_start.line,
                })
            })
            .collect();
        let terms: Vec<TermInRow> = file
            .terms
            .iter()
            .map(|hit| TermInRow {
                term: self.terms.get(hit.term).map(|term| term.text.clone()).unwrap_or_default(),
                count: hit.occurrences,
                names: hit
                    .names
                    .iter()
                    .map(|name| NameInRow {
                        name: index.name(name.name).to_string(),
                        match_kind: name.kind,
                        count: name.count,
                    })
                    .collect(),
            })
            .collect();
        ResultRow {
            path: self.ready.model.display_path(&file.path),
            score: rounded(file.score),
            score_parts: ScoreParts {
                bm25: rounded(file.bm25),
                declaration_bonus: rounded(file.declaration_bonus),
                prior: file.priors.iter().map(|prior| prior.factor()).product::<f64>(),
            },
            priors: file.priors.clone(),
            projects: self.ready.projects_by_file.get(&file.path).cloned().unwrap_or_default(),
            terms,
            declares,
            declares_omitted: matching.len().saturating_sub(DECLARATIONS_PER_FILE),
            lines: (self.lines_per_file > 0)
                .then(|| best_lines(&file.file, file, &matching, self.lines_per_file, self.overlay)),
            from_editor_buffer: file.file.from_overlay,
        }
    }
}

/// The texts of `wanted` lines (trimmed, cut at [`LINE_TEXT_MAX_CHARS`]), read only as far as
/// the last of them: a large file is not read whole for a few early lines. `None` when the
/// file's length differs from what was indexed (it changed since; a cheap check that spares
/// hashing every listed file on every query — `readSymbol` and `readEnclosing` check SHA-256).
fn line_texts(indexed: &IndexedFile, overlay: &Overlay, wanted: &[u32]) -> Option<HashMap<u32, String>> {
    let last = wanted.iter().copied().max()?;
    let keep = |number: usize, line: &str, texts: &mut HashMap<u32, String>| {
        if wanted.contains(&(number as u32)) {
            texts.insert(number as u32, line.trim_end().chars().take(LINE_TEXT_MAX_CHARS).collect());
        }
    };
    let mut texts = HashMap::new();
    if let Some(text) = overlay.get(&indexed.path) {
        if text.len() as u64 != u64::from(indexed.index.bytes) {
            return None;
        }
        for (number, line) in text.lines().enumerate().take(last as usize + 1) {
            keep(number, line, &mut texts);
        }
        return Some(texts);
    }
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(&indexed.path).ok()?;
    let length = file.metadata().ok()?.len();
    let mut reader = std::io::BufReader::new(file);
    // The index measured the text without a UTF-8 byte-order mark (as the compiler reads it),
    // so a file saved with one is three bytes longer on disk; its first line starts after it.
    let mut head = Vec::with_capacity(3);
    (&mut reader).take(3).read_to_end(&mut head).ok()?;
    let has_byte_order_mark = head == b"\xEF\xBB\xBF";
    let text_length = if has_byte_order_mark { length - 3 } else { length };
    if text_length != u64::from(indexed.index.bytes) {
        return None;
    }
    let mut buffer = if has_byte_order_mark { Vec::new() } else { head };
    for number in 0..=last as usize {
        if number > 0 {
            buffer.clear();
        }
        // Lines before the last wanted one are skipped without decoding them.
        if reader.read_until(b'\n', &mut buffer).ok()? == 0 && buffer.is_empty() {
            break;
        }
        if wanted.contains(&(number as u32)) {
            keep(number, &String::from_utf8_lossy(&buffer), &mut texts);
        }
    }
    Some(texts)
}

/// The best lines of a file: declaration lines first, then the lines of exact, then other
/// matches, in text order within each group.
fn best_lines(
    indexed: &IndexedFile,
    file: &RankedFile,
    matching: &[usize],
    limit: usize,
    overlay: &Overlay,
) -> Vec<BestLine> {
    let mut chosen: Vec<(u32, bool)> = Vec::new();
    for &slot in matching {
        if let Some(declaration) = indexed.index.declarations.get(slot) {
            let line = declaration.name_start.line;
            if !chosen.iter().any(|(known, _)| *known == line) {
                chosen.push((line, true));
            }
        }
    }
    let mut names: Vec<&search::NameCount> = file.terms.iter().flat_map(|hit| hit.names.iter()).collect();
    names.sort_by_key(|name| std::cmp::Reverse(name.kind));
    'names: for name in names {
        for position in indexed.index.occurrences.positions_of(name.name) {
            if chosen.len() >= limit {
                break 'names;
            }
            if !chosen.iter().any(|(known, _)| *known == position.line) {
                chosen.push((position.line, false));
            }
        }
    }
    chosen.truncate(limit);
    let wanted: Vec<u32> = chosen.iter().map(|(line, _)| *line).collect();
    let texts = line_texts(indexed, overlay, &wanted);
    chosen
        .into_iter()
        .map(|(line, declaration)| BestLine {
            line,
            declaration,
            text: texts.as_ref().and_then(|texts| texts.get(&line)).cloned(),
        })
        .collect()
}

/// Not definite while the index is still being built (`available: false`).
impl crate::commands::outcome::Answered for SymbolSearchAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(matches!(self, SymbolSearchAnswer::Ranked(_)))
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;
    use serde_json::json;

    use super::{KindName, SearchArguments, SymbolSearchAnswer, selected_kinds};
    use crate::commands::CommandError;
    use crate::commands::params::{CommandArguments, parse_arguments};
    use crate::syntax::model::DeclarationKind;
    use serde::Deserialize;

    /// An argument struct with nothing but a `kinds` filter, read as the read tools read it.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct ReadableKinds {
        #[serde(default, deserialize_with = "super::kinds_argument")]
        kinds: Option<Vec<KindName>>,
    }

    impl CommandArguments for ReadableKinds {}

    #[test]
    fn every_kind_name_is_the_declaration_kind_as_the_index_spells_it() {
        for name in KindName::value_variants() {
            let wire = serde_json::to_value(name).unwrap();
            let command_line = name.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(wire, json!(command_line), "the CLI and the wire spell {name:?} alike");
            if let Some(kind) = name.declaration_kind() {
                assert_eq!(wire, json!(kind.as_str()));
            }
        }
        let types = selected_kinds(Some(&[KindName::Type, KindName::Let])).unwrap();
        assert!(types.contains(&DeclarationKind::Exception) && types.contains(&DeclarationKind::Let));
        assert!(!types.contains(&DeclarationKind::Module));
        assert_eq!(selected_kinds(None), None);
    }

    #[test]
    fn search_answers_read_back_as_sent() {
        let ranked = json!({
            "tool": "symbolSearch", "via": "syntax", "completeness": "syntactic", "available": true,
            "query": "Shipment", "terms": [{ "term": "Shipment", "words": ["shipment"], "files": 2 }],
            "results": [{
                "path": "src/Shipping.fs", "score": 3.25,
                "scoreParts": { "bm25": 2.5, "declarationBonus": 1.0, "prior": 0.5 },
                "priors": ["test", "vendored"], "projects": ["src/App.fsproj"],
                "terms": [{ "term": "Shipment", "count": 3, "names": [
                    { "name": "ShipmentId", "match": "words", "count": 1 },
                    { "name": "shipment", "match": "case-insensitive", "count": 2 },
                ] }],
                "declares": [{ "name": "Shipment", "fullName": "App.Shipment", "kind": "record-field", "line": 4 }],
                "declaresOmitted": 0,
                "lines": [{ "line": 4, "declaration": true, "text": "type Shipment =" }, { "line": 9, "declaration": false }],
                "fromEditorBuffer": true,
            }],
            "returned": 1, "offset": 0, "totalFiles": 2, "truncated": true, "truncatedByBudget": false,
            "nextCursor": "abc", "tablesGeneration": 7, "scoring": "BM25",
            "index": {
                "state": "ready", "generation": 3, "filesIndexed": 10, "filesDegraded": 1, "filesUnparsed": 0,
                "workspaceFiles": 10, "indexedAgoMs": 5, "lastBuildMs": 40, "refreshing": false,
            },
            "elapsedMs": 2,
        });
        let building = json!({
            "tool": "symbolSearch", "via": "syntax", "completeness": "none", "available": false,
            "reason": "building", "retryAfterMs": 500, "hint": "wait",
            "index": { "state": "building", "elapsedMs": 12, "files": null },
        });
        for (sent, is_ranked) in [(ranked, true), (building, false)] {
            let answer = SymbolSearchAnswer::deserialize(&sent).unwrap_or_else(|error| panic!("{error}: {sent:#}"));
            assert_eq!(matches!(answer, SymbolSearchAnswer::Ranked(_)), is_ranked, "{sent:#}");
            assert_eq!(serde_json::to_value(&answer).unwrap(), sent);
        }
    }

    #[test]
    fn a_bad_kinds_entry_blames_kinds() {
        for bad in [json!(["gizmo"]), json!([1]), json!("type"), json!([])] {
            match parse_arguments::<ReadableKinds>(json!({ "kinds": bad })) {
                Err(CommandError::InvalidArgument { argument, .. }) => assert_eq!(argument, "kinds"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        let parsed: ReadableKinds = parse_arguments(json!({ "kinds": ["record-field", "type"] })).unwrap();
        assert_eq!(parsed.kinds, Some(vec![KindName::RecordField, KindName::Type]));
    }

    /// `type` selects every type kind, a type declared without `=` (which has no name of its
    /// own) included, and no member.
    #[test]
    fn the_type_kind_selects_every_type_and_only_types() {
        let kinds = selected_kinds(Some(&[KindName::Type])).unwrap();
        for kind in [DeclarationKind::OpaqueType, DeclarationKind::Record, DeclarationKind::Abbreviation] {
            assert!(kinds.contains(&kind), "{kind:?}");
        }
        assert!(kinds.iter().all(|kind| kind.is_type()), "{kinds:?}");
        assert_eq!(selected_kinds(Some(&[KindName::Class])), Some(vec![DeclarationKind::Class]));
    }

    #[test]
    fn a_query_without_identifiers_blames_query() {
        match parse_arguments::<SearchArguments>(json!({ "query": " . " })) {
            Err(CommandError::InvalidArgument { argument, .. }) => assert_eq!(argument, "query"),
            other => panic!("{other:?}"),
        }
        let parsed: SearchArguments = parse_arguments(json!({ "query": "Shipment" })).unwrap();
        assert_eq!((parsed.max_results.get(), parsed.lines_per_file.get(), parsed.wait_for_index_ms.get()), (20, 3, 0));
    }
}
