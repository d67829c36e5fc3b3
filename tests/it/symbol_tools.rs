//! `fslens.symbolSearch`, `fslens.readSymbol` and `fslens.readEnclosing` end to end: through
//! `workspace/executeCommand` on the in-memory proxy (no FSAC: these are syntax-layer tools,
//! with an editor's unsaved buffer), and through the real binary's CLI subcommands, including
//! the `available: false` answer while the first index build runs (held by the
//! `FSLENS_TEST_INDEX_GATE` hook, so no timing luck is involved).
//!
//! Fixture: fixtures/symbol-search (a project declaring `Shipment`, a file using it more often,
//! a test project, a generated file, a vendored copy and a script).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use support::double::fixture_copy;
use support::{Harness, HarnessOptions};

async fn session(root: &Path) -> Harness {
    let mut harness = Harness::start_with(HarnessOptions {
        with_backend: false,
        workspace_root: Some(root.to_owned()),
        ..HarnessOptions::default()
    });
    harness.initialize(None).await;
    harness
}

fn result(answer: &Value) -> &Value {
    assert!(answer["error"].is_null(), "unexpected error: {answer}");
    &answer["result"]
}

fn error_of(answer: &Value) -> (&str, &str) {
    let data = &answer["error"]["data"];
    (data["errorKind"].as_str().unwrap_or_default(), data["argument"].as_str().or(data["path"].as_str()).unwrap_or(""))
}

fn paths(answer: &Value) -> Vec<String> {
    answer["results"].as_array().unwrap().iter().map(|row| row["path"].as_str().unwrap().to_owned()).collect()
}

fn row<'a>(answer: &'a Value, path: &str) -> &'a Value {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["path"] == path)
        .unwrap_or_else(|| panic!("{path} missing: {answer}"))
}

