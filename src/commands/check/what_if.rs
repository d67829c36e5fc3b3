//! The what-if check: `fslens.check` with `edits` gives the compiler's verdict on a change
//! before anything is written (issue 19).
//!
//! The edits are applied in memory to the current text of every touched file (the editor's
//! buffer when it is open, else the disk text), with UTF-16 ranges as LSP's; an edit that
//! overlaps another or falls outside its file is refused with `invalid_argument` naming it.
//! The same scope is checked twice: first as it is (the `baseline`), then with FSAC shown the
//! edited texts at versions fslens owns (`proxy::what_if`). Every file of the scope is shown
//! to FSAC afresh for the second pass, so no analysis of the real texts can pass for one of
//! the hypothetical texts. FSAC's view is restored before the answer is sent; the editor
//! hears nothing of the hypothetical texts, and disk is never written.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use super::{CheckArguments, Plan, blocking, compile_files, finish_unknown, sha256_hex, verdict_over};
use crate::commands::CommandError;
use crate::commands::context::{CommandContext, WhatIfText};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position, Range};
use crate::lsp::ext::error_kinds;
use crate::workspace::WorkspaceModel;

/// One requested change, as parsed.
#[derive(Debug, Clone)]
struct RequestedEdit {
    /// Where it was in the argument, for error messages (`edits[2]`).
    argument: String,
    change: Change,
}

#[derive(Debug, Clone)]
enum Change {
    Range { range: Range, new_text: String },
    Whole(String),
}

/// The requested edits of one file.
#[derive(Debug)]
struct FileEdits {
    path: PathBuf,
    /// An LSP `textDocument.version` the edits were computed against, and where it was given.
    expected_version: Option<(i64, String)>,
    edits: Vec<RequestedEdit>,
}

/// One byte range of the old text replaced by `new_len` bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Replaced {
    start: usize,
    end: usize,
    new_len: usize,
}

/// A touched file: its text before and after the edits.
#[derive(Debug)]
struct TouchedFile {
    path: PathBuf,
    uri: String,
    before: String,
    after: String,
    editor_version: Option<i64>,
    replaced: Vec<Replaced>,
    edit_count: usize,
}

/// A prepared what-if: the edited texts and the narrowed plan.
pub(super) struct WhatIf {
    touched: Vec<TouchedFile>,
    notes: Vec<String>,
}

/// Parses and applies `edits` and narrows the plan to the touched files and the files of every
/// project downstream of them (the plan's own scope still narrows that).
pub(super) async fn prepare(
    edits: &Value,
    plan: Plan,
    model: &WorkspaceModel,
    root: &Path,
    context: &CommandContext,
) -> Result<(Plan, WhatIf), CommandError> {
    let requested = parse_edits(edits, root)?;
    let uris: Vec<String> = requested
        .iter()
        .map(|file| {
            crate::uri::path_to_uri(&file.path)
                .ok_or_else(|| CommandError::Internal(format!("cannot make a URI of {}", file.path.display())))
        })
        .collect::<Result<_, _>>()?;
    let editor_texts = context.what_if_editor_texts(uris.clone()).await?;
    let mut touched = Vec::new();
    for ((file, uri), editor) in requested.into_iter().zip(uris).zip(editor_texts) {
        if let (Some((version, argument)), Some((_, editor_version))) = (&file.expected_version, &editor)
            && version != editor_version
        {
            return Err(CommandError::invalid_argument(
                argument,
                format!("the edits were made for version {version}; the editor has version {editor_version}"),
            ));
        }
        let (before, editor_version) = match editor {
            Some((text, version)) => (text, Some(version)),
            None => (disk_text(&file.path, root).await?, None),
        };
        let (after, replaced) = apply_edits(&before, &file.edits)?;
        touched.push(TouchedFile {
            path: file.path,
            uri,
            before,
            after,
            editor_version,
            replaced,
            edit_count: file.edits.len(),
        });
    }
    let paths: Vec<PathBuf> = touched.iter().map(|file| file.path.clone()).collect();
    let (affected_files, affected_projects) = downstream(model, &paths);
    let mut plan = plan;
    let mut notes = Vec::new();
    let before = plan.files.len();
    plan.files.retain(|file| affected_files.contains(file));
    plan.projects.retain(|project| affected_projects.contains(project));
    if plan.files.len() < before {
        notes.push(format!(
            "the what-if checks the {} file(s) of the scope that the edits can affect (the touched files and every \
             file of every project downstream of them)",
            plan.files.len()
        ));
    }
    for file in &touched {
        if !plan.files.contains(&file.path) {
            notes.push(format!(
                "{} is touched but not checked: no project in scope compiles it",
                display_relative(root, &file.path)
            ));
        }
    }
    plan.notes.extend(notes.iter().cloned());
    Ok((plan, WhatIf { touched, notes }))
}

