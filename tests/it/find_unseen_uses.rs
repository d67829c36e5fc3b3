//! A use the backend's references miss and the syntax index sees
//! (`fixtures/unseen-use`): `member internal _.Done` on class `T` in `Worker.fs`, used in the
//! later `Use.fs` as `w.Done |> Event.add …` where `w`'s type is inferred. Before a find may
//! say complete, each occurrence of the name no site covers, in a file that can use the symbol,
//! is resolved by FSAC's definition at it: a use is a site (`crossCheck.missedByBackend`, role
//! `use`), another symbol's occurrence is not, and one that cannot be resolved in time makes
//! the answer partial, named. FSAC itself finds the use (its `symbolUseWorkspaceAux` searches
//! every file of the projects that can see the declaring file), and so does the double; the
//! double's `FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY` plants the miss.

use crate::support;
use fslens::commands::registry::Command;

use serde_json::{Value, json};

use support::double::{Editor, double_command, fixture_copy, site_row, site_rows};

/// Every row of `find T.Done`: the declaration and the two uses in `Use.fs` (0-based).
fn every_site() -> Vec<(String, u64, u64, String)> {
    vec![
        site_row("Watch/Use.fs", 6, 6, "member-usage"),
        site_row("Watch/Use.fs", 12, 32, "member-usage"),
        site_row("Watch/Worker.fs", 4, 22, "definition"),
    ]
}

fn assert_complete(answer: &Value) {
    assert_eq!(answer["via"], json!("fsac"), "{answer:#}");
    assert_eq!(answer["status"], json!("ok"), "{answer:#}");
    assert_eq!(answer["completeness"], json!("complete"), "{answer:#}");
    assert_eq!(answer["coverage"]["complete"], json!(true), "{answer:#}");
}

/// (file, line, character, role, symbol) of each `crossCheck.missedByBackend` row.
fn missed(answer: &Value) -> Vec<(String, u64, u64, String, String)> {
    let rows = answer["crossCheck"]["missedByBackend"].as_array().unwrap_or_else(|| panic!("{answer:#}"));
    rows.iter()
        .map(|row| {
            (
                row["file"].as_str().unwrap().to_owned(),
                row["range"]["start"]["line"].as_u64().unwrap(),
                row["range"]["start"]["character"].as_u64().unwrap(),
                row["role"].as_str().unwrap().to_owned(),
                row["symbolFullName"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The double as FSAC: its references hold both uses. The one other occurrence of `Done` that
/// no site covers and that can use `T` (`job.Done`, a record field, in `Use.fs`) is resolved
/// and ruled out; `Early.fs`'s `job.Done` comes before `Worker.fs`, so it cannot use `T` and
/// is not asked about.
#[tokio::test]
async fn a_complete_answer_resolved_every_occurrence_no_site_covers() {
    let workspace = fixture_copy("unseen-use");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "T.Done"})).await;
    assert_complete(&answer);
    assert_eq!(site_rows(&answer), every_site(), "{answer:#}");
    assert_eq!(missed(&answer), vec![], "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (
            &unseen["definitionsAsked"],
            &unseen["resolvedToSymbol"],
            &unseen["resolvedElsewhere"],
            &unseen["unresolvedTotal"]
        ),
        (&json!(1), &json!(0), &json!(1), &json!(0)),
        "{answer:#}"
    );
    editor.stop().await;
}

/// A backend whose references, asked at the declaration, miss the uses in other files: before,
/// `find T.Done` answered `ok` with the declaration alone and `missedByBackend: []`. Now each
/// use is resolved by FSAC's definition at it, is a row, and is named in `missedByBackend`.
#[tokio::test]
async fn a_use_the_backend_missed_is_resolved_before_the_answer_says_complete() {
    let workspace = fixture_copy("unseen-use");
    let runtime = tempfile::tempdir().unwrap();
    let environment = [("FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY", "1")];
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &environment).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "T.Done"})).await;
    assert_complete(&answer);
    assert_eq!(site_rows(&answer), every_site(), "{answer:#}");
    let use_row =
        |line, character| ("Watch/Use.fs".to_owned(), line, character, "use".to_owned(), "Watch.T.Done".to_owned());
    assert_eq!(missed(&answer), vec![use_row(6, 6), use_row(12, 32)], "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (
            &unseen["definitionsAsked"],
            &unseen["resolvedToSymbol"],
            &unseen["resolvedElsewhere"],
            &unseen["unresolvedTotal"]
        ),
        (&json!(3), &json!(2), &json!(1), &json!(0)),
        "{answer:#}"
    );
    assert!(answer["notes"].to_string().contains("crossCheck.missedByBackend (role use)"), "{answer:#}");
    editor.stop().await;
}

