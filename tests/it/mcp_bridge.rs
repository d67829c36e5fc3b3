//! `fslens mcp` driven by the official MCP Python SDK client (PyPI `mcp` 2.3.0) against the
//! FSAC double: joining an editor's session (its FSAC pid, its unsaved buffers), refusing path
//! escapes, cancelling through to FSAC, and starting a session of its own that a second bridge
//! joins.
//!
//! The Python scripts live in tests/mcp/. The interpreter comes from `FSLENS_MCP_PYTHON`, or
//! the virtual environment `scripts/test-mcp.sh` prepares under target/; without the SDK these
//! tests fail and say how to install it.

use crate::support;
use fslens::commands::registry::Command;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::double::{Editor, TRANSCRIPT_VARIABLE, double_command, fixture_copy, received_by_fsac};
use support::mcp::tool_body;

/// Runs a scenario of tests/mcp/bridge_scenarios.py and returns its JSON report.
fn run_scenario(scenario: &str, workspace: &Path, runtime: &Path, environment: &[(&str, String)]) -> Value {
    support::mcp::run_scenario("bridge_scenarios.py", &[scenario], workspace, runtime, environment)
}

/// Runs a bridge scenario against a fresh copy of `fixture` (with no editor session) and
/// returns its report.
async fn scenario_on_fixture(scenario: &'static str, fixture: &str) -> Value {
    let workspace = fixture_copy(fixture);
    let runtime = tempfile::tempdir().unwrap();
    let (workspace_path, runtime_path) = (workspace.path().to_owned(), runtime.path().to_owned());
    tokio::task::spawn_blocking(move || run_scenario(scenario, &workspace_path, &runtime_path, &[])).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_joins_the_editor_session_sees_its_unsaved_edit_and_cancels_into_fsac() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let transcript = runtime.path().join("fsac-transcript.jsonl");
    let root = workspace.path().canonicalize().unwrap();
    // Escape routes: a symbolic link out of the workspace and a sibling sharing its name. The
    // link names the sibling, not a folder above it: FSAC's workspace peek follows links, and
    // would find the solutions of whatever lies there.
    let sibling = PathBuf::from(format!("{}-sibling", root.display()));
    std::fs::create_dir_all(&sibling).unwrap();
    std::fs::write(sibling.join("x.fs"), "module X\n").unwrap();
    std::os::unix::fs::symlink(&sibling, root.join("escape")).unwrap();
    let escapes = json!([
        "../outside.fs",
        "src/../../outside.fs",
        "/etc/passwd",
        "escape/x.fs",
        sibling.join("x.fs").display().to_string(),
    ]);

    let transcript_text = transcript.display().to_string();
    let mut editor = Editor::start(
        workspace.path(),
        runtime.path(),
        &double_command(),
        &[("FSAC_DOUBLE_HANG_ON", "textDocument/documentSymbol"), (TRANSCRIPT_VARIABLE, &transcript_text)],
    )
    .await;
    let status = editor.wait_until_ready().await;
    let editor_pid = status["result"]["fsac"]["pid"].clone();
    assert!(editor_pid.is_u64(), "{status}");

    // The user types a type error into Program.fs and does not save it.
    let program = workspace.path().join("src/Shipping.App/Program.fs");
    let original = std::fs::read_to_string(&program).unwrap();
    let uri = editor.open(&program, 1).await;
    let broken = original
        .replace("create \"Books\" 12.5 \"Lyon\"", "create \"Books\" \"heavy\" \"Lyon\"")
        .replace("{| Id = 1; Weight = parcelWeight |}", "{| Id = 1; Weight = (heavier s 1.0).Weight |}");
    assert!(broken.contains("heavier s 1.0"));
    editor
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}),
        )
        .await;

    let report = tokio::task::spawn_blocking({
        let workspace = workspace.path().to_owned();
        let runtime = runtime.path().to_owned();
        move || run_scenario("editor", &workspace, &runtime, &[("FSLENS_ESCAPES", escapes.to_string())])
    })
    .await
    .unwrap();

    // tools/list starts with the core tools; the situational ones wait for activate_tools.
    let default_tools: Vec<&str> =
        report["defaultTools"].as_array().unwrap().iter().map(|name| name.as_str().unwrap()).collect();
    for core in ["status", "find", "check", "field_impact", "activate_tools"] {
        assert!(default_tools.contains(&core), "{core} missing from the default list {default_tools:?}");
    }
    for situational in [
        "navigate",
        "symbol_at_word",
        "outline",
        "diagnostics",
        "make_internal_visible",
        "restart",
        "tests_for_symbol",
        "run_tests",
        "affected_tests",
    ] {
        assert!(!default_tools.contains(&situational), "{situational} listed before activation: {default_tools:?}");
    }
    let groups = &tool_body(&report, "groupsBefore")["groups"];
    let group = |name: &str| groups.as_array().unwrap().iter().find(|group| group["group"] == name).unwrap().clone();
    let navigation = group("navigation");
    assert_eq!(navigation["active"], json!(false), "{groups}");
    assert!(navigation["tools"].as_array().unwrap().contains(&json!("navigate")), "{groups}");
    // The tests an edit reaches, the tests of a symbol and running them: one group.
    let tests = group("tests");
    assert_eq!(tests["active"], json!(false), "{groups}");
    assert_eq!(tests["tools"], json!(["tests_for_symbol", "run_tests", "affected_tests"]), "{groups}");
    assert_eq!(report["badGroup"]["isError"], json!(true), "{}", report["badGroup"]);
    assert_eq!(report["badGroup"]["body"]["error"]["data"]["argument"], json!("groups"), "{}", report["badGroup"]);
    let activated = tool_body(&report, "activated");
    assert_eq!(activated["activated"], json!(["navigation", "diagnostics", "session", "edits"]), "{activated}");
    assert_eq!(activated["listChanged"], json!(true), "{activated}");
    assert_eq!(report["listChangedSeen"], json!(true), "the client saw notifications/tools/list_changed");
    let again = tool_body(&report, "activatedAgain");
    assert_eq!(
        (again["activated"].clone(), again["alreadyActive"].clone()),
        (json!([]), json!(["navigation", "core"])),
        "{again}"
    );
    assert_eq!(report["listChangedAfterRepeat"], report["listChanged"], "no notification when nothing changed");

    // After activation, tools/list has every tool of the session's commands plus the
    // LSP-composed ones.
    let names: Vec<&str> =
        report["tools"].as_array().unwrap().iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    for expected in ["status", "check", "diagnostics", "make_internal_visible", "outline", "symbol_at_word", "navigate"]
    {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    for tool in report["tools"].as_array().unwrap() {
        assert!(tool["descriptionLength"].as_u64().unwrap() <= 400, "{tool}");
        assert_eq!(tool["schemaType"], json!("object"), "{tool}");
    }

    // status: the same FSAC as the editor's, reached by joining its session.
    let status = tool_body(&report, "status");
    assert_eq!(status["fsacPid"], editor_pid, "{status}");
    assert_eq!(status["session"]["bridge"], json!("joined"));
    assert_eq!((status["lsp"].clone(), status["projectOptions"].clone()), (json!(true), json!(true)), "{status}");
    assert!(status["symbolIndexState"].is_string() && status["symbolIndexHint"].is_string());
    assert!(report["status"]["footer"].as_str().unwrap().starts_with("[fslens status: "), "{}", report["status"]);

    // check sees the editor's unsaved buffer: the type error typed there, never saved.
    let check = tool_body(&report, "check");
    assert_eq!(check["verdict"], json!("errors"), "{check}");
    assert!(check["diagnostics"][0]["message"].as_str().unwrap().contains("expected to have type"), "{check}");
    assert_eq!(check["files"][0]["version"], json!(2), "the verdict covers the unsaved version");
    assert_eq!(check["truncated"], json!(false));
    assert_eq!(std::fs::read_to_string(&program).unwrap(), original, "nothing was saved");
    let diagnostics = tool_body(&report, "diagnostics");
    assert_eq!(diagnostics["files"][0]["freshness"], json!("current"), "{diagnostics}");

    // find, once the session offers it, sees the call to `heavier` that exists only in the
    // editor's unsaved buffer.
    if names.contains(&"find") {
        let find = tool_body(&report, "find");
        assert_eq!(find["outcome"], json!("found"), "{find}");
        let unsaved_site = find["sites"].as_array().unwrap().iter().find(|site| {
            site["file"] == json!("src/Shipping.App/Program.fs")
                && site["lineText"].as_str().unwrap_or_default().contains("heavier s 1.0")
        });
        assert!(unsaved_site.is_some(), "find must report the unsaved call: {find}");
    }

    if names.contains(&"field_impact") {
        let impact = tool_body(&report, "fieldImpact");
        assert_eq!(impact["outcome"], json!("found"), "{impact}");
        let sites = impact["sites"].as_array().unwrap();
        assert!(sites.iter().any(|site| site["kind"] == json!("field-copy-update")), "{impact}");
        assert!(
            sites.iter().any(|site| site["siteType"].as_str().is_some_and(|text| text.contains("float"))),
            "{impact}"
        );
        assert!(
            sites.iter().all(|site| site["symbolFullName"] != json!("Shipping.Domain.Parcel.Weight")),
            "Parcel.Weight is another field: {impact}"
        );
    }

    // Every escape is refused by every tool, with a typed error.
    let refused = report["escapes"].as_array().unwrap();
    assert_eq!(refused.len(), 20);
    for attempt in refused {
        assert_eq!(attempt["isError"], json!(true), "{attempt}");
        assert_eq!(attempt["error"]["errorKind"], json!("invalid_path"), "{attempt}");
        assert!(attempt["error"]["message"].as_str().unwrap().contains("outside the workspace"), "{attempt}");
    }

    // symbol_at_word and navigate: compiler answers at a word, no column given.
    let symbol = tool_body(&report, "symbolAtWord");
    assert!(symbol["hover"].as_str().unwrap_or_default().contains("Shipment"), "{symbol}");
    assert_eq!(symbol["character"], json!(4));
    let definition = tool_body(&report, "navigateDefinition");
    let location =
        &definition["result"].as_array().map(|items| items[0].clone()).unwrap_or(definition["result"].clone());
    assert_eq!(location["file"], json!("src/Shipping.Domain/Operations.fs"), "{definition}");
    assert!(location["lineText"].as_str().unwrap().contains("let create"), "{definition}");
    let outline = tool_body(&report, "outline");
    assert!(outline.to_string().contains("Shipment"), "{outline}");
    let visible = tool_body(&report, "makeInternalVisible");
    assert_eq!(visible["status"], json!("ok"), "{visible}");
    assert_eq!(visible["writtenToDisk"], json!(false));

    // Cancellation: the SDK gave up on a documentSymbol request FSAC never answers; its
    // notifications/cancelled reached the session, which cancelled the request in FSAC.
    let cancelled = &report["cancellation"];
    assert!(cancelled.get("raised").is_some(), "the hung request must not complete: {cancelled}");
    assert!(cancelled["elapsedSeconds"].as_f64().unwrap() < 10.0, "{cancelled}");
    assert!(!cancelled["progress"].as_array().unwrap().is_empty(), "progress while it ran: {cancelled}");
    assert_eq!(cancelled["pendingAfter"]["proxyToFsac"], json!(0), "{cancelled}");
    let received = received_by_fsac(&transcript);
    let hung: Vec<&Value> =
        received.iter().filter(|message| message["method"] == json!("textDocument/documentSymbol")).collect();
    assert_eq!(hung.len(), 2, "two documentSymbol requests reached FSAC: the cancelled one and the timed-out one");
    for request in &hung {
        assert!(
            received.iter().any(
                |message| message["method"] == json!("$/cancelRequest") && message["params"]["id"] == request["id"]
            ),
            "FSAC received $/cancelRequest for {request}"
        );
    }
    // With timeoutMs the bridge gives up by itself, says `timeout`, and FSAC is told (above).
    let timed_out = &report["timedOut"];
    assert_eq!(timed_out["isError"], json!(true), "{timed_out}");
    assert_eq!(timed_out["body"]["error"]["errorKind"], json!("timeout"), "{timed_out}");
    let elapsed = timed_out["elapsedSeconds"].as_f64().unwrap();
    assert!((0.5..10.0).contains(&elapsed), "gave up after the 500 ms asked, not much later: {elapsed}");
    // Every file fslens opened in FSAC for the agent is closed again: only the editor's own
    // Program.fs stays open.
    let mut open_files = std::collections::BTreeSet::new();
    for message in &received {
        let uri = message["params"]["textDocument"]["uri"].as_str().unwrap_or_default().to_owned();
        if message["method"] == json!("textDocument/didOpen") {
            open_files.insert(uri);
        } else if message["method"] == json!("textDocument/didClose") {
            open_files.remove(&uri);
        }
    }
    assert_eq!(open_files.into_iter().collect::<Vec<_>>(), vec![uri], "files opened for the agent were closed");
    assert_eq!(tool_body(&report, "statusAfter")["fsacPid"], editor_pid, "the editor's FSAC is untouched");

    // The editor's session is unaffected by the agent coming and going.
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["state"], json!("ready"));
    assert_eq!(status["result"]["session"]["clients"], json!(0), "the bridge left: {status}");
    editor.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_session_the_bridge_starts_one_that_a_second_bridge_joins() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let report = tokio::task::spawn_blocking({
        let workspace = workspace.path().to_owned();
        let runtime = runtime.path().to_owned();
        move || run_scenario("own", &workspace, &runtime, &[("FSAC_DOUBLE_SLOW_LOAD_MS", "4000".to_owned())])
    })
    .await
    .unwrap();

    // A check cancelled while FSAC still loads is aborted in the session.
    let check_cancelled = &report["checkCancellation"];
    assert!(check_cancelled.get("raised").is_some(), "the check must wait for the slow load: {check_cancelled}");
    assert!(check_cancelled["elapsedSeconds"].as_f64().unwrap() < 3.0, "{check_cancelled}");
    let after = &check_cancelled["statusAfter"];
    assert_eq!(after["pendingRequests"]["commands"], json!(1), "only the status call itself runs: {after}");
    assert_eq!(after["state"], json!("loading"), "the check was cancelled, not finished: {after}");

    let first = tool_body(&report, "first");
    assert_eq!(first["session"]["bridge"], json!("started"), "{first}");
    assert_eq!(first["state"], json!("ready"), "{first}");
    let pid = first["fsacPid"].as_u64().unwrap_or_else(|| panic!("no FSAC pid: {first}"));
    assert!(first["session"]["socket"].as_str().unwrap().starts_with(&runtime.path().display().to_string()));
    assert!(report["firstTools"].as_array().unwrap().contains(&json!("check")));

    let second = tool_body(&report, "second");
    assert_eq!(second["session"]["bridge"], json!("joined"), "{second}");
    assert_eq!(second["fsacPid"], json!(pid), "the second bridge uses the first one's FSAC");
    assert_eq!(tool_body(&report, "secondCheck")["verdict"], json!("clean"), "{}", report["secondCheck"]);
    assert_eq!(tool_body(&report, "firstAfterSecondLeft")["fsacPid"], json!(pid));

    // The bridge that started the session ended it, and its FSAC, when it ended.
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        !Path::new(&format!("/proc/{pid}")).exists()
    });
    assert!(gone, "FSAC {pid} outlived the bridge that started it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_fsac_cannot_start_the_bridge_keeps_its_session_and_says_why() {
    let report = scenario_on_fixture("broken", "sdk-pin").await;
    assert!(report["tools"].as_array().unwrap().contains(&json!("check")), "{}", report["tools"]);
    assert!(!report["tools"].as_array().unwrap().contains(&json!("navigate")), "{}", report["tools"]);
    assert!(report["toolsAfterCall"].as_array().unwrap().contains(&json!("navigate")), "{}", report["toolsAfterCall"]);
    let status = tool_body(&report, "status");
    assert_eq!(status["lsp"], json!(false), "{status}");
    assert_eq!(status["symbolIndexState"], json!("blocked_on_lsp"), "{status}");
    assert!(status["session"]["startupFailure"].as_str().unwrap().contains("99.0.100"), "{status}");
    assert!(status["symbolIndexHint"].as_str().unwrap().contains("99.0.100"), "the hint says why: {status}");
    let check = tool_body(&report, "check");
    assert_eq!(check["verdict"], json!("unknown"), "{check}");
    assert_eq!(check["blockingReason"]["errorKind"], json!("sdk_not_found"), "{check}");
    // A request FSAC would answer fails with the session's typed error, not an empty result.
    assert_eq!(report["navigate"]["isError"], json!(true), "{}", report["navigate"]);
    assert_eq!(report["navigate"]["body"]["error"]["errorKind"], json!("fsac_unavailable"), "{}", report["navigate"]);
}

