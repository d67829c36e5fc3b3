//! Architecture invariants that can be checked from the source text (docs/architecture.md).

use std::path::{Path, PathBuf};

fn rust_files(directory: &Path) -> Vec<PathBuf> {
    crate::support::files_under(directory, "rs")
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Lines of code outside comments (good enough for `use` and call-site checks).
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .map(|(number, line)| (number + 1, line.trim().to_owned()))
        .filter(|(_, line)| !line.starts_with("//"))
        .collect()
}

#[test]
fn syntax_layer_knows_nothing_of_lsp_tokio_or_the_proxy() {
    // Invariant 1.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root().join("syntax")) {
        for (number, line) in code_lines(&file) {
            if ["crate::lsp", "crate::proxy", "crate::documents", "tokio", "lsp_types"]
                .iter()
                .any(|name| line.contains(name))
            {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "syntax/ must stay pure:\n{}", offenders.join("\n"));
}

#[test]
fn only_the_backend_launcher_starts_programs() {
    // Invariant 8: no value from a peer chooses a program; only the launcher spawns, and it
    // gets its command line from the user's flags or environment. The dotnet shim (shim.rs)
    // runs the real dotnet, named by the user's own setting file or found on PATH, with the
    // arguments it was started with: no peer is connected yet when it does.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root()) {
        if file.ends_with("proxy/backend.rs") || file.ends_with("src/shim.rs") {
            continue;
        }
        for (number, line) in code_lines(&file) {
            if line.contains("Command::new") || line.contains("process::Command") {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "programs started outside proxy/backend.rs:\n{}", offenders.join("\n"));
}

#[test]
fn nothing_but_main_writes_to_stdout() {
    // Invariant 5 (also enforced by the print_stdout lint): the library never prints.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root()) {
        if file.ends_with("main.rs") || file.ends_with("lsp/stdio.rs") {
            continue;
        }
        for (number, line) in code_lines(&file) {
            if line.contains("std::io::stdout") || line.contains("println!") || line.contains("print!(") {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "stdout used outside main.rs:\n{}", offenders.join("\n"));
}

#[test]
fn commands_depend_on_no_proxy_module() {
    // Invariant 2b: the main loop dispatches to the commands, so the commands may not reach back
    // into it; what they need of the session comes through `commands::context`.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root().join("commands")) {
        for (number, line) in code_lines(&file) {
            if line.contains("crate::proxy") {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "commands/ imports from proxy/:\n{}", offenders.join("\n"));
}
