//! The answer of `fslens.find`, declared once: [`FindAnswer`] holds every member an answer
//! can carry, and its sub-structs the nested objects (`coverage`, `perProject[]`,
//! `resolution`, `siteTypes`, the page). Members absent from some answers are `Option`s that
//! are left out when `None`; members that are `null` when unknown (`matched`, `nextCursor`,
//! `query`) are `Option`s that serialize as `null`. docs/commands.md describes each member.
//!
//! Every member with a fixed set of values is an enum spelled as on the wire; the site rows
//! are [`SiteRow`](super::rows::SiteRow)s. The answer derives `Deserialize` too, so the CLI
//! and tests read it typed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::blocking::BlockingReason;
use crate::commands::find::model::arguments::{FindKind, FindScope};
use crate::commands::find::model::rows::SiteKind;
use crate::lsp::ext::error_kinds;

/// One `fslens.find` answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindAnswer {
    /// What was run.
    #[serde(flatten)]
    pub run: RunEcho,
    /// A typed result that is not an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<FindErrorKind>,
    pub via: Via,
    pub completeness: Completeness,
    pub outcome: Outcome,
    pub status: Status,
    pub matched: Option<bool>,
    /// The workspace has no project: the shared `no_projects` reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_projects: Option<BlockingReason>,
    pub scope_note: String,
    /// The projects in scope FSAC loaded in a configuration that leaves something out (another
    /// target framework, files compiled only for it); absent when none does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configurations: Option<Vec<crate::commands::configurations::ProjectConfiguration>>,
    /// Says what those configurations leave out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration_note: Option<String>,
    pub coverage: Coverage,
    pub per_project: Vec<ProjectRow>,
    /// Set when the page planner kept only some `perProject` rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_project_returned_count: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_project_total_count: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_project_truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_check: Option<CrossCheck>,
    /// FSAC's errors on lines holding a site or an occurrence of the name (the answer is then
    /// not complete): the first 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_error_lines: Option<Vec<TypeErrorLine>>,
    /// Set when `typeErrorLines` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_error_line_count: Option<usize>,
    /// The files the find had FSAC analyse for `typeErrorLines` (each holds an occurrence of
    /// the name no site covers): those analysed, and those whose diagnostics could not be had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_error_check: Option<TypeErrorCheck>,
    pub resolution: ResolutionSummary,
    /// Which files were read: the byte scan for the names and the files it kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_searched: Option<FilesSearched>,
    pub total_sites: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_estimate: Option<TotalEstimate>,
    /// Where the site budget cut the stream (absent when it holds every site).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_budget: Option<crate::commands::find::model::budget::BudgetStop>,
    /// Sites per kind over the whole stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<BTreeMap<SiteKind, usize>>,
    #[serde(flatten)]
    pub context_lines: Option<ContextLinesEcho>,
    /// With `includeSiteTypes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_types: Option<SiteTypesLedger>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_types_note: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings_ms: Option<BTreeMap<String, u64>>,
    /// With `FSLENS_FIND_COUNT_WORK` set: what the find compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_counts: Option<crate::commands::find::model::work::WorkCounts>,
    pub elapsed_ms: u64,
    /// The page: `None` only while the planner has not filled it in.
    #[serde(flatten)]
    pub page: Option<FindPage>,
    /// With `find_site_exceeds_response_budget`: how to get a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
}

/// What was run: the arguments that shape the answer, as applied.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunEcho {
    /// Always `find`.
    pub tool: String,
    pub query: Option<String>,
    pub kind: FindKind,
    /// `kind` as run: `auto` with `field` runs as `field`, with `member` as `members`.
    pub effective_kind: FindKind,
    /// The scope as run (`auto` resolved).
    pub scope: FindScope,
    pub exact: bool,
    pub timeout_ms: u64,
    pub response_construction_allowance_ms: u64,
    pub fsac_state: String,
    /// kind position: where the symbol was looked up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PositionEcho>,
}

/// `position`: the echo of kind position's resolved place.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PositionEcho {
    pub path: String,
    pub line: u32,
    pub character: u32,
    pub word: Option<String>,
    pub occurrence: Option<u32>,
}

/// `coverage`: which requested projects were analyzed.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub complete: bool,
    pub projects_requested: usize,
    pub projects_analyzed: usize,
    pub projects_timed_out: usize,
    pub projects_failed: usize,
    pub projects_busy: usize,
    pub projects_not_started: usize,
    /// Absent when the deadline passed before resolution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declarations_requested: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declarations_swept: Option<usize>,
    pub phases: Phases,
}