/// Sites on very long lines: the bridge asks `find` for a page that fits its 40 KiB output
/// (`responseCharBudget`), so the page is planned once, not re-run with fewer rows
/// (`maxResultsLowered` would say so) or cut by the output limit (which made the cursor skip
/// the cut rows), and its cursor continues where it ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_find_page_is_planned_to_fit_the_bridge_output_once() {
    let report = scenario_on_fixture("long_lines", "long-lines").await;
    let first = tool_body(&report, "first");
    assert_eq!(first["totalSites"], json!(602), "{first}");
    assert!(first.get("maxResultsLowered").is_none(), "the page was re-run: {}", first["maxResultsLowered"]);
    assert_eq!(first["truncatedBy"], json!("responseBudget"), "{first}");
    assert!(report["first"]["bytes"].as_u64().unwrap() <= 40 * 1024, "{}", report["first"]["bytes"]);
    let returned = first["returnedSites"].as_u64().unwrap();
    assert!((1..602).contains(&returned), "{returned}");
    // Every row the page counts is delivered: the bridge did not have to cut the list, which
    // would make the cursor skip the rows it cut.
    assert_eq!(first["sites"].as_array().unwrap().len() as u64, returned, "{}", report["first"]["footer"]);
    assert!(first.get("truncation").is_none(), "the bridge cut the page: {}", report["first"]["footer"]);
    let second = tool_body(&report, "second");
    assert_eq!(second["pageOffset"].as_u64(), Some(returned), "{second}");
}

