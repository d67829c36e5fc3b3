//! The diagnostic tools through `fslens mcp`, driven by the official MCP Python SDK client
//! (tests/mcp/diagnostic_scenarios.py) against the FSAC double on fixtures/diagnostic-fixes.
//! The interpreter comes from `FSLENS_MCP_PYTHON` or the venv `scripts/test-mcp.sh --prepare`
//! makes; without the SDK this test fails and says how to get it.

use crate::support;

use serde_json::{Value, json};
use support::double::fixture_copy;
use support::mcp::{run_scenario, tool_body};

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
    let no_environment: &[(&str, &str)] = &[];
    let report = run_scenario("diagnostic_scenarios.py", &["tools"], workspace.path(), runtime.path(), no_environment);

    // The catalogue: all three listed once their group is active; only fixes may write
    // (through the editor).
    assert_eq!(tool_body(&report, "activate")["activated"], json!(["diagnostics"]), "{}", report["activate"]);
    let tools = &report["tools"];
    assert_eq!(tools.as_object().unwrap().len(), 3, "{tools}");
    assert_eq!(tools["explain_diagnostic"]["readOnly"], json!(true));
    assert_eq!(tools["diagnostic_fixes"]["readOnly"], json!(false));
    assert_eq!(tool_body(&report, "status")["state"], json!("ready"), "{}", report["status"]);

    let explain = tool_body(&report, "explain");
    assert_eq!(explain["diagnostic"]["code"], json!("FS0039"), "{explain}");
    assert!(explain["diagnostic"]["message"].as_str().unwrap().contains("lenght'"));
    assert_eq!(explain["meaning"]["known"], json!(true));
    assert_eq!(explain["fixes"]["titles"], json!(["Replace with 'length''"]));

    let fixes = tool_body(&report, "fixes");
    assert_eq!(fixes["fixes"][0]["title"], json!("Make declaration 'mutable'"), "{fixes}");
    assert_eq!(fixes["fixes"][0]["preview"]["edits"][0]["linesAfter"], json!(["    let mutable total = 0"]));
    assert_eq!(fixes["writtenToDisk"], json!(false));

    let suggest = tool_body(&report, "suggest");
    assert_eq!(suggest["name"], json!("clampTo"), "{suggest}");
    assert_eq!(suggest["suggestions"][0]["via"], json!("syntax"));
    assert_eq!(suggest["suggestions"][0]["openLine"], json!("open Fixes.Tools"));
    assert_eq!(suggest["suggestions"][0]["useAs"], json!("Numbers.clampTo"));
    assert_eq!(suggest["fsac"]["asked"], json!(true));
    let by_name = tool_body(&report, "suggestName");
    assert_eq!(by_name["suggestions"][0]["openLine"], json!("open Fixes.Tools.Text"), "{by_name}");
    assert!(by_name["suggestions"][0]["workspaceEdit"]["changes"].is_object(), "with a path, an edit: {by_name}");

    let check = tool_body(&report, "check");
    assert_eq!(check["verdict"], json!("errors"), "{check}");
    let last = check["diagnostics"].as_array().unwrap().last().unwrap();
    let from_check = tool_body(&report, "explainFromCheck");
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
