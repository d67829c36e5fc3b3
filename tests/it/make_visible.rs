//! `fslens.makeInternalVisible`: one-token edits found in the syntax tree.

use crate::support;
use fslens::commands::registry::Command;

use serde_json::{Value, json};
use support::double::apply_edits;
use support::{Harness, HarnessOptions};

const FORMS: &str = r#"module Forms

let private topLevel = "private"  // private
let rec private recursive n = if n = 0 then 0 else recursive (n - 1)
let inline private inlined x = x + 1
[<Literal>]
let private Literal = "private (* not a comment *)"
let mutable private counter = 0

type private Hidden = { Code: int }

module private Nested =
    let value = 1

type Account() =
    member val private Audit = """private""" with get, set
    member private this.Check() = true
    static member private Create() = Account()
    private new (seed: int) = Account()
    override this.ToString() = "private account"

type Token private (value: string) =
    member _.Value = value

type Meter =
    val private reading: float
    val mutable private raw: int

let private first () = 1
and private second () = 2

// let private commented = 1
let visible = "let private notReally = 1"
"#;

/// Every line of FORMS that declares something private, with the name the edit is for.
const PRIVATE_FORMS: &[(&str, &str)] = &[
    ("topLevel", "let private topLevel"),
    ("recursive", "let rec private recursive"),
    ("inlined", "let inline private inlined"),
    ("Literal", "let private Literal"),
    ("counter", "let mutable private counter"),
    ("Hidden", "type private Hidden"),
    ("Nested", "module private Nested"),
    ("Audit", "member val private Audit"),
    ("Check", "member private this.Check"),
    ("Create", "static member private Create"),
    ("new", "private new (seed"),
    ("reading", "val private reading"),
    ("raw", "val mutable private raw"),
    ("first", "let private first"),
    ("second", "and private second"),
];

fn workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(
        workspace.path().join("Lib.fsproj"),
        "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n    <Compile Include=\"Forms.fs\" />\n  </ItemGroup>\n</Project>\n",
    )
    .unwrap();
    std::fs::write(
        workspace.path().join("Tests.fsproj"),
        "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n    <Compile Include=\"T.fs\" />\n  </ItemGroup>\n</Project>\n",
    )
    .unwrap();
    std::fs::write(workspace.path().join("Forms.fs"), FORMS).unwrap();
    std::fs::write(workspace.path().join("T.fs"), "module T\n").unwrap();
    workspace
}

/// fslens on the workspace with no FSAC behind it: the answers are syntactic.
fn harness_without_fsac(workspace: &std::path::Path) -> Harness {
    Harness::start_with(HarnessOptions {
        with_backend: false,
        workspace_root: Some(workspace.to_owned()),
        ..HarnessOptions::default()
    })
}

async fn make_visible(harness: &mut Harness, argument: Value) -> Value {
    let answer = harness.execute_command(Command::MakeInternalVisible, argument).await;
    answer.get("result").cloned().unwrap_or_else(|| panic!("{answer}"))
}

#[tokio::test]
async fn every_private_form_becomes_internal_with_one_token() {
    let workspace = workspace();
    let mut harness = harness_without_fsac(workspace.path());
    harness.initialize(None).await;
    let uri = fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap().join("Forms.fs")).unwrap();
    for (name, header) in PRIVATE_FORMS {
        let line = FORMS.lines().position(|line| line.contains(header)).unwrap();
        let answer = make_visible(&mut harness, json!({"path": "Forms.fs", "line": line, "word": name})).await;
        assert_eq!(answer["status"], json!("ok"), "{name}: {answer}");
        assert_eq!(answer["via"], json!("syntax"), "no FSAC: the answer says it is syntactic");
        let edits = answer["edits"]["changes"][&uri].as_array().unwrap();
        assert_eq!(edits.len(), 1, "{name}: one edit");
        let after = apply_edits(FORMS, edits);
        let expected_line = FORMS.lines().nth(line).unwrap().replacen("private", "internal", 1);
        assert_eq!(after.lines().nth(line).unwrap(), expected_line, "{name}: only the keyword changes");
        let unchanged: Vec<(&str, &str)> = FORMS
            .lines()
            .zip(after.lines())
            .enumerate()
            .filter(|(at, _)| *at != line)
            .map(|(_, pair)| pair)
            .filter(|(a, b)| a != b)
            .collect();
        assert!(unchanged.is_empty(), "{name}: other lines changed: {unchanged:?}");
        assert_eq!(answer["appliedPreview"], json!(expected_line));
        assert_eq!(answer["writtenToDisk"], json!(false));
    }
    assert_eq!(std::fs::read_to_string(workspace.path().join("Forms.fs")).unwrap(), FORMS, "nothing written");
    harness.finish(None).await;
}

