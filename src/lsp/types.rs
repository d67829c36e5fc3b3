//! The LSP shapes fslens reads from its peers (the language server's diagnostics and code
//! actions, the editor's `workspace/applyEdit` answer) and the few it sends, as serde structs:
//! a diagnostic and its related information, a code action with its `WorkspaceEdit`, and the
//! text edits inside it. Only the members fslens reads are declared; a member a peer adds that
//! is not declared here is not kept, so a value that must reach a peer unchanged (a published
//! diagnostic echoed back in `codeAction`) is kept as the JSON it came as, next to its reading.
//!
//! Positions and ranges are [`crate::documents::Position`] and [`crate::documents::Range`].

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub use crate::documents::{Position, Range};

/// An LSP `Diagnostic` as FSAC publishes it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub range: Range,
    /// FSAC leaves it out for hidden diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<DiagnosticSeverity>,
    /// A number for compiler codes (`39`, sometimes written `"39"`), text for analyzer codes
    /// (`FSAC0003`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<NumberOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_information: Option<Vec<DiagnosticRelatedInformation>>,
}

impl Diagnostic {
    /// The diagnostic a published JSON value is, or `None` when it is not an LSP diagnostic
    /// (peer input is read, never trusted).
    pub fn read(value: &Value) -> Option<Diagnostic> {
        Diagnostic::deserialize(value).ok()
    }
}

/// An LSP `DiagnosticSeverity`: written as the numbers 1 to 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DiagnosticSeverity {
    Error = 1,
    Warning = 2,
    Information = 3,
    Hint = 4,
}

impl Serialize for DiagnosticSeverity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(*self as u8)
    }
}

impl<'de> Deserialize<'de> for DiagnosticSeverity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match u64::deserialize(deserializer)? {
            1 => Ok(DiagnosticSeverity::Error),
            2 => Ok(DiagnosticSeverity::Warning),
            3 => Ok(DiagnosticSeverity::Information),
            4 => Ok(DiagnosticSeverity::Hint),
            other => Err(serde::de::Error::custom(format!("not a DiagnosticSeverity (1 to 4): {other}"))),
        }
    }
}

/// LSP's `integer | string`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(untagged)]
pub enum NumberOrString {
    Number(i64),
    String(String),
}

/// An LSP `DiagnosticRelatedInformation`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct DiagnosticRelatedInformation {
    pub location: Location,
    pub message: String,
}

/// An LSP `Location`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Location {
    pub uri: String,
    pub range: Range,
}

/// An element of FSAC's `textDocument/codeAction` answer: a `CodeAction`, or a bare `Command`
/// (which has a `title` and a `command` too, so it reads as an action without an edit).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct CodeAction {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<WorkspaceEdit>,
    /// FSAC's command, passed on as it came: fslens never runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Value>,
}

/// An LSP `WorkspaceEdit`: text edits by document URI (`changes`), or per versioned document
/// with the resource operations between them (`documentChanges`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<BTreeMap<String, Vec<TextEdit>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_changes: Option<Vec<DocumentChange>>,
    /// Passed on as it came: fslens reads no annotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_annotations: Option<Value>,
}

impl WorkspaceEdit {
    /// An edit of `changes` only.
    pub fn changes(changes: BTreeMap<String, Vec<TextEdit>>) -> WorkspaceEdit {
        WorkspaceEdit { changes: Some(changes), document_changes: None, change_annotations: None }
    }

    /// The text edits by document URI (`changes`, then `documentChanges` in order), and how
    /// many resource operations (create, rename, delete) it also holds.
    pub fn text_edits(&self) -> (Vec<(&str, &[TextEdit])>, usize) {
        let mut files: Vec<(&str, &[TextEdit])> = Vec::new();
        let mut operations = 0;
        for (uri, edits) in self.changes.iter().flatten() {
            files.push((uri, edits));
        }
        for change in self.document_changes.iter().flatten() {
            match change {
                DocumentChange::Edit(edit) => files.push((&edit.text_document.uri, &edit.edits)),
                DocumentChange::Operation(_) => operations += 1,
            }
        }
        (files, operations)
    }
}

/// One element of `documentChanges`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum DocumentChange {
    Edit(TextDocumentEdit),
    /// A `CreateFile`, `RenameFile` or `DeleteFile`: not previewed, passed on as it came.
    Operation(Value),
}

