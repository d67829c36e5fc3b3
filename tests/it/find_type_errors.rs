//! `complete` says what it cannot see: when FSAC's diagnostics put an error on a line holding
//! the name (FS0072, "Lookup on object of indeterminate type", on `x.Value`), the compiler
//! left that use unresolved and no references answer has it, so the find is not complete and
//! lists the line (`typeErrorLines`; `fixtures/type-error-lines`).

use crate::support;
use fslens::commands::registry::Command;

use serde_json::{Value, json};
use std::path::Path;

use support::double::{
    Editor, TRANSCRIPT_VARIABLE, double_command, fixture_copy, received_by_fsac, site_row, site_rows,
};

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
    let check = editor.execute_result(Command::Check, json!({"path": "Use.fs"})).await;
    assert_eq!(check["verdict"], json!("errors"), "{check}");

    let answer = editor.execute_result(Command::Find, json!({"query": "Box.Value"})).await;
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
    let answer = editor.execute_result(Command::Find, json!({"query": "Boxes.Use.one"})).await;
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert!(answer.get("typeErrorLines").is_none(), "{answer}");
    editor.stop().await;
}

/// A script that loads no file of the workspace and references no assembly by path (FsToolkit.
/// ErrorHandling's `playground.fsx` references the library's published package) cannot use a
/// workspace declaration: an error on its line holding the name is no unresolved use. Before,
/// its diagnostics, published once the editor opened it, made `find Types.make` partial.
#[tokio::test]
async fn the_errors_of_a_script_that_cannot_see_the_declaration_do_not_count() {
    let workspace = fixture_copy("type-error-lines");
    std::fs::write(
        workspace.path().join("play.fsx"),
        "// Loads nothing of the workspace: `Boxes` is not defined here.\nlet three = Boxes.Types.make 3\n",
    )
    .unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let script = editor.open(&workspace.path().join("play.fsx"), 1).await;
    let check = editor.execute_result(Command::Check, json!({"path": "play.fsx"})).await;
    assert_eq!(check["verdict"], json!("errors"), "{check}");

    let answer = editor.execute_result(Command::Find, json!({"query": "Types.make"})).await;
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert!(answer.get("typeErrorLines").is_none(), "{answer}");
    assert!(site_rows(&answer).iter().all(|row| row.0 != "play.fsx"), "{answer}");

    // The same line in a script that loads the declaring file is a use the compiler left
    // unresolved: it counts, the `#load` typed in the editor and not saved.
    let loading = "#load \"Types.fs\"\nlet three = Boxes.Types.make 3 + \"no\"\n";
    editor.change(&script, 2, loading).await;
    let check = editor.execute_result(Command::Check, json!({"path": "play.fsx"})).await;
    assert_eq!(check["verdict"], json!("errors"), "{check}");
    let answer = editor.execute_result(Command::Find, json!({"query": "Types.make"})).await;
    assert_eq!(answer["status"], json!("partial"), "{answer}");
    editor.stop().await;
}

/// A workspace check published the diagnostics of the closed file: find reads them too.
#[tokio::test]
async fn the_diagnostics_of_a_checked_closed_file_count_too() {
    let workspace = fixture_copy("type-error-lines");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let check = editor.execute_result(Command::Check, json!({})).await;
    assert_eq!(check["verdict"], json!("errors"), "{check}");
    let answer = editor.execute_result(Command::Find, json!({"query": "Box.Value"})).await;
    assert_not_complete_at_the_error_line(&answer);
    editor.stop().await;
}

/// `fslens find ARGUMENTS --json` from the command line in a fresh session over `workspace`,
/// the FSAC double writing its transcript to `transcript`; the answer as printed.
fn cold_find(workspace: &Path, transcript: &Path, arguments: &[&str]) -> Value {
    let runtime = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .arg("find")
        .args(arguments)
        .args(["--json", "--fsac", &double_command(), "--workspace"])
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env(TRANSCRIPT_VARIABLE, transcript)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("no JSON from find {arguments:?}: {}", String::from_utf8_lossy(&output.stderr)))
}

/// The files (names) FSAC was sent a `didOpen` for, in order.
fn opened_in_fsac(transcript: &Path) -> Vec<String> {
    received_by_fsac(transcript)
        .iter()
        .filter(|message| message["method"] == json!("textDocument/didOpen"))
        .filter_map(|message| message["params"]["textDocument"]["uri"].as_str())
        .map(|uri| uri.rsplit('/').next().unwrap_or_default().to_owned())
        .collect()
}

