//! `fslens.typeHierarchy`, which FSAC lacks, through the command and the CLI
//! against the FSAC double on fixtures/implementations: an interface with three implementers,
//! one in another project and one an object expression, and a same-shaped interface that is
//! not implemented by them.

use crate::support;
use fslens::commands::registry::Command;
use fslens::commands::type_hierarchy::{SubtypeKind, TypeHierarchyAnswer};

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy};

/// (file relative to the workspace, 0-based line) of each row, the URI made relative.
fn rows(value: &Value, root: &std::path::Path) -> BTreeSet<(String, u64)> {
    let root = fslens::uri::path_to_uri(&root.canonicalize().unwrap()).unwrap();
    value
        .as_array()
        .unwrap_or_else(|| panic!("{value}"))
        .iter()
        .map(|row| {
            let uri = row["uri"].as_str().unwrap();
            let uri =
                fslens::uri::path_to_uri(&fslens::uri::uri_to_path(uri).unwrap().canonicalize().unwrap()).unwrap();
            (
                uri.trim_start_matches(&root).trim_start_matches('/').to_owned(),
                row["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_command_finds_subtypes_in_two_projects_and_an_object_expression_and_supertypes() {
    let workspace = fixture_copy("implementations");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let at = |line: u32, word: &str| json!({"path": "Shapes/Shapes.fs", "line": line, "word": word});

    let interface = editor.execute_result(Command::TypeHierarchy, at(2, "IShape")).await;
    let expected: BTreeSet<(String, u64)> = [
        ("Shapes/Shapes.fs".to_owned(), 10),
        ("Plugins/Plugins.fs".to_owned(), 5),
        ("Plugins/Plugins.fs".to_owned(), 10),
    ]
    .into();
    assert_eq!(
        rows(&interface["subtypes"], workspace.path()),
        expected,
        "not Plate, which implements IOther: {interface}"
    );
    assert_eq!(interface["type"]["name"], json!("IShape"), "{interface}");
    assert_eq!(interface["type"]["file"], json!("Shapes/Shapes.fs"), "{interface}");
    assert_eq!(interface["complete"], json!(false), "candidates come from text: {interface}");
    assert!(interface["candidatesChecked"].as_u64().unwrap() >= 3, "{interface}");

    // The same answer read as the command's typed answer: one subtype is the object expression.
    let typed: TypeHierarchyAnswer = editor.execute_as(Command::TypeHierarchy, at(2, "IShape")).await;
    let kinds: Vec<SubtypeKind> = typed.subtypes.iter().map(|subtype| subtype.kind).collect();
    assert_eq!(kinds.iter().filter(|kind| **kind == SubtypeKind::ObjectExpression).count(), 1, "{kinds:?}");
    assert_eq!(kinds.len(), 3, "{kinds:?}");

    // At a use of the type (areaOf's parameter annotation): the same type.
    let from_use = editor.execute_result(Command::TypeHierarchy, at(18, "IShape")).await;
    assert_eq!(from_use["type"]["name"], json!("IShape"), "{from_use}");
    assert_eq!(rows(&from_use["subtypes"], workspace.path()), expected);

    let square = editor.execute_result(Command::TypeHierarchy, at(9, "Square")).await;
    let supertypes = square["supertypes"].as_array().unwrap();
    assert_eq!(supertypes.len(), 1, "{square}");
    assert_eq!(supertypes[0]["declaration"]["range"]["start"]["line"], json!(2), "IShape's declaration: {square}");
    assert_eq!(square["subtypes"], json!([]), "{square}");

    // A keyword is no symbol; a value is not a type.
    let keyword = editor.execute(Command::TypeHierarchy, at(9, "type")).await;
    assert_eq!(keyword["error"]["data"]["errorKind"], json!("no_symbol_at_position"), "{keyword}");
    assert_eq!(keyword["error"]["data"]["reason"], json!("keyword"), "{keyword}");
    let value = editor.execute(Command::TypeHierarchy, at(18, "areaOf")).await;
    assert_eq!(value["error"]["data"]["argument"], json!("line"), "{value}");
    let neither = editor.execute(Command::TypeHierarchy, json!({"path": "Shapes/Shapes.fs", "line": 2})).await;
    assert_eq!(neither["error"]["data"]["argument"], json!("character"), "{neither}");
    editor.stop().await;
}

/// An implementer typed into the editor and not saved is a subtype too: candidates are read
/// from the editor's buffers, as FSAC sees them, not from the disk.
#[tokio::test]
async fn an_unsaved_implementer_in_the_editor_is_a_subtype() {
    let workspace = fixture_copy("implementations");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let plugins = workspace.path().join("Plugins/Plugins.fs");
    let on_disk = std::fs::read_to_string(&plugins).unwrap();
    let lines_on_disk = on_disk.lines().count() as u64;
    let unsaved = format!(
        "{on_disk}\ntype Triangle() =\n    interface IShape with\n        member _.Area() = 0.5\n        member _.Name = \"triangle\"\n"
    );
    let uri = fslens::uri::path_to_uri(&plugins).unwrap();
    editor
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": 1, "text": unsaved}}),
        )
        .await;
    let answer = editor
        .execute_result(Command::TypeHierarchy, json!({"path": "Shapes/Shapes.fs", "line": 2, "word": "IShape"}))
        .await;
    let subtypes = rows(&answer["subtypes"], workspace.path());
    assert!(subtypes.contains(&("Plugins/Plugins.fs".to_owned(), lines_on_disk + 2)), "the unsaved Triangle: {answer}");
    assert_eq!(subtypes.len(), 4, "{answer}");
    assert_eq!(std::fs::read_to_string(&plugins).unwrap(), on_disk, "nothing was saved");
    editor.stop().await;
}

#[test]
fn the_cli_lists_supertypes_and_subtypes() {
    let workspace = fixture_copy("implementations");
    let runtime = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .current_dir(workspace.path())
        .args(["navigate", "typeHierarchy", "--path", "Shapes/Shapes.fs", "--line", "2", "--word", "IShape"])
        .args(["--fsac", &double_command()])
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env_remove("FSLENS_FSAC")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("type IShape\nsupertypes: 0\nsubtypes: 3\n"), "{stdout}");
    assert!(stdout.contains("Plugins/Plugins.fs:11:"), "the object expression: {stdout}");
    assert!(stdout.contains("may be incomplete"), "{stdout}");
}
