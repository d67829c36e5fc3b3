//! `fslens find` on a generated workspace large enough that a find's whole answer cannot fit
//! one page: the real binary, with `--fsac` pointing at a program that does not exist, so the
//! syntax layer answers. The first page comes back with rows and a cursor (never `aborted`
//! with none), and the cursor continues where the page stopped.

#[path = "../../benches/support/common_names_workspace.rs"]
mod common_names_workspace;
#[path = "../../benches/support/scale_workspace.rs"]
mod scale_workspace;

use std::path::Path;

use serde_json::Value;

use crate::support::syntax_find::{syntax_find, syntax_find_with};

fn find(root: &Path, arguments: &[&str]) -> Value {
    syntax_find(root, arguments)
}

/// A name declared in every one of 480 files: before, its 480 declarations alone were larger
/// than the response budget, so the answer was `aborted` with no rows at all.
#[test]
fn a_name_declared_in_every_file_returns_its_first_page_with_a_cursor() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = directory.path().canonicalize().expect("canonical root");
    let workspace = scale_workspace::generate(&root, 24);
    let files = workspace.files.len() - 1; // every project file declares `describe`; Core does not

    let first = find(&root, &["describe"]);
    assert_eq!(first["outcome"], "found", "{first:#}");
    assert_ne!(first["status"], "aborted", "{first:#}");
    assert_eq!(first["via"], "syntax");
    assert_eq!(first["totalSites"], files);
    assert_eq!(first["returnedSites"], 80, "{first:#}");
    assert_eq!(first["sites"].as_array().map(Vec::len), Some(80));
    assert_eq!(first["truncated"], true);
    let cursor = first["nextCursor"].as_str().expect("a cursor for the rest");
    let declarations = &first["resolution"];
    assert_eq!(declarations["declarationCount"], files, "{declarations:#}");
    assert_eq!(declarations["declarationsTruncated"], true);

    let second = find(&root, &["describe", "--cursor", cursor]);
    assert_eq!(second["pageOffset"], 80, "{second:#}");
    assert_eq!(second["returnedSites"], 80);
    let last_of_first = &first["sites"][79];
    let first_of_second = &second["sites"][0];
    assert!(
        (last_of_first["file"].as_str(), last_of_first["range"]["start"]["line"].as_u64())
            < (first_of_second["file"].as_str(), first_of_second["range"]["start"]["line"].as_u64()),
        "the second page continues after the first: {last_of_first} then {first_of_second}"
    );
}

/// A row as the test compares them: file, line, character, kind.
type RowKey = (String, u64, u64, String);

/// Every row of a query, page after page, following `nextCursor`; and the answers.
fn all_pages(root: &Path, query: &str, max_results: &str, environment: &[(&str, &str)]) -> (Vec<RowKey>, Vec<Value>) {
    let (mut rows, mut answers) = (Vec::new(), Vec::new());
    let mut cursor: Option<String> = None;
    loop {
        let mut arguments = vec![query, "--max-results", max_results];
        if let Some(cursor) = &cursor {
            arguments.extend(["--cursor", cursor.as_str()]);
        }
        let answer = syntax_find_with(root, &arguments, environment);
        assert_ne!(answer["status"], "aborted", "{answer:#}");
        for site in answer["sites"].as_array().expect("sites") {
            let start = &site["range"]["start"];
            rows.push((
                site["file"].as_str().unwrap().to_owned(),
                start["line"].as_u64().unwrap(),
                start["character"].as_u64().unwrap(),
                site["kind"].as_str().unwrap().to_owned(),
            ));
        }
        cursor = answer["nextCursor"].as_str().map(str::to_owned);
        answers.push(answer);
        if cursor.is_none() || answers.len() > 200 {
            return (rows, answers);
        }
    }
}

