//! `fslens.find`: every site of a symbol across every project, with proof of coverage.
//!
//! The query is resolved to declarations (the syntax index, FSAC's `workspace/symbol`, or
//! the compiler's resolution at a position), then FSAC's `textDocument/references` is asked
//! for each declaration through the main loop, under fslens's own request ids, within one
//! monotonic deadline. FSAC searches every loaded project that can see the declaring file
//! (shared/fsac-protocol.md §5.5), so each answer covers those projects; the per-project
//! ledger says which requested projects every relevant declaration was swept for.
//! Definitions, references, record-field sites (classified by the syntax layer into the five
//! `field-*` kinds; the declaring record is the compiler's) and member-usage sites are
//! unioned and de-duplicated by (file, range).
//!
//! While FSAC is absent or still loading, the answer comes from the syntax index alone,
//! labelled `via: "syntax"`, and is never `not_found`.
//!
//! Pages: see [`page`] (stateless v2 cursors, measured 60,000-unit budget).

pub mod arguments;
pub mod page;
pub mod resolve;
pub mod rows;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::paths::confine;
use crate::lsp::message::error_codes;
use crate::session_state::status::StatusSnapshot;
use crate::syntax::Overlay;
use crate::syntax::model::{FieldSiteKind, TextRange};
use crate::workspace::WorkspaceModel;

use crate::lsp::ext::error_kinds;
pub use arguments::{FindArguments, FindCliArgs, FindKind, FindScope};
use page::{FindCursor, PlannedPage, StreamHasher, identity_of, plan_page};
use resolve::{Declared, effective_kind, range_from_json, same_file};
use rows::{Site, SourceLines, site_row, sort_and_deduplicate};

/// At most this much of the budget (5 %, at least 1 ms) is kept for building the answer.
const RESPONSE_ALLOWANCE_CAP: Duration = Duration::from_millis(250);
/// A rendered `siteType` is cut at this many characters (plus `...`).
const SITE_TYPE_MAX_CHARS: usize = 200;
/// At most this many declarations are listed in `resolution.declarations`.
const DECLARATIONS_SHOWN: usize = 50;

/// One declaration's references: how the request ended and the locations FSAC gave.
type SweptDeclaration = (SweepOutcome, Vec<(PathBuf, TextRange)>);

/// How many `textDocument/references` requests of one sweep FSAC is given at once.
const REFERENCES_IN_FLIGHT: usize = 4;

/// How one references request (one declaration) ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum SweepOutcome {
    Analyzed,
    TimedOut,
    Failed(String),
    Busy(String),
    NotStarted,
}

impl SweepOutcome {
    /// Worse outcomes win when a project depends on several declarations.
    fn severity(&self) -> u8 {
        match self {
            SweepOutcome::Analyzed => 0,
            SweepOutcome::NotStarted => 1,
            SweepOutcome::Busy(_) => 2,
            SweepOutcome::TimedOut => 3,
            SweepOutcome::Failed(_) => 4,
        }
    }

    fn as_str(&self) -> &'static str {
        match self {
            SweepOutcome::Analyzed => "analyzed",
            SweepOutcome::TimedOut => "timedOut",
            SweepOutcome::Failed(_) => "failed",
            SweepOutcome::Busy(_) => "busy",
            SweepOutcome::NotStarted => "notStarted",
        }
    }
}

/// Which projects are swept and which sites are kept.
struct Target {
    scope: FindScope,
    /// Requested projects, in project order.
    projects: Vec<PathBuf>,
    /// scope=file: only sites in this file.
    file: Option<PathBuf>,
    /// The solution (or directory) the projects belong to, for the scope note.
    container: String,
    /// An explicit single `.fsproj` target: no scope value can widen it.
    single_project_target: bool,
    normalized_project: Option<String>,
}

/// The position of kind=position, resolved to a column.
struct ResolvedPosition {
    path: PathBuf,
    uri: String,
    line: u32,
    character: u32,
    word: Option<String>,
    text: String,
}

/// The file texts the answer quotes, read once: the editor's buffer first, else the disk.
struct Texts<'a> {
    overlay: &'a Overlay,
    cache: HashMap<PathBuf, Option<(String, SourceLines)>>,
}

impl<'a> Texts<'a> {
    fn new(overlay: &'a Overlay) -> Self {
        Texts { overlay, cache: HashMap::new() }
    }

