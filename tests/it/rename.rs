//! `fslens.rename` against the FSAC double on `fixtures/rename`: a record field that shares
//! its name with another record's field is renamed only where it is that field, across
//! projects, in `.fs` and `.fsi`, backticked uses included; new names that need backticks get
//! them; the preview is cross-checked against find; `apply: "disk"` writes all files or none;
//! `apply: "editor"` sends one applyEdit and writes nothing.

use crate::support;
use fslens::commands::registry::Command;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy};

async fn rename(editor: &mut Editor, argument: Value) -> Value {
    let answer = editor.execute(Command::Rename, argument.clone()).await;
    answer.get("result").cloned().unwrap_or_else(|| panic!("fslens.rename {argument} failed: {answer}"))
}

/// (file, line, text after) of every previewed line.
fn previewed_lines(answer: &Value) -> BTreeSet<(String, u64, String)> {
    answer["files"]
        .as_array()
        .unwrap_or_else(|| panic!("no files: {answer:#}"))
        .iter()
        .flat_map(|file| {
            let name = file["file"].as_str().unwrap().to_owned();
            file["lines"].as_array().unwrap().iter().map(move |row| {
                (name.clone(), row["line"].as_u64().unwrap(), row["after"].as_str().unwrap().to_owned())
            })
        })
        .collect()
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).unwrap()
}

const FILES: &[&str] = &["Billing/Types.fsi", "Billing/Types.fs", "Shop/Program.fs"];

#[tokio::test]
async fn a_record_field_is_renamed_only_where_it_is_that_field_across_projects_and_signatures() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    let answer =
        rename(&mut editor, json!({"path": "Billing/Types.fs", "line": 2, "word": "Total", "newName": "Amount"})).await;
    let expected: BTreeSet<(String, u64, String)> = [
        ("Billing/Types.fsi", 2, "type Order = { Amount: decimal; Customer: string }"),
        ("Billing/Types.fs", 2, "type Order = { Amount: decimal; Customer: string }"),
        ("Billing/Types.fs", 6, "let orderTotal (order: Order) = order.Amount"),
        ("Shop/Program.fs", 4, "let order: Order = { Amount = 10m; Customer = \"Ada\" }"),
        ("Shop/Program.fs", 6, "let doubled = order.Amount * 2m"),
    ]
    .into_iter()
    .map(|(file, line, text)| (file.to_owned(), line, text.to_owned()))
    .collect();
    assert_eq!(previewed_lines(&answer), expected, "{answer:#}");
    assert_eq!(answer["oldName"], json!("Total"), "{answer:#}");
    assert_eq!(answer["totalEdits"], json!(5), "{answer:#}");
    assert_eq!(answer["complete"], json!(true), "{answer:#}");
    assert_eq!(answer["missedSites"], json!([]), "{answer:#}");
    assert_eq!(answer["writtenToDisk"], json!(false));
    let before = &answer["files"][0]["lines"][0]["before"];
    assert!(before.as_str().unwrap().contains("Total"), "{answer:#}");
    for file in FILES {
        assert!(read(root, file).contains("Total"), "a preview writes nothing: {file}");
    }

    // The same rename asked by qualified name; the bare field name is ambiguous.
    let by_name = rename(&mut editor, json!({"symbol": "Billing.Types.Order.Total", "newName": "Amount"})).await;
    assert_eq!(previewed_lines(&by_name), expected, "{by_name:#}");
    let ambiguous = rename(&mut editor, json!({"symbol": "Total", "newName": "Amount"})).await;
    assert_eq!(ambiguous["status"], json!("ambiguous"), "{ambiguous:#}");
    let candidates: BTreeSet<&str> =
        ambiguous["candidates"].as_array().unwrap().iter().filter_map(|one| one["symbolFullName"].as_str()).collect();
    assert_eq!(
        candidates,
        BTreeSet::from(["Billing.Types.Order.Total", "Billing.Types.Invoice.Total"]),
        "{ambiguous:#}"
    );

    // A new name that is no plain identifier gets double backticks, a keyword too.
    let answer = rename(
        &mut editor,
        json!({"path": "Shop/Program.fs", "line": 7, "word": "orderTotal", "newName": "order total"}),
    )
    .await;
    assert_eq!(answer["newName"], json!("``order total``"));
    let lines = previewed_lines(&answer);
    assert!(
        lines.contains(&("Billing/Types.fsi".to_owned(), 6, "val ``order total``: order: Order -> decimal".to_owned())),
        "{answer:#}"
    );
    assert!(
        lines.contains(&(
            "Shop/Program.fs".to_owned(),
            7,
            "let billed = invoice.Total + ``order total`` order".to_owned()
        )),
        "{answer:#}"
    );
    let answer =
        rename(&mut editor, json!({"path": "Shop/Program.fs", "line": 7, "word": "orderTotal", "newName": "type"}))
            .await;
    assert_eq!(answer["newName"], json!("``type``"));

    // A keyword, a string and a position on no symbol are typed errors; so is a bad name.
    for (argument, reason) in [
        (json!({"path": "Shop/Program.fs", "line": 4, "character": 0, "newName": "x"}), "keyword"),
        (json!({"path": "Shop/Program.fs", "line": 8, "character": 15, "newName": "x"}), "string"),
        (json!({"path": "Shop/Program.fs", "line": 4, "character": 17, "newName": "x"}), "no_symbol"),
    ] {
        let error = editor.execute(Command::Rename, argument.clone()).await;
        assert_eq!(error["error"]["data"]["errorKind"], json!("no_symbol_at_position"), "{argument}: {error}");
        assert_eq!(error["error"]["data"]["reason"], json!(reason), "{argument}: {error}");
    }
    let error = editor
        .execute(Command::Rename, json!({"path": "Shop/Program.fs", "line": 7, "word": "orderTotal", "newName": "a`b"}))
        .await;
    assert_eq!(error["error"]["data"]["argument"], json!("newName"), "{error}");
    editor.kill().await;
}

