//! `fslens.find`: every site of a symbol across every project, with proof of coverage.
//!
//! The query is resolved to declarations (the syntax index, FSAC's `workspace/symbol`, or
//! the compiler's resolution at a position), then FSAC's `textDocument/references` is asked
//! for each declaration through the main loop, under fslens's own request ids, within one
//! monotonic deadline. FSAC searches every loaded project that can see the declaring file
//! (docs/fsac-protocol.md §6), so each answer covers those projects; the per-project
//! ledger says which requested projects every relevant declaration was swept for.
//! Definitions, references, record-field sites (classified by the syntax layer into the five
//! `field-*` kinds; the declaring record is the compiler's) and member-usage sites are
//! unioned and de-duplicated by (file, range).
//!
//! While FSAC is absent or still loading, the answer comes from the syntax index alone,
//! labelled `via: "syntax"`, and is never `not_found`.
//!
//! [`find_with`] runs the phases in order, each a function that returns what the next reads:
//! the [`target`] and the syntax index, [`declarations`] (resolution), the [`sweep`],
//! [`classify`] (sites), [`site_types`], the [`ledger`] and its verdict, the [`stream`] of
//! rows and its identity, then the [`answer`] and its page.
//!
//! Pages: see [`page`] (stateless v2 cursors, measured 60,000-unit budget).

pub mod answer;
pub mod arguments;
pub mod budget;
mod candidates;
mod classify;
mod declarations;
mod ledger;
mod narrowing;
pub mod page;
pub mod resolve;
pub mod rows;
mod site_types;
mod stream;
mod sweep;
mod target;
mod type_errors;
pub mod work;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::configurations::{configuration_note, loaded_configurations};
use crate::commands::paths::confine;
use crate::session_state::status::{ProjectError, StatusSnapshot};
use crate::syntax::{Overlay, SyntaxIndex};
use crate::workspace::WorkspaceModel;

use answer::{
    Completeness, ContextLinesEcho, Coverage, CrossCheck, DeliveryStatus, FindAnswer, FindErrorKind, FindPage,
    PaginationIncompleteReason, Phase, Phases, PositionEcho, ProjectStatus, Recovery, ResolutionSummary, RunEcho,
    SameCursorRetry, SiteTypesLedger, Status, TotalEstimate, TruncatedBy, Via,
};
pub use arguments::{FindArguments, FindKind, FindScope};
use declarations::Resolved;
use ledger::Verdict;
use page::{FindCursor, PlannedPage, identity_of, plan_page};
use resolve::effective_kind;
use rows::{Site, SiteRow, SourceLines};
use stream::Stream;
use sweep::Swept;
use target::{Placement, Target};

/// At most this much of the budget (5 %, at least 1 ms) is kept for building the answer.
const RESPONSE_ALLOWANCE_CAP: Duration = Duration::from_millis(250);
/// At most this many declarations are listed in `resolution.declarations`.
const DECLARATIONS_SHOWN: usize = 50;

/// `fslens.find`: the typed answer (the command table writes it as JSON).
pub async fn find_answer(arguments: FindArguments, context: CommandContext) -> Result<FindAnswer, CommandError> {
    find_answer_extended(arguments, context, &|_| {}).await
}

/// What a caller adds to each candidate page before the planner measures it (fieldImpact's
/// members): the page it delivers then fits the budget with them.
pub type PageExtension<'a> = &'a (dyn Fn(&mut FindAnswer) + Sync);

/// [`find_answer`] whose every page carries what `extend` adds to it.
pub async fn find_answer_extended(
    arguments: FindArguments,
    context: CommandContext,
    extend: PageExtension<'_>,
) -> Result<FindAnswer, CommandError> {
    match run(arguments, context, Rows::Page, None).await? {
        Ran::Answered(mut answer) => {
            extend(&mut answer);
            Ok(*answer)
        }
        Ran::Formed(formed) => {
            let Formed { arguments, base, rows, frame } = *formed;
            deliver_page(&arguments, base, &rows, &frame, extend)
        }
    }
}

/// Every site of a find, with no page: for a caller that compares them all (rename).
#[derive(Clone, Debug)]
pub struct AllSites {
    /// Every row, in the stream's order (each segment the site budget cut, in turn).
    pub rows: Vec<SiteRow>,
    /// `complete` only when every segment was.
    pub completeness: Completeness,
    /// `crossCheck.missedByBackend` of every segment.
    pub missed_by_backend: Vec<answer::DeclarationRef>,
    /// Who answered the first segment (`via`).
    pub via: answer::Via,
    /// Whether the query named a declaration (`matched` of the first segment).
    pub matched: Option<bool>,
    /// `perProject` of the first segment: which projects were swept and how.
    pub per_project: Vec<answer::ProjectRow>,
    /// The first segment's notes (why an answer is partial or syntactic).
    pub notes: Vec<String>,
    /// How many declarations the query resolved to (`resolution`).
    pub declarations: usize,
}

