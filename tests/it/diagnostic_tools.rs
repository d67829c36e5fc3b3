//! `fslens.explainDiagnostic`, `fslens.diagnosticFixes` and `fslens.suggestOpen` against the
//! FSAC double on fixtures/diagnostic-fixes (FS0039 with a suggestion, FS0039 for names
//! declared in another module — one of them `[<RequireQualifiedAccess>]` — and FS0027): through
//! the executeCommand and through the CLI.

use crate::support;
use fslens::commands::registry::Command;

use std::path::Path;

use serde_json::{Value, json};
use support::double::{Editor, apply_edits, double_command, fixture_copy};

const PROGRAM: &str = "Program.fs";

async fn ready_editor(workspace: &Path, runtime: &Path, capabilities: Value) -> Editor {
    let mut editor =
        Editor::start_with_capabilities(workspace, runtime, &double_command(), &[], &[], capabilities).await;
    editor.wait_until_ready().await;
    editor
}

fn plain_capabilities() -> Value {
    json!({"textDocument": {"publishDiagnostics": {}}})
}

/// The 0-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> u64 {
    text.lines().position(|line| line.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in the fixture"))
        as u64
}

fn result(answer: &Value) -> &Value {
    answer.get("result").unwrap_or_else(|| panic!("the command failed: {answer}"))
}

/// The one file's text edits of a WorkspaceEdit (`changes` or `documentChanges`).
fn edits_of(edit: &Value, uri: &str) -> Vec<Value> {
    if let Some(edits) = edit["changes"][uri].as_array() {
        return edits.clone();
    }
    edit["documentChanges"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|change| change["textDocument"]["uri"] == json!(uri))
        .flat_map(|change| change["edits"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// The codes and lines of a trusted file check's diagnostics.
async fn checked(editor: &mut Editor, path: &str) -> Vec<(u64, u64)> {
    let answer = editor.execute(Command::Check, json!({"path": path, "severity": "all"})).await;
    let answer = result(&answer);
    assert_eq!(answer["complete"], json!(true), "{answer}");
    answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| {
            (diagnostic["code"].as_u64().unwrap_or(0), diagnostic["range"]["start"]["line"].as_u64().unwrap())
        })
        .collect()
}

#[tokio::test]
async fn explain_gives_the_compilers_words_the_context_the_meaning_and_fsacs_fixes() {
    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(workspace.path().join(PROGRAM)).unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path(), plain_capabilities()).await;
    let line = line_of(&text, "lenght'");

    // The file is not open in the editor: fslens has FSAC analyse it first.
    let answer = editor.execute(Command::ExplainDiagnostic, json!({"path": PROGRAM, "line": line})).await;
    let answer = result(&answer);
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert_eq!(answer["via"], json!("fsac"));
    let diagnostic = &answer["diagnostic"];
    assert_eq!(diagnostic["code"], json!("FS0039"));
    assert_eq!(diagnostic["severity"], json!("error"));
    assert!(diagnostic["message"].as_str().unwrap().contains("'lenght'' is not defined"), "{diagnostic}");
    assert_eq!(diagnostic["published"]["message"], diagnostic["message"], "the compiler's exact text");
    assert_eq!(diagnostic["lineText"], json!(text.lines().nth(line as usize).unwrap()));
    let context: Vec<u64> =
        diagnostic["contextLines"].as_array().unwrap().iter().map(|line| line["line"].as_u64().unwrap()).collect();
    assert!(context.contains(&(line - 1)) && context.contains(&(line + 1)), "{context:?}");
    assert_eq!(answer["meaning"]["known"], json!(true));
    assert_eq!(answer["meaning"]["code"], json!("FS0039"));
    assert_eq!(answer["fixes"]["titles"], json!(["Replace with 'length''"]), "FSAC's fix for the suggestion");
    assert_eq!(answer["analysis"]["openInEditor"], json!(false));

    // FS0027 by code and character; the fix FSAC offers is a different one.
    let mutation = line_of(&text, "total <- total");
    let answer = editor
        .execute(
            Command::ExplainDiagnostic,
            json!({"path": PROGRAM, "line": mutation, "code": "FS0027", "character": 6}),
        )
        .await;
    let answer = result(&answer);
    assert_eq!(answer["diagnostic"]["code"], json!("FS0027"), "{answer}");
    assert_eq!(answer["fixes"]["titles"], json!(["Make declaration 'mutable'"]));

    // A diagnostic of a `fslens.check` answer, passed back as it is, selects itself.
    let check = editor.execute(Command::Check, json!({"path": PROGRAM})).await;
    let from_check = result(&check)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|diagnostic| diagnostic["code"] == json!(27))
        .cloned()
        .expect("check reports the FS0027");
    let answer = editor.execute(Command::DiagnosticFixes, json!({"diagnostic": from_check})).await;
    let answer = result(&answer);
    assert_eq!(answer["diagnostic"]["range"], from_check["range"], "{answer}");
    assert_eq!(answer["fixes"][0]["title"], json!("Make declaration 'mutable'"));
    assert_eq!(answer["truncated"], json!(false));

    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["fslensDocuments"], json!(0), "fslens closed what it opened");
    editor.stop().await;
}

