//! The syntax index sees what the compiler sees, on
//! `fixtures/conditional-and-operators`: `let`s between `#if !FABLE_COMPILER` / `#endif` written
//! at column 0 inside an indented module (a common library style), and operator members
//! `static member (<<<)`, `(>>>)`, `(+)`. Both files parse cleanly, so a `not_found` about them
//! was `certain: true` and a `find` by name `not_found`, `complete`, while the compiler
//! compiles them.

use crate::support;

use serde_json::json;
use support::double::{double_command, fixture_copy, fslens_json, site_row, site_rows};

#[test]
fn read_symbol_finds_lets_inside_a_column_0_if_and_operator_members() {
    let workspace = fixture_copy("conditional-and-operators");
    let runtime = tempfile::tempdir().unwrap();
    for (name, full_name, kind, path, line) in [
        ("Option.tryParse", "Toolbox.Option.tryParse", "let", "Options.fs", 8),
        ("tryParseFloat", "Toolbox.Option.tryParseFloat", "let", "Options.fs", 13),
        ("Option.isBlank", "Toolbox.Option.isBlank", "let", "Options.fs", 19),
        ("<<<", "Toolbox.Bits.(<<<)", "member", "Bits.fs", 5),
        ("Bits.(>>>)", "Toolbox.Bits.(>>>)", "member", "Bits.fs", 7),
        ("op_Addition", "Toolbox.Bits.(+)", "member", "Bits.fs", 9),
    ] {
        let answer = fslens_json(workspace.path(), runtime.path(), &["read-symbol", name]);
        assert_eq!(answer["status"], json!("ok"), "{name}: {answer:#}");
        let symbol = &answer["symbol"];
        assert_eq!(
            (&symbol["fullName"], &symbol["kind"], &symbol["path"], &symbol["line"]),
            (&json!(full_name), &json!(kind), &json!(path), &json!(line)),
            "{name}: {answer:#}"
        );
    }
    // The files parse cleanly: what the index says about them is what the compiler sees.
    let answer =
        fslens_json(workspace.path(), runtime.path(), &["read-enclosing", "--path", "Options.fs", "--line", "10"]);
    assert_eq!(answer["health"], json!("clean"), "{answer:#}");
    assert_eq!(answer["symbol"]["fullName"], json!("Toolbox.Option.tryParse"), "{answer:#}");
}

#[test]
fn find_by_name_resolves_a_let_inside_a_column_0_if_and_an_operator_member() {
    let workspace = fixture_copy("conditional-and-operators");
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let answer = fslens_json(workspace.path(), runtime.path(), &["find", "Option.tryParse", "--fsac", &fsac]);
    assert_eq!((&answer["outcome"], &answer["status"]), (&json!("found"), &json!("ok")), "{answer:#}");
    assert_eq!(
        site_rows(&answer),
        [site_row("Options.fs", 8, 8, "definition"), site_row("Use.fs", 2, 20, "reference")],
        "{answer:#}"
    );

    // The operator member is resolved by name. The double's references do not resolve an
    // operator member's name, so the answer says it is partial and names the declaration
    // the backend missed, instead of `not_found`, complete.
    let answer = fslens_json(workspace.path(), runtime.path(), &["find", "<<<", "--fsac", &fsac]);
    assert_eq!(answer["outcome"], json!("found"), "{answer:#}");
    assert_eq!(answer["resolution"]["declarations"][0]["symbolFullName"], json!("Toolbox.Bits.(<<<)"), "{answer:#}");
    assert!(site_rows(&answer).contains(&site_row("Bits.fs", 5, 19, "definition")), "{answer:#}");
    if answer["status"] != json!("ok") {
        assert_eq!(answer["crossCheck"]["missedByBackend"][0]["symbolFullName"], json!("Toolbox.Bits.(<<<)"));
    }
}

#[test]
fn an_object_expressions_members_are_no_members_of_the_enclosing_declaration() {
    let workspace = fixture_copy("conditional-and-operators");
    let runtime = tempfile::tempdir().unwrap();
    // `Name` is declared once, by the interface; the object expressions implement it.
    let answer = fslens_json(workspace.path(), runtime.path(), &["read-symbol", "Name"]);
    assert_eq!(answer["status"], json!("ok"), "{answer:#}");
    assert_eq!(answer["symbol"]["fullName"], json!("Toolbox.Shapes.IShape.Name"), "{answer:#}");
    let answer = fslens_json(workspace.path(), runtime.path(), &["read-symbol", "Registry.Name"]);
    assert_eq!(answer["status"], json!("not_found"), "{answer:#}");
    let answer = fslens_json(workspace.path(), runtime.path(), &["read-symbol", "unit.Area"]);
    assert_eq!(answer["status"], json!("not_found"), "{answer:#}");
}

#[test]
fn a_position_the_compiler_does_not_resolve_is_never_not_found_when_the_workspace_declares_the_name() {
    let workspace = fixture_copy("conditional-and-operators");
    let runtime = tempfile::tempdir().unwrap();
    // The double's definition resolves no operator member; the index knows `(<<<)` is declared
    // in Bits.fs, so "nothing here, complete" would be a guess.
    let answer = fslens_json(
        workspace.path(),
        runtime.path(),
        &[
            "find",
            "--kind",
            "position",
            "--path",
            "Use.fs",
            "--line",
            "6",
            "--word",
            "<<<",
            "--fsac",
            &double_command(),
        ],
    );
    assert_ne!(answer["outcome"], json!("not_found"), "{answer:#}");
    assert_ne!(answer["status"], json!("ok"), "{answer:#}");
    assert_eq!(answer["coverage"]["complete"], json!(false), "{answer:#}");
    assert!(
        answer["notes"].as_array().unwrap().iter().any(|note| note.as_str().unwrap().contains("Toolbox.Bits.(<<<)")),
        "{answer:#}"
    );
}
