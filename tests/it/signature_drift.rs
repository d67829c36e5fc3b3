//! `fslens.signatureDrift` on fixtures/signature-drift: in front of the FSAC double (real MSBuild
//! and FCS) the `val` lines carry the compiler's types, and the fixes, applied, make both
//! projects build with the real `dotnet build`; the signature-only item is the one `dotnet
//! build` names in its FS0193. Through the CLI with no FSAC the `val` lines say their type is
//! not known. The expected items are read off the fixture's sources by hand.

use std::path::Path;
use std::process::Command as Process;

use crate::support;
use fslens::commands::registry::Command;
use fslens::commands::signature_drift::{
    DriftKind, DriftVia, FixEdit, FixStatus, PairDrift, SignatureDriftAnswer, TypeSource,
};
use serde_json::json;
use support::double::{Editor, double_command, fixture_copy};

/// (name, kind, file, 1-based line) of each item.
fn items(items: &[fslens::commands::signature_drift::DriftItem]) -> Vec<(String, DriftKind, String, u32)> {
    items.iter().map(|item| (item.name.clone(), item.kind, item.file.clone(), item.line + 1)).collect()
}

fn row(name: &str, kind: DriftKind, file: &str, line: u32) -> (String, DriftKind, String, u32) {
    (name.to_owned(), kind, file.to_owned(), line)
}

fn pair<'a>(answer: &'a SignatureDriftAnswer, signature: &str) -> &'a PairDrift {
    answer
        .pairs
        .iter()
        .find(|pair| pair.signature_file == signature)
        .unwrap_or_else(|| panic!("no pair of {signature}: {answer:?}"))
}

/// `dotnet build` of `project`: (succeeded, what it printed).
fn dotnet_build(project: &Path) -> (bool, String) {
    let output = Process::new("dotnet").args(["build", "--nologo", "-v", "quiet"]).arg(project).output().unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.success(), printed)
}

/// Applies every fix of `answer` to the files on disk (the edits of one file from the last to
/// the first; edits at one position keep their order).
fn apply_fixes(workspace: &Path, answer: &SignatureDriftAnswer) {
    let mut by_file: std::collections::BTreeMap<String, Vec<FixEdit>> = Default::default();
    for pair in &answer.pairs {
        for item in pair.implementation_only.iter().chain(&pair.signature_only) {
            by_file.entry(item.fix.file.clone()).or_default().push(item.fix.clone());
        }
    }
    for (file, fixes) in by_file {
        let path = workspace.join(&file);
        let mut text = std::fs::read_to_string(&path).unwrap();
        let lines = fslens::documents::LineIndex::new(&text);
        let mut spans: Vec<(usize, usize, usize, String)> = fixes
            .iter()
            .enumerate()
            .map(|(order, fix)| {
                (lines.offset(&text, fix.range.start), order, lines.offset(&text, fix.range.end), fix.new_text.clone())
            })
            .collect();
        spans.sort();
        for (start, _, end, new_text) in spans.into_iter().rev() {
            text.replace_range(start..end, &new_text);
        }
        std::fs::write(&path, text).unwrap();
    }
}

