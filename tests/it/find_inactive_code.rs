//! Inactive code is never outside a `complete` answer silently (`fixtures/inactive-code`,
//! behind the .NET double, which loads the project by a design-time build with its real
//! defines: the first target framework, netstandard2.0, and `SOMEDEFINE` from
//! `Directory.Build.props`, `DEBUG_METERS` from a `DefineConstants` for Debug only). Uses of
//! `Meter` under `#if NET6_0_OR_GREATER` and in Modern.fs (both compiled for net8.0 only),
//! under `#if RELEASE_METERS` (Release only) and under `#if !SOMEDEFINE` are code the compiler
//! behind FSAC never saw: `find` lists them as rows of kind `inactive` with their condition and is not complete, a
//! declaration there is found (never `not_found`), and `rename` lists them as missed.

use crate::support;
use fslens::commands::registry::Command;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy, site_rows};

/// (file, 0-based line, character, kind, condition) of every row.
fn rows(answer: &Value) -> BTreeSet<(String, u64, u64, String, Option<String>)> {
    let conditions = answer["sites"].as_array().into_iter().flatten().map(|site| site["condition"].as_str());
    site_rows(answer)
        .into_iter()
        .zip(conditions)
        .map(|((file, line, character, kind), condition)| (file, line, character, kind, condition.map(str::to_owned)))
        .collect()
}

fn row(
    file: &str,
    line: u64,
    character: u64,
    kind: &str,
    condition: Option<&str>,
) -> (String, u64, u64, String, Option<String>) {
    (file.to_owned(), line, character, kind.to_owned(), condition.map(str::to_owned))
}

const NET6: Option<&str> = Some("#if NET6_0_OR_GREATER");
/// Defined by a `DefineConstants` for Release only (FSAC loads Debug).
const RELEASE_ONLY: Option<&str> = Some("#if RELEASE_METERS");
const NOT_SOMEDEFINE: Option<&str> = Some("#if !SOMEDEFINE");
/// Modern.fs is compiled for net8.0 alone.
const NET8_ONLY: Option<&str> = Some("<Compile Condition=\"'$(TargetFramework)' == 'net8.0'\">");

fn assert_partial_for_inactive_code(answer: &Value) {
    assert_eq!(answer["via"], json!("fsac"), "{answer}");
    assert_eq!(answer["outcome"], json!("found"), "{answer}");
    assert_eq!(answer["status"], json!("partial"), "{answer}");
    assert_eq!(answer["completeness"], json!("partial"), "{answer}");
    assert!(answer["notes"].to_string().contains("inactive"), "{answer}");
    for site in answer["sites"].as_array().unwrap().iter().filter(|site| site["kind"] == "inactive") {
        assert_eq!((&site["via"], &site["certain"]), (&json!("syntax"), &json!(false)), "{site}");
    }
}

