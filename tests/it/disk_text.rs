//! Shapes of ordinary code on disk that fslens must read as the editor and FSAC do, against
//! the FSAC double: files saved with a UTF-8 byte-order mark (`fixtures/bom`), an empty file
//! in a project (`fixtures/empty-file`), a `Compile` item naming a missing file
//! (`fixtures/missing-compile-item`) and a project file that is not XML
//! (`fixtures/malformed-project`), and a project never restored, whose referenced assemblies
//! are not known (`fixtures/unrestored-plain`).

use crate::support;
use fslens::commands::registry::Command;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::double::{Editor, SiteKey, double_command, fixture_copy, found_sites};
use support::markers::read_markers;

async fn ready_editor(workspace: &Path, runtime: &Path) -> Editor {
    Editor::start_ready(workspace, runtime, &[]).await
}

/// The sites the fixture's `//>` markers list for `symbol`, as `found_sites` spells them.
fn marked_sites(root: &Path, symbol: &str) -> BTreeSet<SiteKey> {
    read_markers(root)
        .into_iter()
        .filter(|marker| marker.symbol == symbol)
        .map(|marker| {
            let kind = if marker.kind == "decl" { "definition" } else { "reference" };
            let file = marker.file.strip_prefix(root).unwrap().display().to_string();
            (file, u64::from(marker.line), u64::from(marker.character), kind.to_owned(), marker.symbol.clone())
        })
        .collect()
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Four of the fixture's five files start with a byte-order mark; the compiler rejects a
/// U+FEFF at the start of a file, so a check that sent it would find errors in a solution
/// that builds.
#[tokio::test]
async fn files_saved_with_a_byte_order_mark_check_clean_closed_and_open() {
    let workspace = fixture_copy("bom");
    let runtime = tempfile::tempdir().unwrap();
    let words = workspace.path().join("Text/Words.fs");
    let on_disk = std::fs::read(&words).unwrap();
    assert!(on_disk.starts_with(b"\xEF\xBB\xBF"), "the fixture keeps its byte-order mark");
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;

    let answer = editor.execute_result(Command::Check, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["complete"], json!(true), "{answer}");
    assert_eq!(answer["files"].as_array().unwrap().len(), 4, "{answer}");

    // The verdict's hash covers the text FSAC analysed: the file without its mark.
    let answer = editor.execute_result(Command::Check, json!({"path": "Text/Words.fs"})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["files"][0]["openInEditor"], json!(false));
    assert_eq!(answer["files"][0]["contentSha256"], json!(hex_sha256(&on_disk[3..])), "{answer}");

    // An editor strips the mark before `didOpen`, as VS Code and Neovim do (so does `open`).
    editor.open(&words, 1).await;
    let answer = editor.execute_result(Command::Check, json!({})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    let open: Vec<&Value> =
        answer["files"].as_array().unwrap().iter().filter(|file| file["openInEditor"] == json!(true)).collect();
    assert_eq!(open.len(), 1, "{answer}");
    assert_eq!(open[0]["file"], json!("Text/Words.fs"));
    editor.stop().await;
}

/// `shout` is declared in a file with a mark and used from files with and without one, in
/// both projects; one use is on the first line of a file with a mark, where a kept mark would
/// shift the column by one.
#[tokio::test]
async fn find_of_a_function_declared_in_a_file_with_a_byte_order_mark_finds_every_use() {
    let workspace = fixture_copy("bom");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let expected = marked_sites(root, "Bom.Words.shout");
    assert_eq!(expected.len(), 6, "{expected:?}");
    assert!(expected.iter().any(|site| site.0 == "App/Program.fs" && site.1 == 0), "{expected:?}");
    let mut editor = ready_editor(root, runtime.path()).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Bom.Words.shout"})).await;
    assert_eq!(answer["via"], json!("fsac"), "{answer}");
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert_eq!(found_sites(&answer), expected, "{answer}");
    editor.stop().await;

    // The syntax layer alone (no FSAC) counts columns in the same text.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["find", "Bom.Words.shout", "--json", "--fsac", "/nonexistent/fsautocomplete", "--workspace"])
        .arg(root)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(answer["via"], json!("syntax"), "{answer}");
    let positions = |sites: &BTreeSet<SiteKey>| -> BTreeSet<(String, u64, u64)> {
        sites.iter().map(|(file, line, character, ..)| (file.clone(), *line, *character)).collect()
    };
    assert_eq!(positions(&found_sites(&answer)), positions(&expected), "{answer}");
}

/// The deadline of the empty-file checks: without the empty-file rule they would end there.
const EMPTY_FILE_DEADLINE_MS: u32 = 8000;

/// A check with a short deadline that must end well before it, every file analysed.
async fn timed_check(editor: &mut Editor, mut argument: Value) -> Value {
    argument["timeoutMs"] = json!(EMPTY_FILE_DEADLINE_MS);
    let started = std::time::Instant::now();
    let answer = editor.execute_result(Command::Check, argument.clone()).await;
    let elapsed = started.elapsed();
    assert!(elapsed.as_millis() < u128::from(EMPTY_FILE_DEADLINE_MS / 2), "{argument} took {elapsed:?}: {answer}");
    assert_eq!(answer["complete"], json!(true), "{answer}");
    let statuses: Vec<&Value> = answer["files"].as_array().unwrap().iter().map(|file| &file["status"]).collect();
    assert!(statuses.iter().all(|status| *status == "analysed"), "{answer}");
    answer
}

/// FSAC sends no `fsharp/documentAnalyzed` for a file of zero characters; a check that waited
/// for one would answer `unknown` (`timeout`) at its deadline. It still publishes the
/// compiler's diagnostics for it, and those count. A file of blanks is not empty to FSAC and
/// is analysed as usual.
#[tokio::test]
async fn an_empty_file_in_a_project_is_checked_well_before_the_deadline() {
    let workspace = fixture_copy("empty-file");
    let runtime = tempfile::tempdir().unwrap();
    let empty = workspace.path().join("App/Empty.fs");
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    // A first check warms the compiler (seconds on a busy machine) with the default deadline.
    let answer = editor.execute_result(Command::Check, json!({"path": "App/First.fs"})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    // The last file of an application may be empty.
    for argument in [json!({"projectPath": "App/App.fsproj"}), json!({"path": "App/Empty.fs"})] {
        let answer = timed_check(&mut editor, argument.clone()).await;
        assert_eq!(answer["verdict"], json!("clean"), "{argument}: {answer}");
    }
    // A library's files must each begin with a module or namespace: FS0222 in the empty file
    // (published without `documentAnalyzed`) and in the blank one (with it).
    let answer = timed_check(&mut editor, json!({"projectPath": "Library/Library.fsproj"})).await;
    assert_eq!(answer["verdict"], json!("errors"), "{answer}");
    let errors: BTreeSet<(&str, u64)> = answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| (diagnostic["file"].as_str().unwrap(), diagnostic["code"].as_u64().unwrap()))
        .collect();
    assert_eq!(errors, BTreeSet::from([("Library/Empty.fs", 222), ("Library/Spaces.fs", 222)]), "{answer}");

    // Open in the editor (an empty buffer), the file still counts as analysed.
    let uri = editor.open(&empty, 1).await;
    let answer = timed_check(&mut editor, json!({"path": "App/Empty.fs"})).await;
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["files"][0]["openInEditor"], json!(true), "{answer}");
    assert_eq!(answer["files"][0]["version"], json!(1), "{answer}");
    // Given text, it is analysed as any other file; emptied again, as an empty one.
    for (version, text) in [(2, "module Blank.Empty\n\nlet three = Blank.First.one + 2\n"), (3, "")] {
        editor.change(&uri, version, text).await;
        let answer = timed_check(&mut editor, json!({"path": "App/Empty.fs"})).await;
        assert_eq!(
            (answer["verdict"].as_str(), answer["files"][0]["version"].as_i64()),
            (Some("clean"), Some(version)),
            "{answer}"
        );
    }
    editor.stop().await;
}

/// A `Compile` item naming a file that does not exist fails the build (FS0225): the other
/// files analyse clean, yet the verdict must not be `clean`.
#[tokio::test]
async fn a_missing_compile_item_is_a_project_error_and_never_clean() {
    let workspace = fixture_copy("missing-compile-item");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    for argument in [json!({}), json!({"path": "Present.fs"}), json!({"projectPath": "Gap"})] {
        let answer = editor.execute_result(Command::Check, argument.clone()).await;
        assert_eq!(answer["verdict"], json!("unknown"), "{argument}: {answer}");
        assert_eq!(answer["complete"], json!(false), "{answer}");
        let reason = &answer["blockingReason"];
        assert_eq!(reason["errorKind"], json!("compile_item_missing"), "{answer}");
        assert_eq!((reason["project"].as_str(), reason["file"].as_str()), (Some("Gap.fsproj"), Some("Missing.fs")));
        assert!(reason["message"].as_str().unwrap().contains("Missing.fs"), "{reason}");
        assert_eq!(answer["projectErrors"][0]["errorKind"], json!("compile_item_missing"), "{answer}");
        // The files that exist were analysed all the same.
        assert!(answer["files"].as_array().unwrap().iter().all(|file| file["status"] == "analysed"), "{answer}");
    }
    editor.stop().await;

    // Outline still lists the item, as missing.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["outline", "--json", "--workspace"])
        .arg(workspace.path())
        .output()
        .unwrap();
    let outline: Value = serde_json::from_slice(&output.stdout).unwrap();
    let missing = outline["entries"].as_array().unwrap().iter().find(|entry| entry["path"] == "Missing.fs");
    assert_eq!(missing.map(|entry| &entry["health"]), Some(&json!("missing")), "{outline}");
}

/// MSBuild cannot load a project file that is not well-formed XML, and FSAC reports it (code
/// 102: Ionide.ProjInfo reads MSBuild's "The project file could not be loaded." as a project
/// not found): the check says so with the line and column, also through the CLI.
#[tokio::test]
async fn a_malformed_project_file_is_a_project_error_with_its_position() {
    let workspace = fixture_copy("malformed-project");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let status = editor.execute_result(Command::Status, json!({})).await;
    assert_eq!(status["projectErrors"][0]["code"], json!(102), "{status}");
    for argument in [json!({}), json!({"path": "Code.fs"})] {
        let answer = editor.execute_result(Command::Check, argument.clone()).await;
        assert_eq!(answer["verdict"], json!("unknown"), "{argument}: {answer}");
        let reason = &answer["blockingReason"];
        assert_eq!(reason["errorKind"], json!("project_file_malformed"), "{argument}: {answer}");
        assert_eq!(reason["file"], json!("Unclosed.fsproj"));
        assert_eq!((reason["line"].as_u64(), reason["column"].as_u64()), (Some(10), Some(1)), "{reason}");
    }
    editor.stop().await;

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["check", "--fsac", &double_command(), "--workspace"])
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "unknown exits with 2");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Unclosed.fsproj") && text.contains("line 10, column 1"), "{text}");
}

