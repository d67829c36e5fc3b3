//! Sites never overlap (issue 33, item 4), on `fixtures/active-patterns`: a multi-case active
//! pattern `(|Even|Odd|)` and a partial one `(|Positive|_|)`, used in matches in both files.
//! FSAC (and the double) report the whole `|Even|Odd|` beside the case's own characters, both
//! in references and in a rename's edits. `find` of a case lists the case once, as its
//! definition, never the whole pattern as an extra `reference` row; a rename whose edits
//! overlap is refused with `rename_edits_invalid` whatever `apply` and `verify` say, and
//! nothing is written.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy};

/// (file, 0-based line, start character, end character, kind) of every row.
fn rows(answer: &Value) -> BTreeSet<(String, u64, u64, u64, String)> {
    answer["sites"]
        .as_array()
        .unwrap_or_else(|| panic!("no sites: {answer:#}"))
        .iter()
        .map(|site| {
            (
                site["file"].as_str().unwrap().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap(),
                site["range"]["start"]["character"].as_u64().unwrap(),
                site["range"]["end"]["character"].as_u64().unwrap(),
                site["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn expected(rows: &[(&str, u64, u64, u64, &str)]) -> BTreeSet<(String, u64, u64, u64, String)> {
    rows.iter()
        .map(|(file, line, start, end, kind)| ((*file).to_owned(), *line, *start, *end, (*kind).to_owned()))
        .collect()
}

/// No two rows of one file overlap.
fn assert_no_overlap(answer: &Value) {
    let rows: Vec<_> = rows(answer).into_iter().collect();
    for pair in rows.windows(2) {
        let ((file_a, line_a, _, end_a, _), (file_b, line_b, start_b, _, _)) = (&pair[0], &pair[1]);
        assert!(!(file_a == file_b && line_a == line_b && start_b < end_a), "overlapping rows {pair:?}: {answer:#}");
    }
}

#[tokio::test]
async fn find_of_an_active_pattern_case_lists_the_case_not_the_whole_pattern() {
    let workspace = fixture_copy("active-patterns");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    let even = editor.execute("fslens.find", json!({"query": "Even"})).await["result"].clone();
    assert_eq!(even["status"], json!("ok"), "{even:#}");
    assert_no_overlap(&even);
    assert_eq!(
        rows(&even),
        expected(&[
            ("Patterns.fs", 2, 6, 10, "definition"),
            ("Patterns.fs", 2, 54, 58, "reference"),
            ("Patterns.fs", 8, 6, 10, "reference"),
            ("Use.fs", 6, 24, 28, "reference"),
            ("Use.fs", 11, 51, 55, "reference"),
        ]),
        "{even:#}"
    );
    assert_eq!(even["totalSites"], json!(5), "{even:#}");

    let positive = editor.execute("fslens.find", json!({"query": "Positive"})).await["result"].clone();
    assert_eq!(positive["status"], json!("ok"), "{positive:#}");
    assert_no_overlap(&positive);
    assert_eq!(
        rows(&positive),
        expected(&[
            ("Patterns.fs", 4, 6, 14, "definition"),
            ("Use.fs", 6, 6, 14, "reference"),
            ("Use.fs", 7, 6, 14, "reference"),
        ]),
        "{positive:#}"
    );
}

#[tokio::test]
async fn a_rename_whose_edits_overlap_is_refused_and_nothing_is_written() {
    let workspace = fixture_copy("active-patterns");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let before: Vec<String> =
        ["Patterns.fs", "Use.fs"].iter().map(|file| std::fs::read_to_string(root.join(file)).unwrap()).collect();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    let at_even = json!({"path": "Patterns.fs", "line": 2, "word": "Even", "newName": "Pair"});
    let at_positive = json!({"path": "Patterns.fs", "line": 4, "word": "Positive", "newName": "Plus"});
    let with = |base: &Value, extra: Value| {
        let mut argument = base.clone();
        argument.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        argument
    };
    for argument in [
        at_even.clone(),
        at_positive.clone(),
        with(&at_even, json!({"verify": true})),
        with(&at_even, json!({"apply": "disk", "expectedHashes": {}})),
        with(&at_positive, json!({"apply": "editor"})),
    ] {
        let answer = editor.execute("fslens.rename", argument.clone()).await;
        let error = &answer["error"];
        assert_eq!(error["data"]["errorKind"], json!("rename_edits_invalid"), "{argument}: {answer:#}");
        assert_eq!(error["data"]["reason"], json!("overlap"), "{argument}: {answer:#}");
        let edits = error["data"]["edits"].as_array().unwrap();
        assert_eq!(edits.len(), 2, "the two overlapping edits are named: {answer:#}");
        // Never blamed on an argument the caller did not pass.
        assert!(error["data"].get("argument").is_none(), "{answer:#}");
    }
    let after: Vec<String> =
        ["Patterns.fs", "Use.fs"].iter().map(|file| std::fs::read_to_string(root.join(file)).unwrap()).collect();
    assert_eq!(before, after, "nothing was written");
}