    fn text(&mut self, path: &Path) -> Option<&(String, SourceLines)> {
        let overlay = self.overlay;
        self.cache
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = match overlay.get(path) {
                    Some(text) => Some(text.to_string()),
                    None => crate::source_files::read_regular_text_lossy(path).ok(),
                }?;
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

pub async fn find(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let arguments = FindArguments::from_json(&argument)?;
    let root = context.workspace_root()?.to_path_buf();
    let timeout = arguments.timeout;
    let deadline = tokio::time::Instant::now() + timeout;
    let allowance = if timeout.is_zero() {
        Duration::ZERO
    } else {
        (timeout / 20).clamp(Duration::from_millis(1), RESPONSE_ALLOWANCE_CAP)
    };
    let sweep_deadline = deadline - allowance;
    // A cursor is checked for shape before any work.
    let cursor = arguments.cursor.as_deref().map(FindCursor::decode).transpose()?;
    let mut timings: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut phase_started = Instant::now();

    let model = crate::commands::load_workspace_model(&root).await?;
    let target = plan_target(&arguments, &model, &root)?;
    let normalized_path = match &arguments.path {
        Some(written) => Some(model.display_path(&confine(&root, written, "path")?)),
        None => None,
    };
    let query_identity =
        identity_of(&arguments.canonical_query(normalized_path.as_deref(), target.normalized_project.as_deref()));

    timings.insert("workspaceMs", elapsed_since(&mut phase_started));
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    let files = model.files_to_index();
    {
        let (index, overlay, files) = (index.clone(), overlay.clone(), files.clone());
        crate::commands::run_blocking(move || {
            index.index_paths(&files, &overlay);
            Ok(())
        })
        .await?;
    }
    let mut texts = Texts::new(&overlay);
    let position = match arguments.kind {
        FindKind::Position => Some(resolve_position(&arguments, &root, &mut texts)?),
        _ => None,
    };

    timings.insert("indexMs", elapsed_since(&mut phase_started));
    let status = context.status().await?;
    let state = status.state.as_str().to_owned();
    let fsac_ready = state == "ready";
    let mut notes: Vec<String> = Vec::new();

    let mut base = json!({
        "tool": "find",
        "query": arguments.query,
        "kind": arguments.kind.as_str(),
        "effectiveKind": effective_kind(&arguments).as_str(),
        "scope": target.scope.as_str(),
        "exact": arguments.exact,
        "timeoutMs": timeout.as_millis() as u64,
        "responseConstructionAllowanceMs": allowance.as_millis() as u64,
        "fsacState": state,
    });
    if let Some(position) = &position {
        base["position"] = json!({
            "path": model.display_path(&position.path),
            "line": position.line,
            "character": position.character,
            "word": position.word,
            "occurrence": arguments.word.as_ref().map(|_| arguments.occurrence),
        });
    }

    // An expired deadline before the sweep: a typed timeout, no invented counts.
    if tokio::time::Instant::now() >= sweep_deadline {
        return Ok(timeout_before_sweep(base, &target, &model, started));
    }

    let in_workspace_set: HashSet<PathBuf> = files.iter().cloned().collect();
    let in_workspace = |path: &Path| in_workspace_set.contains(path);
    let mut resolution_sources = json!({ "syntaxIndex": "answered" });

    // Resolution.
    let mut declared: Vec<Declared> = Vec::new();
    let mut position_anchor: Option<(String, u32, u32)> = None;
    let mut position_name: Option<String> = None;
    if let Some(position) = &position {
        let line_text = texts.text(&position.path).and_then(|(_, lines)| lines.line(position.line)).unwrap_or("");
        position_name = resolve::identifier_at(line_text, position.character).or(position.word.clone());
        if fsac_ready {
            context.acquire_document(&position.uri, position.text.clone()).await?;
            let params = json!({
                "textDocument": { "uri": position.uri },
                "position": { "line": position.line, "character": position.character },
            });
            match context.backend_request("textDocument/definition", params, sweep_deadline).await {
                Ok(Ok(answer)) => {
                    resolution_sources["fsacDefinition"] = json!("answered");
                    let location = if answer.is_array() { answer[0].clone() } else { answer };
                    let uri = location["uri"].as_str().or(location["targetUri"].as_str()).unwrap_or_default();
                    let range = range_from_json(&location["range"])
                        .or_else(|| range_from_json(&location["targetSelectionRange"]));
                    if let (Some(path), Some(range)) = (crate::uri::uri_to_path(uri), range) {
                        declared.push(declaration_at(&index, &path, range, position_name.as_deref()));
                    } else {
                        notes.push(
                            "the compiler has no source declaration for this symbol (external or local); \
                             references are still searched"
                                .to_owned(),
                        );
                    }
                }
                Ok(Err(error)) => resolution_sources["fsacDefinition"] = json!(format!("failed: {}", error.message)),
                Err(CommandError::Timeout) => resolution_sources["fsacDefinition"] = json!("timedOut"),
                Err(error) => return Err(error),
            }
            position_anchor = Some((position.uri.clone(), position.line, position.character));
        } else if let Some(name) = &position_name {
            declared = index
                .find_declarations(name)
                .into_iter()
                .filter(|hit| in_workspace(&hit.path))
                .map(|hit| Declared {
                    full_name: hit.full_name,
                    path: hit.path,
                    name_range: hit.declaration.name_range(),
                    kind: Some(hit.declaration.kind),
                    access: Some(hit.declaration.access),
                    header_bytes: Some(hit.declaration.header_bytes),
                    sources: std::collections::BTreeSet::from(["syntax-index"]),
                })
                .collect();
        }
    } else {
        declared = resolve::syntax_declarations(&index, &files, &arguments);
        if fsac_ready && let Some(symbol_query) = resolve::workspace_symbol_query(&arguments) {
            match context.backend_request("workspace/symbol", json!({ "query": symbol_query }), sweep_deadline).await {
                Ok(Ok(answer)) => {
                    resolution_sources["fsacWorkspaceSymbol"] = json!("answered");
                    resolve::merge_workspace_symbols(&mut declared, &answer, &arguments, &index, &in_workspace);
                }
                Ok(Err(error)) => {
                    resolution_sources["fsacWorkspaceSymbol"] = json!(format!("failed: {}", error.message));
                }
                Err(CommandError::Timeout) => resolution_sources["fsacWorkspaceSymbol"] = json!("timedOut"),
                Err(error) => return Err(error),
            }
        } else if fsac_ready {
            resolution_sources["fsacWorkspaceSymbol"] = json!("notApplicable (substring query)");
        }
    }
    declared.sort_by(|left, right| {
        (&left.full_name, &left.path, left.name_range).cmp(&(&right.full_name, &right.path, right.name_range))
    });
    declared.dedup_by(|later, earlier| later.name_range == earlier.name_range && same_file(&later.path, &earlier.path));
    // A signature (`.fsi`) and its implementation are one symbol: whichever was resolved, the
    // other is added (and swept), by qualified name within one project.
    let same_project = |left: &Path, right: &Path| {
        let compiling_right = model.projects_compiling(right);
        model
            .projects_compiling(left)
            .iter()
            .any(|project| compiling_right.iter().any(|other| other.path == project.path))
    };
    let partners = resolve::signature_partners(&index, &files, &declared, &same_project);
    let partner_count = partners.len();
    declared.extend(partners);

    // The sweep.
    timings.insert("resolutionMs", elapsed_since(&mut phase_started));
    let sweep_references = fsac_ready && effective_kind(&arguments) != FindKind::Definition;
    let mut outcomes: Vec<SweepOutcome> = Vec::new();
    let mut answers: Vec<Vec<(PathBuf, TextRange)>> = Vec::new();
    let mut anchor_outcome = None;
    let mut anchor_answer = Vec::new();
    let mut acquired: HashSet<String> = HashSet::new();
    if sweep_references {
        if let Some((uri, line, character)) = &position_anchor {
            let (mut outcome, mut locations) = references(&context, uri, *line, *character, sweep_deadline).await?;
            // The signature or implementation paired with the resolved declaration is swept
            // too, and counts towards the same outcome.
            for partner in declared.iter().rev().take(partner_count) {
                let (Some(partner_uri), Some((text, _))) =
                    (crate::uri::path_to_uri(&partner.path), texts.text(&partner.path))
                else {
                    outcome = SweepOutcome::Failed("the paired declaration's file cannot be read".to_owned());
                    continue;
                };
                if !acquired.contains(&partner_uri) && partner_uri != *uri {
                    context.acquire_document(&partner_uri, text.clone()).await?;
                    acquired.insert(partner_uri.clone());
                }
                let start = partner.name_range.start;
                let (partner_outcome, partner_locations) =
                    references(&context, &partner_uri, start.line, start.character, sweep_deadline).await?;
                if partner_outcome.severity() > outcome.severity() {
                    outcome = partner_outcome;
                }
                locations.extend(partner_locations);
            }
            anchor_outcome = Some(outcome);
            anchor_answer = locations;
        } else {
            // Every declaring file is opened first (FSAC checks a file when it is opened, so
            // several declarations in one file cost one check; it stays open for the rest of
            // the sweep), then the references requests run side by side, a few at a time.
            let mut swept: Vec<Option<SweptDeclaration>> = vec![None; declared.len()];
            let mut requests = std::collections::VecDeque::new();
            for (slot, declaration) in declared.iter().enumerate() {
                if tokio::time::Instant::now() >= sweep_deadline {
                    swept[slot] = Some((SweepOutcome::NotStarted, Vec::new()));
                    continue;
                }
                let Some(uri) = crate::uri::path_to_uri(&declaration.path) else {
                    swept[slot] = Some((SweepOutcome::Failed("no URI for the declaring file".to_owned()), Vec::new()));
                    continue;
                };
                let Some((text, _)) = texts.text(&declaration.path) else {
                    let reason = "the declaring file cannot be read".to_owned();
                    swept[slot] = Some((SweepOutcome::Failed(reason), Vec::new()));
                    continue;
                };
                if !acquired.contains(&uri) {
                    if let Err(error) = context.acquire_document(&uri, text.clone()).await {
                        swept[slot] = Some((SweepOutcome::Failed(error.to_string()), Vec::new()));
                        continue;
                    }
                    acquired.insert(uri.clone());
                }
                requests.push_back((slot, uri, declaration.name_range.start));
            }
            // Dropping the set (an error, or the command cancelled) aborts what still runs.
            let mut running = tokio::task::JoinSet::new();
            loop {
                while running.len() < REFERENCES_IN_FLIGHT
                    && let Some((slot, uri, start)) = requests.pop_front()
                {
                    if tokio::time::Instant::now() >= sweep_deadline {
                        swept[slot] = Some((SweepOutcome::NotStarted, Vec::new()));
                        continue;
                    }
                    let context = context.clone();
                    running.spawn(async move {
                        (slot, references(&context, &uri, start.line, start.character, sweep_deadline).await)
                    });
                }
                match running.join_next().await {
                    None => break,
                    Some(Ok((slot, result))) => swept[slot] = Some(result?),
                    Some(Err(error)) => {
                        return Err(CommandError::Internal(format!("a references request failed: {error}")));
                    }
                }
            }
            for result in swept {
                let (outcome, locations) = result.unwrap_or((SweepOutcome::NotStarted, Vec::new()));
                outcomes.push(outcome);
                answers.push(locations);
            }
        }
    }

    // Sites.
    let scope_files: Option<HashSet<PathBuf>> = match target.scope {
        FindScope::File => target.file.clone().map(|file| HashSet::from([file])),
        FindScope::Project => Some(
            target
                .projects
                .iter()
                .filter_map(|project| model.project(project))
                .flat_map(|project| project.compile_items.iter().map(|item| item.path.clone()))
                .collect(),
        ),
        _ => None,
    };
    // Paths compare as written first; a symbolic-link spelling is resolved once per site.
    let canonical_scope_files: Option<HashSet<PathBuf>> = scope_files
        .as_ref()
        .map(|files| files.iter().map(|file| file.canonicalize().unwrap_or_else(|_| file.clone())).collect());
    let keep = |path: &Path| match (&scope_files, &canonical_scope_files) {
        (Some(files), Some(canonical)) => {
            files.contains(path) || path.canonicalize().is_ok_and(|resolved| canonical.contains(&resolved))
        }
        _ => true,
    };
    // Which projects compile each file, built once: a site's project is a lookup, not a walk
    // over every project's compile items (that walk made large finds quadratic).
    let compiling_projects = compiling_projects_by_file(&model);
    let targeted: HashSet<&PathBuf> = target.projects.iter().collect();
    let project_of = |path: &Path| -> Option<String> {
        let compiling = compiling_projects.get(path).map(Vec::as_slice).unwrap_or_default();
        compiling
            .iter()
            .find(|project| targeted.contains(project))
            .or(compiling.first())
            .map(|project| model.display_path(project))
    };
    let kind_mode = effective_kind(&arguments);
    let mut sites: Vec<Site> = Vec::new();
    let via_fsac = fsac_ready;
    if via_fsac {
        let classify_fields = kind_mode != FindKind::Symbol;
        let mut add_locations = |declaration: Option<&Declared>,
                                 name: Option<&str>,
                                 locations: &[(PathBuf, TextRange)],
                                 via: &'static str| {
            for (path, range) in locations {
                if !keep(path) {
                    continue;
                }
                // Any resolved declaration at this place makes it a declaration site, whichever
                // declaration's sweep reported it: `signature` in a `.fsi`, else `definition`.
                let declared_here =
                    declared.iter().find(|declared| declared.name_range == *range && same_file(&declared.path, path));
                let kind = if let Some(here) = declared_here {
                    if here.is_signature() { "signature" } else { "definition" }
                } else if let Some(declaration) = declaration.filter(|declaration| declaration.is_field())
                    && classify_fields
                {
                    field_site_kind(&index, path, range, declaration.name()).unwrap_or("field-reference")
                } else if declaration.is_some_and(Declared::is_member) && kind_mode != FindKind::Symbol {
                    "member-usage"
                } else {
                    "reference"
                };
                if kind_mode == FindKind::Field && !kind.starts_with("field") && !is_declaration_kind(kind) {
                    continue;
                }
                sites.push(Site {
                    file: model.display_path(path),
                    range: *range,
                    kind,
                    symbol_full_name: declaration
                        .map(|declaration| declaration.full_name.clone())
                        .or(name.map(str::to_owned)),
                    symbol_candidates: Arc::default(),
                    project: project_of(path),
                    via,
                });
            }
        };
        if position_anchor.is_some() {
            add_locations(declared.first(), position_name.as_deref(), &anchor_answer, "fsac");
        } else {
            for (declaration, locations) in declared.iter().zip(&answers) {
                add_locations(Some(declaration), None, locations, "fsac");
            }
        }
        // Every resolved declaration is a definition site, swept or not; FSAC's answers come
        // first, so a declaration FSAC confirmed keeps `via: "fsac"` after de-duplication.
        for declaration in &declared {
            let via =
                if declaration.sources.iter().any(|source| source.starts_with("fsac")) { "fsac" } else { "syntax" };
            add_locations(Some(declaration), None, &[(declaration.path.clone(), declaration.name_range)], via);
        }
    } else {
        sites =
            syntactic_sites(&index, &files, &declared, kind_mode, &keep, &|path| model.display_path(path), &project_of);
    }
    if !arguments.include_declaration {
        sites.retain(|site| !is_declaration_kind(site.kind));
    }
    sort_and_deduplicate(&mut sites);

    // Site types: the field's type at each field site, from FSAC's hover.
    let mut site_types: Option<(Vec<Option<String>>, Value)> = None;
    if arguments.include_site_types {
        site_types = Some(resolve_site_types(&context, &sites, &root, &mut texts, fsac_ready, sweep_deadline).await?);
    }

    for uri in &acquired {
        context.release_document(uri);
    }
    timings.insert("sweepMs", elapsed_since(&mut phase_started));

    // The ledger.
    let record = SweepRecord {
        fsac_ready,
        swept: sweep_references,
        state: &state,
        declared: &declared,
        outcomes: &outcomes,
        anchor: anchor_outcome.as_ref(),
    };
    let (per_project, counts) = project_ledger(&record, &target, &model, &sites, &status);
    let requested = target.projects.len();
    let analyzed = counts.get("analyzed").copied().unwrap_or(0);
    // No project at all: nothing was searched, so nothing can be `not_found` or complete.
    let no_projects = crate::commands::no_projects(&model);
    let swept_complete = fsac_ready && analyzed == requested && no_projects.is_none();
    // The cross-check: FSAC's sets must contain every declaration the syntax index sees.
    let missed: Vec<usize> = if swept_complete && sweep_references {
        let mut all: Vec<&[(PathBuf, TextRange)]> = answers.iter().map(Vec::as_slice).collect();
        all.push(&anchor_answer);
        missed_by_backend(&declared, &all)
    } else {
        Vec::new()
    };
    let coverage_complete = swept_complete && missed.is_empty();
    if !missed.is_empty() {
        notes.push(format!(
            "FSAC's references miss {} declaration(s) the syntax index sees for this qualified name (listed in \
             crossCheck.missedByBackend), so the answer is not complete",
            missed.len()
        ));
    }
    let resolution_answered = !fsac_ready
        || position.is_some()
        || resolution_sources.get("fsacWorkspaceSymbol").is_none_or(|value| {
            value == "answered" || value.as_str().is_some_and(|text| text.starts_with("notApplicable"))
        });
    let total = sites.len();
    let (outcome, status_text, matched) = if total > 0 {
        ("found", if coverage_complete { "ok" } else { "partial" }, json!(true))
    } else if no_projects.is_some() {
        ("indeterminate", "unknown", Value::Null)
    } else if coverage_complete && resolution_answered {
        ("not_found", "ok", json!(false))
    } else {
        ("indeterminate", "unknown", Value::Null)
    };
    if !fsac_ready {
        notes.push(format!(
            "FSAC is {state}, so this answer is syntactic: sites match by name only and a site of a same-named \
             symbol may be listed (symbolFullName is null where the name is ambiguous). It is certain once FSAC \
             has loaded the workspace: wait with fslens.status {{\"waitUntil\": \"ready\"}} and repeat the request."
        ));
    }
    if declared.is_empty() && position.is_none() {
        notes.push("no declaration matched the query".to_owned());
    }

    // Rows, identities and the page.
    let declarations_json: Vec<Value> = declared
        .iter()
        .map(|declaration| {
            let text =
                if arguments.include_info { texts.text(&declaration.path).map(|(text, _)| text.clone()) } else { None };
            declaration.to_json(&|path| model.display_path(path), arguments.include_info, text.as_deref())
        })
        .collect();
    let ledger_identity = json!({ "perProject": per_project, "declarations": declarations_json, "via": if via_fsac { "fsac" } else { "syntax" } });
    // Every row is built once, in order, and hashed into the stream identity, but only the
    // rows of the requested page are kept: memory is bounded by the page, not the answer.
    // Sites are sorted by file, so each file's text is read once and dropped after its rows.
    let context_lines = arguments.context_lines_applied();
    let window_start = cursor.as_ref().map_or(0, |cursor| cursor.offset);
    let window_end = window_start.saturating_add(arguments.max_results.max(1));
    let mut stream_hasher = StreamHasher::new();
    stream_hasher.add(&ledger_identity);
    let mut site_rows = Vec::with_capacity(window_end.saturating_sub(window_start).min(sites.len()));
    let mut previous_file: Option<PathBuf> = None;
    for (number, site) in sites.iter().enumerate() {
        let path = resolve_display(&root, &site.file);
        if let Some(previous) = previous_file.take_if(|previous| *previous != path) {
            texts.forget(&previous);
        }
        let lines = texts.text(&path).map(|(_, lines)| lines);
        let mut row = site_row(site, lines, context_lines);
        // A file linked into several projects: the others that compile it.
        let others: Vec<String> = compiling_projects
            .get(&path)
            .into_iter()
            .flatten()
            .map(|project| model.display_path(project))
            .filter(|project| site.project.as_deref() != Some(project.as_str()))
            .collect();
        if !others.is_empty() {
            row["alsoCompiledBy"] = json!(others);
        }
        if let Some((types, _)) = &site_types
            && site.kind.starts_with("field-")
        {
            row["siteType"] = json!(types.get(number).cloned().flatten());
        }
        stream_hasher.add(&row);
        if (window_start..window_end).contains(&number) {
            site_rows.push(row);
        }
        previous_file = Some(path);
    }
    let stream = stream_hasher.finish();
    let offset = match &cursor {
        None => 0,
        Some(cursor) => {
            if !coverage_complete && fsac_ready {
                return Err(CommandError::typed(
                    error_kinds::FIND_CURSOR_VALIDATION_INCOMPLETE,
                    error_codes::INVALID_PARAMS,
                    "the sweep did not complete in time, so the cursor could not be validated; retry the same cursor \
                     (with a larger timeoutMs)",
                    json!({ "argument": "cursor", "retrySameCursor": true, "paginationRestartRequired": false }),
                ));
            }
            cursor.validate(&query_identity, &stream, total)?
        }
    };

    let mut breakdown: BTreeMap<&str, usize> = BTreeMap::new();
    for site in &sites {
        *breakdown.entry(site.kind).or_default() += 1;
    }
    base["via"] = json!(if via_fsac { "fsac" } else { "syntax" });
    base["completeness"] =
        json!(if via_fsac { if coverage_complete { "complete" } else { "partial" } } else { "syntactic" });
    base["outcome"] = json!(outcome);
    base["status"] = json!(status_text);
    if let Some(reason) = no_projects {
        base["errorKind"] = reason["errorKind"].clone();
        base["noProjects"] = reason;
    }
    base["matched"] = matched;
    base["scopeNote"] = json!(scope_note(&target, &model, requested, analyzed, &counts, fsac_ready, &state));
    base["coverage"] = json!({
        "complete": coverage_complete,
        "projectsRequested": requested,
        "projectsAnalyzed": analyzed,
        "projectsTimedOut": counts.get("timedOut").copied().unwrap_or(0),
        "projectsFailed": counts.get("failed").copied().unwrap_or(0),
        "projectsBusy": counts.get("busy").copied().unwrap_or(0),
        "projectsNotStarted": counts.get("notStarted").copied().unwrap_or(0),
        "declarationsRequested": if position_anchor.is_some() { 1 } else { declared.len() },
        "declarationsSwept": if position_anchor.is_some() {
            usize::from(anchor_outcome == Some(SweepOutcome::Analyzed))
        } else {
            outcomes.iter().filter(|outcome| **outcome == SweepOutcome::Analyzed).count()
        },
        "phases": {
            "discovery": "complete",
            "resolution": if resolution_answered { "complete" } else { "partial" },
            "sweep": if !fsac_ready { "not_started" } else if !sweep_references { "not_needed" }
                     else if coverage_complete { "complete" } else { "partial" },
        },
    });
    base["perProject"] = json!(per_project);
    if sweep_references && swept_complete {
        base["crossCheck"] = json!({
            "source": "syntax-index",
            "missedByBackend": missed
                .iter()
                .map(|slot| declared[*slot].to_json(&|path| model.display_path(path), false, None))
                .collect::<Vec<_>>(),
        });
    }
    // The answer lists the first declarations (the cursor's identity covers all of them): a
    // name declared in every file must not make the page's metadata larger than any page.
    let shown_declarations = &declarations_json[..declarations_json.len().min(DECLARATIONS_SHOWN)];
    base["resolution"] = json!({
        "complete": false,
        "declarations": shown_declarations,
        "sources": resolution_sources,
    });
    if shown_declarations.len() < declarations_json.len() {
        base["resolution"]["declarationCount"] = json!(declarations_json.len());
        base["resolution"]["declarationsTruncated"] = json!(true);
    }
    base["totalSites"] = json!(total);
    base["totalEstimate"] = json!({ "sites": total, "isLowerBound": !coverage_complete });
    base["breakdown"] = json!(breakdown);
    base["contextLinesRequested"] = json!(arguments.context_lines_requested);
    base["contextLinesApplied"] = json!(context_lines);
    base["contextLinesTruncated"] = json!(arguments.context_lines_requested > context_lines);
    if let Some((_, ledger)) = &site_types {
        base["siteTypes"] = ledger.clone();
        base["siteTypesNote"] =
            json!(if matches!(kind_mode, FindKind::Definition | FindKind::Symbol | FindKind::Members)
                && !sites.iter().any(|site| site.kind.starts_with("field-"))
            {
                "includeSiteTypes annotates field sites only, and this kind produced none.".to_owned()
            } else {
                "siteType is the field's type as the current typecheck resolves it at that site (FSAC hover), the \
             'before' half of an edit: it never predicts the type after a change. Edit, then run fslens.check. \
             Generic record fields show their type parameter, not the instantiation."
                    .to_owned()
            });
    }
    if !notes.is_empty() {
        base["notes"] = json!(notes);
    }
    timings.insert("rowsMs", elapsed_since(&mut phase_started));
    base["timingsMs"] = json!(timings);
    base["elapsedMs"] = json!(started.elapsed().as_millis() as u64);

    let incomplete_initial = !coverage_complete && fsac_ready;
    let cursor_for = |next: usize| {
        FindCursor { offset: next, query_identity: query_identity.clone(), stream_identity: stream.clone() }.encode()
    };
    let fill = |answer: &mut Value, page: &[Value], count: usize| {
        let next = offset + count;
        let more = next < total;
        answer["sites"] = json!(page);
        answer["pageOffset"] = json!(offset);
        answer["returnedSites"] = json!(count);
        answer["cursorAdvancedBy"] = json!(count);
        answer["truncated"] = json!(more);
        answer["resultSetComplete"] = json!(offset == 0 && !more && !incomplete_initial);
        answer["resolution"]["complete"] = json!(offset == 0 && !more);
        answer["deliveryStatus"] = json!(if more || incomplete_initial { "partial" } else { "complete" });
        if more && !incomplete_initial {
            answer["nextCursor"] = json!(cursor_for(next));
            answer["truncatedBy"] = json!(if count >= arguments.max_results { "maxResults" } else { "responseBudget" });
        } else {
            answer["nextCursor"] = Value::Null;
        }
        if incomplete_initial && total > 0 {
            answer["paginationRestartRequired"] = json!(more);
            answer["retrySameCursor"] = json!(false);
            answer["paginationIncompleteReason"] = json!("deadline_incomplete");
        }
    };
    // The kept rows start at the cursor's offset (validated above to be `offset`).
    match plan_page(&base, &site_rows, 0, arguments.max_results, arguments.response_char_budget, &fill) {
        PlannedPage::Delivered(answer) => Ok(answer),
        PlannedPage::SiteTooLarge(mut answer) => {
            answer["status"] = json!("aborted");
            answer["deliveryStatus"] = json!("blocked");
            answer["errorKind"] = json!(error_kinds::FIND_SITE_EXCEEDS_RESPONSE_BUDGET);
            answer["cursorAdvancedBy"] = json!(0);
            answer["nextCursor"] = Value::Null;
            answer["recovery"] = json!({
                "sameCursorRetry": { "allowed": false },
                "recipe": "restart without a cursor with fewer contextLines or a larger responseCharBudget, or narrow the query, scope or projectPath",
            });
            Ok(answer)
        }
    }
}

/// The kinds of a declaration's own site: `definition`, and `signature` in a `.fsi`.
fn is_declaration_kind(kind: &str) -> bool {
    kind == "definition" || kind == "signature"
}

/// The declarations the syntax index resolved for this symbol (signatures and
/// implementations) that none of FSAC's references answers contains: a `complete` answer must
/// contain every one, so each missing one makes the answer partial and is named in it.
fn missed_by_backend(declared: &[Declared], answers: &[&[(PathBuf, TextRange)]]) -> Vec<usize> {
    declared
        .iter()
        .enumerate()
        .filter(|(_, declaration)| declaration.sources.contains("syntax-index"))
        .filter(|(_, declaration)| {
            !answers.iter().any(|answer| {
                answer
                    .iter()
                    .any(|(path, range)| *range == declaration.name_range && same_file(path, &declaration.path))
            })
        })
        .map(|(slot, _)| slot)
        .collect()
}

/// What the sweep did, as the ledger needs it.
struct SweepRecord<'a> {
    fsac_ready: bool,
    /// References were asked (FSAC ready and the kind needs them).
    swept: bool,
    state: &'a str,
    declared: &'a [Declared],
    /// One outcome per declaration, in order.
    outcomes: &'a [SweepOutcome],
    /// kind=position: the one references request at the position.
    anchor: Option<&'a SweepOutcome>,
}

