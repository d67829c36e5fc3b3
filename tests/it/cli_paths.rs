//! Paths and empty workspaces as a user types them in a shell: the real
//! `fslens` binary, run from a chosen current directory, in front of the FSAC double.
//!
//! - A path typed on the command line is read from the shell's directory first, then from the
//!   workspace root (`cli::paths::resolve_cli_path`).
//! - A file-scope check of a path that does not exist is `invalid_path`, not a file no project
//!   compiles.
//! - `--fsac "node relative/path.mjs"` reads its relative path words from the directory fslens
//!   was started in, not from the workspace root FSAC runs in.
//! - A workspace without a project says `no_projects` in status, find and check.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use support::double::{
    AWKWARD_DIRECTORY_NAME, double_command, fixture_copy, fixture_copy_in_awkward_directory, repository,
};

/// Runs `fslens ARGS` in `directory` with a private runtime directory (no session to join).
fn fslens_in(directory: &Path, runtime: &Path, arguments: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .current_dir(directory)
        .args(arguments)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("FSLENS_FSAC")
        .output()
        .unwrap()
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!("no JSON: {} {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    })
}

#[test]
fn a_path_typed_in_the_shell_is_read_from_the_shells_directory_first() {
    // The workspace is a directory of the shell's directory (named with every character URI
    // encoders disagree on); the commands run from that parent.
    let (parent, _root) = fixture_copy_in_awkward_directory("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let ws = AWKWARD_DIRECTORY_NAME;
    let file = format!("{ws}/src/Shipping.Domain/Types.fs");
    let file = file.as_str();
    let output =
        fslens_in(parent.path(), runtime.path(), &["check", file, "--workspace", ws, "--json", "--fsac", &fsac]);
    let answer = json_of(&output);
    assert_eq!(answer["verdict"], json!("clean"), "{answer}");
    assert_eq!(answer["expectedFiles"], json!(["src/Shipping.Domain/Types.fs"]));

    // A path that exists only under the workspace still means the workspace's file.
    let output = fslens_in(
        parent.path(),
        runtime.path(),
        &["check", "src/Shipping.Domain/Types.fs", "--workspace", ws, "--json", "--fsac", &fsac],
    );
    assert_eq!(json_of(&output)["verdict"], json!("clean"));

    // The syntax-layer commands and make-visible read --path the same way.
    let output = fslens_in(
        parent.path(),
        runtime.path(),
        &[
            "read-enclosing",
            "--path",
            &format!("{ws}/src/Shipping.Domain/Visibility.fs"),
            "--line",
            "8",
            "--workspace",
            ws,
            "--json",
        ],
    );
    let answer = json_of(&output);
    assert!(answer.to_string().contains("secret"), "{answer}");
    let output = fslens_in(
        parent.path(),
        runtime.path(),
        &["outline", "--path", &format!("{ws}/src/Shipping.Domain/Visibility.fs"), "--workspace", ws, "--json"],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("Internals"));
    let output = fslens_in(
        &parent.path().join(ws).join("src"),
        runtime.path(),
        &[
            "make-visible",
            "--path",
            "Shipping.Domain/Visibility.fs",
            "--line",
            "16",
            "--word",
            "Hidden",
            "--workspace",
            "..",
            "--json",
        ],
    );
    let answer = json_of(&output);
    assert_eq!(answer["status"], json!("ok"), "{answer}");
}

#[test]
fn a_file_that_does_not_exist_is_an_invalid_path_not_a_file_of_no_project() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    let output = fslens_in(
        workspace.path(),
        runtime.path(),
        &["check", "src/Shipping.Domain/Missing.fs", "--json", "--fsac", &double_command()],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("invalid path") && stderr.contains("no such file"), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("file_not_in_project"));
}

/// The FSAC double's assembly, relative to the repository root.
const DOUBLE: &str = "tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll";

#[test]
fn relative_path_words_of_fsac_are_read_from_where_fslens_was_started() {
    let workspace = fixture_copy("shipping");
    let runtime = tempfile::tempdir().unwrap();
    // From the repository root, the double is `tests/fsac-double-dotnet/bin/…/FsacDouble.dll`;
    // FSAC itself runs in the workspace, where that path names nothing.
    let workspace_text = workspace.path().to_str().unwrap();
    let output = fslens_in(
        &repository(),
        runtime.path(),
        &["status", "--json", "--fsac", &format!("dotnet {DOUBLE}"), "--workspace", workspace_text],
    );
    let answer = json_of(&output);
    assert_eq!(answer["state"], json!("ready"), "{answer}");
    assert_eq!(answer["fsac"]["command"], json!(format!("dotnet {}", repository().join(DOUBLE).display())));
}

#[test]
fn a_workspace_without_projects_says_so_in_status_find_and_check() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("src")).unwrap();
    std::fs::write(workspace.path().join("src/Loose.fs"), "module Loose\n\nlet answer = 42\n").unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let fsac = double_command();
    let searched = workspace.path().canonicalize().unwrap().display().to_string();

    let status = json_of(&fslens_in(workspace.path(), runtime.path(), &["status", "--json", "--fsac", &fsac]));
    assert_eq!(status["noProjects"]["errorKind"], json!("no_projects"), "{status}");
    assert_eq!(status["noProjects"]["searched"], json!(searched));
    assert_eq!(status["noProjects"]["sourceFiles"], json!(1));

    for query in ["Foo", "answer"] {
        let find = json_of(&fslens_in(workspace.path(), runtime.path(), &["find", query, "--json", "--fsac", &fsac]));
        assert_eq!(find["outcome"], json!(if query == "Foo" { "indeterminate" } else { "found" }), "{find}");
        assert_ne!(find["status"], json!("ok"), "nothing was searched, so nothing is complete: {find}");
        assert_eq!(find["errorKind"], json!("no_projects"));
        assert_eq!(find["noProjects"]["searched"], json!(searched));
    }
    let text = fslens_in(workspace.path(), runtime.path(), &["find", "Foo", "--fsac", &fsac]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("no_projects: no F# project"));

    let check = fslens_in(workspace.path(), runtime.path(), &["check", "--json", "--fsac", &fsac]);
    assert_eq!(check.status.code(), Some(2));
    let check = json_of(&check);
    assert_eq!(check["verdict"], json!("unknown"));
    assert_eq!(check["blockingReason"]["errorKind"], json!("no_projects"), "{check}");
}
