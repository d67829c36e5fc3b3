//! `fslens.projectInspect` in front of the FSAC double (a real MSBuild design-time build) on
//! fixtures/shipping (three projects, references, a linked file, a test project),
//! fixtures/inactive-code (two target frameworks, a conditional Compile item) and
//! fixtures/project-imports (a Compile item from Directory.Build.props, an order changed by
//! Directory.Build.targets), and through the CLI
//! with no FSAC. The expected models are read off the fixtures' project files by hand.

use crate::support;
use fslens::commands::project_inspect::{DifferenceKind, InspectVia, InspectedProject, ProjectInspectAnswer};
use fslens::commands::registry::Command;
use serde_json::json;
use support::double::{Editor, double_command, fixture_copy};

async fn inspect(fixture: &str) -> (tempfile::TempDir, ProjectInspectAnswer) {
    let workspace = fixture_copy(fixture);
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = Editor::start(workspace.path(), runtime.path(), &double_command(), &[]).await;
    editor.wait_until_ready().await;
    let answer: ProjectInspectAnswer = editor.execute_as(Command::ProjectInspect, json!({})).await;
    editor.stop().await;
    (workspace, answer)
}

fn project<'a>(answer: &'a ProjectInspectAnswer, path: &str) -> &'a InspectedProject {
    answer.projects.iter().find(|project| project.project == path).unwrap_or_else(|| panic!("no {path}: {answer:?}"))
}

/// (kind, subject) of every difference but the implicit FSharp.Core reference.
fn differences(project: &InspectedProject) -> Vec<(DifferenceKind, String)> {
    project
        .differences
        .iter()
        .filter(|difference| difference.subject != "FSharp.Core")
        .map(|difference| (difference.kind, difference.subject.clone()))
        .collect()
}

#[tokio::test]
async fn shipping_compile_order_references_and_test_project_as_fsac_loaded_them() {
    let (_workspace, answer) = inspect("shipping").await;
    assert_eq!(answer.via, InspectVia::Fsac);
    assert!(answer.complete && answer.fsac_model.available, "{answer:?}");
    assert_eq!(answer.projects.len(), 3);

    let app = project(&answer, "src/Shipping.App/Shipping.App.fsproj");
    let fsac = app.fsac.as_ref().unwrap();
    assert_eq!(fsac.files, ["src/Shared/Clock.fs", "src/Shipping.App/Program.fs"]);
    assert_eq!(fsac.project_references, ["src/Shipping.Domain/Shipping.Domain.fsproj"]);
    assert_eq!(fsac.target_framework.as_deref(), Some("net8.0"));
    assert_eq!(fsac.configuration.as_deref(), Some("Debug"));
    assert_eq!(fsac.output_type.as_deref(), Some("exe"));
    assert_eq!(fsac.is_test_project, Some(false));
    assert!(fsac.defines.iter().any(|define| define == "NET8_0"), "{fsac:?}");
    // The implicit FSharp.Core is FSAC's only package, and the only difference.
    assert_eq!(
        fsac.package_references.iter().map(|package| package.name.as_str()).collect::<Vec<_>>(),
        ["FSharp.Core"]
    );
    assert_eq!(
        app.differences.iter().map(|difference| difference.kind).collect::<Vec<_>>(),
        [DifferenceKind::PackageReferenceOnlyInFsac]
    );

    let domain = project(&answer, "src/Shipping.Domain/Shipping.Domain.fsproj");
    let fsac = domain.fsac.as_ref().unwrap();
    assert_eq!(
        fsac.files,
        ["src/Shipping.Domain/Types.fs", "src/Shipping.Domain/Visibility.fs", "src/Shipping.Domain/Operations.fs"]
    );
    assert!(fsac.project_references.is_empty());
    assert_eq!(fsac.output_type.as_deref(), Some("lib"));

    let tests = project(&answer, "tests/Shipping.Tests/Shipping.Tests.fsproj");
    let fsac = tests.fsac.as_ref().unwrap();
    assert_eq!(fsac.files, ["src/Shared/Clock.fs", "tests/Shipping.Tests/ShipmentTests.fs"]);
    assert_eq!(fsac.is_test_project, Some(true));
    // IsTestProject is set, but no test platform package is referenced (what FSAC's test
    // explorer looks for).
    assert!(!fsac.references_test_platform);
    assert_eq!(tests.project_files.is_test_project, Some(true));
    assert!(differences(tests).is_empty(), "{tests:?}");
}

