//! The diagnostic tools: `fslens.explainDiagnostic`, `fslens.diagnosticFixes` and
//! `fslens.suggestOpen`. This module holds what they share: reading the position arguments,
//! finding the diagnostic FSAC published there (after making FSAC analyse the file at the
//! content it has now, as a trusted `fslens.check` does), asking FSAC for its code actions
//! with that diagnostic echoed back exactly, and previewing a `WorkspaceEdit` without writing
//! anything.

pub mod arguments;
pub mod explain;
pub mod fixes;
pub mod render;
pub mod suggest_open;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::check::{CurrentAnalysis, current_analysis, fsac_for_file};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position};
use crate::lsp::ext::error_kinds;
use crate::syntax::index::Overlay;
use crate::workspace::WorkspaceModel;

/// How many diagnostics a "nothing here" answer lists as the nearest ones.
const NEAREST_LISTED: usize = 5;
/// Lines of context above and below the diagnostic's first line.
pub const CONTEXT_LINES: usize = 2;

/// Which diagnostic of a file the caller means.
#[derive(Debug, Clone)]
pub struct Selector {
    pub path: String,
    pub line: u32,
    pub character: Option<u32>,
    /// The code as a bare number (`FS0039` → `39`).
    pub code: Option<u64>,
    /// Among several matches, which one (0-based, in published order).
    pub index: Option<usize>,
}

/// `FS0039`, `fs39`, `"39"` or `39` → 39.
pub fn parse_code(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => {
            let text = text.trim();
            let digits = text.strip_prefix("FS").or_else(|| text.strip_prefix("fs")).unwrap_or(text);
            if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok()
        }
        _ => None,
    }
}

/// The code FSAC published, as a number when it is one (`27`, `"27"`); analyzer codes such as
/// `FSAC0003` stay strings.
fn published_code(diagnostic: &Value) -> Option<u64> {
    diagnostic.get("code").and_then(parse_code)
}

/// `FS0039` for compiler codes, the published text otherwise.
pub fn display_code(diagnostic: &Value) -> Value {
    match (published_code(diagnostic), diagnostic.get("code")) {
        (Some(number), _) if diagnostic["source"].as_str().is_none_or(|source| source.contains("F# Compiler")) => {
            json!(format!("FS{number:04}"))
        }
        (_, Some(code)) => code.clone(),
        _ => Value::Null,
    }
}

pub fn severity_name(diagnostic: &Value) -> &'static str {
    match diagnostic.get("severity").and_then(Value::as_u64) {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "information",
        _ => "hint",
    }
}

fn position_of(value: &Value) -> Position {
    Position {
        line: value["line"].as_u64().unwrap_or(0) as u32,
        character: value["character"].as_u64().unwrap_or(0) as u32,
    }
}

/// A diagnostic as the tools show it: FSAC's fields plus the readable code and severity.
pub fn describe_diagnostic(file: &str, diagnostic: &Value) -> Value {
    json!({
        "file": file,
        "code": display_code(diagnostic),
        "severity": severity_name(diagnostic),
        "message": diagnostic.get("message").cloned().unwrap_or(Value::Null),
        "range": diagnostic.get("range").cloned().unwrap_or(Value::Null),
        "source": diagnostic.get("source").cloned().unwrap_or(Value::Null),
    })
}

/// One file's diagnostic as FSAC published it, with where it was found.
pub struct LocatedDiagnostic {
    pub root: PathBuf,
    pub model: WorkspaceModel,
    pub path: PathBuf,
    pub uri: String,
    /// The text FSAC analysed (the editor's buffer, else the disk).
    pub text: String,
    /// Exactly as published: this is what code actions get echoed.
    pub diagnostic: Value,
    /// How many diagnostics matched the selector (the `index` argument picks among them).
    pub matched: usize,
    pub index: usize,
    pub stamp: Value,
    /// Whether this command opened the file in FSAC (it must then release it).
    pub acquired: bool,
}

/// Either the diagnostic, or an `unknown` answer saying why FSAC could not tell.
pub enum Location {
    Found(Box<LocatedDiagnostic>),
    Unknown(Value),
}