impl WhatIf {
    /// What the answer says about the edits, whatever the verdict.
    pub(super) fn describe(&self, answer: &mut Value, root: &Path) {
        let files: Vec<Value> = self
            .touched
            .iter()
            .map(|file| {
                json!({
                    "file": display_relative(root, &file.path),
                    "source": if file.editor_version.is_some() { "editor" } else { "disk" },
                    "editorVersion": file.editor_version,
                    "editCount": file.edit_count,
                    "contentSha256": sha256_hex(&file.after),
                })
            })
            .collect();
        answer["whatIf"] = json!({ "files": files, "diskWritten": false });
        if !self.notes.is_empty() {
            answer["whatIf"]["notes"] = json!(self.notes);
        }
    }
}

/// Runs the baseline, shows FSAC the edited texts, runs the same scope again, restores, and
/// answers with the second verdict, the baseline and the delta.
#[allow(clippy::too_many_arguments)]
pub(super) async fn run(
    what_if: WhatIf,
    answer: Value,
    arguments: &CheckArguments,
    plan: &Plan,
    model: &WorkspaceModel,
    context: &mut CommandContext,
    root: &Path,
    deadline: tokio::time::Instant,
    generation: u64,
    started: Instant,
) -> Result<Value, CommandError> {
    let baseline =
        verdict_over(answer.clone(), arguments, plan, model, context, root, deadline, generation, started).await?;
    let documents = match overlay_texts(&what_if, plan, context, root).await {
        Ok(documents) => documents,
        Err(error) => return Ok(unknown_with_baseline(answer, &baseline, &error, started)),
    };
    if let Err(error) = context.begin_what_if(documents).await {
        context.end_what_if().await?;
        return Ok(unknown_with_baseline(answer, &baseline, &error, started));
    }
    let hypothetical =
        verdict_over(answer.clone(), arguments, plan, model, context, root, deadline, generation, started).await;
    // FSAC's view is restored before anything is answered, whatever the second pass gave.
    context.end_what_if().await?;
    let mut hypothetical = hypothetical?;
    stamp_touched_files(&mut hypothetical, &what_if, root);
    let delta = delta(&baseline, &hypothetical, &what_if, root);
    hypothetical["baseline"] = baseline_summary(&baseline);
    hypothetical["delta"] = delta;
    hypothetical["whatIf"]["restored"] = json!(true);
    hypothetical["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
    Ok(hypothetical)
}

/// The text FSAC is shown of every file of the scope: the edited text of a touched file, the
/// current text (editor buffer, else disk) of the others.
async fn overlay_texts(
    what_if: &WhatIf,
    plan: &Plan,
    context: &CommandContext,
    root: &Path,
) -> Result<Vec<WhatIfText>, CommandError> {
    let others: Vec<&PathBuf> =
        plan.files.iter().filter(|path| !what_if.touched.iter().any(|file| &file.path == *path)).collect();
    let other_uris: Vec<String> = others.iter().filter_map(|path| crate::uri::path_to_uri(path)).collect();
    let editor_texts = context.what_if_editor_texts(other_uris.clone()).await?;
    let mut documents: Vec<WhatIfText> = what_if
        .touched
        .iter()
        .filter(|file| plan.files.contains(&file.path))
        .map(|file| WhatIfText { uri: file.uri.clone(), text: file.after.clone(), editor_version: file.editor_version })
        .collect();
    for ((path, uri), editor) in others.into_iter().zip(other_uris).zip(editor_texts) {
        let (text, editor_version) = match editor {
            Some((text, version)) => (text, Some(version)),
            None => (disk_text(path, root).await?, None),
        };
        documents.push(WhatIfText { uri, text, editor_version });
    }
    Ok(documents)
}

/// The disk text of a closed file, as every check reads it.
// When `source_files::source_text` lands (BOM stripped), it replaces this read.
async fn disk_text(path: &Path, root: &Path) -> Result<String, CommandError> {
    let owned = path.to_path_buf();
    let text = tokio::task::spawn_blocking(move || crate::source_files::read_regular_text(&owned))
        .await
        .map_err(|error| CommandError::Internal(error.to_string()))?;
    text.map_err(|error| CommandError::InvalidPath {
        path: display_relative(root, path),
        message: format!("cannot read it (not open in the editor either): {error}"),
    })
}

fn unknown_with_baseline(answer: Value, baseline: &Value, error: &CommandError, started: Instant) -> Value {
    // FSAC gone or a file busy is FSAC's state; a buffer edited meanwhile leaves the what-if
    // without a current text to apply the edits to.
    let kind = match error {
        CommandError::Unavailable(_) => error_kinds::FSAC_UNAVAILABLE,
        _ => error_kinds::INCOMPLETE,
    };
    let reason = blocking(kind, format!("fslens could not show FSAC the edited texts: {error}"), json!({}));
    let mut answer = finish_unknown(answer, reason, started);
    answer["baseline"] = baseline_summary(baseline);
    answer["whatIf"]["restored"] = json!(true);
    answer
}

fn baseline_summary(baseline: &Value) -> Value {
    let mut summary = json!({});
    for key in [
        "verdict",
        "complete",
        "errorCount",
        "warningCount",
        "infoCount",
        "totalDiagnostics",
        "diagnostics",
        "diagnosticsTruncated",
        "blockingReason",
    ] {
        if let Some(value) = baseline.get(key) {
            summary[key] = value.clone();
        }
    }
    summary
}

/// A closed touched file was stamped with the hash of its disk text; it was checked with the
/// edited text.
fn stamp_touched_files(answer: &mut Value, what_if: &WhatIf, root: &Path) {
    let Some(files) = answer.get_mut("files").and_then(Value::as_array_mut) else { return };
    for entry in files {
        if let Some(file) =
            what_if.touched.iter().find(|file| entry["file"] == json!(display_relative(root, &file.path)))
        {
            entry["edited"] = json!(true);
            if entry.get("contentSha256").is_some() {
                entry["contentSha256"] = json!(sha256_hex(&file.after));
            }
        }
    }
}

/// Which diagnostics the edits introduced, resolved or left alone. A baseline diagnostic of a
/// touched file is moved to where its range lies in the edited text; one whose range an edit
/// replaced cannot be the same diagnostic any more.
fn delta(baseline: &Value, hypothetical: &Value, what_if: &WhatIf, root: &Path) -> Value {
    let list = |answer: &Value| answer["diagnostics"].as_array().cloned().unwrap_or_default();
    let mut before: Vec<(Value, Option<Value>)> = list(baseline)
        .into_iter()
        .map(|diagnostic| {
            let moved = moved_range(&diagnostic, what_if, root);
            (diagnostic, moved)
        })
        .collect();
    let mut introduced = Vec::new();
    let mut unchanged = Vec::new();
    for diagnostic in list(hypothetical) {
        let same = before.iter().position(|(old, moved)| {
            moved.as_ref() == Some(&diagnostic["range"])
                && ["file", "code", "message", "severity"].iter().all(|key| old[key] == diagnostic[key])
        });
        match same {
            Some(index) => {
                before.remove(index);
                unchanged.push(delta_entry(&diagnostic));
            }
            None => introduced.push(delta_entry(&diagnostic)),
        }
    }
    let resolved: Vec<Value> = before
        .into_iter()
        .map(|(old, moved)| {
            let mut entry = delta_entry(&old);
            entry["range"] = moved.unwrap_or(Value::Null);
            entry["rangeBeforeEdit"] = old["range"].clone();
            entry
        })
        .collect();
    let complete = baseline["complete"] == json!(true)
        && hypothetical["complete"] == json!(true)
        && baseline["diagnosticsTruncated"] != json!(true)
        && hypothetical["diagnosticsTruncated"] != json!(true);
    json!({
        "introduced": introduced,
        "resolved": resolved,
        "unchanged": unchanged,
        "complete": complete,
    })
}

fn delta_entry(diagnostic: &Value) -> Value {
    json!({
        "file": diagnostic["file"],
        "range": diagnostic["range"],
        "severity": diagnostic["severity"],
        "code": diagnostic["code"],
        "message": diagnostic["message"],
    })
}

/// Where a baseline diagnostic's range lies in the edited text (`None`: an edit replaced it).
fn moved_range(diagnostic: &Value, what_if: &WhatIf, root: &Path) -> Option<Value> {
    let Some(file) =
        what_if.touched.iter().find(|file| diagnostic["file"] == json!(display_relative(root, &file.path)))
    else {
        return Some(diagnostic["range"].clone());
    };
    let range: Range = serde_json::from_value(diagnostic["range"].clone()).ok()?;
    let before_index = LineIndex::new(&file.before);
    let after_index = LineIndex::new(&file.after);
    let start = map_offset(before_index.offset(&file.before, range.start), &file.replaced)?;
    let end = map_offset(before_index.offset(&file.before, range.end), &file.replaced)?;
    serde_json::to_value(Range {
        start: after_index.position(&file.after, start),
        end: after_index.position(&file.after, end),
    })
    .ok()
}

/// Where a byte offset of the old text lies in the new one (`None`: inside a replaced range).
fn map_offset(offset: usize, replaced: &[Replaced]) -> Option<usize> {
    let mut shift: isize = 0;
    for edit in replaced {
        if offset <= edit.start {
            break;
        }
        if offset < edit.end {
            return None;
        }
        shift += edit.new_len as isize - (edit.end - edit.start) as isize;
    }
    usize::try_from(offset as isize + shift).ok()
}

/// The touched files and projects: those compiling a touched file, and every project that
/// references one of them, transitively.
fn downstream(model: &WorkspaceModel, touched: &[PathBuf]) -> (HashSet<PathBuf>, HashSet<PathBuf>) {
    let mut projects: HashSet<PathBuf> =
        touched.iter().flat_map(|file| model.projects_compiling(file)).map(|project| project.path.clone()).collect();
    loop {
        let before = projects.len();
        for project in &model.projects {
            if project.project_references.iter().any(|reference| projects.contains(reference)) {
                projects.insert(project.path.clone());
            }
        }
        if projects.len() == before {
            break;
        }
    }
    let mut files: HashSet<PathBuf> = touched.iter().cloned().collect();
    for project in model.projects.iter().filter(|project| projects.contains(&project.path)) {
        files.extend(compile_files(project));
    }
    (files, projects)
}

// ----- parsing and applying ------------------------------------------------------------------

const EDITS_SHAPE: &str = "expected a WorkspaceEdit (changes or documentChanges with text edits) or a list of \
                           {path, range, newText} or {path, text}";

/// Reads `edits` in any of its three shapes into the edits of each file, in first-seen order.
fn parse_edits(edits: &Value, root: &Path) -> Result<Vec<FileEdits>, CommandError> {
    let mut files: Vec<FileEdits> = Vec::new();
    let mut add = |path: PathBuf, expected_version: Option<(i64, String)>, edit: RequestedEdit| match files
        .iter_mut()
        .find(|file| file.path == path)
    {
        Some(file) => {
            file.edits.push(edit);
            if file.expected_version.is_none() {
                file.expected_version = expected_version;
            }
        }
        None => files.push(FileEdits { path, expected_version, edits: vec![edit] }),
    };
    match edits {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let argument = format!("edits[{index}]");
                let object = item.as_object().ok_or_else(|| {
                    CommandError::invalid_argument(&argument, "expected {path, range, newText} or {path, text}")
                })?;
                let path_argument = format!("{argument}.path");
                let written = object
                    .get("path")
                    .and_then(Value::as_str)
                    .ok_or_else(|| CommandError::invalid_argument(&path_argument, "expected the path of a file"))?;
                let path = confine(root, written, &path_argument)?;
                let change = match (object.get("text"), object.get("range")) {
                    (Some(text), None) => Change::Whole(
                        text.as_str()
                            .ok_or_else(|| {
                                CommandError::invalid_argument(&format!("{argument}.text"), "expected a string")
                            })?
                            .to_owned(),
                    ),
                    (None, Some(_)) => text_edit(item, &argument, "newText")?,
                    (Some(_), Some(_)) => {
                        return Err(CommandError::invalid_argument(
                            &argument,
                            "give either text (the whole file) or range and newText, not both",
                        ));
                    }
                    (None, None) => {
                        return Err(CommandError::invalid_argument(&argument, "expected range and newText, or text"));
                    }
                };
                add(path, None, RequestedEdit { argument, change });
            }
        }
        Value::Object(object) if object.contains_key("documentChanges") => {
            let changes = object["documentChanges"]
                .as_array()
                .ok_or_else(|| CommandError::invalid_argument("edits.documentChanges", "expected an array"))?;
            for (index, change) in changes.iter().enumerate() {
                let argument = format!("edits.documentChanges[{index}]");
                if change.get("kind").is_some() {
                    return Err(CommandError::invalid_argument(
                        &argument,
                        "file operations (create, rename, delete) are not supported by a what-if; only text edits",
                    ));
                }
                let uri_argument = format!("{argument}.textDocument.uri");
                let uri = change
                    .pointer("/textDocument/uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| CommandError::invalid_argument(&uri_argument, "expected a file URI"))?;
                let path = path_of_uri(uri, root, &uri_argument)?;
                let expected = change
                    .pointer("/textDocument/version")
                    .and_then(Value::as_i64)
                    .filter(|&version| version != 0)
                    .map(|version| (version, format!("{argument}.textDocument.version")));
                let text_edits = change
                    .get("edits")
                    .and_then(Value::as_array)
                    .ok_or_else(|| CommandError::invalid_argument(&format!("{argument}.edits"), "expected an array"))?;
                for (edit_index, edit) in text_edits.iter().enumerate() {
                    let argument = format!("{argument}.edits[{edit_index}]");
                    let change = text_edit(edit, &argument, "newText")?;
                    add(path.clone(), expected.clone(), RequestedEdit { argument, change });
                }
            }
        }
        Value::Object(object) if object.contains_key("changes") => {
            let changes = object["changes"]
                .as_object()
                .ok_or_else(|| CommandError::invalid_argument("edits.changes", "expected an object of URI → edits"))?;
            for (uri, text_edits) in changes {
                let argument = format!("edits.changes[{uri}]");
                let path = path_of_uri(uri, root, &argument)?;
                let text_edits = text_edits
                    .as_array()
                    .ok_or_else(|| CommandError::invalid_argument(&argument, "expected an array of text edits"))?;
                for (edit_index, edit) in text_edits.iter().enumerate() {
                    let argument = format!("{argument}[{edit_index}]");
                    let change = text_edit(edit, &argument, "newText")?;
                    add(path.clone(), None, RequestedEdit { argument, change });
                }
            }
        }
        _ => return Err(CommandError::invalid_argument("edits", EDITS_SHAPE)),
    }
    if files.is_empty() {
        return Err(CommandError::invalid_argument("edits", format!("no edit given; {EDITS_SHAPE}")));
    }
    Ok(files)
}

