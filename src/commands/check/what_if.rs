//! The what-if check: `fslens.check` with `edits` gives the compiler's verdict on a change
//! before anything is written.
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

use serde_json::Value;

use super::answer::{
    Analysed, BaselineSummary, CheckAnswer, Coverage, Delta, DeltaEntry, FileStatus, Findings, ReportedDiagnostic,
    TextSource, TouchedFileSummary, WhatIfSummary,
};
use super::edits::{EDITS_SHAPE, ListChange, WhatIfEdits};
use super::{CheckRun, Plan, compile_files, sha256_hex, verdict_over};
use crate::commands::CommandError;
use crate::commands::blocking::BlockingReason;
use crate::commands::context::{CommandContext, WhatIfText};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position, Range};
use crate::lsp::ext::error_kinds;
use crate::workspace::WorkspaceModel;

/// One requested change, with where it was in the argument.
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

impl WhatIf {
    /// The files the edits touch.
    pub(super) fn touched_paths(&self) -> impl Iterator<Item = &Path> {
        self.touched.iter().map(|file| file.path.as_path())
    }
}

/// Parses and applies `edits` and narrows the plan to the touched files and the files of every
/// project downstream of them (the plan's own scope still narrows that).
pub(super) async fn prepare(
    edits: &WhatIfEdits,
    plan: Plan,
    model: &WorkspaceModel,
    root: &Path,
    context: &CommandContext,
) -> Result<(Plan, WhatIf), CommandError> {
    let requested = requested_edits(edits, root)?;
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
    pub(super) fn describe(&self, root: &Path) -> WhatIfSummary {
        let files = self
            .touched
            .iter()
            .map(|file| TouchedFileSummary {
                file: display_relative(root, &file.path),
                source: if file.editor_version.is_some() { TextSource::Editor } else { TextSource::Disk },
                editor_version: file.editor_version,
                edit_count: file.edit_count,
                content_sha256: sha256_hex(&file.after),
            })
            .collect();
        WhatIfSummary { files, disk_written: false, notes: self.notes.clone(), restored: None }
    }
}