/// The per-project ledger: a requested project is analyzed when every declaration it can see
/// was swept (or none is visible from it); otherwise the worst outcome among those it can
/// see. FSAC's project load errors make a project `failed`.
/// The projects that compile each file, in project order (a file linked into several
/// projects lists each of them once).
fn compiling_projects_by_file(model: &WorkspaceModel) -> HashMap<PathBuf, Vec<PathBuf>> {
    let mut by_file: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    for project_path in &model.project_order {
        let Some(project) = model.project(project_path) else { continue };
        for item in &project.compile_items {
            let projects = by_file.entry(item.path.clone()).or_default();
            if !projects.contains(project_path) {
                projects.push(project_path.clone());
            }
        }
    }
    by_file
}

fn project_ledger(
    record: &SweepRecord<'_>,
    target: &Target,
    model: &WorkspaceModel,
    sites: &[Site],
    status: &StatusSnapshot,
) -> (Vec<Value>, BTreeMap<&'static str, usize>) {
    let project_errors: Vec<(String, String)> =
        status.project_errors.iter().map(|error| (error.project.clone(), error.message.clone())).collect();
    let mut per_project = Vec::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    // Sites per project, counted in one pass (not one pass over the sites per project).
    let mut sites_per_project: HashMap<&str, usize> = HashMap::new();
    for site in sites {
        if let Some(project) = site.project.as_deref() {
            *sites_per_project.entry(project).or_default() += 1;
        }
    }
    for project in &target.projects {
        let display = model.display_path(project);
        let load_error = project_errors
            .iter()
            .find(|(errored, _)| Path::new(errored) == project || errored.ends_with(&display))
            .map(|(_, message)| message.clone());
        let (outcome, relevant) = if !record.fsac_ready {
            (SweepOutcome::NotStarted, 0)
        } else if let Some(message) = load_error {
            (SweepOutcome::Failed(format!("FSAC could not load the project: {message}")), 0)
        } else if !record.swept {
            (SweepOutcome::Analyzed, 0)
        } else if let Some(outcome) = record.anchor {
            (outcome.clone(), 1)
        } else {
            let mut worst = SweepOutcome::Analyzed;
            let mut relevant = 0;
            for (declaration, outcome) in record.declared.iter().zip(record.outcomes) {
                if projects_seeing(model, &declaration.path).contains(project) {
                    relevant += 1;
                    if outcome.severity() > worst.severity() {
                        worst = outcome.clone();
                    }
                }
            }
            (worst, relevant)
        };
        *counts.entry(outcome.as_str()).or_default() += 1;
        let project_sites = sites_per_project.get(display.as_str()).copied().unwrap_or(0);
        let mut row = json!({
            "project": display,
            "status": outcome.as_str(),
            "declarationsSwept": relevant,
            "sites": project_sites,
        });
        match &outcome {
            SweepOutcome::Failed(reason) | SweepOutcome::Busy(reason) => row["reason"] = json!(reason),
            SweepOutcome::NotStarted if !record.fsac_ready => {
                row["reason"] = json!(format!("FSAC is {}: answered from the syntax layer", record.state))
            }
            SweepOutcome::NotStarted => row["reason"] = json!("the deadline passed before this project's turn"),
            SweepOutcome::TimedOut => row["reason"] = json!("FSAC did not answer before the deadline"),
            SweepOutcome::Analyzed if record.swept && relevant == 0 && record.anchor.is_none() => {
                row["reason"] = json!("no resolved declaration is visible from this project, so it cannot use one")
            }
            SweepOutcome::Analyzed => {}
        }
        per_project.push(row);
    }
    (per_project, counts)
}

