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
//! degraded file's entities say `certain: false` rather than being presented as exact.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
use crate::commands::arguments::{optional_bool, optional_integer, optional_string};
use crate::commands::budget::{
    MIN_PAGE_CHAR_BUDGET, RESPONSE_CHAR_BUDGET, RESPONSE_HARD_CEILING, cursor_digest, decode_cursor, encode_cursor,
    paginate, serialized_utf16_len,
};
use crate::syntax::index::IndexedFile;
use crate::syntax::model::{Access, DeclarationKind, FileIndex, HealthStatus, NO_PARENT};
use crate::syntax::{IndexOptions, Overlay, SyntaxIndex, render_signature};
use crate::workspace::{WorkspaceModel, load_workspace};

/// Longest rendered signature, in characters.
const SIGNATURE_MAX_CHARS: usize = 240;
/// At most this many error regions and mis-parse findings are listed per file.
const HEALTH_DETAIL_LIMIT: usize = 20;

/// Which outline to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutlineView {
    File,
    Project,
    PublicApi,
}

impl OutlineView {
    fn as_str(self) -> &'static str {
        match self {
            OutlineView::File => "file",
            OutlineView::Project => "project",
            OutlineView::PublicApi => "publicApi",
        }
    }
}

/// The validated arguments of `fslens.outline`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlineArguments {
    pub view: OutlineView,
    pub path: Option<String>,
    pub project: Option<String>,
    pub summary_only: bool,
    pub max_results: usize,
    pub cursor: Option<String>,
    pub offset: Option<usize>,
    pub namespace_filter: Option<String>,
    pub include_internal: bool,
    pub response_char_budget: usize,
}

const KNOWN_ARGUMENTS: &[&str] = &[
    "view",
    "path",
    "project",
    "summaryOnly",
    "maxResults",
    "cursor",
    "offset",
    "namespaceFilter",
    "includeInternal",
    "responseCharBudget",
];

impl OutlineArguments {
    /// Validates the JSON argument object; every failure names the argument.
    pub fn from_json(arguments: &Value) -> Result<OutlineArguments, CommandError> {
        let empty = Map::new();
        let object = match arguments {
            Value::Object(object) => object,
            Value::Null => &empty,
            _ => {
                return Err(CommandError::invalid_argument("arguments", "expected one JSON object"));
            }
        };
        for key in object.keys() {
            if !KNOWN_ARGUMENTS.contains(&key.as_str()) {
                return Err(CommandError::invalid_argument(
                    key,
                    format!("unknown argument; known: {}", KNOWN_ARGUMENTS.join(", ")),
                ));
            }
        }
        let path = optional_string(object, "path")?;
        let project = optional_string(object, "project")?;
        let view = match optional_string(object, "view")?.as_deref() {
            None if path.is_some() => OutlineView::File,
            None => OutlineView::Project,
            Some("file") => OutlineView::File,
            Some("project") => OutlineView::Project,
            Some("publicApi") => OutlineView::PublicApi,
            Some(other) => {
                return Err(CommandError::invalid_argument(
                    "view",
                    format!("`{other}` is not one of file, project, publicApi"),
                ));
            }
        };
        if view == OutlineView::File && path.is_none() {
            return Err(CommandError::invalid_argument("path", "required for view `file`"));
        }
        let default_max = if view == OutlineView::PublicApi { 100 } else { 200 };
        let max_results =
            optional_integer(object, "maxResults", 1, 1000)?.map(|value| value as usize).unwrap_or(default_max);
        let response_char_budget =
            optional_integer(object, "responseCharBudget", MIN_PAGE_CHAR_BUDGET, RESPONSE_CHAR_BUDGET as u64)?
                .map(|value| value as usize)
                .unwrap_or(RESPONSE_CHAR_BUDGET);
        let cursor = optional_string(object, "cursor")?;
        let offset = optional_integer(object, "offset", 0, u32::MAX as u64)?.map(|value| value as usize);
        if cursor.is_some() && offset.is_some() {
            return Err(CommandError::invalid_argument("offset", "give either `cursor` or `offset`, not both"));
        }
        Ok(OutlineArguments {
            view,
            path,
            project,
            summary_only: optional_bool(object, "summaryOnly")?.unwrap_or(true),
            max_results,
            cursor,
            offset,
            namespace_filter: optional_string(object, "namespaceFilter")?.filter(|filter| !filter.is_empty()),
            include_internal: optional_bool(object, "includeInternal")?.unwrap_or(false),
            response_char_budget,
        })
    }

