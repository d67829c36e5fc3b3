//! Records real fslens answers (the real binary in front of the FSAC double, driven as an
//! editor would over LSP) into vscode-extension/test/recorded/, where the VS Code extension's
//! unit tests (`node --test`) map them. Workspace paths become `/workspace` and timings,
//! pids and uptimes become 0 (the session socket a fixed path) so that a re-recording only changes what the contract changed.

use crate::support;
use fslens::commands::registry::Command;

use std::path::Path;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy, repository};

fn recorded_dir() -> std::path::PathBuf {
    let dir = repository().join("vscode-extension/test/recorded");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Numbers that differ run to run (times, process ids, sampled memory): recorded as 0, so
/// re-recording leaves the tracked files unchanged.
const VOLATILE: &[&str] = &[
    "elapsedMs",
    "uptimeMs",
    "waitedMs",
    "pid",
    "silentForMs",
    "roundTripMs",
    "rssBytes",
    "rssPeakBytes",
    "rssSampledAgoMs",
    "durationMs",
];

fn normalize(value: &mut Value, workspace: &Path) {
    let mut roots = vec![workspace.display().to_string()];
    if let Ok(canonical) = std::fs::canonicalize(workspace) {
        roots.push(canonical.display().to_string());
    }
    let double = repository().join("tests/fsac-double-dotnet");
    normalize_with(value, &roots, &double.display().to_string());
}

fn normalize_with(value: &mut Value, roots: &[String], double: &str) {
    match value {
        Value::String(text) => {
            for root in roots {
                *text = text.replace(root.as_str(), "/workspace");
            }
            *text = text.replace(double, "/fslens/tests/fsac-double-dotnet");
        }
        Value::Array(items) => items.iter_mut().for_each(|item| normalize_with(item, roots, double)),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut item) in entries {
                if VOLATILE.contains(&key.as_str()) && item.is_number() {
                    item = json!(0);
                } else if key == "timingsMs" && item.is_object() {
                    // Phase timings vary per run; keep the phases, not the milliseconds.
                    if let Value::Object(phases) = &mut item {
                        phases.values_mut().for_each(|milliseconds| *milliseconds = json!(0));
                    }
                } else if key == "socket" && item.is_string() {
                    item = json!("/run/user/fslens/session.sock");
                } else {
                    normalize_with(&mut item, roots, double);
                }
                let mut key = Value::String(key);
                normalize_with(&mut key, roots, double);
                map.insert(key.as_str().unwrap().to_owned(), item);
            }
        }
        _ => {}
    }
}

fn record(name: &str, mut value: Value, workspace: &Path) {
    normalize(&mut value, workspace);
    let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
    std::fs::write(recorded_dir().join(format!("{name}.json")), text).unwrap();
}

/// The answer's result, or its JSON-RPC error (`{"error": …}`) as recorded.
fn answer(response: &Value) -> Value {
    match response.get("result") {
        Some(result) => result.clone(),
        None => json!({ "error": response["error"] }),
    }
}