/// Runs the baseline, shows FSAC the edited texts, runs the same scope again, restores, and
/// answers with the second verdict, the baseline and the delta.
pub(super) async fn run(
    what_if: WhatIf,
    coverage: Coverage,
    run: &CheckRun<'_>,
    context: &mut CommandContext,
) -> Result<CheckAnswer, CommandError> {
    let baseline = verdict_over(coverage.clone(), run, context).await?.findings;
    let documents = match overlay_texts(&what_if, run.plan, context, run.root).await {
        Ok(documents) => documents,
        Err(error) => return Ok(unknown_with_baseline(coverage, &baseline, &error, run)),
    };
    if let Err(error) = context.begin_what_if(documents).await {
        context.end_what_if().await?;
        return Ok(unknown_with_baseline(coverage, &baseline, &error, run));
    }
    let hypothetical = verdict_over(coverage, run, context).await;
    // FSAC's view is restored before anything is answered, whatever the second pass gave.
    context.end_what_if().await?;
    let mut hypothetical = hypothetical?;
    stamp_touched_files(&mut hypothetical.findings, &what_if, run.root);
    hypothetical.delta = Some(delta(&baseline, &hypothetical.findings, &what_if, run.root));
    hypothetical.baseline = Some(BaselineSummary::of(&baseline));
    if let Some(summary) = hypothetical.coverage.what_if.as_mut() {
        summary.restored = Some(true);
    }
    hypothetical.elapsed_ms = run.started.elapsed().as_millis() as u64;
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

fn unknown_with_baseline(
    coverage: Coverage,
    baseline: &Findings,
    error: &CommandError,
    run: &CheckRun<'_>,
) -> CheckAnswer {
    // FSAC gone or a file busy is FSAC's state; a buffer edited meanwhile leaves the what-if
    // without a current text to apply the edits to.
    let kind = match error {
        CommandError::Unavailable(_) => error_kinds::FSAC_UNAVAILABLE,
        _ => error_kinds::INCOMPLETE,
    };
    let reason = BlockingReason::new(kind, format!("fslens could not show FSAC the edited texts: {error}"));
    let mut answer = CheckAnswer::unknown(coverage, reason, run.started);
    answer.baseline = Some(BaselineSummary::of(baseline));
    if let Some(summary) = answer.coverage.what_if.as_mut() {
        summary.restored = Some(true);
    }
    answer
}

/// A closed touched file was stamped with the hash of its disk text; it was checked with the
/// edited text.
fn stamp_touched_files(findings: &mut Findings, what_if: &WhatIf, root: &Path) {
    for entry in findings.files.iter_mut().flatten() {
        let Some(file) = what_if.touched.iter().find(|file| entry.file == display_relative(root, &file.path)) else {
            continue;
        };
        entry.edited = true;
        if let FileStatus::Analysed(Analysed::File { stamp, .. }) = &mut entry.status
            && stamp.content_sha256.is_some()
        {
            stamp.content_sha256 = Some(sha256_hex(&file.after));
        }
    }
}

/// Which diagnostics the edits introduced, resolved or left alone. A baseline diagnostic of a
/// touched file is moved to where its range lies in the edited text; one whose range an edit
/// replaced cannot be the same diagnostic any more.
fn delta(baseline: &Findings, hypothetical: &Findings, what_if: &WhatIf, root: &Path) -> Delta {
    let mut before: Vec<(&ReportedDiagnostic, Option<Value>)> =
        baseline.diagnostics.iter().map(|diagnostic| (diagnostic, moved_range(diagnostic, what_if, root))).collect();
    let mut introduced = Vec::new();
    let mut unchanged = Vec::new();
    for diagnostic in &hypothetical.diagnostics {
        let same = before.iter().position(|(old, moved)| {
            moved.as_ref() == Some(&diagnostic.range)
                && (&old.file, &old.code, &old.message, old.severity)
                    == (&diagnostic.file, &diagnostic.code, &diagnostic.message, diagnostic.severity)
        });
        match same {
            Some(index) => {
                before.remove(index);
                unchanged.push(DeltaEntry::of(diagnostic));
            }
            None => introduced.push(DeltaEntry::of(diagnostic)),
        }
    }
    let resolved = before
        .into_iter()
        .map(|(old, moved)| DeltaEntry {
            range: moved.unwrap_or(Value::Null),
            range_before_edit: Some(old.range.clone()),
            ..DeltaEntry::of(old)
        })
        .collect();
    let complete = baseline.complete
        && hypothetical.complete
        && !baseline.diagnostics_truncated
        && !hypothetical.diagnostics_truncated;
    Delta { introduced, resolved, unchanged, complete }
}

/// Where a baseline diagnostic's range lies in the edited text (`None`: an edit replaced it).
fn moved_range(diagnostic: &ReportedDiagnostic, what_if: &WhatIf, root: &Path) -> Option<Value> {
    let Some(file) = what_if.touched.iter().find(|file| diagnostic.file == display_relative(root, &file.path)) else {
        return Some(diagnostic.range.clone());
    };
    let range: Range = serde_json::from_value(diagnostic.range.clone()).ok()?;
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

// ----- reading and applying ----------------------------------------------------------------

/// The typed `edits` as the edits of each file, in first-seen order, each named by where it
/// is in the argument (`edits[2]`, `edits.documentChanges[0].edits[1]`,
/// `edits.changes[URI][0]`); paths are confined to the workspace.
fn requested_edits(edits: &WhatIfEdits, root: &Path) -> Result<Vec<FileEdits>, CommandError> {
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
        WhatIfEdits::List(items) => {
            for (index, item) in items.iter().enumerate() {
                let argument = format!("edits[{index}]");
                let path = confine(root, &item.path, &format!("{argument}.path"))?;
                let change = match &item.change {
                    ListChange::Range { range, new_text } => {
                        Change::Range { range: *range, new_text: new_text.clone() }
                    }
                    ListChange::Whole { text } => Change::Whole(text.clone()),
                };
                add(path, None, RequestedEdit { argument, change });
            }
        }
        WhatIfEdits::WorkspaceEdit(workspace_edit) => match (&workspace_edit.document_changes, &workspace_edit.changes)
        {
            (Some(document_changes), _) => {
                for (index, change) in document_changes.iter().enumerate() {
                    let argument = format!("edits.documentChanges[{index}]");
                    let document = &change.text_document;
                    let path = path_of_uri(&document.uri, root, &format!("{argument}.textDocument.uri"))?;
                    let expected = document
                        .version
                        .filter(|&version| version != 0)
                        .map(|version| (version, format!("{argument}.textDocument.version")));
                    for (edit_index, edit) in change.edits.iter().enumerate() {
                        let change = Change::Range { range: edit.range, new_text: edit.new_text.clone() };
                        let argument = format!("{argument}.edits[{edit_index}]");
                        add(path.clone(), expected.clone(), RequestedEdit { argument, change });
                    }
                }
            }
            (None, changes) => {
                for (uri, text_edits) in changes.iter().flatten() {
                    let argument = format!("edits.changes[{uri}]");
                    let path = path_of_uri(uri, root, &argument)?;
                    for (edit_index, edit) in text_edits.iter().enumerate() {
                        let change = Change::Range { range: edit.range, new_text: edit.new_text.clone() };
                        let argument = format!("{argument}[{edit_index}]");
                        add(path.clone(), None, RequestedEdit { argument, change });
                    }
                }
            }
        },
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
    Some(start + crate::columns::exact_byte_at_column(line, position.character)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn all_three_shapes_become_named_file_edits() {
        let root = std::env::temp_dir();
        let root = root.canonicalize().unwrap();
        let uri = crate::uri::path_to_uri(&root.join("A.fs")).unwrap();
        let text_edit = json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "newText": "x"});
        let read = |edits: Value| -> Result<Vec<FileEdits>, CommandError> {
            let edits: WhatIfEdits = serde_json::from_value(edits).expect("well-formed");
            requested_edits(&edits, &root)
        };
        let changes = read(json!({"changes": {uri.clone(): [text_edit.clone(), text_edit.clone()]}})).unwrap();
        assert_eq!(changes[0].path, root.join("A.fs"));
        assert_eq!(changes[0].edits[1].argument, format!("edits.changes[{uri}][1]"));
        let document = read(
            json!({"documentChanges": [{"textDocument": {"uri": uri, "version": 4}, "edits": [text_edit.clone()]}]}),
        )
        .unwrap();
        assert_eq!(document[0].expected_version, Some((4, "edits.documentChanges[0].textDocument.version".to_owned())));
        assert_eq!(document[0].edits[0].argument, "edits.documentChanges[0].edits[0]");
        let list =
            read(json!([{"path": "A.fs", "text": "x"}, {"path": "B.fs", "range": text_edit["range"], "newText": "y"}]))
                .unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].edits[0].argument, "edits[1]");
        assert_eq!(read(json!([])).unwrap_err().data()["argument"], json!("edits"));
        assert_eq!(read(json!({"changes": {}})).unwrap_err().data()["argument"], json!("edits"));
        let error = read(json!([{"path": "../outside.fs", "text": ""}])).unwrap_err();
        assert_eq!(error.kind(), error_kinds::INVALID_PATH);
        let error = read(json!({"changes": {"untitled:1": [text_edit]}})).unwrap_err();
        assert_eq!(error.data()["argument"], json!("edits.changes[untitled:1]"));
    }
}