/// Sites on lines of CJK text: a page of 30,000 UTF-16 units would be well over the bridge's
/// 40 KiB of UTF-8, so the bridge passes `responseByteBudget` too and find plans the page once
/// to fit both (no `maxResultsLowered`: nothing is asked again), returns every row it counts,
/// and the cursor continues right after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_find_page_of_wide_text_is_planned_once_to_the_bridge_byte_budget() {
    let report = scenario_on_fixture("wide_text", "wide-text").await;
    let first = tool_body(&report, "first");
    assert_eq!(first["totalSites"], json!(61), "{first}");
    assert!(first.get("maxResultsLowered").is_none(), "the page was re-run: {}", first["maxResultsLowered"]);
    assert_eq!(first["truncatedBy"], json!("responseBudget"), "{first}");
    let returned = first["returnedSites"].as_u64().unwrap();
    assert!((1..61).contains(&returned), "{returned}");
    assert!(report["first"]["bytes"].as_u64().unwrap() <= 40 * 1024, "{}", report["first"]["bytes"]);
    assert_eq!(first["sites"].as_array().unwrap().len() as u64, returned, "{}", report["first"]["footer"]);
    assert!(first.get("truncation").is_none(), "the bridge cut the page: {}", report["first"]["footer"]);
    // The rows are the wide lines themselves, not shortened to fit.
    let wide_rows = first["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|site| site["lineText"].as_str().is_some_and(|text| text.contains("汉字")))
        .count();
    assert!(wide_rows > 0, "{first}");
    let second = tool_body(&report, "second");
    assert_eq!(second["pageOffset"].as_u64(), Some(returned), "{second}");
}