#[tokio::test]
async fn record_answers_from_an_editor_session_on_shipping() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;

    let status = editor.wait_until_ready().await;
    record("status-ready", answer(&status), root);

    let clean = editor.execute(Command::Check, json!({"scope": "workspace"})).await;
    assert_eq!(clean["result"]["verdict"], "clean", "{clean}");
    record("check-workspace-clean", answer(&clean), root);

    // An unsaved type error in an open buffer.
    let program = root.join("src/Shipping.App/Program.fs");
    let uri = editor.open(&program, 1).await;
    let original = std::fs::read_to_string(&program).unwrap();
    let broken = original.replace("create \"Books\" 12.5 \"Lyon\"", "create \"Books\" \"heavy\" \"Lyon\"");
    editor.change(&uri, 2, &broken).await;
    let errors = editor.execute(Command::Check, json!({"path": program.display().to_string()})).await;
    assert_eq!(errors["result"]["verdict"], "errors", "{errors}");
    record("check-file-errors", answer(&errors), root);

    let visibility = "src/Shipping.Domain/Visibility.fs";
    let ok =
        editor.execute(Command::MakeInternalVisible, json!({"path": visibility, "line": 16, "word": "Hidden"})).await;
    assert_eq!(ok["result"]["status"], "ok", "{ok}");
    record("make-visible-ok", answer(&ok), root);

    let exposed = editor
        .execute(
            Command::MakeInternalVisible,
            json!({"path": visibility, "line": 25, "word": "Check", "exposeTo": "Shipping.Tests"}),
        )
        .await;
    assert_eq!(exposed["result"]["status"], "ok", "{exposed}");
    record("make-visible-expose", answer(&exposed), root);

    let comment =
        editor.execute(Command::MakeInternalVisible, json!({"path": visibility, "line": 3, "character": 10})).await;
    assert_eq!(comment["result"]["status"], "no_action", "{comment}");
    record("make-visible-no-action", answer(&comment), root);

    let invalid = editor.execute(Command::MakeInternalVisible, json!({"path": visibility})).await;
    assert!(invalid.get("error").is_some(), "{invalid}");
    record("make-visible-invalid-argument", answer(&invalid), root);

    let find = editor.execute(Command::Find, json!({"query": "Shipment.Weight"})).await;
    assert!(find.get("result").is_some(), "{find}");
    record("find-query", answer(&find), root);
    let position = editor
        .execute(
            Command::Find,
            json!({"kind": "position", "path": "src/Shipping.App/Program.fs", "line": 22, "word": "Weight"}),
        )
        .await;
    record("find-position", answer(&position), root);
    let paged = editor.execute(Command::Find, json!({"query": "Shipment.Weight", "maxResults": 3})).await;
    record("find-paged", answer(&paged), root);
    let impact = editor.execute(Command::FieldImpact, json!({"query": "Shipment.Weight"})).await;
    assert!(impact.get("result").is_some(), "{impact}");
    record("field-impact", answer(&impact), root);

    let notifications: Vec<Value> =
        editor.notifications.iter().filter(|message| message["method"] == "fslens/status").cloned().collect();
    assert!(!notifications.is_empty());
    // The notification that says ready carries the loaded projects (the extension caches them
    // for Make Internal Visible's InternalsVisibleTo choices).
    let ready =
        notifications.iter().rev().find(|message| message["params"]["state"] == "ready").expect("a ready status");
    assert_eq!(ready["params"]["projectsLoaded"].as_array().map(Vec::len), Some(3), "{ready}");
    record("status-notifications", Value::Array(notifications), root);
    editor.stop().await;
}

#[tokio::test]
async fn record_check_of_a_workspace_with_errors_and_warnings() {
    let workspace = fixture_copy("broken");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    let check = editor.execute(Command::Check, json!({"severity": "all"})).await;
    assert_eq!(check["result"]["verdict"], "errors", "{check}");
    record("check-workspace-errors", answer(&check), root);
    editor.stop().await;
}

/// `fslens status --json` without an FSAC (syntax only) and with one that cannot start, and
/// `fslens check --json` without an FSAC (unknown, and why).
#[test]
fn record_status_without_fsac_and_crashed() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let run = |subcommand: &str, extra: &[&str], path: &Path| -> Value {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args([subcommand, "--json", "--timeout-ms", "5000", "--workspace"])
            .arg(workspace.path())
            .args(extra)
            .env_remove("FSLENS_FSAC")
            .env("PATH", path)
            .env("XDG_RUNTIME_DIR", runtime.path())
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&output.stderr)))
    };
    let absent = run("status", &[], empty.path());
    assert_eq!(absent["state"], "absent", "{absent}");
    record("status-absent", absent, workspace.path());
    let unknown = run("check", &[], empty.path());
    assert_eq!(unknown["verdict"], "unknown", "{unknown}");
    record("check-unknown-without-fsac", unknown, workspace.path());
    let crashed = run("status", &["--fsac", "/bin/false"], Path::new("/usr/bin:/bin"));
    assert_eq!(crashed["state"], "crashed", "{crashed}");
    record("status-crashed", crashed, workspace.path());
}

/// `fslens.typeHierarchy` on fixtures/implementations: an interface with subtypes in two
/// projects and an object expression, and a class whose one supertype has a declaration.
#[tokio::test]
async fn record_type_hierarchy_on_implementations() {
    let workspace = fixture_copy("implementations");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let interface =
        editor.execute(Command::TypeHierarchy, json!({"path": "Shapes/Shapes.fs", "line": 2, "word": "IShape"})).await;
    assert_eq!(interface["result"]["subtypes"].as_array().map(Vec::len), Some(3), "{interface}");
    record("type-hierarchy-interface", answer(&interface), root);
    let square =
        editor.execute(Command::TypeHierarchy, json!({"path": "Shapes/Shapes.fs", "line": 9, "word": "Square"})).await;
    assert_eq!(square["result"]["supertypes"].as_array().map(Vec::len), Some(1), "{square}");
    record("type-hierarchy-class", answer(&square), root);
    editor.stop().await;
}