/// An LSP `TextDocumentEdit`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TextDocumentEdit {
    pub text_document: VersionedTextDocumentIdentifier,
    pub edits: Vec<TextEdit>,
}

/// LSP's `OptionalVersionedTextDocumentIdentifier`: `version` is `null` when the document is
/// not open (FSAC writes 0 for those).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct VersionedTextDocumentIdentifier {
    pub uri: String,
    pub version: Option<i64>,
}

/// An LSP `TextEdit` (or an `AnnotatedTextEdit`, whose annotation is kept).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    pub range: Range,
    pub new_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_id: Option<String>,
}

impl TextEdit {
    pub fn new(range: Range, new_text: impl Into<String>) -> TextEdit {
        TextEdit { range, new_text: new_text.into(), annotation_id: None }
    }
}

/// An LSP `TextDocumentIdentifier`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TextDocumentIdentifier {
    pub uri: String,
}

/// An LSP `TextDocumentPositionParams` (`textDocument/hover`'s parameters).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TextDocumentPositionParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
}

impl TextDocumentPositionParams {
    /// The position `line`:`character` (0-based, UTF-16) of the document `uri`.
    pub fn at(uri: &str, line: u32, character: u32) -> TextDocumentPositionParams {
        TextDocumentPositionParams {
            text_document: TextDocumentIdentifier { uri: uri.to_owned() },
            position: Position { line, character },
        }
    }
}

/// `textDocument/references`' parameters.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceParams {
    #[serde(flatten)]
    pub position: TextDocumentPositionParams,
    pub context: ReferenceContext,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceContext {
    pub include_declaration: bool,
}

/// `workspace/symbol`'s parameters.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct WorkspaceSymbolParams {
    pub query: String,
}

/// The parameters of `workspace/applyEdit` (sent to the editor).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ApplyWorkspaceEditParams {
    pub label: String,
    /// `null` for a code action that has only a command: sent as is, for the editor to refuse.
    pub edit: Option<WorkspaceEdit>,
}

/// The editor's answer to `workspace/applyEdit`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ApplyWorkspaceEditResult {
    pub applied: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_published_diagnostic_reads_with_either_code_and_back() {
        let published = json!({
            "range": {"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 20}},
            "severity": 1,
            "code": "39",
            "source": "F# Compiler",
            "message": "The value or constructor 'shout' is not defined.",
            "relatedInformation": [{"location": {"uri": "file:///A.fs", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}, "message": "here"}],
        });
        let diagnostic = Diagnostic::read(&published).unwrap();
        assert_eq!(diagnostic.code, Some(NumberOrString::String("39".into())));
        assert_eq!(diagnostic.severity, Some(DiagnosticSeverity::Error));
        assert_eq!(serde_json::to_value(&diagnostic).unwrap(), published);
        let hidden = Diagnostic::read(&json!({"range": published["range"], "code": 1182, "message": "m"})).unwrap();
        assert_eq!((hidden.severity, hidden.code), (None, Some(NumberOrString::Number(1182))));
        assert_eq!(Diagnostic::read(&json!({"range": published["range"], "severity": 7, "message": "m"})), None);
        assert_eq!(Diagnostic::read(&json!({"message": "no range"})), None);
    }

    #[test]
    fn a_workspace_edit_lists_its_text_edits_and_counts_its_operations() {
        let at = json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}});
        let sent = json!({
            "changes": {"file:///A.fs": [{"range": at, "newText": "open X\n"}]},
            "documentChanges": [
                {"textDocument": {"uri": "file:///B.fs", "version": 0}, "edits": [{"range": at, "newText": "y"}]},
                {"kind": "create", "uri": "file:///C.fs"},
                {"textDocument": {"uri": "file:///D.fs", "version": null}, "edits": []},
            ],
        });
        let edit: WorkspaceEdit = serde_json::from_value(sent.clone()).unwrap();
        let (files, operations) = edit.text_edits();
        let uris: Vec<&str> = files.iter().map(|(uri, _)| *uri).collect();
        assert_eq!(uris, ["file:///A.fs", "file:///B.fs", "file:///D.fs"]);
        assert_eq!(operations, 1);
        assert_eq!(serde_json::to_value(&edit).unwrap(), sent, "passed on as it came");
    }
}