/// Every site of the find `arguments` stands for (its `cursor` and `maxResults` are not
/// read): the stream's rows segment after segment, with no page planned and no cursor. A
/// sweep the deadline cut short ends the walk (the rows so far are returned, not complete).
pub async fn all_sites(arguments: FindArguments, context: CommandContext) -> Result<AllSites, CommandError> {
    let mut all = AllSites {
        rows: Vec::new(),
        completeness: Completeness::Complete,
        missed_by_backend: Vec::new(),
        via: answer::Via::None,
        matched: None,
        per_project: Vec::new(),
        notes: Vec::new(),
        declarations: 0,
    };
    let mut resume_from = None;
    let mut first = true;
    loop {
        let (base, rows, resumes_at) = match run(arguments.clone(), context.clone(), Rows::All, resume_from).await? {
            Ran::Answered(answer) => (*answer, Vec::new(), None),
            Ran::Formed(formed) => {
                let Formed { base, rows, frame, .. } = *formed;
                let resumes_at = frame.resumes_at.filter(|_| !frame.sweep_incomplete);
                (base, rows, resumes_at)
            }
        };
        if base.completeness != Completeness::Complete {
            all.completeness = base.completeness;
        }
        if std::mem::take(&mut first) {
            all.via = base.via;
            all.matched = base.matched;
            all.per_project = base.per_project.clone();
            all.notes = base.notes.clone();
            all.declarations = base.resolution.declaration_count.unwrap_or(base.resolution.declarations.len());
        }
        let missed = base.cross_check.map(|check| check.missed_by_backend).unwrap_or_default();
        all.missed_by_backend.extend(missed.into_iter().filter_map(|row| serde_json::from_value(row).ok()));
        all.rows.extend(rows);
        match resumes_at {
            Some(file) => resume_from = Some(file),
            None => return Ok(all),
        }
    }
}

/// Which rows a run forms.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// The cursor's window of at most `maxResults`.
    Page,
    /// Every row of the segment.
    All,
}

/// What a run produced.
enum Ran {
    /// An answer with no rows to plan (the deadline passed before the sweep).
    Answered(Box<FindAnswer>),
    /// The phases ran: the rows are formed.
    Formed(Box<Formed>),
}

/// The answer without its page, the rows formed and where they sit in the stream.
struct Formed {
    arguments: FindArguments,
    base: FindAnswer,
    rows: Vec<SiteRow>,
    frame: PageFrame,
}

