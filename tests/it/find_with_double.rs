//! `fslens.find` against the FSAC double: real processes, the real F# compiler's resolution.
//! Expected sites come from the fixtures' `//>` markers, never from the double.

use crate::support;
use fslens::commands::registry::Command;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use support::double::{
    Editor, SiteKey, TRANSCRIPT_VARIABLE, double_command, fixture_copy, fixture_copy_in_awkward_directory, found_sites,
    received_by_fsac, sent_by_fsac, wait_for_transcript,
};
use support::markers::{Marker, read_markers};
use tempfile::TempDir;

const BUDGET: usize = 60_000;

async fn ready_editor(workspace: &Path, runtime: &Path, environment: &[(&str, &str)]) -> Editor {
    let mut editor = Editor::start(workspace, runtime, &double_command(), environment).await;
    editor.wait_until_ready().await;
    editor
}

/// A copy of the shipping fixture, its markers, and fslens ready in front of the double (the
/// runtime directory must live as long as the editor).
async fn shipping_ready() -> (TempDir, TempDir, Vec<Marker>, Editor) {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let markers = read_markers(workspace.path());
    let editor = ready_editor(workspace.path(), runtime.path(), &[]).await;
    (workspace, runtime, markers, editor)
}

async fn find(editor: &mut Editor, argument: Value) -> Value {
    let answer = editor.execute(Command::Find, argument.clone()).await;
    answer.get("result").cloned().unwrap_or_else(|| panic!("fslens.find {argument} failed: {answer}"))
}

fn marker_kind(kind: &str) -> &'static str {
    match kind {
        "decl" => "definition",
        "construction" => "field-construction",
        "copy-update" => "field-copy-update",
        "mutation" => "field-set-mutation",
        "pattern" => "field-pattern",
        "read" => "field-read",
        _ => "reference",
    }
}

fn expected_sites(markers: &[Marker], root: &Path, symbols: &[&str]) -> BTreeSet<SiteKey> {
    markers
        .iter()
        .filter(|marker| symbols.contains(&marker.symbol.as_str()))
        .map(|marker| {
            (
                marker.file.strip_prefix(root).unwrap().display().to_string(),
                u64::from(marker.line),
                u64::from(marker.character),
                marker_kind(&marker.kind).to_owned(),
                marker.symbol.clone(),
            )
        })
        .collect()
}

fn utf16_length(value: &Value) -> usize {
    serde_json::to_string(value).unwrap().encode_utf16().count()
}

