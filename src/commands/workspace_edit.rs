//! A workspace edit (LSP `WorkspaceEdit`, `changes` or `documentChanges`) read into each file's
//! text edits, checked, and written to disk all files or none: what rename's `apply: "disk"`
//! does, and what navigation's code actions do when one is applied on disk. The preview hash of
//! a file's text (`sha256:…`) that `expectedHashes` gives back lives here too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
use crate::commands::paths::display_relative;
use crate::documents::{LineIndex, Position, Range};
use crate::lsp::ext::error_kinds;
use crate::lsp::types::{TextEdit, WorkspaceEdit};

/// The hash a preview reports for a file's text, and that `apply: "disk"` checks.
pub fn content_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!("sha256:{}", digest.iter().map(|byte| format!("{byte:02x}")).collect::<String>())
}

/// One text edit, in a file's own positions.
#[derive(Clone, Debug)]
pub(crate) struct Edit {
    pub(crate) start: Position,
    pub(crate) end: Position,
    pub(crate) new_text: String,
}

/// The edits of an LSP WorkspaceEdit (`changes` or `documentChanges`), by path.
pub(crate) fn edits_by_path(edit: &Value) -> Result<BTreeMap<PathBuf, Vec<Edit>>, CommandError> {
    let edit = WorkspaceEdit::deserialize(edit)
        .map_err(|error| CommandError::Internal(format!("FSAC's rename is no WorkspaceEdit ({error}): {edit}")))?;
    let mut by_path: BTreeMap<PathBuf, Vec<Edit>> = BTreeMap::new();
    for (uri, edits) in edit.text_edits().0 {
        let path = crate::uri::uri_to_path(uri)
            .ok_or_else(|| CommandError::Internal(format!("FSAC's rename names a URI that is not a file: {uri}")))?;
        by_path.entry(path).or_default().extend(edits.iter().map(|edit| Edit {
            start: edit.range.start,
            end: edit.range.end,
            new_text: edit.new_text.clone(),
        }));
    }
    for (path, edits) in by_path.iter_mut() {
        edits.sort_by_key(|edit| (edit.start.line, edit.start.character, edit.end.line, edit.end.character));
        // The same edit twice (the backend listing one site under two symbols) is one edit.
        edits.dedup_by(|later, earlier| {
            later.start == earlier.start && later.end == earlier.end && later.new_text == earlier.new_text
        });
        if let Some(pair) = edits.windows(2).find(|pair| overlap(&pair[0], &pair[1])) {
            return Err(invalid_edits(
                "overlap",
                path,
                pair,
                "two edits of the backend's rename overlap, so applying them would mangle the code; nothing was \
                 previewed or written",
            ));
        }
    }
    Ok(by_path)
}

/// Whether two edits sorted by start touch the same characters, or start at the same place
/// (then their order, and so the result, is undefined).
fn overlap(earlier: &Edit, later: &Edit) -> bool {
    let key = |position: &Position| (position.line, position.character);
    key(&later.start) < key(&earlier.end) || key(&later.start) == key(&earlier.start)
}

/// The typed refusal of an edit set that cannot be applied as it stands.
pub(crate) fn invalid_edits(reason: &str, path: &Path, edits: &[Edit], message: &str) -> CommandError {
    let edits = edits
        .iter()
        .map(|edit| TextEdit::new(Range { start: edit.start, end: edit.end }, edit.new_text.clone()))
        .collect();
    CommandError::typed(
        error_kinds::RENAME_EDITS_INVALID,
        crate::lsp::message::error_codes::INTERNAL_ERROR,
        format!("{message} ({})", path.display()),
        EditsInvalidData { reason, check_argument: None, file: Some(path.display().to_string()), edits },
    )
}

/// `data` of `rename_edits_invalid`: why, and the file and edits at fault (or the what-if
/// check's argument that refused them).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EditsInvalidData<'a> {
    pub(crate) reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) check_argument: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) edits: Vec<TextEdit>,
}

/// Every edit of `edits` lies inside `text`: its lines exist and its columns are on them.
pub(crate) fn edits_inside(path: &Path, text: &str, edits: &[Edit]) -> Result<(), CommandError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let inside = |position: &Position| {
        lines.get(position.line as usize).is_some_and(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            position.character as usize <= line.encode_utf16().count()
        })
    };
    match edits.iter().find(|edit| !inside(&edit.start) || !inside(&edit.end)) {
        Some(edit) => Err(invalid_edits(
            "out_of_range",
            path,
            std::slice::from_ref(edit),
            "an edit of the backend's rename lies outside the file's current text; nothing was previewed or written",
        )),
        None => Ok(()),
    }
}

/// `text` with `edits` (non-overlapping, sorted) applied.
pub(crate) fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let lines = LineIndex::new(text);
    let mut result = text.to_owned();
    for edit in edits.iter().rev() {
        let start = lines.offset(text, edit.start);
        let end = lines.offset(text, edit.end).max(start);
        result.replace_range(start..end, &edit.new_text);
    }
    result
}

/// The preview hash (`sha256:…` of the disk text) of every file `workspace_edit` touches, by
/// workspace-relative path: what `apply: "disk"` is given back as `expectedHashes`.
pub fn workspace_edit_file_hashes(
    root: &Path,
    workspace_edit: &Value,
) -> Result<BTreeMap<String, String>, CommandError> {
    let mut hashes = BTreeMap::new();
    for file in edits_by_path(workspace_edit)?.keys() {
        if let Ok(text) = crate::source_files::read_regular_text(file) {
            hashes.insert(display_relative(root, file), content_hash(&text));
        }
    }
    Ok(hashes)
}

