//! `complete` says what it cannot see: when FSAC's diagnostics put an error on a line holding
//! the name (FS0072, "Lookup on object of indeterminate type", on `x.Value`), the compiler
//! left that use unresolved and no references answer has it, so the find is not complete and
//! lists the line (`typeErrorLines`; `fixtures/type-error-lines`).

use crate::support;

use serde_json::{Value, json};
use support::double::{Editor, fixture_copy, site_row, site_rows};

/// The FS0072 line of Use.fs (0-based): `let values boxes = List.map (fun x -> x.Value) boxes`.
const ERROR_LINE: u64 = 8;

fn assert_not_complete_at_the_error_line(answer: &Value) {
    assert_eq!(answer["via"], json!("fsac"), "{answer}");
    assert_eq!(answer["status"], json!("partial"), "{answer}");
    assert_eq!(answer["completeness"], json!("partial"), "{answer}");
    assert_eq!(answer["coverage"]["complete"], json!(false), "{answer}");
    let lines = answer["typeErrorLines"].as_array().unwrap_or_else(|| panic!("no typeErrorLines: {answer}"));
    assert_eq!(lines.len(), 1, "{answer}");
    assert_eq!(
        (&lines[0]["file"], &lines[0]["line"], &lines[0]["code"]),
        (&json!("Use.fs"), &json!(ERROR_LINE), &json!(72))
    );
    let notes = answer["notes"].to_string();
    assert!(notes.contains("Use.fs:9") && notes.contains("typeErrorLines"), "{notes}");
}

/// The file with the error open in the editor, its diagnostics published: before, `find
/// Box.Value` answered `ok`, complete, with the three resolved sites only.
#[tokio::test]
async fn a_type_error_on_a_line_holding_the_name_makes_find_not_complete() {
    let workspace = fixture_copy("type-error-lines");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    editor.open(&workspace.path().join("Use.fs"), 1).await;
    let check = editor.execute_result("fslens.check", json!({"path": "Use.fs"})).await;
    assert_eq!(check["verdict"], json!("errors"), "{check}");

    let answer = editor.execute_result("fslens.find", json!({"query": "Box.Value"})).await;
    assert_not_complete_at_the_error_line(&answer);
    // The rows are the compiler's, unchanged: the unresolved use is listed as a line, not a row.
    assert_eq!(
        site_rows(&answer),
        vec![
            site_row("Types.fs", 3, 13, "definition"),
            site_row("Use.fs", 4, 19, "member-usage"),
            site_row("Use.fs", 10, 19, "member-usage"),
        ],
        "{answer}"
    );

    // A name on no line with an error stays complete.
    let answer = editor.execute_result("fslens.find", json!({"query": "Boxes.Use.one"})).await;
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert!(answer.get("typeErrorLines").is_none(), "{answer}");
    editor.stop().await;
}

/// A workspace check published the diagnostics of the closed file: find reads them too.
#[tokio::test]
async fn the_diagnostics_of_a_checked_closed_file_count_too() {
    let workspace = fixture_copy("type-error-lines");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let check = editor.execute_result("fslens.check", json!({})).await;
    assert_eq!(check["verdict"], json!("errors"), "{check}");
    let answer = editor.execute_result("fslens.find", json!({"query": "Box.Value"})).await;
    assert_not_complete_at_the_error_line(&answer);
    editor.stop().await;
}