#[tokio::test]
async fn field_sites_across_projects_carry_the_kind_and_the_compilers_record() {
    let (workspace, _runtime, markers, mut editor) = shipping_ready().await;
    let root = workspace.path();

    // Both records' Weight fields: every site with its kind, attributed to the right record.
    let answer = find(&mut editor, json!({"kind": "field", "field": "Weight", "maxResults": 1000})).await;
    let both = ["Shipping.Domain.Shipment.Weight", "Shipping.Domain.Parcel.Weight"];
    assert_eq!(found_sites(&answer), expected_sites(&markers, root, &both), "{answer:#}");
    assert_eq!((answer["outcome"].clone(), answer["status"].clone()), (json!("found"), json!("ok")));
    assert_eq!(answer["via"], json!("fsac"));
    assert_eq!(answer["coverage"]["complete"], json!(true));
    assert_eq!(answer["resolution"]["complete"], json!(true));
    assert_eq!(answer["coverage"]["projectsRequested"], json!(3));
    assert_eq!(answer["coverage"]["projectsAnalyzed"], json!(3));
    let projects: BTreeSet<&str> =
        answer["sites"].as_array().unwrap().iter().filter_map(|site| site["project"].as_str()).collect();
    assert_eq!(projects.len(), 3, "sites in all three projects: {projects:?}");
    for site in answer["sites"].as_array().unwrap() {
        assert_eq!(site["via"], json!("fsac"));
        let line = site["lineText"].as_str().unwrap();
        assert!(line.contains("Weight"), "{site}");
    }
    // The solution holds every project of the workspace, so the note names it.
    assert!(answer["scopeNote"].as_str().unwrap().starts_with("3 projects of Shipping.sln"), "{answer}");

    // A qualified query resolves to one record only; so does a fully qualified one.
    for query in ["Shipment.Weight", "Shipping.Domain.Shipment.Weight"] {
        let answer = find(&mut editor, json!({"query": query, "maxResults": 1000})).await;
        assert_eq!(
            found_sites(&answer),
            expected_sites(&markers, root, &["Shipping.Domain.Shipment.Weight"]),
            "{query}: {answer:#}"
        );
    }

    // Every other marked record field, nested copy-and-update and generic records included.
    for symbol in [
        "Shipping.Domain.Shipment.Name",
        "Shipping.Domain.Shipment.Destination",
        "Shipping.Domain.Address.City",
        "Shipping.Domain.Tracked.Value",
    ] {
        let query = symbol.trim_start_matches("Shipping.Domain.");
        let answer = find(&mut editor, json!({"query": query, "kind": "field", "maxResults": 1000})).await;
        assert_eq!(found_sites(&answer), expected_sites(&markers, root, &[symbol]), "{symbol}: {answer:#}");
    }

    // At a position: the compiler resolves `bumped.Weight` (the second one on the line).
    let program = root.join("src/Shipping.App/Program.fs");
    let line = std::fs::read_to_string(&program)
        .unwrap()
        .lines()
        .position(|line| line.contains("bumped.Weight <- bumped.Weight"))
        .unwrap();
    let answer = find(
        &mut editor,
        json!({"kind": "position", "path": "src/Shipping.App/Program.fs", "line": line, "word": "Weight",
               "occurrence": 2, "maxResults": 1000}),
    )
    .await;
    assert_eq!(answer["position"]["character"], json!(28), "{answer}");
    assert_eq!(found_sites(&answer), expected_sites(&markers, root, &["Shipping.Domain.Shipment.Weight"]));

    // A private helper and a linked file's function: plain references.
    let answer = find(&mut editor, json!({"query": "Shipping.Clock.stamp"})).await;
    assert_eq!(found_sites(&answer), expected_sites(&markers, root, &["Shipping.Clock.stamp"]), "{answer:#}");

    // Nothing by that name: not_found, only because every project completed.
    let answer = find(&mut editor, json!({"query": "NoSuchSymbolAnywhere"})).await;
    assert_eq!((answer["outcome"].clone(), answer["matched"].clone()), (json!("not_found"), json!(false)));
    assert_eq!(answer["coverage"]["complete"], json!(true));

    // includeSiteTypes: the field's type at every field site, from the compiler.
    let answer =
        find(&mut editor, json!({"query": "Shipment.Weight", "kind": "field", "includeSiteTypes": true})).await;
    let field_sites = answer["siteTypes"]["fieldSites"].as_u64().unwrap();
    assert_eq!(answer["siteTypes"]["typed"].as_u64(), Some(field_sites), "{answer:#}");
    for site in answer["sites"].as_array().unwrap().iter().filter(|site| site["kind"] != "definition") {
        assert_eq!(site["siteType"], json!("float"), "{site}");
    }
    editor.stop().await;
}