#[tokio::test]
async fn find_and_rename_list_sites_in_inactive_code_and_are_not_complete() {
    let workspace = fixture_copy("inactive-code");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    // The type: three uses FSAC never saw, beside the ones it resolved.
    let answer = editor.execute_result(Command::Find, json!({"query": "Inactive.Meter"})).await;
    assert_partial_for_inactive_code(&answer);
    assert_eq!(
        rows(&answer),
        BTreeSet::from([
            row("Legacy.fs", 2, 21, "reference", None),
            row("Legacy.fs", 10, 18, "inactive", NOT_SOMEDEFINE),
            row("Modern.fs", 3, 20, "inactive", NET8_ONLY),
            row("Span.fs", 4, 17, "inactive", NET6),
            row("Span.fs", 4, 26, "inactive", NET6),
            row("Types.fs", 2, 5, "definition", None),
            row("Use.fs", 2, 19, "reference", None),
            row("Use.fs", 4, 10, "reference", None),
            row("Use.fs", 16, 19, "inactive", RELEASE_ONLY),
        ]),
        "{answer}"
    );

    // A field: the `#else` branch is active (FSAC's row), the `#if !SOMEDEFINE` one is not.
    // Gauge's `Value` under `#if DEBUG_METERS` (defined for Debug, the configuration FSAC
    // loads, by a conditioned DefineConstants) is compiled code and no row: before, the
    // conditioned define was not counted and `gauge`'s `Value` was a row of kind inactive.
    let answer = editor.execute_result(Command::Find, json!({"query": "Meter.Value"})).await;
    assert_partial_for_inactive_code(&answer);
    let inactive: BTreeSet<_> = rows(&answer).into_iter().filter(|row| row.3 == "inactive").collect();
    assert_eq!(
        inactive,
        BTreeSet::from([
            row("Legacy.fs", 4, 46, "inactive", NOT_SOMEDEFINE),
            row("Modern.fs", 3, 50, "inactive", NET8_ONLY),
            row("Span.fs", 4, 55, "inactive", NET6)
        ]),
        "{answer}"
    );
    assert!(rows(&answer).contains(&row("Legacy.fs", 6, 27, "field-read", None)), "{answer}");

    // A declaration in inactive code: found, partial, listed with its condition.
    let answer = editor.execute_result(Command::Find, json!({"query": "legacyMeter"})).await;
    assert_partial_for_inactive_code(&answer);
    assert_eq!(rows(&answer), BTreeSet::from([row("Legacy.fs", 10, 4, "inactive", NOT_SOMEDEFINE)]), "{answer}");
    // The compiler behind FSAC never saw it, so FSAC's references cannot have missed it.
    assert_eq!(answer["crossCheck"]["missedByBackend"], json!([]), "{answer}");
    assert!(!answer["notes"].to_string().contains("FSAC's references miss"), "{answer}");

    // The rename of the field: the inactive uses are missed, and the preview is not complete.
    let answer = editor
        .execute_result(Command::Rename, json!({"path": "Types.fs", "line": 2, "word": "Value", "newName": "Length"}))
        .await;
    assert_eq!(answer["complete"], json!(false), "{answer}");
    let missed: BTreeSet<(String, u64, Option<String>)> = answer["missedSites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|site| {
            (
                site["file"].as_str().unwrap().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap(),
                site["condition"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        missed,
        BTreeSet::from([
            ("Legacy.fs".to_owned(), 4, NOT_SOMEDEFINE.map(str::to_owned)),
            ("Modern.fs".to_owned(), 3, NET8_ONLY.map(str::to_owned)),
            ("Span.fs".to_owned(), 4, NET6.map(str::to_owned)),
        ]),
        "{answer}"
    );
    editor.stop().await;
}

/// `fixtures/inactive-qualified`: under `#if FABLE_COMPILER` (never defined here), a bare
/// `empty` after `open Bags.Cells` and `Cells.empty`, beside a `[<RequireQualifiedAccess>]
/// module Bag` declaring its own `empty`: the text shows both to be `Cells.empty`'s (an
/// occurrence qualified by another module; a bare one outside a module whose values are
/// reached qualified only), under any defines, so `find Bag.empty` lists no inactive row and is
/// complete, the compiler's two sites exactly (FSharpx.Collections' `DList.empty` beside the
/// `empty` of `#if ONE` code in `TaggedCollections.fs`). Before: both listed as inactive rows,
/// partial. `Bag.size`, used in that code, keeps its inactive row and stays partial.
#[tokio::test]
async fn inactive_occurrences_the_text_shows_to_be_another_symbols_are_no_rows() {
    let workspace = fixture_copy("inactive-qualified");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Bag.empty"})).await;
    assert_eq!(answer["status"], json!("ok"), "{answer:#}");
    let expected =
        BTreeSet::from([row("Bags/Bags.fs", 7, 8, "definition", None), row("Bags/Use.fs", 4, 26, "reference", None)]);
    assert_eq!(rows(&answer), expected, "{answer:#}");
    let answer = editor.execute_result(Command::Find, json!({"query": "Bag.size"})).await;
    assert_partial_for_inactive_code(&answer);
    let expected = BTreeSet::from([
        row("Bags/Bags.fs", 9, 8, "definition", None),
        row("Bags/Use.fs", 12, 20, "inactive", Some("#if FABLE_COMPILER")),
    ]);
    assert_eq!(rows(&answer), expected, "{answer:#}");
    editor.stop().await;
}