/// `coverage.phases`: how each phase ended.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Phases {
    pub discovery: Phase,
    pub resolution: Phase,
    pub sweep: Phase,
}

/// How a phase ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Complete,
    Partial,
    NotStarted,
    NotNeeded,
}

/// Who answered (`via`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// The compiler's references.
    Fsac,
    /// The syntax index alone (FSAC absent or loading).
    Syntax,
    /// Nothing ran.
    None,
}

impl Via {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Fsac => "fsac",
            Via::Syntax => "syntax",
            Via::None => "none",
        }
    }
}

/// `completeness`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Completeness {
    Complete,
    Partial,
    Syntactic,
}

impl Completeness {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Completeness::Complete => "complete",
            Completeness::Partial => "partial",
            Completeness::Syntactic => "syntactic",
        }
    }
}

/// `outcome`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Found,
    NotFound,
    Indeterminate,
}

impl Outcome {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Found => "found",
            Outcome::NotFound => "not_found",
            Outcome::Indeterminate => "indeterminate",
        }
    }
}

/// `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Partial,
    Unknown,
    Aborted,
}

impl Status {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Partial => "partial",
            Status::Unknown => "unknown",
            Status::Aborted => "aborted",
        }
    }
}

/// A `perProject[].status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProjectStatus {
    Analyzed,
    TimedOut,
    Failed,
    Busy,
    NotStarted,
}

impl ProjectStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectStatus::Analyzed => "analyzed",
            ProjectStatus::TimedOut => "timedOut",
            ProjectStatus::Failed => "failed",
            ProjectStatus::Busy => "busy",
            ProjectStatus::NotStarted => "notStarted",
        }
    }
}

/// The `errorKind` of an answer that is not an error, spelled by [`error_kinds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindErrorKind {
    NoProjects,
    FindTimeout,
    FindSiteExceedsResponseBudget,
}

impl FindErrorKind {
    const ALL: [FindErrorKind; 3] =
        [FindErrorKind::NoProjects, FindErrorKind::FindTimeout, FindErrorKind::FindSiteExceedsResponseBudget];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FindErrorKind::NoProjects => error_kinds::NO_PROJECTS,
            FindErrorKind::FindTimeout => error_kinds::FIND_TIMEOUT,
            FindErrorKind::FindSiteExceedsResponseBudget => error_kinds::FIND_SITE_EXCEEDS_RESPONSE_BUDGET,
        }
    }
}

impl Serialize for FindErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FindErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        FindErrorKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| serde::de::Error::custom(format!("not a find errorKind: {text}")))
    }
}

/// `deliveryStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    Complete,
    Partial,
    Blocked,
}

/// `truncatedBy`: what ended the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TruncatedBy {
    MaxResults,
    ResponseBudget,
    /// The segment ends here.
    SiteBudget,
}

/// `paginationIncompleteReason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaginationIncompleteReason {
    /// The deadline cut the sweep short.
    DeadlineIncomplete,
}

/// One `perProject[]` row.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRow {
    pub project: String,
    pub status: ProjectStatus,
    pub declarations_swept: usize,
    pub sites: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a project FSAC could not load: what makes it load (`dotnet restore`, or the
    /// project's MSBuild error to fix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
}

/// `crossCheck`: the declarations the syntax index resolved that FSAC's references missed.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossCheck {
    /// Always `syntax-index`.
    pub source: String,
    pub missed_by_backend: Vec<Value>,
    /// The declarations the syntax index can neither confirm nor rule out (FSAC's in an error
    /// region, or the index's own whose container it lost there), each with its `reason`: kept
    /// and swept, and the answer not complete.
    pub unconfirmed_by_index: Vec<Value>,
    /// The occurrences of the name no site covered, in files that can use the symbol, resolved
    /// by FSAC's definition at each before the answer could say complete; absent when there
    /// were none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unseen_occurrences: Option<UnseenOccurrences>,
    /// For a query naming an override or an interface implementation: how FSAC's rows, which
    /// hold the uses of the slot it fills, were settled; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_rows: Option<SlotRows>,
}

