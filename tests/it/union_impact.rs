//! `fslens.unionCaseImpact` against the FSAC double on `fixtures/union`: adding a case lists
//! every `match` it makes incomplete in both projects (and the match with a `_` arm apart, as a
//! wildcard match), removing one lists every use of it, bad arguments are refused by name;
//! disk and the editor are never touched. `dotnet build` of the fixture with the edits agrees
//! (fixtures/README.md records what it said).

use crate::support;
use fslens::commands::registry::Command;
use fslens::commands::union_impact::{CaseChange, ImpactKind, UnionCaseImpactAnswer};

use std::collections::BTreeSet;
use std::path::Path;

use fslens::syntax::union_declaration::UseKind;
use serde_json::{Value, json};
use support::double::{Editor, fixture_copy};

/// An impact as the test compares it: file, line, kind, code, function, projects.
type ImpactRow = (String, u32, ImpactKind, String, Option<String>, Vec<String>);

const FILES: [&str; 4] = ["Geometry/Shape.fs", "App/Render.fs", "Geometry/Geometry.fsproj", "App/App.fsproj"];

fn disk_bytes(workspace: &Path) -> Vec<Vec<u8>> {
    FILES.iter().map(|file| std::fs::read(workspace.join(file)).unwrap()).collect()
}

/// The 0-based line of the only line of `file` containing `needle`.
fn line_of(workspace: &Path, file: &str, needle: &str) -> u32 {
    let text = std::fs::read_to_string(workspace.join(file)).unwrap();
    let lines: Vec<usize> =
        text.lines().enumerate().filter(|(_, line)| line.contains(needle)).map(|(at, _)| at).collect();
    assert_eq!(lines.len(), 1, "{needle:?} in {file}: {lines:?}");
    lines[0] as u32
}

/// Every (line, character) of whole-word `word` in `file`, outside its declaration line.
fn uses_of(workspace: &Path, file: &str, word: &str) -> Vec<(u32, u32)> {
    let text = std::fs::read_to_string(workspace.join(file)).unwrap();
    let mut found = Vec::new();
    for (at, line) in text.lines().enumerate() {
        if line.trim_start().starts_with(&format!("| {word} of")) {
            continue;
        }
        for (column, _) in line.match_indices(word) {
            let before = line[..column].chars().last();
            let after = line[column + word.len()..].chars().next();
            if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
                found.push((at as u32, column as u32));
            }
        }
    }
    found
}

/// Whether a message to the editor shows the hypothetical text: a version only a what-if uses,
/// or anything naming the added case.
fn shows_the_hypothesis(message: &Value, added_case: &str) -> bool {
    let params = &message["params"];
    let what_if_version = [&params["version"], &params["textDocument"]["version"]]
        .iter()
        .any(|version| version.as_i64().is_some_and(|version| version >= 1_000_000_000));
    what_if_version || message.to_string().contains(added_case)
}

