//! The mirror of the editor's open documents: text, version and a line index.
//!
//! The main loop applies `didOpen`/`didChange`/`didClose` here before forwarding them, so a
//! command that reads a buffer sees exactly what FSAC has been told. Positions are LSP's:
//! 0-based lines and UTF-16 code units; [`LineIndex`] converts them to byte offsets.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::uri::canonical_uri;

/// An LSP position: 0-based line and UTF-16 character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// A place for people to read: `file:line:column`, 1-based, from a 0-based LSP `position`.
pub fn file_line_column(file: &str, position: Position) -> String {
    format!("{file}:{}:{}", position.line + 1, position.character + 1)
}

/// An LSP range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

/// Byte offsets of line starts, for UTF-16 position conversion.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.bytes().enumerate().filter(|&(_, byte)| byte == b'\n').map(|(at, _)| at + 1));
        LineIndex { line_starts }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The byte offset of a position. Positions past the end of a line clamp to the line's
    /// end and lines past the end clamp to the end of the text, as LSP asks.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.line_starts.get(line) else {
            return text.len();
        };
        let end = self.line_starts.get(line + 1).map_or(text.len(), |&next| next);
        let line_text = &text[start..end];
        let line_text = line_text.strip_suffix('\n').unwrap_or(line_text);
        let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        start + crate::columns::byte_at_column(line_text, position.character).unwrap_or(line_text.len())
    }

    /// The position of a byte offset (clamped to the text and to character boundaries).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let character = text[start..]
            .char_indices()
            .take_while(|&(at, _)| start + at < offset)
            .map(|(_, character)| character.len_utf16() as u32)
            .sum();
        Position { line: line as u32, character }
    }

    /// The text of one line without its line ending.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> Option<&'a str> {
        let start = *self.line_starts.get(line)?;
        let end = self.line_starts.get(line + 1).map_or(text.len(), |&next| next);
        let line_text = &text[start..end];
        let line_text = line_text.strip_suffix('\n').unwrap_or(line_text);
        Some(line_text.strip_suffix('\r').unwrap_or(line_text))
    }
}

/// One open document.
#[derive(Debug, Clone)]
pub struct Document {
    /// The URI exactly as the editor sent it (forwarded messages keep it).
    pub uri: String,
    pub language_id: String,
    pub version: i64,
    pub text: String,
    pub line_index: LineIndex,
}