/// Milliseconds since `*since`, which moves to now.
fn elapsed_since(since: &mut Instant) -> u64 {
    let now = Instant::now();
    let elapsed = now.duration_since(*since).as_millis() as u64;
    *since = now;
    elapsed
}

/// The absolute path of a row's `file` (workspace-relative unless outside the root).
fn resolve_display(root: &Path, file: &str) -> PathBuf {
    let path = Path::new(file);
    if path.is_absolute() { path.to_path_buf() } else { crate::workspace::paths::normalize_lexically(&root.join(path)) }
}

/// One references request at a position, its outcome and its locations.
async fn references(
    context: &CommandContext,
    uri: &str,
    line: u32,
    character: u32,
    deadline: tokio::time::Instant,
) -> Result<SweptDeclaration, CommandError> {
    let params = json!({
        "textDocument": { "uri": uri },
        "position": { "line": line, "character": character },
        "context": { "includeDeclaration": true },
    });
    match context.backend_request("textDocument/references", params, deadline).await {
        Ok(Ok(answer)) => {
            let locations = answer
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|location| {
                    let path = crate::uri::uri_to_path(location["uri"].as_str()?)?;
                    Some((path, range_from_json(&location["range"])?))
                })
                .collect();
            Ok((SweepOutcome::Analyzed, locations))
        }
        // FSAC cancelled it itself (content modified, server busy): worth a retry.
        Ok(Err(error))
            if matches!(
                error.code,
                error_codes::REQUEST_CANCELLED | error_codes::CONTENT_MODIFIED | error_codes::SERVER_CANCELLED
            ) =>
        {
            Ok((SweepOutcome::Busy(error.message), Vec::new()))
        }
        Ok(Err(error)) => Ok((SweepOutcome::Failed(error.message), Vec::new())),
        Err(CommandError::Timeout) => Ok((SweepOutcome::TimedOut, Vec::new())),
        Err(CommandError::Unavailable(reason)) => Ok((SweepOutcome::Failed(reason), Vec::new())),
        Err(error) => Err(error),
    }
}