#[tokio::test]
async fn pages_concatenate_to_the_unpaged_answer_and_an_edit_makes_the_cursor_stale() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let mut editor = ready_editor(root, runtime.path(), &[]).await;

    let whole = find(&mut editor, json!({"query": "Weight", "maxResults": 1000})).await;
    let total = whole["totalSites"].as_u64().unwrap() as usize;
    assert!(total > 20, "{whole}");
    assert_eq!(whole["resultSetComplete"], json!(true));
    assert_eq!(whole["nextCursor"], Value::Null);

    let mut pages = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let mut argument = json!({"query": "Weight", "maxResults": 7});
        if !cursor.is_null() {
            argument["cursor"] = cursor.clone();
        }
        let page = find(&mut editor, argument).await;
        assert_eq!(page["totalSites"].as_u64(), Some(total as u64));
        assert_eq!(page["coverage"]["complete"], json!(true));
        // Coverage is complete on every page; the resolution only on an unpaged answer.
        assert_eq!(page["resolution"]["complete"], json!(false), "{page}");
        assert_eq!(page["pageOffset"].as_u64(), Some(pages.len() as u64));
        pages.extend(page["sites"].as_array().unwrap().iter().cloned());
        cursor = page["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
        assert_eq!(page["truncatedBy"], json!("maxResults"));
    }
    assert_eq!(pages, *whole["sites"].as_array().unwrap());

    // A cursor is bound to its query: another query cannot use it.
    let first = find(&mut editor, json!({"query": "Weight", "maxResults": 5})).await;
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let other = editor.execute(Command::Find, json!({"query": "Name", "cursor": cursor})).await;
    assert_eq!(other["error"]["data"]["errorKind"], json!("find_cursor_query_mismatch"), "{other}");
    // A page size change is the same logical query.
    let resized = find(&mut editor, json!({"query": "Weight", "maxResults": 3, "cursor": cursor})).await;
    assert_eq!(resized["sites"][0], whole["sites"][5]);

    // The user edits a source file (unsaved): the continuation is refused, typed.
    let operations = root.join("src/Shipping.Domain/Operations.fs");
    let uri = fslens::uri::path_to_uri(&operations).unwrap();
    let text = std::fs::read_to_string(&operations).unwrap();
    let edited = text.replacen("let create", "// an inserted line moves every site below it\nlet create", 1);
    editor
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "fsharp", "version": 1, "text": edited}}),
        )
        .await;
    let stale = editor.execute(Command::Find, json!({"query": "Weight", "maxResults": 5, "cursor": cursor})).await;
    assert_eq!(stale["error"]["code"], json!(-32602), "{stale}");
    assert_eq!(stale["error"]["data"]["errorKind"], json!("find_cursor_stale"), "{stale}");
    assert_eq!(stale["error"]["data"]["argument"], json!("cursor"));
    assert!(stale.get("result").is_none());

    // A fresh find sees the editor's unsaved buffer, through FSAC and in its line texts.
    let original_line = text.lines().position(|line| line.starts_with("let heavier")).unwrap() as u64;
    let fresh = find(&mut editor, json!({"query": "Shipment.Weight", "maxResults": 1000})).await;
    let heavier: Vec<&Value> = fresh["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|site| site["file"] == "src/Shipping.Domain/Operations.fs" && site["kind"] == "field-copy-update")
        .filter(|site| site["lineText"].as_str().unwrap().starts_with("let heavier"))
        .collect();
    assert_eq!(heavier.len(), 1, "{fresh:#}");
    assert_eq!(heavier[0]["range"]["start"]["line"].as_u64(), Some(original_line + 1));
    editor.stop().await;
}

/// With FSAC too, a find past its site budget answers one segment of whole files at a time: the
/// compiler's locations are formed into sites file by file, the segment's last page resumes at
/// the first file left, and the segments' pages are exactly the unbudgeted answer's rows.
#[tokio::test]
async fn with_fsac_a_find_past_its_site_budget_resumes_at_the_first_file_left() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let whole = {
        let mut editor = ready_editor(root, runtime.path(), &[]).await;
        let whole = find(&mut editor, json!({"query": "Weight", "maxResults": 1000})).await;
        editor.stop().await;
        whole
    };
    assert_eq!(whole["resultSetComplete"], json!(true), "{whole:#}");
    let files: BTreeSet<&str> =
        whole["sites"].as_array().unwrap().iter().map(|site| site["file"].as_str().unwrap()).collect();
    assert!(files.len() >= 3, "{files:?}");

    // About four sites' worth: every segment holds a file or a few, never all of them.
    let budget = 1_000;
    let budget_text = budget.to_string();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(root, runtime.path(), &[("FSLENS_FIND_SITE_BUDGET_BYTES", &budget_text)]).await;
    let (mut rows, mut answers, mut cursor) = (Vec::new(), Vec::new(), Value::Null);
    loop {
        let mut argument = json!({"query": "Weight", "maxResults": 1000});
        if !cursor.is_null() {
            argument["cursor"] = cursor.clone();
        }
        let page = find(&mut editor, argument).await;
        assert_eq!(page["coverage"]["complete"], json!(true), "{page:#}");
        rows.extend(page["sites"].as_array().unwrap().iter().cloned());
        cursor = page["nextCursor"].clone();
        answers.push(page);
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(rows, *whole["sites"].as_array().unwrap(), "the segments' rows are the whole answer's");
    let cuts: Vec<&Value> = answers.iter().filter(|answer| answer["truncatedBy"] == "siteBudget").collect();
    assert!(cuts.len() >= 2, "{} segments cut", cuts.len());
    for (number, answer) in answers.iter().enumerate().filter(|(_, answer)| answer["truncatedBy"] == "siteBudget") {
        let cut = &answer["siteBudget"];
        assert_eq!(cut["budgetBytes"], json!(budget));
        assert_eq!(answer["via"], json!("fsac"), "{answer:#}");
        assert_eq!(answer["resultSetComplete"], json!(false));
        let resumed_at = cut["resumesAtFile"].as_str().unwrap();
        assert_eq!(answers[number + 1]["sites"][0]["file"], json!(resumed_at));
        let held: BTreeSet<&str> =
            answer["sites"].as_array().unwrap().iter().map(|site| site["file"].as_str().unwrap()).collect();
        assert!(!held.contains(resumed_at), "a file is never split between segments: {held:?} {resumed_at}");
    }
    editor.stop().await;
}