/// Why a document notification could not be applied to the mirror.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DocumentError {
    #[error("malformed {method} params: {message}")]
    MalformedParams { method: &'static str, message: String },
    #[error("{method} for {uri}, which is not open")]
    NotOpen { method: &'static str, uri: String },
}

/// The open documents, keyed by canonical URI.
#[derive(Debug, Default)]
pub struct DocumentMirror {
    documents: HashMap<String, Document>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidOpenParams {
    text_document: TextDocumentItem,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextDocumentItem {
    uri: String,
    #[serde(default)]
    language_id: String,
    version: i64,
    text: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidChangeParams {
    text_document: VersionedTextDocumentIdentifier,
    content_changes: Vec<ContentChange>,
}

#[derive(Deserialize)]
struct VersionedTextDocumentIdentifier {
    uri: String,
    version: i64,
}

#[derive(Deserialize)]
struct ContentChange {
    #[serde(default)]
    range: Option<Range>,
    text: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidCloseParams {
    text_document: TextDocumentIdentifier,
}

#[derive(Deserialize)]
struct TextDocumentIdentifier {
    uri: String,
}

fn parse<T: for<'de> Deserialize<'de>>(method: &'static str, params: Value) -> Result<T, DocumentError> {
    serde_json::from_value(params)
        .map_err(|error| DocumentError::MalformedParams { method, message: error.to_string() })
}

impl DocumentMirror {
    pub fn get(&self, uri: &str) -> Option<&Document> {
        self.documents.get(&canonical_uri(uri))
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Document> {
        self.documents.values()
    }

    pub fn did_open(&mut self, params: Value) -> Result<(), DocumentError> {
        let params: DidOpenParams = parse("textDocument/didOpen", params)?;
        let item = params.text_document;
        let line_index = LineIndex::new(&item.text);
        self.documents.insert(
            canonical_uri(&item.uri),
            Document {
                uri: item.uri,
                language_id: item.language_id,
                version: item.version,
                text: item.text,
                line_index,
            },
        );
        Ok(())
    }

    pub fn did_change(&mut self, params: Value) -> Result<(), DocumentError> {
        let params: DidChangeParams = parse("textDocument/didChange", params)?;
        let uri = params.text_document.uri;
        let Some(document) = self.documents.get_mut(&canonical_uri(&uri)) else {
            return Err(DocumentError::NotOpen { method: "textDocument/didChange", uri });
        };
        for change in params.content_changes {
            match change.range {
                Some(range) => {
                    let start = document.line_index.offset(&document.text, range.start);
                    let end = document.line_index.offset(&document.text, range.end).max(start);
                    document.text.replace_range(start..end, &change.text);
                }
                None => document.text = change.text,
            }
            document.line_index = LineIndex::new(&document.text);
        }
        document.version = params.text_document.version;
        Ok(())
    }

    pub fn did_close(&mut self, params: Value) -> Result<(), DocumentError> {
        let params: DidCloseParams = parse("textDocument/didClose", params)?;
        match self.documents.remove(&canonical_uri(&params.text_document.uri)) {
            Some(_) => Ok(()),
            None => Err(DocumentError::NotOpen { method: "textDocument/didClose", uri: params.text_document.uri }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn position(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_positions_convert_both_ways() {
        let text = "let a = 1\r\nlet 𝔸é = \"x\"\nend";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 3);
        // 𝔸 is two UTF-16 units and four bytes; é is one unit and two bytes.
        assert_eq!(index.offset(text, position(1, 4)), 15);
        assert_eq!(index.offset(text, position(1, 6)), 19);
        assert_eq!(index.offset(text, position(1, 7)), 21);
        assert_eq!(index.position(text, 21), position(1, 7));
        // Past the end of a line clamps before the line ending; past the last line clamps to the end.
        assert_eq!(index.offset(text, position(0, 99)), 9);
        assert_eq!(index.offset(text, position(9, 0)), text.len());
        assert_eq!(index.line_text(text, 0), Some("let a = 1"));
    }

    #[test]
    fn applies_full_and_incremental_changes_in_order() {
        let mut mirror = DocumentMirror::default();
        let uri = "file:///w/A%20b.fs";
        mirror
            .did_open(json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": 1, "text": "let x = 1\nlet y = 2\n"}}))
            .unwrap();
        mirror
            .did_change(json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 9}}, "text": "42"},
                {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "// é\n"}
            ]}))
            .unwrap();
        let document = mirror.get("file:///w/A%20b.fs").unwrap();
        assert_eq!(document.text, "let x = 42\n// é\nlet y = 2\n");
        assert_eq!(document.version, 2);
        mirror
            .did_change(json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": "new"}]}))
            .unwrap();
        assert_eq!(mirror.get(uri).unwrap().text, "new");
        mirror.did_close(json!({"textDocument": {"uri": uri}})).unwrap();
        assert!(mirror.is_empty());
    }

    #[test]
    fn reports_bad_notifications_instead_of_panicking() {
        let mut mirror = DocumentMirror::default();
        assert!(matches!(mirror.did_open(json!({"textDocument": 3})), Err(DocumentError::MalformedParams { .. })));
        assert!(matches!(
            mirror.did_change(json!({"textDocument": {"uri": "file:///x.fs", "version": 1}, "contentChanges": []})),
            Err(DocumentError::NotOpen { .. })
        ));
        assert!(matches!(mirror.did_close(json!(null)), Err(DocumentError::MalformedParams { .. })));
    }
}