    /// Everything that identifies the query, for cursor binding: all arguments but the
    /// position in the stream.
    fn query_identity(&self) -> Value {
        json!({
            "view": self.view.as_str(),
            "path": self.path,
            "project": self.project,
            "summaryOnly": self.summary_only,
            "maxResults": self.max_results,
            "namespaceFilter": self.namespace_filter,
            "includeInternal": self.include_internal,
            "responseCharBudget": self.response_char_budget,
        })
    }
}

/// `fslens.outline` over a workspace root: loads the project model, indexes what the view
/// needs (using the on-disk cache from the environment) and answers.
pub fn outline(root: &Path, arguments: &Value, overlay: &Overlay) -> Result<Value, CommandError> {
    let parsed = OutlineArguments::from_json(arguments)?;
    let model = load_workspace(root).map_err(|error| CommandError::InvalidPath {
        path: root.display().to_string(),
        message: format!("{error:#}"),
    })?;
    let index = SyntaxIndex::new(IndexOptions::default());
    outline_with_index(&index, &model, &parsed, overlay)
}

/// `fslens.outline` against an index the caller keeps (the proxy's long-lived one). Files
/// the view needs are refreshed first; unchanged files cost a hash each.
pub fn outline_with_index(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    match arguments.view {
        OutlineView::File => file_outline(index, model, arguments, overlay),
        OutlineView::Project => project_outline(index, model, arguments, overlay),
        OutlineView::PublicApi => public_api(index, model, arguments, overlay),
    }
}

/// The path an argument names, as the workspace model spells paths (joined to its root), once
/// it is known to stay inside the workspace, symbolic links followed; else `invalid_path`.
fn resolve_argument_path(model: &WorkspaceModel, written: &str, argument: &str) -> Result<PathBuf, CommandError> {
    crate::commands::paths::confine(&model.root, written, argument)?;
    let path = Path::new(written);
    let joined = if path.is_absolute() { path.to_path_buf() } else { model.root.join(path) };
    Ok(crate::workspace::paths::normalize_lexically(&joined))
}

fn starting_offset(arguments: &OutlineArguments, digest: &str, total: usize) -> Result<usize, CommandError> {
    let offset = match (&arguments.cursor, arguments.offset) {
        (Some(cursor), _) => decode_cursor(cursor, digest)?,
        (None, Some(offset)) => offset,
        (None, None) => 0,
    };
    if offset > total {
        let argument = if arguments.cursor.is_some() { "cursor" } else { "offset" };
        return Err(CommandError::invalid_argument(argument, format!("offset {offset} is past the {total} entities")));
    }
    Ok(offset)
}

fn stream_identity(entities: &[Value]) -> String {
    let mut hasher = Sha256::new();
    for entity in entities {
        hasher.update(serde_json::to_string(entity).unwrap_or_default().as_bytes());
        hasher.update([0]);
    }
    crate::syntax::cache::to_hex(&hasher.finalize()[..8])
}

fn health_json(file: &FileIndex) -> Value {
    let health = &file.health;
    let mut value = json!({
        "status": health.status.as_str(),
        "rootIsError": health.root_is_error,
        "errorRegionCount": health.error_regions.len(),
        "misparseCount": health.misparses.len(),
    });
    if !health.error_regions.is_empty() {
        value["errorRegions"] =
            health.error_regions.iter().take(HEALTH_DETAIL_LIMIT).map(|range| range.to_json()).collect();
    }
    if !health.misparses.is_empty() {
        value["misparses"] = health
            .misparses
            .iter()
            .take(HEALTH_DETAIL_LIMIT)
            .map(|finding| json!({ "indicator": finding.indicator.as_str(), "range": finding.range.to_json() }))
            .collect();
    }
    if let Some(detail) = &health.detail {
        value["detail"] = json!(detail);
    }
    value
}