/// A what-if through the check tool: the edit's verdict with its baseline and delta, and a
/// plain check afterwards is the baseline again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_what_if_through_the_check_tool_answers_the_edits_verdict_and_restores() {
    let report = scenario_on_fixture("what_if", "what-if").await;
    let what_if = tool_body(&report, "whatIf");
    assert_eq!(what_if["verdict"], json!("errors"), "{what_if}");
    assert_eq!(what_if["baseline"]["verdict"], json!("clean"), "{what_if}");
    let introduced = what_if["delta"]["introduced"].as_array().unwrap();
    assert_eq!(introduced.len(), 1, "{what_if}");
    assert_eq!(introduced[0]["file"], json!("Orders/Order.fs"), "{what_if}");
    assert_eq!(what_if["whatIf"]["restored"], json!(true), "{what_if}");
    let after = tool_body(&report, "after");
    assert_eq!(after["verdict"], json!("clean"), "{after}");
}

/// The check tool's `confirm` argument on fixtures/build-confirm (restored): the build
/// compiles what FSAC's per-file check flags, so the verdict is `clean`, resting on the build,
/// with FSAC's two errors not confirmed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_tool_confirms_by_the_build() {
    let workspace = fixture_copy("build-confirm");
    crate::support::dotnet::restore(&workspace.path().join("Seeds/Seeds.fsproj"));
    let runtime = tempfile::tempdir().unwrap();
    let (workspace_path, runtime_path) = (workspace.path().to_owned(), runtime.path().to_owned());
    let report =
        tokio::task::spawn_blocking(move || run_scenario("confirm_build", &workspace_path, &runtime_path, &[]))
            .await
            .unwrap();
    let confirmed = tool_body(&report, "confirmed");
    assert_eq!(confirmed["verdict"], json!("clean"), "{confirmed}");
    assert_eq!(confirmed["verdictSource"], json!("build"), "{confirmed}");
    assert_eq!(confirmed["confirmation"]["fsacErrorsNotConfirmed"], json!(2), "{confirmed}");
    let marks: Vec<&Value> =
        confirmed["diagnostics"].as_array().unwrap().iter().map(|d| &d["confirmedByBuild"]).collect();
    assert_eq!(marks, vec![&json!(false), &json!(false)], "{confirmed}");
}

