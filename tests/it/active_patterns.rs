//! Active-pattern cases on `fixtures/active-patterns`: a multi-case active pattern
//! `(|Even|Odd|)` and a partial one `(|Positive|_|)`, used in matches in both files. FSAC's
//! lexer reads the banana clip `(|Even|Odd|)` as one identifier, the whole pattern: asked at a
//! case's name there, its references and its rename are the pattern's. `find` of a case lists
//! the case (asked at a use of it), once, as its definition, never the whole pattern as an extra
//! `reference` row, and no two rows overlap; a rename of a case asked in the clip renames the
//! case everywhere (asked at a use), never the clip into one name, and the code still compiles.

use crate::support;
use fslens::commands::registry::Command;

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

    let even = editor.execute(Command::Find, json!({"query": "Even"})).await["result"].clone();
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

    let positive = editor.execute(Command::Find, json!({"query": "Positive"})).await["result"].clone();
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
async fn a_rename_of_a_case_asked_in_its_banana_clip_renames_the_case_and_the_code_compiles() {
    let workspace = fixture_copy("active-patterns");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let before: Vec<String> =
        ["Patterns.fs", "Use.fs"].iter().map(|file| std::fs::read_to_string(root.join(file)).unwrap()).collect();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    let changed_lines = |answer: &Value| -> BTreeSet<(String, u64, String)> {
        answer["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|file| {
                file["lines"].as_array().unwrap().iter().map(|line| {
                    (
                        file["file"].as_str().unwrap().to_owned(),
                        line["line"].as_u64().unwrap(),
                        line["after"].as_str().unwrap().to_owned(),
                    )
                })
            })
            .collect()
    };
    let even = editor
        .execute_result(
            Command::Rename,
            json!({"path": "Patterns.fs", "line": 2, "word": "Even", "newName": "Pair", "verify": true}),
        )
        .await;
    assert_eq!(even["status"], json!("ok"), "{even:#}");
    assert_eq!(even["oldName"], json!("Even"), "{even:#}");
    assert_eq!(even["complete"], json!(true), "{even:#}");
    assert_eq!(even["totalEdits"], json!(5), "{even:#}");
    assert_eq!(
        changed_lines(&even),
        [
            ("Patterns.fs", 2, "let (|Pair|Odd|) (value: int) = if value % 2 = 0 then Pair else Odd"),
            ("Patterns.fs", 8, "    | Pair -> \"even\""),
            ("Use.fs", 6, "    | Positive amount & Pair -> sprintf \"positive even %d\" amount"),
            ("Use.fs", 11, "let evens values = values |> List.filter (function Pair -> true | Odd -> false)"),
        ]
        .iter()
        .map(|(file, line, after)| ((*file).to_owned(), *line, (*after).to_owned()))
        .collect::<BTreeSet<_>>(),
        "{even:#}"
    );
    // The compiler's verdict on the renamed code: it compiles.
    assert_eq!(even["verification"]["verdict"], json!("clean"), "{even:#}");

    // The partial pattern's case is used only in the other file: renamed from there.
    let positive = editor
        .execute_result(
            Command::Rename,
            json!({"path": "Patterns.fs", "line": 4, "word": "Positive", "newName": "Plus"}),
        )
        .await;
    assert_eq!(positive["oldName"], json!("Positive"), "{positive:#}");
    assert_eq!(positive["complete"], json!(true), "{positive:#}");
    assert_eq!(
        changed_lines(&positive).into_iter().map(|(file, line, _)| (file, line)).collect::<Vec<_>>(),
        [("Patterns.fs".to_owned(), 4), ("Use.fs".to_owned(), 6), ("Use.fs".to_owned(), 7)],
        "{positive:#}"
    );
    assert!(
        changed_lines(&positive).iter().any(|(_, _, after)| after.starts_with("let (|Plus|_|) (value: int)")),
        "{positive:#}"
    );
    editor.stop().await;
    let after: Vec<String> =
        ["Patterns.fs", "Use.fs"].iter().map(|file| std::fs::read_to_string(root.join(file)).unwrap()).collect();
    assert_eq!(before, after, "a preview writes nothing");
}