/// The phases of a find, up to its rows; `resume_from` starts the segment at that file
/// (as a cursor of [`Rows::Page`] does).
async fn run(
    arguments: FindArguments,
    context: CommandContext,
    wanted: Rows,
    resume_from: Option<String>,
) -> Result<Ran, CommandError> {
    let started = Instant::now();
    let root = context.workspace_root()?.to_path_buf();
    let deadlines = Deadlines::for_timeout(arguments.timeout());
    // A cursor is checked for shape before any work.
    let cursor = arguments.cursor.as_deref().map(FindCursor::decode).transpose()?;
    let mut clock = PhaseClock::start();

    let model = crate::commands::load_workspace_model(&root).await?;
    let target = target::plan_target(&arguments, &model, &root)?;
    let query_identity = query_identity(&arguments, &model, &root, &target)?;
    clock.lap("workspaceMs");
    let overlay = context.editor_buffers().await?;
    let mut texts = Texts::new(overlay.clone());
    let position = match arguments.kind {
        FindKind::Position => Some(resolve_position(&arguments, &root, &mut texts)?),
        _ => None,
    };
    let index = context.syntax_index();
    let names = candidates::query_names(&arguments, position.as_ref());
    let position_file = position.as_ref().map(|position| position.path.as_path());
    let qualifier = if position.is_none() { narrowing::qualifier_of(&arguments) } else { None };
    let searched = match qualifier {
        Some(qualifier) => {
            candidates::search_qualified(&index, &overlay, model.files_to_index(), names, qualifier).await?
        }
        None => candidates::search(&index, &overlay, model.files_to_index(), names, position_file).await?,
    };
    clock.lap("indexMs");
    let fsac = FsacView::read(&context).await?;
    let run = run_echo(&arguments, &target, &model, &fsac, &deadlines, position.as_ref());
    // An expired deadline before the sweep: a typed timeout, no invented counts.
    if tokio::time::Instant::now() >= deadlines.sweep {
        return Ok(Ran::Answered(Box::new(answer::timeout_before_sweep(run, &target, &model, started))));
    }
    let mut find = FindRun {
        arguments,
        context,
        root,
        model,
        target,
        index,
        searched,
        overlay,
        fsac,
        sweep_deadline: deadlines.sweep,
        work: work::Work::default(),
    };

    let resolved = declarations::resolve(&find, position.as_ref()).await?;
    find.searched.narrow_to_users(&find.index, &find.overlay, &find.model, &resolved.declared).await?;
    let declared_names = resolved.declared.iter().map(|declaration| declaration.name().to_owned());
    find.searched.widen_to_names(&find.index, &find.overlay, declared_names).await?;
    clock.lap("resolutionMs");
    let swept = sweep::sweep(&find, &mut texts, &resolved).await?;
    let answered_files = swept.all_answers().into_iter().flatten().map(|(path, _)| path.clone()).collect::<Vec<_>>();
    find.searched.include_files(&find.index, &find.overlay, answered_files).await?;
    let placement = Placement::new(&find.target, &find.model);
    let from_file = cursor.as_ref().and_then(|cursor| cursor.from_file.clone()).or(resume_from);
    let segment = budget::Segment::new(budget::site_budget_bytes(), from_file.clone());
    let (sites, budget_stop) = classify::sites(&find, &placement, &resolved, &swept, segment);
    let site_types = if find.arguments.include_site_types {
        Some(site_types::site_types(&find, &mut texts, &sites).await?)
    } else {
        None
    };
    swept.release_documents(&find.context);
    let mut type_errors = type_errors::seen(&find, &placement, &resolved, &sites).await?;
    clock.lap("sweepMs");

    let mut verdict = ledger::judge(&find, &resolved, &swept, &sites, position.is_some(), &type_errors);
    // About to answer complete: a use the compiler left unresolved is in no references answer,
    // so the files holding an occurrence no site covers must have been type-checked.
    if verdict.coverage_complete {
        let bounds = type_errors::SegmentBounds {
            from_file: from_file.as_deref(),
            resumes_at_file: budget_stop.as_ref().map(|stop| stop.resumes_at_file.as_str()),
        };
        if type_errors.diagnose_unresolved(&find, &placement, &resolved, &swept, &sites, &bounds).await? {
            verdict = ledger::judge(&find, &resolved, &swept, &sites, position.is_some(), &type_errors);
        }
        clock.lap("typeErrorCheckMs");
    }
    let (types, site_types) = site_types.unzip();
    let ledger = (verdict.per_project.as_slice(), resolved.declared.as_slice());
    let window = match wanted {
        Rows::Page => stream::window(&find, cursor.as_ref()),
        Rows::All => 0..usize::MAX,
    };
    let segment = (window, from_file.as_deref());
    let stream = stream::form(&find, &mut texts, &placement, ledger, &sites, types.as_deref(), segment);
    // Only a sweep the deadline cut short (a project timed out, busy or never started) leaves
    // a stream that cannot be bound to a cursor. A partial answer for any other reason (a
    // declaration FSAC's references miss, one the index cannot confirm, a failed project) is
    // a stable stream whose every page stays reachable.
    let sweep_incomplete = verdict.deadline_cut_sweep(find.fsac.ready);
    let offset = stream::page_offset(cursor.as_ref(), &query_identity, &stream, sites.len(), sweep_incomplete)?;
    clock.lap("rowsMs");

    let segmented = from_file.is_some() || budget_stop.is_some();
    let findings = Findings { resolved, swept, sites, site_types, verdict, budget_stop, segmented, type_errors };
    let base = answer_of(&find, run, &findings, &stream, clock, started);
    let frame = PageFrame {
        offset,
        total: findings.sites.len(),
        sweep_incomplete,
        query_identity,
        stream: stream.identity,
        from_file,
        resumes_at: findings.budget_stop.as_ref().map(|stop| stop.resumes_at_file.clone()),
    };
    // The rest of the workspace is indexed for later commands, off this answer's path.
    find.context.warm_workspaces().start_in_background(&find.index, &find.root);
    Ok(Ran::Formed(Box::new(Formed { arguments: find.arguments, base, rows: stream.page_rows, frame })))
}

/// One find after indexing: what the phases read. The file texts they quote ([`Texts`]) go
/// beside it, since the phases fill its cache.
struct FindRun {
    arguments: FindArguments,
    context: CommandContext,
    root: PathBuf,
    model: WorkspaceModel,
    target: Target,
    index: Arc<SyntaxIndex>,
    /// The workspace's files, and the ones indexed and read for this find.
    searched: candidates::SearchedFiles,
    /// The editor's buffers as the find began (they win over the disk).
    overlay: Overlay,
    fsac: FsacView,
    /// Requests to FSAC end by this instant: the deadline less the answer's allowance.
    sweep_deadline: tokio::time::Instant,
    /// What the phases compared, and the paths they resolved.
    work: work::Work,
}