/// The declaration the compiler pointed at: the syntax index's entry at that place when it
/// has one (for the full name and kind), else the bare location.
fn declaration_at(index: &crate::syntax::SyntaxIndex, path: &Path, range: TextRange, name: Option<&str>) -> Declared {
    let from_index = index.file(path).and_then(|file| {
        file.index
            .declarations
            .iter()
            .enumerate()
            .find(|(_, declaration)| declaration.name_range() == range || declaration.name_start == range.start)
            .map(|(slot, declaration)| (index.full_name(&file.index, slot), declaration.clone()))
    });
    match from_index {
        Some((full_name, declaration)) => Declared {
            full_name,
            path: path.to_path_buf(),
            name_range: declaration.name_range(),
            kind: Some(declaration.kind),
            access: Some(declaration.access),
            header_bytes: Some(declaration.header_bytes),
            sources: std::collections::BTreeSet::from(["fsac-definition", "syntax-index"]),
        },
        None => Declared {
            full_name: name.unwrap_or("").to_owned(),
            path: path.to_path_buf(),
            name_range: range,
            kind: None,
            access: None,
            header_bytes: None,
            sources: std::collections::BTreeSet::from(["fsac-definition"]),
        },
    }
}

/// The syntax layer's field-site kind at `range` in `path`, for a field called `name`.
fn field_site_kind(
    index: &crate::syntax::SyntaxIndex,
    path: &Path,
    range: &TextRange,
    name: &str,
) -> Option<&'static str> {
    let file = index.file(path)?;
    let id = index.interner().lookup(name)?;
    file.index
        .field_sites
        .iter()
        .find(|site| site.field == id && site.start == range.start)
        .map(|site| site.kind.as_str())
}