/// A cold `fslens find` from the command line: a fresh session, no check before, no file open.
/// FSAC had published nothing for Use.fs, whose `x.Value` it did not report as a site, so find
/// has FSAC analyse that file itself (and Jar.fs, whose `Value` is another class's) and sees
/// the error. Before, the answer was `ok`, complete, with the three resolved sites only.
#[test]
fn a_cold_find_from_the_command_line_obtains_the_diagnostics_it_needs() {
    let workspace = fixture_copy("type-error-lines");
    let transcript = tempfile::tempdir().unwrap();
    let transcript = transcript.path().join("transcript.jsonl");
    let answer = cold_find(workspace.path(), &transcript, &["Box.Value"]);
    assert_not_complete_at_the_error_line(&answer);
    assert_eq!(answer["typeErrorCheck"]["filesAnalysed"], json!(["Jar.fs", "Use.fs"]), "{answer}");
    assert_eq!(answer["typeErrorCheck"]["filesUnknown"], json!([]), "{answer}");
    let opened = opened_in_fsac(&transcript);
    assert!(opened.contains(&"Use.fs".to_owned()) && opened.contains(&"Jar.fs".to_owned()), "{opened:?}");
}

/// With the lambda's parameter typed, the compiler resolves every `Box.Value` and no line
/// holding the name has an error: still complete. Only Jar.fs, where the name is another
/// class's `Value` (no site), is analysed for it; Use.fs, every occurrence of the name in it a
/// site, is never opened in FSAC.
#[test]
fn a_cold_find_with_no_type_error_on_its_lines_stays_complete_and_checks_only_unresolved_files() {
    let workspace = fixture_copy("type-error-lines");
    let use_fs = workspace.path().join("Use.fs");
    let typed = std::fs::read_to_string(&use_fs).unwrap().replace(
        "let values boxes = List.map (fun x -> x.Value) boxes",
        "let values boxes = List.map (fun (x: Box) -> x.Value) boxes",
    );
    std::fs::write(&use_fs, typed).unwrap();
    let transcript = tempfile::tempdir().unwrap();
    let transcript = transcript.path().join("transcript.jsonl");
    let answer = cold_find(workspace.path(), &transcript, &["Box.Value"]);
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert_eq!(answer["completeness"], json!("complete"), "{answer}");
    assert!(answer.get("typeErrorLines").is_none(), "{answer}");
    assert_eq!(
        site_rows(&answer),
        vec![
            site_row("Types.fs", 3, 13, "definition"),
            site_row("Use.fs", 4, 19, "member-usage"),
            site_row("Use.fs", 8, 47, "member-usage"),
            site_row("Use.fs", 10, 19, "member-usage"),
        ],
        "{answer}"
    );
    assert_eq!(answer["typeErrorCheck"], json!({"filesAnalysed": ["Jar.fs"], "filesUnknown": []}), "{answer}");
    let opened = opened_in_fsac(&transcript);
    assert!(opened.contains(&"Jar.fs".to_owned()) && !opened.contains(&"Use.fs".to_owned()), "{opened:?}");
}

/// Every occurrence of `make` is a site FSAC reported: nothing is analysed for the find, though
/// Use.fs has a type error (on a line without `make`), and the answer is complete.
#[test]
fn a_cold_find_whose_occurrences_are_all_sites_analyses_nothing() {
    let workspace = fixture_copy("type-error-lines");
    let transcript = tempfile::tempdir().unwrap();
    let transcript = transcript.path().join("transcript.jsonl");
    let answer = cold_find(workspace.path(), &transcript, &["Boxes.Types.make"]);
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert_eq!(answer["completeness"], json!("complete"), "{answer}");
    assert!(answer.get("typeErrorCheck").is_none(), "{answer}");
    assert!(!opened_in_fsac(&transcript).contains(&"Use.fs".to_owned()), "{answer}");
}

/// FSAC never reports analysing Use.fs (the double's `FSAC_DOUBLE_UNANALYSED_FILES`): the find
/// cannot have the diagnostics it needs before its deadline, so it is not complete and says
/// which file and why, never silently complete. Jar.fs is analysed as usual.
#[tokio::test]
async fn diagnostics_not_had_in_time_leave_the_answer_not_complete() {
    let workspace = fixture_copy("type-error-lines");
    let runtime = tempfile::tempdir().unwrap();
    let unanalysed = [("FSAC_DOUBLE_UNANALYSED_FILES", "Use.fs")];
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &unanalysed).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Box.Value", "timeoutMs": 15000})).await;
    assert_eq!(answer["perProject"][0]["status"], json!("analyzed"), "{answer}");
    assert_eq!(answer["status"], json!("partial"), "{answer}");
    assert_eq!(answer["completeness"], json!("partial"), "{answer}");
    assert_eq!(answer["coverage"]["complete"], json!(false), "{answer}");
    assert!(answer.get("typeErrorLines").is_none(), "{answer}");
    assert_eq!(
        answer["typeErrorCheck"],
        json!({
            "filesAnalysed": ["Jar.fs"],
            "filesUnknown": [{"file": "Use.fs", "reason": "not analysed before the deadline"}],
        }),
        "{answer}"
    );
    let notes = answer["notes"].to_string();
    assert!(notes.contains("typeErrorCheck.filesUnknown") && notes.contains("Use.fs"), "{notes}");
    editor.stop().await;
}
