//! `dotnet build` is the referee for `fslens check`: its verdict, its diagnostics and the target frameworks it
//! checked agree with what the build reports.
//!
//! Each test copies fixtures/referee (a NuGet package, `REFEREE_STRICT` defined by
//! `Directory.Build.props`, a project with two target frameworks and compile items for one of
//! them), makes an edit, restores it, and runs both the real `fslens check --json` (in front of
//! the .NET FSAC double, which loads projects by an MSBuild design-time build as FSAC does) and
//! the real `dotnet build` on the same tree. The verdicts and the sets of errors (code, file,
//! line) must agree for the configuration fslens checked; an error the compiler finds only in
//! a target framework FSAC did not load must fall in a project whose answer names that target
//! framework as not checked: never a bare `clean`.
//!
//! The .NET SDK is the referee: without a `dotnet` on `PATH` each test fails and says so (as
//! every test that starts the FSAC double does; scripts/test.sh runs where the SDK is).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::dotnet::restore;
use crate::support::double::{double_command, fixture_copy};

/// One error as the compiler says it: `(code, workspace-relative file, 1-based line)`.
type Error = (u32, String, u64);

/// What `dotnet build` said about a tree.
#[derive(Debug)]
struct Build {
    succeeded: bool,
    /// Every error with the project and the target framework it was reported for (`None` for
    /// a project with one target framework).
    errors: BTreeSet<(Error, String, Option<String>)>,
    output: String,
}

/// Fails the test when no `dotnet` runs: the .NET SDK is the referee, and a referee test that
/// cannot reach it has nothing to compare.
fn require_dotnet() {
    let here = Command::new("dotnet").arg("--version").output().is_ok_and(|output| output.status.success());
    assert!(here, "check_referee needs the .NET SDK: no `dotnet --version` ran from PATH");
}