impl FindRun {
    /// The kind as run: `auto` with `field` runs as `field`, with `member` as `members`.
    fn kind_mode(&self) -> FindKind {
        effective_kind(&self.arguments)
    }

    /// The files this find reads (those that may hold a name it looks for), sorted.
    fn files(&self) -> &[PathBuf] {
        &self.searched.candidates
    }

    /// Brings one workspace file's index up to date now (a `stat` when it is).
    async fn index_now(&self, path: PathBuf) -> Result<(), CommandError> {
        if !self.in_workspace(&path) {
            return Ok(());
        }
        let (index, overlay) = (self.index.clone(), self.overlay.clone());
        crate::commands::run_blocking(move || {
            index.refresh_path(&path, &overlay);
            Ok(())
        })
        .await
    }

    /// Is `path` one of the workspace's files?
    fn in_workspace(&self, path: &Path) -> bool {
        self.searched.in_workspace.contains(path)
    }

    /// The requested projects FSAC reported it could not load (with FSAC ready), each with
    /// FSAC's error: their files were never swept, so their sites come from the syntax layer.
    fn failed_projects(&self) -> Vec<(&Path, &ProjectError)> {
        if !self.fsac.ready {
            return Vec::new();
        }
        self.target
            .projects
            .iter()
            .filter_map(|project| {
                let display = self.model.display_path(project);
                self.fsac
                    .status
                    .project_errors
                    .iter()
                    .find(|error| Path::new(&error.project) == project || error.project.ends_with(&display))
                    .map(|error| (project.as_path(), error))
            })
            .collect()
    }
}

/// FSAC as the session's status described it when the find began.
struct FsacView {
    status: StatusSnapshot,
    /// `absent`, `starting`, `loading`, `ready` or `crashed`.
    state: String,
    ready: bool,
}

impl FsacView {
    async fn read(context: &CommandContext) -> Result<FsacView, CommandError> {
        let status = context.status().await?;
        let state = status.state.as_str().to_owned();
        Ok(FsacView { ready: state == "ready", state, status })
    }
}

/// The request's one deadline, split: FSAC is asked until `sweep`, the rest (5 %, at most
/// [`RESPONSE_ALLOWANCE_CAP`]) is kept for building the answer.
struct Deadlines {
    timeout: Duration,
    allowance: Duration,
    sweep: tokio::time::Instant,
}

impl Deadlines {
    fn for_timeout(timeout: Duration) -> Deadlines {
        let deadline = tokio::time::Instant::now() + timeout;
        let allowance = if timeout.is_zero() {
            Duration::ZERO
        } else {
            (timeout / 20).clamp(Duration::from_millis(1), RESPONSE_ALLOWANCE_CAP)
        };
        Deadlines { timeout, allowance, sweep: deadline - allowance }
    }
}

/// `timingsMs`: the milliseconds each phase took.
struct PhaseClock {
    since: Instant,
    timings: BTreeMap<&'static str, u64>,
}

impl PhaseClock {
    fn start() -> PhaseClock {
        PhaseClock { since: Instant::now(), timings: BTreeMap::new() }
    }

    /// Records the time since the previous lap as `phase`.
    fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.timings.insert(phase, now.duration_since(self.since).as_millis() as u64);
        self.since = now;
    }
}

/// The identity of the canonical query a cursor binds to (`path` and `projectPath` as the
/// workspace spells them).
fn query_identity(
    arguments: &FindArguments,
    model: &WorkspaceModel,
    root: &Path,
    target: &Target,
) -> Result<String, CommandError> {
    let normalized_path = match &arguments.path {
        Some(written) => Some(model.display_path(&confine(root, written, "path")?)),
        None => None,
    };
    let canonical = arguments.canonical_query(normalized_path.as_deref(), target.normalized_project.as_deref());
    Ok(identity_of(&canonical))
}

/// What was run, as the answer echoes it.
fn run_echo(
    arguments: &FindArguments,
    target: &Target,
    model: &WorkspaceModel,
    fsac: &FsacView,
    deadlines: &Deadlines,
    position: Option<&ResolvedPosition>,
) -> RunEcho {
    RunEcho {
        tool: "find".to_owned(),
        query: arguments.query.clone(),
        kind: arguments.kind,
        effective_kind: effective_kind(arguments),
        scope: target.scope,
        exact: arguments.exact,
        timeout_ms: deadlines.timeout.as_millis() as u64,
        response_construction_allowance_ms: deadlines.allowance.as_millis() as u64,
        fsac_state: fsac.state.clone(),
        position: position.map(|position| PositionEcho {
            path: model.display_path(&position.path),
            line: position.line,
            character: position.character,
            word: position.word.clone(),
            occurrence: arguments.word.as_ref().map(|_| arguments.occurrence()),
        }),
    }
}

