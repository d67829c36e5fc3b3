//! `fslens.readSymbol` and `fslens.readEnclosing`: one declaration's verbatim source from the
//! syntax layer, taken from the editor's buffer when the file is open there, else from disk.
//!
//! `readSymbol` finds declarations by name (`weigh`, `Shipment.weigh`, fully qualified); more
//! than one match is answered with every candidate (`status: "ambiguous"`), never a guess,
//! and `path`, `line` or `kinds` pick one. `readEnclosing` maps a path and 0-based line (and
//! optionally a character) to the smallest enclosing declaration, with the chain of its
//! parents; a body longer than `maxLines` is handled as `onOversize` says: `error` (metadata
//! only), `slice` (a window around the line) or `outline` (the nested declarations, each with
//! the arguments that read it).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, one_of, optional_integer, optional_string, reject_unknown};
use crate::commands::paths::{confine, display_relative};
use crate::commands::symbols::{
    apply_editor_buffers, index_facts, kinds_argument, ready_workspace, unavailable, wait_argument,
};
use crate::syntax::index::IndexedFile;
use crate::syntax::model::{Declaration, DeclarationKind, FileIndex, HealthStatus, NO_PARENT, Position};
use crate::syntax::{Overlay, SyntaxIndex, render_signature};

const SIGNATURE_MAX_CHARS: usize = 240;
/// At most this many candidates are listed for an ambiguous name.
const CANDIDATES_LIMIT: usize = 50;
/// At most this many nested declarations are listed by `onOversize: outline`.
const OUTLINE_LIMIT: usize = 200;

/// The text a file's index was built from: the editor buffer or the disk, only when its
/// SHA-256 still matches `sha256`.
pub fn current_text(path: &Path, overlay: &Overlay, sha256: &[u8; 32]) -> Option<String> {
    let text = match overlay.get(path) {
        Some(text) => text.to_string(),
        None => crate::source_files::read_regular_text_lossy(path).ok()?,
    };
    let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    (digest == *sha256).then_some(text)
}

/// Refuses a path that is not an F# source file the editor has open or the disk holds, before
/// anything is indexed for it.
fn check_source_path(path: &Path, written: &str, overlay: &Overlay) -> Result<(), CommandError> {
    let refuse =
        |message: &str| Err(CommandError::InvalidPath { path: written.to_owned(), message: message.to_owned() });
    if crate::syntax::GrammarKind::for_path(path).is_none() {
        return refuse("not an F# source file (.fs, .fsi, .fsx)");
    }
    if overlay.get(path).is_none() && !path.is_file() {
        return refuse("no such file in the workspace or the editor");
    }
    Ok(())
}

/// Indexes `path` from the overlay or the disk and returns its entry with the very text it
/// was built from (re-indexed once more if the file changes in between).
fn indexed_text(index: &SyntaxIndex, path: &Path, overlay: &Overlay) -> Option<(Arc<IndexedFile>, String)> {
    for _ in 0..3 {
        index.refresh_path(path, overlay);
        let file = index.file(path)?;
        if let Some(text) = current_text(path, overlay, &file.index.content_sha256) {
            return Some((file, text));
        }
    }
    None
}

/// `[start, end]` whole lines a declaration spans (an end at character 0 of a later line
/// does not take that line).
fn line_span(declaration: &Declaration) -> (u32, u32) {
    let range = declaration.range;
    let end =
        if range.end.character == 0 && range.end.line > range.start.line { range.end.line - 1 } else { range.end.line };
    (range.start.line, end.max(range.start.line))
}

