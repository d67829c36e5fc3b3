//! `fslens.fieldImpact` against the FSAC double: every site of a field shared by name between
//! two records, with kind, declaring record and type; linked files reported honestly.

use crate::support;
use fslens::commands::registry::Command;

use std::collections::BTreeSet;

use fslens::commands::field_impact::FieldImpactAnswer;
use serde_json::{Value, json};
use support::double::{Editor, SiteKey, double_command, fixture_copy, found_sites};
use support::markers::read_markers;

async fn ready_editor(workspace: &std::path::Path, runtime: &std::path::Path) -> Editor {
    let mut editor = Editor::start(workspace, runtime, &double_command(), &[]).await;
    editor.wait_until_ready().await;
    editor
}

fn find_kind(marker_kind: &str) -> &'static str {
    match marker_kind {
        "decl" => "definition",
        "construction" => "field-construction",
        "copy-update" => "field-copy-update",
        "mutation" => "field-set-mutation",
        "pattern" => "field-pattern",
        "read" => "field-read",
        other => panic!("unexpected marker kind {other}"),
    }
}

#[tokio::test]
async fn a_field_shared_by_two_records_every_site_with_kind_record_and_type() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let answer = editor.execute(Command::FieldImpact, json!({"field": "Weight", "maxResults": 1000})).await;
    let answer = answer.get("result").cloned().unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(answer["outcome"], json!("found"), "{answer}");
    assert_eq!(answer["coverage"]["complete"], json!(true));

    let root = workspace.path();
    let expected: BTreeSet<SiteKey> = read_markers(root)
        .into_iter()
        .filter(|marker| marker.symbol.ends_with(".Weight"))
        .map(|marker| {
            (
                marker.file.strip_prefix(root).unwrap().display().to_string(),
                marker.line as u64,
                marker.character as u64,
                find_kind(&marker.kind).to_owned(),
                marker.symbol.clone(),
            )
        })
        .collect();
    let sites = answer["sites"].as_array().unwrap();
    assert_eq!(found_sites(&answer), expected, "sites, kinds and declaring records must match the fixture's markers");
    for site in sites.iter().filter(|site| site["kind"].as_str().unwrap().starts_with("field-")) {
        assert_eq!(site["siteType"], json!("float"), "{site}");
    }
    let ledger = &answer["siteTypes"];
    assert_eq!(
        ledger["fieldSites"].as_u64().unwrap(),
        ledger["typed"].as_u64().unwrap() + ledger["degraded"].as_u64().unwrap(),
        "{ledger}"
    );
    assert!(answer["siteTypesNote"].as_str().unwrap().contains("one project context"));
    let parcel_sites = expected.iter().filter(|site| site.4 == "Shipping.Domain.Parcel.Weight").count();
    assert_eq!(answer["groups"]["byDeclaringField"]["Shipping.Domain.Parcel.Weight"], json!(parcel_sites));
    editor.stop().await;
}

#[tokio::test]
async fn sites_in_a_file_linked_into_two_projects_say_which_context_typed_them() {
    let workspace = fixture_copy("shipping");
    let clock = workspace.path().join("src/Shared/Clock.fs");
    let mut text = std::fs::read_to_string(&clock).unwrap();
    text.push_str("\nlet weightOf (s: Shipping.Domain.Shipment) = s.Weight\n");
    std::fs::write(&clock, text).unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let answer = editor.execute(Command::FieldImpact, json!({"field": "Shipment.Weight", "maxResults": 1000})).await;
    let answer = &answer["result"];
    let linked: Vec<&Value> = answer["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|site| site["file"] == json!("src/Shared/Clock.fs"))
        .collect();
    assert_eq!(linked.len(), 1, "{answer}");
    let site = linked[0];
    assert_eq!(site["kind"], json!("field-read"));
    assert_eq!(site["siteType"], json!("float"));
    let context = &site["siteTypeContext"];
    assert!(context["project"].is_string(), "{site}");
    assert_eq!(context["otherProjectsNotTyped"].as_array().unwrap().len(), 1, "{site}");
    assert_eq!(answer["siteTypes"]["singleContextRowsOnPage"], json!(1));
    // Another project's view was not asked, so whether it differs is unknown, not zero.
    assert_eq!(answer["siteTypes"].get("typedDifferentlyByAnotherProject"), Some(&Value::Null), "{answer}");
    // Each bad argument is named by the error.
    for (argument, named) in [
        (json!({"fieldd": "Weight"}), "fieldd"),
        (json!({}), "field"),
        (json!({"field": ""}), "field"),
        (json!({"field": 3}), "field"),
        (json!({"query": " "}), "query"),
        (json!({"field": "Weight", "includeSiteTypes": false}), "includeSiteTypes"),
    ] {
        let error = editor.execute(Command::FieldImpact, argument.clone()).await;
        assert_eq!(error["error"]["data"]["argument"], json!(named), "{argument}: {error}");
        assert_eq!(error["error"]["data"]["errorKind"], json!("invalid_argument"), "{argument}: {error}");
    }
    editor.stop().await;
}

/// A fieldImpact page fits the `responseCharBudget` it was asked for, with its groups, plan
/// and notes (they are part of the page the planner measures), and its cursor continues the
/// same sites: every page together holds every site once.
#[tokio::test]
async fn a_field_impact_page_fits_its_response_budget_and_its_cursor_continues() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = ready_editor(workspace.path(), runtime.path()).await;
    let whole = editor.execute_result(Command::FieldImpact, json!({"field": "Weight", "maxResults": 1000})).await;
    let expected = found_sites(&whole);
    let budget = 6_000;
    let mut argument = json!({"field": "Weight", "maxResults": 1000, "responseCharBudget": budget});
    let (mut seen, mut pages) = (BTreeSet::new(), 0);
    loop {
        let page = editor.execute_result(Command::FieldImpact, argument.clone()).await;
        let typed: FieldImpactAnswer =
            serde_json::from_value(page.clone()).unwrap_or_else(|error| panic!("{error}: {page}"));
        assert_eq!(serde_json::to_value(&typed).unwrap(), page, "the typed answer is the answer sent");
        let length = serde_json::to_string(&page).unwrap().encode_utf16().count();
        assert!(length <= budget, "a page of {length} UTF-16 units under a budget of {budget}: {page}");
        assert!(page["plan"].is_string() && page["groups"]["scope"] == json!("page"), "{page}");
        let delivered = found_sites(&page);
        assert_eq!(delivered.len(), page["returnedSites"].as_u64().unwrap() as usize, "{page}");
        assert!(delivered.is_disjoint(&seen), "a page repeats a site: {page}");
        seen.extend(delivered);
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(cursor) => argument["cursor"] = json!(cursor),
            None => break,
        }
    }
    assert!(pages > 1, "the budget cuts the answer into pages");
    assert_eq!(seen, expected);
    editor.stop().await;
}