/// The requested projects that can see `path`: those compiling it and, transitively,
/// those referencing them (the projects FSAC searches, §5.5).
fn projects_seeing(model: &WorkspaceModel, path: &Path) -> HashSet<PathBuf> {
    let mut seeing: HashSet<PathBuf> =
        model.projects_compiling(path).iter().map(|project| project.path.clone()).collect();
    loop {
        let before = seeing.len();
        for project in &model.projects {
            if !seeing.contains(&project.path)
                && project.project_references.iter().any(|reference| seeing.contains(reference))
            {
                seeing.insert(project.path.clone());
            }
        }
        if seeing.len() == before {
            return seeing;
        }
    }
}

/// Syntactic sites while FSAC cannot answer: the resolved declarations, then every
/// identifier occurrence (or field site) with the same name, attributed to a declaration
/// only when the name is unambiguous in the workspace.
fn syntactic_sites(
    index: &crate::syntax::SyntaxIndex,
    files: &[PathBuf],
    declared: &[Declared],
    kind_mode: FindKind,
    keep: &dyn Fn(&Path) -> bool,
    display: &dyn Fn(&Path) -> String,
    project_of: &dyn Fn(&Path) -> Option<String>,
) -> Vec<Site> {
    let in_files: HashSet<&PathBuf> = files.iter().collect();
    let mut sites = Vec::new();
    for declaration in declared {
        if keep(&declaration.path) {
            sites.push(Site {
                file: display(&declaration.path),
                range: declaration.name_range,
                kind: if declaration.is_signature() { "signature" } else { "definition" },
                symbol_full_name: Some(declaration.full_name.clone()),
                symbol_candidates: Arc::default(),
                project: project_of(&declaration.path),
                via: "syntax",
            });
        }
    }
    if kind_mode == FindKind::Definition {
        return sites;
    }
    let names: std::collections::BTreeSet<&str> = declared.iter().map(Declared::name).collect();
    for name in names {
        let all_same_named: Vec<_> =
            index.find_declarations(name).into_iter().filter(|hit| in_files.contains(&hit.path)).collect();
        let declaration_places: HashSet<(PathBuf, TextRange)> =
            all_same_named.iter().map(|hit| (hit.path.clone(), hit.declaration.name_range())).collect();
        let mut candidates: Vec<String> = all_same_named.iter().map(|hit| hit.full_name.clone()).collect();
        candidates.sort();
        candidates.dedup();
        // One shared list per name: every site of an ambiguous name points at it.
        let (symbol, symbol_candidates) = if candidates.len() == 1 {
            (Some(candidates[0].clone()), Arc::default())
        } else {
            (None, Arc::new(candidates.clone()))
        };
        let is_field = declared.iter().any(|declaration| declaration.name() == name && declaration.is_field());
        let is_member = declared.iter().any(|declaration| declaration.name() == name && declaration.is_member());
        let field_kinds: HashMap<(PathBuf, u32, u32), FieldSiteKind> = if is_field {
            index
                .find_field_sites(name)
                .into_iter()
                .map(|hit| ((hit.path, hit.site.start.line, hit.site.start.character), hit.site.kind))
                .collect()
        } else {
            HashMap::new()
        };
        for hit in index.find_occurrences(name) {
            if !in_files.contains(&hit.path) || !keep(&hit.path) {
                continue;
            }
            let length = hit.length;
            let range = TextRange {
                start: hit.position,
                end: crate::syntax::model::Position {
                    line: hit.position.line,
                    character: hit.position.character + length,
                },
            };
            if declaration_places.contains(&(hit.path.clone(), range)) {
                continue; // a declaration: listed above when it was resolved
            }
            let field_kind = field_kinds.get(&(hit.path.clone(), hit.position.line, hit.position.character));
            let kind = match (field_kind, kind_mode) {
                (Some(kind), mode) if mode != FindKind::Symbol => kind.as_str(),
                (None, FindKind::Field) => continue,
                _ if is_member && kind_mode != FindKind::Symbol => "member-usage",
                _ => "reference",
            };
            sites.push(Site {
                file: display(&hit.path),
                range,
                kind,
                symbol_full_name: symbol.clone(),
                symbol_candidates: symbol_candidates.clone(),
                project: project_of(&hit.path),
                via: "syntax",
            });
        }
    }
    sites
}