fn slice_lines(text: &str, first: u32, last: u32) -> String {
    let mut out = String::new();
    for line in text.lines().skip(first as usize).take((last.saturating_sub(first) + 1) as usize) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// At most this many doc-comment and attribute lines are given above a declaration.
const LEADING_LINES_LIMIT: u32 = 40;

/// The `///` doc comment and `[<Attribute>]` lines directly above line `first` (the syntax
/// index's range starts after them), as `leading` with `leadingStartLine`.
fn add_leading_lines(answer: &mut Value, text: &str, first: u32) {
    let lines: Vec<&str> = text.lines().take(first as usize).collect();
    let mut start = lines.len();
    while start > 0 && lines.len() - start < LEADING_LINES_LIMIT as usize {
        let line = lines[start - 1].trim_start();
        if line.starts_with("///") || line.starts_with("[<") {
            start -= 1;
        } else {
            break;
        }
    }
    if start < lines.len() {
        let mut leading = lines[start..].join("\n");
        leading.push('\n');
        answer["leading"] = json!(leading);
        answer["leadingStartLine"] = json!(start);
    }
}

fn declaration_json(index: &SyntaxIndex, root: &Path, file: &IndexedFile, slot: usize, text: Option<&str>) -> Value {
    let declaration = &file.index.declarations[slot];
    let (first, last) = line_span(declaration);
    let mut value = json!({
        "name": &*index.name(declaration.name),
        "fullName": index.full_name(&file.index, slot),
        "kind": declaration.kind.as_str(),
        "access": declaration.access.as_str(),
        "path": display_relative(root, &file.path),
        "line": declaration.name_start.line,
        "range": declaration.range.to_json(),
        "startLine": first,
        "endLine": last,
        "lines": last - first + 1,
    });
    if let Some(text) = text {
        let signature = render_signature(text, declaration.header_bytes, SIGNATURE_MAX_CHARS);
        if !signature.is_empty() {
            value["signature"] = json!(signature);
        }
    }
    if !declaration.certain || file.index.health.status != HealthStatus::Clean {
        value["certain"] = json!(false);
    }
    value
}

fn chain_json(index: &SyntaxIndex, file: &FileIndex, slot: usize) -> Value {
    file.declaration_chain(slot)
        .into_iter()
        .filter_map(|link| {
            let declaration = file.declarations.get(link)?;
            let (first, last) = line_span(declaration);
            Some(json!({
                "name": &*index.name(declaration.name),
                "kind": declaration.kind.as_str(),
                "startLine": first,
                "endLine": last,
            }))
        })
        .collect()
}

// ---- readSymbol ---------------------------------------------------------------------------

struct ReadSymbolArguments {
    name: String,
    path: Option<String>,
    line: Option<u32>,
    kinds: Option<Vec<DeclarationKind>>,
    max_lines: u32,
    wait: std::time::Duration,
}

fn read_symbol_arguments(argument: &Value) -> Result<ReadSymbolArguments, CommandError> {
    let object = object_of(argument)?;
    reject_unknown(object, &["name", "path", "line", "kinds", "maxLines", "waitForIndexMs"])?;
    let name = optional_string(object, "name")?
        .map(|name| name.trim().trim_matches('`').to_owned())
        .filter(|name| !name.is_empty())
        .ok_or_else(|| CommandError::invalid_argument("name", "required: a declared name, plain or dotted"))?;
    Ok(ReadSymbolArguments {
        name,
        path: optional_string(object, "path")?,
        line: optional_integer(object, "line", 0, u32::MAX as u64)?.map(|line| line as u32),
        kinds: kinds_argument(object)?,
        max_lines: optional_integer(object, "maxLines", 1, 20_000)?.unwrap_or(400) as u32,
        wait: wait_argument(object)?,
    })
}

/// Whether a declaration's full name is `wanted` or ends with `.wanted`, segment by segment
/// and in any spelling of each (``` ``value`` ``` is `value`; `>>=`, `(>>=)` and
/// `op_GreaterGreaterEquals` are one operator).
fn qualified_match(full_name: &str, wanted: &str) -> bool {
    crate::commands::find::resolve::qualified_matches(full_name, wanted, true)
}

/// `fslens.readSymbol` in a session.
pub async fn read_symbol(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let arguments = read_symbol_arguments(&argument)?;
    let root = context.workspace_root()?.to_path_buf();
    let path = arguments.path.as_deref().map(|written| confine(&root, written, "path")).transpose()?;
    let index = context.syntax_index();
    // With a path only that file is needed; without, the workspace index.
    let mut warm_and_ready = None;
    if path.is_none() {
        let (warm, ready) = ready_workspace(&index, &context.warm_workspaces(), &root, arguments.wait).await?;
        let Some(ready) = ready else { return Ok(unavailable("readSymbol", &warm)) };
        warm_and_ready = Some((warm, ready));
    }
    let overlay = context.editor_buffers().await?;
    crate::commands::run_blocking(move || {
        let mut answer = read_symbol_with_index(&index, &root, &arguments, path.as_deref(), &overlay)?;
        // After the search, which applied the editor's buffers: the facts describe what was searched.
        if let Some((warm, ready)) = warm_and_ready {
            answer["index"] = index_facts(&index, &warm, &ready);
        }
        answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
        Ok(answer)
    })
    .await
}

fn read_symbol_with_index(
    index: &SyntaxIndex,
    root: &Path,
    arguments: &ReadSymbolArguments,
    path: Option<&Path>,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    let simple = crate::commands::find::resolve::segments(&arguments.name).pop().unwrap_or_default();
    let mut candidates: Vec<(Arc<IndexedFile>, usize)> = Vec::new();
    let mut texts: std::collections::HashMap<PathBuf, String> = std::collections::HashMap::new();
    match path {
        Some(path) => {
            check_source_path(path, arguments.path.as_deref().unwrap_or_default(), overlay)?;
            let (file, text) = indexed_text(index, path, overlay).ok_or_else(|| CommandError::InvalidPath {
                path: arguments.path.clone().unwrap_or_default(),
                message: "cannot read it as an F# source file".to_owned(),
            })?;
            for (slot, declaration) in file.index.declarations.iter().enumerate() {
                if crate::syntax::names::comparison_key(&index.name(declaration.name)) == simple {
                    candidates.push((file.clone(), slot));
                }
            }
            texts.insert(path.to_path_buf(), text);
        }
        None => {
            apply_editor_buffers(index, root, overlay);
            for hit in index.find_declarations(&simple) {
                if let Some(file) = index.file(&hit.path)
                    && let Some(slot) =
                        file.index.declarations.iter().position(|declaration| *declaration == hit.declaration)
                {
                    candidates.push((file, slot));
                }
            }
        }
    }
    candidates.retain(|(file, slot)| {
        let declaration = &file.index.declarations[*slot];
        qualified_match(&index.full_name(&file.index, *slot), &arguments.name)
            && arguments.kinds.as_ref().is_none_or(|kinds| kinds.contains(&declaration.kind))
            && arguments
                .line
                .is_none_or(|line| declaration.name_start.line == line || declaration.range.start.line == line)
    });
    let mut text_of = |file: &IndexedFile| -> Option<String> {
        if let Some(text) = texts.get(&file.path) {
            return Some(text.clone());
        }
        let text = current_text(&file.path, overlay, &file.index.content_sha256)?;
        texts.insert(file.path.clone(), text.clone());
        Some(text)
    };
    let mut base = json!({ "tool": "readSymbol", "via": "syntax", "completeness": "syntactic", "available": true, "name": arguments.name });
    match candidates.len() {
        0 => {
            // A declaration can hide in a region the parser could not read: "not found" is
            // only certain when every file searched parsed cleanly.
            let searched: Vec<Arc<IndexedFile>> = match path {
                Some(path) => index.file(path).into_iter().collect(),
                None => index.paths().iter().filter_map(|path| index.file(path)).collect(),
            };
            let unclean: Vec<&Arc<IndexedFile>> =
                searched.iter().filter(|file| file.index.health.status != HealthStatus::Clean).collect();
            base["status"] = json!("not_found");
            base["certain"] = json!(unclean.is_empty());
            base["filesSearched"] = json!(searched.len());
            base["filesNotCleanlyParsed"] = json!(unclean.len());
            let mut message = format!(
                "no declaration named {:?}{} in the syntax index",
                arguments.name,
                if path.is_some() { " in that file" } else { "" }
            );
            if !unclean.is_empty() {
                let first = display_relative(root, &unclean[0].path);
                message.push_str(&format!(
                    "; {} of the {} files searched did not parse cleanly (first: {first}), so it may be declared in \
                     a region the parser could not read",
                    unclean.len(),
                    searched.len()
                ));
            }
            base["message"] = json!(message);
            base["hint"] = json!("symbol_search finds files by partial names; names are case-sensitive here");
            Ok(base)
        }
        1 => {
            let (file, slot) = candidates.remove(0);
            let Some(text) = text_of(&file) else {
                return Err(CommandError::Internal(format!(
                    "{} changed while it was read; try again",
                    file.path.display()
                )));
            };
            let declaration = &file.index.declarations[slot];
            let (first, last) = line_span(declaration);
            let shown_last = last.min(first + arguments.max_lines - 1);
            base["status"] = json!("ok");
            base["symbol"] = declaration_json(index, root, &file, slot, Some(&text));
            base["chain"] = chain_json(index, &file.index, slot);
            base["source"] = json!(slice_lines(&text, first, shown_last));
            add_leading_lines(&mut base, &text, first);
            base["sourceRange"] = json!({ "startLine": first, "endLine": shown_last });
            base["truncated"] = json!(shown_last < last);
            if shown_last < last {
                base["linesOmitted"] = json!(last - shown_last);
                base["hint"] = json!("raise maxLines, or call read_enclosing with onOversize outline for its parts");
            }
            base["fromEditorBuffer"] = json!(overlay.get(&file.path).is_some());
            Ok(base)
        }
        count => {
            base["status"] = json!("ambiguous");
            base["message"] = json!(format!("{count} declarations match; pick one with path and line (or kinds)"));
            let listed: Vec<Value> = candidates
                .iter()
                .take(CANDIDATES_LIMIT)
                .map(|(file, slot)| {
                    let text = text_of(file);
                    let mut candidate = declaration_json(index, root, file, *slot, text.as_deref());
                    candidate["select"] = json!({
                        "name": arguments.name,
                        "path": display_relative(root, &file.path),
                        "line": file.index.declarations[*slot].name_start.line,
                    });
                    candidate
                })
                .collect();
            base["candidates"] = json!(listed);
            base["candidatesOmitted"] = json!(count.saturating_sub(CANDIDATES_LIMIT));
            Ok(base)
        }
    }
}

// ---- readEnclosing ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Oversize {
    Error,
    Slice,
    Outline,
}

