//! The response budget shared by the outline-style commands (seed document, "Response budget
//! and truncatedByBudget"): entities are measured as serialized JSON in UTF-16 code units, a
//! page closes at `maxResults` or at the 45,000-unit entity budget, whichever comes first,
//! an entity is never split across pages, and a page always holds at least one entity. The
//! assembled response is then measured again against a hard 60,000-unit ceiling.
//!
//! Cursors are stateless: `o<offset>.<digest>`, where the digest binds the cursor to the
//! query (all arguments but the cursor) and to the identity of the result stream, so a
//! cursor from another query or from a changed workspace is rejected instead of silently
//! skipping or repeating entities.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
use crate::commands::cursor::Cursor;
use crate::commands::params::Bounded;

/// The per-page entity budget, in UTF-16 code units of serialized JSON.
pub const RESPONSE_CHAR_BUDGET: usize = 45_000;
/// The ceiling for the fully assembled response.
pub const RESPONSE_HARD_CEILING: usize = 60_000;
/// The smallest `responseCharBudget` a paged command takes for its entries.
pub const MIN_PAGE_CHAR_BUDGET: u64 = 200;
/// The smallest and largest `responseByteBudget` a paged command takes.
pub const MIN_PAGE_BYTE_BUDGET: u64 = 200;
pub const MAX_PAGE_BYTE_BUDGET: u64 = 10_000_000;

/// Serialized size of `value` in UTF-16 code units (compact JSON, as sent on the wire).
pub fn serialized_utf16_len(value: &impl serde::Serialize) -> usize {
    serialized_size(value).units
}

/// The size of something's compact JSON, counted both ways a page is bounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// UTF-16 code units (how `responseCharBudget` counts: the JSON-RPC peer's strings).
    pub units: usize,
    /// UTF-8 bytes (how `responseByteBudget` counts: a transport with a byte limit).
    pub bytes: usize,
}

impl std::ops::Add for Size {
    type Output = Size;

    fn add(self, other: Size) -> Size {
        Size { units: self.units + other.units, bytes: self.bytes + other.bytes }
    }
}

/// The size of `value`'s compact JSON, as sent.
pub fn serialized_size(value: &impl serde::Serialize) -> Size {
    let text = serde_json::to_string(value).unwrap_or_default();
    Size { units: text.chars().map(char::len_utf16).sum(), bytes: text.len() }
}

/// The room of one page: UTF-16 code units, and UTF-8 bytes when the caller has a byte limit
/// (the MCP bridge's 40 KiB output). A page closes before either would be passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageBudget {
    pub units: usize,
    pub bytes: Option<usize>,
}

impl PageBudget {
    /// A budget in UTF-16 units only.
    pub const fn units(units: usize) -> PageBudget {
        PageBudget { units, bytes: None }
    }

    /// Whether something of `size` fits.
    pub fn admits(&self, size: Size) -> bool {
        size.units <= self.units && self.bytes.is_none_or(|bytes| size.bytes <= bytes)
    }
}

/// `responseCharBudget` of a paged syntax or metadata command: UTF-16 units of its entries per
/// page (the symbol and referenced-assembly tools take the same bounds).
pub type PageCharBudget =
    Bounded<MIN_PAGE_CHAR_BUDGET, { RESPONSE_CHAR_BUDGET as u64 }, { RESPONSE_CHAR_BUDGET as u64 }>;

/// `responseByteBudget` of the same commands: UTF-8 bytes of its entries per page, for a
/// caller whose transport counts bytes (absent: no byte limit).
pub type PageByteBudget = Bounded<MIN_PAGE_BYTE_BUDGET, MAX_PAGE_BYTE_BUDGET, MAX_PAGE_BYTE_BUDGET>;

/// A page's room from the two budget arguments.
pub fn page_budget(units: Option<PageCharBudget>, bytes: Option<PageByteBudget>) -> PageBudget {
    PageBudget { units: units.unwrap_or_default().as_usize(), bytes: bytes.map(Bounded::as_usize) }
}

/// One page of entities.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub entries: Vec<Value>,
    /// Offset of the first entity not returned, when any remain.
    pub next_offset: Option<usize>,
    /// More entities remain after this page.
    pub truncated: bool,
    /// The budget, not `maxResults` or the end of the list, closed the page.
    pub truncated_by_budget: bool,
    /// What the returned entries used.
    pub used: Size,
}

