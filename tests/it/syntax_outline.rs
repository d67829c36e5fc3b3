//! `fslens.outline` tests: the file, project and public-API views over the fixture workspace,
//! the response budget (whole entities, `truncated`/`truncatedByBudget`, cursors, at least one
//! entity per page, the downgrade of full entries), unsaved buffers, and argument errors that
//! name the argument.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use expect_test::expect;
use fslens::commands::CommandError;
use fslens::commands::outline::{OutlineArguments, outline_with_index};
use fslens::commands::registry::Command;
use fslens::syntax::{IndexOptions, Overlay, SyntaxIndex};
use fslens::workspace::{WorkspaceModel, load_workspace};
use serde_json::{Value, json};

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax-workspace")
}

fn run(model: &WorkspaceModel, arguments: Value, overlay: &Overlay) -> Result<Value, CommandError> {
    let index = SyntaxIndex::new(IndexOptions::without_cache());
    let arguments: OutlineArguments = fslens::commands::params::parse_arguments(arguments)?;
    // The answer as the wire carries it.
    outline_with_index(&index, model, &arguments, overlay)
        .map(|answer| serde_json::to_value(answer).expect("the answer serializes"))
}

fn fixture(arguments: Value) -> Value {
    let model = load_workspace(&fixture_root()).expect("fixture loads");
    run(&model, arguments, &Overlay::new()).expect("outline answers")
}