#[tokio::test]
async fn disk_writes_all_files_or_none_and_editor_sends_one_apply_edit() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let capabilities = json!({"textDocument": {"publishDiagnostics": {}}, "workspace": {"applyEdit": true}});
    let mut editor =
        Editor::start_with_capabilities(root, runtime.path(), &double_command(), &[], &[], capabilities).await;
    editor.wait_until_ready().await;
    let at = json!({"path": "Billing/Types.fs", "line": 2, "word": "Total", "newName": "Amount"});

    // The editor mode: one applyEdit with the whole edit, nothing on disk.
    let mut argument = at.clone();
    argument["apply"] = json!("editor");
    let answer = rename(&mut editor, argument).await;
    assert_eq!(answer["applied"], json!({"mode": "editor", "applied": true, "failureReason": null}), "{answer:#}");
    let sent: Vec<&Value> =
        editor.notifications.iter().filter(|message| message["method"] == "workspace/applyEdit").collect();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert_eq!(sent[0]["params"]["edit"].to_string().matches("Amount").count(), 5, "{:#}", sent[0]);
    for file in FILES {
        assert!(!read(root, file).contains("Amount"), "{file} was written");
    }

    // The disk mode refuses when a file changed after the preview, and writes nothing.
    let preview = rename(&mut editor, at.clone()).await;
    let originals: Vec<String> = FILES.iter().map(|file| read(root, file)).collect();
    let changed = format!("{}// changed after the preview\n", originals[2]);
    std::fs::write(root.join("Shop/Program.fs"), &changed).unwrap();
    let mut argument = at.clone();
    argument["apply"] = json!("disk");
    argument["expectedHashes"] = preview["fileHashes"].clone();
    let error = editor.execute(Command::Rename, argument.clone()).await;
    assert_eq!(error["error"]["data"]["errorKind"], json!("rename_files_changed"), "{error}");
    assert_eq!(error["error"]["data"]["changedFiles"][0]["file"], json!("Shop/Program.fs"), "{error}");
    assert_eq!(read(root, FILES[0]), originals[0]);
    assert_eq!(read(root, FILES[1]), originals[1]);
    assert_eq!(read(root, FILES[2]), changed);

    // With the hashes of a fresh preview, every file is written.
    std::fs::write(root.join("Shop/Program.fs"), &originals[2]).unwrap();
    let preview = rename(&mut editor, at.clone()).await;
    argument["expectedHashes"] = preview["fileHashes"].clone();
    let answer = rename(&mut editor, argument).await;
    assert_eq!(answer["writtenToDisk"], json!(true), "{answer:#}");
    assert!(read(root, "Billing/Types.fsi").contains("type Order = { Amount: decimal"));
    assert!(read(root, "Billing/Types.fs").contains("order.Amount"));
    assert!(read(root, "Shop/Program.fs").contains("order.Amount * 2m"));
    assert!(read(root, "Shop/Program.fs").contains("invoice.Total"));
    let leftovers: Vec<_> = std::fs::read_dir(root.join("Shop"))
        .unwrap()
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_name().to_string_lossy().contains("fslens-rename"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    editor.kill().await;
}