/// The same miss, and FSAC never answers a definition (`FSAC_DOUBLE_HANG_ON`): the occurrences
/// cannot be resolved before the deadline, so the answer is partial and names each of them.
#[tokio::test]
async fn occurrences_that_cannot_be_resolved_in_time_make_the_answer_partial_and_named() {
    let workspace = fixture_copy("unseen-use");
    let runtime = tempfile::tempdir().unwrap();
    let environment =
        [("FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY", "1"), ("FSAC_DOUBLE_HANG_ON", "textDocument/definition")];
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &environment).await;
    // A find whose every occurrence is a site (no definition asked) has the project checked
    // first, so the deadline below is spent on the definitions, not on a cold sweep.
    let warm = editor.execute_result(Command::Find, json!({"query": "Use.start"})).await;
    assert_eq!(site_rows(&warm).len(), 2, "{warm:#}");
    assert!(warm["crossCheck"].get("unseenOccurrences").is_none(), "{warm:#}");
    let answer = editor.execute_result(Command::Find, json!({"query": "T.Done", "timeoutMs": 20000})).await;
    assert_eq!(answer["via"], json!("fsac"), "{answer:#}");
    assert_eq!(answer["status"], json!("partial"), "{answer:#}");
    assert_eq!(answer["completeness"], json!("partial"), "{answer:#}");
    assert_eq!(site_rows(&answer), vec![site_row("Watch/Worker.fs", 4, 22, "definition")], "{answer:#}");
    assert_eq!(missed(&answer), vec![], "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!((&unseen["unresolvedTotal"], &unseen["resolvedToSymbol"]), (&json!(3), &json!(0)), "{answer:#}");
    let unresolved: Vec<(String, u64, u64)> = unseen["unresolved"]
        .as_array()
        .unwrap()
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
    let at = |line, character| ("Watch/Use.fs".to_owned(), line, character);
    assert_eq!(unresolved, vec![at(6, 6), at(9, 39), at(12, 32)], "{answer:#}");
    let notes = answer["notes"].to_string();
    assert!(notes.contains("Watch/Use.fs:7:7") && notes.contains("crossCheck.unseenOccurrences.unresolved"), "{notes}");
    // The requests left in flight were FSAC's to answer, and fslens gave up on them at the
    // deadline: the find itself was answered.
    editor.kill().await;
}

/// A common member name (`fixtures/common-name`): `Vector.Length` has three uses, and `Use.fs`
/// holds 72 more occurrences of `Length` that no site covers (`Ring.Length`, `String.Length`,
/// an array's `Length`, 24 each). Before, each was asked its definition, at most 64, and the
/// 8 left made the answer partial ("not asked"). Now an occurrence that resolves to another
/// symbol is followed by FSAC's references at it, which rule out every other occurrence of that
/// symbol: a few requests, every occurrence resolved, the answer `ok` and exact.
#[tokio::test]
async fn a_common_name_is_resolved_by_a_few_requests_not_one_per_occurrence() {
    let workspace = fixture_copy("common-name");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Vector.Length", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let sites = vec![
        site_row("Shapes/Shapes.fs", 3, 13, "definition"),
        site_row("Shapes/Use.fs", 2, 33, "member-usage"),
        site_row("Shapes/Use.fs", 4, 26, "member-usage"),
        site_row("Shapes/Use.fs", 4, 37, "member-usage"),
    ];
    assert_eq!(site_rows(&answer), sites, "{answer:#}");
    assert_eq!(missed(&answer), vec![], "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (&unseen["resolvedToSymbol"], &unseen["resolvedElsewhere"], &unseen["unresolvedTotal"]),
        (&json!(0), &json!(72), &json!(0)),
        "{answer:#}"
    );
    let asked = unseen["definitionsAsked"].as_u64().unwrap() + unseen["referencesAsked"].as_u64().unwrap();
    assert!(asked <= 16, "a few requests, not one per occurrence: {unseen:#}");
    let by_references = unseen["resolvedByReferences"].as_u64().unwrap();
    assert_eq!(by_references + unseen["definitionsAsked"].as_u64().unwrap(), 72, "{unseen:#}");
    editor.stop().await;
}

