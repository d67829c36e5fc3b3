//! Phase 13: the answer without its page, from what the phases established (the ledger's
//! verdict, the stream, the type errors and site types).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::commands::configurations::{configuration_note, loaded_configurations};
use crate::commands::find::model::answer::{
    Completeness, ContextLinesEcho, Coverage, CrossCheck, FindAnswer, FindErrorKind, FindPage, Outcome, Phase, Phases,
    ProjectRow, ProjectStatus, ResolutionSummary, RunEcho, SiteTypesLedger, Status, SymbolSummary,
    TYPE_ERROR_LINES_SHOWN, TotalEstimate, Via,
};
use crate::commands::find::model::arguments::{FindKind, FindScope};
use crate::commands::find::model::budget::BudgetStop;
use crate::commands::find::model::rows::{self, Site};
use crate::commands::find::model::verdict::Verdict;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::{FindRun, PhaseClock};
use crate::commands::find::phases::slots::SlotRows;
use crate::commands::find::phases::stream::Stream;
use crate::commands::find::phases::sweep::Swept;
use crate::commands::find::phases::target::Target;
use crate::commands::find::phases::type_errors::TypeErrors;
use crate::commands::find::phases::unseen::Unseen;
use crate::workspace::WorkspaceModel;

/// At most this many declarations are listed in `resolution.declarations`.
pub const DECLARATIONS_SHOWN: usize = 50;

/// What the phases after the sweep established, for the answer.
pub struct Findings {
    pub resolved: Resolved,
    pub swept: Swept,
    pub sites: Vec<Site>,
    pub site_types: Option<SiteTypesLedger>,
    pub verdict: Verdict,
    /// Where the site budget cut this segment.
    pub budget_stop: Option<BudgetStop>,
    /// The sites are one segment of the stream, not all of it (a resume, or a cut).
    pub segmented: bool,
    /// FSAC's errors on lines holding the name, and the files the find had FSAC analyse.
    pub type_errors: TypeErrors,
    /// The occurrences no site covered, resolved by FSAC's definitions.
    pub unseen: Unseen,
    /// For a query naming an override or an interface implementation: its rows settled.
    pub slots: SlotRows,
}