/// A field used in every file, under a site budget a few files' sites fill: each answer holds
/// one segment of whole files, its last page's cursor resumes at the first file left, and the
/// pages of all segments are exactly the rows of the unbudgeted stream, in order.
#[test]
fn a_find_past_its_site_budget_answers_in_segments_that_resume_where_they_stopped() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = directory.path().canonicalize().expect("canonical root");
    scale_workspace::generate(&root, 4);
    let (whole, unbudgeted) = all_pages(&root, scale_workspace::FIELD_QUERY, "400", &[]);
    assert!(whole.len() > 300, "{} sites", whole.len());
    assert!(unbudgeted.iter().all(|answer| answer.get("siteBudget").is_none()));

    let budget = 20_000;
    // Pages of 37 rows: a segment takes several pages, whose cursors stay in the segment.
    let environment = [("FSLENS_FIND_SITE_BUDGET_BYTES", budget.to_string())];
    let environment: Vec<(&str, &str)> = environment.iter().map(|(name, value)| (*name, value.as_str())).collect();
    let (segmented, answers) = all_pages(&root, scale_workspace::FIELD_QUERY, "37", &environment);
    assert_eq!(segmented, whole, "the segments' pages are the stream's rows");
    assert!(answers.len() > segmented.len() / 37, "{} pages", answers.len());
    let cut_pages: Vec<&Value> = answers.iter().filter(|answer| answer.get("siteBudget").is_some()).collect();
    for answer in &cut_pages {
        let cut = &answer["siteBudget"];
        assert_eq!(cut["budgetBytes"], budget);
        assert!(cut["heldBytes"].as_u64().unwrap() <= budget, "{cut}");
        assert!(cut["filesLeft"].as_u64().unwrap() >= 1, "{cut}");
        assert_eq!(answer["totalEstimate"]["isLowerBound"], true, "{answer:#}");
        assert_eq!(answer["resultSetComplete"], false);
    }
    // The page that ends a segment says the budget cut it, and its cursor starts the next one
    // at `resumesAtFile`.
    let ends: Vec<(usize, &Value)> =
        answers.iter().enumerate().filter(|(_, answer)| answer["truncatedBy"] == "siteBudget").collect();
    assert!(ends.len() >= 3, "{} segments cut", ends.len());
    for (number, end) in ends {
        let resumed_at = end["siteBudget"]["resumesAtFile"].as_str().unwrap();
        let next = &answers[number + 1];
        assert_eq!(next["pageOffset"], 0, "{next:#}");
        assert_eq!(next["sites"][0]["file"], resumed_at);
    }
}

/// `workCounts` of a syntactic find (with `FSLENS_FIND_COUNT_WORK` set), and the answer.
fn counted_find(root: &Path, query: &str) -> (Value, u64, u64) {
    let answer = syntax_find_with(root, &[query], &[("FSLENS_FIND_COUNT_WORK", "1")]);
    let counts = &answer["workCounts"];
    let compared = counts["declarationComparisons"].as_u64().unwrap_or_else(|| panic!("workCounts: {answer:#}"));
    let resolved = counts["pathsResolved"].as_u64().expect("pathsResolved");
    (answer, compared, resolved)
}

/// Names declared in every module of a monorepo (a function, a record's field): four times
/// the modules must cost about four times the comparisons, not sixteen (before, every
/// declaration was compared with every other when signatures were paired with
/// implementations, and each pair with the same range resolved both paths on disk). The
/// answer's first page comes with a cursor and the number of declarations.
#[test]
fn names_declared_in_every_module_cost_comparisons_linear_in_their_declarations() {
    let (small_directory, large_directory) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let small_root = small_directory.path().canonicalize().unwrap();
    let large_root = large_directory.path().canonicalize().unwrap();
    let small = common_names_workspace::generate(&small_root, 3);
    let large = common_names_workspace::generate(&large_root, 12);
    assert_eq!(large.files.len(), 4 * small.files.len());
    for query in [common_names_workspace::COMMON_FUNCTION, common_names_workspace::COMMON_FIELD] {
        let (small_answer, small_compared, small_resolved) = counted_find(&small_root, query);
        let (large_answer, large_compared, large_resolved) = counted_find(&large_root, query);
        for (answer, modules) in [(&small_answer, small.files.len()), (&large_answer, large.files.len())] {
            assert_eq!(answer["outcome"], "found", "{answer:#}");
            assert_eq!(answer["resolution"]["declarationCount"], modules, "{query}: one declaration per module");
            assert!(answer["returnedSites"].as_u64().is_some_and(|rows| rows > 0), "{query}: {answer:#}");
            assert!(answer["nextCursor"].is_string(), "{query}");
        }
        assert!(
            large_compared <= 5 * small_compared.max(small.files.len() as u64),
            "{query}: {small_compared} comparisons for {} modules, {large_compared} for {}",
            small.files.len(),
            large.files.len()
        );
        assert!(
            large_resolved <= 5 * small_resolved.max(small.files.len() as u64),
            "{query}: {small_resolved} paths resolved for {} modules, {large_resolved} for {}",
            small.files.len(),
            large.files.len()
        );
    }
    // A qualified name whose last segment every module declares reads the declaring module
    // and the one module that uses it, not the 240 files that hold `bumpR3`.
    let qualified = common_names_workspace::qualified_function(6, 10);
    let answer = syntax_find(&large_root, &[&qualified]);
    let searched = &answer["filesSearched"];
    assert_eq!(searched["scannedFiles"], large.files.len(), "{searched}");
    assert_eq!(searched["candidateFiles"], 2, "{searched}");
    assert_eq!(searched["cannotUseFiles"], large.files.len() - 2, "{searched}");
    let files: std::collections::BTreeSet<&str> =
        answer["sites"].as_array().unwrap().iter().filter_map(|site| site["file"].as_str()).collect();
    assert_eq!(files, ["src/Proj0006/M010.fs", "src/Proj0006/M011.fs"].into(), "{answer:#}");
}