/// What the phases after the sweep established, for the answer.
struct Findings {
    resolved: Resolved,
    swept: Swept,
    sites: Vec<Site>,
    site_types: Option<SiteTypesLedger>,
    verdict: Verdict,
    /// Where the site budget cut this segment.
    budget_stop: Option<budget::BudgetStop>,
    /// The sites are one segment of the stream, not all of it (a resume, or a cut).
    segmented: bool,
    /// FSAC's errors on lines holding the name, and the files the find had FSAC analyse.
    type_errors: type_errors::TypeErrors,
}

/// The answer without its page.
fn answer_of(
    find: &FindRun,
    run: RunEcho,
    findings: &Findings,
    stream: &Stream,
    clock: PhaseClock,
    started: Instant,
) -> FindAnswer {
    let Findings { resolved, swept, sites, site_types, verdict, budget_stop, segmented, type_errors } = findings;
    let type_error_check = type_errors.check.clone();
    let type_errors = &type_errors.lines;
    let type_errors_shown = type_errors.len().min(type_errors::TYPE_ERROR_LINES_SHOWN);
    let via_fsac = find.fsac.ready;
    let total = sites.len();
    let scope_note = target::scope_note(&find.target, &find.model, verdict, find.fsac.ready, &find.fsac.state);
    // A project loaded in a configuration that leaves code out (another target framework, a
    // file compiled only for it) is named, never silently inside a complete answer.
    let display = |path: &Path| find.model.display_path(path);
    let configurations: Vec<_> = loaded_configurations(&find.target.projects, &find.fsac.status, &find.model, &display)
        .into_iter()
        .filter(|row| row.leaves_something_out())
        .collect();
    FindAnswer {
        run,
        error_kind: verdict.no_projects.as_ref().map(|_| FindErrorKind::NoProjects),
        via: if via_fsac { Via::Fsac } else { Via::Syntax },
        completeness: match (via_fsac, verdict.coverage_complete) {
            (false, _) => Completeness::Syntactic,
            (true, true) => Completeness::Complete,
            (true, false) => Completeness::Partial,
        },
        outcome: verdict.outcome,
        status: verdict.status,
        matched: verdict.matched,
        no_projects: verdict.no_projects.clone(),
        scope_note,
        configuration_note: configuration_note(&configurations, "searched"),
        configurations: (!configurations.is_empty()).then_some(configurations),
        coverage: coverage_of(find, resolved, swept, verdict),
        per_project: verdict.per_project.clone(),
        per_project_returned_count: None,
        per_project_total_count: None,
        per_project_truncated: None,
        cross_check: (swept.asked && verdict.swept_complete).then(|| CrossCheck {
            source: "syntax-index".to_owned(),
            missed_by_backend: verdict
                .missed
                .iter()
                .map(|slot| resolved.declared[*slot].to_json(&|path| find.model.display_path(path), false, None))
                .collect(),
            unconfirmed_by_index: verdict
                .unconfirmed
                .iter()
                .map(|slot| {
                    let declared = &resolved.declared[*slot];
                    let mut row = declared.to_json(&|path| find.model.display_path(path), false, None);
                    row["reason"] = json!(
                        resolved
                            .unconfirmed
                            .iter()
                            .find(|unconfirmed| unconfirmed.name_range == declared.name_range)
                            .map_or("error_region", |unconfirmed| unconfirmed.reason)
                    );
                    row
                })
                .collect(),
        }),
        type_error_lines: (!type_errors.is_empty()).then(|| type_errors[..type_errors_shown].to_vec()),
        type_error_line_count: (type_errors_shown < type_errors.len()).then_some(type_errors.len()),
        type_error_check,
        resolution: resolution_of(resolved, &stream.declarations),
        files_searched: Some(find.searched.account()),
        total_sites: total,
        total_estimate: Some(TotalEstimate { sites: total, is_lower_bound: !verdict.coverage_complete || *segmented }),
        site_budget: budget_stop.clone(),
        breakdown: Some(breakdown_of(sites)),
        context_lines: Some(ContextLinesEcho {
            context_lines_requested: find.arguments.context_lines_requested(),
            context_lines_applied: find.arguments.context_lines_applied(),
            context_lines_truncated: find.arguments.context_lines_requested() > find.arguments.context_lines_applied(),
        }),
        site_types: site_types.clone(),
        site_types_note: site_types.as_ref().map(|_| site_types_note(find.kind_mode(), sites).to_owned()),
        notes: resolved.notes.iter().chain(&verdict.notes).cloned().collect(),
        timings_ms: Some(clock.timings.into_iter().map(|(phase, ms)| (phase.to_owned(), ms)).collect()),
        work_counts: find.work.counts_if_asked(),
        elapsed_ms: started.elapsed().as_millis() as u64,
        page: None,
        recovery: None,
        field_impact: None,
    }
}