#[tokio::test]
async fn very_long_lines_stay_within_the_response_budget() {
    let workspace = fixture_copy("long-lines");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path(), &[]).await;

    let first = find(&mut editor, json!({"query": "Crate.Size", "maxResults": 1000})).await;
    assert_eq!(first["totalSites"], json!(602), "{}", first["totalSites"]);
    assert!(utf16_length(&first) <= BUDGET, "{}", utf16_length(&first));
    assert_eq!(first["truncatedBy"], json!("responseBudget"));
    let returned = first["returnedSites"].as_u64().unwrap() as usize;
    assert!(returned > 10 && returned < 602, "{returned}");
    for site in first["sites"].as_array().unwrap() {
        let text = site["lineText"].as_str().unwrap();
        assert!(text.encode_utf16().count() <= 512, "{site}");
        let start = site["lineTextSourceStartColumn"].as_u64().unwrap();
        let end = site["lineTextSourceEndColumn"].as_u64().unwrap();
        assert_eq!((end - start) as usize, text.encode_utf16().count());
        let character = site["range"]["start"]["character"].as_u64().unwrap();
        assert!(start <= character && character + 4 <= end, "the site is inside the snippet: {site}");
        if site["lineTextSourceLength"].as_u64().unwrap() > 512 {
            assert_eq!(site["lineTextTruncated"], json!(true));
        }
    }
    // The next page starts where this one ended, with context lines too.
    let second = find(
        &mut editor,
        json!({"query": "Crate.Size", "maxResults": 1000, "cursor": first["nextCursor"], "contextLines": 0}),
    )
    .await;
    assert_eq!(second["pageOffset"].as_u64(), Some(returned as u64));
    assert!(utf16_length(&second) <= BUDGET);
    let with_context = find(&mut editor, json!({"query": "Crate.Size", "maxResults": 1000, "contextLines": 20})).await;
    assert_eq!(with_context["contextLinesApplied"], json!(8));
    assert_eq!(with_context["contextLinesTruncated"], json!(true));
    assert!(utf16_length(&with_context) <= BUDGET, "{}", utf16_length(&with_context));
    assert!(with_context["returnedSites"].as_u64().unwrap() >= 1);

    // A caller with a tighter output limit (the MCP bridge) sets a smaller budget: the page is
    // planned once to fit it, and its cursor continues the same logical query.
    let small = find(&mut editor, json!({"query": "Crate.Size", "maxResults": 1000, "responseCharBudget": 8000})).await;
    assert!(utf16_length(&small) <= 8000, "{}", utf16_length(&small));
    let small_returned = small["returnedSites"].as_u64().unwrap() as usize;
    assert!(small_returned >= 1 && small_returned < returned, "{small_returned} vs {returned}");
    assert_eq!(small["truncatedBy"], json!("responseBudget"));
    let after_small =
        find(&mut editor, json!({"query": "Crate.Size", "maxResults": 1000, "cursor": small["nextCursor"]})).await;
    assert_eq!(after_small["pageOffset"].as_u64(), Some(small_returned as u64), "{}", after_small["pageOffset"]);
    assert_eq!(after_small["sites"][0], first["sites"][small_returned], "the pages join up");
    let refused = editor.execute(Command::Find, json!({"query": "Crate.Size", "responseCharBudget": 100})).await;
    assert_eq!(refused["error"]["data"]["argument"], json!("responseCharBudget"), "{refused}");
    editor.stop().await;
}

