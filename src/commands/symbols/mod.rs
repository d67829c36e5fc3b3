//! `fslens.symbolSearch`, `fslens.readSymbol` and `fslens.readEnclosing`: the syntax-only
//! discovery tools. `symbolSearch` ranks files for identifiers ([`search`], [`terms`]) from a
//! workspace index built in the background ([`warmup`]); `readSymbol` and `readEnclosing`
//! return one declaration's verbatim source ([`read`]). Every answer is labelled
//! `via: "syntax"` and `completeness: "syntactic"`; none needs FSAC.

pub mod cli;
pub mod read;
pub mod search;
pub mod terms;
pub mod warmup;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_integer, optional_string, reject_unknown};
use crate::commands::budget::{
    MIN_PAGE_CHAR_BUDGET, RESPONSE_CHAR_BUDGET, cursor_digest, decode_cursor, encode_cursor, serialized_utf16_len,
};
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

/// The validated arguments of `fslens.symbolSearch`.
#[derive(Clone, Debug)]
pub struct SearchArguments {
    pub query: String,
    pub terms: Vec<QueryTerm>,
    pub max_results: usize,
    pub lines_per_file: usize,
    pub cursor: Option<String>,
    pub response_char_budget: usize,
    pub wait_for_index: Duration,
}

const SEARCH_ARGUMENTS: &[&str] =
    &["query", "maxResults", "linesPerFile", "cursor", "responseCharBudget", "waitForIndexMs"];

impl SearchArguments {
    pub fn from_json(argument: &Value) -> Result<SearchArguments, CommandError> {
        let object = object_of(argument)?;
        reject_unknown(object, SEARCH_ARGUMENTS)?;
        let query = optional_string(object, "query")?
            .ok_or_else(|| CommandError::invalid_argument("query", "required: one or more identifiers"))?;
        let terms = terms::parse_query(&query)?;
        Ok(SearchArguments {
            query,
            terms,
            max_results: optional_integer(object, "maxResults", 1, 200)?.unwrap_or(20) as usize,
            lines_per_file: optional_integer(object, "linesPerFile", 0, 10)?.unwrap_or(3) as usize,
            cursor: optional_string(object, "cursor")?,
            response_char_budget: optional_integer(
                object,
                "responseCharBudget",
                MIN_PAGE_CHAR_BUDGET,
                RESPONSE_CHAR_BUDGET as u64,
            )?
            .unwrap_or(RESPONSE_CHAR_BUDGET as u64) as usize,
            wait_for_index: wait_argument(object)?,
        })
    }

    fn query_identity(&self) -> Value {
        let terms: Vec<&str> = self.terms.iter().map(|term| term.text.as_str()).collect();
        json!({
            "tool": "symbolSearch",
            "terms": terms,
            "maxResults": self.max_results,
            "linesPerFile": self.lines_per_file,
            "responseCharBudget": self.response_char_budget,
        })
    }
}

/// `waitForIndexMs`: how long a call may wait for the first index build (default 0).
fn wait_argument(object: &Map<String, Value>) -> Result<Duration, CommandError> {
    Ok(Duration::from_millis(optional_integer(object, "waitForIndexMs", 0, 600_000)?.unwrap_or(0)))
}

/// Every declaration kind, for the `kinds` filters.
pub const ALL_KINDS: &[DeclarationKind] = &[
    DeclarationKind::Namespace,
    DeclarationKind::Module,
    DeclarationKind::Record,
    DeclarationKind::Union,
    DeclarationKind::Class,
    DeclarationKind::Interface,
    DeclarationKind::Enum,
    DeclarationKind::Delegate,
    DeclarationKind::Abbreviation,
    DeclarationKind::TypeExtension,
    DeclarationKind::Exception,
    DeclarationKind::RecordField,
    DeclarationKind::UnionCase,
    DeclarationKind::UnionField,
    DeclarationKind::EnumCase,
    DeclarationKind::Member,
    DeclarationKind::AbstractMember,
    DeclarationKind::Override,
    DeclarationKind::Constructor,
    DeclarationKind::AutoProperty,
    DeclarationKind::Let,
    DeclarationKind::Val,
];