/// `fslens.rename` previews on fixtures/rename: a complete one, and one whose backend skips
/// signature files (`FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES`), so the `.fsi` `val` is a
/// missed site and the preview is not complete.
#[tokio::test]
async fn record_rename_previews_complete_and_incomplete() {
    let workspace = fixture_copy("rename");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let complete = editor
        .execute(Command::Rename, json!({"path": "Billing/Types.fs", "line": 2, "word": "Total", "newName": "Amount"}))
        .await;
    assert_eq!(complete["result"]["complete"], json!(true), "{complete}");
    record("rename-complete", answer(&complete), root);
    editor.stop().await;

    let runtime = tempfile::tempdir().unwrap();
    let mut editor =
        Editor::start(root, runtime.path(), &double_command(), &[("FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES", "1")])
            .await;
    editor.wait_until_ready().await;
    let incomplete = editor
        .execute(
            Command::Rename,
            json!({"path": "Shop/Program.fs", "line": 7, "word": "orderTotal", "newName": "totalOf"}),
        )
        .await;
    assert_eq!(incomplete["result"]["complete"], json!(false), "{incomplete}");
    assert!(!incomplete["result"]["missedSites"].as_array().map(Vec::is_empty).unwrap_or(true), "{incomplete}");
    record("rename-incomplete", answer(&incomplete), root);
    editor.stop().await;
}

/// `fslens.testsForSymbol` of `needle` on fixtures/editors (built with the real `dotnet build`:
/// FSAC builds nothing) and `fslens.runTests` of its tests, one of which fails at its frame.
#[tokio::test]
async fn record_tests_for_symbol_and_run_tests_on_editors() {
    let workspace = fixture_copy("editors");
    let root = workspace.path();
    let build = std::process::Command::new("dotnet")
        .args(["build", "--nologo", "-v", "quiet", "tests/Gauges.Xunit/Gauges.Xunit.fsproj"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(build.status.success(), "dotnet build: {}", String::from_utf8_lossy(&build.stdout));
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let found = editor
        .execute(Command::TestsForSymbol, json!({"path": "src/Gauges/Dial.fs", "line": 2, "word": "needle"}))
        .await;
    assert_eq!(found["result"]["totalTests"], json!(2), "{found}");
    record("tests-for-symbol", answer(&found), root);
    let run = editor.execute(Command::RunTests, found["result"]["runTestsArguments"].clone()).await;
    assert_eq!(run["result"]["totals"]["failed"], json!(1), "{run}");
    record("run-tests-failure", answer(&run), root);
    editor.stop().await;
}

fn git(root: &Path, arguments: &[&str]) {
    let output = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(arguments)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {arguments:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// `fslens.affectedTests` on fixtures/tested-reach (restored, a git repository of one commit):
/// with `run: true` after `Ledger.total` lost its `List.distinct` on disk (the xUnit fact
/// calling it fails at its frame; the Expecto case is not run), and of an unsaved buffer
/// (`Report.summary`'s text changed in the editor only).
#[tokio::test]
async fn record_affected_tests_on_tested_reach() {
    let workspace = fixture_copy("tested-reach");
    let root = workspace.path().canonicalize().unwrap();
    support::dotnet::restore(&root.join("Calc.sln"));
    std::fs::write(root.join(".gitignore"), "bin/\nobj/\n").unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "the fixture"]);
    let ledger = root.join("src/Calc/Ledger.fs");
    let text = std::fs::read_to_string(&ledger).unwrap();
    std::fs::write(&ledger, text.replacen(" |> List.distinct", "", 1)).unwrap();
    let build = std::process::Command::new("dotnet")
        .args(["build", "--nologo", "-v", "quiet", "tests/Calc.Xunit/Calc.Xunit.fsproj"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(build.status.success(), "dotnet build: {}", String::from_utf8_lossy(&build.stdout));
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(&root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let run = editor.execute(Command::AffectedTests, json!({"since": "HEAD", "run": true})).await;
    assert_eq!(run["result"]["run"]["totals"]["failed"], json!(1), "{run}");
    record("affected-tests-run", answer(&run), workspace.path());

    let report = root.join("src/Calc/Report.fs");
    let uri = editor.open(&report, 1).await;
    let text = std::fs::read_to_string(&report).unwrap();
    editor.change(&uri, 2, &text.replace("%d distinct", "%d different")).await;
    let unsaved = editor.execute(Command::AffectedTests, json!({})).await;
    assert_eq!(unsaved["result"]["source"], json!({"kind": "buffers"}), "{unsaved}");
    record("affected-tests-buffers", answer(&unsaved), workspace.path());
    editor.stop().await;
}