/// `coverage`: the ledger's counts and how each phase ended.
fn coverage_of(find: &FindRun, resolved: &Resolved, swept: &Swept, verdict: &Verdict) -> Coverage {
    let (declarations_requested, declarations_swept) = swept.declarations_requested_and_swept(resolved);
    let sweep = if !find.fsac.ready {
        Phase::NotStarted
    } else if !swept.asked {
        Phase::NotNeeded
    } else if verdict.coverage_complete {
        Phase::Complete
    } else {
        Phase::Partial
    };
    Coverage {
        complete: verdict.coverage_complete,
        projects_requested: verdict.requested,
        projects_analyzed: verdict.analyzed,
        projects_timed_out: verdict.count(ProjectStatus::TimedOut),
        projects_failed: verdict.count(ProjectStatus::Failed),
        projects_busy: verdict.count(ProjectStatus::Busy),
        projects_not_started: verdict.count(ProjectStatus::NotStarted),
        declarations_requested: Some(declarations_requested),
        declarations_swept: Some(declarations_swept),
        phases: Phases {
            discovery: Phase::Complete,
            resolution: if verdict.resolution_answered { Phase::Complete } else { Phase::Partial },
            sweep,
        },
    }
}

/// `resolution`: the first declarations (the cursor's identity covers all of them): a name
/// declared in every file must not make the page's metadata larger than any page.
fn resolution_of(resolved: &Resolved, declarations: &[Value]) -> ResolutionSummary {
    let shown = declarations.len().min(DECLARATIONS_SHOWN);
    let cut = shown < declarations.len();
    ResolutionSummary {
        complete: false,
        declarations: declarations[..shown].to_vec(),
        sources: Some(resolved.sources.clone()),
        declaration_count: cut.then_some(declarations.len()),
        declarations_truncated: cut.then_some(true),
    }
}

/// `breakdown`: sites per kind over the whole stream.
fn breakdown_of(sites: &[Site]) -> BTreeMap<rows::SiteKind, usize> {
    let mut breakdown = BTreeMap::new();
    for site in sites {
        *breakdown.entry(site.kind).or_default() += 1;
    }
    breakdown
}

/// `siteTypesNote`: what a site type says, or that this kind produced no field site.
fn site_types_note(kind_mode: FindKind, sites: &[Site]) -> &'static str {
    if matches!(kind_mode, FindKind::Definition | FindKind::Symbol | FindKind::Members)
        && !sites.iter().any(|site| site.kind.is_field())
    {
        "includeSiteTypes annotates field sites only, and this kind produced none."
    } else {
        "siteType is the field's type as the current typecheck resolves it at that site (FSAC hover), the 'before' \
         half of an edit: it never predicts the type after a change. Edit, then run fslens.check. Generic record \
         fields show their type parameter, not the instantiation."
    }
}

/// Where the page starts and what its cursor is bound to.
struct PageFrame {
    offset: usize,
    /// Sites in the whole stream.
    total: usize,
    /// The sweep did not complete: no cursor is issued (pagination restarts).
    sweep_incomplete: bool,
    query_identity: String,
    stream: String,
    /// The segment's first file, when it is not the stream's beginning.
    from_file: Option<String>,
    /// Where the next segment starts, when the site budget cut this one.
    resumes_at: Option<String>,
}

