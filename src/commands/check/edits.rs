//! The `edits` argument of a what-if check, typed: an LSP `WorkspaceEdit` (with
//! `changes` or `documentChanges` of text edits) or a list of `{path, range, newText}` and
//! `{path, text}`.
//!
//! The shape is an untagged enum, read by hand rather than by serde's untagged derive: that
//! one buffers the value and tries each variant, so a type error would name `edits` instead of
//! the member at fault (`edits[0].range`, `edits.documentChanges[1].textDocument.uri`). Members
//! LSP objects may carry besides those fslens reads (`annotationId`, `changeAnnotations`) are
//! ignored, as before.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::commands::CommandError;
use crate::documents::Range;

/// What every refusal of a malformed `edits` says it expected.
pub const EDITS_SHAPE: &str = "expected a WorkspaceEdit (changes or documentChanges with text edits) or a list of \
                               {path, range, newText} or {path, text}";

/// A what-if's hypothetical change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum WhatIfEdits {
    /// An LSP `WorkspaceEdit`: `changes` (URI → text edits) or `documentChanges` (text document
    /// edits; file operations are refused; a non-zero `textDocument.version` must be the
    /// editor's version of the buffer). With both, `documentChanges` is used, as LSP says.
    WorkspaceEdit(WorkspaceEdit),
    /// Edits by path, read as `path` is (from the workspace root).
    List(Vec<ListEdit>),
}

/// `changes`: URI → text edits, in the argument object's order.
pub type OrderedChanges = Vec<(String, Vec<TextEdit>)>;

/// The members of an LSP `WorkspaceEdit` a what-if reads.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceEdit {
    /// URI → text edits, in the argument object's order.
    #[serde(default, deserialize_with = "ordered_changes", serialize_with = "changes_as_object")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<std::collections::BTreeMap<String, Vec<TextEdit>>>")]
    pub changes: Option<OrderedChanges>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_changes: Option<Vec<TextDocumentEdit>>,
}

/// One `documentChanges` element: the text edits of one document.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", try_from = "DocumentChangeAsWritten")]
pub struct TextDocumentEdit {
    pub text_document: VersionedDocument,
    pub edits: Vec<TextEdit>,
}

/// A `documentChanges` element as written (its schema is the one agents see): a file
/// operation (`kind`) is recognised to be refused by name, and a missing member is named with
/// its path.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DocumentChangeAsWritten {
    #[serde(default, deserialize_with = "present")]
    #[schemars(skip)]
    kind: bool,
    text_document: Option<VersionedDocument>,
    edits: Option<Vec<TextEdit>>,
}

impl TryFrom<DocumentChangeAsWritten> for TextDocumentEdit {
    type Error = String;

    fn try_from(written: DocumentChangeAsWritten) -> Result<Self, String> {
        if written.kind {
            return Err(
                "file operations (create, rename, delete) are not supported by a what-if; only text edits".to_owned()
            );
        }
        // "missing field `a.b`" makes the argument path end in `.a.b` (commands::params).
        let text_document = written.text_document.ok_or("missing field `textDocument.uri`")?;
        let edits = written.edits.ok_or("missing field `edits`")?;
        Ok(TextDocumentEdit { text_document, edits })
    }
}

/// `textDocument` of a `documentChanges` element.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct VersionedDocument {
    pub uri: String,
    /// The editor's version the edits were made for; `null`, 0 or anything but an integer
    /// means none (FSAC sends version 0 for files not open).
    #[serde(default, deserialize_with = "lenient_version")]
    pub version: Option<i64>,
}

/// An LSP text edit.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    #[serde(deserialize_with = "lsp_range")]
    #[schemars(with = "RangeSchema")]
    pub range: Range,
    pub new_text: String,
}

/// One element of the list shape.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(try_from = "ListEditAsWritten")]
pub struct ListEdit {
    /// The file, relative to the workspace root or absolute inside it.
    pub path: String,
    #[serde(flatten)]
    pub change: ListChange,
}