/// The workspace root, the model and the selected file's text.
pub async fn file_text(
    context: &CommandContext,
    written: &str,
) -> Result<(PathBuf, WorkspaceModel, PathBuf, String, Overlay), CommandError> {
    let root = context.workspace_root()?.to_path_buf();
    let path = confine(&root, written, "path")?;
    let model = crate::commands::load_workspace_model(&root).await?;
    let overlay = context.editor_buffers().await?;
    let text = read_text(&overlay, &path)
        .map_err(|message| CommandError::InvalidPath { path: written.to_owned(), message })?;
    Ok((root, model, path, text, overlay))
}

/// The editor's buffer for `path`, else the file on disk.
pub fn read_text(overlay: &Overlay, path: &Path) -> Result<String, String> {
    match overlay.get(path) {
        Some(text) => Ok(text.to_string()),
        None => crate::source_files::read_regular_text(path).map_err(|error| format!("cannot read it: {error}")),
    }
}

/// The `unknown` answer of a diagnostic tool: FSAC could not say what is at the position.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnknownAnswer {
    status: &'static str,
    /// `blockingReason.message`.
    reason: Value,
    /// The typed reason `fslens.check` gives too: `{errorKind, message, …}`.
    blocking_reason: Value,
    via: &'static str,
    elapsed_ms: u64,
}

pub fn unknown_answer(reason: Value, started: Instant) -> UnknownAnswer {
    UnknownAnswer {
        status: "unknown",
        reason: reason["message"].clone(),
        blocking_reason: reason,
        via: "fsac",
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}

/// An answer struct as the JSON the command returns.
pub fn to_json<T: Serialize>(answer: &T) -> Result<Value, CommandError> {
    serde_json::to_value(answer).map_err(|error| CommandError::Internal(format!("cannot write the answer: {error}")))
}

/// Finds the selected diagnostic: FSAC must first have analysed the file at the content it has
/// now (the file is opened in FSAC for the analysis when the editor has not opened it). The
/// file stays acquired on success, so code actions can be asked; call [`LocatedDiagnostic::release`].
pub async fn locate(
    context: &mut CommandContext,
    selector: &Selector,
    timeout: Duration,
) -> Result<Location, CommandError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let (root, model, path, text, _) = file_text(context, &selector.path).await?;
    let lines = LineIndex::new(&text);
    if selector.line as usize >= lines.line_count() {
        return Err(CommandError::invalid_argument(
            "line",
            format!("{} has {} lines (0-based)", selector.path, lines.line_count()),
        ));
    }
    let generation = match fsac_for_file(context, &model, &root, &path, deadline).await? {
        Ok(generation) => generation,
        Err(reason) => return Ok(Location::Unknown(reason)),
    };
    let uri = crate::uri::path_to_uri(&path)
        .ok_or_else(|| CommandError::Internal(format!("cannot make a URI of {}", path.display())))?;
    match context.acquire_document(&uri, text.clone()).await {
        Ok(()) => {}
        Err(CommandError::Unavailable(reason)) => {
            return Ok(Location::Unknown(json!({ "errorKind": error_kinds::FSAC_UNAVAILABLE, "message": reason })));
        }
        Err(error) => return Err(error),
    }
    let analysis = current_analysis(context, &uri, deadline, generation).await;
    let (diagnostics, snapshot) = match analysis {
        Ok(CurrentAnalysis::Analysed { diagnostics, snapshot }) => (diagnostics, snapshot),
        Ok(other) => {
            context.release_document(&uri);
            let reason = match other {
                CurrentAnalysis::TimedOut => json!({
                    "errorKind": error_kinds::TIMEOUT,
                    "message": format!(
                        "FSAC had not analysed {} at its current content within {} ms, so whether a diagnostic is there is not known",
                        selector.path,
                        timeout.as_millis()
                    ),
                }),
                _ => {
                    json!({ "errorKind": error_kinds::FSAC_RESTARTED, "message": "FSAC exited while the file was analysed" })
                }
            };
            return Ok(Location::Unknown(reason));
        }
        Err(error) => {
            context.release_document(&uri);
            return Err(error);
        }
    };
    let file = display_relative(&root, &path);
    let matches: Vec<&Value> = diagnostics.iter().filter(|diagnostic| selector.accepts(diagnostic)).collect();
    let chosen = selector.index.unwrap_or(0);
    let Some(diagnostic) = matches.get(chosen).map(|diagnostic| (*diagnostic).clone()) else {
        context.release_document(&uri);
        return Err(nothing_here(selector, &file, &diagnostics, matches.len()));
    };
    let mut stamp = json!({ "openInEditor": snapshot.open_in_editor, "sessionGeneration": generation });
    if snapshot.open_in_editor {
        stamp["version"] = json!(snapshot.expected_version);
    }
    Ok(Location::Found(Box::new(LocatedDiagnostic {
        root,
        model,
        path,
        uri,
        text,
        diagnostic,
        matched: matches.len(),
        index: chosen,
        stamp,
        acquired: true,
    })))
}