/// The text the index was built from, re-read and checked against the content hash.
fn text_for(index: &SyntaxIndex, path: &Path, overlay: &Overlay) -> Option<(std::sync::Arc<IndexedFile>, String)> {
    for _ in 0..2 {
        let file = index.file(path)?;
        let text = match overlay.get(path) {
            Some(text) => text.to_string(),
            None => crate::source_files::read_regular_text_lossy(path).ok()?,
        };
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

fn access_text(access: Access) -> &'static str {
    match access {
        Access::Default | Access::Public => "public",
        Access::Internal => "internal",
        Access::Private => "private",
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

/// The outline entities of one file: one per container (namespace, module, type) and an
/// implicit module for top-level declarations outside any container (scripts).
fn file_entities(
    index: &SyntaxIndex,
    file: &FileIndex,
    text: Option<&str>,
    full: bool,
    implicit_name: &str,
) -> Vec<Value> {
    let containers = nearest_containers(file);
    let degraded = file.health.status != HealthStatus::Clean;
    let mut members_of: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (slot, declaration) in file.declarations.iter().enumerate() {
        if !declaration.kind.is_container() {
            members_of.entry(containers[slot]).or_default().push(slot);
        }
    }
    let member_json = |slot: usize| -> Value {
        let declaration = &file.declarations[slot];
        let mut member = json!({
            "name": &*index.name(declaration.name),
            "kind": declaration.kind.as_str(),
            "access": access_text(declaration.access),
            "range": declaration.range.to_json(),
        });
        if let Some(signature) = signature_for(text, file, slot) {
            member["signature"] = json!(signature);
        }
        if !declaration.certain {
            member["certain"] = json!(false);
        }
        member
    };
    let entity = |slot: Option<usize>, members: &[usize]| -> Value {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for member in members {
            *counts.entry(file.declarations[*member].kind.as_str()).or_default() += 1;
        }
        let mut value = match slot {
            Some(slot) => {
                let declaration = &file.declarations[slot];
                json!({
                    "name": &*index.name(declaration.name),
                    "kind": declaration.kind.as_str(),
                    "fullName": index.full_name(file, slot),
                    "access": access_text(declaration.access),
                    "range": declaration.range.to_json(),
                    "memberCounts": counts,
                    "certain": declaration.certain && !file.health.root_is_error,
                })
            }
            None => json!({
                "name": implicit_name,
                "kind": "module",
                "fullName": implicit_name,
                "implicit": true,
                "access": "public",
                "memberCounts": counts,
                "certain": !file.health.root_is_error,
            }),
        };
        if full {
            if let Some(signature) = slot.and_then(|slot| signature_for(text, file, slot)) {
                value["signature"] = json!(signature);
            }
            value["members"] = members.iter().map(|member| member_json(*member)).collect();
        }
        if degraded && value["certain"] == json!(true) {
            // The file has errors or suspected mis-parses: say so on every entity.
            value["fileDegraded"] = json!(true);
        }
        value
    };
    let mut entities = Vec::new();
    if let Some(top_level) = members_of.get(&NO_PARENT) {
        entities.push(entity(None, top_level));
    }
    for (slot, declaration) in file.declarations.iter().enumerate() {
        if declaration.kind.is_container() {
            let members = members_of.get(&(slot as u32)).map(Vec::as_slice).unwrap_or(&[]);
            entities.push(entity(Some(slot), members));
        }
    }
    entities
}

fn implicit_module_name(path: &Path) -> String {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let mut characters = stem.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => stem,
    }
}

/// Applies pagination, the final size ceiling and the common fields.
struct Paged {
    response: Value,
}

fn page_response(
    mut response: Value,
    arguments: &OutlineArguments,
    entities: &[Value],
    digest: &str,
    offset: usize,
    hint_for_remainder: impl Fn(usize) -> Option<String>,
) -> Paged {
    let page = paginate(entities, offset, arguments.max_results, arguments.response_char_budget);
    let mut entries = page.entries;
    let mut truncated = page.truncated;
    let mut truncated_by_budget = page.truncated_by_budget;
    let mut next_offset = page.next_offset;
    response["count"] = json!(entities.len().min(arguments.max_results));
    response["totalEntities"] = json!(entities.len());
    response["offset"] = json!(offset);
    // Final guard: the assembled response, envelope included, must stay under the ceiling.
    let mut response_truncated = false;
    loop {
        response["entries"] = Value::Array(entries.clone());
        if serialized_utf16_len(&response) <= RESPONSE_HARD_CEILING || entries.len() <= 1 {
            break;
        }
        entries.pop();
        response_truncated = true;
        truncated = true;
        truncated_by_budget = true;
        next_offset = Some(offset + entries.len());
    }
    response["returnedEntryCount"] = json!(entries.len());
    response["truncated"] = json!(truncated);
    if truncated_by_budget {
        response["truncatedByBudget"] = json!(true);
    }
    if response_truncated {
        response["responseTruncatedByBudget"] = json!(true);
    }
    if let Some(next) = next_offset {
        response["nextCursor"] = json!(encode_cursor(next, digest));
        if let Some(hint) = hint_for_remainder(next) {
            response["hint"] = json!(hint);
        }
    }
    Paged { response }
}

fn file_outline(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    let written = arguments.path.as_deref().unwrap_or("");
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
    index.refresh_path(&path, overlay);
    let (file, text) = text_for(index, &path, overlay).ok_or_else(|| CommandError::InvalidPath {
        path: written.to_owned(),
        message: "the file could not be read".to_owned(),
    })?;
    let implicit = implicit_module_name(&path);
    let summary_entities = file_entities(index, &file.index, Some(&text), false, &implicit);
    let mut entities = summary_entities.clone();
    let mut downgraded = false;
    if !arguments.summary_only {
        let full_entities = file_entities(index, &file.index, Some(&text), true, &implicit);
        let preliminary_offset = arguments.offset.unwrap_or(0).min(full_entities.len());
        let window_size: usize = full_entities
            .iter()
            .skip(preliminary_offset)
            .take(arguments.max_results)
            .map(|entity| serialized_utf16_len(entity) + 1)
            .sum();
        if window_size > arguments.response_char_budget {
            downgraded = true;
        } else {
            entities = full_entities;
        }
    }
    let mut member_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for declaration in &file.index.declarations {
        *member_counts.entry(declaration.kind.as_str()).or_default() += 1;
    }
    let digest = cursor_digest(&arguments.query_identity(), &crate::syntax::cache::to_hex(&file.index.content_sha256));
    let offset = starting_offset(arguments, &digest, entities.len())?;
    let mut response = json!({
        "via": "syntax",
        "view": "file",
        "completeness": "syntactic",
        "path": model.display_path(&path),
        "grammar": file.index.grammar.as_str(),
        "fromUnsavedBuffer": file.from_overlay,
        "health": health_json(&file.index),
        "lines": file.index.lines,
        "summaryOnly": arguments.summary_only,
        "memberCounts": member_counts,
        "projects": model.projects_compiling(&path).iter().map(|project| model.display_path(&project.path)).collect::<Vec<_>>(),
    });
    if downgraded {
        response["downgradedToSummary"] = json!(true);
        response["downgradeHint"] = json!(format!(
            "full entries for this page would exceed the {}-unit response budget; returned headers only. Lower maxResults (now {}) to get full signatures in pages.",
            arguments.response_char_budget, arguments.max_results
        ));
    }
    let paged = page_response(response, arguments, &entities, &digest, offset, |_| {
        Some("more entities remain: call again with nextCursor, or lower the page size with maxResults".to_owned())
    });
    Ok(paged.response)
}

fn select_projects<'a>(
    model: &'a WorkspaceModel,
    written: Option<&str>,
) -> Result<Vec<&'a crate::workspace::Project>, CommandError> {
    let ordered: Vec<&crate::workspace::Project> =
        model.project_order.iter().filter_map(|path| model.project(path)).collect();
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

fn coverage_json(index: &SyntaxIndex, files: &[PathBuf]) -> Value {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for path in files {
        let status = index.file(path).map_or("missing", |file| file.index.health.status.as_str());
        *counts.entry(status).or_default() += 1;
    }
    json!({
        "filesRequested": files.len(),
        "filesClean": counts.get("clean").copied().unwrap_or(0),
        "filesDegraded": counts.get("degraded").copied().unwrap_or(0),
        "filesTimedOut": counts.get("timed-out").copied().unwrap_or(0),
        "filesFailed": counts.get("failed").copied().unwrap_or(0) + counts.get("missing").copied().unwrap_or(0),
    })
}

fn matches_namespace(full_name: &str, filter: &str) -> bool {
    full_name == filter || full_name.strip_prefix(filter).is_some_and(|rest| rest.starts_with('.'))
}

fn project_outline(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    let projects = select_projects(model, arguments.project.as_deref())?;
    let mut files: Vec<(PathBuf, Option<&crate::workspace::Project>, usize)> = Vec::new();
    for project in &projects {
        for (position, item) in project.compile_items.iter().enumerate() {
            files.push((item.path.clone(), Some(project), position + 1));
        }
    }
    if arguments.project.is_none() {
        for orphan in &model.orphan_files {
            files.push((orphan.clone(), None, 0));
        }
    }
    let existing: Vec<PathBuf> = files
        .iter()
        .map(|(path, _, _)| path.clone())
        .filter(|path| overlay.get(path).is_some() || path.is_file())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    index.index_paths(&existing, overlay);

    let mut entities = Vec::new();
    for (path, project, position) in &files {
        let mut entry = json!({
            "path": model.display_path(path),
            "project": project.map(|project| model.display_path(&project.path)),
            "compileOrder": position,
        });
        match index.file(path) {
            Some(file) if overlay.get(path).is_some() || path.is_file() => {
                let containers: Vec<Value> = file
                    .index
                    .declarations
                    .iter()
                    .enumerate()
                    .filter(|(_, declaration)| declaration.kind.is_container())
                    .map(|(slot, declaration)| {
                        json!({
                            "name": &*index.name(declaration.name),
                            "kind": declaration.kind.as_str(),
                            "fullName": index.full_name(&file.index, slot),
                        })
                    })
                    .collect();
                if let Some(filter) = &arguments.namespace_filter {
                    let keep = containers.iter().any(|container| {
                        container["fullName"].as_str().is_some_and(|name| matches_namespace(name, filter))
                    });
                    if !keep {
                        continue;
                    }
                }
                entry["grammar"] = json!(file.index.grammar.as_str());
                entry["lines"] = json!(file.index.lines);
                entry["health"] = json!(file.index.health.status.as_str());
                entry["declarationCount"] = json!(file.index.declarations.len());
                entry["declarations"] = Value::Array(containers);
            }
            _ => {
                if arguments.namespace_filter.is_some() {
                    continue;
                }
                entry["health"] = json!("missing");
            }
        }
        entities.push(entry);
    }
    let project_json: Vec<Value> = projects
        .iter()
        .map(|project| {
            json!({
                "path": model.display_path(&project.path),
                "name": project.name,
                "targetFrameworks": project.target_frameworks,
                "projectReferences": project.project_references.iter().map(|path| model.display_path(path)).collect::<Vec<_>>(),
                "packageReferences": project.package_references.iter().map(|package| match &package.version {
                    Some(version) => format!("{}@{}", package.name, version),
                    None => package.name.clone(),
                }).collect::<Vec<_>>(),
                "compileItemCount": project.compile_items.len(),
                "problems": project.problems.iter().take(HEALTH_DETAIL_LIMIT).collect::<Vec<_>>(),
            })
        })
        .collect();
    let all_paths: Vec<PathBuf> = files.iter().map(|(path, _, _)| path.clone()).collect();
    let digest = cursor_digest(&arguments.query_identity(), &stream_identity(&entities));
    let offset = starting_offset(arguments, &digest, entities.len())?;
    let mut response = json!({
        "via": "syntax",
        "view": "project",
        "completeness": "syntactic",
        "root": model.root.display().to_string(),
        "projects": project_json,
        "coverage": coverage_json(index, &all_paths),
        "summaryOnly": arguments.summary_only,
    });
    if arguments.project.is_none() {
        response["orphanFileCount"] = json!(model.orphan_files.len());
        response["solutions"] =
            model.solutions.iter().map(|solution| model.display_path(&solution.path)).collect::<Vec<_>>().into();
    }
    let paged = page_response(response, arguments, &entities, &digest, offset, |_| {
        Some("more files remain: call again with nextCursor, or narrow with project or namespaceFilter".to_owned())
    });
    Ok(paged.response)
}

fn public_api(
    index: &SyntaxIndex,
    model: &WorkspaceModel,
    arguments: &OutlineArguments,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    let projects = select_projects(model, arguments.project.as_deref())?;
    let mut files: Vec<PathBuf> = Vec::new();
    if projects.is_empty() {
        // No project file: every non-script source file is the surface.
        files.extend(model.source_files.iter().filter(|path| !is_script(path)).cloned());
    }
    for project in &projects {
        files.extend(
            project
                .compile_items
                .iter()
                .filter(|item| item.exists || overlay.get(&item.path).is_some())
                .map(|item| item.path.clone()),
        );
    }
    let unique: BTreeSet<PathBuf> = files.into_iter().collect();
    // A signature file defines the surface of its implementation file.
    let files: Vec<PathBuf> = unique
        .iter()
        .filter(|path| {
            let is_implementation = path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("fs"));
            !(is_implementation && unique.contains(&path.with_extension("fsi")))
        })
        .cloned()
        .collect();
    index.index_paths(&files, overlay);

    let visible = |access: Access| match access {
        Access::Default | Access::Public => true,
        Access::Internal => arguments.include_internal,
        Access::Private => false,
    };
    let mut entities: Vec<(String, Value)> = Vec::new();
    for path in &files {
        let Some((file, text)) = text_for(index, path, overlay) else {
            continue;
        };
        let declarations = &file.index.declarations;
        let containers = nearest_containers(&file.index);
        // Visible only if every ancestor is visible too.
        let chain_visible = |slot: usize| {
            file.index
                .declaration_chain(slot)
                .into_iter()
                .all(|link| declarations.get(link).is_some_and(|item| visible(item.access)))
        };
        for (slot, declaration) in declarations.iter().enumerate() {
            if !declaration.kind.is_container() || !chain_visible(slot) {
                continue;
            }
            let full_name = index.full_name(&file.index, slot);
            if let Some(filter) = &arguments.namespace_filter
                && !matches_namespace(&full_name, filter)
            {
                continue;
            }
            let mut members: Vec<Value> = declarations
                .iter()
                .enumerate()
                .filter(|(member_slot, member)| {
                    containers[*member_slot] == slot as u32
                        && !member.kind.is_container()
                        && chain_visible(*member_slot)
                })
                .map(|(member_slot, member)| {
                    let mut value = json!({
                        "name": &*index.name(member.name),
                        "kind": member.kind.as_str(),
                        "access": access_text(member.access),
                        "signature": signature_for(Some(&text), &file.index, member_slot).unwrap_or_default(),
                    });
                    if !member.certain {
                        value["certain"] = json!(false);
                    }
                    value
                })
                .collect();
            if declaration.kind == DeclarationKind::Namespace && members.is_empty() {
                continue;
            }
            members.sort_by(|left, right| {
                let key = |value: &Value| {
                    (
                        value["name"].as_str().unwrap_or("").to_owned(),
                        value["kind"].as_str().unwrap_or("").to_owned(),
                        value["signature"].as_str().unwrap_or("").to_owned(),
                    )
                };
                key(left).cmp(&key(right))
            });
            let mut entity = json!({
                "fullName": full_name,
                "kind": declaration.kind.as_str(),
                "access": access_text(declaration.access),
                "signature": signature_for(Some(&text), &file.index, slot).unwrap_or_default(),
                "path": model.display_path(path),
                "range": declaration.range.to_json(),
                "members": members,
            });
            if !declaration.certain || file.index.health.status != HealthStatus::Clean {
                entity["certain"] = json!(declaration.certain && !file.index.health.root_is_error);
                entity["fileHealth"] = json!(file.index.health.status.as_str());
            }
            entities.push((full_name, entity));
        }
    }
    entities.sort_by(|left, right| {
        left.0
            .cmp(&right.0)
            .then_with(|| left.1["path"].as_str().unwrap_or("").cmp(right.1["path"].as_str().unwrap_or("")))
    });
    let names: Vec<String> = entities.iter().map(|(name, _)| name.clone()).collect();
    let entities: Vec<Value> = entities.into_iter().map(|(_, entity)| entity).collect();
    let digest = cursor_digest(&arguments.query_identity(), &stream_identity(&entities));
    let offset = starting_offset(arguments, &digest, entities.len())?;
    let response = json!({
        "via": "syntax",
        "view": "publicApi",
        "completeness": "syntactic",
        "includeInternal": arguments.include_internal,
        "namespaceFilter": arguments.namespace_filter,
        "projects": projects.iter().map(|project| model.display_path(&project.path)).collect::<Vec<_>>(),
        "coverage": coverage_json(index, &files),
    });
    let paged = page_response(response, arguments, &entities, &digest, offset, |next| {
        // Two or three real namespaces from the remainder, so the caller can narrow.
        let mut namespaces: Vec<String> = Vec::new();
        for name in names.iter().skip(next) {
            let namespace = name.rsplit_once('.').map_or(name.as_str(), |(prefix, _)| prefix).to_owned();
            if !namespaces.contains(&namespace) {
                namespaces.push(namespace);
            }
            if namespaces.len() == 3 {
                break;
            }
        }
        Some(format!(
            "more entities remain: continue with nextCursor, or narrow with namespaceFilter, e.g. {}",
            namespaces.iter().map(|namespace| format!("\"{namespace}\"")).collect::<Vec<_>>().join(", ")
        ))
    });
    Ok(paged.response)
}