struct ReadEnclosingArguments {
    path: String,
    line: u32,
    character: Option<u32>,
    kinds: Option<Vec<DeclarationKind>>,
    max_lines: u32,
    max_lines_given: bool,
    on_oversize: Oversize,
    around_line: Option<u32>,
}

fn read_enclosing_arguments(argument: &Value) -> Result<ReadEnclosingArguments, CommandError> {
    let object = object_of(argument)?;
    reject_unknown(object, &["path", "line", "character", "kinds", "maxLines", "onOversize", "aroundLine"])?;
    let path = optional_string(object, "path")?.ok_or_else(|| CommandError::invalid_argument("path", "required"))?;
    let line = optional_integer(object, "line", 0, u32::MAX as u64)?
        .ok_or_else(|| CommandError::invalid_argument("line", "required: a 0-based line"))? as u32;
    let max_lines = optional_integer(object, "maxLines", 1, 20_000)?;
    Ok(ReadEnclosingArguments {
        path,
        line,
        character: optional_integer(object, "character", 0, u32::MAX as u64)?.map(|value| value as u32),
        kinds: kinds_argument(object)?,
        max_lines: max_lines.unwrap_or(200) as u32,
        max_lines_given: max_lines.is_some(),
        on_oversize: one_of(
            optional_string(object, "onOversize")?,
            "onOversize",
            &[("error", Oversize::Error), ("slice", Oversize::Slice), ("outline", Oversize::Outline)],
        )?,
        around_line: optional_integer(object, "aroundLine", 1, 20_000)?.map(|value| value as u32),
    })
}