#[tokio::test]
async fn adding_a_case_lists_every_match_it_breaks_in_both_projects_and_nothing_else() {
    let workspace = fixture_copy("union");
    let root = workspace.path();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(root, runtime.path(), &[]).await;
    let disk_before = disk_bytes(root);
    // The union's file is open with an unsaved comment at its end: the buffer is what is edited.
    let shape_path = root.join("Geometry/Shape.fs");
    let uri = editor.open(&shape_path, 1).await;
    let unsaved = format!("{}// unsaved\n", std::fs::read_to_string(&shape_path).unwrap());
    editor.change(&uri, 2, &unsaved).await;
    let seen_before = editor.notifications.len();

    let argument = json!({"union": "Shape", "change": "add", "case": "Triangle", "fields": "float * float"});
    let answer: UnionCaseImpactAnswer = editor.execute_as(Command::UnionCaseImpact, argument).await;

    assert_eq!((answer.union.as_str(), answer.change), ("Geometry.Shape", CaseChange::Add));
    assert_eq!(answer.cases, ["Circle", "Square", "Rectangle"]);
    // The edit: a line after `Rectangle`, indented as the other cases.
    let rectangle = line_of(root, "Geometry/Shape.fs", "| Rectangle of");
    assert_eq!(answer.edit.file, "Geometry/Shape.fs");
    assert_eq!((answer.edit.range.start, answer.edit.range.end), (answer.edit.range.start, answer.edit.range.start));
    assert_eq!(answer.edit.range.start.line, rectangle);
    assert_eq!(answer.edit.new_text, "\n    | Triangle of float * float");

    // Exactly the three matches without a catch-all arm, as `dotnet build` says (FS0025 at the
    // `match`/`function` keyword), each with its function and project.
    let impacts: BTreeSet<ImpactRow> = answer
        .impacts
        .iter()
        .map(|impact| {
            (
                impact.file.clone(),
                impact.line,
                impact.kind,
                impact.code.clone(),
                impact.function.clone(),
                impact.projects.clone(),
            )
        })
        .collect();
    let expected_impact = |file: &str, needle: &str, function: &str, project: &str| {
        let line = line_of(root, file, needle);
        let function = Some(function.to_owned());
        (file.to_owned(), line, ImpactKind::IncompleteMatch, "FS0025".to_owned(), function, vec![project.to_owned()])
    };
    let expected = BTreeSet::from([
        expected_impact("Geometry/Shape.fs", "match shape with", "area", "Geometry/Geometry.fsproj"),
        expected_impact("App/Render.fs", "let describe", "describe", "App/App.fsproj"),
        expected_impact("App/Render.fs", "    function", "corners", "App/App.fsproj"),
    ]);
    // describe's `match` is the line after its `let`.
    let expected: BTreeSet<_> = expected
        .into_iter()
        .map(|mut impact| {
            if impact.4.as_deref() == Some("describe") {
                impact.1 += 1;
            }
            impact
        })
        .collect();
    assert_eq!(impacts, expected, "{answer:#?}");
    assert_eq!(answer.impact_count, 3);
    assert!(answer.impacts.iter().all(|impact| impact.message.contains("'Triangle")), "{answer:#?}");

    // isRound's `_` arm takes the new case silently: listed apart, not as an impact.
    assert_eq!(answer.wildcard_matches.len(), 1, "{answer:#?}");
    let wildcard = &answer.wildcard_matches[0];
    assert_eq!(wildcard.function.as_deref(), Some("isRound"));
    assert_eq!(wildcard.file, "App/Render.fs");
    assert_eq!(wildcard.catch_all_line, line_of(root, "App/Render.fs", "| _ -> false"));
    assert_eq!(wildcard.cases_matched, ["Circle"]);
    assert!(answer.sites.is_empty());

    assert!(answer.complete, "{answer:#?}");
    let mut seeing = answer.coverage.projects_that_see_the_union.clone();
    let mut checked = answer.coverage.projects_checked.clone();
    seeing.sort();
    checked.sort();
    assert_eq!(seeing, ["App/App.fsproj", "Geometry/Geometry.fsproj"]);
    assert_eq!(checked, seeing);
    assert_eq!((answer.coverage.disk_written, answer.coverage.restored), (false, Some(true)));

    // Nothing touched: disk, the editor's buffer and what the editor was told.
    assert_eq!(disk_bytes(root), disk_before);
    let shown: Vec<&Value> = editor.notifications[seen_before..]
        .iter()
        .filter(|message| shows_the_hypothesis(message, "Triangle"))
        .collect();
    assert!(shown.is_empty(), "the editor saw the hypothesis: {shown:?}");
    let after =
        editor.execute_result(Command::Check, json!({"path": "Geometry/Shape.fs", "severity": "warning"})).await;
    assert_eq!(after["files"][0]["version"], json!(2), "the buffer is the editor's, at its version: {after}");
    assert_eq!(after["verdict"], json!("clean"), "FSAC sees the real text again: {after}");
    assert_eq!(after["totalDiagnostics"], json!(0), "{after}");
    editor.stop().await;
}