#[test]
fn file_outline_summary_is_the_default() {
    let answer = fixture(json!({ "path": "src/Core/Types.fs" }));
    expect![[r#"
        {
          "completeness": "syntactic",
          "count": 3,
          "entries": [
            {
              "access": "public",
              "certain": true,
              "fullName": "Acme.Core",
              "kind": "namespace",
              "memberCounts": {},
              "name": "Acme.Core",
              "range": {
                "end": {
                  "character": 27,
                  "line": 7
                },
                "start": {
                  "character": 0,
                  "line": 0
                }
              }
            },
            {
              "access": "public",
              "certain": true,
              "fullName": "Acme.Core.Point",
              "kind": "record",
              "memberCounts": {
                "record-field": 2
              },
              "name": "Point",
              "range": {
                "end": {
                  "character": 31,
                  "line": 2
                },
                "start": {
                  "character": 5,
                  "line": 2
                }
              }
            },
            {
              "access": "public",
              "certain": true,
              "fullName": "Acme.Core.Geometry",
              "kind": "module",
              "memberCounts": {
                "let": 3
              },
              "name": "Geometry",
              "range": {
                "end": {
                  "character": 27,
                  "line": 7
                },
                "start": {
                  "character": 0,
                  "line": 4
                }
              }
            }
          ],
          "fromUnsavedBuffer": false,
          "grammar": "implementation",
          "health": {
            "errorRegionCount": 0,
            "misparseCount": 0,
            "rootIsError": false,
            "status": "clean"
          },
          "lines": 8,
          "memberCounts": {
            "let": 3,
            "module": 1,
            "namespace": 1,
            "record": 1,
            "record-field": 2
          },
          "offset": 0,
          "path": "src/Core/Types.fs",
          "projects": [
            "src/Core/Core.fsproj"
          ],
          "returnedEntryCount": 3,
          "summaryOnly": true,
          "totalEntities": 3,
          "truncated": false,
          "via": "syntax",
          "view": "file"
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&answer).expect("json"));
}

#[test]
fn file_outline_full_mode_has_signatures_and_members() {
    let answer = fixture(json!({ "path": "src/Core/Types.fs", "summaryOnly": false }));
    expect![[r#"
        src/Core/Types.fs (implementation, 8 lines, clean) via syntax
          namespace Acme.Core [public] 1:1
          record Acme.Core.Point [public] 3:6 — 2 record-field
            record-field 3:16  X: int
            record-field 3:24  Y: int
          module Acme.Core.Geometry [public] 5:1 — 3 let
            let 6:5  let origin
            let 7:5  let move (p: Point) dx
            let 8:5  let private secret
    "#]]
    .assert_eq(&fslens::cli::render_text(Command::Outline, &answer));
    assert!(answer.get("downgradedToSummary").is_none());
}

#[test]
fn signature_file_outline() {
    let answer = fixture(json!({ "path": "src/Core/Types.fsi", "summaryOnly": false }));
    assert_eq!(answer["grammar"], "signature");
    expect![[r#"
        src/Core/Types.fsi (signature, 7 lines, clean) via syntax
          namespace Acme.Core [public] 1:1
          record Acme.Core.Point [public] 3:6 — 2 record-field
            record-field 3:16  X: int
            record-field 3:24  Y: int
          module Acme.Core.Geometry [public] 5:1 — 2 val
            val 6:5  val origin: Point
            val 7:5  val move: p: Point -> dx: int -> Point
    "#]]
    .assert_eq(&fslens::cli::render_text(Command::Outline, &answer));
}

#[test]
fn project_outline_lists_files_in_compile_order_then_orphans() {
    let answer = fixture(json!({}));
    expect![[r#"
        project src/Core/Core.fsproj [net8.0;netstandard2.0]
        project src/App/App.fsproj [net8.0]
          #1 src/Core/Types.fsi (clean, 7 lines) Acme.Core, Acme.Core.Point, Acme.Core.Geometry
          #2 src/Core/Types.fs (clean, 8 lines) Acme.Core, Acme.Core.Point, Acme.Core.Geometry
          #3 shared/Shared.fs (clean, 3 lines) Acme.Shared
          #4 src/Core/Gen/A.fs (clean, 3 lines) Acme.Gen.A
          #5 src/Core/Gen/Sub/B.fs (clean, 3 lines) Acme.Gen.B
          #6 src/Core/Util.fs (clean, 5 lines) Acme.Util
          #1 src/App/Program.fs (clean, 9 lines) Acme.App.Program
          orphan scripts/build.fsx (clean, 2 lines) 
          orphan src/Core/Gen/Skip.fs (clean, 3 lines) Acme.Gen.Skip
          orphan src/Core/Stray.fs (clean, 3 lines) Acme.Stray
    "#]]
    .assert_eq(
        &fslens::cli::render_text(Command::Outline, &answer).replace(&fixture_root().display().to_string(), "$ROOT"),
    );
    assert_eq!(answer["coverage"]["filesRequested"], 10);
}

#[test]
fn public_api_is_sorted_public_only_and_prefers_signature_files() {
    let answer = fixture(json!({ "view": "publicApi" }));
    expect![[r#"
        module Acme.App.Program  (Acme.App.Program)
            let main _
        module Geometry  (Acme.Core.Geometry)
            val move: p: Point -> dx: int -> Point
            val origin: Point
        type Point  (Acme.Core.Point)
            X: int
            Y: int
        module Acme.Gen.A  (Acme.Gen.A)
            let a
        module Acme.Gen.B  (Acme.Gen.B)
            let b
        module Acme.Shared  (Acme.Shared)
            let version
        module Acme.Util  (Acme.Util)
            let describe (p: Point)
    "#]]
    .assert_eq(&fslens::cli::render_text(Command::Outline, &answer));
    let internal = fixture(json!({ "view": "publicApi", "namespaceFilter": "Acme.Gen" }));
    let names: Vec<&str> = internal["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|entry| entry["fullName"].as_str())
        .collect();
    assert_eq!(names, ["Acme.Gen.A", "Acme.Gen.B"]);
}

fn many_types_workspace(count: usize, members_each: usize) -> (tempfile::TempDir, WorkspaceModel) {
    many_named_types_workspace("T", count, members_each)
}

/// `Big.fs` declaring `count` union types `{prefix}0000`… with `members_each` cases each.
fn many_named_types_workspace(prefix: &str, count: usize, members_each: usize) -> (tempfile::TempDir, WorkspaceModel) {
    let directory = tempfile::tempdir().expect("temp dir");
    let mut text = String::from("module Big\n\n");
    for number in 0..count {
        text.push_str(&format!("type {prefix}{number:04} =\n"));
        for member in 0..members_each.max(1) {
            text.push_str(&format!("    | Case{number}_{member} of value{member}: int\n"));
        }
    }
    std::fs::write(directory.path().join("Big.fs"), text).expect("write");
    std::fs::write(
        directory.path().join("Big.fsproj"),
        "<Project><ItemGroup><Compile Include=\"Big.fs\" /></ItemGroup></Project>",
    )
    .expect("write");
    let model = load_workspace(directory.path()).expect("loads");
    (directory, model)
}

#[test]
fn budget_closes_pages_on_whole_entities_and_cursors_walk_every_entity_once() {
    let (_directory, model) = many_types_workspace(60, 3);
    let overlay = Overlay::new();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut arguments = json!({ "path": "Big.fs", "responseCharBudget": 2000 });
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let answer = run(&model, arguments, &overlay).expect("answers");
        pages += 1;
        let entries = answer["entries"].as_array().expect("entries");
        assert!(!entries.is_empty(), "a page always holds at least one entity");
        let used: usize =
            entries.iter().map(|entry| serde_json::to_string(entry).expect("json").encode_utf16().count() + 1).sum();
        assert!(used <= 2000 || entries.len() == 1, "page of {used} units");
        for entry in entries {
            seen.push(entry["fullName"].as_str().expect("name").to_owned());
        }
        if answer["truncated"] == json!(true) {
            assert_eq!(answer["truncatedByBudget"], json!(true));
            cursor = Some(answer["nextCursor"].as_str().expect("cursor").to_owned());
        } else {
            assert!(answer.get("truncatedByBudget").is_none());
            assert!(answer.get("nextCursor").is_none());
            break;
        }
        assert!(pages < 100);
    }
    assert!(pages > 1);
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no entity repeated");
    assert_eq!(seen.len(), 61, "module plus 60 types");
}

/// Entities named in a script of three UTF-8 bytes per UTF-16 unit: a byte budget (the MCP
/// bridge's, whose output is 40 KiB of bytes) closes pages the unit budget would leave open,
/// and the cursors still walk every entity once.
#[test]
fn a_byte_budget_bounds_pages_of_non_ascii_names_and_cursors_walk_every_entity_once() {
    let (_directory, model) = many_named_types_workspace("型データ", 60, 3);
    let overlay = Overlay::new();
    let by_units = run(&model, json!({ "path": "Big.fs", "responseCharBudget": 2000 }), &overlay).expect("answers");
    let units_page = by_units["entries"].as_array().expect("entries").len();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut arguments = json!({ "path": "Big.fs", "responseCharBudget": 2000, "responseByteBudget": 2000 });
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let answer = run(&model, arguments, &overlay).expect("answers");
        pages += 1;
        let entries = answer["entries"].as_array().expect("entries");
        let (units, bytes) = entries.iter().fold((0, 0), |(units, bytes), entry| {
            let text = serde_json::to_string(entry).expect("json");
            (units + text.encode_utf16().count() + 1, bytes + text.len() + 1)
        });
        assert!(bytes <= 2000 || entries.len() == 1, "page of {bytes} bytes");
        assert!(units <= 2000 || entries.len() == 1, "page of {units} units");
        if pages == 1 {
            assert!(bytes > units, "the names take more bytes than units: {bytes} / {units}");
            assert!(entries.len() < units_page, "{} entries by bytes, {units_page} by units", entries.len());
        }
        for entry in entries {
            seen.push(entry["fullName"].as_str().expect("name").to_owned());
        }
        match answer["nextCursor"].as_str() {
            Some(next) => {
                assert_eq!(answer["truncatedByBudget"], json!(true));
                cursor = Some(next.to_owned());
            }
            None => break,
        }
        assert!(pages < 200);
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!((unique.len(), seen.len()), (61, 61), "module plus 60 types, each once");
    assert!(seen.iter().any(|name| name.contains("型データ0059")), "{seen:?}");
}

#[test]
fn max_results_closes_without_the_budget_flag() {
    let (_directory, model) = many_types_workspace(10, 1);
    let answer = run(&model, json!({ "path": "Big.fs", "maxResults": 4 }), &Overlay::new()).expect("answers");
    assert_eq!(answer["returnedEntryCount"], 4);
    assert_eq!(answer["truncated"], true);
    assert!(answer.get("truncatedByBudget").is_none());
}

#[test]
fn an_oversized_entity_still_fills_a_page_alone() {
    let (_directory, model) = many_types_workspace(2, 400);
    let answer = run(
        &model,
        json!({ "path": "Big.fs", "summaryOnly": true, "responseCharBudget": 200, "offset": 1 }),
        &Overlay::new(),
    )
    .expect("answers");
    assert_eq!(answer["returnedEntryCount"], 1);
    assert_eq!(answer["truncated"], true);
}

#[test]
fn full_mode_downgrades_to_summary_when_it_cannot_fit() {
    let (_directory, model) = many_types_workspace(30, 20);
    let answer = run(&model, json!({ "path": "Big.fs", "summaryOnly": false }), &Overlay::new()).expect("answers");
    assert_eq!(answer["downgradedToSummary"], true);
    assert_eq!(answer["summaryOnly"], false, "echoes the request");
    assert!(answer["entries"][1].get("members").is_none());
    assert!(answer["downgradeHint"].as_str().expect("hint").contains("maxResults"));
}

#[test]
fn public_api_hint_names_real_namespaces_from_the_remainder() {
    let answer = fixture(json!({ "view": "publicApi", "maxResults": 1 }));
    assert_eq!(answer["truncated"], true);
    let hint = answer["hint"].as_str().expect("hint");
    assert!(hint.contains("namespaceFilter") && hint.contains("\"Acme"), "{hint}");
}

#[test]
fn unsaved_buffers_are_outlined() {
    let model = load_workspace(&fixture_root()).expect("fixture loads");
    let mut overlay = Overlay::new();
    overlay.insert(model.root.join("src/Core/Util.fs"), "module Acme.Util\n\ntype Unsaved = { U: int }\n");
    let answer = run(&model, json!({ "path": "src/Core/Util.fs" }), &overlay).expect("answers");
    assert_eq!(answer["fromUnsavedBuffer"], true);
    assert_eq!(answer["entries"][1]["fullName"], "Acme.Util.Unsaved");
}

#[test]
fn degraded_files_say_so() {
    let directory = tempfile::tempdir().expect("temp dir");
    std::fs::write(directory.path().join("Bad.fs"), "module Bad\nlet f x = match x with A -> 1 | B -> 2\n")
        .expect("write");
    let model = load_workspace(directory.path()).expect("loads");
    let answer = run(&model, json!({ "path": "Bad.fs" }), &Overlay::new()).expect("answers");
    assert_eq!(answer["health"]["status"], "degraded");
    assert_eq!(answer["health"]["misparses"][0]["indicator"], "infix-bar");
    assert_eq!(answer["entries"][0]["fileDegraded"], true);
}

#[test]
fn bad_arguments_name_the_argument() {
    let model = load_workspace(&fixture_root()).expect("fixture loads");
    let overlay = Overlay::new();
    let argument_of = |arguments: Value| match run(&model, arguments, &overlay) {
        Err(CommandError::InvalidArgument { argument, .. }) => argument,
        Err(CommandError::InvalidPath { path, .. }) => format!("path:{path}"),
        other => format!("unexpected: {other:?}"),
    };
    assert_eq!(argument_of(json!({ "view": "file" })), "path");
    assert_eq!(argument_of(json!({ "view": "tree" })), "view");
    assert_eq!(argument_of(json!({ "path": 3 })), "path");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "maxResults": 0 })), "maxResults");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "maxResults": "ten" })), "maxResults");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "summaryOnly": "no" })), "summaryOnly");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "pth": 1 })), "pth");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "cursor": "nonsense" })), "cursor");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "cursor": "o1.0000", "offset": 1 })), "offset");
    assert_eq!(argument_of(json!({ "path": "src/Core/Types.fs", "offset": 99 })), "offset");
    assert_eq!(argument_of(json!({ "view": "project", "project": "Nope" })), "project");
    assert_eq!(argument_of(json!({ "path": "src/Core/Nope.fs" })), "path:src/Core/Nope.fs");
    assert_eq!(argument_of(json!({ "path": "src/Core/Core.fsproj" })), "path:src/Core/Core.fsproj");
    assert_eq!(argument_of(json!([1, 2])), "arguments");

    // A cursor from one file's outline is refused for another file.
    let (_directory, big) = many_types_workspace(10, 1);
    let first = run(&big, json!({ "path": "Big.fs", "maxResults": 2 }), &overlay).expect("answers");
    let cursor = first["nextCursor"].as_str().expect("cursor");
    match run(&big, json!({ "path": "Big.fs", "maxResults": 3, "cursor": cursor }), &overlay) {
        Err(CommandError::InvalidArgument { argument, .. }) => assert_eq!(argument, "cursor"),
        other => panic!("expected a cursor error, got {other:?}"),
    }
}

