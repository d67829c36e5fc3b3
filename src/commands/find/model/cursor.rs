//! The stateless v2 cursor of `fslens.find` and the identities it binds to.
//!
//! A cursor is `find2.<offset>.<query sha256>.<stream sha256>`: the next offset and two
//! fixed-size identities, no query text, paths or source. The query identity hashes the
//! canonical query (defaults materialised; `cursor`, `maxResults`, `responseCharBudget` and
//! `timeoutMs` excluded); the stream identity hashes the ordered project ledger, the resolved
//! declarations and every canonical row before slicing. A continuation recomputes both; a
//! different query or a changed workspace is a typed error, never a page that drifts.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
use crate::commands::cursor::Cursor;
use crate::lsp::ext::error_kinds;

const CURSOR_TAG: &str = "find2";

/// SHA-256 of a JSON value's compact serialization, as lowercase hex.
pub fn identity_of(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    crate::syntax::cache::to_hex(&Sha256::digest(text.as_bytes()))
}

/// SHA-256 over a sequence of parts (each as its compact JSON, followed by a separator), as
/// lowercase hex, one part at a time, so a caller can hash rows it does not keep: the one
/// stream identity of every paged command (`commands::cursor::StreamIdentity`).
pub type StreamHasher = crate::commands::cursor::StreamIdentity;

/// A decoded cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindCursor {
    /// Rows of the segment before the page.
    pub offset: usize,
    pub query_identity: String,
    /// The segment's stream identity, or [`RESUME_STREAM`] on a cursor that starts a segment.
    pub stream_identity: String,
    /// The segment's first file (display path) when the site budget cut the stream; `None` for
    /// the segment that starts at the beginning.
    pub from_file: Option<String>,
}

/// The stream identity of a cursor that starts a new segment (it was issued before the
/// segment was formed, so it names none).
pub const RESUME_STREAM: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// `data` of a refused cursor: the argument, and whether to start again or retry it.
#[derive(Serialize, Debug, Clone, Copy)]
#[serde(rename_all = "camelCase")]
pub struct CursorRefusal {
    pub argument: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reuse_original_cursor: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_same_cursor: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination_restart_required: Option<bool>,
}

impl CursorRefusal {
    /// Start again without a cursor: this one cannot be used again.
    pub const RESTART: CursorRefusal = CursorRefusal {
        argument: "cursor",
        reuse_original_cursor: Some(false),
        retry_same_cursor: None,
        pagination_restart_required: None,
    };
}

impl FindCursor {
    /// The first page of the segment that starts at `file`.
    pub fn resume_at(query_identity: String, file: String) -> FindCursor {
        FindCursor { offset: 0, query_identity, stream_identity: RESUME_STREAM.to_owned(), from_file: Some(file) }
    }

    pub fn encode(&self) -> String {
        let file = self.from_file.as_ref().map(|file| crate::syntax::cache::to_hex(file.as_bytes()));
        let mut fields = vec![self.query_identity.as_str(), self.stream_identity.as_str()];
        fields.extend(file.as_deref());
        Cursor::encode(CURSOR_TAG, self.offset, &fields)
    }

    /// Reads a find cursor (`commands::cursor`'s grammar: the query and stream identities, and
    /// the segment's first file when it has one), not yet checking its identities.
    pub fn decode(text: &str) -> Result<FindCursor, CommandError> {
        let invalid = || {
            CommandError::typed(
                error_kinds::FIND_CURSOR_INVALID,
                crate::lsp::message::error_codes::INVALID_PARAMS,
                "not a cursor issued by fslens.find; start again without a cursor",
                CursorRefusal::RESTART,
            )
        };
        let cursor = Cursor::decode(text).filter(|cursor| cursor.tag == CURSOR_TAG).ok_or_else(invalid)?;
        let (offset, query, stream, file) = match cursor.fields.as_slice() {
            [query, stream] => (cursor.offset, query, stream, None),
            [query, stream, file] => (cursor.offset, query, stream, Some(file)),
            _ => return Err(invalid()),
        };
        if query.len() != 64 || stream.len() != 64 {
            return Err(invalid());
        }
        let from_file = match file {
            None => None,
            Some(hex) => Some(
                crate::syntax::cache::from_hex(hex)
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .ok_or_else(invalid)?,
            ),
        };
        if stream == RESUME_STREAM && (offset != 0 || from_file.is_none()) {
            return Err(invalid());
        }
        Ok(FindCursor { offset, query_identity: query.to_owned(), stream_identity: stream.to_owned(), from_file })
    }

