//! The diagnostic tools through `fslens mcp`, driven by the official MCP Python SDK client
//! (tests/mcp/diagnostic_scenarios.py) against the FSAC double on fixtures/diagnostic-fixes.
//! The interpreter comes from `FSLENS_MCP_PYTHON` or the venv `scripts/test-mcp.sh --prepare`
//! makes; without the SDK this test fails and says how to get it.

mod support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use support::double::{double_command, fixture_copy, repository};

fn python_with_sdk() -> PathBuf {
    let python = std::env::var_os("FSLENS_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository().join("target/mcp-venv/bin/python"));
    let probe = Command::new(&python).args(["-c", "import mcp"]).output();
    assert!(
        probe.is_ok_and(|output| output.status.success()),
        "the MCP Python SDK is missing: {} cannot import `mcp`. Run `scripts/test-mcp.sh --prepare`, or set \
         FSLENS_MCP_PYTHON to a python that has it.",
        python.display()
    );
    python
}

fn body<'a>(report: &'a Value, key: &str) -> &'a Value {
    assert_eq!(report[key]["isError"], json!(false), "{key}: {}", report[key]);
    &report[key]["body"]
}

fn error_kind(report: &Value, key: &str) -> Value {
    assert_eq!(report[key]["isError"], json!(true), "{key}: {}", report[key]);
    report[key]["body"]["error"]["errorKind"].clone()
}

#[test]
fn an_agent_explains_previews_fixes_and_finds_the_open_for_a_name() {
    let workspace = fixture_copy("diagnostic-fixes");
    let runtime = tempfile::tempdir().unwrap();
    let program = workspace.path().join("Program.fs");
    let before = std::fs::read_to_string(&program).unwrap();
    let output = Command::new(python_with_sdk())
        .arg(repository().join("tests/mcp/diagnostic_scenarios.py"))
        .arg("tools")
        .env("PYTHONPATH", repository().join("tests/mcp"))
        .env("FSLENS_BIN", env!("CARGO_BIN_EXE_fslens"))
        .env("FSLENS_WORKSPACE", workspace.path())
        .env("FSLENS_FSAC_COMMAND", double_command())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the scenario failed:\n{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|error| panic!("no report ({error}): {stdout}\n{stderr}"));

    // The catalogue: all three listed once their group is active; only fixes may write
    // (through the editor).
    assert_eq!(body(&report, "activate")["activated"], json!(["diagnostics"]), "{}", report["activate"]);
    let tools = &report["tools"];
    assert_eq!(tools.as_object().unwrap().len(), 3, "{tools}");
    assert_eq!(tools["explain_diagnostic"]["readOnly"], json!(true));
    assert_eq!(tools["diagnostic_fixes"]["readOnly"], json!(false));
    assert_eq!(body(&report, "status")["state"], json!("ready"), "{}", report["status"]);

    let explain = body(&report, "explain");
    assert_eq!(explain["diagnostic"]["code"], json!("FS0039"), "{explain}");
    assert!(explain["diagnostic"]["message"].as_str().unwrap().contains("lenght'"));
    assert_eq!(explain["meaning"]["known"], json!(true));
    assert_eq!(explain["fixes"]["titles"], json!(["Replace with 'length''"]));

    let fixes = body(&report, "fixes");
    assert_eq!(fixes["fixes"][0]["title"], json!("Make declaration 'mutable'"), "{fixes}");
    assert_eq!(fixes["fixes"][0]["preview"]["edits"][0]["linesAfter"], json!(["    let mutable total = 0"]));
    assert_eq!(fixes["writtenToDisk"], json!(false));

    let suggest = body(&report, "suggest");
    assert_eq!(suggest["name"], json!("clampTo"), "{suggest}");
    assert_eq!(suggest["suggestions"][0]["via"], json!("syntax"));
    assert_eq!(suggest["suggestions"][0]["openLine"], json!("open Fixes.Tools"));
    assert_eq!(suggest["suggestions"][0]["useAs"], json!("Numbers.clampTo"));
    assert_eq!(suggest["fsac"]["asked"], json!(true));
    let by_name = body(&report, "suggestName");
    assert_eq!(by_name["suggestions"][0]["openLine"], json!("open Fixes.Tools.Text"), "{by_name}");
    assert!(by_name["suggestions"][0]["workspaceEdit"]["changes"].is_object(), "with a path, an edit: {by_name}");

    let check = body(&report, "check");
    assert_eq!(check["verdict"], json!("errors"), "{check}");
    let last = check["diagnostics"].as_array().unwrap().last().unwrap();
    let from_check = body(&report, "explainFromCheck");
    assert_eq!(from_check["diagnostic"]["range"], last["range"], "{from_check}");
    assert_eq!(from_check["diagnostic"]["message"], last["message"]);

    assert_eq!(error_kind(&report, "nothingThere"), json!("no_diagnostic_at_position"));
    assert!(
        report["nothingThere"]["body"]["error"]["data"]["nearest"]
            .as_array()
            .is_some_and(|nearest| !nearest.is_empty())
    );
    assert_eq!(error_kind(&report, "missingLine"), json!("invalid_argument"));
    assert_eq!(report["missingLine"]["body"]["error"]["data"]["argument"], json!("line"));
    assert!(error_kind(&report, "outside").is_string(), "{}", report["outside"]);
    assert_eq!(std::fs::read_to_string(&program).unwrap(), before, "nothing was written");
}
