//! Every page is reachable, on `fixtures/namespace-segment`: the value
//! `Books` shares its name with the namespace segment of `Shop.Books`, and the double's
//! references skip signature files (`FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES`), so `find Books`
//! is partial: `Catalog.fsi`'s `val Books` is a declaration FSAC's references miss. A partial
//! answer whose sweep finished keeps its cursor, and following it yields every row of the
//! unpaged answer; only a sweep the deadline cut short has no cursor, and then the reason
//! given is the deadline.

use crate::support;
use fslens::commands::registry::Command;

use serde_json::{Value, json};
use support::double::{Editor, double_command, fixture_copy, site_rows};

/// (file, 0-based line, character) of every row.
fn rows(answer: &Value) -> Vec<(String, u64, u64)> {
    site_rows(answer).into_iter().map(|(file, line, character, _)| (file, line, character)).collect()
}

#[tokio::test]
async fn a_partial_answer_keeps_its_cursor_and_every_row_is_reachable() {
    let workspace = fixture_copy("namespace-segment");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(
        workspace.path(),
        runtime.path(),
        &double_command(),
        &[("FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES", "1")],
    )
    .await;
    editor.wait_until_ready().await;

    let whole = editor.execute(Command::Find, json!({"query": "Books"})).await["result"].clone();
    assert_eq!(whole["status"], json!("partial"), "the signature's declaration is missed: {whole:#}");
    assert_eq!(whole["crossCheck"]["missedByBackend"][0]["file"], json!("Catalog.fsi"), "{whole:#}");
    let every_row = rows(&whole);
    assert!(every_row.len() > 2, "{whole:#}");

    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut argument = json!({"query": "Books", "maxResults": 2});
        if let Some(cursor) = &cursor {
            argument["cursor"] = json!(cursor);
        }
        let page = editor.execute(Command::Find, argument.clone()).await;
        let page = page.get("result").cloned().unwrap_or_else(|| panic!("{argument}: {page:#}"));
        assert_eq!(page["status"], json!("partial"), "{page:#}");
        assert!(page.get("paginationIncompleteReason").is_none_or(Value::is_null), "no deadline was hit: {page:#}");
        assert_ne!(page["paginationRestartRequired"], json!(true), "{page:#}");
        paged.extend(rows(&page));
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(next) => {
                assert_eq!(page["truncatedBy"], json!("maxResults"), "{page:#}");
                cursor = Some(next.to_owned());
            }
            None => break,
        }
        assert!(pages <= every_row.len(), "the cursor never ends");
    }
    assert_eq!(paged, every_row, "following nextCursor gives every row once, in order");
    assert!(pages > 1);
}