/// The `rename` tool on fixtures/rename: the preview touches only `Order.Total` (five edits in
/// three files, complete), a keyword and a string are `no_symbol_at_position`, and
/// `apply: "editor"` in the bridge's own session (no editor) is refused with the reason and
/// writes nothing; the bare name `Total` (two records' fields) is answered `ambiguous` with both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rename_tool_previews_and_types_its_errors() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let (workspace_path, runtime_path) = (workspace.path().to_owned(), runtime.path().to_owned());
    let report =
        tokio::task::spawn_blocking(move || run_scenario("rename", &workspace_path, &runtime_path, &[])).await.unwrap();
    let preview = tool_body(&report, "preview");
    assert_eq!(preview["totalEdits"], json!(5), "{preview}");
    assert_eq!(preview["totalFiles"], json!(3), "{preview}");
    assert_eq!(preview["complete"], json!(true), "{preview}");
    assert!(!preview.to_string().contains("invoice.Amount"), "{preview}");
    for (key, reason) in [("keyword", "keyword"), ("string", "string")] {
        assert_eq!(report[key]["isError"], json!(true), "{}", report[key]);
        let error = &report[key]["body"]["error"];
        assert_eq!(error["errorKind"], json!("no_symbol_at_position"), "{error}");
        assert_eq!(error["data"]["reason"], json!(reason), "{error}");
    }
    let editor = tool_body(&report, "editor");
    assert_eq!(editor["applied"]["applied"], json!(false), "{editor}");
    assert!(editor["applied"]["failureReason"].as_str().unwrap().contains("applyEdit"), "{editor}");
    // A name two fields share: an answer (not a tool error) naming both, nothing applied.
    let ambiguous = tool_body(&report, "ambiguous");
    assert_eq!(
        (ambiguous["status"].clone(), ambiguous["applied"]["applied"].clone()),
        (json!("ambiguous"), json!(false)),
        "{ambiguous}"
    );
    assert_eq!(ambiguous["candidates"].as_array().map(Vec::len), Some(2), "{ambiguous}");
    assert!(!std::fs::read_to_string(workspace.path().join("Billing/Types.fs")).unwrap().contains("Amount"));
}

