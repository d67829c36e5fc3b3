//! `fslens.find` names the compiler's symbol on every row, against the FSAC double on
//! `fixtures/symbols`: what the syntax index names alike and the compiler keeps
//! apart is answered as two symbols, each with its own sites, or not at all when the query
//! does not name it. Expected sites come from the fixture's `//>` markers.
//!
//! 1. A type and a module of one name in one namespace (`TaskResult`, `Tree`): beside a generic
//!    type the module has no `Module` suffix (FCS: `HasFSharpModuleSuffix` false; the find
//!    oracle judges `fixtures/symbols` all exact with it), so both are `Symbols.TaskResult`,
//!    each row names the one it belongs to by its `symbolKind`, `resolution.symbols` lists
//!    both. A marker's symbol `X@module` is the module `X`.
//! 2. A member and a same-named field of an anonymous record (`Settings.Quiet`): the field is
//!    no declaration of `Settings`.
//! 3. A sibling type's same-named member (`ABuilder.Source`, `BBuilder.Source`).
//! 4. An intrinsic member and an extension member of one name on one type (`XBase.Using`):
//!    the extension is its module's (`Symbols.LowPriority.Using`).
//!
//! A rename asks for one symbol: by a name several share it answers `status: "ambiguous"` with
//! the candidates and changes nothing; by the compiler's name of one, only that one's uses.

use crate::support;
use fslens::commands::registry::Command;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};
use support::double::{Editor, SiteKey, answer_sites, double_command, fixture_copy, found_sites, site_start};
use support::markers::{Marker, read_markers};

async fn find(editor: &mut Editor, argument: Value) -> Value {
    editor.execute_result(Command::Find, argument).await
}

/// The marked sites of `symbols`, as [`found_sites`] gives an answer's (a marker `X@module`
/// is a site of the module `X`, named `X`).
fn expected(markers: &[Marker], root: &Path, symbols: &[&str]) -> BTreeSet<SiteKey> {
    let found: BTreeSet<SiteKey> = markers
        .iter()
        .filter(|marker| symbols.contains(&marker.symbol.as_str()))
        .map(|marker| {
            let kind = match marker.kind.as_str() {
                "decl" => "definition",
                "member" => "member-usage",
                _ => "reference",
            };
            let file = marker.file.strip_prefix(root).unwrap().display().to_string();
            let symbol = marker.symbol.trim_end_matches("@module").to_owned();
            (file, u64::from(marker.line), u64::from(marker.character), kind.to_owned(), symbol)
        })
        .collect();
    assert!(!found.is_empty(), "no markers for {symbols:?}");
    found
}

/// `resolution.symbols`: (symbol, kind) → (declarations, sites).
fn listed_symbols(answer: &Value) -> BTreeMap<(String, String), (u64, u64)> {
    answer["resolution"]["symbols"]
        .as_array()
        .unwrap_or_else(|| panic!("no resolution.symbols: {answer:#}"))
        .iter()
        .map(|symbol| {
            (
                (
                    symbol["symbolFullName"].as_str().unwrap().to_owned(),
                    symbol["symbolKind"].as_str().unwrap_or("<none>").to_owned(),
                ),
                (symbol["declarations"].as_u64().unwrap(), symbol["sites"].as_u64().unwrap()),
            )
        })
        .collect()
}

/// Every row's `symbolKind`, by its symbol.
fn row_kinds(answer: &Value) -> BTreeSet<(String, String)> {
    answer_sites(answer)
        .iter()
        .map(|site| {
            let name = site["symbolFullName"].as_str().unwrap_or("<null>").to_owned();
            (name, site["symbolKind"].as_str().unwrap_or("<none>").to_owned())
        })
        .collect()
}

fn complete(answer: &Value) {
    assert_eq!((answer["status"].clone(), answer["via"].clone()), (json!("ok"), json!("fsac")), "{answer:#}");
    assert_eq!(answer["coverage"]["complete"], json!(true), "{answer:#}");
}

fn owned(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs.iter().map(|(name, kind)| (name.to_string(), kind.to_string())).collect()
}