/// The `kinds` argument: declaration kind names (`record`, `member`, `let`, …) or `type` for
/// every type kind; absent means every kind.
pub fn kinds_argument(object: &Map<String, Value>) -> Result<Option<Vec<DeclarationKind>>, CommandError> {
    let items = match object.get("kinds") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(CommandError::invalid_argument(
                "kinds",
                format!("expected an array of kind names, got {other}"),
            ));
        }
    };
    let known = || {
        let mut names: Vec<&str> = ALL_KINDS.iter().map(|kind| kind.as_str()).collect();
        names.push("type");
        names.join(", ")
    };
    let mut kinds = Vec::new();
    for item in items {
        let Some(name) = item.as_str() else {
            return Err(CommandError::invalid_argument("kinds", format!("expected kind names, got {item}")));
        };
        if name == "type" {
            kinds.extend(ALL_KINDS.iter().copied().filter(|kind| kind.is_type()));
            continue;
        }
        match ALL_KINDS.iter().find(|kind| kind.as_str() == name) {
            Some(kind) => kinds.push(*kind),
            None => {
                return Err(CommandError::invalid_argument(
                    "kinds",
                    format!("unknown kind {name:?}; known: {}", known()),
                ));
            }
        }
    }
    if kinds.is_empty() {
        return Err(CommandError::invalid_argument("kinds", "give at least one kind, or leave it out for every kind"));
    }
    Ok(Some(kinds))
}

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