/// `navigate` `incomingCalls` and `outgoingCalls` on fixtures/rename, through the double's
/// compiler-computed call hierarchy: the caller of `Billing.Types.orderTotal` is `billed` in
/// the other project, `billed` calls `invoice`, `orderTotal` (declared in the `.fsi`) and `order`, one row per call
/// site with its file and line text, paged by `offset`; a keyword, a string and a position on
/// no symbol are `no_symbol_at_position` with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_answers_callers_and_callees_across_projects() {
    let report = scenario_on_fixture("calls", "rename").await;
    let incoming = tool_body(&report, "incoming");
    let callers: Vec<(Value, Value, Value)> = incoming["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("{incoming}"))
        .iter()
        .map(|call| (call["name"].clone(), call["file"].clone(), call["lineText"].clone()))
        .collect();
    assert_eq!(
        callers,
        [(json!("billed"), json!("Shop/Program.fs"), json!("let billed = invoice.Total + orderTotal order"))],
        "{incoming}"
    );
    assert_eq!(incoming["item"]["file"], json!("Billing/Types.fs"), "{incoming}");

    let outgoing = tool_body(&report, "outgoing");
    let callees: std::collections::BTreeSet<(String, String)> = outgoing["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("{outgoing}"))
        .iter()
        .map(|call| {
            (call["name"].as_str().unwrap().to_owned(), call["declaration"]["file"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected: std::collections::BTreeSet<(String, String)> = [
        ("invoice", "Shop/Program.fs"),
        ("order", "Shop/Program.fs"),
        // The compiler declares a value that has a signature in the signature file.
        ("orderTotal", "Billing/Types.fsi"),
    ]
    .into_iter()
    .map(|(name, file)| (name.to_owned(), file.to_owned()))
    .collect();
    assert_eq!(callees, expected, "{outgoing}");
    assert_eq!(outgoing["totalCalls"], json!(3), "{outgoing}");
    for call in outgoing["calls"].as_array().unwrap() {
        assert_eq!(call["file"], json!("Shop/Program.fs"), "call sites are in the caller: {call}");
    }
    let page = tool_body(&report, "page");
    assert_eq!((page["count"].clone(), page["nextOffset"].clone()), (json!(1), json!(2)), "{page}");

    for (key, reason) in [("keyword", "keyword"), ("string", "string"), ("nothing", "no_symbol")] {
        assert_eq!(report[key]["isError"], json!(true), "{}", report[key]);
        let error = &report[key]["body"]["error"];
        assert_eq!(error["errorKind"], json!("no_symbol_at_position"), "{error}");
        assert_eq!(error["data"]["reason"], json!(reason), "{error}");
    }
}

/// `navigate` `implementation` on fixtures/implementations, through the double's
/// compiler-confirmed implementations: `IShape.Area` is implemented by `Square` (same
/// project), `Circle` (the other project) and an object expression, and not by `Plate`, which
/// implements the same-named member of `IOther`; asked at a use the answer is the same; at the
/// interface's name it is where the interface is implemented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_finds_implementations_in_two_projects_and_an_object_expression() {
    let report = scenario_on_fixture("implementations", "implementations").await;
    let sites = |key: &str| -> std::collections::BTreeSet<(String, u64, String)> {
        let body = tool_body(&report, key);
        body["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{key}: {body}"))
            .iter()
            .map(|location| {
                (
                    location["file"].as_str().unwrap().to_owned(),
                    location["range"]["start"]["line"].as_u64().unwrap(),
                    location["lineText"].as_str().unwrap().trim().to_owned(),
                )
            })
            .collect()
    };
    let owned = |rows: &[(&str, u64, &str)]| -> std::collections::BTreeSet<(String, u64, String)> {
        rows.iter().map(|(file, line, text)| ((*file).to_owned(), *line, (*text).to_owned())).collect()
    };
    let members = owned(&[
        ("Shapes/Shapes.fs", 11, "member _.Area() = side * side"),
        ("Plugins/Plugins.fs", 6, "member this.Area() = 3.14 * radius * radius"),
        ("Plugins/Plugins.fs", 11, "member _.Area() = 1.0"),
    ]);
    assert_eq!(sites("member"), members);
    assert_eq!(sites("use"), members);
    // FSAC keeps a type's uses in a type (`IsFromType`) unless a typed binding starts there
    // (`IsTypeAnnotationGivenAtPosition` at the use): a parameter annotated with the interface
    // starts at the parameter, so `(shape: IShape)` is listed too.
    let types = owned(&[
        ("Shapes/Shapes.fs", 10, "interface IShape with"),
        ("Shapes/Shapes.fs", 18, "let areaOf (shape: IShape) = shape.Area()"),
        ("Plugins/Plugins.fs", 5, "interface IShape with"),
        ("Plugins/Plugins.fs", 10, "{ new IShape with"),
    ]);
    assert_eq!(sites("type"), types);
}

/// `navigate` `typeHierarchy`, computed by fslens: `IShape`'s subtypes are `Square`, `Circle`
/// (the other project) and an object expression, each confirmed by FSAC's definition, and not
/// `Plate`, which implements `IOther`; `Square`'s supertype is `IShape`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_type_hierarchy_has_subtypes_in_two_projects_and_supertypes() {
    let report = scenario_on_fixture("implementations", "implementations").await;
    let hierarchy = tool_body(&report, "hierarchy");
    let rows = |value: &Value| -> std::collections::BTreeSet<(String, u64, String)> {
        value
            .as_array()
            .unwrap_or_else(|| panic!("{value}"))
            .iter()
            .map(|row| {
                (
                    row["file"].as_str().unwrap().to_owned(),
                    row["range"]["start"]["line"].as_u64().unwrap(),
                    row["lineText"].as_str().unwrap().trim().to_owned(),
                )
            })
            .collect()
    };
    let expected: std::collections::BTreeSet<(String, u64, String)> = [
        ("Shapes/Shapes.fs", 10, "interface IShape with"),
        ("Plugins/Plugins.fs", 5, "interface IShape with"),
        ("Plugins/Plugins.fs", 10, "{ new IShape with"),
    ]
    .into_iter()
    .map(|(file, line, text)| (file.to_owned(), line, text.to_owned()))
    .collect();
    assert_eq!(rows(&hierarchy["subtypes"]), expected, "{hierarchy}");
    assert_eq!(hierarchy["type"]["name"], json!("IShape"), "{hierarchy}");
    assert_eq!(hierarchy["complete"], json!(false), "{hierarchy}");
    let square = tool_body(&report, "square");
    let supertypes = square["supertypes"].as_array().unwrap();
    assert_eq!(supertypes.len(), 1, "{square}");
    assert_eq!(supertypes[0]["declaration"]["file"], json!("Shapes/Shapes.fs"), "{square}");
    assert_eq!(supertypes[0]["declaration"]["range"]["start"]["line"], json!(2), "{square}");
    assert_eq!(square["subtypes"], json!([]), "{square}");
}

/// The assertions both `codeActions` runs share: FSAC's fix for the FS0027 at a position,
/// previewed from the disk; both fixes over a range of lines; none on a clean line; the typed
/// refusals of `actionIndex` and of a range end given to another operation.
fn assert_code_action_previews(report: &Value) {
    let position = tool_body(report, "position");
    assert_eq!(position["totalActions"], json!(1), "{position}");
    let action = &position["actions"][0];
    assert_eq!(
        (action["index"].clone(), action["title"].clone(), action["kind"].clone()),
        (json!(0), json!("Make declaration 'mutable'"), json!("refactor")),
        "{position}"
    );
    let edit = &action["preview"]["edits"][0];
    assert_eq!(edit["file"], json!("Mutation.fs"), "{position}");
    assert_eq!((edit["oldText"].clone(), edit["newText"].clone()), (json!(""), json!("mutable ")), "{position}");
    assert_eq!(edit["linesAfter"], json!(["    let mutable total = 0"]), "{position}");
    assert_eq!(position["diagnostics"][0]["code"], json!("FS0027"), "the diagnostic echoed to FSAC: {position}");
    assert_eq!(position["previewSource"], json!("disk"));
    assert_eq!(position["applied"], json!({"mode": "none", "applied": false}), "{position}");
    assert_eq!(position["writtenToDisk"], json!(false));

    let range = tool_body(report, "range");
    let titles: std::collections::BTreeSet<&str> =
        range["actions"].as_array().unwrap().iter().map(|action| action["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Make declaration 'mutable'", "Replace with 'length''"].into_iter().collect(), "{range}");
    let codes: Vec<&str> = range["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| diagnostic["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["FS0027", "FS0039"], "only the diagnostics of lines 3 to 6: {range}");

    let clean = tool_body(report, "clean");
    assert_eq!((clean["totalActions"].clone(), clean["diagnostics"].clone()), (json!(0), json!([])), "{clean}");

    for (key, argument) in
        [("indexWithoutApply", "actionIndex"), ("endOnOtherOperation", "endCharacter"), ("several", "actionIndex")]
    {
        assert_eq!(report[key]["isError"], json!(true), "{key}: {}", report[key]);
        let error = &report[key]["body"]["error"];
        assert_eq!(error["errorKind"], json!("invalid_argument"), "{key}: {error}");
        assert_eq!(error["data"]["argument"], json!(argument), "{key}: {error}");
    }
}

/// `navigate` `codeActions` joined to an editor that accepts `workspace/applyEdit`: the
/// previews, then `apply: "editor"` sends the chosen action's edit to the editor as one
/// applyEdit through the session, and nothing reaches the disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_code_actions_are_previewed_and_one_is_applied_through_the_editor() {
    let workspace = fixture_copy("code-actions");
    let runtime = tempfile::tempdir().unwrap();
    let capabilities = json!({"textDocument": {"publishDiagnostics": {}}, "workspace": {"applyEdit": true}});
    let mut editor =
        Editor::start_with_capabilities(workspace.path(), runtime.path(), &double_command(), &[], &[], capabilities)
            .await;
    editor.wait_until_ready().await;
    let file = workspace.path().join("Mutation.fs");
    let before = std::fs::read_to_string(&file).unwrap();
    let mut scenario = tokio::task::spawn_blocking({
        let (workspace, runtime) = (workspace.path().to_owned(), runtime.path().to_owned());
        move || run_scenario("code_actions", &workspace, &runtime, &[])
    });
    // The editor reads (and answers) what the session sends it while the agent works; a quiet
    // spell is given up before the editor's own one-minute read timeout, between frames.
    let report = loop {
        tokio::select! {
            finished = &mut scenario => break finished.unwrap(),
            _ = tokio::time::timeout(std::time::Duration::from_secs(45), editor.wait_for(|_| false)) => {}
        }
    };
    assert_code_action_previews(&report);
    let apply = tool_body(&report, "apply");
    assert_eq!(apply["applied"], json!({"mode": "editor", "actionIndex": 0, "applied": true}), "{apply}");
    let sent: Vec<&Value> =
        editor.notifications.iter().filter(|message| message["method"] == "workspace/applyEdit").collect();
    assert_eq!(sent.len(), 1, "one applyEdit: {sent:#?}");
    assert_eq!(sent[0]["params"]["label"], json!("Make declaration 'mutable'"), "{:#}", sent[0]);
    assert!(sent[0]["params"]["edit"].to_string().contains("\"newText\":\"mutable \""), "{:#}", sent[0]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "nothing was written to disk");
    editor.kill().await;
}

/// The same through a session the bridge starts itself, which has no editor: the previews
/// are the same, and `apply: "editor"` answers why nothing was applied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_code_actions_without_an_editor_say_why_nothing_was_applied() {
    let report = scenario_on_fixture("code_actions", "code-actions").await;
    assert_code_action_previews(&report);
    let apply = tool_body(&report, "apply");
    assert_eq!(
        (apply["applied"]["mode"].clone(), apply["applied"]["applied"].clone()),
        (json!("editor"), json!(false))
    );
    assert!(apply["applied"]["failureReason"].as_str().unwrap().contains("applyEdit"), "{apply}");
}