#[tokio::test]
async fn a_multi_targeted_project_is_loaded_in_its_first_framework_without_the_conditional_file() {
    let (_workspace, answer) = inspect("inactive-code").await;
    let inactive = project(&answer, "Inactive.fsproj");
    let fsac = inactive.fsac.as_ref().unwrap();
    assert_eq!(fsac.target_framework.as_deref(), Some("netstandard2.0"));
    assert_eq!(fsac.target_frameworks, ["netstandard2.0", "net8.0"]);
    assert!(fsac.target_framework_choice.contains("first of TargetFrameworks"), "{fsac:?}");
    assert_eq!(fsac.files, ["Types.fs", "Span.fs", "Legacy.fs", "Use.fs"]);
    for define in ["NETSTANDARD2_0", "DEBUG_METERS", "SOMEDEFINE"] {
        assert!(fsac.defines.iter().any(|found| found == define), "{define}: {fsac:?}");
    }
    assert!(!fsac.defines.iter().any(|found| found == "RELEASE_METERS"), "{fsac:?}");
    let modern = inactive.project_files.compile_items.iter().find(|item| item.file == "Modern.fs").unwrap();
    assert_eq!(modern.condition_holds, Some(false));
    assert_eq!(differences(inactive), [(DifferenceKind::FileOnlyInProjectFiles, "Modern.fs".to_owned())]);
    let detail = &inactive.differences.iter().find(|difference| difference.subject == "Modern.fs").unwrap().detail;
    assert!(detail.contains("net8.0") && detail.contains("netstandard2.0"), "{detail}");
}

/// Directory.Build.props adds a Compile item and Directory.Build.targets moves one to the end:
/// MSBuild's order (`dotnet msbuild -getItem:Compile`: Stamp.fs, Extra.fs, Main.fs) is FSAC's.
#[tokio::test]
async fn a_compile_item_from_an_import_and_an_order_an_import_changes_are_named() {
    let (_workspace, answer) = inspect("project-imports").await;
    let imports = project(&answer, "Imports.fsproj");
    assert_eq!(imports.fsac.as_ref().unwrap().files, ["Shared/Stamp.fs", "Extra.fs", "Main.fs"]);
    assert_eq!(
        imports.project_files.compile_items.iter().map(|item| item.file.as_str()).collect::<Vec<_>>(),
        ["Main.fs", "Extra.fs"]
    );
    assert_eq!(
        differences(imports),
        [
            (DifferenceKind::FileOnlyInFsac, "Shared/Stamp.fs".to_owned()),
            (DifferenceKind::CompileOrderDiffers, "Extra.fs".to_owned())
        ]
    );
}

#[test]
fn without_fsac_the_project_files_reading_is_answered_and_says_why() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["project-inspect", "--json", "--fsac", "/nonexistent/fsautocomplete", "--workspace"])
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer: ProjectInspectAnswer = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("no answer ({error}): {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(2), "{answer:?}");
    assert_eq!(answer.via, InspectVia::ProjectFiles);
    assert!(!answer.complete && !answer.fsac_model.available, "{answer:?}");
    assert!(answer.fsac_model.reason.as_deref().is_some_and(|reason| reason.contains("unavailable")), "{answer:?}");
    let app = project(&answer, "src/Shipping.App/Shipping.App.fsproj");
    assert!(app.fsac.is_none() && !app.compared && app.differences.is_empty());
    assert_eq!(
        app.project_files.compile_items.iter().map(|item| item.file.as_str()).collect::<Vec<_>>(),
        ["src/Shared/Clock.fs", "src/Shipping.App/Program.fs"]
    );
    assert_eq!(app.project_files.project_references, ["src/Shipping.Domain/Shipping.Domain.fsproj"]);
}
