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
//! The pipeline, in the order it runs ([`run`] calls the phases; each returns what the next
//! reads), over the shared types of [`model`] and the matching rules of [`matching`]:
//!
//! 1. [`phases::target`]: which projects are swept and which sites kept;
//! 2. [`phases::position`]: kind position's place resolved to a column;
//! 3. [`phases::narrowing`]: which files a qualified name lets the find leave unread;
//! 4. [`phases::candidates`]: the files whose bytes hold a name the find looks for;
//! 5. [`phases::find_run`]: the run's state from here on (FSAC as seen, the deadlines);
//! 6. [`phases::declarations`]: the query resolved to declarations;
//! 7. [`phases::sweep`]: FSAC's references per declaration;
//! 8. [`phases::classify`]: the locations become sites, cut by the site budget;
//! 9. [`phases::site_types`]: a field's type at each site;
//! 10. [`phases::type_errors`]: FSAC's errors on the lines that hold the name;
//! 11. [`phases::unseen`]: the occurrences of the name no site covers, resolved by FSAC's
//!     definition before an answer may say complete;
//! 12. [`phases::ledger`]: per project, whether every declaration it sees was swept (the
//!     verdict);
//! 13. [`phases::stream`]: the rows formed once, and the stream's identity;
//! 14. [`phases::answer`]: the answer without its page;
//! 15. [`phases::page`]: the page planned within the budget, with what a [`PageHook`] adds.
//!
//! Imports point down only: a phase imports earlier phases, [`matching`] and [`model`];
//! [`matching`] imports [`model`]; [`model`] imports nothing else of find.
//!
//! The commands built on find (fieldImpact, rename, testsForSymbol, deadCode,
//! unionCaseImpact) use only what this file declares: [`find_answer`] and
//! [`find_answer_with`] (a page, extended through a [`PageHook`]), [`all_sites`] (every
//! site, no page), the types they answer ([`answer`], [`rows`], [`arguments`]) and the
//! matching helpers re-exported below.

mod matching;
// `pub(crate)` only for the paths `find_sweep_arguments!` writes
// (`$crate::commands::find::model::arguments::…`).
pub(crate) mod model;
mod phases;

pub use matching::active_patterns::{case_of_clip, case_use_after, case_use_elsewhere};
pub use matching::non_symbol::{KEYWORDS, literal_at, non_symbol_at};
pub use matching::{identifier_at, qualified_matches, segments};
pub use model::arguments::{FindArguments, FindKind, FindScope};
pub use model::{answer, arguments, rows};
pub use phases::page::{ExtendedAnswer, PageHook};

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::paths::confine;
use crate::syntax::{Overlay, SyntaxIndex};
use crate::workspace::WorkspaceModel;

use matching::effective_kind;
use model::answer::{Completeness, FindAnswer, PositionEcho, RunEcho};
use model::cursor::{FindCursor, identity_of};
use model::rows::SiteRow;
use model::texts::Texts;
use phases::answer::Findings;
use phases::find_run::{Deadlines, FindRun, FsacView, PhaseClock};
use phases::page::{PageFrame, deliver_page};
use phases::position::{ResolvedPosition, resolve_position};
use phases::target::{Placement, Target};
use phases::{
    candidates, classify, declarations, ledger, narrowing, qualified, site_types, slots, stream, sweep, target,
    type_errors, unseen,
};

/// `fslens.find`: the typed answer (the command table writes it as JSON).
pub async fn find_answer(arguments: FindArguments, context: CommandContext) -> Result<FindAnswer, CommandError> {
    Ok(find_answer_with(arguments, context, &phases::page::NoMembers).await?.find)
}