/// The page: the longest prefix of `rows` that fits the budget (with what `extend` adds), its
/// cursor, and, when not one row fits, the typed `find_site_exceeds_response_budget` answer.
fn deliver_page(
    arguments: &FindArguments,
    base: FindAnswer,
    rows: &[SiteRow],
    frame: &PageFrame,
    extend: PageExtension<'_>,
) -> Result<FindAnswer, CommandError> {
    let max_results = arguments.max_results();
    let fill = |answer: &mut FindAnswer, page: &[SiteRow], count: usize| {
        let next = frame.offset + count;
        let more_in_segment = next < frame.total;
        let resume = (!more_in_segment).then_some(frame.resumes_at.as_ref()).flatten();
        let more = more_in_segment || resume.is_some();
        let continues = more && !frame.sweep_incomplete;
        let restart = frame.sweep_incomplete && frame.total > 0;
        let whole = frame.offset == 0 && !more && frame.from_file.is_none();
        let cursor = || match resume {
            Some(file) => FindCursor::resume_at(frame.query_identity.clone(), file.clone()).encode(),
            None => {
                let (query_identity, stream_identity) = (frame.query_identity.clone(), frame.stream.clone());
                FindCursor { offset: next, query_identity, stream_identity, from_file: frame.from_file.clone() }
                    .encode()
            }
        };
        answer.resolution.complete = whole;
        answer.page = Some(FindPage {
            sites: page.to_vec(),
            page_offset: Some(frame.offset),
            returned_sites: count,
            cursor_advanced_by: count,
            truncated: Some(more),
            result_set_complete: whole && !frame.sweep_incomplete,
            delivery_status: Some(if more || frame.sweep_incomplete {
                DeliveryStatus::Partial
            } else {
                DeliveryStatus::Complete
            }),
            next_cursor: continues.then(cursor),
            truncated_by: continues.then_some(if resume.is_some() {
                TruncatedBy::SiteBudget
            } else if count >= max_results {
                TruncatedBy::MaxResults
            } else {
                TruncatedBy::ResponseBudget
            }),
            pagination_restart_required: restart.then_some(more),
            retry_same_cursor: restart.then_some(false),
            pagination_incomplete_reason: restart.then_some(PaginationIncompleteReason::DeadlineIncomplete),
        });
        extend(answer);
    };
    // The kept rows start at the cursor's offset (validated to be `frame.offset`).
    match plan_page(&base, rows, 0, max_results, arguments.page_budget(), &fill) {
        PlannedPage::Delivered(answer) => Ok(answer),
        PlannedPage::SiteTooLarge(mut answer) => {
            answer.status = Status::Aborted;
            answer.error_kind = Some(FindErrorKind::FindSiteExceedsResponseBudget);
            if let Some(page) = &mut answer.page {
                page.delivery_status = Some(DeliveryStatus::Blocked);
                page.cursor_advanced_by = 0;
                page.next_cursor = None;
            }
            answer.recovery = Some(Recovery {
                same_cursor_retry: SameCursorRetry { allowed: false },
                recipe: "restart without a cursor with fewer contextLines or a larger responseCharBudget, or narrow \
                         the query, scope or projectPath"
                    .to_owned(),
            });
            Ok(answer)
        }
    }
}

/// The position of kind=position, resolved to a column.
struct ResolvedPosition {
    path: PathBuf,
    uri: String,
    line: u32,
    character: u32,
    word: Option<String>,
    /// The identifier under the position (else the `word` given): the name looked for.
    name: Option<String>,
    text: String,
}

/// kind position: `path` + `line` + `word` (its `occurrence`) or `character`, resolved to a
/// column of a readable file; a line, word or column that is not there names the argument.
fn resolve_position(
    arguments: &FindArguments,
    root: &Path,
    texts: &mut Texts,
) -> Result<ResolvedPosition, CommandError> {
    let written = arguments.path.as_deref().unwrap_or_default();
    let path = confine(root, written, "path")?;
    let (text, lines) = texts.text(&path).ok_or_else(|| CommandError::InvalidPath {
        path: written.to_owned(),
        message: "cannot read the file".into(),
    })?;
    let line_number = arguments.line();
    let line = lines.line(line_number).ok_or_else(|| {
        CommandError::invalid_argument("line", crate::commands::arguments::past_the_end_message(text, line_number))
    })?;
    let character = crate::commands::arguments::column_of_position(
        line,
        line_number,
        arguments.character(),
        arguments.word.as_deref(),
        arguments.occurrence() as usize,
    )?;
    let uri = crate::uri::path_to_uri(&path)
        .ok_or_else(|| CommandError::InvalidPath { path: written.to_owned(), message: "cannot make a URI".into() })?;
    let name = resolve::identifier_at(line, character).or(arguments.word.clone());
    Ok(ResolvedPosition {
        path,
        uri,
        line: line_number,
        character,
        word: arguments.word.clone(),
        name,
        text: text.clone(),
    })
}

/// The file texts the answer quotes, read once: the editor's buffer first, else the disk.
struct Texts {
    overlay: Overlay,
    cache: HashMap<PathBuf, Option<(String, SourceLines)>>,
}

impl Texts {
    fn new(overlay: Overlay) -> Self {
        Texts { overlay, cache: HashMap::new() }
    }

    fn text(&mut self, path: &Path) -> Option<&(String, SourceLines)> {
        let overlay = &self.overlay;
        self.cache
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = overlay.current_text_lossy(path).ok()?;
                let lines = SourceLines::new(&text);
                Some((text, lines))
            })
            .as_ref()
    }

    /// Drops a file's cached text (it is read again if asked for later).
    fn forget(&mut self, path: &Path) {
        self.cache.remove(path);
    }
}