/// Opens `src/Shipping/Pricing.fs` in the editor with `tail` added to its disk text (unsaved);
/// returns its path, URI and the buffer's text.
async fn open_pricing_with_tail(harness: &mut Harness, workspace: &Path, tail: &str) -> (PathBuf, String, String) {
    let path = workspace.join("src/Shipping/Pricing.fs");
    let uri = fslens::uri::path_to_uri(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap() + tail;
    harness.open_document(&uri, &text).await;
    (path, uri, text)
}

#[tokio::test]
async fn symbol_search_ranks_declaring_files_first_and_demotes_tests_generated_and_vendored_code() {
    let workspace = fixture_copy("symbol-search");
    let mut harness = session(workspace.path()).await;
    let answer = harness.execute("fslens.symbolSearch", json!({"query": "Shipment", "waitForIndexMs": 60000})).await;
    let answer = result(&answer);
    assert_eq!((answer["via"].as_str(), answer["available"].as_bool()), (Some("syntax"), Some(true)), "{answer}");
    assert_eq!(answer["index"]["filesIndexed"], json!(6), "{answer}");
    assert!(answer["index"]["generation"].as_u64().unwrap() > 0);
    let order = paths(answer);
    // The declaring file first, although Pricing.fs uses the name more often.
    assert_eq!(order[0], "src/Shipping/Domain.fs", "{order:?}");
    let pricing = row(answer, "src/Shipping/Pricing.fs");
    let domain = row(answer, "src/Shipping/Domain.fs");
    assert!(pricing["terms"][0]["count"].as_u64() > domain["terms"][0]["count"].as_u64(), "{answer}");
    // Every demoted file (test, generated, vendored) ranks below the plain user of the name.
    let position = |path: &str| order.iter().position(|known| known == path).unwrap();
    for (path, prior) in [
        ("tests/Shipping.Tests/ShipmentTests.fs", "test"),
        ("src/Shipping/Parser.g.fs", "generated"),
        ("paket-files/acme/lib/Shipment.fs", "vendored"),
    ] {
        assert_eq!(row(answer, path)["priors"], json!([prior]), "{path}");
        assert!(position(path) > position("src/Shipping/Pricing.fs"), "{path} in {order:?}");
    }
    // Declaring symbols, best lines (declaration first, with text) and projects.
    let declared: Vec<(&str, &str)> = domain["declares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|symbol| (symbol["fullName"].as_str().unwrap(), symbol["kind"].as_str().unwrap()))
        .collect();
    assert!(declared.contains(&("Shipping.Domain.Shipment", "record")), "{declared:?}");
    assert_eq!(domain["lines"][0]["declaration"], json!(true));
    assert!(domain["lines"][0]["text"].as_str().unwrap().contains("type Shipment"), "{domain}");
    assert_eq!(domain["projects"], json!(["Shipping"]));
    assert_eq!(row(answer, "scripts/explore.fsx")["projects"], json!([]));
    // The same query twice: the same order (stable ties).
    let again = harness.execute("fslens.symbolSearch", json!({"query": "Shipment"})).await;
    assert_eq!(paths(result(&again)), order);
    harness.finish(None).await;
}

#[tokio::test]
async fn pages_concatenate_to_the_whole_answer_and_bad_input_is_a_typed_error() {
    let workspace = fixture_copy("symbol-search");
    let mut harness = session(workspace.path()).await;
    let whole =
        harness.execute("fslens.symbolSearch", json!({"query": "Shipment weigh", "waitForIndexMs": 60000})).await;
    let whole = paths(result(&whole));
    let mut paged = Vec::new();
    let mut cursor = Value::Null;
    for _ in 0..10 {
        let page = harness
            .execute("fslens.symbolSearch", json!({"query": "Shipment weigh", "maxResults": 2, "cursor": cursor}))
            .await;
        let page = result(&page).clone();
        assert!(page["returned"].as_u64().unwrap() <= 2);
        paged.extend(paths(&page));
        cursor = page["nextCursor"].clone();
        assert_eq!(page["truncated"], json!(!cursor.is_null()));
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(paged, whole);

    let cases = [
        ("fslens.symbolSearch", json!({}), ("invalid_argument", "query")),
        ("fslens.symbolSearch", json!({"query": " . "}), ("invalid_argument", "query")),
        ("fslens.symbolSearch", json!({"query": "Shipment", "cursor": "o1.0000"}), ("invalid_argument", "cursor")),
        ("fslens.symbolSearch", json!({"query": "Shipment", "maxResults": 0}), ("invalid_argument", "maxResults")),
        ("fslens.symbolSearch", json!({"query": "Shipment", "frobnicate": 1}), ("invalid_argument", "frobnicate")),
        ("fslens.readSymbol", json!({}), ("invalid_argument", "name")),
        ("fslens.readSymbol", json!({"name": "Shipment", "kinds": ["gizmo"]}), ("invalid_argument", "kinds")),
        (
            "fslens.readSymbol",
            json!({"name": "Shipment", "path": "../elsewhere/A.fs"}),
            ("invalid_path", "../elsewhere/A.fs"),
        ),
        ("fslens.readEnclosing", json!({"path": "src/Shipping/Domain.fs"}), ("invalid_argument", "line")),
        ("fslens.readEnclosing", json!({"path": "/etc/passwd", "line": 1}), ("invalid_path", "/etc/passwd")),
        ("fslens.readEnclosing", json!({"path": "src/Nope.fs", "line": 1}), ("invalid_path", "src/Nope.fs")),
        (
            "fslens.readSymbol",
            json!({"name": "x", "path": "src/Shipping/Shipping.fsproj"}),
            ("invalid_path", "src/Shipping/Shipping.fsproj"),
        ),
        ("fslens.readEnclosing", json!({"path": "src/Shipping/Domain.fs", "line": 9999}), ("invalid_argument", "line")),
        (
            "fslens.readEnclosing",
            json!({"path": "src/Shipping/Domain.fs", "line": 1, "onOversize": "shrink"}),
            ("invalid_argument", "onOversize"),
        ),
    ];
    for (command, argument, expected) in cases {
        let answer = harness.execute(command, argument.clone()).await;
        assert_eq!(error_of(&answer), expected, "{command} {argument}: {answer}");
    }
    harness.finish(None).await;
}

#[tokio::test]
async fn read_symbol_lists_every_candidate_and_reads_the_chosen_one() {
    let workspace = fixture_copy("symbol-search");
    let mut harness = session(workspace.path()).await;
    let ambiguous = harness.execute("fslens.readSymbol", json!({"name": "Shipment", "waitForIndexMs": 60000})).await;
    let ambiguous = result(&ambiguous);
    assert_eq!(ambiguous["status"], json!("ambiguous"), "{ambiguous}");
    let candidates: Vec<(String, String)> = ambiguous["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|candidate| {
            (candidate["path"].as_str().unwrap().to_owned(), candidate["kind"].as_str().unwrap().to_owned())
        })
        .collect();
    for expected in [
        ("src/Shipping/Domain.fs", "record"),
        ("src/Shipping/Domain.fs", "module"),
        ("paket-files/acme/lib/Shipment.fs", "record"),
    ] {
        assert!(candidates.contains(&(expected.0.to_owned(), expected.1.to_owned())), "{expected:?} in {candidates:?}");
    }
    // The candidate's own `select` arguments read it.
    let record = ambiguous["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|candidate| candidate["path"] == "src/Shipping/Domain.fs" && candidate["kind"] == "record");
    let chosen = harness.execute("fslens.readSymbol", record.unwrap()["select"].clone()).await;
    let chosen = result(&chosen);
    assert_eq!(chosen["status"], json!("ok"), "{chosen}");
    let source = chosen["source"].as_str().unwrap();
    assert!(source.starts_with("type Shipment =") && source.contains("Destination: string }"), "{source}");
    assert!(!source.contains("module Shipment"), "only the record: {source}");
    assert_eq!(chosen["leading"], json!("/// A parcel on its way.\n"), "the doc comment above it: {chosen}");

    // A qualified name picks one of the two `weigh`s; its chain names the module.
    let weigh = harness.execute("fslens.readSymbol", json!({"name": "Shipment.weigh"})).await;
    let weigh = result(&weigh);
    assert_eq!(weigh["status"], json!("ok"), "{weigh}");
    assert!(weigh["source"].as_str().unwrap().contains("shipment.WeightKg"), "{weigh}");
    assert_eq!(weigh["symbol"]["fullName"], json!("Shipping.Domain.Shipment.weigh"));
    assert_eq!(weigh["chain"].as_array().unwrap().len(), 3, "{weigh}");

    // maxLines cuts the body and says so.
    let cut = harness.execute("fslens.readSymbol", json!({"name": "describe", "maxLines": 3})).await;
    let cut = result(&cut);
    assert_eq!((cut["truncated"].as_bool(), cut["source"].as_str().unwrap().lines().count()), (Some(true), 3), "{cut}");
    assert!(cut["linesOmitted"].as_u64().unwrap() > 0);

    let missing = harness.execute("fslens.readSymbol", json!({"name": "NoSuchThing"})).await;
    assert_eq!(result(&missing)["status"], json!("not_found"));
    // No file's bytes hold the name, so none can declare it: the absence is certain, and the
    // answer says over how many files (none needed reading).
    assert_eq!(result(&missing)["certain"], json!(true), "{missing}");
    assert_eq!(result(&missing)["filesNotCleanlyParsed"], json!(0));
    assert_eq!(result(&missing)["filesSearched"], json!(0), "{missing}");
    harness.finish(None).await;
}

#[tokio::test]
async fn not_found_is_uncertain_when_a_file_did_not_parse_cleanly() {
    let workspace = fixture_copy("symbol-search");
    let mut harness = session(workspace.path()).await;
    // An unsaved buffer whose tail the parser cannot read: a declaration could hide there.
    let tail = "\ntype Broken = {{ (( \nlet Hidden = 1\nlet shown = (( Concealed\n";
    open_pricing_with_tail(&mut harness, workspace.path(), tail).await;
    // A declaration's line in that region is read from the line: found, and uncertain.
    let hidden = harness.execute("fslens.readSymbol", json!({"name": "Hidden", "waitForIndexMs": 60000})).await;
    let hidden = result(&hidden);
    assert_eq!(
        (hidden["status"].as_str(), hidden["symbol"]["certain"].as_bool()),
        (Some("ok"), Some(false)),
        "{hidden}"
    );
    assert_eq!(hidden["source"], json!("let Hidden = 1\n"), "{hidden}");
    // `Concealed` is written only in the region the parser cannot read, in no declaration's
    // line: it may be declared there, so its absence is not certain.
    let missing = harness.execute("fslens.readSymbol", json!({"name": "Concealed", "waitForIndexMs": 60000})).await;
    let missing = result(&missing);
    assert_eq!(missing["status"], json!("not_found"), "{missing}");
    assert_eq!(missing["certain"], json!(false), "{missing}");
    assert_eq!(
        (missing["filesSearched"].clone(), missing["filesNotCleanlyParsed"].clone()),
        (json!(1), json!(1)),
        "{missing}"
    );
    assert!(missing["message"].as_str().unwrap().contains("src/Shipping/Pricing.fs"), "{missing}");
    assert_eq!(missing["index"]["filesDegraded"], json!(1), "{missing}");
    // A name no file's bytes hold cannot hide in that region: its absence is certain.
    let absent = harness.execute("fslens.readSymbol", json!({"name": "NoSuchThing"})).await;
    assert_eq!((result(&absent)["certain"].clone(), result(&absent)["filesSearched"].clone()), (json!(true), json!(0)));
    // Asked about that one file, the same holds.
    let in_file =
        harness.execute("fslens.readSymbol", json!({"name": "Concealed", "path": "src/Shipping/Pricing.fs"})).await;
    let in_file = result(&in_file);
    assert_eq!((in_file["certain"].as_bool(), in_file["filesSearched"].as_u64()), (Some(false), Some(1)), "{in_file}");
    harness.finish(None).await;
}

#[tokio::test]
async fn read_enclosing_returns_the_smallest_declaration_or_what_on_oversize_asks() {
    let workspace = fixture_copy("symbol-search");
    let mut harness = session(workspace.path()).await;
    let pricing = std::fs::read_to_string(workspace.path().join("src/Shipping/Pricing.fs")).unwrap();
    let line = pricing.lines().position(|line| line.contains("shipment.Destination")).unwrap() as u64;
    let whole = harness.execute("fslens.readEnclosing", json!({"path": "src/Shipping/Pricing.fs", "line": line})).await;
    let whole = result(&whole);
    assert_eq!((whole["status"].as_str(), whole["symbol"]["name"].as_str()), (Some("ok"), Some("describe")), "{whole}");
    assert!(whole["source"].as_str().unwrap().starts_with("let describe"));
    let chain: Vec<&str> =
        whole["chain"].as_array().unwrap().iter().map(|link| link["name"].as_str().unwrap()).collect();
    assert_eq!(chain, ["Shipping.Pricing", "describe"]);
    let body_lines = whole["symbol"]["lines"].as_u64().unwrap();

    let refused = harness
        .execute("fslens.readEnclosing", json!({"path": "src/Shipping/Pricing.fs", "line": line, "maxLines": 4}))
        .await;
    let refused = result(&refused);
    assert_eq!(refused["status"], json!("oversize"));
    assert!(refused["source"].is_null() && refused["oversize"]["lines"] == json!(body_lines), "{refused}");

    let slice = harness
        .execute(
            "fslens.readEnclosing",
            json!({"path": "src/Shipping/Pricing.fs", "line": line, "maxLines": 4, "onOversize": "slice", "aroundLine": 3}),
        )
        .await;
    let slice = result(&slice);
    assert_eq!(slice["status"], json!("slice"), "{slice}");
    let sliced = slice["source"].as_str().unwrap();
    assert_eq!(sliced.lines().count(), 3);
    assert!(sliced.contains("shipment.Destination"), "the window holds the line: {sliced}");

    let domain = std::fs::read_to_string(workspace.path().join("src/Shipping/Domain.fs")).unwrap();
    let inside_carrier = domain.lines().position(|line| line.contains("| Road -> 1.0")).unwrap() as u64;
    let outline = harness
        .execute(
            "fslens.readEnclosing",
            json!({"path": "src/Shipping/Domain.fs", "line": inside_carrier, "kinds": ["module"], "maxLines": 2, "onOversize": "outline"}),
        )
        .await;
    let outline = result(&outline);
    assert_eq!(
        (outline["status"].as_str(), outline["symbol"]["fullName"].as_str()),
        (Some("outline"), Some("Shipping.Domain.Carrier"))
    );
    let nested = &outline["nested"][0];
    assert_eq!((nested["name"].as_str(), nested["kind"].as_str()), (Some("weigh"), Some("let")), "{outline}");
    // The nested entry's `read`, passed back as it is, answers with that declaration.
    let read = harness.execute("fslens.readEnclosing", nested["read"].clone()).await;
    assert_eq!(result(&read)["symbol"]["fullName"], json!("Shipping.Domain.Carrier.weigh"));

    let outside = harness
        .execute("fslens.readEnclosing", json!({"path": "src/Shipping/Domain.fs", "line": 0, "kinds": ["let"]}))
        .await;
    assert_eq!(result(&outside)["status"], json!("no_enclosing_declaration"));
    harness.finish(None).await;
}

#[tokio::test]
async fn the_editors_unsaved_buffer_is_searched_and_read() {
    let workspace = fixture_copy("symbol-search");
    let mut harness = session(workspace.path()).await;
    let (path, uri, text) = open_pricing_with_tail(
        &mut harness,
        workspace.path(),
        "\ntype Consignment =\n    { Parcels: Shipment list }\n",
    )
    .await;
    let search = harness.execute("fslens.symbolSearch", json!({"query": "Consignment", "waitForIndexMs": 60000})).await;
    let search = result(&search);
    assert_eq!(paths(search), ["src/Shipping/Pricing.fs"], "{search}");
    assert_eq!(search["results"][0]["fromEditorBuffer"], json!(true));
    let read = harness.execute("fslens.readSymbol", json!({"name": "Consignment"})).await;
    let read = result(&read);
    assert_eq!((read["status"].as_str(), read["fromEditorBuffer"].as_bool()), (Some("ok"), Some(true)), "{read}");
    assert!(read["source"].as_str().unwrap().contains("Parcels: Shipment list"));
    // On the field's line the smallest enclosing declaration is the field, inside the record.
    let last_line = text.lines().count() as u64 - 1;
    let enclosing =
        harness.execute("fslens.readEnclosing", json!({"path": "src/Shipping/Pricing.fs", "line": last_line})).await;
    let enclosing = result(&enclosing);
    assert_eq!(enclosing["symbol"]["fullName"], json!("Shipping.Pricing.Consignment.Parcels"), "{enclosing}");
    assert_eq!(enclosing["chain"][1]["name"], json!("Consignment"));
    assert!(!std::fs::read_to_string(&path).unwrap().contains("Consignment"), "nothing is written to disk");
    // Closed without saving: the disk text counts again.
    harness.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}})).await;
    let after = harness.execute("fslens.symbolSearch", json!({"query": "Consignment"})).await;
    assert_eq!(result(&after)["totalFiles"], json!(0), "{after}");
    harness.finish(None).await;
}