fn path_of_uri(uri: &str, root: &Path, argument: &str) -> Result<PathBuf, CommandError> {
    let path = crate::uri::uri_to_path(uri)
        .ok_or_else(|| CommandError::invalid_argument(argument, format!("{uri} is not a file URI")))?;
    confine(root, &path.to_string_lossy(), argument)
}

fn text_edit(edit: &Value, argument: &str, text_member: &str) -> Result<Change, CommandError> {
    let range: Range =
        edit.get("range").cloned().and_then(|range| serde_json::from_value(range).ok()).ok_or_else(|| {
            CommandError::invalid_argument(
                &format!("{argument}.range"),
                "expected {start: {line, character}, end: {line, character}} with non-negative integers",
            )
        })?;
    let new_text = edit
        .get(text_member)
        .and_then(Value::as_str)
        .ok_or_else(|| CommandError::invalid_argument(&format!("{argument}.{text_member}"), "expected a string"))?
        .to_owned();
    Ok(Change::Range { range, new_text })
}

/// Applies one file's edits to `before`; refuses an edit outside the text or overlapping
/// another. Edits at the same position apply in the order given, as LSP's.
fn apply_edits(before: &str, edits: &[RequestedEdit]) -> Result<(String, Vec<Replaced>), CommandError> {
    if let Some(whole) = edits.iter().position(|edit| matches!(edit.change, Change::Whole(_))) {
        if edits.len() > 1 {
            let other = if whole == 0 { 1 } else { whole };
            return Err(CommandError::invalid_argument(
                &edits[other].argument,
                "a whole-file text cannot be combined with other edits of the same file",
            ));
        }
        if let Change::Whole(text) = &edits[0].change {
            return Ok((text.clone(), vec![Replaced { start: 0, end: before.len(), new_len: text.len() }]));
        }
    }
    let index = LineIndex::new(before);
    let mut located: Vec<(usize, usize, &str, &str, usize)> = Vec::new();
    for (given, edit) in edits.iter().enumerate() {
        let Change::Range { range, new_text } = &edit.change else { continue };
        let argument = format!("{}.range", edit.argument);
        let start = strict_offset(before, &index, range.start)
            .ok_or_else(|| outside(&argument, "start", range.start, before, &index))?;
        let end = strict_offset(before, &index, range.end)
            .ok_or_else(|| outside(&argument, "end", range.end, before, &index))?;
        if end < start {
            return Err(CommandError::invalid_argument(&argument, "the range ends before it starts"));
        }
        located.push((start, end, new_text.as_str(), edit.argument.as_str(), given));
    }
    located.sort_by_key(|&(start, end, _, _, _)| (start, end));
    for pair in located.windows(2) {
        if pair[1].0 < pair[0].1 {
            // The later of the two in the argument is the one refused.
            let (later, earlier) = if pair[1].4 > pair[0].4 { (pair[1].3, pair[0].3) } else { (pair[0].3, pair[1].3) };
            return Err(CommandError::invalid_argument(&format!("{later}.range"), format!("overlaps {earlier}")));
        }
    }
    let mut after = String::with_capacity(before.len());
    let mut replaced = Vec::with_capacity(located.len());
    let mut copied = 0;
    for &(start, end, new_text, _, _) in &located {
        after.push_str(&before[copied..start]);
        after.push_str(new_text);
        copied = end;
        replaced.push(Replaced { start, end, new_len: new_text.len() });
    }
    after.push_str(&before[copied..]);
    Ok((after, replaced))
}