#[tokio::test]
async fn every_row_names_the_compilers_symbol_and_a_query_naming_two_answers_both_apart() {
    let workspace = fixture_copy("symbols");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let markers = read_markers(root);
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    // 1. A type and a module of one name: both symbols, each with its own sites.
    for (query, type_name, module_name) in [
        ("Symbols.TaskResult", "Symbols.TaskResult", "Symbols.TaskResult@module"),
        ("Tree", "Symbols.Tree", "Symbols.Tree@module"),
    ] {
        let answer = find(&mut editor, json!({"query": query, "maxResults": 1000})).await;
        complete(&answer);
        let both = expected(&markers, root, &[type_name, module_name]);
        assert_eq!(found_sites(&answer), both, "{query}: {answer:#}");
        assert_eq!(row_kinds(&answer), owned(&[(type_name, "type"), (type_name, "module")]), "{query}");
        // Each row's kind is its marker's.
        let module_sites = expected(&markers, root, &[module_name]);
        for site in answer_sites(&answer) {
            let at = site_start(site);
            let marked_module =
                module_sites.iter().any(|marked| (&marked.0, marked.1, marked.2) == (&at.0, at.1, at.2));
            let kind = if marked_module { "module" } else { "type" };
            assert_eq!(site["symbolKind"], kind, "{query}: {site}");
        }
        let count = |symbol: &str| expected(&markers, root, &[symbol]).len() as u64;
        let symbols = listed_symbols(&answer);
        assert_eq!(
            symbols,
            BTreeMap::from([
                ((type_name.to_owned(), "type".to_owned()), (1, count(type_name))),
                ((type_name.to_owned(), "module".to_owned()), (1, count(module_name))),
            ]),
            "{query}: {answer:#}"
        );
        let declared: BTreeSet<&str> = answer["resolution"]["declarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|declaration| declaration["symbolFullName"].as_str().unwrap())
            .collect();
        assert_eq!(declared, BTreeSet::from([type_name]), "{query}");
    }

    // Asked for one at a position, the compiler's one: the module's use, then the type's.
    let at_module = json!({"kind": "position", "path": "Lib/Use.fs", "line": 4, "word": "TaskResult", "occurrence": 2});
    let answer = find(&mut editor, at_module).await;
    complete(&answer);
    assert_eq!(found_sites(&answer), expected(&markers, root, &["Symbols.TaskResult@module"]), "{answer:#}");
    let at_type = json!({"kind": "position", "path": "Lib/Use.fs", "line": 4, "word": "TaskResult", "occurrence": 1});
    let answer = find(&mut editor, at_type).await;
    assert_eq!(found_sites(&answer), expected(&markers, root, &["Symbols.TaskResult"]), "{answer:#}");

    // 2. The member, not the anonymous record's field it reads.
    let answer = find(&mut editor, json!({"query": "Settings.Quiet", "maxResults": 1000})).await;
    complete(&answer);
    assert_eq!(found_sites(&answer), expected(&markers, root, &["Symbols.Settings.Quiet"]), "{answer:#}");
    assert_eq!(row_kinds(&answer), owned(&[("Symbols.Settings.Quiet", "member")]));
    assert_eq!(listed_symbols(&answer).len(), 1, "{answer:#}");

    // 3. One builder's member, not its sibling's.
    for symbol in ["Symbols.ABuilder.Source", "Symbols.BBuilder.Source"] {
        let query = symbol.trim_start_matches("Symbols.");
        let answer = find(&mut editor, json!({"query": query, "maxResults": 1000})).await;
        complete(&answer);
        assert_eq!(found_sites(&answer), expected(&markers, root, &[symbol]), "{query}: {answer:#}");
        assert_eq!(row_kinds(&answer), owned(&[(symbol, "member")]), "{query}");
    }

    // 4. The intrinsic member and the extension member: two symbols, each with its sites.
    let answer = find(&mut editor, json!({"query": "XBase.Using", "maxResults": 1000})).await;
    complete(&answer);
    let both = ["Symbols.XBase.Using", "Symbols.LowPriority.Using"];
    assert_eq!(found_sites(&answer), expected(&markers, root, &both), "{answer:#}");
    assert_eq!(
        listed_symbols(&answer),
        BTreeMap::from([
            (("Symbols.XBase.Using".to_owned(), "member".to_owned()), (1, 2)),
            (("Symbols.LowPriority.Using".to_owned(), "member".to_owned()), (1, 2)),
        ]),
        "{answer:#}"
    );

    editor.kill().await;
}

/// The marked declarations of `symbols` (name, kind), as rename's `candidates` list them.
fn declared(markers: &[Marker], root: &Path, symbols: &[(&str, &str)]) -> BTreeSet<String> {
    markers
        .iter()
        .filter(|marker| marker.kind == "decl")
        .filter_map(|marker| {
            let (_, kind) = symbols.iter().find(|(name, _)| *name == marker.symbol)?;
            // `@module` tells a module from the generic type of its name in the markers; the
            // compiler names both alike.
            Some(
                json!({
                    "symbolFullName": marker.symbol.trim_end_matches("@module"),
                    "symbolKind": kind,
                    "path": marker.file.strip_prefix(root).unwrap().display().to_string(),
                    "line": marker.line,
                    "character": marker.character,
                })
                .to_string(),
            )
        })
        .collect()
}

/// Every source file's text under `root`, by its workspace-relative path.
fn sources(root: &Path) -> BTreeMap<String, String> {
    let lib = root.join("Lib");
    std::fs::read_dir(&lib)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "fs"))
        .map(|path| (path.strip_prefix(root).unwrap().display().to_string(), std::fs::read_to_string(&path).unwrap()))
        .collect()
}