/// The absolute path of a row's `file` (workspace-relative unless outside the root).
fn resolve_display(root: &Path, file: &str) -> PathBuf {
    let path = Path::new(file);
    if path.is_absolute() { path.to_path_buf() } else { crate::workspace::paths::normalize_lexically(&root.join(path)) }
}

/// A readable summary of a `fslens.find` answer, for `fslens find` without `--json`.
pub fn render_text(answer: &FindAnswer) -> String {
    let mut lines = vec![format!(
        "{} ({}, via {}): {} site(s), coverage {}/{} project(s)",
        answer.outcome.as_str(),
        answer.status.as_str(),
        answer.via.as_str(),
        answer.total_sites,
        answer.coverage.projects_analyzed,
        answer.coverage.projects_requested,
    )];
    if let Some(reason) = answer.no_projects.as_ref().map(|reason| &reason.message) {
        lines.push(format!("no_projects: {reason}"));
    }
    if let Some(note) = &answer.configuration_note {
        lines.push(format!("configuration: {note}"));
    }
    for site in answer.page.iter().flat_map(|page| &page.sites) {
        let condition = site.condition.as_ref().map(|condition| format!(" [{condition}]")).unwrap_or_default();
        lines.push(format!(
            "{}  {:<20} {}{condition}  {}",
            site_position(site),
            site.kind.as_str(),
            symbol_of(site),
            site.line_text.as_deref().unwrap_or("").trim(),
        ));
    }
    lines.extend(page_omissions(answer));
    lines.join("\n")
}

/// A site's place for text: `file:line:column`, 1-based.
pub fn site_position(site: &SiteRow) -> String {
    crate::documents::file_line_column(
        &site.file,
        crate::documents::Position { line: site.range.start.line, character: site.range.start.character },
    )
}

/// A site's symbol for text: its full name, or, for a syntactic site whose name several
/// declarations share, the candidates; `?` marks a site matched by name only.
pub fn symbol_of(site: &SiteRow) -> String {
    let name = match (&site.symbol_full_name, &site.symbol_candidates) {
        (Some(name), _) => name.clone(),
        (None, Some(candidates)) if !candidates.is_empty() => format!("one of {}", candidates.join(" | ")),
        (None, _) => "?".to_owned(),
    };
    if site.certain == Some(false) { format!("{name} (by name)") } else { name }
}

/// The lines of a text rendering that say what a find (or fieldImpact) page leaves out: the
/// sites after it and why the page was cut, projects not analysed, the scope note, notes, and
/// how to continue. The `--json` answer carries the same in its fields.
pub fn page_omissions(answer: &FindAnswer) -> Vec<String> {
    let mut lines = Vec::new();
    let page = answer.page.as_ref();
    let shown = page.map_or(0, |page| page.page_offset.unwrap_or(0) + page.returned_sites);
    let left = answer.total_sites.saturating_sub(shown);
    if left > 0 {
        let by = match page.and_then(|page| page.truncated_by) {
            Some(TruncatedBy::MaxResults) => " (cut at --max-results)",
            Some(TruncatedBy::ResponseBudget) => " (cut by the response budget, --response-char-budget)",
            _ => "",
        };
        lines.push(format!("… {left} more site(s){by}"));
    }
    if answer.per_project_truncated == Some(true) {
        lines.push("per-project detail was reduced to fit the budget (--json shows what is left)".to_owned());
    }
    for project in answer.per_project.iter().filter(|project| project.status != ProjectStatus::Analyzed) {
        let remedy = project.remedy.as_ref().map(|remedy| format!(" (remedy: {remedy})")).unwrap_or_default();
        lines.push(format!(
            "project {} {}: {}{remedy}",
            project.project,
            project.status.as_str(),
            project.reason.as_deref().unwrap_or("")
        ));
    }
    if let Some(recovery) = &answer.recovery {
        lines.push(format!("recovery: {}", serde_json::to_value(recovery).unwrap_or_default()));
    }
    lines.push(format!("scope: {}", answer.scope_note));
    for note in &answer.notes {
        lines.push(format!("note: {note}"));
    }
    if let Some(cursor) = page.and_then(|page| page.next_cursor.as_ref()) {
        lines.push(format!("more: --cursor {cursor}"));
    } else if page.and_then(|page| page.pagination_restart_required) == Some(true) {
        let reason = match page.and_then(|page| page.pagination_incomplete_reason) {
            Some(PaginationIncompleteReason::DeadlineIncomplete) => "deadline_incomplete",
            None => "the sweep did not complete",
        };
        lines.push(format!("no cursor: {reason} (repeat with a larger --timeout-ms)"));
    }
    lines
}
