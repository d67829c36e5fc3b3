//! `fslens.find` on names that are not plain identifiers: operators (`>>=`, `(>>=)`,
//! `op_GreaterGreaterEquals`), backticked identifiers (``` ``value`` ```, ``` ``my value`` ```),
//! against the FSAC double and FSAC's own FindReferences test solution (an ignored test: it
//! needs a checkout of FsAutoComplete, docs/testing.md). Expectations come from `//>` markers
//! in the sources.

use crate::support;
use fslens::commands::registry::Command;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::double::{
    Editor, SiteKey, answer_sites, copy_tree, double_command, fixture_copy, found_sites, site_start,
};
use support::markers::{Marker, read_markers, source_files};

/// (file, start line, start character, end character) of a site, as the answer gives it.
type Span = (String, u64, u64, u64);

async fn find(editor: &mut Editor, argument: Value) -> Value {
    editor.execute_result(Command::Find, argument).await
}

fn spans(answer: &Value) -> BTreeSet<Span> {
    answer_sites(answer)
        .iter()
        .map(|site| {
            let (file, line, character) = site_start(site);
            (file, line, character, site["range"]["end"]["character"].as_u64().unwrap())
        })
        .collect()
}

/// The file (relative to `root`), line and character of a marked site.
fn marked_start(marker: &Marker, root: &Path) -> (String, u64, u64) {
    let file = marker.file.strip_prefix(root).unwrap().display().to_string();
    (file, u64::from(marker.line), u64::from(marker.character))
}

fn marked_spans(markers: &[Marker], root: &Path, symbol: &str) -> BTreeSet<Span> {
    let spans: BTreeSet<Span> = markers
        .iter()
        .filter(|marker| marker.symbol == symbol)
        .map(|marker| {
            let (file, line, character) = marked_start(marker, root);
            (file, line, character, u64::from(marker.character + marker.length))
        })
        .collect();
    assert!(!spans.is_empty(), "no markers for {symbol}");
    spans
}

/// The `names` fixture copied and fslens started on it in front of the double (with
/// `environment`), with the copy's markers.
struct NamesRun {
    workspace: tempfile::TempDir,
    _runtime: tempfile::TempDir,
    markers: Vec<Marker>,
    editor: Editor,
}

impl NamesRun {
    async fn start(environment: &[(&str, &str)]) -> NamesRun {
        let workspace = fixture_copy("names");
        let runtime = tempfile::tempdir().unwrap();
        let markers = read_markers(workspace.path());
        let editor = Editor::start(workspace.path(), runtime.path(), &double_command(), environment).await;
        NamesRun { workspace, _runtime: runtime, markers, editor }
    }

    /// Starts as [`NamesRun::start`] does and waits until FSAC is ready.
    async fn start_ready(environment: &[(&str, &str)]) -> NamesRun {
        let mut run = NamesRun::start(environment).await;
        run.editor.wait_until_ready().await;
        run
    }
}

#[tokio::test]
async fn operators_are_names_in_every_spelling_before_fsac_is_ready() {
    let NamesRun { workspace, _runtime, markers, mut editor } =
        NamesRun::start(&[("FSAC_DOUBLE_SLOW_LOAD_MS", "30000")]).await;
    let root = workspace.path();

    // The operator's definition and its uses, infix and prefix, qualified or not, whichever
    // way the operator is written; ranges cover the operator's characters, as the compiler's.
    let expected = marked_spans(&markers, root, "Toolkit.Ops.(>>=)");
    for query in [">>=", "(>>=)", "op_GreaterGreaterEquals", "Ops.(>>=)", "Toolkit.Ops.op_GreaterGreaterEquals"] {
        let answer = find(&mut editor, json!({"query": query, "maxResults": 100})).await;
        assert_eq!(answer["via"], json!("syntax"), "{answer}");
        assert_eq!(spans(&answer), expected, "{query}: {answer:#}");
        let definition = answer["sites"].as_array().unwrap().iter().find(|site| site["kind"] == "definition");
        assert_eq!(definition.unwrap()["symbolFullName"], json!("Toolkit.Ops.(>>=)"), "{answer:#}");
    }
    // Before FSAC is ready, a signature whose file the grammar cannot parse whole is still
    // found and paired with its implementation.
    let answer = find(&mut editor, json!({"query": "Steps.start"})).await;
    assert_eq!(answer["via"], json!("syntax"), "{answer}");
    assert_eq!(found_sites(&answer), marked_labelled_sites(&markers, root, "Toolkit.Steps.start"), "{answer:#}");
    let starred = find(&mut editor, json!({"query": "***"})).await;
    assert_eq!(spans(&starred), marked_spans(&markers, root, "Toolkit.Ops.op_MultiplyMultiplyMultiply"));
    assert_eq!(starred["resolution"]["declarations"][0]["symbolFullName"], json!("Toolkit.Ops.( *** )"));

    // The outline and read-symbol name operators as operators, not after their first parameter.
    let outline = editor.execute(Command::Outline, json!({"path": "Toolkit/Ops.fs", "summaryOnly": false})).await;
    let outline = outline.get("result").unwrap_or_else(|| panic!("{outline}")).to_string();
    for name in ["(>>=)", "(<!>)", "( *** )"] {
        assert!(outline.contains(&format!("\"name\":\"{name}\"")), "{name} not in {outline}");
    }
    assert!(!outline.contains("\"name\":\"result\"") && !outline.contains("\"name\":\"mapper\""), "{outline}");
    for name in ["Ops.(<!>)", "op_LessBangGreater", "<!>"] {
        let read = editor.execute(Command::ReadSymbol, json!({"name": name, "waitForIndexMs": 20000})).await;
        let source = read["result"]["source"].as_str().unwrap_or_else(|| panic!("{name}: {read}"));
        assert!(source.starts_with("let inline (<!>)"), "{name}: {source}");
    }
    editor.kill().await;
}