/// Every row of `find Outcome.ok` (0-based).
fn module_value_sites() -> Vec<(String, u64, u64, String)> {
    vec![
        site_row("Outcomes/Outcome.fs", 6, 8, "definition"),
        site_row("Outcomes/Use.fs", 4, 41, "reference"),
        site_row("Outcomes/Use.fs", 10, 43, "reference"),
        site_row("Outcomes/Use.fs", 12, 42, "reference"),
    ]
}

/// A module's value of a common name (`fixtures/module-values`): `Outcome.ok` is used twice as
/// `Outcome.ok` and once through the abbreviation `module O = Outcome`; `Outcome.fs` writes the
/// type variable `'ok` 150 times (36 functions, and the signatures of `Outcome.ok` and of the
/// `ok`s of modules `Lenient` and `Strict`, used as `Lenient.ok` and `Strict.ok`, and through
/// `module L = Lenient` as `L.ok`), and `Picks.fs` has 37 functions whose parameter `ok` shadows
/// it (`let pick1 ok fallback = … ok …`, one tupled). The text shows those 227 occurrences to
/// be no use of `Outcome.ok` (a type variable; another module's qualifier, or an abbreviation's
/// whose line names another module; a parameter and its uses), so they are ruled out without a
/// request. Before, each type variable, and then each shadowing function, took a definition and
/// a references request, the bound of 64 was spent, and the answer said partial with
/// occurrences not asked.
#[tokio::test]
async fn occurrences_the_text_shows_to_be_other_symbols_cost_no_request() {
    let workspace = fixture_copy("module-values");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Outcome.ok", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    assert_eq!(site_rows(&answer), module_value_sites(), "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (
            &unseen["resolvedByText"],
            &unseen["resolvedElsewhere"],
            &unseen["definitionsAsked"],
            &unseen["referencesAsked"],
            &unseen["unresolvedTotal"]
        ),
        (&json!(227), &json!(227), &json!(0), &json!(0), &json!(0)),
        "{answer:#}"
    );
    editor.stop().await;
}

/// The same, with FSAC's references missing the uses in `Use.fs`: `Outcome.ok` and `O.ok` (an
/// abbreviation of `Outcome`, which the text cannot rule out) are asked and found, the other
/// 227 are ruled out from the text, `L.ok` among them: `module L = Lenient` abbreviates a module
/// of another name (the shape of FSharp.Control.TaskSeq's `module Internal = TaskSeqInternal`
/// beside its own `Async.map`; before, `L.ok` was asked too).
#[tokio::test]
async fn a_qualifier_that_may_abbreviate_the_module_is_still_asked() {
    let workspace = fixture_copy("module-values");
    let runtime = tempfile::tempdir().unwrap();
    let environment = [("FSAC_DOUBLE_REFERENCES_DECLARATION_FILE_ONLY", "1")];
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &environment).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Outcome.ok", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    assert_eq!(site_rows(&answer), module_value_sites(), "{answer:#}");
    let use_row = |line, character| {
        ("Outcomes/Use.fs".to_owned(), line, character, "use".to_owned(), "Outcomes.Outcome.ok".to_owned())
    };
    assert_eq!(missed(&answer), vec![use_row(4, 41), use_row(10, 43), use_row(12, 42)], "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (
            &unseen["resolvedByText"],
            &unseen["definitionsAsked"],
            &unseen["resolvedToSymbol"],
            &unseen["unresolvedTotal"]
        ),
        (&json!(227), &json!(3), &json!(3), &json!(0)),
        "{answer:#}"
    );
    editor.stop().await;
}

/// A static member named like the lambda parameters around it (`fixtures/module-values`'s
/// `Bag.item`, as FSharp.Control.TaskSeq's `TaskSeq.item` is in its tests): 36 lambdas `fun
/// item -> item + n` are 72 unqualified occurrences of `item`, which F# never writes for a
/// static member, so the text rules them out, and `List.item` too: a static member is reached
/// through its type (`Bag`) or an abbreviation of it, never through another name (as
/// fsharp-hedgehog's `MaxValue.MaxValue` beside `Int32.MaxValue`). Before, each lambda took a
/// definition and a references request, the bound was spent, and the answer said partial with
/// 10 occurrences not asked; then `List.item` took a definition.
#[tokio::test]
async fn unqualified_occurrences_of_a_static_member_name_cost_no_request() {
    let workspace = fixture_copy("module-values");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Bag.item", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let sites =
        vec![site_row("Outcomes/Bag.fs", 5, 18, "definition"), site_row("Outcomes/Bag.fs", 8, 39, "member-usage")];
    assert_eq!(site_rows(&answer), sites, "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (&unseen["resolvedByText"], &unseen["definitionsAsked"], &unseen["unresolvedTotal"]),
        (&json!(73), &json!(0), &json!(0)),
        "{answer:#}"
    );
    editor.stop().await;
}

