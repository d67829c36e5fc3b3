//! Finds that name an override or an interface implementation (`fixtures/slots`): FSAC's
//! references at an implementation hold the uses of the slot it fills (every implementation
//! of that abstract or interface member, and every call through it), which the compiler does
//! not count as the implementation's. Rows on another type's member declaration or on an
//! abstract declaration are dropped; each remaining use is kept only when FSAC's definition at
//! it is one of the queried declarations (`crossCheck.slotRows`).
//!
//! The double answers references at an implementation with the slot's uses alone (FCS's one
//! symbol at the place, the slot's: `triangle.Perimeter()`, which resolves to the override, is
//! not in them and is found as an unseen occurrence); FSAC merges every symbol at the place, so
//! its answer also holds the implementation's own uses, which the definitions keep.

use crate::support;
use fslens::commands::registry::Command;

use serde_json::{Value, json};

use support::double::{Editor, fixture_copy, site_row, site_rows};

fn assert_complete(answer: &Value) {
    assert_eq!(answer["via"], json!("fsac"), "{answer:#}");
    assert_eq!(answer["status"], json!("ok"), "{answer:#}");
    assert_eq!(answer["completeness"], json!("complete"), "{answer:#}");
    assert!(!answer["notes"].to_string().contains("override or an interface implementation"), "{answer:#}");
}

/// `crossCheck.slotRows`: (droppedDeclarations, definitionsAsked, keptUses, droppedUses, unresolved).
fn slot_rows(answer: &Value) -> (u64, u64, u64, u64, usize) {
    let rows = &answer["crossCheck"]["slotRows"];
    let count = |key: &str| rows[key].as_u64().unwrap_or_else(|| panic!("{key}: {answer:#}"));
    let unresolved = rows["unresolved"].as_array().unwrap_or_else(|| panic!("{answer:#}")).len();
    (count("droppedDeclarations"), count("definitionsAsked"), count("keptUses"), count("droppedUses"), unresolved)
}

/// `Square.Area` names the class member and the `interface IShape with` member. FSAC's
/// references at the implementation hold the slot's uses: `IShape.Area`'s abstract
/// declaration, `Circle`'s implementation and the call through the interface,
/// `shape.Area()`. Before, all were rows and the answer partial. The compiler's sites are both
/// declarations, the implementation's call of the class member and the direct
/// `square.Area()`: exactly the rows now, `ok`.
#[tokio::test]
async fn an_interface_implementation_answers_its_own_sites_only() {
    let workspace = fixture_copy("slots");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Square.Area", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let sites = vec![
        site_row("Shapes/Shapes.fs", 7, 13, "definition"),
        site_row("Shapes/Shapes.fs", 9, 20, "definition"),
        site_row("Shapes/Shapes.fs", 9, 34, "member-usage"),
        site_row("Shapes/Use.fs", 4, 20, "member-usage"),
    ];
    assert_eq!(site_rows(&answer), sites, "{answer:#}");
    assert_eq!(slot_rows(&answer), (2, 3, 2, 1, 0), "{answer:#}");
    editor.stop().await;
}

