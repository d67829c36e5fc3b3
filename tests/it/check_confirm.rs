//! `fslens check --confirm build`: the real compiler confirms or overrules FSAC's per-file check.
//!
//! fixtures/build-confirm holds `let label (name: string) (packet: Packet) = $"%s{name} seed
//! (%A{packet})"`, which the per-file check of FSharp.Compiler.Service 43.13.404 (FSAC's path,
//! and the .NET double's) flags with two FS0001 errors while `dotnet build` compiles it. Each
//! test restores a copy, runs the real `fslens check` in front of the .NET FSAC double, and the
//! build runs for real (`dotnet` from `PATH`, as for the double itself).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::dotnet::restore;
use crate::support::double::{double_command, fixture_copy};

/// A restored copy of fixtures/build-confirm, with `extra` appended to Seeds/Garden.fs.
fn seeds(extra: &str) -> tempfile::TempDir {
    let tree = fixture_copy("build-confirm");
    if !extra.is_empty() {
        let garden = tree.path().join("Seeds/Garden.fs");
        let text = std::fs::read_to_string(&garden).unwrap();
        std::fs::write(&garden, format!("{text}{extra}")).unwrap();
    }
    restore(&tree.path().join("Seeds/Seeds.fsproj"));
    tree
}

/// `fslens check` over `root` in front of the .NET double with `extra` flags: exit code and
/// what it printed.
fn fslens_check(root: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let runtime = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["check", "--timeout-ms", "240000", "--fsac", &double_command(), "--workspace"])
        .arg(root)
        .args(extra)
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(!stdout.is_empty(), "nothing printed: {}", String::from_utf8_lossy(&output.stderr));
    (output.status.code(), stdout)
}

fn json_check(root: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let (code, stdout) = fslens_check(root, &[&["--json"], extra].concat());
    (code, serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("no JSON: {stdout}")))
}