/// An instance member named like the parameters around it (`fixtures/instance-members`'s
/// `Window.front`, as FSharpx.Collections' deques name theirs): 66 unqualified occurrences of
/// `front` (the constructor's parameter, thirty functions' parameters), which F# never writes
/// for an instance member, are ruled out by the text; the named argument `Settable(front = 3)`,
/// which sets a property, is asked. Before, every occurrence took a request, the bound was
/// spent, and the answer said partial with occurrences not asked.
#[tokio::test]
async fn unqualified_occurrences_of_an_instance_member_name_cost_no_request() {
    let workspace = fixture_copy("instance-members");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Window.front", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let sites = vec![
        site_row("Panes/Use.fs", 4, 19, "member-usage"),
        site_row("Panes/Use.fs", 6, 28, "member-usage"),
        site_row("Panes/Window.fs", 5, 16, "definition"),
        site_row("Panes/Window.fs", 15, 42, "member-usage"),
    ];
    assert_eq!(site_rows(&answer), sites, "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (&unseen["resolvedByText"], &unseen["definitionsAsked"], &unseen["unresolvedTotal"]),
        (&json!(66), &json!(1), &json!(0)),
        "{answer:#}"
    );
    editor.stop().await;
}

/// An active-pattern case reached, like a module's value, through its module only
/// (`fixtures/signature-patterns`'s `Stack.Nil` beside a `module Queue` with its own
/// `(|Cons|Nil|)`, used as `Queue.Nil`, as FSharpx.Collections' `Deque.Nil` beside `Queue.Nil`,
/// `DList.Nil` and a dozen more): an occurrence qualified by another module is another
/// symbol, ruled out by its text (the three `Queue.*` uses), and so is a bare one outside
/// `[<RequireQualifiedAccess>] module Stack` (`module Cells`'s `Nil`, `Queue.fs`'s). Before, each took a
/// definition request (hundreds on FSharpx.Collections, past the oracle's deadline): here 3
/// definitions and a references request.
/// The signature's case, which no code in `Stack.fsi` uses, is asked at a use in its
/// implementation's file, the request it shares with the implementation's case: one references
/// request in all. Before, it was asked at the first `Nil` of another file, `Queue.Nil` (another
/// symbol, whose answer was dropped): two.
#[tokio::test]
async fn an_active_pattern_case_qualified_by_another_module_costs_no_request() {
    let workspace = fixture_copy("signature-patterns");
    let runtime = tempfile::tempdir().unwrap();
    let trace = runtime.path().join("trace.jsonl");
    let trace_argument = trace.display().to_string();
    let arguments = ["--trace-messages", trace_argument.as_str()];
    let mut editor =
        Editor::start_with_args(workspace.path(), runtime.path(), &double_command(), &[], &arguments).await;
    editor.wait_until_ready().await;
    let answer = editor.execute_result(Command::Find, json!({"query": "Stack.Nil", "timeoutMs": 120000})).await;
    assert_complete(&answer);
    let sites = vec![
        site_row("Shapes/Stack.fs", 21, 15, "definition"),
        site_row("Shapes/Stack.fs", 24, 19, "reference"),
        site_row("Shapes/Stack.fs", 34, 10, "reference"),
        site_row("Shapes/Stack.fsi", 19, 15, "signature"),
        site_row("Shapes/Use.fs", 6, 12, "reference"),
    ];
    assert_eq!(site_rows(&answer), sites, "{answer:#}");
    let unseen = &answer["crossCheck"]["unseenOccurrences"];
    assert_eq!(
        (&unseen["resolvedByText"], &unseen["referencesAsked"], &unseen["unresolvedTotal"]),
        (&json!(5), &json!(0), &json!(0)),
        "{answer:#}"
    );
    editor.stop().await;
    let asked: Vec<(String, Value)> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["direction"] == "proxy->fsac" && entry["message"]["method"] == "textDocument/references")
        .map(|entry| {
            let params = &entry["message"]["params"];
            let uri = params["textDocument"]["uri"].as_str().unwrap_or_default();
            (uri.rsplit('/').next().unwrap_or_default().to_owned(), params["position"].clone())
        })
        .collect();
    assert_eq!(asked, [("Stack.fs".to_owned(), json!({"line": 24, "character": 19}))], "{answer:#}");
}