/// `siteType` for every field site (the whole set, so the ledger holds across pages):
/// FSAC's hover at the site, its signature's type after the first `: `.
async fn resolve_site_types(
    context: &CommandContext,
    sites: &[Site],
    root: &Path,
    texts: &mut Texts<'_>,
    fsac_ready: bool,
    deadline: tokio::time::Instant,
) -> Result<(Vec<Option<String>>, Value), CommandError> {
    let mut types = vec![None; sites.len()];
    let (mut field_sites, mut typed, mut unresolved, mut timed_out) = (0usize, 0usize, 0usize, 0usize);
    let mut acquired: HashSet<String> = HashSet::new();
    for (number, site) in sites.iter().enumerate() {
        if !site.kind.starts_with("field-") {
            continue;
        }
        field_sites += 1;
        if !fsac_ready {
            unresolved += 1;
            continue;
        }
        if tokio::time::Instant::now() >= deadline {
            timed_out += 1;
            continue;
        }
        let path = resolve_display(root, &site.file);
        let Some(uri) = crate::uri::path_to_uri(&path) else {
            unresolved += 1;
            continue;
        };
        if !acquired.contains(&uri) {
            let Some((text, _)) = texts.text(&path) else {
                unresolved += 1;
                continue;
            };
            context.acquire_document(&uri, text.clone()).await?;
            acquired.insert(uri.clone());
        }
        let params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": site.range.start.line, "character": site.range.start.character },
        });
        match context.backend_request("textDocument/hover", params, deadline).await {
            Ok(Ok(answer)) => match site_type_from_hover(&answer) {
                Some(found) => {
                    types[number] = Some(found);
                    typed += 1;
                }
                None => unresolved += 1,
            },
            Ok(Err(_)) => unresolved += 1,
            Err(CommandError::Timeout) => timed_out += 1,
            Err(CommandError::Unavailable(_)) => unresolved += 1,
            Err(error) => return Err(error),
        }
    }
    for uri in acquired {
        context.release_document(&uri);
    }
    let ledger = json!({
        "requested": true,
        "fieldSites": field_sites,
        "typed": typed,
        "degraded": unresolved + timed_out,
        "degradedUnresolved": unresolved,
        "degradedTimedOut": timed_out,
        // FSAC types a file in one project context only (see siteTypeContext), so whether
        // another project types a site differently is unknown, not zero; and with no
        // alternatives there is nothing to truncate.
        "typedDifferentlyByAnotherProject": null,
        "alternativesTruncatedRows": 0,
    });
    Ok((types, ledger))
}

/// `Shipment.Weight: float` → `float` (first line of the first code block).
fn site_type_from_hover(answer: &Value) -> Option<String> {
    let contents = &answer["contents"];
    let signature = match contents {
        Value::Array(items) => items.first().and_then(|item| item["value"].as_str().or(item.as_str())),
        Value::Object(_) => contents["value"].as_str(),
        Value::String(text) => Some(text.as_str()),
        _ => None,
    }?;
    let first_line = signature.lines().find(|line| !line.trim().is_empty() && !line.starts_with("```"))?;
    let (_, type_text) = first_line.split_once(':')?;
    let type_text = type_text.trim();
    if type_text.is_empty() {
        return None;
    }
    Some(if type_text.chars().count() > SITE_TYPE_MAX_CHARS {
        format!("{}...", type_text.chars().take(SITE_TYPE_MAX_CHARS).collect::<String>())
    } else {
        type_text.to_owned()
    })
}

fn plan_target(arguments: &FindArguments, model: &WorkspaceModel, root: &Path) -> Result<Target, CommandError> {
    let all_projects = || model.project_order.clone();
    let workspace_name = || {
        model
            .solutions
            .first()
            .map(|solution| model.display_path(&solution.path))
            .unwrap_or_else(|| "the workspace directory".to_owned())
    };
    let written_project = arguments.project_path.as_deref();
    // A solution projectPath: its member projects.
    let (solution_projects, explicit_project) = match written_project {
        None => (None, None),
        Some(written) if crate::commands::paths::names_a_solution(written) => {
            let path = confine(root, written, "projectPath")?;
            let solution =
                model.solutions.iter().find(|solution| same_file(&solution.path, &path)).ok_or_else(|| {
                    CommandError::InvalidPath {
                        path: written.to_owned(),
                        message: "no such solution in the workspace".into(),
                    }
                })?;
            let members: Vec<PathBuf> = model
                .project_order
                .iter()
                .filter(|project| solution.projects.iter().any(|member| same_file(member, project)))
                .cloned()
                .collect();
            (Some((members, model.display_path(&solution.path))), None)
        }
        Some(written) => {
            (None, Some(crate::commands::paths::project_by_name_or_path(model, root, written)?.path.clone()))
        }
    };
    let file = match &arguments.path {
        Some(written) if arguments.scope == FindScope::File || arguments.kind != FindKind::Position => {
            Some(confine(root, written, "path")?)
        }
        _ => None,
    };
    let scope = match arguments.scope {
        FindScope::Auto if explicit_project.is_some() => FindScope::Project,
        FindScope::Auto => FindScope::Workspace,
        scope => scope,
    };
    let normalized_project = explicit_project
        .as_ref()
        .map(|path| model.display_path(path))
        .or(solution_projects.as_ref().map(|(_, name)| name.clone()));
    let single = |project: PathBuf, explicit: bool| Target {
        scope,
        container: model.display_path(&project),
        projects: vec![project],
        file: file.clone(),
        single_project_target: explicit,
        normalized_project: normalized_project.clone(),
    };
    Ok(match scope {
        FindScope::Workspace | FindScope::Auto => match (explicit_project.clone(), solution_projects) {
            (Some(project), _) => single(project, true),
            (None, Some((members, name))) => Target {
                scope,
                projects: members,
                file: None,
                container: name,
                single_project_target: false,
                normalized_project: normalized_project.clone(),
            },
            (None, None) => Target {
                scope,
                projects: all_projects(),
                file: None,
                container: workspace_name(),
                single_project_target: false,
                normalized_project: None,
            },
        },
        FindScope::Project => match explicit_project.clone() {
            Some(project) => single(project, true),
            None => {
                let candidates: Vec<PathBuf> = match &file {
                    Some(path) => model.projects_compiling(path).iter().map(|project| project.path.clone()).collect(),
                    None => all_projects(),
                };
                match candidates.as_slice() {
                    [only] => single(only.clone(), false),
                    _ => {
                        return Err(CommandError::invalid_argument(
                            "projectPath",
                            format!(
                                "scope project needs one project: pass projectPath (an .fsproj) or a path compiled by \
                                 exactly one project ({} candidates)",
                                candidates.len()
                            ),
                        ));
                    }
                }
            }
        },
        FindScope::File => {
            let Some(path) = file.clone() else {
                return Err(CommandError::invalid_argument("path", "scope file needs a path"));
            };
            let mut projects: Vec<PathBuf> =
                model.projects_compiling(&path).iter().map(|project| project.path.clone()).collect();
            if let Some(project) = &explicit_project {
                projects.retain(|candidate| candidate == project);
            }
            Target {
                scope,
                container: model.display_path(&path),
                projects,
                file: Some(path),
                single_project_target: explicit_project.is_some(),
                normalized_project: normalized_project.clone(),
            }
        }
    })
}