/// Once FSAC is ready, an operator is found by FSAC (which finds the symbol at a position with
/// the F# tokenizer, operators included): asked by name or at its declaration inside the
/// parentheses or at an infix use in another project, the answer is complete, every site the
/// compiler's. Before: the double found nothing at an operator, so the answer was the
/// declaration alone and partial.
#[tokio::test]
async fn operators_are_found_by_fsac_by_name_and_at_their_declaration_and_uses() {
    let NamesRun { workspace, _runtime, markers, mut editor } = NamesRun::start_ready(&[]).await;
    let root = workspace.path();

    let at = |path: &str, line: u64, character: u64| json!({"kind": "position", "path": path, "line": line, "character": character, "maxResults": 100});
    let cases = [
        (
            "Toolkit.Ops.(>>=)",
            vec![
                json!({"query": "Ops.(>>=)", "maxResults": 100}),
                at("Toolkit/Ops.fs", 3, 13),
                at("App/Program.fs", 5, 40),
                at("App/Program.fs", 14, 48),
            ],
        ),
        ("Toolkit.Ops.(<!>)", vec![json!({"query": "Ops.(<!>)", "maxResults": 100}), at("App/Program.fs", 8, 63)]),
        (
            "Toolkit.Ops.op_MultiplyMultiplyMultiply",
            vec![
                json!({"query": "Ops.( *** )", "maxResults": 100}),
                at("Toolkit/Ops.fs", 11, 6),
                at("App/Program.fs", 11, 17),
            ],
        ),
    ];
    for (symbol, requests) in cases {
        let expected = marked_spans(&markers, root, symbol);
        for request in requests {
            let answer = find(&mut editor, request.clone()).await;
            assert_eq!(
                (answer["status"].clone(), answer["via"].clone(), answer["completeness"].clone()),
                (json!("ok"), json!("fsac"), json!("complete")),
                "{request}: {answer:#}"
            );
            assert_eq!(spans(&answer), expected, "{request}: {answer:#}");
            assert_eq!(answer["crossCheck"]["missedByBackend"], json!([]), "{request}: {answer:#}");
        }
    }
    editor.kill().await;
}

#[tokio::test]
async fn backticked_sites_cover_the_backticks_and_either_spelling_finds_them() {
    let NamesRun { workspace, _runtime, markers, mut editor } = NamesRun::start_ready(&[]).await;
    let root = workspace.path();

    let value = marked_spans(&markers, root, "Toolkit.Names.value");
    for query in ["value", "``value``", "Names.``value``"] {
        let answer = find(&mut editor, json!({"query": query, "maxResults": 100})).await;
        assert_eq!((answer["via"].clone(), answer["completeness"].clone()), (json!("fsac"), json!("complete")));
        assert_eq!(spans(&answer), value, "{query}: {answer:#}");
    }
    let spaced = marked_spans(&markers, root, "Toolkit.Names.my_value");
    for query in ["``my value``", "Names.``my value``"] {
        let answer = find(&mut editor, json!({"query": query, "maxResults": 100})).await;
        assert_eq!(spans(&answer), spaced, "{query}: {answer:#}");
    }
    // Asked at a backticked use, the answer is the same.
    let answer = find(
        &mut editor,
        json!({"kind": "position", "path": "App/Program.fs", "line": 17, "character": 32, "maxResults": 100}),
    )
    .await;
    assert_eq!(spans(&answer), value, "{answer:#}");
    editor.kill().await;
}

/// One symbol of FSAC's FindReferences test solution: its marked locations, and whether one
/// of them is a declaration (`xxx`).
struct SolutionSymbol {
    name: String,
    locations: BTreeSet<Span>,
    declared: bool,
}