/// `Triangle.Perimeter` is an override: FSAC's references at it hold `Polygon.Perimeter`'s
/// abstract declaration, `Hexagon`'s override and the call through the base type,
/// `polygon.Perimeter()`; all are dropped. `triangle.Perimeter()` resolves to the override
/// (FSAC's definition there): a row.
#[tokio::test]
async fn an_override_answers_its_own_sites_only() {
    let workspace = fixture_copy("slots");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer =
        editor.execute_result(Command::Find, json!({"query": "Triangle.Perimeter", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let sites =
        vec![site_row("Shapes/Shapes.fs", 22, 15, "definition"), site_row("Shapes/Use.fs", 10, 19, "member-usage")];
    assert_eq!(site_rows(&answer), sites, "{answer:#}");
    assert_eq!(slot_rows(&answer), (2, 1, 0, 1, 0), "{answer:#}");
    editor.stop().await;
}

/// FSAC never answers a definition (`FSAC_DOUBLE_HANG_ON`): the use rows of the slot cannot be
/// settled before the deadline, so they stay rows, the answer is partial, and the note and
/// `crossCheck.slotRows.unresolved` name them.
#[tokio::test]
async fn slot_rows_that_cannot_be_settled_keep_the_answer_partial_and_named() {
    let workspace = fixture_copy("slots");
    let runtime = tempfile::tempdir().unwrap();
    let environment = [("FSAC_DOUBLE_HANG_ON", "textDocument/definition")];
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &environment).await;
    // The project checked first, so the deadline below is spent on the definitions.
    let warm = editor.execute_result(Command::Find, json!({"query": "Use.square"})).await;
    assert_eq!(warm["status"], json!("ok"), "{warm:#}");
    let answer = editor.execute_result(Command::Find, json!({"query": "Square.Area", "timeoutMs": 20000})).await;
    assert_eq!(answer["status"], json!("partial"), "{answer:#}");
    let unresolved: Vec<(String, u64, u64)> = answer["crossCheck"]["slotRows"]["unresolved"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer:#}"))
        .iter()
        .map(|row| {
            assert!(row["reason"].as_str().unwrap().contains("deadline"), "{row}");
            (
                row["file"].as_str().unwrap().to_owned(),
                row["line"].as_u64().unwrap(),
                row["character"].as_u64().unwrap(),
            )
        })
        .collect();
    let at = |file: &str, line, character| (file.to_owned(), line, character);
    assert_eq!(
        unresolved,
        vec![at("Shapes/Shapes.fs", 9, 34), at("Shapes/Use.fs", 4, 20), at("Shapes/Use.fs", 6, 53)],
        "{answer:#}"
    );
    let notes = answer["notes"].to_string();
    assert!(notes.contains("crossCheck.slotRows.unresolved") && notes.contains("Shapes/Use.fs:7:54"), "{notes}");
    editor.kill().await;
}

/// A bare `Snoc` (`fixtures/interface-slots`) names the abstract `IQueue.Snoc`, the class
/// members `Batched.Snoc` and `Bankers.Snoc` with the `interface IQueue<'T> with` member of
/// each, and a case of `(|Snoc|Nil|)`. The compiler gives the abstract member its declaration,
/// the call through the interface and each implementation's header, and each type's `Snoc`
/// its own declarations and calls: an implementation's header is a site of both. Before, every
/// row the implementations' references held (the slot's uses) was given to whichever name
/// sorted first, `Bankers.Snoc`, and `IQueue.Snoc` had none: `ok`, wrong.
#[tokio::test]
async fn an_abstract_member_named_with_its_implementations_keeps_the_slots_rows() {
    let workspace = fixture_copy("interface-slots");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Snoc", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let rows_of = |symbol: &str| -> Vec<(String, u64, u64)> {
        let mut rows: Vec<(String, u64, u64)> = answer["sites"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|site| site["symbolFullName"] == json!(symbol))
            .map(|site| {
                let start = &site["range"]["start"];
                (
                    site["file"].as_str().unwrap().to_owned(),
                    start["line"].as_u64().unwrap(),
                    start["character"].as_u64().unwrap(),
                )
            })
            .collect();
        rows.sort();
        rows
    };
    let at = |file: &str, line: u64, character: u64| (format!("Slots/{file}"), line, character);
    assert_eq!(
        rows_of("Slots.IQueue.Snoc"),
        [at("Queues.fs", 3, 20), at("Queues.fs", 11, 20), at("Queues.fs", 18, 20), at("Use.fs", 6, 33)],
        "{answer:#}"
    );
    assert_eq!(
        rows_of("Slots.Batched.Snoc"),
        [at("Queues.fs", 7, 16), at("Queues.fs", 11, 20), at("Queues.fs", 11, 34), at("Use.fs", 5, 13)],
        "{answer:#}"
    );
    assert_eq!(
        rows_of("Slots.Bankers.Snoc"),
        [at("Queues.fs", 15, 16), at("Queues.fs", 18, 20), at("Queues.fs", 18, 34)],
        "{answer:#}"
    );
    editor.stop().await;
}