#[tokio::test]
async fn comments_strings_and_public_declarations_give_no_action() {
    let workspace = workspace();
    let mut harness = harness_without_fsac(workspace.path());
    harness.initialize(None).await;
    let commented = FORMS.lines().position(|line| line.contains("// let private commented")).unwrap();
    let answer = make_visible(&mut harness, json!({"path": "Forms.fs", "line": commented, "character": 10})).await;
    assert_eq!(answer["status"], json!("no_action"), "{answer}");
    let in_string = FORMS.lines().position(|line| line.contains("notReally")).unwrap();
    let answer = make_visible(&mut harness, json!({"path": "Forms.fs", "line": in_string, "word": "notReally"})).await;
    assert_eq!(answer["status"], json!("no_action"), "{answer}");
    let answer = make_visible(&mut harness, json!({"path": "Forms.fs", "line": in_string, "word": "visible"})).await;
    assert_eq!(answer["status"], json!("no_action"));
    assert!(answer["reason"].as_str().unwrap().contains("not private"), "{answer}");
    // An override cannot be private: the `private` in its string is not its modifier.
    let override_line = FORMS.lines().position(|line| line.contains("override this.ToString")).unwrap();
    let answer =
        make_visible(&mut harness, json!({"path": "Forms.fs", "line": override_line, "word": "ToString"})).await;
    assert_eq!(answer["status"], json!("no_action"), "{answer}");
    assert!(answer["reason"].as_str().unwrap().contains("not private"), "{answer}");
    // The trailing comment on a private line is not the declaration.
    let top = FORMS.lines().position(|line| line.contains("topLevel")).unwrap();
    let comment_column = FORMS.lines().nth(top).unwrap().find("// private").unwrap() + 4;
    let answer =
        make_visible(&mut harness, json!({"path": "Forms.fs", "line": top, "character": comment_column})).await;
    assert_eq!(answer["status"], json!("no_action"), "{answer}");
    let error = harness
        .execute_command(Command::MakeInternalVisible, json!({"path": "../x.fs", "line": 0, "character": 0}))
        .await;
    assert_eq!(error["error"]["data"]["errorKind"], json!("invalid_path"));
    // A column and a word could name two different tokens: one of them, not both.
    let both = json!({"path": "Forms.fs", "line": top, "character": comment_column, "word": "topLevel"});
    let error = harness.execute_command(Command::MakeInternalVisible, both).await;
    assert_eq!(error["error"]["data"]["argument"], json!("character"), "{error}");
    let error = harness
        .execute_command(
            Command::MakeInternalVisible,
            json!({"path": "Forms.fs", "line": top, "word": "topLevel", "timeoutMs": -5}),
        )
        .await;
    assert_eq!(error["error"]["data"]["argument"], json!("timeoutMs"), "{error}");
    harness.finish(None).await;
}

#[tokio::test]
async fn a_private_primary_constructor_is_made_internal_from_its_keyword() {
    let workspace = workspace();
    let mut harness = harness_without_fsac(workspace.path());
    harness.initialize(None).await;
    let line = FORMS.lines().position(|line| line.contains("type Token private")).unwrap();
    // The type's name: the type is public, and the answer says where the private part is.
    let answer = make_visible(&mut harness, json!({"path": "Forms.fs", "line": line, "word": "Token"})).await;
    assert_eq!(answer["status"], json!("no_action"), "{answer}");
    let keyword_column = FORMS.lines().nth(line).unwrap().find("private").unwrap();
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("primary constructor") && reason.contains(&format!("character {keyword_column}")),
        "{reason}"
    );
    // The keyword itself: the constructor becomes internal with one token.
    let answer = make_visible(&mut harness, json!({"path": "Forms.fs", "line": line, "word": "private"})).await;
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    let uri = fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap().join("Forms.fs")).unwrap();
    let after = apply_edits(FORMS, answer["edits"]["changes"][&uri].as_array().unwrap());
    assert_eq!(after.lines().nth(line).unwrap(), "type Token internal (value: string) =");
    assert_eq!(after.lines().count(), FORMS.lines().count());
    harness.finish(None).await;
}