#[tokio::test]
async fn fixes_are_previewed_never_written_and_applying_one_clears_the_diagnostic() {
    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let program = workspace.path().join(PROGRAM);
    let text = std::fs::read_to_string(&program).unwrap();
    let capabilities = json!({"textDocument": {"publishDiagnostics": {}}, "workspace": {"applyEdit": true}});
    let mut editor = ready_editor(workspace.path(), runtime.path(), capabilities).await;
    let uri = editor.open(&program, 1).await;
    let mutation = line_of(&text, "total <- total");

    let answer = editor.execute(Command::DiagnosticFixes, json!({"path": PROGRAM, "line": mutation})).await;
    let answer = result(&answer);
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert_eq!(answer["writtenToDisk"], json!(false));
    assert_eq!(answer["analysis"]["openInEditor"], json!(true));
    assert_eq!(answer["analysis"]["version"], json!(1));
    let fix = &answer["fixes"][0];
    assert_eq!(fix["title"], json!("Make declaration 'mutable'"));
    assert_eq!(fix["kind"], json!("refactor"));
    let preview = &fix["preview"]["edits"][0];
    assert_eq!(preview["file"], json!(PROGRAM));
    assert_eq!(preview["oldText"], json!(""));
    assert_eq!(preview["newText"], json!("mutable "));
    assert_eq!(preview["linesBefore"], json!(["    let total = 0"]));
    assert_eq!(preview["linesAfter"], json!(["    let mutable total = 0"]));
    assert_eq!(std::fs::read_to_string(&program).unwrap(), text, "nothing is written");

    // The WorkspaceEdit, applied to the buffer, leaves FSAC with no FS0027 there.
    let fixed = apply_edits(&text, &edits_of(&fix["workspaceEdit"], &uri));
    assert!(fixed.contains("let mutable total = 0"));
    editor.change(&uri, 2, &fixed).await;
    let remaining = checked(&mut editor, PROGRAM).await;
    assert!(!remaining.iter().any(|(code, _)| *code == 27), "{remaining:?}");
    assert!(remaining.iter().any(|(code, _)| *code == 39), "the other diagnostics stay: {remaining:?}");

    // The FS0027 is gone from the unsaved buffer: a typed failure listing what is near.
    let answer = editor.execute(Command::DiagnosticFixes, json!({"path": PROGRAM, "line": mutation, "code": 27})).await;
    let error = &answer["error"];
    assert_eq!(error["data"]["errorKind"], json!("no_diagnostic_at_position"), "{answer}");
    assert_eq!(error["code"], json!(-32602));
    let nearest = error["data"]["nearest"].as_array().unwrap();
    assert!(!nearest.is_empty() && nearest.iter().all(|d| d["code"] == json!("FS0039")), "{nearest:?}");

    // apply: true sends the chosen fix to the editor.
    let misspelt = line_of(&fixed, "lenght'");
    let answer = editor
        .execute(Command::DiagnosticFixes, json!({"path": PROGRAM, "line": misspelt, "apply": true, "fixIndex": 0}))
        .await;
    let answer = result(&answer);
    assert_eq!(answer["applied"]["applied"], json!(true), "{answer}");
    let request = editor
        .notifications
        .iter()
        .find(|message| message["method"] == "workspace/applyEdit")
        .cloned()
        .expect("the editor was asked to apply the edit");
    assert_eq!(request["params"]["label"], json!("Replace with 'length''"));
    assert_eq!(request["params"]["edit"], answer["fixes"][0]["workspaceEdit"]);
    assert_eq!(std::fs::read_to_string(&program).unwrap(), text, "still nothing written");

    // apply with nothing to apply: the answer says so, and the editor is asked nothing more.
    let clamp = line_of(&fixed, "clampTo 10 42");
    let edits_asked = |editor: &Editor| {
        editor.notifications.iter().filter(|message| message["method"] == "workspace/applyEdit").count()
    };
    let asked_before = edits_asked(&editor);
    let answer = editor.execute(Command::DiagnosticFixes, json!({"path": PROGRAM, "line": clamp, "apply": true})).await;
    let answer = result(&answer);
    assert_eq!(answer["status"], json!("no_fixes"), "{answer}");
    assert_eq!(answer["applied"]["applied"], json!(false), "{answer}");
    assert_eq!(edits_asked(&editor), asked_before);
    editor.stop().await;
}