impl Selector {
    /// Whether `diagnostic` covers the selected line (and character and code, when given).
    fn accepts(&self, diagnostic: &Value) -> bool {
        let start = position_of(&diagnostic["range"]["start"]);
        let end = position_of(&diagnostic["range"]["end"]);
        if self.line < start.line || self.line > end.line {
            return false;
        }
        if let Some(character) = self.character {
            let after_start = self.line > start.line || character >= start.character;
            let before_end = self.line < end.line || character <= end.character;
            if !(after_start && before_end) {
                return false;
            }
        }
        self.code.is_none_or(|code| published_code(diagnostic) == Some(code))
    }
}

/// The typed "no diagnostic there" failure, listing the nearest diagnostics of the file.
fn nothing_here(selector: &Selector, file: &str, diagnostics: &[Value], matched: usize) -> CommandError {
    let mut nearest: Vec<&Value> = diagnostics.iter().collect();
    nearest.sort_by_key(|diagnostic| {
        let line = position_of(&diagnostic["range"]["start"]).line;
        (line.abs_diff(selector.line), line)
    });
    let nearest: Vec<Value> =
        nearest.into_iter().take(NEAREST_LISTED).map(|diagnostic| describe_diagnostic(file, diagnostic)).collect();
    let wanted = match selector.code {
        Some(code) => format!("FS{code:04} "),
        None => String::new(),
    };
    let message = if matched > 0 {
        format!(
            "index {} is out of range: {matched} diagnostic(s) match at {file} line {}",
            selector.index.unwrap_or(0),
            selector.line
        )
    } else {
        format!(
            "FSAC reports no {wanted}diagnostic at {file} line {}{} (the file has {} diagnostic(s), analysed at its current content)",
            selector.line,
            selector.character.map(|character| format!(" character {character}")).unwrap_or_default(),
            diagnostics.len()
        )
    };
    CommandError::typed(
        error_kinds::NO_DIAGNOSTIC_AT_POSITION,
        crate::lsp::message::error_codes::INVALID_PARAMS,
        message,
        json!({ "file": file, "line": selector.line, "matched": matched, "fileDiagnosticCount": diagnostics.len(), "nearest": nearest }),
    )
}

impl LocatedDiagnostic {
    pub fn file(&self) -> String {
        display_relative(&self.root, &self.path)
    }

    pub fn release(&self, context: &CommandContext) {
        if self.acquired {
            context.release_document(&self.uri);
        }
    }

