//! `fslens.check` against a scripted FSAC: the races that a real backend makes rare.

use crate::support;

use serde_json::json;
use support::Harness;

fn workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(
        workspace.path().join("App.fsproj"),
        r#"<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><Compile Include="A.fs" /><Compile Include="B.fs" /></ItemGroup></Project>"#,
    )
    .unwrap();
    std::fs::write(workspace.path().join("A.fs"), "module A\nlet a = 1\n").unwrap();
    std::fs::write(workspace.path().join("B.fs"), "module B\nlet b = A.a\n").unwrap();
    workspace
}

#[tokio::test]
async fn an_edit_during_a_check_never_yields_clean_for_the_old_content() {
    let workspace = workspace();
    let mut harness = Harness::start_in(workspace.path());
    let mut backend = harness.ready_backend().await;
    let uri = fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap().join("A.fs")).unwrap();
    harness.open_document(&uri, "module A\nlet a = 1\n").await;
    backend.peer.recv_method("textDocument/didOpen").await;

    let check = harness.start_command("fslens.check", json!({"path": "A.fs"})).await;
    // While the check waits, the editor types an error (version 2)…
    harness.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "module A\nlet a: string = 1\n"}]})).await;
    backend.peer.recv_method("textDocument/didChange").await;
    // …and only then does FSAC report the clean analysis of version 1.
    backend.analysed(&uri, 1, json!([])).await;
    let error = json!([{"range": {"start": {"line": 1, "character": 16}, "end": {"line": 1, "character": 17}}, "severity": 1, "code": 1, "source": "F# Compiler", "message": "type mismatch"}]);
    backend.analysed(&uri, 2, error).await;
    let answer = harness.response(&check).await;
    assert_eq!(answer["result"]["verdict"], json!("errors"), "{answer}");
    assert_eq!(answer["result"]["files"][0]["version"], json!(2));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn fsac_crashing_mid_check_gives_unknown() {
    let workspace = workspace();
    let mut harness = Harness::start_in(workspace.path());
    let mut backend = harness.ready_backend().await;
    let check = harness.start_command("fslens.check", json!({})).await;
    // fslens opens the closed files for FSAC…
    let opened = backend.peer.recv_method("textDocument/didOpen").await;
    assert_eq!(opened["params"]["textDocument"]["version"], json!(1));
    let first_uri = opened["params"]["textDocument"]["uri"].as_str().unwrap().to_owned();
    backend.analysed(&first_uri, 1, json!([])).await;
    // …and FSAC dies before analysing the rest.
    backend.die(Some(3), "boom").await;
    let answer = harness.response(&check).await;
    assert_eq!(answer["result"]["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["result"]["blockingReason"]["errorKind"], json!("fsac_restarted"), "{answer}");
    assert_eq!(answer["result"]["complete"], json!(false));
    harness.finish(None).await;
}

#[tokio::test]
async fn a_cancelled_check_answers_minus_32800_and_closes_what_it_opened() {
    let workspace = workspace();
    let mut harness = Harness::start_in(workspace.path());
    let mut backend = harness.ready_backend().await;
    let check = harness.start_command("fslens.check", json!({})).await;
    let mut opened = Vec::new();
    for _ in 0..2 {
        opened.push(backend.peer.recv_method("textDocument/didOpen").await["params"]["textDocument"]["uri"].clone());
    }
    harness.notify("$/cancelRequest", json!({"id": check})).await;
    assert_eq!(harness.response(&check).await["error"]["code"], json!(-32800));
    let mut closed = Vec::new();
    for _ in 0..2 {
        closed.push(backend.peer.recv_method("textDocument/didClose").await["params"]["textDocument"]["uri"].clone());
    }
    opened.sort_by_key(|uri| uri.to_string());
    closed.sort_by_key(|uri| uri.to_string());
    assert_eq!(closed, opened, "every file fslens opened is closed again");
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn fast_checks_use_only_current_analyses_and_name_what_is_missing_or_stale() {
    let workspace = workspace();
    let mut harness = Harness::start_in(workspace.path());
    let mut backend = harness.ready_backend().await;
    let uri = fslens::uri::path_to_uri(&workspace.path().canonicalize().unwrap().join("A.fs")).unwrap();
    harness.open_document(&uri, "module A\nlet a = 1\n").await;
    backend.analysed(&uri, 1, json!([])).await;
    let fast = |path: Option<&str>| {
        let mut argument = json!({"speed": "fast"});
        if let Some(path) = path {
            argument["path"] = json!(path);
        }
        argument
    };
    let answer = loop {
        let answer = harness.execute("fslens.check", fast(Some("A.fs"))).await;
        if answer["result"]["verdict"] != json!("unknown") {
            break answer; // the analysis notification may still be on its way
        }
    };
    assert_eq!(answer["result"]["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["result"]["sessionGeneration"], json!(1));

    harness
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "module A\n"}]}),
        )
        .await;
    let answer = harness.execute("fslens.check", fast(Some("A.fs"))).await;
    assert_eq!(answer["result"]["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["result"]["staleFiles"], json!(["A.fs"]));
    assert_eq!(answer["result"]["blockingReason"]["errorKind"], json!("incomplete"));

    let answer = harness.execute("fslens.check", fast(None)).await;
    assert_eq!(
        answer["result"]["missingFiles"],
        json!(["B.fs"]),
        "closed files are not opened by a fast check: {answer}"
    );
    assert_eq!(answer["result"]["complete"], json!(false));
    harness.finish(Some(backend)).await;
}

#[tokio::test]
async fn a_scope_without_files_is_never_clean() {
    let workspace = workspace();
    let mut harness = Harness::start_in(workspace.path());
    let backend = harness.ready_backend().await;
    let answer = harness.execute("fslens.check", json!({"fileGlob": "nothing/**/*.fs"})).await;
    assert_eq!(answer["result"]["verdict"], json!("unknown"), "{answer}");
    assert_eq!(answer["result"]["blockingReason"]["errorKind"], json!("nothing_in_scope"));
    harness.finish(Some(backend)).await;
}