/// `fslens.readEnclosing` in a session: only the one file is indexed, so it never waits for
/// the workspace index.
pub async fn read_enclosing(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let arguments = read_enclosing_arguments(&argument)?;
    let root = context.workspace_root()?.to_path_buf();
    let path = confine(&root, &arguments.path, "path")?;
    let index = context.syntax_index();
    let overlay = context.editor_buffers().await?;
    crate::commands::run_blocking(move || {
        let mut answer = read_enclosing_with_index(&index, &root, &path, &arguments, &overlay)?;
        answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
        Ok(answer)
    })
    .await
}

fn contains(declaration: &Declaration, line: u32, character: Option<u32>) -> bool {
    let (first, last) = line_span(declaration);
    if line < first || line > last {
        return false;
    }
    let Some(character) = character else { return true };
    let at = Position { line, character };
    declaration.range.start <= at && (at < declaration.range.end || line < declaration.range.end.line)
}

fn read_enclosing_with_index(
    index: &SyntaxIndex,
    root: &Path,
    path: &Path,
    arguments: &ReadEnclosingArguments,
    overlay: &Overlay,
) -> Result<Value, CommandError> {
    check_source_path(path, &arguments.path, overlay)?;
    let (file, text) = indexed_text(index, path, overlay).ok_or_else(|| CommandError::InvalidPath {
        path: arguments.path.clone(),
        message: "cannot read it".to_owned(),
    })?;
    let line_count = file.index.lines.max(text.lines().count() as u32);
    if arguments.line >= line_count {
        return Err(CommandError::invalid_argument("line", format!("the file has {line_count} lines (0-based)")));
    }
    let declarations = &file.index.declarations;
    let best = declarations
        .iter()
        .enumerate()
        .filter(|(_, declaration)| arguments.kinds.as_ref().is_none_or(|kinds| kinds.contains(&declaration.kind)))
        .filter(|(_, declaration)| contains(declaration, arguments.line, arguments.character))
        .min_by_key(|(slot, declaration)| {
            let (first, last) = line_span(declaration);
            (last - first, std::cmp::Reverse(first), std::cmp::Reverse(*slot))
        })
        .map(|(slot, _)| slot);
    let line_text: String = text.lines().nth(arguments.line as usize).unwrap_or_default().chars().take(200).collect();
    let mut base = json!({
        "tool": "readEnclosing",
        "via": "syntax",
        "completeness": "syntactic",
        "path": display_relative(root, path),
        "line": arguments.line,
        "lineText": line_text,
        "fromEditorBuffer": overlay.get(path).is_some(),
        "health": file.index.health.status.as_str(),
    });
    let Some(slot) = best else {
        base["status"] = json!("no_enclosing_declaration");
        base["message"] = json!("no declaration of the requested kinds encloses that line");
        let before = declarations
            .iter()
            .enumerate()
            .filter(|(_, d)| line_span(d).1 < arguments.line)
            .max_by_key(|(_, d)| line_span(d).1);
        let after = declarations
            .iter()
            .enumerate()
            .filter(|(_, d)| d.range.start.line > arguments.line)
            .min_by_key(|(_, d)| d.range.start.line);
        base["nearest"] = json!({
            "before": before.map(|(slot, _)| declaration_json(index, root, &file, slot, Some(&text))),
            "after": after.map(|(slot, _)| declaration_json(index, root, &file, slot, Some(&text))),
        });
        return Ok(base);
    };
    let declaration = &declarations[slot];
    let (first, last) = line_span(declaration);
    let total = last - first + 1;
    base["symbol"] = declaration_json(index, root, &file, slot, Some(&text));
    base["chain"] = chain_json(index, &file.index, slot);
    base["maxLines"] = json!(arguments.max_lines);
    if total <= arguments.max_lines {
        base["status"] = json!("ok");
        base["source"] = json!(slice_lines(&text, first, last));
        add_leading_lines(&mut base, &text, first);
        base["sourceRange"] = json!({ "startLine": first, "endLine": last });
        base["truncated"] = json!(false);
        return Ok(base);
    }
    base["oversize"] = json!({ "lines": total, "maxLines": arguments.max_lines, "onOversize": match arguments.on_oversize {
        Oversize::Error => "error", Oversize::Slice => "slice", Oversize::Outline => "outline" } });
    match arguments.on_oversize {
        Oversize::Error => {
            base["status"] = json!("oversize");
            base["truncated"] = json!(true);
            base["message"] = json!(format!(
                "the declaration has {total} lines, more than maxLines {}; no source returned",
                arguments.max_lines
            ));
            base["hint"] =
                json!("raise maxLines, or pass onOversize slice (a window around the line) or outline (its parts)");
        }
        Oversize::Slice => {
            let window =
                arguments.around_line.unwrap_or(if arguments.max_lines_given { arguments.max_lines } else { 80 });
            let window = window.min(total).max(1);
            let half = window / 2;
            let mut start = arguments.line.saturating_sub(half).max(first);
            let end = (start + window - 1).min(last);
            start = end + 1 - window.min(end + 1 - first);
            base["status"] = json!("slice");
            base["source"] = json!(slice_lines(&text, start, end));
            base["sourceRange"] = json!({ "startLine": start, "endLine": end });
            base["truncated"] = json!(true);
            base["linesOmitted"] = json!(total - (end - start + 1));
        }
        Oversize::Outline => {
            let mut nested: Vec<Value> = Vec::new();
            let mut count = 0usize;
            for (child, candidate) in declarations.iter().enumerate() {
                if child == slot || !is_inside(&file.index, child, slot) {
                    continue;
                }
                count += 1;
                if nested.len() >= OUTLINE_LIMIT {
                    continue;
                }
                let (child_first, child_last) = line_span(candidate);
                nested.push(json!({
                    "name": &*index.name(candidate.name),
                    "kind": candidate.kind.as_str(),
                    "depth": file.index.declaration_chain(child).len() - file.index.declaration_chain(slot).len(),
                    "startLine": child_first,
                    "endLine": child_last,
                    "lines": child_last - child_first + 1,
                    // Exactly readEnclosing's arguments, so a client can pass it back as it is.
                    "read": { "path": display_relative(root, path), "line": candidate.name_start.line },
                }));
            }
            base["status"] = json!("outline");
            base["signature"] = base["symbol"]["signature"].clone();
            base["nested"] = json!(nested);
            base["nestedOmitted"] = json!(count.saturating_sub(OUTLINE_LIMIT));
            base["truncated"] = json!(true);
            if count == 0 {
                base["hint"] = json!("no nested declarations: pass onOversize slice to read around the line");
            }
        }
    }
    Ok(base)
}

/// Whether declaration `child` sits under `ancestor` in the parent chain.
fn is_inside(file: &FileIndex, child: usize, ancestor: usize) -> bool {
    let mut current = file.declarations.get(child).map(|declaration| declaration.parent).unwrap_or(NO_PARENT);
    let mut steps = 0;
    while current != NO_PARENT && steps <= file.declarations.len() {
        if current as usize == ancestor {
            return true;
        }
        current = file.declarations.get(current as usize).map(|declaration| declaration.parent).unwrap_or(NO_PARENT);
        steps += 1;
    }
    false
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn read_symbol_input_schema() -> Option<serde_json::Value> {
    None
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn read_enclosing_input_schema() -> Option<serde_json::Value> {
    None
}