// ---- the CLI ------------------------------------------------------------------------------

fn cli(workspace: &Path, arguments: &[&str], environment: &[(&str, &str)]) -> (i32, String, String) {
    let runtime = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_fslens"));
    command
        .args(arguments)
        .arg("--workspace")
        .arg(workspace)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env_remove("FSLENS_FSAC");
    for (name, value) in environment {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn cli_symbol_search_prints_the_ranking_as_text_and_json() {
    let workspace = fixture_copy("symbol-search");
    let (code, text, stderr) = cli(workspace.path(), &["symbol-search", "Shipment"], &[]);
    assert_eq!(code, 0, "{stderr}");
    let first_file = text.lines().nth(1).unwrap_or_default();
    assert!(first_file.contains("src/Shipping/Domain.fs"), "{text}");
    assert!(text.contains("(test)") && text.contains("(generated)") && text.contains("(vendored)"), "{text}");
    let (code, json_text, stderr) =
        cli(workspace.path(), &["symbol-search", "Shipment weigh", "--max-results", "2", "--json"], &[]);
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!((answer["returned"].as_u64(), answer["truncated"].as_bool()), (Some(2), Some(true)), "{answer}");
    assert!(answer["nextCursor"].is_string());
}

#[test]
fn cli_symbol_search_says_unavailable_while_the_first_build_runs() {
    let workspace = fixture_copy("symbol-search");
    let gate = tempfile::tempdir().unwrap();
    let gate_file = gate.path().join("never-created");
    let gate_text = gate_file.to_str().unwrap();
    let environment = [("FSLENS_TEST_INDEX_GATE", gate_text)];
    let (code, text, stderr) =
        cli(workspace.path(), &["symbol-search", "Shipment", "--wait-ms", "0", "--json"], &environment);
    assert_eq!(code, 2, "{text}{stderr}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["available"], json!(false), "{answer}");
    assert_eq!((answer["via"].as_str(), answer["completeness"].as_str()), (Some("syntax"), Some("none")), "{answer}");
    assert!(answer["retryAfterMs"].as_u64().unwrap() > 0);
    assert!(answer["results"].is_null(), "no empty result list that reads as 'nothing found': {answer}");
    assert_eq!(answer["index"]["state"], json!("building"));
    // readSymbol by name does not need that index: it reads the files whose bytes hold the
    // name (both `weigh`s, so it is ambiguous, exit 2, and says so); with a path, only the file.
    let (code, text, _) = cli(workspace.path(), &["read-symbol", "weigh", "--wait-ms", "0", "--json"], &environment);
    let read: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (code, read["available"].clone(), read["status"].clone()),
        (2, json!(true), json!("ambiguous")),
        "{read}"
    );
    let names: Vec<&str> =
        read["candidates"].as_array().unwrap().iter().filter_map(|one| one["fullName"].as_str()).collect();
    assert_eq!(names, ["Shipping.Domain.Shipment.weigh", "Shipping.Domain.Carrier.weigh"], "{read}");
    let (code, text, _) = cli(workspace.path(), &["read-symbol", "Zzz", "--wait-ms", "0", "--json"], &environment);
    let missing: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((code, missing["status"].clone(), missing["certain"].clone()), (2, json!("not_found"), json!(true)));
    assert_eq!(missing["filesSearched"], json!(0), "no file holds the name: {missing}");
    let (code, text, stderr) =
        cli(workspace.path(), &["read-symbol", "create", "--path", "src/Shipping/Domain.fs"], &environment);
    assert_eq!(code, 0, "{text}{stderr}");
    assert!(text.contains("let create id weight destination"), "{text}");
}

#[test]
fn cli_read_symbol_and_read_enclosing() {
    let workspace = fixture_copy("symbol-search");
    let (code, text, stderr) = cli(
        workspace.path(),
        &["read-symbol", "Shipment", "--kinds", "module", "--path", "src/Shipping/Domain.fs"],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("module Shipment =") && text.contains("let weigh"), "{text}");
    let (code, text, _) = cli(workspace.path(), &["read-symbol", "weigh"], &[]);
    assert_eq!(code, 2, "ambiguous is not success: {text}");
    assert!(
        text.contains("Shipping.Domain.Shipment.weigh") && text.contains("Shipping.Domain.Carrier.weigh"),
        "{text}"
    );
    let (code, text, stderr) =
        cli(workspace.path(), &["read-enclosing", "--path", "src/Shipping/Domain.fs", "--line", "21"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("Shipping.Domain.Carrier.weigh") && text.contains("| Road -> 1.0"), "{text}");
    // An outline asked for with --on-oversize is an answer; an oversize refusal is not.
    let oversize =
        ["read-enclosing", "--path", "src/Shipping/Domain.fs", "--line", "21", "--kinds", "module", "--max-lines", "2"];
    let (code, text, stderr) = cli(workspace.path(), &[&oversize[..], &["--on-oversize", "outline"]].concat(), &[]);
    assert_eq!(code, 0, "{text}{stderr}");
    assert!(text.contains("weigh"), "{text}");
    let (code, text, _) = cli(workspace.path(), &oversize, &[]);
    assert_eq!(code, 2, "oversize is not success: {text}");
    let (code, _, stderr) = cli(workspace.path(), &["read-enclosing", "--path", "../x.fs", "--line", "1"], &[]);
    assert_ne!(code, 0);
    assert!(stderr.contains("outside the workspace"), "{stderr}");
}

/// Rows of files saved with a UTF-8 byte-order mark keep the texts of their lines: the index
/// measured the text without the mark, the file on disk is three bytes longer.
#[test]
fn symbol_search_rows_of_files_with_a_byte_order_mark_keep_their_lines() {
    let workspace = fixture_copy("bom");
    let (code, json_text, stderr) =
        cli(workspace.path(), &["symbol-search", "shout", "--json"], &[("FSLENS_CACHE_DIR", "off")]);
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&json_text).unwrap();
    for file in ["Text/Words.fs", "Text/Counting.fs", "App/Program.fs", "App/Greeting.fs"] {
        let lines = row(&answer, file)["lines"].as_array().unwrap_or_else(|| panic!("{file}: {answer}"));
        assert!(!lines.is_empty(), "{file}: {answer}");
        for line in lines {
            let text = line["text"].as_str().unwrap_or_else(|| panic!("{file} lost its line text: {answer}"));
            assert!(text.contains("shout") && !text.starts_with('\u{feff}'), "{file}: {text:?}");
        }
    }
}
