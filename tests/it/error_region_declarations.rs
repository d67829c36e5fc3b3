//! Neither source overrules the other silently, on `fixtures/builder-in-error-region`: a
//! module `Builders` holding a builder class `type GenBuilder internal () =` (its companion
//! module follows), an exception and a union, after an indented `#if` between two bindings.
//! tree-sitter-fsharp 0.3.12 fails at that `#if` to the end of the module; the index reads the
//! file again with its directive lines blanked, which parses. In the error region the grammar
//! left, the index used to count its silence as knowledge and dropped what FSAC reported
//! there: `find GenBuilder` said complete with the companion module only, `find
//! GenBuilder.Bind` said `not_found`, complete. A copy whose `#if` is replaced by an F# 8
//! extended interpolated string (`$$"""…"""`, which the grammar fails at whatever the
//! directives) keeps the region, for what the index cannot read.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::double::{double_command, fixture_copy, fslens_json, site_row, site_rows};

fn find(workspace: &Path, runtime: &Path, query: &str) -> Value {
    fslens_json(workspace, runtime, &["find", query, "--fsac", &double_command()])
}

fn declared_names(answer: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = answer["resolution"]["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|declaration| declaration["symbolFullName"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    names
}

#[test]
fn a_builder_class_in_an_error_region_and_its_companion_module_are_both_found() {
    let workspace = fixture_copy("builder-in-error-region");
    let runtime = tempfile::tempdir().unwrap();
    let answer = find(workspace.path(), runtime.path(), "GenBuilder");
    assert_eq!(answer["outcome"], json!("found"), "{answer:#}");
    // The module carries `[<CompilationRepresentation(ModuleSuffix)>]`: the compiler names it
    // `GenBuilderModule`, and so does the answer (docs/commands.md, `symbolFullName`).
    assert_eq!(declared_names(&answer), ["Gen.Builders.GenBuilder", "Gen.GenBuilderModule"], "{answer:#}");
    let found = site_rows(&answer);
    for expected in [
        site_row("Gen.fs", 13, 9, "definition"),
        site_row("Gen.fs", 25, 7, "definition"),
        site_row("Gen.fs", 26, 23, "reference"),
        site_row("Use.fs", 2, 18, "reference"),
        site_row("Use.fs", 4, 23, "reference"),
        site_row("Use.fs", 6, 21, "reference"),
    ] {
        assert!(found.contains(&expected), "{expected:?} missing: {answer:#}");
    }
    assert_eq!(answer["status"], json!("ok"), "both sources agree on both declarations: {answer:#}");

    let answer = find(workspace.path(), runtime.path(), "GenBuilder.Bind");
    assert_eq!(answer["outcome"], json!("found"), "{answer:#}");
    assert_eq!(
        site_rows(&answer),
        [
            site_row("Gen.fs", 14, 17, "definition"),
            site_row("Gen.fs", 28, 37, "member-usage"),
            site_row("Gen.fs", 28, 46, "member-usage"),
            site_row("Use.fs", 2, 33, "member-usage"),
        ],
        "{answer:#}"
    );

    // An exception in the region is read from its line too.
    let answer = find(workspace.path(), runtime.path(), "GenFailure");
    assert_eq!(
        site_rows(&answer),
        [site_row("Gen.fs", 17, 14, "definition"), site_row("Use.fs", 8, 32, "reference")],
        "{answer:#}"
    );
}

#[test]
fn a_declaration_the_backend_reports_where_the_index_cannot_read_is_kept_and_the_answer_is_partial() {
    let workspace = fixture_copy("builder-in-error-region");
    let source = workspace.path().join("Gen.fs");
    let text = std::fs::read_to_string(&source).unwrap();
    let failing = text.replacen(
        "    #if !FABLE_COMPILER\n    let inline pairUp a b = (a, b)\n    #endif\n",
        "    let inline pairUp a b = (a, b)\n\n    let quoted (name: string) = $$\"\"\"{\"name\": \"{{name}}\"}\"\"\"\n",
        1,
    );
    assert_ne!(failing, text, "the fixture's `#if` lines moved");
    std::fs::write(&source, failing).unwrap();
    let runtime = tempfile::tempdir().unwrap();
    // The union's cases lie in the error region, and the index reads no case from lines: FSAC's
    // `workspace/symbol` is the only source that declares `Stop`.
    let answer = find(workspace.path(), runtime.path(), "Stop");
    assert_eq!(answer["outcome"], json!("found"), "{answer:#}");
    assert_eq!(
        site_rows(&answer),
        [
            site_row("Gen.fs", 21, 10, "definition"),
            site_row("Use.fs", 13, 15, "reference"),
            site_row("Use.fs", 13, 32, "reference")
        ],
        "{answer:#}"
    );
    assert_eq!(answer["status"], json!("partial"), "{answer:#}");
    assert_eq!(answer["coverage"]["complete"], json!(false), "{answer:#}");
    let unconfirmed = answer["crossCheck"]["unconfirmedByIndex"].as_array().unwrap();
    assert_eq!(unconfirmed.len(), 1, "{answer:#}");
    assert_eq!(unconfirmed[0]["file"], json!("Gen.fs"));
    assert_eq!(unconfirmed[0]["range"]["start"], json!({"line": 21, "character": 10}));
    assert_eq!(unconfirmed[0]["reason"], json!("error_region"));
    assert!(
        answer["notes"].as_array().unwrap().iter().any(|note| note.as_str().unwrap().contains("unconfirmedByIndex")),
        "{answer:#}"
    );
}

/// `not_found` is no answer while a file the grammar could not read whole holds the name: a
/// declaration there may be lost to the index. A copy of `fixtures/trailing-comments` whose
/// `type RoseTree<'T> = // …` comment holds a string (so it is not read as a block comment,
/// and the type's cases and members stay lost): `find RoseTree.GetHashCode` said
/// `not_found`, complete, where the compiler has a declaration and a use. The grammar reads
/// the override's `override` as an identifier there, so FSAC's declaration of it is kept,
/// unconfirmed; a name the file holds that nothing declares is `indeterminate`.
#[test]
fn a_name_in_a_file_the_grammar_could_not_read_whole_is_never_not_found() {
    let workspace = fixture_copy("trailing-comments");
    let file = workspace.path().join("Trees/Trees.fs");
    let text = std::fs::read_to_string(&file).unwrap();
    let commented = "//{ Root: 'T; Children: 'T RoseTree list }";
    assert!(text.contains(commented));
    std::fs::write(&file, text.replace(commented, "// \"Root\" and its \"Children\"")).unwrap();
    let runtime = tempfile::tempdir().unwrap();

    let answer = find(workspace.path(), runtime.path(), "RoseTree.GetHashCode");
    assert_eq!(answer["outcome"], json!("found"), "{answer:#}");
    assert_eq!(answer["status"], json!("partial"), "{answer:#}");
    let unconfirmed = answer["crossCheck"]["unconfirmedByIndex"].as_array().unwrap();
    assert_eq!(unconfirmed.len(), 1, "{answer:#}");
    assert_eq!(unconfirmed[0]["reason"], json!("suspected_misparse"), "{answer:#}");
    assert_eq!(unconfirmed[0]["range"]["start"], json!({"line": 16, "character": 15}), "{answer:#}");

    // A parameter's name: no declaration anywhere, held by the file the grammar lost.
    let answer = find(workspace.path(), runtime.path(), "RoseTree.other");
    assert_eq!(answer["outcome"], json!("indeterminate"), "{answer:#}");
    assert_eq!(answer["status"], json!("unknown"), "{answer:#}");
    assert_eq!(
        answer["resolution"]["degradedFilesHoldingName"],
        json!([{ "file": "Trees/Trees.fs", "line": 11, "character": 22 }]),
        "{answer:#}"
    );
    let notes = answer["notes"].to_string();
    assert!(notes.contains("could not read whole (Trees/Trees.fs:12"), "{answer:#}");

    // A name no unreadable file holds is still `not_found`, complete.
    let answer = find(workspace.path(), runtime.path(), "RoseTree.Height");
    assert_eq!(answer["outcome"], json!("not_found"), "{answer:#}");
    assert_eq!(answer["status"], json!("ok"), "{answer:#}");
    assert!(answer["resolution"].get("degradedFilesHoldingName").is_none(), "{answer:#}");
}