/// `codeActions` with `apply: "disk"`, as rename's disk mode: refused without the preview's
/// `fileHashes` and with stale ones (nothing written), then the one action written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_code_actions_write_to_disk_only_with_the_previews_hashes() {
    let report = scenario_on_fixture("code_actions_disk", "code-actions").await;
    let preview = tool_body(&report, "preview");
    let hashes = preview["fileHashes"].as_object().unwrap_or_else(|| panic!("{preview}"));
    assert_eq!(hashes.keys().collect::<Vec<_>>(), ["Mutation.fs"], "{preview}");
    assert_eq!(preview["writtenToDisk"], json!(false), "{preview}");
    let without = &report["withoutHashes"];
    assert_eq!(without["isError"], json!(true), "{without}");
    assert_eq!(without["body"]["error"]["data"]["argument"], json!("expectedHashes"), "{without}");
    let stale = &report["stale"];
    assert_eq!(stale["body"]["error"]["errorKind"], json!("rename_files_changed"), "{stale}");
    assert_eq!(stale["isError"], json!(true), "{stale}");
    let before = report["afterStale"].as_str().unwrap();
    assert!(!before.contains("let mutable"), "nothing was written on stale hashes: {before}");
    let disk = tool_body(&report, "disk");
    assert_eq!(disk["applied"], json!({"mode": "disk", "actionIndex": 0, "applied": true}), "{disk}");
    assert_eq!(disk["writtenToDisk"], json!(true), "{disk}");
    let after = report["afterDisk"].as_str().unwrap();
    assert!(after.contains("let mutable"), "FSAC's fix on disk: {after}");
    assert_eq!(after.len(), before.len() + "mutable ".len(), "only the fix changed: {after}");
}

