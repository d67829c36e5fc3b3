//! A project FSAC could not load (never restored, or a project file MSBuild cannot read):
//! `find` still gives the syntax layer's rows of its files, labelled `via: "syntax"`, as many
//! as without FSAC at all, and the remedy names the project's own problem, never a longer
//! deadline (`fixtures/failed-project`, `fixtures/malformed-project`).

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use support::double::{double_command, fixture_copy, fslens_json};

/// `find QUERY` with the FSAC double, and with no FSAC at all (each in its own session).
fn with_and_without_fsac(workspace: &Path, query: &str) -> (Value, Value) {
    let (runtime, alone) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let with = fslens_json(workspace, runtime.path(), &["find", query, "--fsac", &double_command()]);
    let without = fslens_json(workspace, alone.path(), &["find", query, "--fsac", "/nonexistent/fsautocomplete"]);
    assert_eq!(with["via"], json!("fsac"), "{with}");
    assert_eq!(without["via"], json!("syntax"), "{without}");
    (with, without)
}

/// (file, line, character, kind, via, certain) of the rows in files under `directory`.
fn rows_under(answer: &Value, directory: &str) -> BTreeSet<(String, u64, u64, String, String, bool)> {
    answer["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|site| site["file"].as_str().unwrap().starts_with(directory))
        .map(|site| {
            (
                site["file"].as_str().unwrap().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap(),
                site["range"]["start"]["character"].as_u64().unwrap(),
                site["kind"].as_str().unwrap().to_owned(),
                site["via"].as_str().unwrap().to_owned(),
                site["certain"].as_bool().unwrap_or(true),
            )
        })
        .collect()
}

fn failed_row<'a>(answer: &'a Value, project: &str) -> &'a Value {
    answer["perProject"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["project"] == json!(project))
        .unwrap_or_else(|| panic!("no perProject row for {project}: {answer}"))
}

/// App (never restored: FSAC error 100) uses `weigh` of Core (loaded) three times. Before,
/// the answer held Core's three rows only, and its remedy was "Raise timeoutMs".
#[test]
fn an_unrestored_project_gives_its_syntax_rows_and_the_restore_remedy() {
    let workspace = fixture_copy("failed-project");
    let (with, without) = with_and_without_fsac(workspace.path(), "weigh");
    assert_eq!(with["status"], json!("partial"), "{with}");
    let app = rows_under(&with, "App/");
    assert_eq!(app.len(), 3, "{with}");
    assert_eq!(app, rows_under(&without, "App/"), "the failed project's rows are the syntax layer's: {with}");
    assert!(app.iter().all(|(.., via, certain)| via == "syntax" && !certain), "{app:?}");
    // Core was swept by FSAC.
    let core = rows_under(&with, "Core/");
    assert_eq!(core.len(), 3, "{with}");
    assert!(core.iter().all(|(.., via, certain)| via == "fsac" && *certain), "{core:?}");

    let row = failed_row(&with, "App/App.fsproj");
    assert_eq!(row["status"], json!("failed"), "{row}");
    assert_eq!(row["sites"], json!(3), "{row}");
    assert_eq!(row["remedy"], json!("run `dotnet restore App/App.fsproj`"), "{row}");
    let note = with["scopeNote"].as_str().unwrap();
    assert!(note.contains("dotnet restore App/App.fsproj"), "{note}");
    assert!(!note.contains("timeoutMs"), "waiting does not load a project: {note}");

    // A declaration in the failed project: its uses there too.
    let (with, without) = with_and_without_fsac(workspace.path(), "label");
    assert_eq!(rows_under(&with, "App/").len(), 2, "{with}");
    assert_eq!(rows_under(&with, "App/"), rows_under(&without, "App/"), "{with}");
}

/// A project file that is not well-formed XML: the remedy is MSBuild's error, with its place.
#[test]
fn a_malformed_project_names_the_msbuild_error_as_the_remedy() {
    let workspace = fixture_copy("malformed-project");
    let (with, without) = with_and_without_fsac(workspace.path(), "code");
    assert_eq!(rows_under(&with, ""), rows_under(&without, ""), "{with}");
    let row = failed_row(&with, "Unclosed.fsproj");
    let remedy = row["remedy"].as_str().unwrap_or_else(|| panic!("no remedy: {row}"));
    assert!(remedy.starts_with("fix Unclosed.fsproj"), "{remedy}");
    // MSBuild's own words, with the line.
    assert!(remedy.to_lowercase().contains("line 10"), "{remedy}");
    let note = with["scopeNote"].as_str().unwrap();
    assert!(note.contains(remedy) && !note.contains("timeoutMs"), "{note}");
}

/// `samples/Samples.fsproj` is on disk but not in `Outside.sln`, so FSAC, opening the
/// solution, never loads it; it uses `weigh` twice. Before, its row said `analyzed` with 0
/// sites, the scope note called all three projects members of the solution, and the answer's
/// `complete` rested on FSAC's references, which never covered the project; the reach walk of
/// `affected-tests` waited to its deadline for FSAC to analyse the project's file.
#[test]
fn a_project_the_solution_fsac_opened_does_not_hold_is_named_not_swept() {
    let workspace = fixture_copy("outside-solution");
    let (with, without) = with_and_without_fsac(workspace.path(), "weigh");
    assert_eq!(with["status"], json!("partial"), "{with}");
    let samples = rows_under(&with, "samples/");
    assert_eq!(samples.len(), 2, "{with}");
    assert_eq!(samples, rows_under(&without, "samples/"), "the unloaded project's rows are the syntax layer's: {with}");
    assert!(samples.iter().all(|(.., via, certain)| via == "syntax" && !certain), "{samples:?}");
    let swept: Vec<_> = rows_under(&with, "Core/").into_iter().chain(rows_under(&with, "App/")).collect();
    assert_eq!(swept.len(), 3, "{with}");
    assert!(swept.iter().all(|(.., via, certain)| via == "fsac" && *certain), "{swept:?}");

    let row = failed_row(&with, "samples/Samples.fsproj");
    assert_eq!(row["status"], json!("failed"), "{row}");
    assert_eq!(row["sites"], json!(2), "{row}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.starts_with("FSAC did not load the project"), "{row}");
    assert_eq!(
        row["remedy"],
        json!("add samples/Samples.fsproj to the solution FSAC opens (`dotnet sln add samples/Samples.fsproj`)"),
        "{row}"
    );
    for loaded in ["Core/Core.fsproj", "App/App.fsproj"] {
        assert_eq!(failed_row(&with, loaded)["status"], json!("analyzed"), "{with}");
    }
    let note = with["scopeNote"].as_str().unwrap();
    assert!(note.contains("FSAC never swept samples/Samples.fsproj"), "{note}");

    // `Program.label` of App, which Samples cannot see (it references Core only): the project
    // FSAC did not load is no gap in this answer, and Samples's own `label` is no row of it.
    let (with, _) = with_and_without_fsac(workspace.path(), "Program.label");
    assert_eq!(with["status"], json!("ok"), "{with}");
    assert_eq!(with["coverage"]["complete"], json!(true), "{with}");
    assert_eq!(rows_under(&with, "App/").len(), 2, "{with}");
    assert!(rows_under(&with, "samples/").is_empty(), "{with}");
    let row = failed_row(&with, "samples/Samples.fsproj");
    assert_eq!(row["status"], json!("analyzed"), "{row}");
    assert!(row["reason"].as_str().unwrap().starts_with("FSAC did not sweep this project, but no resolved"), "{row}");
    assert!(!note.contains("Outside.sln swept"), "the solution holds two of the three projects: {note}");
}