/// An editor that does not accept `workspace/applyEdit` is not sent one: the answer says why.
#[tokio::test]
async fn editor_mode_is_refused_with_a_reason_when_the_editor_takes_no_apply_edit() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let answer = rename(
        &mut editor,
        json!({"path": "Billing/Types.fs", "line": 2, "word": "Total", "newName": "Amount", "apply": "editor"}),
    )
    .await;
    assert_eq!(answer["applied"]["applied"], json!(false), "{answer:#}");
    assert!(answer["applied"]["failureReason"].as_str().unwrap().contains("applyEdit"), "{answer:#}");
    assert!(!editor.notifications.iter().any(|message| message["method"] == "workspace/applyEdit"));
    editor.kill().await;
}

/// A backend whose references leave out signature files (the double with
/// `FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES`): the rename's edits lack the `.fsi` `val`, find's
/// cross-check sees it, and the preview lists it in `missedSites` and is not complete.
#[tokio::test]
async fn a_site_the_rename_misses_is_listed_and_the_preview_is_not_complete() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(
        workspace.path(),
        runtime.path(),
        &double_command(),
        &[("FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES", "1")],
    )
    .await;
    editor.wait_until_ready().await;
    let answer =
        rename(&mut editor, json!({"path": "Shop/Program.fs", "line": 7, "word": "orderTotal", "newName": "totalOf"}))
            .await;
    assert_eq!(answer["complete"], json!(false), "{answer:#}");
    let missed = answer["missedSites"].as_array().unwrap();
    assert!(
        missed
            .iter()
            .any(|site| site["file"] == json!("Billing/Types.fsi") && site["range"]["start"]["line"] == json!(6)),
        "{answer:#}"
    );
    assert!(!previewed_lines(&answer).iter().any(|(file, _, _)| file == "Billing/Types.fsi"), "{answer:#}");
    editor.kill().await;
}

/// `verify: true` runs the rename's edit through a what-if check (on fixtures/what-if, whose
/// Orders project constructs Catalog's record): a consistent rename compiles (`clean`, nothing
/// introduced), a rename onto the record's other field does not (`errors`, introduced
/// diagnostics), and neither writes a byte.
#[tokio::test]
async fn verify_runs_the_rename_through_a_what_if_check_without_writing() {
    let workspace = fixture_copy("what-if");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let files = ["Catalog/Item.fs", "Orders/Order.fs"];
    let originals: Vec<String> = files.iter().map(|file| read(root, file)).collect();

    let at = json!({"path": "Catalog/Item.fs", "line": 2, "word": "Price", "newName": "Cost", "verify": true});
    let answer = rename(&mut editor, at.clone()).await;
    assert_eq!(answer["totalFiles"], json!(2), "{answer:#}");
    let verification = &answer["verification"];
    assert_eq!(verification["verdict"], json!("clean"), "{verification:#}");
    assert_eq!(verification["baseline"]["verdict"], json!("clean"), "{verification:#}");
    assert_eq!(verification["delta"]["introduced"], json!([]), "{verification:#}");
    assert_eq!(verification["whatIf"]["restored"], json!(true), "{verification:#}");

    let mut clash = at.clone();
    clash["newName"] = json!("Name");
    let answer = rename(&mut editor, clash).await;
    let verification = &answer["verification"];
    assert_eq!(verification["verdict"], json!("errors"), "{verification:#}");
    assert!(!verification["delta"]["introduced"].as_array().unwrap().is_empty(), "{verification:#}");

    let mut without = at.clone();
    without.as_object_mut().unwrap().remove("verify");
    let answer = rename(&mut editor, without).await;
    assert_eq!(answer.get("verification"), None, "{answer:#}");
    let mut bad = at.clone();
    bad["verify"] = json!("yes");
    let error = editor.execute(Command::Rename, bad).await;
    assert_eq!(error["error"]["data"]["argument"], json!("verify"), "{error}");
    for (file, original) in files.iter().zip(&originals) {
        assert_eq!(&read(root, file), original, "{file} was written");
    }
    editor.kill().await;
}
