//! The measured page planner of `fslens.find`: the page, the last phase.
//!
//! The planner delivers an in-order prefix of whole rows whose complete serialized answer
//! (compact JSON, as sent) fits the budget: the caller's `responseCharBudget`, at most
//! [`RESPONSE_HARD_CEILING`](crate::commands::budget::RESPONSE_HARD_CEILING) UTF-16 code
//! units. Prefix sizes are found by binary search; every probe builds and measures the
//! complete candidate answer. A command built on find adds its members to each candidate
//! page through a [`PageHook`], so the page it delivers fits the budget with them.

use serde::{Deserialize, Serialize};

#[cfg(test)]
use crate::commands::budget::serialized_utf16_len;
use crate::commands::budget::{PageBudget, serialized_size};
use crate::commands::find::model::answer::{
    DeliveryStatus, FindAnswer, FindErrorKind, FindPage, PaginationIncompleteReason, Recovery, SameCursorRetry, Status,
    TruncatedBy,
};
use crate::commands::find::model::arguments::FindArguments;
use crate::commands::find::model::cursor::FindCursor;
use crate::commands::find::model::rows::SiteRow;

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

impl PlannedAnswer for FindAnswer {
    fn project_rows(&self) -> usize {
        self.per_project.len()
    }

    fn keep_project_rows(&mut self, keep: usize) {
        let total = self.per_project.len();
        let keep = keep.min(total);
        self.per_project.truncate(keep);
        self.per_project_returned_count = Some(keep);
        self.per_project_total_count = Some(total);
        self.per_project_truncated = Some(keep < total);
    }
}

/// What a command built on find adds to each candidate page before the planner measures it:
/// the page it delivers then fits the budget with the command's members. fieldImpact's hook
/// adds its `field`, `groups` and `plan`.
pub trait PageHook: Sync {
    /// The command's own members, written after find's.
    type Members: Clone + Serialize;
    /// Adds to `answer`, whose page is filled (or which has no page to plan), and returns the
    /// command's members.
    fn extend(&self, answer: &mut FindAnswer) -> Option<Self::Members>;
}

/// The hook of plain `fslens.find`: nothing added.
pub struct NoMembers;

impl PageHook for NoMembers {
    type Members = ();

    fn extend(&self, _: &mut FindAnswer) -> Option<()> {
        None
    }
}

/// Find's answer and what a [`PageHook`] added: find's members, then the command's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExtendedAnswer<M> {
    #[serde(flatten)]
    pub find: FindAnswer,
    #[serde(flatten)]
    pub members: Option<M>,
}

impl<M> ExtendedAnswer<M> {
    /// `answer` with what `hook` adds to it.
    pub fn of<H: PageHook<Members = M>>(mut answer: FindAnswer, hook: &H) -> Self {
        let members = hook.extend(&mut answer);
        ExtendedAnswer { find: answer, members }
    }
}

impl<M: Clone + Serialize> PlannedAnswer for ExtendedAnswer<M> {
    fn project_rows(&self) -> usize {
        self.find.project_rows()
    }

    fn keep_project_rows(&mut self, keep: usize) {
        self.find.keep_project_rows(keep);
    }
}

/// Where the page starts and what its cursor is bound to.
pub struct PageFrame {
    pub offset: usize,
    /// Sites in the whole stream.
    pub total: usize,
    /// The sweep did not complete: no cursor is issued (pagination restarts).
    pub sweep_incomplete: bool,
    pub query_identity: String,
    pub stream: String,
    /// The segment's first file, when it is not the stream's beginning.
    pub from_file: Option<String>,
    /// Where the next segment starts, when the site budget cut this one.
    pub resumes_at: Option<String>,
}

/// The page: the longest prefix of `rows` that fits the budget (with what `hook` adds), its
/// cursor, and, when not one row fits, the typed `find_site_exceeds_response_budget` answer.
pub fn deliver_page<H: PageHook>(
    arguments: &FindArguments,
    base: FindAnswer,
    rows: &[SiteRow],
    frame: &PageFrame,
    hook: &H,
) -> ExtendedAnswer<H::Members> {
    let max_results = arguments.max_results();
    let fill = |extended: &mut ExtendedAnswer<H::Members>, page: &[SiteRow], count: usize| {
        let answer = &mut extended.find;
        let next = frame.offset + count;
        let more_in_segment = next < frame.total;
        let resume = (!more_in_segment).then_some(frame.resumes_at.as_ref()).flatten();
        let more = more_in_segment || resume.is_some();
        let continues = more && !frame.sweep_incomplete;
        let restart = frame.sweep_incomplete && frame.total > 0;
        let whole = frame.offset == 0 && !more && frame.from_file.is_none();
        let cursor = || match resume {
            Some(file) => FindCursor::resume_at(frame.query_identity.clone(), file.clone()).encode(),
            None => {
                let (query_identity, stream_identity) = (frame.query_identity.clone(), frame.stream.clone());
                FindCursor { offset: next, query_identity, stream_identity, from_file: frame.from_file.clone() }
                    .encode()
            }
        };
        answer.resolution.complete = whole;
        answer.page = Some(FindPage {
            sites: page.to_vec(),
            page_offset: Some(frame.offset),
            returned_sites: count,
            cursor_advanced_by: count,
            truncated: Some(more),
            result_set_complete: whole && !frame.sweep_incomplete,
            delivery_status: Some(if more || frame.sweep_incomplete {
                DeliveryStatus::Partial
            } else {
                DeliveryStatus::Complete
            }),
            next_cursor: continues.then(cursor),
            truncated_by: continues.then_some(if resume.is_some() {
                TruncatedBy::SiteBudget
            } else if count >= max_results {
                TruncatedBy::MaxResults
            } else {
                TruncatedBy::ResponseBudget
            }),
            pagination_restart_required: restart.then_some(more),
            retry_same_cursor: restart.then_some(false),
            pagination_incomplete_reason: restart.then_some(PaginationIncompleteReason::DeadlineIncomplete),
        });
        extended.members = hook.extend(answer);
    };
    // The kept rows start at the cursor's offset (validated to be `frame.offset`).
    let base = ExtendedAnswer { find: base, members: None };
    match plan_page(&base, rows, 0, max_results, arguments.page_budget(), &fill) {
        PlannedPage::Delivered(answer) => answer,
        PlannedPage::SiteTooLarge(mut extended) => {
            let answer = &mut extended.find;
            answer.status = Status::Aborted;
            answer.error_kind = Some(FindErrorKind::FindSiteExceedsResponseBudget);
            if let Some(page) = &mut answer.page {
                page.delivery_status = Some(DeliveryStatus::Blocked);
                page.cursor_advanced_by = 0;
                page.next_cursor = None;
            }
            answer.recovery = Some(Recovery {
                same_cursor_retry: SameCursorRetry { allowed: false },
                recipe: "restart without a cursor with fewer contextLines or a larger responseCharBudget, or narrow \
                         the query, scope or projectPath"
                    .to_owned(),
            });
            extended
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::budget::RESPONSE_HARD_CEILING;
    use serde_json::{Value, json};

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