/// A restored copy of fixtures/referee after `edit` (file, from, to) replacements.
fn referee_tree(edits: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let tree = fixture_copy("referee");
    for (file, from, to) in edits {
        let path = tree.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
    restore(&tree.path().join("Referee.sln"));
    tree
}

/// `dotnet build` of the solution (restored already), its errors parsed from MSBuild's
/// `path(line,col): error FSxxxx: message [project::TargetFramework=tf]` lines.
fn dotnet_build(root: &Path) -> Build {
    let output = Command::new("dotnet")
        .args(["build", "Referee.sln", "--no-restore", "-nologo", "-clp:NoSummary", "-v:q"])
        .current_dir(root)
        .output()
        .expect("run dotnet build");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let mut errors = BTreeSet::new();
    for line in text.lines() {
        if let Some(parsed) = parse_msbuild_error(root, line.trim()) {
            errors.insert(parsed);
        }
    }
    Build { succeeded: output.status.success(), errors, output: text }
}

/// One MSBuild error line; `None` for anything else (warnings, summaries).
fn parse_msbuild_error(root: &Path, line: &str) -> Option<(Error, String, Option<String>)> {
    let (place, rest) = line.split_once(": error ")?;
    let (code, rest) = rest.split_once(": ")?;
    let project_part = rest.rsplit_once(" [")?.1.trim_end_matches(']');
    let (project, framework) = match project_part.split_once("::TargetFramework=") {
        Some((project, framework)) => (project, Some(framework.to_owned())),
        None => (project_part, None),
    };
    let relative = |path: &str| {
        Path::new(path).strip_prefix(root).map(|path| path.to_string_lossy().into_owned()).unwrap_or(path.to_owned())
    };
    let (file, line_number) = match place.rsplit_once('(') {
        Some((file, position)) => {
            let line_number = position.trim_end_matches(')').split(',').next()?.trim().parse().ok()?;
            (relative(file), line_number)
        }
        None => (place.to_owned(), 0),
    };
    let number = code.trim().trim_start_matches("FS").parse().unwrap_or(0);
    Some(((number, file, line_number), relative(project), framework))
}

/// `fslens check --json` over the whole tree in front of the .NET double: exit code and answer.
fn fslens_check(root: &Path) -> (Option<i32>, Value) {
    fslens_check_with(root, &[])
}

fn fslens_check_with(root: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let runtime = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["check", "--json", "--timeout-ms", "90000", "--fsac", &double_command(), "--workspace"])
        .arg(root)
        .args(extra)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!("no JSON: {} {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    (output.status.code(), answer)
}

/// The errors of a check answer as the compiler writes them (1-based lines, `FS` codes).
fn fslens_errors(answer: &Value) -> BTreeSet<Error> {
    assert_eq!(answer["diagnosticsTruncated"], json!(false), "{answer}");
    answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .map(|diagnostic| {
            let code = match &diagnostic["code"] {
                Value::Number(number) => number.as_u64().unwrap() as u32,
                Value::String(text) => text.trim_start_matches("FS").parse().unwrap(),
                other => panic!("a diagnostic without a code: {other}"),
            };
            let line = diagnostic["range"]["start"]["line"].as_u64().unwrap() + 1;
            (code, diagnostic["file"].as_str().unwrap().to_owned(), line)
        })
        .collect()
}

/// The target frameworks the answer says it did not check for `project`.
fn frameworks_not_checked(answer: &Value, project: &str) -> Vec<String> {
    answer["configurations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|configuration| configuration["project"] == project)
        .flat_map(|configuration| configuration["targetFrameworksNotChecked"].as_array().cloned().unwrap_or_default())
        .filter_map(|framework| framework.as_str().map(str::to_owned))
        .collect()
}

/// The target framework the answer says it checked `project` in.
fn framework_checked(answer: &Value, project: &str) -> Option<String> {
    answer["configurations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|configuration| configuration["project"] == project)
        .and_then(|configuration| configuration["targetFramework"].as_str().map(str::to_owned))
}

/// Runs both on `tree` and holds fslens to the compiler; returns (build, answer).
fn referee(tree: &Path) -> (Build, Value) {
    let build = dotnet_build(tree);
    let (code, answer) = fslens_check(tree);
    let context = format!("dotnet build said:\n{}\nfslens check said:\n{answer:#}", build.output);
    // The compiler's errors in the configuration fslens checked, and the others.
    let mut checked = BTreeSet::new();
    for (error, project, framework) in &build.errors {
        match framework {
            Some(framework) if framework_checked(&answer, project).as_deref() != Some(framework.as_str()) => {
                assert!(
                    frameworks_not_checked(&answer, project).contains(framework),
                    "the compiler found {error:?} in {project} for {framework}, which the answer neither checked nor \
                     names as not checked\n{context}"
                );
            }
            _ => {
                checked.insert(error.clone());
            }
        }
    }
    assert_eq!(fslens_errors(&answer), checked, "the errors (code, file, line) differ\n{context}");
    let expected_verdict = if !checked.is_empty() { "errors" } else { "clean" };
    assert_eq!(answer["verdict"], json!(expected_verdict), "{context}");
    assert_eq!(code, Some(if checked.is_empty() { 0 } else { 1 }), "{context}");
    assert_eq!(build.succeeded, build.errors.is_empty(), "a failed build names its errors\n{context}");
    (build, answer)
}

/// The fixture as committed: the compiler builds it, so fslens says clean, and names the one
/// configuration of Multi it covers.
#[test]
fn the_referee_solution_is_clean_for_both() {
    require_dotnet();
    let tree = referee_tree(&[]);
    let (build, answer) = referee(tree.path());
    assert!(build.succeeded, "{}", build.output);
    assert_eq!(answer["complete"], json!(true), "{answer}");
    assert_eq!(framework_checked(&answer, "src/Multi/Multi.fsproj").as_deref(), Some("net10.0"), "{answer}");
    assert_eq!(frameworks_not_checked(&answer, "src/Multi/Multi.fsproj"), ["netstandard2.0"], "{answer}");
    assert_eq!(framework_checked(&answer, "src/Core/Core.fsproj").as_deref(), Some("net10.0"), "{answer}");
    assert!(frameworks_not_checked(&answer, "src/Core/Core.fsproj").is_empty(), "{answer}");
}

/// A library change that still compiles breaks its consumer: the error is in another project.
#[test]
fn a_library_change_that_breaks_a_consumer_is_an_error_in_the_consumer_for_both() {
    require_dotnet();
    let tree = referee_tree(&[("src/Core/Orders.fs", "let grandTotal", "let sumOfTotals")]);
    let (build, _) = referee(tree.path());
    assert!(!build.succeeded);
    assert!(build.errors.iter().all(|(_, project, _)| project == "src/App/App.fsproj"), "{build:?}");
}

/// An error in the `#if REFEREE_STRICT` branch, active only through `Directory.Build.props`.
#[test]
fn an_error_in_a_branch_the_props_file_activates_is_an_error_for_both() {
    require_dotnet();
    let tree = referee_tree(&[("src/Core/Strict.fs", "order.Id > 0", "order.Id > \"zero\"")]);
    let (build, _) = referee(tree.path());
    assert!(build.errors.iter().any(|((_, file, line), ..)| file == "src/Core/Strict.fs" && *line == 6), "{build:?}");
}

/// An error in Modern.fs, compiled only for net10.0 (the target framework FSAC loads).
#[test]
fn an_error_in_a_file_compiled_only_for_the_first_target_framework_is_an_error_for_both() {
    require_dotnet();
    let tree = referee_tree(&[("src/Multi/Modern.fs", "\"net10.0: \" +", "1 +")]);
    let (build, _) = referee(tree.path());
    assert!(
        build.errors.iter().all(|(_, _, framework)| framework.as_deref() == Some("net10.0")),
        "only the net10.0 build compiles Modern.fs: {build:?}"
    );
    assert!(!build.errors.is_empty(), "{build:?}");
}

/// Errors only in netstandard2.0 code: Legacy.fs (compiled for netstandard2.0 alone) and the
/// `#else` branch of `#if NET5_0_OR_GREATER`. The build fails; fslens checked Multi for net10.0
/// only, where the code is clean, and must say netstandard2.0 was not checked, naming Legacy.fs
/// as a file it did not check.
#[test]
fn errors_only_in_the_other_target_framework_are_never_a_bare_clean() {
    require_dotnet();
    let tree = referee_tree(&[
        ("src/Multi/Legacy.fs", "\"netstandard2.0\"", "\"netstandard2.0\" + 1"),
        ("src/Multi/Text.fs", "text.ToUpper() + \"!\"", "text.ToUpper() + 1"),
    ]);
    let (build, answer) = referee(tree.path());
    assert!(!build.succeeded, "{}", build.output);
    let files: BTreeSet<&str> = build.errors.iter().map(|((_, file, _), ..)| file.as_str()).collect();
    assert_eq!(files, BTreeSet::from(["src/Multi/Legacy.fs", "src/Multi/Text.fs"]), "{build:?}");
    assert_eq!(answer["verdict"], json!("clean"), "net10.0 is clean: {answer}");
    let multi = answer["configurations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|configuration| configuration["project"] == "src/Multi/Multi.fsproj")
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(multi["targetFrameworksNotChecked"], json!(["netstandard2.0"]), "{answer}");
    assert_eq!(multi["filesNotChecked"], json!(["src/Multi/Legacy.fs"]), "{answer}");
    assert!(answer["configurationNote"].as_str().is_some_and(|note| note.contains("netstandard2.0")), "{answer}");
    assert!(!answer["expectedFiles"].as_array().unwrap().contains(&json!("src/Multi/Legacy.fs")), "{answer}");

    // Legacy.fs alone: FSAC never analyses it, so no verdict, and the reason says why.
    let (code, answer) = fslens_check_with(tree.path(), &["src/Multi/Legacy.fs"]);
    assert_eq!((code, &answer["verdict"]), (Some(2), &json!("unknown")), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("not_in_loaded_configuration"), "{answer}");
    assert_eq!(answer["blockingReason"]["files"], json!(["src/Multi/Legacy.fs"]), "{answer}");

    // A what-if that edits Legacy.fs has no verdict either (it said `clean` before: the edit's
    // own file was never analysed).
    let edits = tempfile::tempdir().unwrap();
    let edits_file = edits.path().join("edits.json");
    let broken = json!([{"path": "src/Multi/Legacy.fs", "text": "module Referee.Multi.Platform\n\nlet describe () = 1 + \"x\"\n"}]);
    std::fs::write(&edits_file, broken.to_string()).unwrap();
    let (code, answer) = fslens_check_with(tree.path(), &["--edits", edits_file.to_str().unwrap()]);
    assert_eq!((code, &answer["verdict"]), (Some(2), &json!("unknown")), "{answer}");
    assert_eq!(answer["blockingReason"]["errorKind"], json!("not_in_loaded_configuration"), "{answer}");
    assert_eq!(answer["blockingReason"]["files"], json!(["src/Multi/Legacy.fs"]), "{answer}");
}

/// `find` names the configuration it covers as `check` does: Multi was searched for net10.0
/// only, and Legacy.fs (netstandard2.0 only) was not searched by FSAC. A project with one
/// target framework is not listed.
#[test]
fn find_names_the_target_framework_it_did_not_search() {
    require_dotnet();
    let tree = referee_tree(&[]);
    let runtime = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["find", "Order", "--json", "--fsac", &double_command(), "--workspace"])
        .arg(tree.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!("no JSON: {} {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    });
    assert_eq!(answer["via"], json!("fsac"), "{answer}");
    assert_eq!(
        answer["configurations"],
        json!([{
            "project": "src/Multi/Multi.fsproj",
            "targetFramework": "net10.0",
            "targetFrameworks": ["net10.0", "netstandard2.0"],
            "targetFrameworksNotChecked": ["netstandard2.0"],
            "filesNotChecked": ["src/Multi/Legacy.fs"],
        }]),
        "{answer}"
    );
    assert!(answer["configurationNote"].as_str().is_some_and(|note| note.contains("netstandard2.0")), "{answer}");
}