#[tokio::test]
async fn removing_a_case_lists_every_use_as_an_error_and_as_a_site() {
    let workspace = fixture_copy("union");
    let root = workspace.path();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(root, runtime.path(), &[]).await;
    let disk_before = disk_bytes(root);
    let argument = json!({"union": "Geometry.Shape", "change": "remove", "case": "Square"});
    let answer: UnionCaseImpactAnswer = editor.execute_as(Command::UnionCaseImpact, argument).await;

    let square = line_of(root, "Geometry/Shape.fs", "| Square of");
    assert_eq!((answer.edit.range.start.line, answer.edit.range.start.character), (square, 0));
    assert_eq!((answer.edit.range.end.line, answer.edit.range.end.character), (square + 1, 0));
    assert_eq!(answer.edit.new_text, "");

    // Every use of Square, by the text: each is an FS0039 and a site.
    let mut uses: BTreeSet<(String, u32, u32)> = BTreeSet::new();
    for file in ["Geometry/Shape.fs", "App/Render.fs"] {
        uses.extend(
            uses_of(root, file, "Square").into_iter().map(|(line, character)| (file.to_owned(), line, character)),
        );
    }
    assert_eq!(uses.len(), 4, "the fixture's uses of Square: {uses:?}");
    let impacts: BTreeSet<(String, u32, u32)> =
        answer.impacts.iter().map(|impact| (impact.file.clone(), impact.line, impact.character)).collect();
    assert_eq!(impacts, uses, "{answer:#?}");
    assert!(answer.impacts.iter().all(|impact| impact.kind == ImpactKind::UnknownCase && impact.code == "FS0039"));
    let sites: BTreeSet<(String, u32, u32)> =
        answer.sites.iter().map(|site| (site.file.clone(), site.line, site.character)).collect();
    assert_eq!(sites, uses, "{answer:#?}");
    let constructions: Vec<(&str, Option<&str>)> = answer
        .sites
        .iter()
        .filter(|site| site.kind == UseKind::Construction)
        .map(|site| (site.file.as_str(), site.function.as_deref()))
        .collect();
    assert_eq!(constructions, [("Geometry/Shape.fs", Some("unitSquare"))]);
    assert_eq!(answer.sites.iter().filter(|site| site.kind == UseKind::Pattern).count(), 3);
    assert!(answer.wildcard_matches.is_empty());
    assert!(answer.complete, "{answer:#?}");
    assert_eq!(disk_bytes(root), disk_before);
    editor.stop().await;
}