/// `crossCheck.slotRows`: FSAC's rows for an override or an interface implementation settled.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SlotRows {
    /// Rows on another type's member declaration or on an abstract declaration: dropped.
    pub dropped_declarations: usize,
    /// Definition requests sent at the remaining uses (counted in the find's bound).
    pub definitions_asked: usize,
    /// Uses whose definition is one of the queried declarations: kept.
    pub kept_uses: usize,
    /// Uses whose definition is another symbol (the slot, another implementation) or none.
    pub dropped_uses: usize,
    /// Of `dropped_uses`, those dropped with no request: the query names only members of
    /// `interface I with` blocks, which F# reaches only through the interface.
    pub dropped_through_interface: usize,
    /// Uses whose definition could not be had: kept, and the answer not complete.
    pub unresolved: Vec<UnresolvedOccurrence>,
}

/// `crossCheck.unseenOccurrences`: what resolving the occurrences no site covered found.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct UnseenOccurrences {
    /// Definition requests sent.
    pub definitions_asked: usize,
    /// The bound on requests per find, definitions and references together; occurrences past
    /// it are unresolved, `not asked`.
    pub definitions_at_most: usize,
    /// References requests sent at occurrences whose definition is another symbol (or none).
    pub references_asked: usize,
    /// Occurrences such a references answer held: another symbol's, with no definition asked
    /// (counted in `resolvedElsewhere` too).
    pub resolved_by_references: usize,
    /// Occurrences the text shows to be another symbol's: a type variable (`'ok`), a module's
    /// value written with another qualifier (`Result.ok` for `AsyncResult.ok`), a member's name
    /// written bare (`front` for `Deque.front`); ruled out with no request (counted in
    /// `resolvedElsewhere` too).
    pub resolved_by_text: usize,
    /// Occurrences whose definition is a declaration of the symbol: rows, and in
    /// `missedByBackend` with role `use`.
    pub resolved_to_symbol: usize,
    /// Occurrences whose definition is another symbol, or none: not rows.
    pub resolved_elsewhere: usize,
    /// How many could not be resolved (`unresolved` lists the first 50).
    pub unresolved_total: usize,
    pub unresolved: Vec<UnresolvedOccurrence>,
}

/// One occurrence whose definition could not be had, and why.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct UnresolvedOccurrence {
    pub file: String,
    /// 0-based.
    pub line: u32,
    /// 0-based, UTF-16.
    pub character: u32,
    pub reason: String,
}

/// What a reader takes of a listed declaration (`resolution.declarations[]`,
/// `crossCheck.missedByBackend[]`): its name, place and role.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationRef {
    pub symbol_full_name: String,
    pub file: String,
    pub range: crate::commands::find::model::rows::RowRange,
    /// `declaration` or `signature`.
    pub role: String,
}

/// `resolution`: the declarations the query resolved to and who answered.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolutionSummary {
    /// This response starts at offset 0 and holds every site.
    pub complete: bool,
    /// The first 50 (`declarationCount` says how many there are when cut).
    pub declarations: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<ResolutionSources>,
    /// Set when `declarations` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration_count: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declarations_truncated: Option<bool>,
    /// Each distinct symbol the declarations stand for, once (a signature and its
    /// implementation are one), with its own count of sites in this answer's stream.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolSummary>,
    /// With nothing found: the files the grammar could not read whole that hold the name, a
    /// declaration there may be lost to the syntax index (`{file, line, character}` of its
    /// first occurrence, 0-based, the place absent for a substring query; at most 20). Any keeps the answer from being `not_found`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub degraded_files_holding_name: Vec<Value>,
}

/// `resolution.symbols[]`: one symbol the query names, as the compiler names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolSummary {
    pub symbol_full_name: String,
    /// `type`, `module`, `member`, `field`, `unionCase`, …; absent when only FSAC reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    /// How many of `declarations` are this symbol's (its signature and implementation).
    pub declarations: usize,
    /// The rows of the stream (this segment) that name it.
    pub sites: usize,
}

/// `resolution.sources`: what each resolver answered (`answered`, `failed: …`, `timedOut`,
/// `notApplicable (…)`); a resolver that was not asked is absent.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolutionSources {
    pub syntax_index: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsac_definition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsac_workspace_symbol: Option<String>,
}

/// `totalEstimate`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TotalEstimate {
    pub sites: usize,
    pub is_lower_bound: bool,
}