/// A FSharp.Core-only library that was never restored: nothing on disk says what it
/// references, so an empty list of referenced types must not read as "no such type".
#[tokio::test]
async fn metadata_commands_on_a_project_never_restored_say_so_with_the_remedy() {
    let workspace = fixture_copy("unrestored-plain");
    let runtime = tempfile::tempdir().unwrap();
    assert!(!workspace.path().join("obj").exists());
    // FSAC (the double) is not needed: the metadata commands read files only. Like FSAC, the
    // double must not restore the project.
    let mut editor =
        Editor::start(workspace.path(), runtime.path(), &double_command(), &[("FSAC_DOUBLE_RESTORE", "never")]).await;
    for (command, argument) in [
        (Command::ReferencedSymbols, json!({"query": "FSharpList"})),
        (Command::NugetTypes, json!({"packageId": "FSharp.Core"})),
        (Command::NugetMembers, json!({"packageId": "FSharp.Core", "typeName": "ListModule"})),
    ] {
        let answer = editor.execute_result(command, argument).await;
        assert_eq!(answer["restoreState"], json!("not_restored"), "{}: {answer}", command.id());
        assert_eq!(answer["complete"], json!(false), "{}: {answer}", command.id());
        let not_restored = &answer["notRestored"];
        assert_eq!(not_restored["errorKind"], json!("project_not_restored"), "{answer}");
        assert_eq!(not_restored["remedy"], json!("dotnet restore Plain.fsproj"), "{answer}");
    }
    editor.stop().await;

    let cli = |arguments: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args(arguments)
            .arg("--workspace")
            .arg(workspace.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let text = cli(&["referenced-symbols", "FSharpList"]);
    assert!(text.contains("INCOMPLETE: the project was never restored"), "{text}");
    assert!(text.contains("remedy: dotnet restore Plain.fsproj"), "{text}");

    // With restore output the state says so and the remedy is gone.
    std::fs::create_dir_all(workspace.path().join("obj")).unwrap();
    let assets = json!({
        "version": 3,
        "targets": {"netstandard2.0": {}},
        "libraries": {},
        "packageFolders": {},
        "project": {"frameworks": {"netstandard2.0": {}}},
    });
    std::fs::write(workspace.path().join("obj/project.assets.json"), assets.to_string()).unwrap();
    let answer: Value = serde_json::from_str(&cli(&["referenced-symbols", "FSharpList", "--json"])).unwrap();
    assert_eq!(answer["restoreState"], json!("restored"), "{answer}");
    assert!(answer.get("notRestored").is_none(), "{answer}");
}