/// FSAC's marker format (FindReferencesTests.fs): a line whose trimmed text starts with `//>`
/// marks the line above; the marks (`^` for a use, `x` for a declaration) start at their
/// column of the untrimmed line, and the rest of the line names the symbol.
fn read_fsac_markers(root: &Path) -> Vec<SolutionSymbol> {
    let mut symbols: Vec<SolutionSymbol> = Vec::new();
    for path in source_files(root, &["fs", "fsx"]) {
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.trim_start_matches('\u{feff}');
        let relative = path.strip_prefix(root).unwrap().display().to_string();
        for (number, line) in text.lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("//>") else { continue };
            let rest = rest.trim();
            let (mark, name) = rest.split_once(' ').unwrap_or((rest, ""));
            let column = line.find(mark).unwrap() as u64;
            let span = (relative.clone(), number as u64 - 1, column, column + mark.len() as u64);
            let declared = mark.starts_with('x');
            match symbols.iter_mut().find(|symbol| symbol.name == name) {
                Some(symbol) => {
                    symbol.locations.insert(span);
                    symbol.declared |= declared;
                }
                None => {
                    symbols.push(SolutionSymbol { name: name.to_owned(), locations: BTreeSet::from([span]), declared })
                }
            }
        }
    }
    symbols.sort_by(|left, right| left.name.cmp(&right.name));
    symbols
}

/// FSAC's own expectations, reproduced exactly: every symbol the solution declares (the
/// external `List.map` and `Seq.map` have no declaration there), asked where FSAC's test asks
/// (its first location in B/WorkingModule.fs), must give exactly the marked ranges.
#[tokio::test]
#[ignore = "needs a checkout of ionide/FsAutoComplete: FSLENS_FSAC_CHECKOUT=/path/to/FsAutoComplete \
            cargo test --test it find_names:: -- --ignored (docs/testing.md)"]
async fn fsac_find_references_solution_is_reproduced_exactly() {
    const VARIABLE: &str = "FSLENS_FSAC_CHECKOUT";
    let checkout = std::env::var_os(VARIABLE).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{VARIABLE} is not set: it names a checkout of ionide/FsAutoComplete (docs/testing.md)")
    });
    let solution = checkout.join("test/FsAutoComplete.Tests.Lsp/TestCases/FindReferences/Solution");
    assert!(
        solution.join("Solution.sln").is_file(),
        "{} has no Solution.sln ({VARIABLE} names no FsAutoComplete checkout)",
        solution.display()
    );
    let workspace = tempfile::tempdir().unwrap();
    copy_tree(&solution, workspace.path());
    let root = workspace.path();
    let symbols: Vec<SolutionSymbol> = read_fsac_markers(root).into_iter().filter(|symbol| symbol.declared).collect();
    assert_eq!(
        symbols.len(),
        6,
        "the solution's declared symbols: {:?}",
        symbols.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let main = "B/WorkingModule.fs";
    for symbol in &symbols {
        let cursor = symbol.locations.iter().filter(|span| span.0 == main).min().expect("a location in the main file");
        let answer = find(
            &mut editor,
            json!({"kind": "position", "path": main, "line": cursor.1, "character": cursor.2, "maxResults": 1000}),
        )
        .await;
        assert_eq!(answer["completeness"], json!("complete"), "{}: {answer:#}", symbol.name);
        assert_eq!(spans(&answer), symbol.locations, "{}: {answer:#}", symbol.name);
    }
    editor.kill().await;
}

/// The syntax index, not the backend's `workspace/symbol`, decides which sites are
/// declarations where it has indexed the file: the double lists the `| Circle _` rules of a
/// match inside the union's own member as union cases (its line scanner takes them for cases),
/// and those must stay references.
#[tokio::test]
async fn pattern_uses_stay_references_whatever_workspace_symbol_lists() {
    let NamesRun { workspace, _runtime, markers, mut editor } = NamesRun::start_ready(&[]).await;
    let root = workspace.path();

    let answer = find(&mut editor, json!({"query": "Circle", "maxResults": 100})).await;
    // Sites by place and kind only: the symbol each names is not what this test is about.
    let without_symbol = |sites: BTreeSet<SiteKey>| -> BTreeSet<(String, u64, u64, String)> {
        sites.into_iter().map(|(file, line, character, kind, _)| (file, line, character, kind)).collect()
    };
    let found = without_symbol(found_sites(&answer));
    let expected = without_symbol(marked_labelled_sites(&markers, root, "Toolkit.Shapes.Shape.Circle"));
    assert_eq!(found, expected, "{answer:#}");
    assert_eq!(answer["resolution"]["declarations"].as_array().unwrap().len(), 1, "{answer:#}");
    editor.kill().await;
}