/// What a list element changes in its file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ListChange {
    /// Replace `range` (0-based lines, UTF-16 characters, end exclusive) with `newText`.
    Range {
        #[schemars(with = "RangeSchema")]
        range: Range,
        #[serde(rename = "newText")]
        new_text: String,
    },
    /// The whole file's new text.
    Whole { text: String },
}

/// A list element as written (its schema is the one agents see): `text`, or `range` and
/// `newText`, never both.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ListEditAsWritten {
    /// The file, relative to the workspace root or absolute inside it.
    path: String,
    /// The range to replace: 0-based lines, UTF-16 characters, end exclusive.
    #[serde(default, deserialize_with = "optional_lsp_range")]
    #[schemars(with = "Option<RangeSchema>")]
    range: Option<Range>,
    /// The text that replaces `range`.
    new_text: Option<String>,
    /// The whole file's new text, instead of `range` and `newText`.
    text: Option<String>,
}

impl TryFrom<ListEditAsWritten> for ListEdit {
    type Error = String;

    fn try_from(written: ListEditAsWritten) -> Result<Self, String> {
        let change = match (written.text, written.range) {
            (Some(text), None) => ListChange::Whole { text },
            (None, Some(range)) => {
                ListChange::Range { range, new_text: written.new_text.ok_or("missing field `newText`")? }
            }
            (Some(_), Some(_)) => {
                return Err("give either text (the whole file) or range and newText, not both".to_owned());
            }
            (None, None) => return Err("expected range and newText, or text".to_owned()),
        };
        Ok(ListEdit { path: written.path, change })
    }
}

/// The schema of an LSP range (documents::Range has none of its own).
#[derive(JsonSchema)]
#[allow(dead_code)]
struct RangeSchema {
    start: PositionSchema,
    end: PositionSchema,
}

/// 0-based line and UTF-16 character.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct PositionSchema {
    line: u32,
    character: u32,
}

impl<'de> Deserialize<'de> for WhatIfEdits {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(EditsVisitor)
    }
}

/// Reads the list or the `WorkspaceEdit` straight from the deserializer, so that errors inside
/// keep their path.
struct EditsVisitor;

impl<'de> Visitor<'de> for EditsVisitor {
    type Value = WhatIfEdits;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(EDITS_SHAPE.trim_start_matches("expected "))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut sequence: A) -> Result<WhatIfEdits, A::Error> {
        let mut edits = Vec::new();
        while let Some(edit) = sequence.next_element::<ListEdit>()? {
            edits.push(edit);
        }
        Ok(WhatIfEdits::List(edits))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<WhatIfEdits, A::Error> {
        let edit = WorkspaceEdit::deserialize(de::value::MapAccessDeserializer::new(map))?;
        if edit.changes.is_none() && edit.document_changes.is_none() {
            return Err(de::Error::custom(EDITS_SHAPE));
        }
        Ok(WhatIfEdits::WorkspaceEdit(edit))
    }
}

/// True when the member is there at all, whatever its value (`"kind": null` included).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

fn lenient_version<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    Ok(Value::deserialize(deserializer)?.as_i64())
}

const RANGE_SHAPE: &str = "expected {start: {line, character}, end: {line, character}} with non-negative integers";

/// A range, refused as a whole (naming `…range`, not a member inside it) when malformed.
fn lsp_range<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Range, D::Error> {
    let value = Value::deserialize(deserializer)?;
    serde_json::from_value(value).map_err(|_| de::Error::custom(RANGE_SHAPE))
}

fn optional_lsp_range<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Range>, D::Error> {
    lsp_range(deserializer).map(Some)
}