#[test]
fn files_and_projects_outside_the_workspace_are_refused() {
    let (directory, model) = many_types_workspace(2, 1);
    let outside = tempfile::tempdir().expect("temp dir");
    let secret = outside.path().join("Secret.fs");
    std::fs::write(&secret, "module Secret\nlet key = 42\n").expect("write");
    std::fs::write(outside.path().join("Secret.fsproj"), "<Project Sdk=\"Microsoft.NET.Sdk\" />").expect("write");
    std::os::unix::fs::symlink(&secret, directory.path().join("Linked.fs")).expect("symlink");
    let relative = format!("../{}/Secret.fs", outside.path().file_name().unwrap().to_string_lossy());
    let overlay = Overlay::new();
    for (arguments, argument) in [
        (json!({ "path": secret.display().to_string() }), "path"),
        (json!({ "path": relative }), "path"),
        (json!({ "path": "Linked.fs" }), "path"),
        (
            json!({ "view": "project", "project": outside.path().join("Secret.fsproj").display().to_string() }),
            "project",
        ),
    ] {
        match run(&model, arguments.clone(), &overlay) {
            Err(CommandError::InvalidPath { path, message }) => {
                assert!(message.contains("outside the workspace"), "{arguments}: {message}");
                assert_eq!(json!(path), arguments[argument], "the error names what `{argument}` said");
            }
            other => panic!("{arguments} ({argument}) was not refused: {other:?}"),
        }
    }
    // The file inside still answers.
    assert!(run(&model, json!({ "path": "Big.fs" }), &overlay).is_ok());
}