/// [`find_answer`] whose every page carries what `hook` adds to it (fieldImpact's members):
/// the page it delivers fits the budget with them.
pub async fn find_answer_with<H: PageHook>(
    arguments: FindArguments,
    context: CommandContext,
    hook: &H,
) -> Result<ExtendedAnswer<H::Members>, CommandError> {
    match run(arguments, context, Rows::Page, None).await? {
        Ran::Answered(answer) => Ok(ExtendedAnswer::of(*answer, hook)),
        Ran::Formed(formed) => {
            let Formed { arguments, base, rows, frame } = *formed;
            Ok(deliver_page(&arguments, base, &rows, &frame, hook))
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
    pub missed_by_backend: Vec<model::answer::DeclarationRef>,
    /// Who answered the first segment (`via`).
    pub via: model::answer::Via,
    /// Whether the query named a declaration (`matched` of the first segment).
    pub matched: Option<bool>,
    /// `perProject` of the first segment: which projects were swept and how.
    pub per_project: Vec<model::answer::ProjectRow>,
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
        via: model::answer::Via::None,
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
    let searched = search_candidates(&arguments, position.as_ref(), &index, &overlay, &model).await?;
    clock.lap("indexMs");
    let fsac = FsacView::read(&context).await?;
    let run = run_echo(&arguments, &target, &model, &fsac, &deadlines, position.as_ref());
    // An expired deadline before the sweep: a typed timeout, no invented counts.
    if tokio::time::Instant::now() >= deadlines.sweep {
        return Ok(Ran::Answered(Box::new(phases::answer::timeout_before_sweep(run, &target, &model, started))));
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
        work: model::work::Work::default(),
    };

    let mut resolved = declarations::resolve(&find, position.as_ref()).await?;
    find.searched.narrow_to_users(&find.index, &find.overlay, &find.model, &resolved.declared).await?;
    let declared_names = resolved.declared.iter().map(|declaration| declaration.name().to_owned());
    find.searched.widen_to_names(&find.index, &find.overlay, declared_names).await?;
    clock.lap("resolutionMs");
    let swept = sweep::sweep(&find, &mut texts, &resolved).await?;
    resolved.confirm_signature_patterns(&swept.answered_places(&find.work), &find.work);
    let answered_files = swept.all_answers().into_iter().flatten().map(|(path, _)| path.clone()).collect::<Vec<_>>();
    find.searched.include_files(&find.index, &find.overlay, answered_files).await?;
    let placement = Placement::new(&find.target, &find.model);
    let from_file = cursor.as_ref().and_then(|cursor| cursor.from_file.clone()).or(resume_from);
    let segment = model::budget::Segment::new(model::budget::site_budget_bytes(), from_file.clone());
    let (mut sites, budget_stop) = classify::sites(&find, &placement, &resolved, &swept, segment);
    let site_types = if find.arguments.include_site_types {
        Some(site_types::site_types(&find, &mut texts, &sites).await?)
    } else {
        None
    };
    swept.release_documents(&find.context);
    let mut type_errors = type_errors::seen(&find, &placement, &resolved, &sites).await?;
    clock.lap("sweepMs");

    let segment_bounds = type_errors::SegmentBounds {
        from_file: from_file.as_deref(),
        resumes_at_file: budget_stop.as_ref().map(|stop| stop.resumes_at_file.as_str()),
    };
    let judged = Judged {
        find: &find,
        placement: &placement,
        resolved: &resolved,
        swept: &swept,
        by_position: position.is_some(),
    };
    let (verdict, unseen, slots) =
        judged.judge(&mut texts, &mut sites, &mut type_errors, &segment_bounds, &mut clock).await?;
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
    let findings =
        Findings { resolved, swept, sites, site_types, verdict, budget_stop, segmented, type_errors, unseen, slots };
    let base = phases::answer::answer_of(&find, run, &findings, &stream, clock, started);
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
    crate::commands::symbols::warmup::of(&find.context).start_in_background(&find.index, &find.root);
    Ok(Ran::Formed(Box::new(Formed { arguments: find.arguments, base, rows: stream.page_rows, frame })))
}

/// What the ledger judges, and what a find about to answer complete confirms first.
struct Judged<'a> {
    find: &'a FindRun,
    placement: &'a Placement,
    resolved: &'a declarations::Resolved,
    swept: &'a sweep::Swept,
    by_position: bool,
}

impl Judged<'_> {
    /// The verdict. First, for a query naming an override or an interface implementation,
    /// FSAC's rows holding the slot's uses are settled (`slots`, which drops from `sites` the
    /// rows that are not this symbol's). About to answer complete: a use the compiler left unresolved is in no
    /// references answer, so the files holding an occurrence no site covers must have been
    /// type-checked; and each such occurrence in a file that can use the symbol is resolved by
    /// FSAC's definition (a use FSAC's references missed becomes a site, in `sites`).
    async fn judge(
        &self,
        texts: &mut Texts,
        sites: &mut Vec<model::rows::Site>,
        type_errors: &mut type_errors::TypeErrors,
        bounds: &type_errors::SegmentBounds<'_>,
        clock: &mut PhaseClock,
    ) -> Result<(model::verdict::Verdict, unseen::Unseen, slots::SlotRows), CommandError> {
        let Judged { find, placement, resolved, swept, by_position } = *self;
        let slots = slots::settle(find, texts, resolved, swept, sites, by_position).await?;
        qualified::drop_inactive_rows_of_other_symbols(find, texts, resolved, sites);
        if slots.fills_a_slot {
            clock.lap("slotRowsMs");
        }
        let mut unseen = unseen::Unseen::default();
        let mut verdict = ledger::judge(find, resolved, swept, sites, by_position, (type_errors, &unseen, &slots));
        if !verdict.coverage_complete {
            return Ok((verdict, unseen, slots));
        }
        let formed = type_errors::Formed { placement, resolved, swept, sites: sites.as_slice(), segment: *bounds };
        if type_errors.diagnose_unresolved(find, &formed).await? {
            verdict = ledger::judge(find, resolved, swept, sites, by_position, (type_errors, &unseen, &slots));
        }
        clock.lap("typeErrorCheckMs");
        // A type error, or a file whose diagnostics could not be had, already keeps it from
        // being complete: the definitions would not change that.
        if !verdict.coverage_complete {
            return Ok((verdict, unseen, slots));
        }
        unseen = unseen::resolve(find, texts, placement, resolved, swept, sites, (bounds, slots.asked)).await?;
        if unseen.looked {
            clock.lap("unseenOccurrencesMs");
            verdict = ledger::judge(find, resolved, swept, sites, by_position, (type_errors, &unseen, &slots));
        }
        Ok((verdict, unseen, slots))
    }
}

/// The files the find reads: those whose bytes hold a name it looks for (for a qualified name,
/// narrowed to those that can use what it names).
async fn search_candidates(
    arguments: &FindArguments,
    position: Option<&ResolvedPosition>,
    index: &Arc<SyntaxIndex>,
    overlay: &Overlay,
    model: &WorkspaceModel,
) -> Result<candidates::SearchedFiles, CommandError> {
    let names = candidates::query_names(arguments, position);
    let position_file = position.map(|position| position.path.as_path());
    let qualifier = if position.is_none() { narrowing::qualifier_of(arguments) } else { None };
    match qualifier {
        Some(qualifier) => candidates::search_qualified(index, overlay, model.files_to_index(), names, qualifier).await,
        None => candidates::search(index, overlay, model.files_to_index(), names, position_file).await,
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