fn resolve_position(
    arguments: &FindArguments,
    root: &Path,
    texts: &mut Texts<'_>,
) -> Result<ResolvedPosition, CommandError> {
    let written = arguments.path.as_deref().unwrap_or_default();
    let path = confine(root, written, "path")?;
    let (text, lines) = texts.text(&path).ok_or_else(|| CommandError::InvalidPath {
        path: written.to_owned(),
        message: "cannot read the file".into(),
    })?;
    let line_number = arguments.line.unwrap_or(0);
    let line = lines.line(line_number).ok_or_else(|| {
        CommandError::invalid_argument("line", format!("the file has {} lines (0-based)", lines.line_count()))
    })?;
    let character = match (&arguments.word, arguments.character) {
        (Some(word), _) => resolve::word_column(line, word, arguments.occurrence).ok_or_else(|| {
            CommandError::invalid_argument(
                "word",
                format!("occurrence {} of {word:?} is not on line {line_number}", arguments.occurrence),
            )
        })?,
        (None, Some(character)) => {
            let length = line.encode_utf16().count() as u32;
            if character > length {
                return Err(CommandError::invalid_argument(
                    "character",
                    format!("line {line_number} has {length} UTF-16 units"),
                ));
            }
            character
        }
        (None, None) => return Err(CommandError::invalid_argument("word", "word or character is required")),
    };
    let uri = crate::uri::path_to_uri(&path)
        .ok_or_else(|| CommandError::InvalidPath { path: written.to_owned(), message: "cannot make a URI".into() })?;
    Ok(ResolvedPosition { path, uri, line: line_number, character, word: arguments.word.clone(), text: text.clone() })
}

fn scope_note(
    target: &Target,
    model: &WorkspaceModel,
    requested: usize,
    analyzed: usize,
    counts: &BTreeMap<&'static str, usize>,
    fsac_ready: bool,
    state: &str,
) -> String {
    let count = |key: &str| counts.get(key).copied().unwrap_or(0);
    if !fsac_ready {
        return format!(
            "no project was swept semantically (FSAC is {state}); the files of {requested} project(s) were matched \
             by name. Repeat once FSAC is ready for a complete answer."
        );
    }
    if analyzed < requested {
        return format!(
            "analyzed {analyzed} of {requested} requested project(s) ({} timed out, {} failed, {} busy, {} not \
             started): more sites may exist. Raise timeoutMs, or narrow with projectPath.",
            count("timedOut"),
            count("failed"),
            count("busy"),
            count("notStarted")
        );
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
            "{requested} member projects of {} swept. To sweep just one (faster, but missing cross-project \
             usages), pass its .fsproj as projectPath.{file_part}",
            target.container
        )
    }
}

/// The answer when the deadline passed before the sweep could start.
fn timeout_before_sweep(mut base: Value, target: &Target, model: &WorkspaceModel, started: Instant) -> Value {
    let per_project: Vec<Value> = target
        .projects
        .iter()
        .map(|project| {
            json!({
                "project": model.display_path(project),
                "status": "notStarted",
                "declarationsSwept": 0,
                "sites": 0,
                "reason": "the deadline passed before the sweep started",
            })
        })
        .collect();
    base["errorKind"] = json!(error_kinds::FIND_TIMEOUT);
    base["via"] = json!("none");
    base["completeness"] = json!("partial");
    base["outcome"] = json!("indeterminate");
    base["status"] = json!("unknown");
    base["matched"] = Value::Null;
    base["scopeNote"] = json!(format!(
        "the deadline of {} ms passed after project discovery ({} project(s) requested); resolution and the \
         semantic sweep were not started. Raise timeoutMs.",
        base["timeoutMs"],
        target.projects.len()
    ));
    base["coverage"] = json!({
        "complete": false,
        "projectsRequested": target.projects.len(),
        "projectsAnalyzed": 0,
        "projectsTimedOut": 0,
        "projectsFailed": 0,
        "projectsBusy": 0,
        "projectsNotStarted": target.projects.len(),
        "phases": { "discovery": "complete", "resolution": "not_started", "sweep": "not_started" },
    });
    base["perProject"] = json!(per_project);
    base["resolution"] = json!({ "complete": false, "declarations": [] });
    base["sites"] = json!([]);
    base["totalSites"] = json!(0);
    base["returnedSites"] = json!(0);
    base["cursorAdvancedBy"] = json!(0);
    base["nextCursor"] = Value::Null;
    base["resultSetComplete"] = json!(false);
    base["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
    base
}

/// A readable summary of a `fslens.find` answer, for `fslens find` without `--json`.
pub fn render_text(answer: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![format!(
        "{} ({}, via {}): {} site(s), coverage {}/{} project(s)",
        text(&answer["outcome"]),
        text(&answer["status"]),
        text(&answer["via"]),
        text(&answer["totalSites"]),
        text(&answer["coverage"]["projectsAnalyzed"]),
        text(&answer["coverage"]["projectsRequested"]),
    )];
    if let Some(reason) = answer["noProjects"]["message"].as_str() {
        lines.push(format!("no_projects: {reason}"));
    }
    for site in answer["sites"].as_array().into_iter().flatten() {
        lines.push(format!(
            "{}:{}:{}  {:<20} {}  {}",
            text(&site["file"]),
            site["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
            site["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
            text(&site["kind"]),
            symbol_of(site),
            site["lineText"].as_str().unwrap_or("").trim(),
        ));
    }
    lines.extend(page_omissions(answer));
    lines.join("\n")
}

/// A site's symbol for text: its full name, or, for a syntactic site whose name several
/// declarations share, the candidates; `?` marks a site matched by name only.
pub fn symbol_of(site: &Value) -> String {
    let name = match site["symbolFullName"].as_str() {
        Some(name) => name.to_owned(),
        None => {
            let candidates: Vec<&str> =
                site["symbolCandidates"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            if candidates.is_empty() { "?".to_owned() } else { format!("one of {}", candidates.join(" | ")) }
        }
    };
    if site["certain"] == json!(false) { format!("{name} (by name)") } else { name }
}

/// The lines of a text rendering that say what a find (or fieldImpact) page leaves out: the
/// sites after it and why the page was cut, projects not analysed, the scope note, notes, and
/// how to continue. The `--json` answer carries the same in its fields.
pub fn page_omissions(answer: &Value) -> Vec<String> {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = Vec::new();
    let shown = answer["pageOffset"].as_u64().unwrap_or(0) + answer["returnedSites"].as_u64().unwrap_or(0);
    let left = answer["totalSites"].as_u64().unwrap_or(0).saturating_sub(shown);
    if left > 0 {
        let by = match answer["truncatedBy"].as_str() {
            Some("maxResults") => " (cut at --max-results)",
            Some("responseBudget") => " (cut by the response budget, --response-char-budget)",
            _ => "",
        };
        lines.push(format!("… {left} more site(s){by}"));
    }
    if answer["perProjectTruncated"] == json!(true) {
        lines.push("per-project detail was reduced to fit the budget (--json shows what is left)".to_owned());
    }
    for project in answer["perProject"].as_array().into_iter().flatten() {
        if project["status"] != json!("analyzed") {
            lines.push(format!(
                "project {} {}: {}",
                text(&project["project"]),
                text(&project["status"]),
                project["reason"].as_str().unwrap_or("")
            ));
        }
    }
    if let Some(recovery) = answer["recovery"].as_str() {
        lines.push(format!("recovery: {recovery}"));
    } else if !answer["recovery"].is_null() {
        lines.push(format!("recovery: {}", answer["recovery"]));
    }
    if let Some(note) = answer["scopeNote"].as_str() {
        lines.push(format!("scope: {note}"));
    }
    for note in answer["notes"].as_array().into_iter().flatten() {
        lines.push(format!("note: {}", text(note)));
    }
    if let Some(cursor) = answer["nextCursor"].as_str() {
        lines.push(format!("more: --cursor {cursor}"));
    } else if answer["paginationRestartRequired"] == json!(true) {
        lines.push(format!(
            "no cursor: {} (repeat with a larger --timeout-ms)",
            answer["paginationIncompleteReason"].as_str().unwrap_or("the sweep did not complete")
        ));
    }
    lines
}