/// `changes` in the argument object's order (which decides where each file is listed).
fn ordered_changes<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<OrderedChanges>, D::Error> {
    struct ChangesVisitor;
    impl<'de> Visitor<'de> for ChangesVisitor {
        type Value = OrderedChanges;

        fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
            formatter.write_str("an object of URI → text edits")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut changes = Vec::new();
            while let Some((uri, edits)) = map.next_entry::<String, Vec<TextEdit>>()? {
                changes.push((uri, edits));
            }
            Ok(changes)
        }
    }
    deserializer.deserialize_map(ChangesVisitor).map(Some)
}

fn changes_as_object<S: Serializer>(changes: &Option<OrderedChanges>, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let changes = changes.as_deref().unwrap_or_default();
    let mut map = serializer.serialize_map(Some(changes.len()))?;
    for (uri, edits) in changes {
        map.serialize_entry(uri, edits)?;
    }
    map.end()
}

/// serde_path_to_error writes a map key after a dot; a URI has dots of its own, so an error
/// inside `changes` names its URI in brackets, as `edits.changes[file:///…/A.fs][0].range`.
/// `uris` are the `changes` keys of the argument as sent.
pub fn name_changes_in_brackets(error: CommandError, uris: &[String]) -> CommandError {
    let CommandError::InvalidArgument { argument, message } = error else { return error };
    let Some(rest) = argument.strip_prefix("edits.changes.") else {
        return CommandError::InvalidArgument { argument, message };
    };
    let key = uris
        .iter()
        .filter(|uri| {
            rest.strip_prefix(uri.as_str())
                .is_some_and(|after| after.is_empty() || after.starts_with('[') || after.starts_with('.'))
        })
        .max_by_key(|uri| uri.len());
    match key {
        Some(uri) => {
            CommandError::InvalidArgument { argument: format!("edits.changes[{uri}]{}", &rest[uri.len()..]), message }
        }
        None => CommandError::InvalidArgument { argument, message },
    }
}

