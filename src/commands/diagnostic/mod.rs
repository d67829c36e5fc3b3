//! The diagnostic tools: `fslens.explainDiagnostic`, `fslens.diagnosticFixes` and
//! `fslens.suggestOpen`. This module holds what they share: reading the position arguments,
//! finding the diagnostic FSAC published there (after making FSAC analyse the file at the
//! content it has now, as a trusted `fslens.check` does), asking FSAC for its code actions
//! with that diagnostic echoed back exactly, and previewing a `WorkspaceEdit` without writing
//! anything.

pub mod answer;
pub mod arguments;
pub mod explain;
pub mod fixes;
pub mod suggest_open;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::check::{CurrentAnalysis, current_analysis, fsac_for_file};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position};
use crate::lsp::ext::error_kinds;
use crate::lsp::types::{
    ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, CodeAction, Diagnostic, DiagnosticRelatedInformation,
    NumberOrString, Range, TextDocumentIdentifier, WorkspaceEdit,
};
use crate::syntax::index::Overlay;
use crate::workspace::WorkspaceModel;
use answer::{
    Analysis, Blocked, BlockingReason, ContextLine, DiagnosticSummary, EditPreview, EditPreviews, ExplainedDiagnostic,
    Matched, PreviewedEdit, RelatedInformation, Severity, UnknownStatus, UnreadableFile, Via,
};

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
        Value::String(text) => parse_code_text(text),
        _ => None,
    }
}