/// The `available: false` answer while the first build runs.
pub fn unavailable(tool: &str, warm: &WarmWorkspace) -> Value {
    let (elapsed, files) = match warm.phase() {
        BuildPhase::Building { started, files } => (started.elapsed().as_millis() as u64, files),
        _ => (0, None),
    };
    let files_text = files.map(|count| format!(" ({count} files)")).unwrap_or_default();
    json!({
        "tool": tool,
        "via": "syntax",
        // Nothing was searched: no answer here is even syntactically complete.
        "completeness": "none",
        "available": false,
        "reason": format!("the workspace syntax index is still being built{files_text}; nothing was searched yet"),
        "retryAfterMs": RETRY_AFTER_MS,
        "hint": "call again after retryAfterMs, or pass waitForIndexMs to wait for the build",
        "index": { "state": "building", "elapsedMs": elapsed, "files": files },
    })
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
pub fn index_facts(index: &SyntaxIndex, warm: &WarmWorkspace, ready: &ReadyWorkspace) -> Value {
    let totals = index.totals();
    json!({
        "state": "ready",
        "generation": index.generation(),
        "filesIndexed": index.file_count(),
        "filesDegraded": totals.degraded,
        "filesUnparsed": totals.timed_out + totals.failed,
        "workspaceFiles": ready.files.len(),
        "indexedAgoMs": ready.built_at.elapsed().as_millis() as u64,
        "lastBuildMs": ready.build_time.as_millis() as u64,
        "refreshing": warm.refreshing(),
    })
}

/// `fslens.symbolSearch` in a session.
pub async fn symbol_search(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let arguments = SearchArguments::from_json(&argument)?;
    let root = context.workspace_root()?.to_path_buf();
    let index = context.syntax_index();
    let (warm, ready) = ready_workspace(&index, &context.warm_workspaces(), &root, arguments.wait_for_index).await?;
    let Some(ready) = ready else { return Ok(unavailable("symbolSearch", &warm)) };
    let overlay = context.editor_buffers().await?;
    crate::commands::run_blocking(move || {
        apply_editor_buffers(&index, &root, &overlay);
        let mut answer = search_answer(&index, &warm.tables, &ready, &arguments, &overlay)?;
        answer["index"] = index_facts(&index, &warm, &ready);
        answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
        Ok(answer)
    })
    .await
}

/// The ranked page for `arguments` over a built index: the part of `fslens.symbolSearch`
/// that needs no session (the benchmark calls it directly).
pub fn search_answer(
    index: &SyntaxIndex,
    tables: &std::sync::Mutex<SearchTables>,
    ready: &ReadyWorkspace,
    arguments: &SearchArguments,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    let model = &ready.model;
    let relative = |path: &Path| model.display_path(path);
    let mut tables = tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    tables.refresh(index, overlay);
    let ranked = search::rank(&tables, index, &arguments.terms, &relative);
    let generation = tables.generation();
    drop(tables);

    let mut stream = Sha256::new();
    for file in &ranked {
        stream.update(file.path.as_os_str().as_encoded_bytes());
        stream.update(file.score.to_bits().to_le_bytes());
    }
    let digest = cursor_digest(&arguments.query_identity(), &crate::syntax::cache::to_hex(&stream.finalize()[..8]));
    let offset = match &arguments.cursor {
        Some(cursor) => decode_cursor(cursor, &digest)?,
        None => 0,
    };
    if offset > ranked.len() {
        return Err(CommandError::invalid_argument(
            "cursor",
            format!("offset {offset} is past the {} files", ranked.len()),
        ));
    }
    let mut results = Vec::new();
    let mut used = 0usize;
    let mut next = offset;
    let mut closed_by_budget = false;
    while next < ranked.len() && results.len() < arguments.max_results {
        let row = result_row(index, &ranked[next], arguments, overlay, &relative, ready);
        let size = serialized_utf16_len(&row) + 1;
        if !results.is_empty() && used + size > arguments.response_char_budget {
            closed_by_budget = true;
            break;
        }
        used += size;
        results.push(row);
        next += 1;
    }
    let truncated = next < ranked.len();
    let term_summaries: Vec<Value> = arguments
        .terms
        .iter()
        .enumerate()
        .map(|(number, term)| {
            let files = ranked.iter().filter(|file| file.terms.iter().any(|hit| hit.term == number)).count();
            json!({ "term": term.text, "words": term.words, "files": files })
        })
        .collect();
    Ok(json!({
        "tool": "symbolSearch",
        "via": "syntax",
        "completeness": "syntactic",
        "available": true,
        "query": arguments.query,
        "terms": term_summaries,
        "results": results,
        "returned": next - offset,
        "offset": offset,
        "totalFiles": ranked.len(),
        "truncated": truncated,
        "truncatedByBudget": truncated && closed_by_budget,
        "nextCursor": truncated.then(|| encode_cursor(next, &digest)),
        "tablesGeneration": generation,
        "scoring": "BM25 over identifier counts (k1 1.2, b 0.75) + declaration bonus, times priors test 0.5, generated 0.3, vendored 0.3",
    }))
}

fn result_row(
    index: &SyntaxIndex,
    file: &RankedFile,
    arguments: &SearchArguments,
    overlay: &Overlay,
    relative: &dyn Fn(&Path) -> String,
    ready: &ReadyWorkspace,
) -> Value {
    let declarations = &file.file.index.declarations;
    let matching = file.matching_declarations();
    let declares: Vec<Value> = matching
        .iter()
        .take(DECLARATIONS_PER_FILE)
        .filter_map(|&slot| {
            let declaration = declarations.get(slot)?;
            Some(json!({
                "name": &*index.name(declaration.name),
                "fullName": index.full_name(&file.file.index, slot),
                "kind": declaration.kind.as_str(),
                "line": declaration.name_start.line,
            }))
        })
        .collect();
    let terms: Vec<Value> = file
        .terms
        .iter()
        .map(|hit| {
            let names: Vec<Value> = hit
                .names
                .iter()
                .map(
                    |name| json!({ "name": &*index.name(name.name), "match": name.kind.as_str(), "count": name.count }),
                )
                .collect();
            json!({
                "term": arguments.terms.get(hit.term).map(|term| term.text.as_str()).unwrap_or_default(),
                "count": hit.occurrences,
                "names": names,
            })
        })
        .collect();
    let projects: &[String] = ready.projects_by_file.get(&file.path).map(Vec::as_slice).unwrap_or(&[]);
    let mut row = json!({
        "path": relative(&file.path),
        "score": (file.score * 1000.0).round() / 1000.0,
        "scoreParts": {
            "bm25": (file.bm25 * 1000.0).round() / 1000.0,
            "declarationBonus": (file.declaration_bonus * 1000.0).round() / 1000.0,
            "prior": file.priors.iter().map(|prior| prior.factor()).product::<f64>(),
        },
        "priors": file.priors.iter().map(|prior| prior.as_str()).collect::<Vec<_>>(),
        "projects": projects,
        "terms": terms,
        "declares": declares,
        "declaresOmitted": matching.len().saturating_sub(DECLARATIONS_PER_FILE),
    });
    if arguments.lines_per_file > 0 {
        row["lines"] = best_lines(&file.file, file, &matching, arguments.lines_per_file, overlay);
    }
    if file.file.from_overlay {
        row["fromEditorBuffer"] = json!(true);
    }
    row
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
    use std::io::BufRead;
    let file = std::fs::File::open(&indexed.path).ok()?;
    if file.metadata().ok()?.len() != u64::from(indexed.index.bytes) {
        return None;
    }
    let mut reader = std::io::BufReader::new(file);
    let mut buffer = Vec::new();
    for number in 0..=last as usize {
        buffer.clear();
        // Lines before the last wanted one are skipped without decoding them.
        if reader.read_until(b'\n', &mut buffer).ok()? == 0 {
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
fn best_lines(indexed: &IndexedFile, file: &RankedFile, matching: &[usize], limit: usize, overlay: &Overlay) -> Value {
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
        .map(|(line, declaration)| {
            let mut entry = json!({ "line": line, "declaration": declaration });
            if let Some(text) = texts.as_ref().and_then(|texts| texts.get(&line)) {
                entry["text"] = json!(text);
            }
            entry
        })
        .collect()
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn search_input_schema() -> Option<serde_json::Value> {
    None
}
