//! `find` of a union case through the FSAC double: the sites that pattern
//! matches write (`| Circle _ -> …` in a member of the union, in a `let rec … and` group and in
//! a local function) are references, never definitions with invented owners, because the
//! double's `workspace/symbol` lists declarations only, as FSAC's navigation items do. The
//! expected sites are the `//>` markers of `fixtures/union-patterns`.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::double::{double_command, fixture_copy, found_sites};
use support::markers::{markers_of, read_markers};

#[test]
fn pattern_uses_of_a_union_case_are_references_of_the_one_declaration() {
    let workspace = fixture_copy("union-patterns");
    let runtime = tempfile::tempdir().unwrap();
    let markers = read_markers(workspace.path());
    for (query, symbol) in [("Circle", "Shapes.Shape.Circle"), ("Square", "Shapes.Shape.Square")] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args(["find", query, "--json", "--fsac", &double_command(), "--workspace"])
            .arg(workspace.path())
            .env("XDG_RUNTIME_DIR", runtime.path())
            .output()
            .unwrap();
        let answer: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&output.stderr)));
        assert_eq!((answer["outcome"].clone(), answer["status"].clone()), (json!("found"), json!("ok")), "{answer}");
        let expected: BTreeSet<(String, u64, u64, String, String)> = markers_of(&markers, symbol)
            .into_iter()
            .map(|marker| {
                let file = marker.file.strip_prefix(workspace.path()).unwrap().to_string_lossy().into_owned();
                let kind = if marker.kind == "decl" { "definition" } else { "reference" };
                (file, u64::from(marker.line), u64::from(marker.character), kind.to_owned(), symbol.to_owned())
            })
            .collect();
        assert_eq!(found_sites(&answer), expected, "{query}");
        assert_eq!(answer["resolution"]["declarations"].as_array().map(Vec::len), Some(1), "{answer}");
    }
}