#[tokio::test]
async fn an_expired_deadline_is_indeterminate_with_the_per_project_ledger() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    // The deadline must pass during the sweep, whatever the machine's load: the double pauses
    // before each file as long as the whole deadline, so no file is swept in time, and the
    // resolution before the sweep (1.4 s of a 1.5 s deadline in one run at a load of 21, which
    // left no project started) has the whole deadline.
    const DEADLINE_MS: u64 = 8_000;
    let delay = DEADLINE_MS.to_string();
    let mut editor =
        ready_editor(workspace.path(), runtime.path(), &[("FSAC_DOUBLE_SWEEP_DELAY_MS", delay.as_str())]).await;

    // Expired before the sweep could start.
    let answer = find(&mut editor, json!({"query": "Weight", "timeoutMs": 0})).await;
    assert_eq!(answer["errorKind"], json!("find_timeout"), "{answer:#}");
    assert_eq!((answer["outcome"].clone(), answer["status"].clone()), (json!("indeterminate"), json!("unknown")));
    assert_eq!(answer["coverage"]["projectsNotStarted"], json!(3));
    assert_eq!(answer["perProject"].as_array().unwrap().len(), 3);

    // Expired during the sweep: FSAC did not finish, no site is known, so no verdict.
    let answer =
        find(&mut editor, json!({"query": "Weight", "timeoutMs": DEADLINE_MS, "includeDeclaration": false})).await;
    assert_eq!((answer["outcome"].clone(), answer["status"].clone()), (json!("indeterminate"), json!("unknown")));
    assert_eq!(answer["matched"], Value::Null);
    assert_eq!(answer["coverage"]["complete"], json!(false));
    let statuses: BTreeSet<&str> =
        answer["perProject"].as_array().unwrap().iter().map(|row| row["status"].as_str().unwrap()).collect();
    assert!(statuses.contains("timedOut"), "{answer:#}");
    assert!(answer["coverage"]["projectsTimedOut"].as_u64().unwrap() >= 1);
    assert!(answer["scopeNote"].as_str().unwrap().starts_with("analyzed 0 of 3"), "{}", answer["scopeNote"]);
    // With the declarations included the known sites are delivered, marked partial, cursorless.
    let answer = find(&mut editor, json!({"query": "Weight", "timeoutMs": DEADLINE_MS})).await;
    assert_eq!((answer["outcome"].clone(), answer["status"].clone()), (json!("found"), json!("partial")));
    assert_eq!(answer["nextCursor"], Value::Null);
    assert_eq!(answer["deliveryStatus"], json!("partial"));
    editor.stop().await;
}

#[tokio::test]
async fn a_cancelled_find_answers_32800_and_fsac_sees_the_cancel() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let transcript = runtime.path().join("transcript.jsonl");
    let transcript_text = transcript.display().to_string();
    let environment = [("FSAC_DOUBLE_SWEEP_DELAY_MS", "500"), (TRANSCRIPT_VARIABLE, transcript_text.as_str())];
    let mut editor = ready_editor(workspace.path(), runtime.path(), &environment).await;

    let id = editor.start_command(Command::Find, json!({"query": "Weight"})).await;
    // Wait until FSAC is sweeping references for the find.
    let references = wait_for_transcript(&transcript, received_by_fsac, "the find's references request", |message| {
        message["method"] == "textDocument/references"
            && message["id"].as_str().is_some_and(|id| id.starts_with("fslens:"))
    })
    .await;
    let references_id = references["id"].clone();
    editor.notify("$/cancelRequest", json!({"id": id})).await;
    let answer = editor.response(id).await;
    assert_eq!(answer["error"]["code"], json!(-32800), "{answer}");

    wait_for_transcript(&transcript, received_by_fsac, "$/cancelRequest for the references request", |message| {
        message["method"] == "$/cancelRequest" && message["params"]["id"] == references_id
    })
    .await;
    // FSAC answers the cancelled request -32800 itself (it stops its sweep).
    let fsac_answer =
        wait_for_transcript(&transcript, sent_by_fsac, "FSAC's answer to the references request", |message| {
            message["id"] == references_id && message.get("method").is_none()
        })
        .await;
    assert_eq!(fsac_answer["error"]["code"], json!(-32800), "{fsac_answer}");
    // The session is still usable.
    let status = editor.execute(Command::Status, json!({})).await;
    assert_eq!(status["result"]["state"], json!("ready"));
    editor.stop().await;
}