    /// The diagnostic with the line text, a few lines of context and where it was found.
    pub fn describe(&self) -> Value {
        let lines = LineIndex::new(&self.text);
        let start = position_of(&self.diagnostic["range"]["start"]).line as usize;
        let first = start.saturating_sub(CONTEXT_LINES);
        // `lines()` does not count the empty "line" after a final newline.
        let last = (start + CONTEXT_LINES).min(self.text.lines().count().saturating_sub(1)).max(start);
        let context: Vec<Value> = (first..=last)
            .filter_map(|line| lines.line_text(&self.text, line).map(|text| json!({ "line": line, "text": text })))
            .collect();
        let mut described = describe_diagnostic(&self.file(), &self.diagnostic);
        described["lineText"] = json!(lines.line_text(&self.text, start).unwrap_or_default());
        described["contextLines"] = json!(context);
        described["relatedInformation"] = json!(
            self.diagnostic["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|related| self.describe_related(related))
                .collect::<Vec<_>>()
        );
        described["published"] = self.diagnostic.clone();
        described
    }
}

impl LocatedDiagnostic {
    /// A related location with its workspace-relative file and the line it points at.
    fn describe_related(&self, related: &Value) -> Value {
        let mut described = related.clone();
        let Some(path) = related.pointer("/location/uri").and_then(Value::as_str).and_then(crate::uri::uri_to_path)
        else {
            return described;
        };
        described["file"] = json!(display_relative(&self.root, &path));
        let line = related.pointer("/location/range/start/line").and_then(Value::as_u64).unwrap_or(0) as usize;
        let text = if path == self.path {
            Some(self.text.clone())
        } else {
            crate::source_files::read_regular_text(&path).ok()
        };
        if let Some(text) = text {
            described["lineText"] = json!(LineIndex::new(&text).line_text(&text, line).unwrap_or_default());
        }
        described
    }
}

/// What explain and fixes both start from: the diagnostic the selector names (after FSAC
/// analysed the file's current content) and FSAC's code actions for it, with the document
/// FSAC had to open for them released again. `Err(answer)` is the `unknown` answer to return
/// as it is.
pub async fn diagnostic_with_actions(
    context: &mut CommandContext,
    selector: &Selector,
    timeout: Duration,
    started: Instant,
) -> Result<Result<(Box<LocatedDiagnostic>, Result<Vec<Value>, String>), UnknownAnswer>, CommandError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let located = match locate(context, selector, timeout).await? {
        Location::Found(located) => located,
        Location::Unknown(reason) => return Ok(Err(unknown_answer(reason, started))),
    };
    let actions = code_actions(context, &located, deadline).await;
    located.release(context);
    Ok(Ok((located, actions?)))
}

/// Asks FSAC for its code actions for `located`'s diagnostic, echoed back exactly as it was
/// published (FSAC matches fixes on its code, message, source and range:
/// docs/fsac-protocol.md §7). `Err` holds why FSAC gave no answer.
pub async fn code_actions(
    context: &CommandContext,
    located: &LocatedDiagnostic,
    deadline: tokio::time::Instant,
) -> Result<Result<Vec<Value>, String>, CommandError> {
    let params = json!({
        "textDocument": { "uri": located.uri },
        "range": located.diagnostic["range"],
        "context": { "diagnostics": [located.diagnostic] },
    });
    match context.backend_request("textDocument/codeAction", params, deadline).await {
        Ok(Ok(Value::Array(actions))) => Ok(Ok(actions)),
        Ok(Ok(Value::Null)) => Ok(Ok(Vec::new())),
        Ok(Ok(other)) => Ok(Err(format!("FSAC answered codeAction with an unexpected {other}"))),
        Ok(Err(error)) => Ok(Err(format!("FSAC refused codeAction: {} ({})", error.message, error.code))),
        Err(CommandError::Timeout) => Ok(Err("FSAC did not answer codeAction before the deadline".to_owned())),
        Err(CommandError::Unavailable(reason)) => Ok(Err(format!("FSAC is not available: {reason}"))),
        Err(error) => Err(error),
    }
}

/// The text edits of a `WorkspaceEdit` by document URI (`changes` or `documentChanges`), and
/// the resource operations (create/rename/delete) it also holds, which are not previewed.
fn edits_by_uri(edit: &Value) -> (Vec<(String, Vec<Value>)>, usize) {
    let mut files: Vec<(String, Vec<Value>)> = Vec::new();
    let mut operations = 0;
    if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (uri, edits) in changes {
            files.push((uri.clone(), edits.as_array().cloned().unwrap_or_default()));
        }
    }
    for change in edit.get("documentChanges").and_then(Value::as_array).into_iter().flatten() {
        match (change.pointer("/textDocument/uri").and_then(Value::as_str), change.get("edits")) {
            (Some(uri), Some(Value::Array(edits))) => files.push((uri.to_owned(), edits.clone())),
            _ => operations += 1,
        }
    }
    (files, operations)
}