#[tokio::test]
async fn suggest_open_finds_the_module_and_respects_require_qualified_access() {
    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let program = workspace.path().join(PROGRAM);
    let text = std::fs::read_to_string(&program).unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path(), plain_capabilities()).await;
    let uri = editor.open(&program, 1).await;

    let shout = line_of(&text, "shout \"hello\"");
    let answer = editor.execute(Command::SuggestOpen, json!({"path": PROGRAM, "line": shout})).await;
    let answer = result(&answer);
    assert_eq!(answer["status"], json!("ok"), "{answer}");
    assert_eq!(answer["name"], json!("shout"), "read from FSAC's FS0039");
    assert_eq!(answer["fsac"]["asked"], json!(true));
    assert_eq!(answer["fsac"]["openFixes"], json!(0), "the double has no ResolveNamespaces fix");
    let suggestion = &answer["suggestions"][0];
    assert_eq!(suggestion["via"], json!("syntax"));
    assert_eq!(suggestion["open"], json!("Fixes.Tools.Text"));
    assert_eq!(suggestion["useAs"], json!("shout"));
    assert_eq!(suggestion["declaration"]["file"], json!("Tools.fs"));
    assert_eq!(suggestion["insertAt"]["line"], json!(line_of(&text, "open System") + 1));
    let mut all_edits = edits_of(&suggestion["workspaceEdit"], &uri);

    let clamp = line_of(&text, "clampTo 10");
    let answer = editor.execute(Command::SuggestOpen, json!({"path": PROGRAM, "line": clamp})).await;
    let answer = result(&answer);
    let suggestion = &answer["suggestions"][0];
    assert_eq!(suggestion["requireQualifiedAccess"], json!(true), "{answer}");
    assert_eq!(suggestion["open"], json!("Fixes.Tools"));
    assert_eq!(suggestion["useAs"], json!("Numbers.clampTo"));
    let edits = edits_of(&suggestion["workspaceEdit"], &uri);
    assert_eq!(edits.len(), 2, "the open and the qualified name: {edits:?}");

    // Both suggestions' edits (positions in the same text), applied to the buffer: FSAC no
    // longer reports either name.
    all_edits.extend(edits);
    let fixed = apply_edits(&text, &all_edits);
    assert!(fixed.contains("open Fixes.Tools.Text\n") && fixed.contains("Numbers.clampTo 10 42"), "{fixed}");
    editor.change(&uri, 2, &fixed).await;
    let remaining = checked(&mut editor, PROGRAM).await;
    let names_left: Vec<&(u64, u64)> = remaining.iter().filter(|(code, _)| *code == 39).collect();
    assert_eq!(names_left.len(), 1, "only the misspelling is left: {remaining:?} in\n{fixed}");

    // A name alone: the syntax arm answers, without a diagnostic or FSAC.
    let answer = editor.execute(Command::SuggestOpen, json!({"name": "shout"})).await;
    let answer = result(&answer);
    assert_eq!(answer["fsac"]["asked"], json!(false));
    assert_eq!(answer["suggestions"][0]["openLine"], json!("open Fixes.Tools.Text"));
    assert!(answer["suggestions"][0].get("workspaceEdit").is_none(), "no file, so no edit: {answer}");
    let answer = editor.execute(Command::SuggestOpen, json!({"name": "noSuchNameAnywhere"})).await;
    assert_eq!(result(&answer)["status"], json!("not_found"));
    assert_eq!(result(&answer)["totalSuggestions"], json!(0));
    // Without FSAC's answer, a package could still declare it: not certain.
    assert_eq!(result(&answer)["certain"], json!(false), "{answer}");
    editor.stop().await;
}