/// tools/list, read by the official SDK client, carries the schemas generated from each
/// command's argument struct: types, enums, bounds, defaults and a description on every
/// argument of every command tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_carries_generated_schemas_with_types_enums_bounds_and_descriptions() {
    let report = scenario_on_fixture("schemas", "shipping").await;
    let tools = report["tools"].as_object().expect("the scenario lists tools");
    let mut problems = Vec::new();
    for command in fslens::commands::registry::Command::ALL {
        let name = command.tool_name();
        let Some(schema) = tools.get(name) else {
            problems.push(format!("{name}: not listed after activating every group"));
            continue;
        };
        if schema["type"] != json!("object") || schema["additionalProperties"] != json!(false) {
            problems.push(format!("{name}: not a closed object schema: {schema}"));
        }
        for (argument, property) in schema["properties"].as_object().into_iter().flatten() {
            let typed =
                property.get("type").is_some() || property.get("enum").is_some() || property.get("anyOf").is_some();
            let described = property["description"].as_str().is_some_and(|text| text.len() > 10);
            if !typed || !described {
                problems.push(format!("{name}.{argument}: typed {typed}, described {described}: {property}"));
            }
        }
    }
    assert!(problems.is_empty(), "schemas short of the contract:\n{}", problems.join("\n"));
    let property = |tool: &str, argument: &str| tools[tool]["properties"][argument].clone();
    assert_eq!(property("status", "waitUntil")["enum"], json!(["ready"]));
    assert_eq!(property("status", "timeoutMs")["maximum"], json!(3_600_000));
    let kind = property("find", "kind");
    assert!(kind["enum"].as_array().is_some_and(|kinds| kinds.contains(&json!("position"))), "{kind}");
    let page = property("find", "maxResults");
    assert_eq!(
        (page["minimum"].clone(), page["maximum"].clone(), page["default"].clone()),
        (json!(1), json!(1000), json!(80)),
        "{page}"
    );
    assert_eq!(property("find", "timeoutMs")["default"], json!(120_000));
    assert!(property("check", "scope")["enum"].as_array().is_some_and(|scopes| scopes.contains(&json!("snippet"))));
    assert!(property("check", "severity")["enum"].as_array().is_some_and(|floors| floors.contains(&json!("all"))));
    assert!(
        tools["rename"]["required"].as_array().is_some_and(|required| required.contains(&json!("newName"))),
        "{}",
        tools["rename"]
    );
    assert!(property("outline", "view")["enum"].as_array().is_some_and(|views| views.contains(&json!("publicApi"))));
    assert!(
        tools["nuget_members"]["required"].as_array().is_some_and(|required| required.contains(&json!("typeName")))
    );
    assert_eq!(tools["restart"]["properties"], json!({}));
}
