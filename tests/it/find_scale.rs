//! `fslens find` on a generated workspace large enough that a find's whole answer cannot fit
//! one page: the real binary, with `--fsac` pointing at a program that does not exist, so the
//! syntax layer answers. The first page comes back with rows and a cursor (never `aborted`
//! with none), and the cursor continues where the page stopped.

#[path = "../../benches/support/scale_workspace.rs"]
mod scale_workspace;

use std::path::Path;

use serde_json::Value;

use crate::support::syntax_find::syntax_find;

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