#[tokio::test]
async fn before_fsac_is_ready_the_answer_is_syntactic_and_says_so() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let markers = read_markers(root);
    let mut editor =
        Editor::start(root, runtime.path(), &double_command(), &[("FSAC_DOUBLE_SLOW_LOAD_MS", "20000")]).await;

    let answer = find(&mut editor, json!({"query": "Shipment.Weight", "maxResults": 1000})).await;
    assert_ne!(answer["fsacState"], json!("ready"), "{answer}");
    assert_eq!(answer["via"], json!("syntax"));
    assert_eq!(answer["completeness"], json!("syntactic"));
    assert_ne!(answer["outcome"], json!("not_found"));
    assert_eq!(answer["coverage"]["complete"], json!(false));
    let notes = answer["notes"].to_string();
    assert!(notes.contains("syntactic") && notes.contains("waitUntil"), "{notes}");
    // Every Shipment.Weight site is among the candidates, found by name; the field name is
    // shared with Parcel, so syntax alone cannot attribute those sites.
    let found = found_sites(&answer);
    let positions: BTreeSet<(String, u64, u64)> =
        found.iter().map(|(file, line, character, _, _)| (file.clone(), *line, *character)).collect();
    for (file, line, character, _, _) in expected_sites(&markers, root, &["Shipping.Domain.Shipment.Weight"]) {
        assert!(positions.contains(&(file.clone(), line, character)), "{file}:{line}:{character} missing");
    }
    for site in answer["sites"].as_array().unwrap() {
        assert_eq!(site["via"], json!("syntax"));
        assert_eq!(site["certain"], json!(false));
        if site["kind"] != "definition" {
            assert_eq!(site["symbolFullName"], Value::Null, "{site}");
            assert_eq!(site["symbolCandidates"].as_array().unwrap().len(), 2);
        }
    }

    // Nothing by that name while loading: indeterminate, never not_found.
    let answer = find(&mut editor, json!({"query": "NoSuchSymbolAnywhere"})).await;
    assert_eq!((answer["outcome"].clone(), answer["status"].clone()), (json!("indeterminate"), json!("unknown")));
    editor.kill().await;
}

#[tokio::test]
async fn members_and_narrowed_scopes() {
    let (workspace, _runtime, markers, mut editor) = shipping_ready().await;
    let root = workspace.path();

    // The members of a type: every member's definition and usages.
    let answer = find(&mut editor, json!({"kind": "members", "query": "Account", "maxResults": 1000})).await;
    let member_usage = |symbols: &[&str]| -> BTreeSet<SiteKey> {
        expected_sites(&markers, root, symbols)
            .into_iter()
            .map(|(file, line, character, kind, symbol)| {
                let kind = if kind == "definition" { kind } else { "member-usage".to_owned() };
                (file, line, character, kind, symbol)
            })
            .collect()
    };
    let found = found_sites(&answer);
    for expected in member_usage(&["Shipping.Domain.Account.Check", "Shipping.Domain.Account.Create"]) {
        assert!(found.contains(&expected), "{expected:?} missing from {answer:#}");
    }
    let restricted =
        find(&mut editor, json!({"kind": "members", "query": "Account", "member": "Check", "maxResults": 1000})).await;
    assert_eq!(found_sites(&restricted), member_usage(&["Shipping.Domain.Account.Check"]), "{restricted:#}");

    // A class's explicit `val` field is a field: its object-construction and read sites carry
    // field kinds, not member usages.
    let answer = find(&mut editor, json!({"kind": "field", "query": "Meter.reading", "maxResults": 1000})).await;
    assert_eq!(found_sites(&answer), expected_sites(&markers, root, &["Shipping.Domain.Meter.reading"]), "{answer:#}");

    // scope=file keeps only that file's sites and says so.
    let answer = find(
        &mut editor,
        json!({"query": "Shipment.Weight", "scope": "file", "path": "src/Shipping.App/Program.fs", "maxResults": 1000}),
    )
    .await;
    let expected: BTreeSet<SiteKey> = expected_sites(&markers, root, &["Shipping.Domain.Shipment.Weight"])
        .into_iter()
        .filter(|(file, ..)| file == "src/Shipping.App/Program.fs")
        .collect();
    assert_eq!(found_sites(&answer), expected);
    assert!(answer["scopeNote"].as_str().unwrap().contains("only for path"), "{}", answer["scopeNote"]);

    // One .fsproj: one project swept, and the note says how to widen.
    let answer = find(
        &mut editor,
        json!({"query": "Shipment.Weight", "projectPath": "src/Shipping.Domain/Shipping.Domain.fsproj", "maxResults": 1000}),
    )
    .await;
    assert_eq!(answer["scope"], json!("project"));
    assert_eq!(answer["coverage"]["projectsRequested"], json!(1));
    assert!(answer["scopeNote"].as_str().unwrap().starts_with("1 project swept"), "{}", answer["scopeNote"]);
    for site in answer["sites"].as_array().unwrap() {
        assert!(site["file"].as_str().unwrap().starts_with("src/Shipping.Domain/"), "{site}");
    }

    // Typed argument errors name the argument.
    let error = editor.execute(Command::Find, json!({"query": "Weight", "maxResults": 0})).await;
    assert_eq!(error["error"]["code"], json!(-32602));
    assert_eq!(error["error"]["data"]["argument"], json!("maxResults"));
    let error = editor.execute(Command::Find, json!({"query": "Weight", "scope": "file", "path": "../x.fs"})).await;
    assert_eq!(error["error"]["data"]["errorKind"], json!("invalid_path"), "{error}");
    editor.stop().await;
}

