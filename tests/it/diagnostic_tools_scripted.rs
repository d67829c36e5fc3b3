//! The diagnostic tools against a scripted FSAC, for what the FSAC double cannot show: FSAC's
//! ResolveNamespaces fixes ("open X" / "Use X.Y", which the double does not implement), the
//! diagnostic echoed back to FSAC exactly as published, and no answer from an analysis that is
//! pending or stale.

use crate::support;

use serde_json::{Value, json};
use support::{Harness, ScriptedBackend};

fn workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(
        workspace.path().join("App.fsproj"),
        r#"<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><Compile Include="Tools.fs" /><Compile Include="Program.fs" /></ItemGroup></Project>"#,
    )
    .unwrap();
    std::fs::write(workspace.path().join("Tools.fs"), "namespace Acme.Tools\n\nmodule Text =\n    let shout x = x\n")
        .unwrap();
    std::fs::write(workspace.path().join("Program.fs"), PROGRAM).unwrap();
    workspace
}

/// `shout` is used before this file declares its own: that one cannot be what line 2 means.
const PROGRAM: &str = "module Program\n\nlet greeting = shout \"hi\"\nlet shout x = x\n";

/// FSAC's FS0039, with members a proxy must not drop or rewrite (code as a string, data).
fn undefined_shout() -> Value {
    json!({
        "range": {"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 20}},
        "severity": 1,
        "code": "39",
        "codeDescription": {"href": "https://learn.microsoft.com/dotnet/fsharp/language-reference/compiler-messages/fs0039"},
        "source": "F# Compiler",
        "message": "The value or constructor 'shout' is not defined.",
        "data": {"opaque": [1, 2, 3]},
    })
}

async fn open_program(harness: &mut Harness, backend: &mut ScriptedBackend, root: &std::path::Path) -> String {
    let uri = fslens::uri::path_to_uri(&root.join("Program.fs")).unwrap();
    harness.open_document(&uri, PROGRAM).await;
    backend.peer.recv_method("textDocument/didOpen").await;
    uri
}

#[tokio::test]
async fn fsacs_open_fixes_come_first_and_the_diagnostic_is_echoed_exactly() {
    let workspace = workspace();
    let root = workspace.path().canonicalize().unwrap();
    let mut harness = Harness::start_in(&root);
    let mut backend = harness.ready_backend().await;
    let uri = open_program(&mut harness, &mut backend, &root).await;
    backend.analysed(&uri, 1, json!([undefined_shout()])).await;

    let pending = harness.start_command("fslens.suggestOpen", json!({"path": "Program.fs", "line": 2})).await;
    let request = backend.peer.recv_method("textDocument/codeAction").await;
    assert!(request["id"].as_str().unwrap().starts_with("fslens:"), "a proxy id: {request}");
    assert_eq!(request["params"]["context"]["diagnostics"], json!([undefined_shout()]), "echoed exactly");
    assert_eq!(request["params"]["range"], undefined_shout()["range"]);
    let open_edit = json!({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "newText": "open Acme.Tools.Text\n"});
    let use_edit = json!({"range": undefined_shout()["range"], "newText": "Acme.Tools.Text.shout"});
    let actions = json!([
        {"title": "open Acme.Tools.Text", "kind": "quickfix", "diagnostics": [undefined_shout()], "edit": {"changes": {uri.clone(): [open_edit]}}},
        {"title": "Use Acme.Tools.Text.shout", "kind": "quickfix", "diagnostics": [undefined_shout()], "edit": {"changes": {uri.clone(): [use_edit]}}},
        {"title": "Replace with 'show'", "kind": "quickfix", "diagnostics": [undefined_shout()], "edit": {"changes": {uri.clone(): []}}},
    ]);
    backend.peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": actions})).await;
    let answer = harness.response(&pending).await;
    let answer = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(answer["name"], json!("shout"));
    assert_eq!(answer["via"], json!("fsac+syntax"), "{answer}");
    assert_eq!(answer["fsac"]["codeActions"], json!(3));
    assert_eq!(answer["fsac"]["openFixes"], json!(2));
    let sources: Vec<(&str, &str)> = answer["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|suggestion| {
            (
                suggestion["via"].as_str().unwrap(),
                suggestion["title"].as_str().or(suggestion["openLine"].as_str()).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sources,
        [("fsac", "open Acme.Tools.Text"), ("fsac", "Use Acme.Tools.Text.shout"), ("syntax", "open Acme.Tools.Text")]
    );
    assert_eq!(answer["omitted"]["laterInCompileOrder"], json!(1), "Program.shout comes after the use");
    let fsac_open = &answer["suggestions"][0];
    assert_eq!(fsac_open["preview"]["edits"][0]["linesAfter"], json!(["open Acme.Tools.Text", ""]));
    let use_preview = &answer["suggestions"][1]["preview"]["edits"][0];
    assert_eq!(use_preview["oldText"], json!("shout"));
    assert_eq!(use_preview["linesAfter"], json!(["let greeting = Acme.Tools.Text.shout \"hi\""]));

    // explainDiagnostic counts the same actions, by title.
    let pending =
        harness.start_command("fslens.explainDiagnostic", json!({"path": "Program.fs", "line": 2, "code": 39})).await;
    let request = backend.peer.recv_method("textDocument/codeAction").await;
    backend.peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": actions})).await;
    let answer = harness.response(&pending).await;
    assert_eq!(answer["result"]["fixes"]["count"], json!(3), "{answer}");
    assert_eq!(answer["result"]["diagnostic"]["code"], json!("FS0039"));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn a_pending_or_stale_analysis_is_unknown_never_no_diagnostic() {
    let workspace = workspace();
    let root = workspace.path().canonicalize().unwrap();
    let mut harness = Harness::start_in(&root);
    let mut backend = harness.ready_backend().await;
    let uri = open_program(&mut harness, &mut backend, &root).await;

    // FSAC has not reported analysing the buffer yet.
    let answer =
        harness.execute("fslens.explainDiagnostic", json!({"path": "Program.fs", "line": 0, "timeoutMs": 300})).await;
    let answer = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(answer["status"], json!("unknown"), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("timeout"));

    // Version 1 was analysed with an error; the editor then typed version 2, not yet analysed:
    // version 1's diagnostic is not an answer about the buffer.
    backend.analysed(&uri, 1, json!([undefined_shout()])).await;
    harness
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "module Program\n\nlet greeting = 1\n"}]}),
        )
        .await;
    backend.peer.recv_method("textDocument/didChange").await;
    let answer =
        harness.execute("fslens.diagnosticFixes", json!({"path": "Program.fs", "line": 2, "timeoutMs": 300})).await;
    let answer = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(answer["status"], json!("unknown"), "{answer}");

    // Once version 2 is analysed clean, the position has no diagnostic: a typed failure.
    backend.analysed(&uri, 2, json!([])).await;
    let answer = harness.execute("fslens.diagnosticFixes", json!({"path": "Program.fs", "line": 2})).await;
    assert_eq!(answer["error"]["data"]["errorKind"], json!("no_diagnostic_at_position"), "{answer}");
    assert_eq!(answer["error"]["data"]["fileDiagnosticCount"], json!(0));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn related_locations_get_their_file_and_line_and_unknown_codes_say_so() {
    let workspace = workspace();
    let root = workspace.path().canonicalize().unwrap();
    let mut harness = Harness::start_in(&root);
    let mut backend = harness.ready_backend().await;
    let uri = open_program(&mut harness, &mut backend, &root).await;
    let tools = fslens::uri::path_to_uri(&root.join("Tools.fs")).unwrap();
    let range = json!({"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 20}});
    let diagnostics = json!([
        {"range": range, "severity": 1, "code": 1, "source": "F# Compiler", "message": "This expression was expected to have type 'int'",
         "relatedInformation": [{"location": {"uri": tools, "range": {"start": {"line": 3, "character": 8}, "end": {"line": 3, "character": 13}}}, "message": "declared here"}]},
        {"range": range, "severity": 2, "code": 9999, "source": "F# Compiler", "message": "a code fslens has no summary for"},
    ]);
    backend.analysed(&uri, 1, diagnostics).await;

    for (code, known) in [(1, true), (9999, false)] {
        let pending = harness
            .start_command("fslens.explainDiagnostic", json!({"path": "Program.fs", "line": 2, "code": code}))
            .await;
        let request = backend.peer.recv_method("textDocument/codeAction").await;
        backend.peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": null})).await;
        let answer = harness.response(&pending).await;
        let answer = answer.get("result").unwrap_or_else(|| panic!("{answer}"));
        assert_eq!(answer["meaning"]["known"], json!(known), "{answer}");
        assert_eq!(answer["fixes"]["count"], json!(0), "null from FSAC is no fix");
        if known {
            let related = &answer["diagnostic"]["relatedInformation"][0];
            assert_eq!(related["file"], json!("Tools.fs"), "{answer}");
            assert_eq!(related["lineText"], json!("    let shout x = x"));
            assert_eq!(related["message"], json!("declared here"));
        } else {
            assert_eq!(answer["diagnostic"]["code"], json!("FS9999"));
            assert_eq!(answer["diagnostic"]["severity"], json!("warning"));
        }
    }
    harness.finish(Some(backend)).await;
}