/// The sites marked for `symbol`, as [`found_sites`] gives an answer's: a `decl` marker is a
/// definition, a `signature` marker a signature, any other a reference.
fn marked_labelled_sites(markers: &[Marker], root: &Path, symbol: &str) -> BTreeSet<SiteKey> {
    markers
        .iter()
        .filter(|marker| marker.symbol == symbol)
        .map(|marker| {
            let kind = match marker.kind.as_str() {
                "decl" => "definition",
                "signature" => "signature",
                _ => "reference",
            };
            let (file, line, character) = marked_start(marker, root);
            (file, line, character, kind.to_owned(), symbol.to_owned())
        })
        .collect()
}

/// A `.fsi` `val` and its implementation are one symbol: asked by name, at the
/// implementation, at the signature or at a use in another project, the answer holds the
/// signature site (kind `signature`), the implementation and every use, named by the
/// qualified name, and says it is complete only then.
#[tokio::test]
async fn a_signature_and_its_implementation_are_one_symbol_whichever_way_find_is_asked() {
    let NamesRun { workspace, _runtime, markers, mut editor } = NamesRun::start_ready(&[]).await;
    let root = workspace.path();

    let symbol = "Toolkit.Parsing.count";
    let expected = marked_labelled_sites(&markers, root, symbol);
    let at = |path: &str, line: u64, character: u64| json!({"kind": "position", "path": path, "line": line, "character": character, "maxResults": 100});
    let requests = [
        json!({"query": "count", "maxResults": 100}),
        json!({"query": "Parsing.count", "maxResults": 100}),
        at("Toolkit/Parsing.fs", 11, 8),
        at("Toolkit/Parsing.fsi", 14, 4),
        at("App/Program.fs", 22, 24),
    ];
    for request in requests {
        let answer = find(&mut editor, request.clone()).await;
        assert_eq!(found_sites(&answer), expected, "{request}: {answer:#}");
        assert_eq!(answer["completeness"], json!("complete"), "{request}: {answer:#}");
        assert_eq!(answer["crossCheck"]["missedByBackend"], json!([]), "{request}: {answer:#}");
        let roles: BTreeSet<&str> = answer["resolution"]["declarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|declaration| declaration["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, BTreeSet::from(["declaration", "signature"]), "{request}: {answer:#}");
    }

    // A signature file whose member signatures the syntax grammar cannot parse: its `val` is
    // read from the line, and pairs with the implementation all the same.
    let steps = marked_labelled_sites(&markers, root, "Toolkit.Steps.start");
    for request in [json!({"query": "Steps.start"}), at("App/Program.fs", 41, 21), at("Toolkit/Steps.fsi", 9, 4)] {
        let answer = find(&mut editor, request.clone()).await;
        assert_eq!(found_sites(&answer), steps, "{request}: {answer:#}");
        assert_eq!(answer["completeness"], json!("complete"), "{request}: {answer:#}");
    }

    // A type declared in the signature pairs with its implementation too.
    let answer = find(&mut editor, json!({"query": "Parsing.Token", "kind": "definition"})).await;
    let kinds: BTreeSet<String> = found_sites(&answer).into_iter().map(|site| site.3).collect();
    assert_eq!(kinds, BTreeSet::from(["definition".to_owned(), "signature".to_owned()]), "{answer:#}");
    editor.kill().await;
}

/// A `complete` answer is cross-checked against the syntax index: a backend whose references
/// leave out the signature site (the double with `FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES`)
/// gets an answer that is not complete and names the declaration it missed.
#[tokio::test]
async fn a_backend_that_misses_the_signature_makes_the_answer_partial_and_named() {
    let NamesRun { workspace: _workspace, _runtime, mut editor, .. } =
        NamesRun::start_ready(&[("FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES", "1")]).await;

    for request in [
        json!({"query": "Parsing.count"}),
        json!({"kind": "position", "path": "App/Program.fs", "line": 22, "character": 24}),
    ] {
        let answer = find(&mut editor, request.clone()).await;
        assert_eq!(answer["completeness"], json!("partial"), "{request}: {answer:#}");
        assert_eq!(answer["status"], json!("partial"), "{request}: {answer:#}");
        assert_eq!(answer["coverage"]["complete"], json!(false), "{request}: {answer:#}");
        let missed = answer["crossCheck"]["missedByBackend"].as_array().unwrap();
        assert_eq!(missed.len(), 1, "{request}: {answer:#}");
        assert_eq!(
            (missed[0]["file"].clone(), missed[0]["role"].clone(), missed[0]["symbolFullName"].clone()),
            (json!("Toolkit/Parsing.fsi"), json!("signature"), json!("Toolkit.Parsing.count"))
        );
        assert!(answer["notes"].to_string().contains("crossCheck.missedByBackend"), "{answer:#}");
    }
    editor.kill().await;
}
