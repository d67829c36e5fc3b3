//! Stateless v2 cursors and the measured page planner of `fslens.find`.
//!
//! A cursor is `find2.<offset>.<query sha256>.<stream sha256>`: the next offset and two
//! fixed-size identities, no query text, paths or source. The query identity hashes the
//! canonical query (defaults materialised; `cursor`, `maxResults`, `responseCharBudget` and
//! `timeoutMs` excluded); the stream identity hashes the ordered project ledger, the resolved
//! declarations and every canonical row before slicing. A continuation recomputes both; a
//! different query or a changed workspace is a typed error, never a page that drifts.
//!
//! The planner delivers an in-order prefix of whole rows whose complete serialized answer
//! (compact JSON, as sent) fits the budget: the caller's `responseCharBudget`, at most
//! [`RESPONSE_HARD_CEILING`](crate::commands::budget::RESPONSE_HARD_CEILING) UTF-16 code
//! units. Prefix sizes are found by binary search; every probe builds and measures the
//! complete candidate answer.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
#[cfg(test)]
use crate::commands::budget::serialized_utf16_len;
use crate::commands::budget::{PageBudget, serialized_size};
use crate::commands::cursor::Cursor;
use crate::lsp::ext::error_kinds;

const CURSOR_TAG: &str = "find2";

/// SHA-256 of a JSON value's compact serialization, as lowercase hex.
pub fn identity_of(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    crate::syntax::cache::to_hex(&Sha256::digest(text.as_bytes()))
}

/// SHA-256 over a sequence of JSON values (each followed by a separator), as lowercase hex.
pub fn stream_identity<'a>(parts: impl IntoIterator<Item = &'a Value>) -> String {
    let mut hasher = StreamHasher::new();
    for part in parts {
        hasher.add_serialized(part);
    }
    hasher.finish()
}

/// [`stream_identity`] one part at a time, so a caller can hash rows it does not keep: the
/// one stream identity of every paged command (`commands::cursor::StreamIdentity`).
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

/// An answer the planner can size: it serializes, and its per-project detail can be cut.
pub trait PlannedAnswer: Clone + Serialize {
    /// How many per-project rows the answer holds.
    fn project_rows(&self) -> usize;
    /// Keeps the first `keep` per-project rows and says so (`perProjectReturnedCount`,
    /// `perProjectTotalCount`, `perProjectTruncated`).
    fn keep_project_rows(&mut self, keep: usize);
}

/// What the planner delivered.
#[derive(Clone, Debug, PartialEq)]
pub enum PlannedPage<A> {
    /// The complete answer, within the ceiling.
    Delivered(A),
    /// Not even one row fits next to the reduced metadata.
    SiteTooLarge(A),
}