/// `texts` with every marked site of `symbol` spelled `new_name` (the fixtures are ASCII).
fn renamed(
    texts: &BTreeMap<String, String>,
    markers: &[Marker],
    root: &Path,
    symbol: &str,
    new_name: &str,
) -> BTreeMap<String, String> {
    let mut texts = texts.clone();
    for (file, text) in texts.iter_mut() {
        let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        let mut sites: Vec<&Marker> = markers
            .iter()
            .filter(|marker| {
                marker.symbol == symbol && marker.file.strip_prefix(root).unwrap().display().to_string() == *file
            })
            .collect();
        sites.sort_by_key(|marker| std::cmp::Reverse((marker.line, marker.character)));
        for marker in sites {
            let line = &mut lines[marker.line as usize];
            let (start, end) = (marker.character as usize, (marker.character + marker.length) as usize);
            line.replace_range(start..end, new_name);
        }
        *text = lines.join("\n");
    }
    texts
}

/// A rename asks for one symbol. A name several compiler symbols share answers `status:
/// "ambiguous"` with each one's compiler name, kind and definition, and renames nothing, even
/// with `apply: "disk"`; a candidate's position (the module beside the generic type, which the
/// compiler names alike) renames exactly its uses, none of the type's.
#[tokio::test]
async fn a_rename_by_a_name_several_symbols_share_is_ambiguous_and_a_candidates_position_renames_one() {
    let workspace = fixture_copy("symbols");
    let runtime = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let markers = read_markers(root);
    let before = sources(root);
    let mut editor = Editor::start(root, runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;

    for (symbol, both) in [
        ("Symbols.TaskResult", [("Symbols.TaskResult", "type"), ("Symbols.TaskResult@module", "module")]),
        ("Tree", [("Symbols.Tree", "type"), ("Symbols.Tree@module", "module")]),
        ("XBase.Using", [("Symbols.XBase.Using", "member"), ("Symbols.LowPriority.Using", "member")]),
    ] {
        let argument = json!({
            "symbol": symbol,
            "newName": "Outcome",
            "apply": "disk",
            "expectedHashes": {"Lib/Use.fs": "sha256:00"},
        });
        let answer = editor.execute_result(Command::Rename, argument).await;
        assert_eq!(
            (answer["status"].clone(), answer["writtenToDisk"].clone(), answer["applied"]["applied"].clone()),
            (json!("ambiguous"), json!(false), json!(false)),
            "{symbol}: {answer:#}"
        );
        assert_eq!(answer["symbol"], json!(symbol), "{answer:#}");
        let candidates: BTreeSet<String> =
            answer["candidates"].as_array().unwrap().iter().map(Value::to_string).collect();
        assert_eq!(candidates, declared(&markers, root, &both), "{symbol}: {answer:#}");
        assert!(answer.get("files").is_none(), "an ambiguous answer previews no edit: {answer:#}");
    }
    assert_eq!(sources(root), before, "an ambiguous rename changes no file");

    // A candidate's position (the module's declaration) renames only the module's uses, none
    // of the type's: the compiler names both `Symbols.TaskResult`, so no name tells them apart.
    let module = markers
        .iter()
        .find(|marker| marker.kind == "decl" && marker.symbol == "Symbols.TaskResult@module")
        .expect("the module's declaration is marked");
    let at_module = json!({
        "path": module.file.strip_prefix(root).unwrap().display().to_string(),
        "line": module.line,
        "character": module.character,
        "newName": "Outcome",
    });
    let preview = editor.execute_result(Command::Rename, at_module.clone()).await;
    assert_eq!((preview["status"].clone(), preview["complete"].clone()), (json!("ok"), json!(true)), "{preview:#}");
    assert_eq!(preview["oldName"], json!("TaskResult"), "{preview:#}");
    let module_sites = markers.iter().filter(|marker| marker.symbol == "Symbols.TaskResult@module").count();
    assert_eq!(preview["totalEdits"], json!(module_sites), "{preview:#}");
    let mut argument = at_module;
    argument["apply"] = json!("disk");
    argument["expectedHashes"] = preview["fileHashes"].clone();
    let applied = editor.execute_result(Command::Rename, argument).await;
    assert_eq!(applied["writtenToDisk"], json!(true), "{applied:#}");
    assert_eq!(sources(root), renamed(&before, &markers, root, "Symbols.TaskResult@module", "Outcome"));
    editor.kill().await;
}