fn is_script(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("fsx") || extension.eq_ignore_ascii_case("fsscript"))
}

/// `fslens outline` on the command line.
#[derive(Clone, Debug, clap::Args)]
pub struct OutlineCliArgs {
    /// A file to outline (relative to the workspace or absolute); selects the file view.
    #[arg(long, value_name = "P")]
    pub path: Option<String>,
    /// A project (path or name) for the project and public-API views.
    #[arg(long)]
    pub project: Option<String>,
    /// Which outline: file, project or public-api (default: file with --path, else project).
    #[arg(long, value_enum)]
    pub view: Option<OutlineView>,
    /// Full entries with signatures and members instead of the summary.
    #[arg(long)]
    pub full: bool,
    /// At most this many entities per page.
    #[arg(long)]
    pub max_results: Option<u64>,
    /// Continue from a previous page's nextCursor.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Only entities under this namespace or module.
    #[arg(long)]
    pub namespace_filter: Option<String>,
    /// Include internal declarations in the public-API view.
    #[arg(long)]
    pub include_internal: bool,
    /// Print the JSON answer instead of the plain-text rendering.
    #[arg(long)]
    pub json: bool,
}

impl OutlineCliArgs {
    /// The `fslens.outline` argument object these flags stand for.
    pub fn to_arguments(&self) -> Value {
        let mut arguments = Map::new();
        if let Some(path) = &self.path {
            arguments.insert("path".into(), json!(path));
        }
        if let Some(project) = &self.project {
            arguments.insert("project".into(), json!(project));
        }
        if let Some(view) = self.view {
            arguments.insert("view".into(), json!(view.as_str()));
        }
        if self.full {
            arguments.insert("summaryOnly".into(), json!(false));
        }
        if let Some(max_results) = self.max_results {
            arguments.insert("maxResults".into(), json!(max_results));
        }
        if let Some(cursor) = &self.cursor {
            arguments.insert("cursor".into(), json!(cursor));
        }
        if let Some(filter) = &self.namespace_filter {
            arguments.insert("namespaceFilter".into(), json!(filter));
        }
        if self.include_internal {
            arguments.insert("includeInternal".into(), json!(true));
        }
        Value::Object(arguments)
    }
}