/// Writes `workspace_edit` to disk as rename's disk mode does: every file's text must still
/// hash as `expected` says (else `rename_files_changed` and nothing is written), then all files
/// or none.
pub fn write_workspace_edit_to_disk(
    root: &Path,
    workspace_edit: &Value,
    expected: &BTreeMap<String, String>,
) -> Result<(), CommandError> {
    let by_path = edits_by_path(workspace_edit)?;
    let mut texts = BTreeMap::new();
    for file in by_path.keys() {
        let text = crate::source_files::read_regular_text(file).map_err(|error| CommandError::InvalidPath {
            path: file.display().to_string(),
            message: format!("cannot read it: {error}"),
        })?;
        texts.insert(file.clone(), text);
    }
    write_all_or_none(root, &by_path, &texts, &crate::syntax::index::Overlay::new(), expected)
}

/// Writes every renamed file, or none: each file's text must still hash as the preview said
/// and match the editor's buffer; then each new text goes to a temporary sibling, and only when
/// all are written are they renamed over the originals.
pub(crate) fn write_all_or_none(
    root: &Path,
    by_path: &BTreeMap<PathBuf, Vec<Edit>>,
    texts: &BTreeMap<PathBuf, String>,
    overlay: &crate::syntax::index::Overlay,
    expected: &BTreeMap<String, String>,
) -> Result<(), CommandError> {
    let mut changed = Vec::new();
    let mut new_texts = Vec::new();
    for (file, edits) in by_path {
        let relative = display_relative(root, file);
        let on_disk = crate::source_files::read_regular_text(file).map_err(|error| CommandError::InvalidPath {
            path: file.display().to_string(),
            message: format!("cannot read it: {error}"),
        })?;
        let hash = content_hash(&on_disk);
        let unsaved = overlay.get(file).is_some_and(|buffer| **buffer != *on_disk);
        if expected.get(&relative) != Some(&hash) || unsaved {
            changed.push(ChangedFile {
                expected_hash: expected.get(&relative).cloned(),
                file: relative,
                actual_hash: hash,
                unsaved_in_editor: unsaved,
            });
            continue;
        }
        new_texts.push((file.clone(), apply_edits(&texts[file], edits)));
    }
    let unexpected: Vec<&String> =
        expected.keys().filter(|file| !by_path.keys().any(|path| display_relative(root, path) == **file)).collect();
    if !changed.is_empty() || !unexpected.is_empty() {
        return Err(CommandError::typed(
            error_kinds::RENAME_FILES_CHANGED,
            crate::lsp::message::error_codes::INVALID_PARAMS,
            "files changed since the preview (or are unsaved in the editor); nothing was written: preview again",
            FilesChangedData { argument: "expectedHashes", changed_files: changed, files_not_in_rename: unexpected },
        ));
    }
    let mut temporaries = Vec::new();
    for (file, new_text) in &new_texts {
        let temporary = file.with_file_name(format!(
            ".{}.fslens-rename-{}",
            file.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default(),
            std::process::id()
        ));
        if let Err(error) = std::fs::write(&temporary, new_text) {
            for written in &temporaries {
                let _ = std::fs::remove_file(written);
            }
            let _ = std::fs::remove_file(&temporary);
            return Err(CommandError::Internal(format!(
                "cannot write {} (nothing was renamed): {error}",
                temporary.display()
            )));
        }
        temporaries.push(temporary);
    }
    for ((file, _), temporary) in new_texts.iter().zip(&temporaries) {
        std::fs::rename(temporary, file).map_err(|error| {
            CommandError::Internal(format!("cannot rename {} over {}: {error}", temporary.display(), file.display()))
        })?;
    }
    Ok(())
}

/// `data` of `rename_files_changed`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilesChangedData<'a> {
    argument: &'static str,
    changed_files: Vec<ChangedFile>,
    files_not_in_rename: Vec<&'a String>,
}

/// A file whose text is not the one the preview hashed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangedFile {
    file: String,
    expected_hash: Option<String>,
    actual_hash: String,
    unsaved_in_editor: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn overlapping_edits_of_the_backend_are_refused_naming_both() {
        let uri = "file:///w/Patterns.fs";
        let edit = |line: u32, start: u32, end: u32| json!({"range": {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}, "newText": "Pair"});
        // The whole clip and the case inside it: applying both would mangle the line.
        let overlapping = json!({"changes": {uri: [edit(2, 5, 15), edit(2, 6, 10)]}});
        let Err(error) = edits_by_path(&overlapping) else { panic!("overlapping edits were accepted") };
        let text = format!("{error:?}");
        assert!(text.contains("overlap") && text.contains("rename_edits_invalid"), "{text}");
        // Two edits starting at one place are refused too; the same edit twice is one edit.
        assert!(edits_by_path(&json!({"changes": {uri: [edit(2, 6, 10), edit(2, 6, 8)]}})).is_err());
        let twice =
            edits_by_path(&json!({"changes": {uri: [edit(2, 6, 10), edit(2, 6, 10), edit(8, 6, 10)]}})).unwrap();
        assert_eq!(twice.values().next().unwrap().len(), 2);
    }
}