/// A row as [`RowKey`] names it.
fn row_key(site: &Value) -> RowKey {
    let start = &site["range"]["start"];
    (
        site["file"].as_str().unwrap().to_owned(),
        start["line"].as_u64().unwrap(),
        start["character"].as_u64().unwrap(),
        site["kind"].as_str().unwrap().to_owned(),
    )
}

/// A name declared in every module, under a response budget its per-project ledger does not
/// fit beside the rest of the metadata (as at 500 projects under the default budget): the page
/// gives up ledger detail for as many rows as the room takes, not for one row only (the
/// planner tried the whole page, then one row), and the cursor's page continues the stream
/// exactly where the first stopped.
#[test]
fn a_first_page_that_cannot_be_whole_holds_as_many_rows_as_fit() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = directory.path().canonicalize().expect("canonical root");
    let workspace = common_names_workspace::generate(&root, 24);
    let query = common_names_workspace::COMMON_FUNCTION;
    let unbudgeted = find(&root, &[query]);
    let stream: Vec<RowKey> = unbudgeted["sites"].as_array().expect("sites").iter().map(row_key).collect();
    let ledger = serde_json::to_string(&unbudgeted["perProject"]).unwrap().len();
    assert!(ledger > 3_000 && stream.len() > 40, "{ledger} ledger characters, {} rows", stream.len());
    // A budget 1,000 characters short of the metadata with its whole ledger and no row.
    let mut metadata = unbudgeted.clone();
    metadata["sites"] = serde_json::json!([]);
    let budget = serde_json::to_string(&metadata).unwrap().len() - 1_000;
    let budget_text = budget.to_string();

    let first = find(&root, &[query, "--response-char-budget", &budget_text]);
    assert_eq!(first["outcome"], "found", "{first:#}");
    assert_eq!(first["resolution"]["declarationCount"], workspace.files.len(), "every module declares it");
    assert_eq!(first["perProjectTruncated"], true, "{first:#}");
    let returned = first["returnedSites"].as_u64().unwrap() as usize;
    assert!(returned > 1, "the first page holds {returned} row(s)");
    assert!(serde_json::to_string(&first).unwrap().len() <= budget, "the page fits its budget");
    assert_eq!(first["truncatedBy"], "responseBudget");
    let cursor = first["nextCursor"].as_str().expect("a cursor for the rest");

    let second = find(&root, &[query, "--response-char-budget", &budget_text, "--cursor", cursor]);
    assert_eq!(second["pageOffset"], returned, "{second:#}");
    assert!(second["returnedSites"].as_u64().unwrap() > 1, "{second:#}");
    assert!(serde_json::to_string(&second).unwrap().len() <= budget);
    let pages: Vec<RowKey> =
        first["sites"].as_array().unwrap().iter().chain(second["sites"].as_array().unwrap()).map(row_key).collect();
    assert_eq!(pages, stream[..pages.len()], "the two pages are the stream's first rows, each once");
}

/// A find answer read as the typed `FindAnswer` is the answer sent, member for member: rows
/// with context lines and candidates, the ledger, the page.
#[test]
fn a_find_answer_reads_typed_and_writes_back_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shipping");
    for arguments in [&["Weight", "--context-lines", "1"][..], &["Weight", "--max-results", "2"]] {
        let answer = find(&root, arguments);
        let typed: fslens::commands::find::answer::FindAnswer =
            serde_json::from_value(answer.clone()).unwrap_or_else(|error| panic!("{error}: {answer}"));
        assert_eq!(serde_json::to_value(&typed).unwrap(), answer);
        assert_eq!(typed.page.map(|page| page.sites.len()), answer["sites"].as_array().map(Vec::len));
    }
}