#[tokio::test]
async fn a_path_that_is_not_a_regular_file_is_refused_without_blocking() {
    let workspace = workspace();
    let fifo = workspace.path().join("Pipe.fs");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // Should a reader be blocked on the FIFO (the bug this guards against), release it (it
    // reads an empty file) well before the deadline below, so the test fails on the answer
    // instead of hanging; otherwise this thread waits for a reader that never comes, and the
    // process ends without it.
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(5));
        loop {
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
    });
    let mut harness = harness_without_fsac(workspace.path());
    harness.initialize(None).await;
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        harness.execute_command(Command::MakeInternalVisible, json!({"path": "Pipe.fs", "line": 0, "character": 0})),
    )
    .await
    .expect("a FIFO is refused, not read");
    assert_eq!(answer["error"]["data"]["errorKind"], json!("invalid_path"), "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("not a regular file"), "{answer}");
    harness.finish(None).await;
}

#[tokio::test]
async fn apply_sends_the_edit_to_the_editor_and_expose_to_adds_the_project_item_once() {
    let workspace = workspace();
    let mut harness = harness_without_fsac(workspace.path());
    let initialize = harness.request("initialize", json!({"capabilities": {"workspace": {"applyEdit": true}}})).await;
    harness.response(&initialize).await;
    let line = FORMS.lines().position(|line| line.contains("let private topLevel")).unwrap();
    let id = harness
        .request(
            "workspace/executeCommand",
            json!({"command": "fslens.makeInternalVisible", "arguments": [{"path": "Forms.fs", "line": line, "word": "topLevel", "apply": true, "exposeTo": "Tests"}]}),
        )
        .await;
    let (request, _) = harness.editor.recv_until(|message| message["method"] == "workspace/applyEdit").await;
    let changes = request["params"]["edit"]["changes"].as_object().unwrap();
    assert_eq!(changes.len(), 2, "the declaration and the project file: {request}");
    let project_uri = fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap().join("Lib.fsproj")).unwrap();
    let project_text = std::fs::read_to_string(workspace.path().join("Lib.fsproj")).unwrap();
    let new_project = apply_edits(&project_text, changes[&project_uri].as_array().unwrap());
    assert!(new_project.contains("<InternalsVisibleTo Include=\"Tests\" />"), "{new_project}");
    harness.editor.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"applied": true}})).await;
    let answer = harness.response(&id).await;
    assert_eq!(answer["result"]["applied"]["applied"], json!(true), "{answer}");

    // The user saved the project edit: asking again adds nothing to the project.
    std::fs::write(workspace.path().join("Lib.fsproj"), &new_project).unwrap();
    let again =
        make_visible(&mut harness, json!({"path": "Forms.fs", "line": line, "word": "topLevel", "exposeTo": "Tests"}))
            .await;
    assert_eq!(again["edits"]["changes"].as_object().unwrap().len(), 1, "{again}");
    assert!(again["notes"].to_string().contains("already has InternalsVisibleTo"), "{again}");
    let unknown = harness
        .execute_command(
            Command::MakeInternalVisible,
            json!({"path": "Forms.fs", "line": line, "word": "topLevel", "exposeTo": "Nope"}),
        )
        .await;
    assert_eq!(unknown["error"]["data"]["argument"], json!("exposeTo"));
    harness.finish(None).await;
}

#[tokio::test]
async fn apply_without_an_editor_that_can_apply_says_so() {
    let workspace = workspace();
    let mut harness = harness_without_fsac(workspace.path());
    harness.initialize(None).await;
    let line = FORMS.lines().position(|line| line.contains("let private topLevel")).unwrap();
    let answer =
        make_visible(&mut harness, json!({"path": "Forms.fs", "line": line, "word": "topLevel", "apply": true})).await;
    assert_eq!(answer["applied"]["applied"], json!(false));
    assert!(answer["applied"]["failureReason"].as_str().unwrap().contains("applyEdit"), "{answer}");
    harness.finish(None).await;
}

#[tokio::test]
async fn with_fsac_ready_the_compiler_confirms_the_symbol() {
    let workspace = support::double::fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor =
        support::double::Editor::start(workspace.path(), runtime.path(), &support::double::double_command(), &[]).await;
    editor.wait_until_ready().await;
    let text = std::fs::read_to_string(workspace.path().join("src/Shipping.Domain/Visibility.fs")).unwrap();
    let line = text.lines().position(|line| line.contains("let private rate")).unwrap();
    let answer = editor
        .execute(
            Command::MakeInternalVisible,
            json!({"path": "src/Shipping.Domain/Visibility.fs", "line": line, "word": "rate"}),
        )
        .await;
    assert_eq!(answer["result"]["status"], json!("ok"), "{answer}");
    assert_eq!(answer["result"]["via"], json!("fsac"));
    assert_eq!(answer["result"]["declaration"]["fullName"], json!("Shipping.Domain.Pricing.rate"));
    editor.stop().await;
}