/// The answer without its page.
pub fn answer_of(
    find: &FindRun,
    run: RunEcho,
    findings: &Findings,
    stream: &Stream,
    clock: PhaseClock,
    started: Instant,
) -> FindAnswer {
    let Findings { resolved, swept, sites, site_types, verdict, budget_stop, segmented, type_errors, unseen, slots } =
        findings;
    let type_error_check = type_errors.check.clone();
    let type_errors = &type_errors.lines;
    let type_errors_shown = type_errors.len().min(TYPE_ERROR_LINES_SHOWN);
    let via_fsac = find.fsac.ready;
    let total = sites.len();
    let scope_note = scope_note(&find.target, &find.model, verdict, find.fsac.ready, &find.fsac.state);
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
                .chain(unseen.missed_rows(resolved, &|path| find.model.display_path(path)))
                .collect(),
            unseen_occurrences: unseen.summary(&|path| find.model.display_path(path)),
            slot_rows: slots.summary(&|path| find.model.display_path(path)),
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
        resolution: resolution_of(find, resolved, verdict, (&stream.declarations, sites)),
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
fn resolution_of(
    find: &FindRun,
    resolved: &Resolved,
    verdict: &Verdict,
    (declarations, sites): (&[Value], &[Site]),
) -> ResolutionSummary {
    let shown = declarations.len().min(DECLARATIONS_SHOWN);
    let cut = shown < declarations.len();
    ResolutionSummary {
        complete: false,
        declarations: declarations[..shown].to_vec(),
        sources: Some(resolved.sources.clone()),
        declaration_count: cut.then_some(declarations.len()),
        declarations_truncated: cut.then_some(true),
        symbols: symbols_of(resolved, sites),
        degraded_files_holding_name: verdict
            .degraded_holders
            .iter()
            .take(20)
            .map(|(path, at)| match at {
                Some(at) => {
                    json!({ "file": find.model.display_path(path), "line": at.line, "character": at.character })
                }
                None => json!({ "file": find.model.display_path(path) }),
            })
            .collect(),
    }
}

/// `resolution.symbols`: each distinct symbol of the resolved declarations once, by the
/// compiler's full name and kind, with the number of sites that name it (at most
/// [`DECLARATIONS_SHOWN`] symbols).
fn symbols_of(resolved: &Resolved, sites: &[Site]) -> Vec<SymbolSummary> {
    let mut symbols: Vec<SymbolSummary> = Vec::new();
    for declaration in &resolved.declared {
        let name = declaration.symbol_full_name();
        let kind = declaration.symbol_kind();
        // A generic type and a module of its name share a full name (`Symbols.Tree` and
        // `module Tree`): their kinds tell them apart.
        let same = |symbol: &SymbolSummary| {
            symbol.symbol_full_name == name
                && (symbol.symbol_kind.is_none() || kind.is_none() || symbol.symbol_kind.as_deref() == kind)
        };
        match symbols.iter().position(same) {
            Some(known) => {
                let symbol = &mut symbols[known];
                symbol.declarations += 1;
                symbol.symbol_kind = symbol.symbol_kind.take().or(kind.map(str::to_owned));
            }
            None if symbols.len() < DECLARATIONS_SHOWN => symbols.push(SymbolSummary {
                symbol_full_name: name.to_owned(),
                symbol_kind: kind.map(str::to_owned),
                declarations: 1,
                sites: 0,
            }),
            None => {}
        }
    }
    let mut by_name: HashMap<(&str, Option<&str>), usize> = HashMap::new();
    for site in sites {
        if let Some(name) = site.symbol_full_name.as_deref() {
            *by_name.entry((name, site.symbol_kind)).or_default() += 1;
        }
    }
    for symbol in &mut symbols {
        let name = symbol.symbol_full_name.as_str();
        symbol.sites = match symbol.symbol_kind.as_deref() {
            Some(kind) => {
                by_name.get(&(name, Some(kind))).copied().unwrap_or(0)
                    + by_name.get(&(name, None)).copied().unwrap_or(0)
            }
            None => by_name.iter().filter(|((named, _), _)| *named == name).map(|(_, count)| count).sum(),
        };
    }
    symbols
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

/// The answer when the deadline passed before the sweep could start.
pub fn timeout_before_sweep(run: RunEcho, target: &Target, model: &WorkspaceModel, started: Instant) -> FindAnswer {
    let requested = target.projects.len();
    let per_project = target
        .projects
        .iter()
        .map(|project| ProjectRow {
            project: model.display_path(project),
            status: ProjectStatus::NotStarted,
            declarations_swept: 0,
            sites: 0,
            reason: Some("the deadline passed before the sweep started".to_owned()),
            remedy: None,
        })
        .collect();
    let scope_note = format!(
        "the deadline of {} ms passed after project discovery ({requested} project(s) requested); resolution and the \
         semantic sweep were not started. Raise timeoutMs.",
        run.timeout_ms
    );
    FindAnswer {
        run,
        error_kind: Some(FindErrorKind::FindTimeout),
        via: Via::None,
        completeness: Completeness::Partial,
        outcome: Outcome::Indeterminate,
        status: Status::Unknown,
        matched: None,
        no_projects: None,
        scope_note,
        configurations: None,
        configuration_note: None,
        coverage: Coverage {
            complete: false,
            projects_requested: requested,
            projects_analyzed: 0,
            projects_timed_out: 0,
            projects_failed: 0,
            projects_busy: 0,
            projects_not_started: requested,
            declarations_requested: None,
            declarations_swept: None,
            phases: Phases { discovery: Phase::Complete, resolution: Phase::NotStarted, sweep: Phase::NotStarted },
        },
        per_project,
        per_project_returned_count: None,
        per_project_total_count: None,
        per_project_truncated: None,
        cross_check: None,
        type_error_lines: None,
        type_error_line_count: None,
        type_error_check: None,
        resolution: ResolutionSummary {
            complete: false,
            declarations: Vec::new(),
            sources: None,
            declaration_count: None,
            declarations_truncated: None,
            symbols: Vec::new(),
            degraded_files_holding_name: Vec::new(),
        },
        files_searched: None,
        total_sites: 0,
        total_estimate: None,
        site_budget: None,
        breakdown: None,
        context_lines: None,
        site_types: None,
        site_types_note: None,
        notes: Vec::new(),
        timings_ms: None,
        work_counts: None,
        elapsed_ms: started.elapsed().as_millis() as u64,
        page: Some(FindPage::before_sweep()),
        recovery: None,
    }
}

/// How many projects were really swept, and how to widen or narrow.
pub fn scope_note(target: &Target, model: &WorkspaceModel, verdict: &Verdict, fsac_ready: bool, state: &str) -> String {
    let (requested, analyzed, failed) = (verdict.requested, verdict.analyzed, &verdict.failed_remedies);
    let count = |status: ProjectStatus| verdict.count(status);
    if !fsac_ready {
        return format!(
            "no project was swept semantically (FSAC is {state}); the files of {requested} project(s) were matched \
             by name. Repeat once FSAC is ready for a complete answer."
        );
    }
    if analyzed < requested {
        let mut note = format!(
            "analyzed {analyzed} of {requested} requested project(s) ({} timed out, {} failed, {} busy, {} not \
             started): more sites may exist.",
            count(ProjectStatus::TimedOut),
            count(ProjectStatus::Failed),
            count(ProjectStatus::Busy),
            count(ProjectStatus::NotStarted)
        );
        // A project FSAC could not load (or never loaded) stays unswept however long the find
        // waits: its remedy is the project's own, and its files' sites are matched by name.
        for (project, remedy) in failed {
            note.push_str(&format!(
                " FSAC never swept {project}, so the sites in its files are matched by name (via syntax): {remedy}."
            ));
        }
        if count(ProjectStatus::TimedOut) + count(ProjectStatus::Busy) + count(ProjectStatus::NotStarted) > 0 {
            note.push_str(" Raise timeoutMs, or narrow with projectPath.");
        } else if failed.is_empty() {
            note.push_str(" Narrow with projectPath.");
        }
        return note;
    }
    let file_part = if target.scope == FindScope::File {
        " Sites are kept only for path (scope=file filters by file, not just by project)."
    } else {
        ""
    };
    if requested == 1 {
        let widen = if target.single_project_target {
            "pass the solution (or nothing) as projectPath with scope=workspace to widen"
        } else {
            "use scope=workspace without projectPath to widen"
        };
        format!(
            "1 project swept ({}); usages in sibling projects are not visible: {widen} (the workspace has {} \
             project(s)).{file_part}",
            target.container,
            model.projects.len()
        )
    } else {
        format!(
            "{requested} projects of {} swept. To sweep just one (faster, but missing cross-project \
             usages), pass its .fsproj as projectPath.{file_part}",
            target.container
        )
    }
}