/// Builds the answer for `rows[offset..]`: `base` is the answer without page fields;
/// `fill_page` writes the page fields for a prefix length (it must produce the final shape,
/// cursor included). Reduces per-project detail only when one row cannot fit otherwise.
pub fn plan_page<A: PlannedAnswer, R>(
    base: &A,
    rows: &[R],
    offset: usize,
    max_results: usize,
    budget: PageBudget,
    fill_page: &dyn Fn(&mut A, &[R], usize),
) -> PlannedPage<A> {
    let remaining = rows.len().saturating_sub(offset);
    let wanted = remaining.min(max_results.max(1));
    let build = |metadata: &A, count: usize| -> A {
        let mut answer = metadata.clone();
        fill_page(&mut answer, &rows[offset..offset + count], count);
        answer
    };
    let fits = |answer: &A| budget.admits(serialized_size(answer));
    // Largest fitting prefix with full metadata.
    let largest = |metadata: &A| -> Option<usize> {
        if !fits(&build(metadata, 0)) {
            return None;
        }
        let (mut low, mut high) = (0usize, wanted);
        while low < high {
            let middle = low + (high - low).div_ceil(2);
            if fits(&build(metadata, middle)) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        Some(low)
    };
    if let Some(count) = largest(base)
        && (count > 0 || wanted == 0)
    {
        return PlannedPage::Delivered(build(base, count));
    }
    // Reduce per-project detail to the largest prefix that lets one row through.
    let project_rows = base.project_rows();
    let reduced = |keep: usize| -> A {
        let mut metadata = base.clone();
        metadata.keep_project_rows(keep);
        metadata
    };
    // Rows come before per-project detail: the most rows that fit beside an empty ledger
    // (the whole page when it can; a name declared in every module of a large workspace has
    // metadata that leaves room for part of a page, and the page used to fall back to one
    // row then), then the largest ledger prefix that still lets those rows through.
    if let Some(rows_fitting) = largest(&reduced(0))
        && (rows_fitting > 0 || wanted == 0)
    {
        let (mut low, mut high) = (0usize, project_rows);
        while low < high {
            let middle = low + (high - low).div_ceil(2);
            if fits(&build(&reduced(middle), rows_fitting)) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        let metadata = reduced(low);
        if let Some(count) = largest(&metadata) {
            return PlannedPage::Delivered(build(&metadata, count));
        }
    }
    let mut blocked = reduced(0);
    fill_page(&mut blocked, &[], 0);
    PlannedPage::SiteTooLarge(blocked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::budget::RESPONSE_HARD_CEILING;
    use serde_json::json;

    /// The planner over a bare JSON answer whose `perProject` is an array.
    impl PlannedAnswer for Value {
        fn project_rows(&self) -> usize {
            self["perProject"].as_array().map_or(0, Vec::len)
        }

        fn keep_project_rows(&mut self, keep: usize) {
            let rows = self["perProject"].as_array().cloned().unwrap_or_default();
            self["perProject"] = json!(rows[..keep.min(rows.len())]);
            self["perProjectReturnedCount"] = json!(keep);
            self["perProjectTotalCount"] = json!(rows.len());
            self["perProjectTruncated"] = json!(keep < rows.len());
        }
    }

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

    fn fill(answer: &mut Value, page: &[Value], count: usize) {
        answer["sites"] = json!(page);
        answer["returnedSites"] = json!(count);
    }

    #[test]
    fn a_byte_budget_closes_a_page_of_wide_text_before_the_unit_budget_would() {
        // Each row: 500 CJK characters, 500 UTF-16 units but 1,500 UTF-8 bytes.
        let rows: Vec<Value> = (0..60).map(|index| json!({ "i": index, "text": "漢".repeat(500) })).collect();
        let base = json!({ "perProject": [] });
        let units_only = PageBudget::units(30_000);
        let both = PageBudget { units: 30_000, bytes: Some(30_000) };
        let PlannedPage::Delivered(by_units) = plan_page(&base, &rows, 0, 80, units_only, &fill) else { panic!() };
        let PlannedPage::Delivered(by_bytes) = plan_page(&base, &rows, 0, 80, both, &fill) else { panic!() };
        let returned = |answer: &Value| answer["returnedSites"].as_u64().unwrap();
        assert!(returned(&by_units) > returned(&by_bytes), "{} vs {}", returned(&by_units), returned(&by_bytes));
        assert!(serde_json::to_string(&by_units).unwrap().len() > 30_000);
        assert!(serde_json::to_string(&by_bytes).unwrap().len() <= 30_000);
        // The largest prefix: one row more would not fit the bytes.
        let one_more = |count: usize| {
            let mut answer = base.clone();
            fill(&mut answer, &rows[..count], count);
            serde_json::to_string(&answer).unwrap().len()
        };
        assert!(one_more(returned(&by_bytes) as usize + 1) > 30_000);
    }

    #[test]
    fn planner_takes_the_largest_fitting_prefix() {
        let rows: Vec<Value> = (0..100).map(|index| json!({ "i": index, "text": "x".repeat(1000) })).collect();
        let base = json!({ "perProject": [] });
        let PlannedPage::Delivered(answer) =
            plan_page(&base, &rows, 5, 80, PageBudget::units(RESPONSE_HARD_CEILING), &fill)
        else {
            panic!()
        };
        let count = answer["returnedSites"].as_u64().unwrap() as usize;
        assert!(serialized_utf16_len(&answer) <= RESPONSE_HARD_CEILING);
        assert!(count > 10 && count < 80, "{count}");
        assert_eq!(answer["sites"][0]["i"], json!(5));
        // One more row would not have fitted.
        let mut bigger = base.clone();
        fill(&mut bigger, &rows[5..5 + count + 1], count + 1);
        assert!(serialized_utf16_len(&bigger) > RESPONSE_HARD_CEILING);

        let huge = vec![json!({ "text": "x".repeat(70_000) })];
        assert!(matches!(
            plan_page(&base, &huge, 0, 80, PageBudget::units(RESPONSE_HARD_CEILING), &fill),
            PlannedPage::SiteTooLarge(_)
        ));

        // Oversized per-project detail is reduced so that a row still gets through.
        let projects: Vec<Value> = (0..40).map(|index| json!({ "p": index, "pad": "y".repeat(2000) })).collect();
        let base = json!({ "perProject": projects });
        let rows = vec![json!({ "text": "x".repeat(5000) })];
        let PlannedPage::Delivered(answer) =
            plan_page(&base, &rows, 0, 80, PageBudget::units(RESPONSE_HARD_CEILING), &fill)
        else {
            panic!()
        };
        assert_eq!(answer["returnedSites"], json!(1));
        assert_eq!(answer["perProjectTruncated"], json!(true));
    }

    #[test]
    fn a_page_that_cannot_be_whole_beside_any_ledger_holds_as_many_rows_as_fit() {
        // The shape of a name declared in every module of 500 projects: a ledger larger than
        // the ceiling, other metadata (the 50 declarations listed) of a fifth of it, and rows
        // long with their candidates. 80 rows cannot fit beside even an empty ledger; the page
        // used to fall back to one row, and now holds every row the room takes.
        let projects: Vec<Value> = (0..500).map(|index| json!({ "p": index, "pad": "y".repeat(120) })).collect();
        let base = json!({ "perProject": projects, "declarations": "d".repeat(12_500) });
        let rows: Vec<Value> = (0..300).map(|index| json!({ "i": index, "text": "x".repeat(700) })).collect();
        let PlannedPage::Delivered(answer) =
            plan_page(&base, &rows, 0, 80, PageBudget::units(RESPONSE_HARD_CEILING), &fill)
        else {
            panic!()
        };
        let count = answer["returnedSites"].as_u64().unwrap() as usize;
        assert!(count > 40 && count < 80, "{count} rows");
        assert!(serialized_utf16_len(&answer) <= RESPONSE_HARD_CEILING);
        assert_eq!(answer["perProjectTruncated"], json!(true));
        // Not one more row fits beside the ledger it kept, nor beside an empty one.
        let mut bigger = answer.clone();
        fill(&mut bigger, &rows[..count + 1], count + 1);
        assert!(serialized_utf16_len(&bigger) > RESPONSE_HARD_CEILING);
        let mut emptied = base.clone();
        emptied.keep_project_rows(0);
        fill(&mut emptied, &rows[..count + 1], count + 1);
        assert!(serialized_utf16_len(&emptied) > RESPONSE_HARD_CEILING);
        // Paging on from each page's end delivers every row once, in order.
        let mut seen = Vec::new();
        while seen.len() < rows.len() {
            let PlannedPage::Delivered(page) =
                plan_page(&base, &rows, seen.len(), 80, PageBudget::units(RESPONSE_HARD_CEILING), &fill)
            else {
                panic!()
            };
            assert!(serialized_utf16_len(&page) <= RESPONSE_HARD_CEILING);
            let delivered = page["sites"].as_array().unwrap();
            assert!(delivered.len() > 1 || seen.len() + 1 == rows.len(), "{} rows", delivered.len());
            seen.extend(delivered.iter().map(|row| row["i"].as_u64().unwrap()));
        }
        assert_eq!(seen, (0..300).collect::<Vec<u64>>());
    }

    #[test]
    fn per_project_detail_gives_way_to_a_full_page_of_rows() {
        // 500 projects' ledger rows alone exceed the ceiling; 80 small rows fit beside a part
        // of it, and the page keeps all 80 (it used to keep the ledger and one row).
        let projects: Vec<Value> = (0..500).map(|index| json!({ "p": index, "pad": "y".repeat(200) })).collect();
        let base = json!({ "perProject": projects });
        let rows: Vec<Value> = (0..200).map(|index| json!({ "i": index, "text": "x".repeat(300) })).collect();
        let PlannedPage::Delivered(answer) =
            plan_page(&base, &rows, 0, 80, PageBudget::units(RESPONSE_HARD_CEILING), &fill)
        else {
            panic!()
        };
        assert_eq!(answer["returnedSites"], json!(80));
        assert_eq!(answer["perProjectTruncated"], json!(true));
        assert!(answer["perProjectReturnedCount"].as_u64().unwrap() > 0, "the rest of the room still holds detail");
        assert!(serialized_utf16_len(&answer) <= RESPONSE_HARD_CEILING);
    }
}