/// `contextLinesRequested`, `contextLinesApplied`, `contextLinesTruncated`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextLinesEcho {
    pub context_lines_requested: usize,
    pub context_lines_applied: usize,
    pub context_lines_truncated: bool,
}

/// `siteTypes`: the ledger of `includeSiteTypes` over the whole match set.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteTypesLedger {
    pub requested: bool,
    pub field_sites: usize,
    pub typed: usize,
    pub degraded: usize,
    pub degraded_unresolved: usize,
    pub degraded_timed_out: usize,
    /// Always `null`: FSAC types a file in one project context only, so whether another
    /// project types a site differently is unknown, not zero.
    pub typed_differently_by_another_project: Option<usize>,
    /// With no alternatives there is nothing to truncate.
    pub alternatives_truncated_rows: usize,
    /// fieldImpact: the page's rows whose type comes from one project context of several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single_context_rows_on_page: Option<usize>,
}

/// The page members.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindPage {
    pub sites: Vec<crate::commands::find::model::rows::SiteRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_offset: Option<usize>,
    pub returned_sites: usize,
    pub cursor_advanced_by: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    pub result_set_complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_status: Option<DeliveryStatus>,
    pub next_cursor: Option<String>,
    /// When there is a next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated_by: Option<TruncatedBy>,
    /// These three when the sweep did not complete and there are sites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination_restart_required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_same_cursor: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination_incomplete_reason: Option<PaginationIncompleteReason>,
}

impl FindPage {
    /// The page of an answer whose sweep never started: no sites, no cursor.
    pub fn before_sweep() -> FindPage {
        FindPage {
            sites: Vec::new(),
            page_offset: None,
            returned_sites: 0,
            cursor_advanced_by: 0,
            truncated: None,
            result_set_complete: false,
            delivery_status: None,
            next_cursor: None,
            truncated_by: None,
            pagination_restart_required: None,
            retry_same_cursor: None,
            pagination_incomplete_reason: None,
        }
    }
}

/// `recovery`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recovery {
    pub same_cursor_retry: SameCursorRetry,
    pub recipe: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SameCursorRetry {
    pub allowed: bool,
}

/// `filesSearched`: how many files the byte scan read and how many it kept.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesSearched {
    /// Files of the workspace the syntax index covers.
    pub workspace_files: usize,
    /// Files whose bytes were scanned for the names.
    pub scanned_files: usize,
    /// Files indexed and read for this find: those holding a name, and the files FSAC
    /// answered with.
    pub candidate_files: usize,
    /// Files that could not be read (kept as candidates; their index says why).
    pub unreadable_files: usize,
    /// True when a name no byte scan can decide (a case-insensitive non-ASCII name, an
    /// operator by substring) made every file a candidate.
    pub every_file_kept: bool,
    /// A qualified find: files whose bytes hold the name but which cannot use what the query
    /// names (they can neither see its declaration nor name its qualifier), left unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cannot_use_files: Option<usize>,
    /// The names scanned for (the first [`NAMES_LISTED`]).
    pub names: Vec<String>,
    /// How many more names were scanned for than `names` lists.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub names_omitted: usize,
}

/// At most this many names are listed in `filesSearched.names` (a substring query may
/// resolve to hundreds of names, and the list must not take the page's room).
pub const NAMES_LISTED: usize = 10;

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// One line holding the name on which FSAC reports an error.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeErrorLine {
    pub file: String,
    /// 0-based, as the rows' ranges.
    pub line: u32,
    /// FSAC's diagnostic code (an integer, e.g. 72), as it sent it.
    pub code: Value,
    pub message: String,
}

/// `typeErrorCheck`: the files fslens had FSAC analyse for this find, because each holds an
/// occurrence of a name that no site covers and FSAC had published no diagnostics for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeErrorCheck {
    /// Their diagnostics were had (and read for `typeErrorLines`).
    pub files_analysed: Vec<String>,
    /// Their diagnostics could not be had: the answer is then not complete.
    pub files_unknown: Vec<UnknownFile>,
}

/// A file whose diagnostics the find needed and could not have.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct UnknownFile {
    pub file: String,
    pub reason: String,
}

/// At most this many lines are listed (`typeErrorLineCount` gives the number when cut).
pub const TYPE_ERROR_LINES_SHOWN: usize = 50;

/// A find page is a definite answer (its coverage proof says what it covers).
impl crate::commands::outcome::Answered for FindAnswer {}