#[tokio::test]
async fn bad_arguments_are_typed_and_name_the_argument() {
    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path(), plain_capabilities()).await;
    let cases = [
        (Command::ExplainDiagnostic, json!({"path": PROGRAM}), "invalid_argument", "line"),
        (Command::ExplainDiagnostic, json!({"line": 3}), "invalid_argument", "path"),
        (Command::ExplainDiagnostic, json!({"path": PROGRAM, "line": 3, "code": "E12"}), "invalid_argument", "code"),
        (Command::ExplainDiagnostic, json!({"path": PROGRAM, "line": 999}), "invalid_argument", "line"),
        (Command::DiagnosticFixes, json!({"path": PROGRAM, "line": 3, "fixIndex": 0}), "invalid_argument", "fixIndex"),
        (Command::DiagnosticFixes, json!({"path": PROGRAM, "line": 3, "colour": 1}), "invalid_argument", "colour"),
        (Command::SuggestOpen, json!({}), "invalid_argument", "name"),
        (Command::SuggestOpen, json!({"name": " "}), "invalid_argument", "name"),
    ];
    for (command, argument, kind, named) in cases {
        let answer = editor.execute(command, argument.clone()).await;
        assert_eq!(answer["error"]["data"]["errorKind"], json!(kind), "{} {argument}: {answer}", command.id());
        assert_eq!(answer["error"]["data"]["argument"], json!(named), "{} {argument}: {answer}", command.id());
    }
    let answer = editor.execute(Command::ExplainDiagnostic, json!({"path": "../outside.fs", "line": 0})).await;
    assert_eq!(answer["error"]["data"]["errorKind"], json!("invalid_path"), "{answer}");
    // A line with no diagnostic: the typed failure lists the nearest ones.
    let answer = editor.execute(Command::ExplainDiagnostic, json!({"path": PROGRAM, "line": 0})).await;
    assert_eq!(answer["error"]["data"]["errorKind"], json!("no_diagnostic_at_position"), "{answer}");
    assert_eq!(answer["error"]["data"]["nearest"].as_array().unwrap().len(), 4, "{answer}");
    editor.stop().await;
}