fn outside(argument: &str, end: &str, position: Position, text: &str, index: &LineIndex) -> CommandError {
    let detail = match index.line_text(text, position.line as usize) {
        None => format!("the file has {} line(s)", index.line_count()),
        Some(line) => format!(
            "line {} has {} UTF-16 code units (or the position splits a surrogate pair)",
            position.line,
            line.encode_utf16().count()
        ),
    };
    CommandError::invalid_argument(
        argument,
        format!(
            "its {end} (line {}, character {}) falls outside the file: {detail}",
            position.line, position.character
        ),
    )
}

/// The byte offset of an LSP position, or `None` when it is not in the text (no clamping).
fn strict_offset(text: &str, index: &LineIndex, position: Position) -> Option<usize> {
    let line = index.line_text(text, position.line as usize)?;
    let start = index.offset(text, Position { line: position.line, character: 0 });
    let mut units = 0u32;
    for (at, character) in line.char_indices() {
        if units == position.character {
            return Some(start + at);
        }
        if units > position.character {
            return None;
        }
        units += character.len_utf16() as u32;
    }
    (units == position.character).then_some(start + line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: (u32, u32), end: (u32, u32)) -> Range {
        Range { start: Position { line: start.0, character: start.1 }, end: Position { line: end.0, character: end.1 } }
    }

    fn edit(argument: &str, start: (u32, u32), end: (u32, u32), text: &str) -> RequestedEdit {
        RequestedEdit {
            argument: argument.to_owned(),
            change: Change::Range { range: range(start, end), new_text: text.to_owned() },
        }
    }

    #[test]
    fn edits_apply_in_utf16_with_offsets_mapped() {
        let before = "let 𝔸 = 1\nlet b = 2\n";
        let (after, replaced) =
            apply_edits(before, &[edit("edits[1]", (1, 8), (1, 9), "20"), edit("edits[0]", (0, 9), (0, 10), "'x'")])
                .unwrap();
        assert_eq!(after, "let 𝔸 = 'x'\nlet b = 20\n");
        // "let b" on line 1 moved by the two extra bytes of line 0.
        let b = before.find("b =").unwrap();
        assert_eq!(map_offset(b, &replaced), Some(after.find("b =").unwrap()));
        assert_eq!(map_offset(before.find('1').unwrap(), &replaced), Some(after.find('\'').unwrap()));
        // Inside a replaced range there is no such place any more.
        let wide = [Replaced { start: 2, end: 6, new_len: 1 }];
        assert_eq!(map_offset(4, &wide), None);
        assert_eq!(map_offset(6, &wide), Some(3));
        assert_eq!(map_offset(2, &wide), Some(2));
    }

    #[test]
    fn overlapping_and_outside_edits_are_refused_by_name() {
        let before = "let a = 1\nlet b = 2";
        let error =
            apply_edits(before, &[edit("edits[0]", (0, 4), (0, 9), "x"), edit("edits[1]", (0, 8), (0, 9), "y")])
                .unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits[1].range"));
        let error = apply_edits(before, &[edit("edits[0]", (2, 0), (2, 0), "x")]).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits[0].range"));
        let error = apply_edits(before, &[edit("edits[3]", (0, 4), (0, 10), "x")]).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits[3].range"));
        // Inside a surrogate pair is outside the text too.
        let error = apply_edits("𝔸", &[edit("edits[0]", (0, 1), (0, 1), "x")]).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits[0].range"));
        // Two inserts at one place apply in the order given.
        let (after, _) =
            apply_edits(before, &[edit("edits[0]", (0, 0), (0, 0), "A"), edit("edits[1]", (0, 0), (0, 0), "B")])
                .unwrap();
        assert!(after.starts_with("ABlet"));
    }

    #[test]
    fn all_three_shapes_parse_and_bad_ones_are_named() {
        let root = std::env::temp_dir();
        let root = root.canonicalize().unwrap();
        let uri = crate::uri::path_to_uri(&root.join("A.fs")).unwrap();
        let text_edit = json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "newText": "x"});
        let changes = parse_edits(&json!({"changes": {uri.clone(): [text_edit.clone()]}}), &root).unwrap();
        assert_eq!(changes[0].path, root.join("A.fs"));
        let document = parse_edits(
            &json!({"documentChanges": [{"textDocument": {"uri": uri, "version": 4}, "edits": [text_edit.clone()]}]}),
            &root,
        )
        .unwrap();
        assert_eq!(document[0].expected_version.as_ref().map(|(version, _)| *version), Some(4));
        let list = parse_edits(
            &json!([{"path": "A.fs", "text": "x"}, {"path": "B.fs", "range": text_edit["range"], "newText": "y"}]),
            &root,
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        let error = parse_edits(&json!([{"path": "A.fs", "range": {"start": 1}, "newText": "y"}]), &root).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits[0].range"));
        let error =
            parse_edits(&json!({"documentChanges": [{"kind": "create", "uri": "file:///x"}]}), &root).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits.documentChanges[0]"));
        let error = parse_edits(&json!("nope"), &root).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits"));
        let error = parse_edits(&json!([{"path": "../outside.fs", "text": ""}]), &root).unwrap_err();
        assert_eq!(error.kind(), error_kinds::INVALID_PATH);
    }
}