/// Each text edit of `edit` with the text it replaces and the line(s) it leaves, read from the
/// editor's buffers or the disk. Nothing is written.
pub fn preview_edit(edit: &Value, root: &Path, overlay: &Overlay) -> Value {
    let (files, operations) = edits_by_uri(edit);
    let mut previews = Vec::new();
    for (uri, edits) in files {
        let path = crate::uri::uri_to_path(&uri);
        let file = path.as_deref().map(|path| display_relative(root, path)).unwrap_or_else(|| uri.clone());
        let text = match path.as_deref().map(|path| read_text(overlay, path)) {
            Some(Ok(text)) => text,
            Some(Err(why)) => {
                previews.push(json!({ "file": file, "error": why, "edits": edits }));
                continue;
            }
            None => {
                previews.push(json!({ "file": file, "error": "not a file URI", "edits": edits }));
                continue;
            }
        };
        let lines = LineIndex::new(&text);
        for text_edit in &edits {
            let start = position_of(&text_edit["range"]["start"]);
            let end = position_of(&text_edit["range"]["end"]);
            let (from, to) = (lines.offset(&text, start), lines.offset(&text, end));
            let new_text = text_edit["newText"].as_str().unwrap_or_default();
            let line_start = lines.offset(&text, Position { line: start.line, character: 0 });
            let end_line = lines.line_text(&text, end.line as usize).unwrap_or_default();
            let end_line_start = lines.offset(&text, Position { line: end.line, character: 0 });
            let rest =
                end_line.get((to.max(end_line_start) - end_line_start).min(end_line.len())..).unwrap_or_default();
            let result = format!("{}{new_text}{rest}", text.get(line_start..from.max(line_start)).unwrap_or_default());
            let before: Vec<&str> =
                (start.line..=end.line).filter_map(|line| lines.line_text(&text, line as usize)).collect();
            previews.push(json!({
                "file": file,
                "range": text_edit["range"],
                "oldText": text.get(from..to.max(from)).unwrap_or_default(),
                "newText": new_text,
                "linesBefore": before,
                "linesAfter": result.split('\n').collect::<Vec<_>>(),
            }));
        }
    }
    json!({ "edits": previews, "resourceOperationsNotPreviewed": operations })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_read_in_every_spelling() {
        assert_eq!(parse_code(&json!("FS0039")), Some(39));
        assert_eq!(parse_code(&json!("fs27")), Some(27));
        assert_eq!(parse_code(&json!(" 1 ")), Some(1));
        assert_eq!(parse_code(&json!(39)), Some(39));
        assert_eq!(parse_code(&json!("FSAC0003x")), None);
        assert_eq!(parse_code(&json!("")), None);
        assert_eq!(display_code(&json!({"code": 39, "source": "F# Compiler"})), json!("FS0039"));
        assert_eq!(display_code(&json!({"code": "FSAC0003", "source": "F# Unused declarations"})), json!("FSAC0003"));
    }

    #[test]
    fn selection_is_by_line_then_character_then_code() {
        let diagnostic =
            json!({"code": 39, "range": {"start": {"line": 4, "character": 15}, "end": {"line": 4, "character": 20}}});
        let mut selector = Selector { path: "A.fs".into(), line: 4, character: None, code: None, index: None };
        assert!(selector.accepts(&diagnostic));
        selector.character = Some(21);
        assert!(!selector.accepts(&diagnostic));
        selector.character = Some(20);
        assert!(selector.accepts(&diagnostic));
        selector.code = Some(27);
        assert!(!selector.accepts(&diagnostic));
        selector.code = Some(39);
        selector.line = 5;
        assert!(!selector.accepts(&diagnostic));
    }

    #[test]
    fn previews_show_old_text_and_the_resulting_line() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("A.fs");
        std::fs::write(&file, "let run () =\n    let total = 0\n    total <- 1\n").unwrap();
        let uri = crate::uri::path_to_uri(&file).unwrap();
        let at = json!({"line": 1, "character": 8});
        let edit = json!({"documentChanges": [{"textDocument": {"uri": uri, "version": 0}, "edits": [{"range": {"start": at, "end": at}, "newText": "mutable "}]}]});
        let preview = preview_edit(&edit, directory.path(), &Overlay::new());
        let first = &preview["edits"][0];
        assert_eq!(first["file"], json!("A.fs"));
        assert_eq!(first["oldText"], json!(""));
        assert_eq!(first["linesBefore"], json!(["    let total = 0"]));
        assert_eq!(first["linesAfter"], json!(["    let mutable total = 0"]));
        let replace = json!({"changes": {uri: [{"range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 9}}, "newText": "sum"}]}});
        let preview = preview_edit(&replace, directory.path(), &Overlay::new());
        assert_eq!(preview["edits"][0]["oldText"], json!("total"));
        assert_eq!(preview["edits"][0]["linesAfter"], json!(["    sum <- 1"]));
    }
}