/// `FS0039`, `fs39` or `39` → 39.
pub fn parse_code_text(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.strip_prefix("FS").or_else(|| text.strip_prefix("fs")).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The code FSAC published, as a number when it is one (`27`, `"27"`); analyzer codes such as
/// `FSAC0003` stay strings.
fn published_code(diagnostic: &Diagnostic) -> Option<u64> {
    match diagnostic.code.as_ref()? {
        NumberOrString::Number(number) => u64::try_from(*number).ok(),
        NumberOrString::String(text) => parse_code_text(text),
    }
}

/// `FS0039` for compiler codes, the published code otherwise.
pub fn display_code(diagnostic: &Diagnostic) -> Option<NumberOrString> {
    match published_code(diagnostic) {
        Some(number) if diagnostic.source.as_deref().is_none_or(|source| source.contains("F# Compiler")) => {
            Some(NumberOrString::String(format!("FS{number:04}")))
        }
        _ => diagnostic.code.clone(),
    }
}

/// A diagnostic as the tools show it: FSAC's fields plus the readable code and severity.
pub fn summarize(file: &str, diagnostic: &Diagnostic) -> DiagnosticSummary {
    DiagnosticSummary {
        file: file.to_owned(),
        code: display_code(diagnostic),
        severity: Severity::of_lsp(diagnostic.severity),
        message: diagnostic.message.clone(),
        range: diagnostic.range,
        source: diagnostic.source.clone(),
    }
}

/// [`summarize`] for a caller that holds FSAC's diagnostic as JSON (navigation's
/// `codeActions`); what is not an LSP diagnostic is shown as it came.
pub fn describe_diagnostic(file: &str, diagnostic: &Value) -> Value {
    match Diagnostic::read(diagnostic) {
        Some(read) => serde_json::to_value(summarize(file, &read)).unwrap_or_else(|_| diagnostic.clone()),
        None => diagnostic.clone(),
    }
}

/// One file's diagnostic as FSAC published it, with where it was found.
pub struct LocatedDiagnostic {
    pub root: PathBuf,
    pub model: WorkspaceModel,
    pub path: PathBuf,
    pub uri: String,
    /// The text FSAC analysed (the editor's buffer, else the disk).
    pub text: String,
    /// fslens's reading of the diagnostic.
    pub diagnostic: Diagnostic,
    /// Exactly as published: this is what code actions get echoed (FSAC matches its fixes on
    /// members fslens does not read, so the reading is never written back in its place).
    pub published: Value,
    /// How many diagnostics matched the selector, which one this is, and the analysis.
    pub matched: Matched,
    /// Whether this command opened the file in FSAC (it must then release it).
    pub acquired: bool,
}

/// Either the diagnostic, or why FSAC could not tell.
pub enum Location {
    Found(Box<LocatedDiagnostic>),
    Unknown(Box<BlockingReason>),
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
    overlay.current_text(path).map_err(|error| format!("cannot read it: {error}"))
}

/// The `unknown` answer of a diagnostic tool: FSAC could not say what is at the position.
pub fn unknown_answer(reason: BlockingReason, started: Instant) -> Blocked {
    Blocked {
        status: UnknownStatus::Unknown,
        reason: reason.message.clone(),
        blocking_reason: Box::new(reason),
        via: Via::Fsac,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
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
    // The position's line and column are checked as every position argument is
    // (`commands::arguments`): past the end of the file or the line is the caller's mistake.
    let line_text = crate::commands::arguments::line_of(&text, selector.line)?;
    if let Some(character) = selector.character {
        crate::commands::arguments::column_on_line(line_text, selector.line, character)?;
    }
    let generation = match fsac_for_file(context, &model, &root, &path, deadline).await? {
        Ok(generation) => generation,
        Err(reason) => return Ok(Location::Unknown(Box::new(reason))),
    };
    let uri = crate::uri::path_to_uri(&path)
        .ok_or_else(|| CommandError::Internal(format!("cannot make a URI of {}", path.display())))?;
    match context.acquire_document(&uri, text.clone()).await {
        Ok(()) => {}
        Err(CommandError::Unavailable(reason)) => {
            return Ok(Location::Unknown(Box::new(BlockingReason::new(error_kinds::FSAC_UNAVAILABLE, reason))));
        }
        Err(error) => return Err(error),
    }
    let analysis = current_analysis(context, &uri, deadline, generation).await;
    let (published, snapshot) = match analysis {
        Ok(CurrentAnalysis::Analysed { diagnostics, snapshot }) => (diagnostics, snapshot),
        Ok(other) => {
            context.release_document(&uri);
            let reason = match other {
                CurrentAnalysis::TimedOut => BlockingReason::new(
                    error_kinds::TIMEOUT,
                    format!(
                        "FSAC had not analysed {} at its current content within {} ms, so whether a diagnostic is there is not known",
                        selector.path,
                        timeout.as_millis()
                    ),
                ),
                _ => BlockingReason::new(error_kinds::FSAC_RESTARTED, "FSAC exited while the file was analysed"),
            };
            return Ok(Location::Unknown(Box::new(reason)));
        }
        Err(error) => {
            context.release_document(&uri);
            return Err(error);
        }
    };
    let file = display_relative(&root, &path);
    // What FSAC published that is not an LSP diagnostic cannot be selected.
    let diagnostics: Vec<(Diagnostic, &Value)> =
        published.iter().filter_map(|value| Diagnostic::read(value).map(|diagnostic| (diagnostic, value))).collect();
    let matches: Vec<&(Diagnostic, &Value)> =
        diagnostics.iter().filter(|(diagnostic, _)| selector.accepts(diagnostic)).collect();
    let chosen = selector.index.unwrap_or(0);
    let matched_count = matches.len();
    let Some((diagnostic, published)) =
        matches.get(chosen).map(|(diagnostic, value)| (diagnostic.clone(), (*value).clone()))
    else {
        context.release_document(&uri);
        let read: Vec<Diagnostic> = diagnostics.into_iter().map(|(diagnostic, _)| diagnostic).collect();
        return Err(nothing_here(selector, &file, &read, matched_count));
    };
    let analysis = Analysis {
        open_in_editor: snapshot.open_in_editor,
        session_generation: generation,
        version: snapshot.open_in_editor.then_some(snapshot.expected_version),
    };
    Ok(Location::Found(Box::new(LocatedDiagnostic {
        root,
        model,
        path,
        uri,
        text,
        diagnostic,
        published,
        matched: Matched { matched_count, index: chosen, analysis },
        acquired: true,
    })))
}

impl Selector {
    /// Whether `diagnostic` covers the selected line (and character and code, when given).
    fn accepts(&self, diagnostic: &Diagnostic) -> bool {
        let Range { start, end } = diagnostic.range;
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

/// The `data` of `no_diagnostic_at_position`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NothingHere<'a> {
    file: &'a str,
    line: u32,
    matched: usize,
    file_diagnostic_count: usize,
    nearest: Vec<DiagnosticSummary>,
}

/// The typed "no diagnostic there" failure, listing the nearest diagnostics of the file.
fn nothing_here(selector: &Selector, file: &str, diagnostics: &[Diagnostic], matched: usize) -> CommandError {
    let mut nearest: Vec<&Diagnostic> = diagnostics.iter().collect();
    nearest.sort_by_key(|diagnostic| {
        let line = diagnostic.range.start.line;
        (line.abs_diff(selector.line), line)
    });
    let nearest: Vec<DiagnosticSummary> =
        nearest.into_iter().take(NEAREST_LISTED).map(|diagnostic| summarize(file, diagnostic)).collect();
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
    let data = NothingHere { file, line: selector.line, matched, file_diagnostic_count: diagnostics.len(), nearest };
    CommandError::typed(
        error_kinds::NO_DIAGNOSTIC_AT_POSITION,
        crate::lsp::message::error_codes::INVALID_PARAMS,
        message,
        serde_json::to_value(data).unwrap_or_default(),
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

    /// The diagnostic as the tools show it.
    pub fn summary(&self) -> DiagnosticSummary {
        summarize(&self.file(), &self.diagnostic)
    }

    /// The diagnostic with the line text, a few lines of context and where it was found.
    pub fn describe(&self) -> ExplainedDiagnostic {
        let lines = LineIndex::new(&self.text);
        let start = self.diagnostic.range.start.line as usize;
        let first = start.saturating_sub(CONTEXT_LINES);
        // `lines()` does not count the empty "line" after a final newline.
        let last = (start + CONTEXT_LINES).min(self.text.lines().count().saturating_sub(1)).max(start);
        let context_lines = (first..=last)
            .filter_map(|line| {
                lines.line_text(&self.text, line).map(|text| ContextLine { line, text: text.to_owned() })
            })
            .collect();
        ExplainedDiagnostic {
            summary: self.summary(),
            line_text: lines.line_text(&self.text, start).unwrap_or_default().to_owned(),
            context_lines,
            related_information: self
                .diagnostic
                .related_information
                .iter()
                .flatten()
                .map(|related| self.describe_related(related))
                .collect(),
            published: self.published.clone(),
        }
    }

    /// A related location with its workspace-relative file and the line it points at.
    fn describe_related(&self, related: &DiagnosticRelatedInformation) -> RelatedInformation {
        let mut described = RelatedInformation { related: related.clone(), file: None, line_text: None };
        let Some(path) = crate::uri::uri_to_path(&related.location.uri) else {
            return described;
        };
        described.file = Some(display_relative(&self.root, &path));
        let line = related.location.range.start.line as usize;
        let text = if path == self.path {
            Some(self.text.clone())
        } else {
            crate::source_files::read_regular_text(&path).ok()
        };
        if let Some(text) = text {
            described.line_text = Some(LineIndex::new(&text).line_text(&text, line).unwrap_or_default().to_owned());
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
) -> Result<Result<(Box<LocatedDiagnostic>, Result<Vec<CodeAction>, String>), Blocked>, CommandError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let located = match locate(context, selector, timeout).await? {
        Location::Found(located) => located,
        Location::Unknown(reason) => return Ok(Err(unknown_answer(*reason, started))),
    };
    let actions = code_actions(context, &located, deadline).await;
    located.release(context);
    Ok(Ok((located, actions?)))
}

/// `textDocument/codeAction`'s parameters: the diagnostic's range, and the diagnostic as it
/// was published.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodeActionParams<'a> {
    text_document: TextDocumentIdentifier,
    range: Range,
    context: CodeActionContext<'a>,
}

#[derive(Serialize)]
struct CodeActionContext<'a> {
    diagnostics: [&'a Value; 1],
}

/// Asks FSAC for its code actions for `located`'s diagnostic, echoed back exactly as it was
/// published (FSAC matches fixes on its code, message, source and range:
/// docs/fsac-protocol.md §7). `Err` holds why FSAC gave no answer.
pub async fn code_actions(
    context: &CommandContext,
    located: &LocatedDiagnostic,
    deadline: tokio::time::Instant,
) -> Result<Result<Vec<CodeAction>, String>, CommandError> {
    let params = CodeActionParams {
        text_document: TextDocumentIdentifier { uri: located.uri.clone() },
        range: located.diagnostic.range,
        context: CodeActionContext { diagnostics: [&located.published] },
    };
    let params = serde_json::to_value(params).map_err(|error| CommandError::Internal(error.to_string()))?;
    match context.backend_request("textDocument/codeAction", params, deadline).await {
        Ok(Ok(Value::Null)) => Ok(Ok(Vec::new())),
        Ok(Ok(answer)) => match Vec::<CodeAction>::deserialize(&answer) {
            Ok(actions) => Ok(Ok(actions)),
            Err(error) => Ok(Err(format!("FSAC answered codeAction with an unexpected {answer} ({error})"))),
        },
        Ok(Err(error)) => Ok(Err(format!("FSAC refused codeAction: {} ({})", error.message, error.code))),
        Err(CommandError::Timeout) => Ok(Err("FSAC did not answer codeAction before the deadline".to_owned())),
        Err(CommandError::Unavailable(reason)) => Ok(Err(format!("FSAC is not available: {reason}"))),
        Err(error) => Err(error),
    }
}

/// Sends `params` to the editor as `workspace/applyEdit`: whether it applied the edit and why
/// not, or `None` when it did not answer by `deadline`.
pub async fn apply_in_editor(
    context: &CommandContext,
    params: &ApplyWorkspaceEditParams,
    deadline: tokio::time::Instant,
) -> Result<Option<(bool, Option<String>)>, CommandError> {
    let params = serde_json::to_value(params).map_err(|error| CommandError::Internal(error.to_string()))?;
    match context.editor_request("workspace/applyEdit", params, "/workspace/applyEdit", deadline).await {
        Ok(Ok(answer)) => Ok(Some(match ApplyWorkspaceEditResult::deserialize(&answer) {
            Ok(result) => (result.applied, result.failure_reason),
            Err(error) => {
                (false, Some(format!("the editor's answer is not an ApplyWorkspaceEditResult ({error}): {answer}")))
            }
        })),
        Ok(Err(error)) => Ok(Some((false, Some(error.message)))),
        Err(CommandError::Timeout) => Ok(None),
        Err(error) => Err(error),
    }
}

/// How much of a list the first page holds: whole entries up to `max_results` and the
/// response budget (measured as `budget::paginate` measures), and whether that cut it.
pub struct PageCut {
    pub kept: usize,
    pub truncated: bool,
    pub truncated_by_budget: bool,
}

pub fn first_page<T: Serialize>(entries: &[T], max_results: usize) -> PageCut {
    let measured: Vec<Value> = entries.iter().map(|entry| serde_json::to_value(entry).unwrap_or_default()).collect();
    let page = crate::commands::budget::paginate(
        &measured,
        0,
        max_results,
        crate::commands::budget::PageBudget::units(crate::commands::budget::RESPONSE_CHAR_BUDGET),
    );
    PageCut { kept: page.entries.len(), truncated: page.truncated, truncated_by_budget: page.truncated_by_budget }
}

/// Each text edit of `edit` with the text it replaces and the line(s) it leaves, read from the
/// editor's buffers or the disk. Nothing is written.
pub fn preview_edit(edit: &WorkspaceEdit, root: &Path, overlay: &Overlay) -> EditPreviews {
    let (files, operations) = edit.text_edits();
    let mut previews = Vec::new();
    for (uri, edits) in files {
        let path = crate::uri::uri_to_path(uri);
        let file = path.as_deref().map(|path| display_relative(root, path)).unwrap_or_else(|| uri.to_owned());
        let unreadable = |error: String| {
            EditPreview::Unreadable(UnreadableFile { file: file.clone(), error, edits: edits.to_vec() })
        };
        let text = match path.as_deref().map(|path| read_text(overlay, path)) {
            Some(Ok(text)) => text,
            Some(Err(why)) => {
                previews.push(unreadable(why));
                continue;
            }
            None => {
                previews.push(unreadable("not a file URI".to_owned()));
                continue;
            }
        };
        let lines = LineIndex::new(&text);
        for text_edit in edits {
            let Range { start, end } = text_edit.range;
            let (from, to) = (lines.offset(&text, start), lines.offset(&text, end));
            let new_text = text_edit.new_text.as_str();
            let line_start = lines.offset(&text, Position { line: start.line, character: 0 });
            let end_line = lines.line_text(&text, end.line as usize).unwrap_or_default();
            let end_line_start = lines.offset(&text, Position { line: end.line, character: 0 });
            let rest =
                end_line.get((to.max(end_line_start) - end_line_start).min(end_line.len())..).unwrap_or_default();
            let result = format!("{}{new_text}{rest}", text.get(line_start..from.max(line_start)).unwrap_or_default());
            let lines_before = (start.line..=end.line)
                .filter_map(|line| lines.line_text(&text, line as usize))
                .map(str::to_owned)
                .collect();
            previews.push(EditPreview::Previewed(PreviewedEdit {
                file: file.clone(),
                range: text_edit.range,
                old_text: text.get(from..to.max(from)).unwrap_or_default().to_owned(),
                new_text: new_text.to_owned(),
                lines_before,
                lines_after: result.split('\n').map(str::to_owned).collect(),
            }));
        }
    }
    EditPreviews { edits: previews, resource_operations_not_previewed: operations }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn diagnostic(value: Value) -> Diagnostic {
        Diagnostic::read(&value).unwrap_or_else(|| panic!("not a diagnostic: {value}"))
    }

    const RANGE: &str = r#"{"start": {"line": 4, "character": 15}, "end": {"line": 4, "character": 20}}"#;

    #[test]
    fn codes_are_read_in_every_spelling() {
        assert_eq!(parse_code(&json!("FS0039")), Some(39));
        assert_eq!(parse_code(&json!("fs27")), Some(27));
        assert_eq!(parse_code(&json!(" 1 ")), Some(1));
        assert_eq!(parse_code(&json!(39)), Some(39));
        assert_eq!(parse_code(&json!("FSAC0003x")), None);
        assert_eq!(parse_code(&json!("")), None);
        let range: Value = serde_json::from_str(RANGE).unwrap();
        let compiler = diagnostic(json!({"range": range, "code": 39, "source": "F# Compiler", "message": "m"}));
        assert_eq!(display_code(&compiler), Some(NumberOrString::String("FS0039".into())));
        let analyzer =
            diagnostic(json!({"range": range, "code": "FSAC0003", "source": "F# Unused declarations", "message": "m"}));
        assert_eq!(display_code(&analyzer), Some(NumberOrString::String("FSAC0003".into())));
        let uncoded = diagnostic(json!({"range": range, "message": "m"}));
        assert_eq!(display_code(&uncoded), None);
    }

    #[test]
    fn selection_is_by_line_then_character_then_code() {
        let range: Value = serde_json::from_str(RANGE).unwrap();
        let diagnostic = diagnostic(json!({"code": 39, "range": range, "message": "m"}));
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

    fn previewed(preview: &EditPreviews, at: usize) -> &PreviewedEdit {
        match &preview.edits[at] {
            EditPreview::Previewed(edit) => edit,
            other => panic!("not previewed: {other:?}"),
        }
    }

    #[test]
    fn previews_show_old_text_and_the_resulting_line() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("A.fs");
        std::fs::write(&file, "let run () =\n    let total = 0\n    total <- 1\n").unwrap();
        let uri = crate::uri::path_to_uri(&file).unwrap();
        let at = json!({"line": 1, "character": 8});
        let edit = json!({"documentChanges": [{"textDocument": {"uri": uri, "version": 0}, "edits": [{"range": {"start": at, "end": at}, "newText": "mutable "}]}]});
        let edit: WorkspaceEdit = serde_json::from_value(edit).unwrap();
        let preview = preview_edit(&edit, directory.path(), &Overlay::new());
        let first = previewed(&preview, 0);
        assert_eq!(first.file, "A.fs");
        assert_eq!(first.old_text, "");
        assert_eq!(first.lines_before, ["    let total = 0"]);
        assert_eq!(first.lines_after, ["    let mutable total = 0"]);
        let replace = json!({"changes": {uri: [{"range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 9}}, "newText": "sum"}]}});
        let replace: WorkspaceEdit = serde_json::from_value(replace).unwrap();
        let preview = preview_edit(&replace, directory.path(), &Overlay::new());
        assert_eq!(previewed(&preview, 0).old_text, "total");
        assert_eq!(previewed(&preview, 0).lines_after, ["    sum <- 1"]);
        // A file that cannot be read keeps its edits, said so.
        let missing =
            json!({"changes": {"file:///nowhere/B.fs": [{"range": {"start": at, "end": at}, "newText": "x"}]}});
        let missing: WorkspaceEdit = serde_json::from_value(missing).unwrap();
        let preview = serde_json::to_value(preview_edit(&missing, directory.path(), &Overlay::new())).unwrap();
        assert_eq!(preview["edits"][0]["edits"][0]["newText"], json!("x"), "{preview}");
        assert!(
            preview["edits"][0]["error"].as_str().is_some_and(|why| why.starts_with("cannot read it")),
            "{preview}"
        );
        assert_eq!(
            serde_json::from_value::<EditPreviews>(preview.clone())
                .map(|read| serde_json::to_value(read).unwrap())
                .unwrap(),
            preview
        );
    }
}