/// `(code, file, 1-based line, confirmedByBuild)` of each listed error.
fn errors(answer: &Value) -> Vec<(u64, String, u64, Value)> {
    answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == json!("error"))
        .map(|diagnostic| {
            (
                diagnostic["code"].as_u64().unwrap(),
                diagnostic["file"].as_str().unwrap().to_owned(),
                diagnostic["range"]["start"]["line"].as_u64().unwrap() + 1,
                diagnostic.get("confirmedByBuild").cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// Every file under `folder` (relative), for "the build wrote nothing here".
fn files_under(folder: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(directory) = stack.pop() {
        for entry in std::fs::read_dir(&directory).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                found.push(entry.path().strip_prefix(folder).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// Without `--confirm` the two per-file errors make the verdict `errors`, and the answer says
/// that it rests on FSAC's per-file check.
#[test]
fn without_confirm_the_errors_verdict_says_it_rests_on_the_per_file_check() {
    let tree = seeds("");
    let (code, answer) = json_check(tree.path(), &[]);
    assert_eq!((code, &answer["verdict"]), (Some(1), &json!("errors")), "{answer:#}");
    assert_eq!(answer["verdictSource"], json!("fsac-per-file-check"), "{answer:#}");
    assert!(answer["verdictNote"].as_str().unwrap().contains("confirm=build"), "{answer:#}");
    assert!(answer.get("confirmation").is_none(), "{answer:#}");
    let expected: Vec<(u64, String, u64, Value)> =
        vec![(1, "Seeds/Labels.fs".into(), 7, Value::Null), (1, "Seeds/Labels.fs".into(), 7, Value::Null)];
    assert_eq!(errors(&answer), expected, "the double reproduces the per-file check's two errors: {answer:#}");
}

/// With `--confirm build` the build compiles the interpolated string: the verdict is `clean`,
/// resting on the build, and FSAC's two errors are named as not confirmed. The project's own
/// `bin/` and `obj/` are left as they were: nothing built lands there, the restore's
/// `project.assets.json` is not rewritten.
#[test]
fn the_build_overrules_two_per_file_errors_it_does_not_report() {
    let tree = seeds("");
    let project = tree.path().join("Seeds");
    let assets = project.join("obj/project.assets.json");
    let assets_before = (std::fs::read(&assets).unwrap(), std::fs::metadata(&assets).unwrap().modified().unwrap());

    let (code, answer) = json_check(tree.path(), &["--confirm", "build"]);
    assert_eq!((code, &answer["verdict"]), (Some(0), &json!("clean")), "{answer:#}");
    assert_eq!(answer["verdictSource"], json!("build"), "{answer:#}");
    assert_eq!(answer["complete"], json!(true), "{answer:#}");
    let expected: Vec<(u64, String, u64, Value)> =
        vec![(1, "Seeds/Labels.fs".into(), 7, json!(false)), (1, "Seeds/Labels.fs".into(), 7, json!(false))];
    assert_eq!(errors(&answer), expected, "{answer:#}");
    let confirmation = &answer["confirmation"];
    assert_eq!(confirmation["status"], json!("compiled"), "{answer:#}");
    assert_eq!(confirmation["buildSucceeded"], json!(true), "{answer:#}");
    assert_eq!(confirmation["buildErrorCount"], json!(0), "{answer:#}");
    assert_eq!(confirmation["fsacErrorsConfirmed"], json!(0), "{answer:#}");
    assert_eq!(confirmation["fsacErrorsNotConfirmed"], json!(2), "{answer:#}");
    assert_eq!(confirmation["projectsBuilt"], json!(["Seeds/Seeds.fsproj"]), "{answer:#}");
    assert_eq!(confirmation["errorsOnlyInBuild"], json!([]), "{answer:#}");

    let assets_after = (std::fs::read(&assets).unwrap(), std::fs::metadata(&assets).unwrap().modified().unwrap());
    assert!(assets_before == assets_after, "the build rewrote the project's own obj/project.assets.json");
    let built: Vec<String> = files_under(&project)
        .into_iter()
        .filter(|file| file.ends_with("Seeds.dll") || file.ends_with(".pdb"))
        .collect();
    assert!(built.is_empty(), "the build wrote into the project's own folders: {built:?}");
}

/// A real error seeded in Garden.fs is reported by both: confirmed, and the verdict `errors`
/// rests on the build; the interpolated string's two errors stay unconfirmed, and the build
/// reports nothing FSAC did not.
#[test]
fn a_seeded_error_is_confirmed_by_both() {
    let tree = seeds("\nlet broken : int = \"seven\"\n");
    let (code, answer) = json_check(tree.path(), &["--confirm", "build"]);
    assert_eq!((code, &answer["verdict"]), (Some(1), &json!("errors")), "{answer:#}");
    assert_eq!(answer["verdictSource"], json!("build"), "{answer:#}");
    let mut found = errors(&answer);
    found.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    let expected: Vec<(u64, String, u64, Value)> = vec![
        (1, "Seeds/Garden.fs".into(), 8, json!(true)),
        (1, "Seeds/Labels.fs".into(), 7, json!(false)),
        (1, "Seeds/Labels.fs".into(), 7, json!(false)),
    ];
    assert_eq!(found, expected, "{answer:#}");
    let confirmation = &answer["confirmation"];
    assert_eq!(confirmation["status"], json!("compiled"), "{answer:#}");
    assert_eq!(confirmation["buildSucceeded"], json!(false), "{answer:#}");
    assert_eq!(confirmation["buildErrorCount"], json!(1), "{answer:#}");
    assert_eq!(
        (confirmation["fsacErrorsConfirmed"].clone(), confirmation["fsacErrorsNotConfirmed"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(confirmation["errorsOnlyInBuild"], json!([]), "{answer:#}");
}

/// The CLI's text says what the verdict rests on and marks each error.
#[test]
fn the_text_says_what_the_build_confirmed() {
    let tree = seeds("");
    let (code, text) = fslens_check(tree.path(), &["--confirm", "build"]);
    assert_eq!(code, Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("clean (workspace scope, trusted): 2 error(s)"), "{text}");
    assert!(
        lines.iter().any(|line| line.starts_with("confirmed by the build (compiled): ")
            && line.contains("the verdict rests on the build")),
        "{text}"
    );
    let marked = lines.iter().filter(|line| line.contains("error FS0001 [build: not confirmed]: ")).count();
    assert_eq!(marked, 2, "{text}");
}

/// The build has its own deadline (`--build-timeout-ms`, counted from its start, ten minutes
/// unless given): past it the build is stopped, the confirmation says `timedOut` with the
/// deadline it missed, and the verdict stays FSAC's, said so.
#[test]
fn a_build_past_its_own_deadline_is_stopped_and_the_verdict_stays_fsacs() {
    let tree = seeds("");
    let (code, answer) = json_check(tree.path(), &["--confirm", "build", "--build-timeout-ms", "1"]);
    assert_eq!((code, &answer["verdict"]), (Some(1), &json!("errors")), "{answer:#}");
    assert_eq!(answer["verdictSource"], json!("fsac-per-file-check"), "{answer:#}");
    let confirmation = &answer["confirmation"];
    assert_eq!(confirmation["status"], json!("timedOut"), "{answer:#}");
    assert!(confirmation["note"].as_str().unwrap().contains("buildTimeoutMs (1 ms)"), "{answer:#}");
    let expected: Vec<(u64, String, u64, Value)> =
        vec![(1, "Seeds/Labels.fs".into(), 7, Value::Null), (1, "Seeds/Labels.fs".into(), 7, Value::Null)];
    assert_eq!(errors(&answer), expected, "no error is marked by a build that did not end: {answer:#}");
}

/// fixtures/build-confirm-chain: `App` references `Core`, and each gets a real error. The build
/// stops `App` before its compiler runs (its referenced project failed), so it never reports
/// `App`'s error: that error is neither confirmed nor overruled (no `confirmedByBuild`), its
/// file is listed in `filesNotCompiled` and the note says why; `Core`'s error is confirmed and
/// the verdict `errors` rests on the build. Before, `App`'s real error was `confirmedByBuild:
/// false`, as if the build had compiled it and disagreed.
#[test]
fn an_error_in_a_project_the_failed_build_never_compiled_is_not_called_unconfirmed() {
    let tree = fixture_copy("build-confirm-chain");
    for (file, error) in
        [("Core/Prices.fs", "\nlet broken : int = \"seven\"\n"), ("App/Receipt.fs", "\nlet wrong : string = 7\n")]
    {
        let path = tree.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}{error}")).unwrap();
    }
    restore(&tree.path().join("App/App.fsproj"));
    let (code, answer) = json_check(tree.path(), &["--confirm", "build"]);
    assert_eq!((code, &answer["verdict"]), (Some(1), &json!("errors")), "{answer:#}");
    assert_eq!(answer["verdictSource"], json!("build"), "{answer:#}");
    let mut found = errors(&answer);
    found.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    let expected: Vec<(u64, String, u64, Value)> =
        vec![(1, "App/Receipt.fs".into(), 6, Value::Null), (1, "Core/Prices.fs".into(), 6, json!(true))];
    assert_eq!(found, expected, "{answer:#}");
    let confirmation = &answer["confirmation"];
    assert_eq!(confirmation["status"], json!("compiled"), "{answer:#}");
    assert_eq!(confirmation["filesNotCompiled"], json!(["App/Receipt.fs"]), "{answer:#}");
    assert_eq!(
        (confirmation["fsacErrorsConfirmed"].clone(), confirmation["fsacErrorsNotConfirmed"].clone()),
        (json!(1), json!(0)),
        "{answer:#}"
    );
    assert!(confirmation["note"].as_str().unwrap().contains("it did not compile App/Receipt.fs"), "{answer:#}");
}
