//! Workspace-model tests: solution formats, compile order with links, wildcards and `Remove`,
//! the project-reference graph, package references, orphan files and robustness against
//! malformed project files.

use std::path::{Path, PathBuf};

use expect_test::expect;
use fslens::workspace::{load_workspace, parse_project};

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax-workspace")
}

#[test]
fn fixture_workspace_model() {
    let model = load_workspace(&fixture_root()).expect("fixture loads");
    expect![[r#"
        solution Acme.sln (sln): src/Core/Core.fsproj, src/App/App.fsproj
        solution Acme.slnf (slnf): src/Core/Core.fsproj
        solution Acme.slnx (slnx): src/Core/Core.fsproj, src/App/App.fsproj
        project src/Core/Core.fsproj [net8.0;netstandard2.0]
          package FSharp.Core 8.0.400
          package Thoth.Json.Net 12.0.0
          compile 1 src/Core/Types.fsi
          compile 2 src/Core/Types.fs
          compile 3 shared/Shared.fs (link=Shared/Shared.fs)
          compile 4 src/Core/Gen/A.fs (wildcard=Gen/**/*.fs)
          compile 5 src/Core/Gen/Sub/B.fs (wildcard=Gen/**/*.fs)
          compile 6 src/Core/Util.fs
        project src/App/App.fsproj [net8.0]
          references src/Core/Core.fsproj
          compile 1 src/App/Program.fs
        orphan scripts/build.fsx
        orphan src/Core/Gen/Skip.fs
        orphan src/Core/Stray.fs
    "#]]
    .assert_eq(&model.describe());
}

#[test]
fn files_to_index_follow_project_order_then_orphans() {
    let model = load_workspace(&fixture_root()).expect("fixture loads");
    let files: Vec<String> = model.files_to_index().iter().map(|path| model.display_path(path)).collect();
    expect![[r#"
        [
            "src/Core/Types.fsi",
            "src/Core/Types.fs",
            "shared/Shared.fs",
            "src/Core/Gen/A.fs",
            "src/Core/Gen/Sub/B.fs",
            "src/Core/Util.fs",
            "src/App/Program.fs",
            "scripts/build.fsx",
            "src/Core/Gen/Skip.fs",
            "src/Core/Stray.fs",
        ]
    "#]]
    .assert_debug_eq(&files);
}

#[test]
fn build_output_directories_are_skipped_and_reference_chains_are_ordered() {
    let directory = tempfile::tempdir().expect("temp dir");
    let root = directory.path();
    let write = |relative: &str, text: &str| {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let project = |references: &[&str], files: &[&str]| {
        let references: String =
            references.iter().map(|reference| format!("<ProjectReference Include=\"{reference}\" />")).collect();
        let files: String = files.iter().map(|file| format!("<Compile Include=\"{file}\" />")).collect();
        format!("<Project><ItemGroup>{files}{references}</ItemGroup></Project>")
    };
    // c -> b -> a, written in an order that is not the dependency order.
    write("c/C.fsproj", &project(&["../b/B.fsproj"], &["C.fs"]));
    write("b/B.fsproj", &project(&["../a/A.fsproj"], &["B.fs"]));
    write("a/A.fsproj", &project(&[], &["A.fs", "Missing.fs"]));
    for file in ["a/A.fs", "b/B.fs", "c/C.fs", "bin/Out.fs", "a/obj/Gen.fs", "node_modules/x/Y.fs", ".git/Z.fs"] {
        write(file, "let x = 1\n");
    }
    write("bin/Hidden.fsproj", &project(&[], &["Hidden.fs"]));
    let model = load_workspace(root).expect("loads");
    expect![[r#"
        project a/A.fsproj []
          compile 1 a/A.fs
          compile 2 a/Missing.fs (missing)
          problem: compile item not found: $ROOT/a/Missing.fs
        project b/B.fsproj []
          references a/A.fsproj
          compile 1 b/B.fs
        project c/C.fsproj []
          references b/B.fsproj
          compile 1 c/C.fs
    "#]]
    .assert_eq(&model.describe().replace(&model.root.display().to_string(), "$ROOT"));
}

#[test]
fn reference_cycles_are_reported_not_looped() {
    let directory = tempfile::tempdir().expect("temp dir");
    let root = directory.path();
    std::fs::write(
        root.join("A.fsproj"),
        r#"<Project><ItemGroup><ProjectReference Include="B.fsproj"/></ItemGroup></Project>"#,
    )
    .expect("write");
    std::fs::write(
        root.join("B.fsproj"),
        r#"<Project><ItemGroup><ProjectReference Include="A.fsproj"/></ItemGroup></Project>"#,
    )
    .expect("write");
    let model = load_workspace(root).expect("loads");
    assert_eq!(model.project_order.len(), 2);
    assert!(model.problems.iter().any(|problem| problem.contains("cycle")), "{:?}", model.problems);
}

#[test]
fn malformed_project_files_degrade_instead_of_failing() {
    for text in [
        "",
        "not xml at all",
        "<Project><ItemGroup><Compile Include=",
        "<Project><ItemGroup><Compile Include=\"$(Nope)/A.fs\"/>",
    ] {
        let project = parse_project(Path::new("/w/P.fsproj"), text);
        assert!(project.compile_items.iter().all(|item| !item.exists));
    }
    let unresolved = parse_project(
        Path::new("/w/P.fsproj"),
        "<Project><ItemGroup><Compile Include=\"$(Nope)/A.fs\"/></ItemGroup></Project>",
    );
    assert!(unresolved.problems.iter().any(|problem| problem.contains("$(Nope)")), "{:?}", unresolved.problems);
}

#[test]
fn compile_before_after_and_exclude() {
    let directory = tempfile::tempdir().expect("temp dir");
    let root = directory.path();
    for file in ["First.fs", "Last.fs", "src/One.fs", "src/Two.fs", "src/Gen.fs"] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, "let x = 1\n").expect("write");
    }
    let text = r#"<Project>
      <ItemGroup>
        <CompileAfter Include="Last.fs" />
        <Compile Include="src/*.fs" Exclude="src/Gen.fs" />
        <CompileBefore Include="First.fs" />
      </ItemGroup>
    </Project>"#;
    let project = parse_project(&root.join("P.fsproj"), text);
    let names: Vec<String> = project
        .compile_items
        .iter()
        .map(|item| item.path.strip_prefix(root).expect("inside").display().to_string())
        .collect();
    assert_eq!(names, ["First.fs", "src/One.fs", "src/Two.fs", "Last.fs"]);
}
