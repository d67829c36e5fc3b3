//! Layer 5: coarse facts against a real FsAutoComplete named by `FSLENS_FSAC`. The test is
//! ignored unless asked for (`-- --ignored`); asked for without `FSLENS_FSAC`, it fails.
#![allow(clippy::print_stderr)] // a failed `dotnet restore` is a warning on stderr

use crate::support;
use fslens::commands::registry::Command;

use serde_json::json;
use support::double::{Editor, fixture_copy};

#[tokio::test]
#[ignore = "needs a real FsAutoComplete: FSLENS_FSAC='fsautocomplete' cargo test --test it real_fsac:: -- --ignored \
            (docs/testing.md)"]
async fn real_fsac_answers_through_the_proxy() {
    let fsac = std::env::var("FSLENS_FSAC").ok().filter(|value| !value.is_empty()).unwrap_or_else(|| {
        panic!("FSLENS_FSAC is not set: it names an FsAutoComplete command line (needs the .NET SDK)")
    });
    let workspace = fixture_copy("shipping");
    // Real FSAC never restores projects; do it first when dotnet is available.
    let restored =
        std::process::Command::new("dotnet").arg("restore").arg(workspace.path().join("Shipping.sln")).status();
    if !restored.map(|status| status.success()).unwrap_or(false) {
        eprintln!("warning: `dotnet restore` failed; FSAC may report the projects as not restored");
    }
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &fsac, &[]).await;
    let status = editor.execute(Command::Status, json!({"waitUntil": "ready", "timeoutMs": 300000})).await;
    assert_eq!(status["result"]["state"], json!("ready"), "{status}");
    let program = workspace.path().join("src/Shipping.App/Program.fs");
    let uri = editor.open(&program, 1).await;
    editor
        .wait_for(|message| {
            message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == json!(uri)
        })
        .await;
    // `s` in `let s = create …` (line 6) has a type.
    let hover = editor
        .request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 6, "character": 8}}))
        .await;
    assert!(hover["result"]["contents"].to_string().contains("Shipment"), "{hover}");
    editor.stop().await;
}
