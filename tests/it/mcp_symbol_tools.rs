//! The symbol tools through `fslens mcp`, driven by the official MCP Python SDK client
//! (tests/mcp/symbol_scenarios.py): `symbol_search` answers `available: false` at once while
//! the first index build is held by the `FSLENS_TEST_INDEX_GATE` hook (and while FSAC still
//! loads), then ranks once the build finishes; `read_symbol` lists candidates and reads a
//! qualified name; `read_enclosing` answers during the build, outlines oversized bodies and
//! refuses paths outside the workspace.
//!
//! Needs the SDK venv (`scripts/test-mcp.sh --prepare`) and the FSAC double's npm packages.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::double::fixture_copy;
use support::mcp::tool_body;

fn run_scenario(scenario: &str, workspace: &Path, runtime: &Path, gate: &Path) -> Value {
    let environment: [(&str, &std::ffi::OsStr); 2] = [
        ("FSLENS_TEST_INDEX_GATE", gate.as_os_str()),
        // FSAC is still loading the workspace throughout the building phase.
        ("FSAC_DOUBLE_SLOW_LOAD_MS", std::ffi::OsStr::new("20000")),
    ];
    support::mcp::run_scenario("symbol_scenarios.py", &[scenario], workspace, runtime, &environment)
}

#[test]
fn an_agent_is_told_to_retry_while_the_index_builds_then_gets_ranked_files_and_sources() {
    let workspace = fixture_copy("symbol-search");
    let runtime = tempfile::tempdir().unwrap();
    let gate = runtime.path().join("index-gate");
    let report = run_scenario("building", workspace.path(), runtime.path(), &gate);

    for tool in ["symbol_search", "read_symbol", "read_enclosing"] {
        assert!(report["tools"][tool].is_object(), "{tool} is listed: {}", report["tools"]);
        assert!(report["tools"][tool]["descriptionLength"].as_u64().unwrap() <= 400);
    }
    assert_eq!(report["tools"]["read_enclosing"]["required"], json!(["path", "line"]));

    let building = tool_body(&report, "whileBuilding");
    assert_eq!(building["available"], json!(false), "{building}");
    assert!(building["retryAfterMs"].as_u64().unwrap() > 0 && building["results"].is_null(), "{building}");
    assert!(report["whileBuildingSeconds"].as_f64().unwrap() < 10.0, "never blocks on the build");
    // read_symbol by name reads the files holding the name, without the workspace index.
    let read = tool_body(&report, "readSymbolWhileBuilding");
    assert_eq!((read["available"].clone(), read["status"].clone()), (json!(true), json!("ambiguous")), "{read}");
    let enclosing = tool_body(&report, "enclosingWhileBuilding");
    assert_eq!(enclosing["symbol"]["fullName"], json!("Shipping.Domain.Shipment.weigh"), "{enclosing}");
    assert_ne!(report["fsacWhileBuilding"]["state"], json!("ready"), "FSAC was still loading");

    let ready = tool_body(&report, "ready");
    assert_eq!(ready["available"], json!(true), "{ready}");
    assert!(report["attempts"].as_u64().unwrap() >= 1);
    assert_eq!(ready["results"][0]["path"], json!("src/Shipping/Domain.fs"), "{ready}");
    assert_eq!((ready["returned"].as_u64(), ready["truncated"].as_bool()), (Some(3), Some(true)));
    let second = tool_body(&report, "secondPage");
    let first_paths: Vec<&Value> = ready["results"].as_array().unwrap().iter().map(|row| &row["path"]).collect();
    assert!(second["results"].as_array().unwrap().iter().all(|row| !first_paths.contains(&&row["path"])), "{second}");

    let ambiguous = tool_body(&report, "ambiguous");
    assert_eq!(
        (ambiguous["status"].as_str(), ambiguous["candidates"].as_array().map(Vec::len)),
        (Some("ambiguous"), Some(2))
    );
    let qualified = tool_body(&report, "qualified");
    assert_eq!(qualified["status"], json!("ok"));
    assert!(qualified["source"].as_str().unwrap().contains("| Air -> 2.0"), "{qualified}");
    let outline = tool_body(&report, "outline");
    assert_eq!((outline["status"].as_str(), outline["nested"][0]["name"].as_str()), (Some("outline"), Some("weigh")));
    // A nested entry's `read`, passed back to read_enclosing as it is, reads that declaration.
    let nested_read = tool_body(&report, "nestedRead");
    assert_eq!(nested_read["symbol"]["fullName"], json!("Shipping.Domain.Carrier.weigh"), "{nested_read}");

    assert_eq!(report["escape"]["isError"], json!(true), "{}", report["escape"]);
    assert_eq!(report["escape"]["body"]["error"]["errorKind"], json!("invalid_path"));
    assert_eq!(report["badKinds"]["isError"], json!(true));
    assert_eq!(report["badKinds"]["body"]["error"]["errorKind"], json!("invalid_argument"));
}