#[tokio::test]
async fn drift_both_ways_with_the_compilers_types_and_fixes_that_build() {
    let workspace = fixture_copy("signature-drift");
    let runtime = tempfile::tempdir().unwrap();

    // The real compiler first: the signature-only `restock` breaks the build, the hidden
    // items do not.
    let (built, printed) = dotnet_build(&workspace.path().join("Broken/Broken.fsproj"));
    assert!(!built && printed.contains("FS0193") && printed.contains("requires a value 'restock'"), "{printed}");
    let (built, printed) = dotnet_build(&workspace.path().join("Drift/Drift.fsproj"));
    assert!(built, "{printed}");

    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let answer: SignatureDriftAnswer = editor.execute_as(Command::SignatureDrift, json!({})).await;
    assert_eq!(answer.via, DriftVia::SyntaxAndFsac, "{answer:?}");
    assert!(answer.complete && answer.fsac.asked && !answer.written_to_disk, "{answer:?}");
    assert_eq!(answer.pairs.len(), 2, "{answer:?}");
    assert!(answer.unpaired_signatures.is_empty());

    let drift = pair(&answer, "Drift/Geometry.fsi");
    assert_eq!(drift.implementation_file, "Drift/Geometry.fs");
    // `square` (private) and `debugArea` (internal) are not listed.
    assert_eq!(
        items(&drift.implementation_only),
        [
            row("Drift.Geometry.perimeter", DriftKind::Value, "Drift/Geometry.fs", 14),
            row("Drift.Geometry.scale", DriftKind::Value, "Drift/Geometry.fs", 21),
            row("Drift.Geometry.Corner", DriftKind::Type, "Drift/Geometry.fs", 26),
            row("Drift.Geometry.Units.toInches", DriftKind::Value, "Drift/Geometry.fs", 33),
        ]
    );
    assert!(drift.signature_only.is_empty(), "{drift:?}");
    let fix_texts: Vec<&str> = drift.implementation_only.iter().map(|item| item.fix.new_text.trim_start()).collect();
    assert_eq!(
        fix_texts,
        [
            "val perimeter: shape: Shape -> float",
            "val scale: factor: float -> shape: Shape -> Shape",
            "type Corner = { X: float; Y: float }",
            "val toInches: centimetres: float -> float",
        ]
    );
    for item in &drift.implementation_only {
        assert_eq!(item.fix.file, "Drift/Geometry.fsi");
        assert_eq!(item.fix.status, FixStatus::Ready, "{item:?}");
    }
    assert_eq!(drift.implementation_only[0].type_source, Some(TypeSource::Fsac));
    assert!(drift.complete, "{drift:?}");

    let broken = pair(&answer, "Broken/Inventory.fsi");
    assert_eq!(
        items(&broken.implementation_only),
        [row("Broken.Inventory.refill", DriftKind::Value, "Broken/Inventory.fs", 7)]
    );
    assert_eq!(
        items(&broken.signature_only),
        [row("Broken.Inventory.restock", DriftKind::Value, "Broken/Inventory.fsi", 10)]
    );
    let removal = &broken.signature_only[0].fix;
    assert!(removal.new_text.is_empty() && removal.old_text.contains("val restock:"), "{removal:?}");
    assert!(removal.old_text.contains("/// Adds items"), "the doc comment goes too: {removal:?}");

    // Applied, the fixes make both projects build, and the command finds them in step.
    apply_fixes(workspace.path(), &answer);
    for project in ["Broken/Broken.fsproj", "Drift/Drift.fsproj"] {
        let (built, printed) = dotnet_build(&workspace.path().join(project));
        assert!(built, "{project} after the fixes:\n{printed}");
    }
    let again: SignatureDriftAnswer = editor.execute_as(Command::SignatureDrift, json!({})).await;
    for pair in &again.pairs {
        assert!(pair.implementation_only.is_empty() && pair.signature_only.is_empty(), "{pair:?}");
    }

    // One pair by either of its files; a file of no pair is refused, naming the argument.
    let one: SignatureDriftAnswer =
        editor.execute_as(Command::SignatureDrift, json!({"path": "Drift/Geometry.fs"})).await;
    assert_eq!(one.pairs.len(), 1);
    assert_eq!(one.pairs[0].signature_file, "Drift/Geometry.fsi");
    let refused = editor.execute(Command::SignatureDrift, json!({"path": "Drift/Use.fs"})).await;
    assert_eq!(refused["error"]["data"]["argument"], json!("path"), "{refused}");
    let by_project: SignatureDriftAnswer =
        editor.execute_as(Command::SignatureDrift, json!({"projectPath": "Broken"})).await;
    assert_eq!(by_project.projects, ["Broken/Broken.fsproj"]);
    editor.stop().await;
}

#[test]
fn without_fsac_the_val_lines_say_their_type_is_not_known() {
    let workspace = fixture_copy("signature-drift");
    let runtime = tempfile::tempdir().unwrap();
    let output = Process::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["signature-drift", "--path", "Drift/Geometry.fsi", "--json", "--fsac", "/nonexistent/fsautocomplete"])
        .arg("--workspace")
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer: SignatureDriftAnswer = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("no answer ({error}): {}", String::from_utf8_lossy(&output.stderr)));
    // Hidden items only: not definite (2).
    assert_eq!(output.status.code(), Some(2), "{answer:?}");
    assert_eq!(answer.via, DriftVia::Syntax);
    assert!(!answer.complete && !answer.fsac.asked, "{answer:?}");
    assert!(answer.fsac.reason.is_some(), "{answer:?}");
    let drift = &answer.pairs[0];
    let perimeter = &drift.implementation_only[0];
    assert_eq!(perimeter.name, "Drift.Geometry.perimeter");
    assert_eq!(perimeter.type_source, Some(TypeSource::NotKnown));
    assert_eq!(perimeter.fix.status, FixStatus::TypeNotKnown);
    assert_eq!(perimeter.fix.new_text.trim_start(), "val perimeter: <type not known>");
    // The copied type needs no type from FSAC.
    assert_eq!(drift.implementation_only[2].fix.status, FixStatus::Ready);
    assert!(!drift.complete && drift.limits.iter().any(|limit| limit.contains("FSAC gave none")), "{drift:?}");
}

/// fixtures/measures: a signature's abstract `type Route` (no `=`) pairs with the
/// implementation's record `Route`. Before, the index held no declaration for the `.fsi`'s
/// `type Route`, so the record read as hidden by the signature, with a fix copying it in.
#[test]
fn an_abstract_signature_type_pairs_with_its_implementation() {
    let workspace = fixture_copy("measures");
    let runtime = tempfile::tempdir().unwrap();
    let output = Process::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["signature-drift", "--path", "Route.fsi", "--json", "--fsac", "/nonexistent/fsautocomplete"])
        .arg("--workspace")
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer: SignatureDriftAnswer = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("no answer ({error}): {}", String::from_utf8_lossy(&output.stderr)));
    let drift = pair(&answer, "Route.fsi");
    assert_eq!(items(&drift.implementation_only), [], "{drift:?}");
    assert_eq!(items(&drift.signature_only), [], "{drift:?}");
}