/// Runs `fslens outline`: the JSON answer (print it with `--json`, else print
/// [`render_text`] of it).
pub fn run_cli(arguments: &OutlineCliArgs, workspace: &Path) -> anyhow::Result<Value> {
    outline(workspace, &arguments.to_arguments(), &Overlay::new())
        .map_err(|error| anyhow::anyhow!("{error} ({})", error.data()))
}

/// A plain-text rendering of any outline answer.
pub fn render_text(answer: &Value) -> String {
    use std::fmt::Write;
    let mut output = String::new();
    let view = answer["view"].as_str().unwrap_or("");
    let range_text = |range: &Value| -> String {
        if range.is_null() {
            return String::new();
        }
        format!(
            " {}:{}",
            range["start"]["line"].as_u64().unwrap_or(0) + 1,
            range["start"]["character"].as_u64().unwrap_or(0) + 1
        )
    };
    match view {
        "file" => {
            let _ = writeln!(
                output,
                "{} ({}, {} lines, {}) via syntax",
                answer["path"].as_str().unwrap_or(""),
                answer["grammar"].as_str().unwrap_or(""),
                answer["lines"],
                answer["health"]["status"].as_str().unwrap_or("")
            );
            for entry in answer["entries"].as_array().into_iter().flatten() {
                let counts: Vec<String> = entry["memberCounts"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(kind, count)| format!("{count} {kind}"))
                    .collect();
                let uncertain = if entry["certain"] == json!(false) { " (uncertain)" } else { "" };
                let _ = writeln!(
                    output,
                    "  {} {} [{}]{}{}{}",
                    entry["kind"].as_str().unwrap_or(""),
                    entry["fullName"].as_str().unwrap_or(""),
                    entry["access"].as_str().unwrap_or(""),
                    range_text(&entry["range"]),
                    if counts.is_empty() { String::new() } else { format!(" — {}", counts.join(", ")) },
                    uncertain
                );
                for member in entry["members"].as_array().into_iter().flatten() {
                    let _ = writeln!(
                        output,
                        "    {}{}  {}",
                        member["kind"].as_str().unwrap_or(""),
                        range_text(&member["range"]),
                        member["signature"].as_str().or(member["name"].as_str()).unwrap_or("")
                    );
                }
            }
        }
        "project" => {
            for project in answer["projects"].as_array().into_iter().flatten() {
                let _ = writeln!(
                    output,
                    "project {} [{}]",
                    project["path"].as_str().unwrap_or(""),
                    project["targetFrameworks"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(";")
                );
            }
            for entry in answer["entries"].as_array().into_iter().flatten() {
                let all: Vec<&str> = entry["declarations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|declaration| declaration["fullName"].as_str())
                    .collect();
                let mut names: Vec<String> = all.iter().take(6).map(|name| (*name).to_owned()).collect();
                if all.len() > 6 {
                    names.push(format!("… {} more (--path FILE outlines it)", all.len() - 6));
                }
                let order = entry["compileOrder"]
                    .as_u64()
                    .filter(|order| *order > 0)
                    .map_or("orphan".to_owned(), |order| format!("#{order}"));
                let _ = writeln!(
                    output,
                    "  {order} {} ({}, {} lines) {}",
                    entry["path"].as_str().unwrap_or(""),
                    entry["health"].as_str().unwrap_or(""),
                    entry["lines"],
                    names.join(", ")
                );
            }
        }
        _ => {
            for entry in answer["entries"].as_array().into_iter().flatten() {
                let _ = writeln!(
                    output,
                    "{}  ({})",
                    entry["signature"].as_str().unwrap_or(""),
                    entry["fullName"].as_str().unwrap_or("")
                );
                for member in entry["members"].as_array().into_iter().flatten() {
                    let _ = writeln!(output, "    {}", member["signature"].as_str().unwrap_or(""));
                }
            }
        }
    }
    if answer["truncated"] == json!(true) {
        let total = answer["totalEntities"].as_u64().unwrap_or(0);
        let shown = answer["offset"].as_u64().unwrap_or(0) + answer["returnedEntryCount"].as_u64().unwrap_or(0);
        let _ = writeln!(
            output,
            "… {} more entr{} not shown (truncated{}; next: --cursor {})",
            total.saturating_sub(shown),
            if total.saturating_sub(shown) == 1 { "y" } else { "ies" },
            if answer["truncatedByBudget"] == json!(true) { " by the response budget" } else { " at --max-results" },
            answer["nextCursor"].as_str().unwrap_or("")
        );
        if let Some(hint) = answer["hint"].as_str() {
            let _ = writeln!(output, "hint: {hint}");
        }
    }
    output
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}