/// The `changes` keys of a check's argument object, for [`name_changes_in_brackets`].
pub fn change_uris(argument: &Value) -> Vec<String> {
    argument
        .pointer("/edits/changes")
        .and_then(Value::as_object)
        .map(|changes| changes.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Holder {
        #[allow(dead_code)]
        edits: WhatIfEdits,
    }

    impl crate::commands::params::CommandArguments for Holder {}

    fn blamed(argument: Value) -> String {
        let uris = change_uris(&argument);
        match crate::commands::params::parse_arguments::<Holder>(argument.clone())
            .map_err(|error| name_changes_in_brackets(error, &uris))
        {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    fn parsed(edits: Value) -> WhatIfEdits {
        crate::commands::params::parse_arguments::<Holder>(json!({ "edits": edits })).expect("accepted").edits
    }

    const RANGE: &str = r#"{"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}"#;

    fn range() -> Value {
        serde_json::from_str(RANGE).unwrap()
    }

    #[test]
    fn every_malformed_member_is_named_by_its_path() {
        let edit = json!({"range": range(), "newText": "x"});
        assert_eq!(
            blamed(json!({"edits": [{"path": "A.fs", "range": {"start": 1}, "newText": "y"}]})),
            "edits[0].range"
        );
        assert_eq!(blamed(json!({"edits": [{"path": 1, "text": ""}]})), "edits[0].path");
        assert_eq!(blamed(json!({"edits": [{"text": ""}]})), "edits[0].path");
        assert_eq!(blamed(json!({"edits": [{"path": "A.fs", "range": range()}]})), "edits[0].newText");
        assert_eq!(blamed(json!({"edits": [{"path": "A.fs", "text": 3}]})), "edits[0].text");
        assert_eq!(blamed(json!({"edits": [{"path": "A.fs"}]})), "edits[0]");
        assert_eq!(
            blamed(json!({"edits": [{"path": "A.fs", "text": "", "range": range(), "newText": ""}]})),
            "edits[0]"
        );
        assert_eq!(blamed(json!({"edits": [7]})), "edits[0]");
        assert_eq!(blamed(json!({"edits": "nope"})), "edits");
        assert_eq!(blamed(json!({"edits": {"changeAnnotations": {}}})), "edits");
        assert_eq!(blamed(json!({"edits": {"documentChanges": {}}})), "edits.documentChanges");
        assert_eq!(
            blamed(json!({"edits": {"documentChanges": [{"kind": "create", "uri": "file:///x"}]}})),
            "edits.documentChanges[0]"
        );
        assert_eq!(
            blamed(json!({"edits": {"documentChanges": [{"edits": [edit]}]}})),
            "edits.documentChanges[0].textDocument.uri"
        );
        assert_eq!(
            blamed(json!({"edits": {"documentChanges": [{"textDocument": {}, "edits": [edit]}]}})),
            "edits.documentChanges[0].textDocument.uri"
        );
        assert_eq!(
            blamed(json!({"edits": {"documentChanges": [{"textDocument": {"uri": "file:///a.fs"}}]}})),
            "edits.documentChanges[0].edits"
        );
        assert_eq!(
            blamed(
                json!({"edits": {"documentChanges": [{"textDocument": {"uri": "file:///a.fs"}, "edits": [edit, {"range": range()}]}]}})
            ),
            "edits.documentChanges[0].edits[1].newText"
        );
        assert_eq!(blamed(json!({"edits": {"changes": []}})), "edits.changes");
        assert_eq!(blamed(json!({"edits": {"changes": {"file:///a.b/A.fs": {}}}})), "edits.changes[file:///a.b/A.fs]");
        assert_eq!(
            blamed(json!({"edits": {"changes": {"file:///a.b/A.fs": [{"range": 1, "newText": ""}]}}})),
            "edits.changes[file:///a.b/A.fs][0].range"
        );
    }

    #[test]
    fn the_three_shapes_are_read_with_what_lsp_adds_ignored() {
        let edit = json!({"range": range(), "newText": "x", "annotationId": "a"});
        let written = json!({
            "changes": {"file:///b.fs": [edit], "file:///a.fs": [edit]},
            "changeAnnotations": {"a": {"label": "l"}},
        });
        let WhatIfEdits::WorkspaceEdit(workspace) = parsed(written.clone()) else { panic!("a WorkspaceEdit") };
        let uris: Vec<&str> = workspace.changes.iter().flatten().map(|(uri, _)| uri.as_str()).collect();
        let in_the_argument: Vec<&str> = written["changes"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(uris, in_the_argument, "in the argument object's order");
        let WhatIfEdits::WorkspaceEdit(documents) = parsed(json!({
            "documentChanges": [{"textDocument": {"uri": "file:///a.fs", "version": null}, "edits": [edit]},
                                {"textDocument": {"uri": "file:///b.fs", "version": 4}, "edits": []}],
        })) else {
            panic!("a WorkspaceEdit")
        };
        let versions: Vec<Option<i64>> =
            documents.document_changes.iter().flatten().map(|change| change.text_document.version).collect();
        assert_eq!(versions, [None, Some(4)]);
        let WhatIfEdits::List(list) =
            parsed(json!([{"path": "A.fs", "text": "x"}, {"path": "B.fs", "range": range(), "newText": "y"}]))
        else {
            panic!("a list")
        };
        assert!(matches!(&list[0].change, ListChange::Whole { text } if text == "x"));
        assert!(matches!(&list[1].change, ListChange::Range { new_text, .. } if new_text == "y"));
    }

    #[test]
    fn what_is_read_serializes_back_to_the_same_shape() {
        for edits in [
            json!([{"path": "A.fs", "text": "x"}, {"path": "B.fs", "range": range(), "newText": "y"}]),
            json!({"changes": {"file:///b.fs": [{"range": range(), "newText": "x"}]}}),
            json!({"documentChanges": [{"textDocument": {"uri": "file:///a.fs", "version": 3}, "edits": []}]}),
        ] {
            assert_eq!(serde_json::to_value(parsed(edits.clone())).unwrap(), edits);
        }
    }
}