/// What fslens answers in front of the double reads as the typed answers, each status as its
/// own variant.
#[tokio::test]
async fn the_answers_read_as_their_typed_answers() {
    use fslens::commands::diagnostic::answer::Severity;
    use fslens::commands::diagnostic::explain::ExplainAnswer;
    use fslens::commands::diagnostic::fixes::{FixesAnswer, OfferedStatus};
    use fslens::commands::diagnostic::suggest_open::{SuggestOpenAnswer, SuggestStatus, Suggestion};

    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(workspace.path().join(PROGRAM)).unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path(), plain_capabilities()).await;

    let misspelt = line_of(&text, "lenght'");
    let answer: ExplainAnswer =
        editor.execute_as(Command::ExplainDiagnostic, json!({"path": PROGRAM, "line": misspelt})).await;
    let ExplainAnswer::Explained(explained) = answer else { panic!("not explained: {answer:?}") };
    assert_eq!(explained.diagnostic.summary.severity, Severity::Error);
    assert_eq!(explained.diagnostic.summary.range.start.line as u64, misspelt);
    assert_eq!(explained.fixes.titles, ["Replace with 'length''"]);

    let mutation = line_of(&text, "total <- total");
    let answer: FixesAnswer =
        editor.execute_as(Command::DiagnosticFixes, json!({"path": PROGRAM, "line": mutation})).await;
    let FixesAnswer::Offered(offered) = answer else { panic!("no fixes offered: {answer:?}") };
    assert_eq!((offered.status, offered.fix_count), (OfferedStatus::Ok, 1));
    assert!(offered.fixes[0].workspace_edit.is_some() && offered.fixes[0].preview.is_some());
    let clamp = line_of(&text, "clampTo 10 42");
    let answer: FixesAnswer =
        editor.execute_as(Command::DiagnosticFixes, json!({"path": PROGRAM, "line": clamp})).await;
    assert!(matches!(&answer, FixesAnswer::Offered(offered) if offered.status == OfferedStatus::NoFixes), "{answer:?}");

    let answer: SuggestOpenAnswer =
        editor.execute_as(Command::SuggestOpen, json!({"name": "shout", "path": PROGRAM})).await;
    let SuggestOpenAnswer::Suggested(suggested) = answer else { panic!("the name is given: {answer:?}") };
    assert_eq!(suggested.status, SuggestStatus::Ok);
    let Some(Suggestion::Syntax(first)) = suggested.suggestions.first() else { panic!("{suggested:?}") };
    assert_eq!(first.open.as_deref(), Some("Fixes.Tools.Text"));
    assert!(first.workspace_edit.is_some(), "a file, so an edit");
    editor.stop().await;
}

fn cli(workspace: &Path, runtime: &Path, arguments: &[&str]) -> (Option<i32>, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(arguments)
        .args(["--fsac", &double_command(), "--workspace"])
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn the_cli_explains_previews_and_suggests() {
    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(workspace.path().join(PROGRAM)).unwrap();
    let misspelt = line_of(&text, "lenght'").to_string();
    let mutation = line_of(&text, "total <- total").to_string();

    let (code, output) = cli(
        workspace.path(),
        runtime.path(),
        &["explain-diagnostic", "--path", PROGRAM, "--line", &misspelt, "--json"],
    );
    assert_eq!(code, Some(0), "{output}");
    let answer: Value = serde_json::from_str(&output).unwrap();
    assert_eq!(answer["diagnostic"]["code"], json!("FS0039"));
    assert_eq!(answer["fixes"]["titles"], json!(["Replace with 'length''"]));

    let (code, output) =
        cli(workspace.path(), runtime.path(), &["diagnostic-fixes", "--path", PROGRAM, "--line", &mutation]);
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("[0] Make declaration 'mutable'"), "{output}");
    assert!(output.contains("+     let mutable total = 0"), "{output}");

    let (code, output) = cli(workspace.path(), runtime.path(), &["suggest-open", "shout", "--path", PROGRAM]);
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("open Fixes.Tools.Text"), "{output}");
    let (code, output) = cli(workspace.path(), runtime.path(), &["suggest-open", "clampTo", "--json"]);
    assert_eq!(code, Some(0), "{output}");
    let answer: Value = serde_json::from_str(&output).unwrap();
    assert_eq!(answer["suggestions"][0]["useAs"], json!("Numbers.clampTo"));

    let (code, output) =
        cli(workspace.path(), runtime.path(), &["explain-diagnostic", "--path", PROGRAM, "--line", "0", "--json"]);
    assert_ne!(code, Some(0), "no diagnostic on line 0: {output}");
    assert_eq!(std::fs::read_to_string(workspace.path().join(PROGRAM)).unwrap(), text, "nothing written");
}