#[tokio::test]
async fn the_command_line_prints_the_same_object() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let markers = read_markers(root);
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["find", "Shipment.Weight", "--kind", "field", "--max-results", "1000", "--json", "--fsac"])
        .arg(double_command())
        .arg("--workspace")
        .arg(root)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["tool"], json!("find"));
    assert_eq!(answer["via"], json!("fsac"), "{answer}");
    assert_eq!(found_sites(&answer), expected_sites(&markers, root, &["Shipping.Domain.Shipment.Weight"]));

    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["find", "--kind", "position", "--json", "--fsac"])
        .arg(double_command())
        .arg("--workspace")
        .arg(root)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .await
        .unwrap();
    // A typed argument error: exit code 64 (a refused request), the argument named on stderr.
    assert_eq!(output.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid argument `path`"), "{stderr}");
}

/// FSAC encodes the workspace path its own way (`@` as `%40`, `(` as `%28`), so its URIs differ
/// byte-wise from the editor's for the same files. Find, check and the diagnostics the editor
/// sees must still line up.
#[tokio::test]
async fn a_workspace_in_a_directory_with_an_awkward_name_gives_the_same_answers() {
    let (_parent, root) = fixture_copy_in_awkward_directory("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let markers = read_markers(&root);
    let mut editor = ready_editor(&root, runtime.path(), &[]).await;

    let answer = find(&mut editor, json!({"query": "Shipping.Domain.Shipment.Weight", "maxResults": 1000})).await;
    let weight = ["Shipping.Domain.Shipment.Weight"];
    assert_eq!(found_sites(&answer), expected_sites(&markers, &root, &weight), "{answer:#}");
    assert_eq!((answer["via"].as_str(), answer["coverage"]["complete"].as_bool()), (Some("fsac"), Some(true)));

    // An unsaved type error: FSAC publishes it under its own URI for the file, the editor
    // receives it, and check matches it to the editor's document and version.
    let program = root.join("src/Shipping.App/Program.fs");
    let editor_uri = editor.open(&program, 1).await;
    assert!(editor_uri.contains('@'), "the editor's URI leaves @ bare: {editor_uri}");
    let original = std::fs::read_to_string(&program).unwrap();
    editor
        .change(
            &editor_uri,
            2,
            &original.replace("create \"Books\" 12.5 \"Lyon\"", "create \"Books\" \"heavy\" \"Lyon\""),
        )
        .await;
    let answer = editor.execute(Command::Check, json!({"path": "src/Shipping.App/Program.fs"})).await;
    let answer = &answer["result"];
    assert_eq!(answer["verdict"], json!("errors"), "{answer}");
    assert_eq!(
        (answer["files"][0]["version"].as_i64(), answer["files"][0]["openInEditor"].as_bool()),
        (Some(2), Some(true)),
        "{answer}"
    );
    let published = editor
        .wait_for(|message| {
            message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"]
                    .as_str()
                    .and_then(fslens::uri::uri_to_path)
                    .is_some_and(|path| path == program)
                && !message["params"]["diagnostics"].as_array().is_none_or(Vec::is_empty)
        })
        .await;
    let fsac_uri = published["params"]["uri"].as_str().unwrap();
    assert!(fsac_uri.contains("%40") && fsac_uri != editor_uri, "FSAC's URI is its own: {fsac_uri}");
    editor.stop().await;
}