#[tokio::test]
async fn bad_arguments_are_refused_naming_the_argument() {
    let workspace = fixture_copy("union");
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(workspace.path(), runtime.path(), &[]).await;
    for (argument, blamed, says) in [
        (json!({"union": "Polygon", "change": "add", "case": "Triangle"}), "union", "no union named"),
        (json!({"union": "Render", "change": "add", "case": "Triangle"}), "union", "no union named"),
        (json!({"union": "Shape", "change": "remove", "case": "Hexagon"}), "case", "has no case Hexagon"),
        (json!({"union": "Shape", "change": "change", "case": "Hexagon", "fields": "int"}), "case", "has no case"),
        (json!({"union": "Shape", "change": "add", "case": "Square"}), "case", "already has a case Square"),
        (json!({"union": "Shape", "change": "add", "case": "Dot", "after": "Hexagon"}), "after", "has no case"),
        (json!({"union": "Shape", "change": "add", "case": "dot"}), "case", "upper-case"),
        (json!({"union": "Shape", "change": "shrink", "case": "Dot"}), "change", ""),
        (
            json!({"union": "Shape", "change": "change", "case": "Circle", "fields": "radius: float"}),
            "fields",
            "already",
        ),
    ] {
        let error = editor.execute(Command::UnionCaseImpact, argument.clone()).await;
        assert_eq!(error["error"]["data"]["errorKind"], json!("invalid_argument"), "{argument}: {error}");
        assert_eq!(error["error"]["data"]["argument"], json!(blamed), "{argument}: {error}");
        assert!(error["error"]["message"].as_str().unwrap_or_default().contains(says), "{argument}: {error}");
    }
    // By position: a use of a case in the other project names the union.
    let line = line_of(workspace.path(), "App/Render.fs", "| Circle _ -> 0");
    let argument = json!({"path": "App/Render.fs", "line": line, "word": "Circle", "change": "add", "case": "Dot"});
    let answer: UnionCaseImpactAnswer = editor.execute_as(Command::UnionCaseImpact, argument).await;
    assert_eq!((answer.union.as_str(), answer.declared_in.as_str()), ("Geometry.Shape", "Geometry/Shape.fs"));
    assert_eq!((answer.impact_count, answer.wildcard_match_count), (3, 1), "{answer:#?}");
    let error = editor
        .execute(
            Command::UnionCaseImpact,
            json!({"path": "App/Render.fs", "line": line, "word": "_", "change": "add", "case": "Dot"}),
        )
        .await;
    assert_eq!(error["error"]["data"]["errorKind"], json!("invalid_argument"), "{error}");
    editor.stop().await;
}

#[tokio::test]
async fn changing_a_case_fields_lists_the_uses_that_no_longer_fit_and_every_site() {
    let workspace = fixture_copy("union");
    let root = workspace.path();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start_ready(root, runtime.path(), &[]).await;
    let disk_before = disk_bytes(root);
    let argument =
        json!({"union": "Shape", "change": "change", "case": "Circle", "fields": "radius: float * centre: float"});
    let answer: UnionCaseImpactAnswer = editor.execute_as(Command::UnionCaseImpact, argument).await;
    assert_eq!(answer.edit.new_text, "Circle of radius: float * centre: float");
    assert_eq!(answer.edit.range.start.line, line_of(root, "Geometry/Shape.fs", "| Circle of"));

    // Every use of Circle is a site; those written with one argument other than `_` no longer
    // fit two fields (a `Circle _` pattern still does), as `dotnet build` says.
    let mut uses: BTreeSet<(String, u32, u32)> = BTreeSet::new();
    let mut misfits: BTreeSet<(String, u32, u32)> = BTreeSet::new();
    for file in ["Geometry/Shape.fs", "App/Render.fs"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (line, character) in uses_of(root, file, "Circle") {
            let site = (file.to_owned(), line, character);
            if !lines[line as usize][character as usize..].starts_with("Circle _") {
                misfits.insert(site.clone());
            }
            uses.insert(site);
        }
    }
    assert_eq!((uses.len(), misfits.len()), (5, 3), "the fixture's uses of Circle: {uses:?}");
    let sites: BTreeSet<(String, u32, u32)> =
        answer.sites.iter().map(|site| (site.file.clone(), site.line, site.character)).collect();
    assert_eq!(sites, uses, "{answer:#?}");
    // The compiler puts FS0727 on the pattern and FS0001 on the argument: compared by line.
    let impacts: BTreeSet<(String, u32)> =
        answer.impacts.iter().map(|impact| (impact.file.clone(), impact.line)).collect();
    let misfit_lines: BTreeSet<(String, u32)> = misfits.into_iter().map(|(file, line, _)| (file, line)).collect();
    assert_eq!(impacts, misfit_lines, "{answer:#?}");
    assert_eq!(answer.impact_count, 3, "{answer:#?}");
    assert!(answer.impacts.iter().all(|impact| impact.kind == ImpactKind::Other), "{answer:#?}");
    assert!(answer.complete, "{answer:#?}");
    assert_eq!(disk_bytes(root), disk_before);
    editor.stop().await;
}