    /// Checks the cursor against the recomputed identities and the stream length.
    pub fn validate(&self, query_identity: &str, stream_identity: &str, total: usize) -> Result<usize, CommandError> {
        if self.query_identity != query_identity {
            return Err(CommandError::typed(
                error_kinds::FIND_CURSOR_QUERY_MISMATCH,
                crate::lsp::message::error_codes::INVALID_PARAMS,
                "the cursor belongs to a different query (only cursor, maxResults and timeoutMs may change between pages)",
                CursorRefusal::RESTART,
            ));
        }
        // A cursor that starts a segment was issued before the segment existed: its query
        // identity is all it can be checked by.
        if self.stream_identity != stream_identity && self.stream_identity != RESUME_STREAM {
            return Err(CommandError::typed(
                error_kinds::FIND_CURSOR_STALE,
                crate::lsp::message::error_codes::INVALID_PARAMS,
                "the results changed since the cursor was issued (a source, project or the sweep's coverage changed); \
                 start again without a cursor",
                CursorRefusal { pagination_restart_required: Some(true), ..CursorRefusal::RESTART },
            ));
        }
        if self.offset > total {
            return Err(CommandError::typed(
                error_kinds::FIND_CURSOR_INVALID,
                crate::lsp::message::error_codes::INVALID_PARAMS,
                format!("the cursor's offset {} is past the {total} sites", self.offset),
                CursorRefusal::RESTART,
            ));
        }
        Ok(self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_are_typed() {
        let cursor =
            FindCursor { offset: 12, query_identity: "a".repeat(64), stream_identity: "b".repeat(64), from_file: None };
        let decoded = FindCursor::decode(&cursor.encode()).unwrap();
        assert_eq!(decoded, cursor);
        assert_eq!(decoded.validate(&"a".repeat(64), &"b".repeat(64), 20).unwrap(), 12);
        let kind = |error: CommandError| error.data()["errorKind"].as_str().unwrap_or_default().to_owned();
        assert_eq!(
            kind(decoded.validate(&"c".repeat(64), &"b".repeat(64), 20).unwrap_err()),
            "find_cursor_query_mismatch"
        );
        assert_eq!(kind(decoded.validate(&"a".repeat(64), &"c".repeat(64), 20).unwrap_err()), "find_cursor_stale");
        assert_eq!(kind(decoded.validate(&"a".repeat(64), &"b".repeat(64), 3).unwrap_err()), "find_cursor_invalid");
        for garbage in ["", "find2", "o3.abc", "find2.x.a.b", "find2.1.zz.yy", "find2.1.a.b.c"] {
            assert_eq!(kind(FindCursor::decode(garbage).unwrap_err()), "find_cursor_invalid", "{garbage}");
        }
        // A segment's first page: bound to the query only, its first file carried (any bytes).
        let resume = FindCursor::resume_at("a".repeat(64), "src/A B/#1.fs".into());
        let decoded = FindCursor::decode(&resume.encode()).unwrap();
        assert_eq!(decoded, resume);
        assert_eq!(decoded.validate(&"a".repeat(64), &"d".repeat(64), 5).unwrap(), 0);
        assert_eq!(
            kind(decoded.validate(&"c".repeat(64), &"d".repeat(64), 5).unwrap_err()),
            "find_cursor_query_mismatch"
        );
        let query = "a".repeat(64);
        for garbage in [
            format!("{CURSOR_TAG}.3.{query}.{RESUME_STREAM}.6162"),
            format!("{CURSOR_TAG}.0.{query}.{RESUME_STREAM}"),
            format!("{CURSOR_TAG}.0.{query}.{}.zz", "b".repeat(64)),
        ] {
            assert_eq!(kind(FindCursor::decode(&garbage).unwrap_err()), "find_cursor_invalid", "{garbage}");
        }
    }
}
