//! Declarations inside an error region of an implementation file, through the real binary with
//! no FSAC. tree-sitter-fsharp 0.3.12 fails from an indented `#if` between two bindings to the
//! end of the file (valid F#; FSharpPlus's `Operators.fs` loses 1,700 lines to it), and the
//! syntax layer used to see only what came before: a find for an operator declared after it
//! was `indeterminate` with no rows. `fixtures/error-regions` reproduces the layout.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::syntax_find::syntax_find;

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/error-regions")
}

fn outline(path: &str) -> Value {
    outline_in(&fixture_root(), path)
}

fn outline_in(root: &Path, path: &str) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["outline", "--full", "--json", "--no-share", "--fsac", "/nonexistent/fsautocomplete-for-this-test"])
        .args(["--path", path, "--workspace"])
        .arg(root)
        .env("FSLENS_CACHE_DIR", "off")
        .env_remove("FSLENS_FSAC")
        .output()
        .expect("run fslens outline");
    assert!(output.status.success(), "fslens outline failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("outline prints JSON")
}

/// `(full name of the entry, kind, name, certain)` for every entry and member, depth first.
fn declarations(answer: &Value) -> Vec<(String, String, String, bool)> {
    fn walk(entries: &Value, parent: &str, into: &mut Vec<(String, String, String, bool)>) {
        for entry in entries.as_array().into_iter().flatten() {
            let name = entry["name"].as_str().unwrap_or_default().to_owned();
            let full = entry["fullName"].as_str().map(str::to_owned).unwrap_or_else(|| format!("{parent}.{name}"));
            let certain = entry["certain"].as_bool().unwrap_or(true);
            into.push((full.clone(), entry["kind"].as_str().unwrap_or_default().to_owned(), name, certain));
            walk(&entry["children"], &full, into);
            walk(&entry["members"], &full, into);
        }
    }
    let mut found = Vec::new();
    walk(&answer["entries"], "", &mut found);
    found
}

/// fixtures/qualifiers' `Folds.fs`: a one-line `try … finally` in a member body makes the
/// file's root an error, and the `namespace Qualifiers.Trees` line with it; the modules and
/// types the tree still read are inside that namespace, as the compiler names them. Before,
/// they were top-level (`Seeds.zero`, `Folder.FoldAsync`), and every find row of them was
/// labelled without the namespace.
#[test]
fn a_file_whose_root_is_an_error_keeps_its_namespace_around_the_declarations_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/qualifiers");
    let answer = outline_in(&root, "Qualifiers/Folds.fs");
    assert_eq!(answer["health"]["status"], "degraded", "{answer:#}");
    let found = declarations(&answer);
    let names: Vec<&str> = found.iter().map(|(full, ..)| full.as_str()).collect();
    for expected in ["Qualifiers.Trees", "Qualifiers.Trees.Seeds", "Qualifiers.Trees.Folder"] {
        assert!(names.contains(&expected), "{expected} is not in the outline: {names:?}");
    }
    assert!(!names.iter().any(|name| name.starts_with("Seeds") || name.starts_with("Folder")), "{names:?}");
}

#[test]
fn declarations_after_a_grammar_failure_are_read_from_the_lines_and_marked_uncertain() {
    let answer = outline("Lenses/Combinators.fs");
    assert_eq!(answer["health"]["status"], "degraded", "{answer:#}");
    let region = &answer["health"]["errorRegions"][0];
    assert_eq!(region["start"]["line"], 0, "the `$$\"\"\"` string makes the whole file one region: {region}");
    let found = declarations(&answer);
    let names: Vec<&str> = found.iter().map(|(full, ..)| full.as_str()).collect();
    for expected in [
        "Lenses.Combinators.flip",
        "Lenses.Combinators.curryPair",
        "Lenses.Combinators.quoted",
        "Lenses.Combinators.(<!>)",
        "Lenses.Combinators.(|NonEmpty|_|)",
        "Lenses.Combinators.twice",
        "Lenses.Combinators.Box",
        "Lenses.Combinators.Box.Value",
        "Lenses.Combinators.Box.Wrap",
        "Lenses.Combinators.Box.ToString",
        "Lenses.Combinators.describe",
        "Lenses.Combinators.lengthOf",
    ] {
        assert!(names.contains(&expected), "{expected} is not in the outline: {names:?}");
    }
    // A local binding in a recovered body is not a declaration.
    assert!(!names.iter().any(|name| name.ends_with(".once")), "{names:?}");
    // Read from lines, so never certain; what the tree parsed before the error stays certain.
    for (full, _, _, certain) in &found {
        if full.ends_with(".twice") || full.ends_with(".Wrap") {
            assert!(!certain, "{full} was read from lines");
        }
    }
}

#[test]
fn a_find_resolves_a_name_declared_inside_the_error_region() {
    let root = fixture_root();
    let answer = syntax_find(&root, &["(<!>)"]);
    assert_eq!(answer["outcome"], "found", "{answer:#}");
    let declared: Vec<&Value> = answer["resolution"]["declarations"].as_array().unwrap().iter().collect();
    assert_eq!(declared.len(), 1, "{answer:#}");
    assert_eq!(declared[0]["symbolFullName"], "Lenses.Combinators.(<!>)");
    let sites: Vec<(String, u64, String)> = answer["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|site| {
            let file = site["file"].as_str().unwrap().to_owned();
            (file, site["range"]["start"]["line"].as_u64().unwrap(), site["kind"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected = [
        ("Lenses/Combinators.fs".to_owned(), 13, "definition".to_owned()),
        ("Lenses/Combinators.fs".to_owned(), 31, "reference".to_owned()),
        ("Lenses/Use.fs".to_owned(), 4, "reference".to_owned()),
    ];
    assert_eq!(sites, expected, "{answer:#}");
    // The definition's range is the operator's characters, as for a parsed declaration.
    let definition = &answer["sites"][0]["range"];
    assert_eq!(
        (definition["start"]["character"].as_u64(), definition["end"]["character"].as_u64()),
        (Some(16), Some(19))
    );

    // A member of a recovered type, qualified by it.
    let answer = syntax_find(&root, &["Box.Wrap"]);
    assert_eq!(answer["resolution"]["declarations"][0]["symbolFullName"], "Lenses.Combinators.Box.Wrap", "{answer:#}");
    let kinds: Vec<&str> =
        answer["sites"].as_array().unwrap().iter().map(|site| site["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["definition", "member-usage"], "{answer:#}");
}

#[test]
fn an_active_patterns_case_is_found_by_its_own_name() {
    let answer = syntax_find(&fixture_root(), &["NonEmpty"]);
    assert_eq!(answer["outcome"], "found", "{answer:#}");
    // Named by its pattern, as the compiler names the case where it is used.
    let declared = &answer["resolution"]["declarations"][0]["symbolFullName"];
    assert_eq!(declared, "Lenses.Combinators.(|NonEmpty|_|).NonEmpty", "{answer:#}");
    let sites: Vec<(u64, u64, &str)> = answer["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|site| {
            let start = &site["range"]["start"];
            (start["line"].as_u64().unwrap(), start["character"].as_u64().unwrap(), site["kind"].as_str().unwrap())
        })
        .collect();
    // The case's characters inside `(|NonEmpty|_|)`, and its use in `describe`'s match.
    assert_eq!(sites, [(15, 17, "definition"), (28, 10, "reference")], "{answer:#}");
}