/// Takes whole entities from `offset` until `max_results` or `budget` would be exceeded;
/// at least one entity when any remain.
pub fn paginate(entities: &[Value], offset: usize, max_results: usize, budget: PageBudget) -> Page {
    let mut entries = Vec::new();
    let mut used = Size::default();
    let mut index = offset.min(entities.len());
    let mut closed_by_budget = false;
    // Each entity after the first costs its separating comma too.
    let comma = Size { units: 1, bytes: 1 };
    while index < entities.len() && entries.len() < max_results.max(1) {
        let size = serialized_size(&entities[index]) + comma;
        if !entries.is_empty() && !budget.admits(used + size) {
            closed_by_budget = true;
            break;
        }
        used = used + size;
        entries.push(entities[index].clone());
        index += 1;
    }
    let truncated = index < entities.len();
    Page {
        entries,
        next_offset: truncated.then_some(index),
        truncated,
        truncated_by_budget: truncated && closed_by_budget,
        used,
    }
}

/// The digest binding a cursor to its query and result stream.
pub fn cursor_digest(query_identity: &Value, stream_identity: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(serde_json::to_string(query_identity).unwrap_or_default().as_bytes());
    hasher.update([0]);
    hasher.update(stream_identity.as_bytes());
    let digest = hasher.finalize();
    crate::syntax::cache::to_hex(&digest[..8])
}

/// The tag of a page cursor of the syntax and metadata commands (find's cursors have their own).
const PAGE_CURSOR_TAG: &str = "page";

/// The cursor of the page that starts at `offset`, bound to `digest` ([`cursor_digest`]).
pub fn encode_cursor(offset: usize, digest: &str) -> String {
    Cursor::encode(PAGE_CURSOR_TAG, offset, &[digest])
}

/// The offset a cursor points at, after checking it belongs to this query and stream.
pub fn page_offset(cursor: &str, digest: &str) -> Result<usize, CommandError> {
    let invalid = |message: &str| CommandError::invalid_argument("cursor", message);
    let cursor = Cursor::decode(cursor)
        .filter(|cursor| cursor.tag == PAGE_CURSOR_TAG && cursor.fields.len() == 1)
        .ok_or_else(|| invalid("not a cursor issued by this command"))?;
    if cursor.fields[0] != digest {
        return Err(invalid(
            "the cursor belongs to a different query or the results changed since it was issued; start again without a cursor",
        ));
    }
    Ok(cursor.offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entity(size: usize) -> Value {
        json!({ "name": "x".repeat(size) })
    }

    #[test]
    fn pages_close_on_budget_without_splitting_and_never_empty() {
        let entities: Vec<Value> = (0..5).map(|_| entity(100)).collect();
        let one = serialized_utf16_len(&entities[0]) + 1;
        let page = paginate(&entities, 0, 100, PageBudget::units(one * 2 + 5));
        assert_eq!(page.entries.len(), 2);
        assert!(page.truncated && page.truncated_by_budget);
        assert_eq!(page.next_offset, Some(2));

        let oversized = paginate(&[entity(10_000)], 0, 100, PageBudget::units(50));
        assert_eq!(oversized.entries.len(), 1);
        assert!(!oversized.truncated && !oversized.truncated_by_budget);

        let by_count = paginate(&entities, 0, 2, PageBudget::units(usize::MAX));
        assert!(by_count.truncated && !by_count.truncated_by_budget);

        let last = paginate(&entities, 4, 100, PageBudget::units(usize::MAX));
        assert_eq!((last.entries.len(), last.truncated), (1, false));
    }

    #[test]
    fn a_byte_budget_closes_a_page_of_non_ascii_text_the_unit_budget_would_keep_open() {
        // Three UTF-8 bytes per UTF-16 unit: 100 units of entities are about 300 bytes.
        let entities: Vec<Value> = (0..5).map(|_| json!({ "name": "—".repeat(100) })).collect();
        let one = serialized_size(&entities[0]) + Size { units: 1, bytes: 1 };
        assert!(one.bytes > 2 * one.units, "{one:?}");
        let units_only = paginate(&entities, 0, 100, PageBudget::units(one.units * 5));
        assert_eq!(units_only.entries.len(), 5);
        let both = PageBudget { units: one.units * 5, bytes: Some(one.bytes * 2) };
        let page = paginate(&entities, 0, 100, both);
        assert_eq!((page.entries.len(), page.next_offset, page.truncated_by_budget), (2, Some(2), true));
        assert!(page.used.bytes <= one.bytes * 2);
    }

    #[test]
    fn utf16_measurement_counts_surrogate_pairs() {
        assert_eq!(serialized_utf16_len(&json!("𝄞")), 4); // quotes + two units
    }

    #[test]
    fn cursors_are_bound_to_query_and_stream() {
        let digest = cursor_digest(&json!({ "path": "A.fs" }), "stream-1");
        let cursor = encode_cursor(7, &digest);
        assert_eq!(page_offset(&cursor, &digest).expect("valid"), 7);
        let other = cursor_digest(&json!({ "path": "B.fs" }), "stream-1");
        assert!(page_offset(&cursor, &other).is_err());
        assert!(page_offset("garbage", &digest).is_err());
    }
}
