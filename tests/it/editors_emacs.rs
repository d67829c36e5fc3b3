//! The Emacs (eglot) setup of editors/README.md, driven by `emacs --batch` against fslens and
//! the FSAC double on a copy of fixtures/shipping. The driver
//! (editors/emacs/test/eglot-batch.el) evaluates the README's Emacs Lisp blocks as a user
//! would paste them, then runs their `fslens-check` and `fslens-make-visible`; it writes what it
//! saw as JSON, and the assertions are here.
//!
//! Emacs must be installed with eglot: scripts/test-editors.sh installs Debian's `emacs-nox`
//! and `elpa-eglot` (Emacs 28.2, eglot 1.9); a missing `emacs` fails this test, it does not
//! skip it. `FSLENS_EMACS=/path/to/emacs` runs it on another Emacs.

#![allow(clippy::print_stderr)] // timings go to stderr

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::double::{double_command, fixture_copy, repository};
use support::editors::{editor_program, run_with_deadline};

const EMACS_DEADLINE: Duration = Duration::from_secs(150);

fn emacs() -> PathBuf {
    editor_program(
        "FSLENS_EMACS",
        "emacs",
        "the Emacs setup test needs Emacs with eglot — run scripts/test-editors.sh (it runs \
         `apt-get install -y emacs-nox elpa-eglot`) or install them yourself",
    )
}

fn drive(workspace: &Path) -> Value {
    let emacs = emacs();
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out.json");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // The README's configuration starts `fslens` from PATH.
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_fslens"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let started = Instant::now();
    let mut command = Command::new(&emacs);
    command
        .arg("--batch")
        .arg("-l")
        .arg(repository().join("editors/emacs/test/eglot-batch.el"))
        .current_dir(workspace)
        .env("PATH", path)
        .env("HOME", &home)
        .env("FSLENS_README", repository().join("editors/README.md"))
        .env("FSLENS_WORKSPACE", workspace)
        .env("FSLENS_OUT", &out)
        .env("FSLENS_FSAC", double_command())
        .env("XDG_RUNTIME_DIR", scratch.path())
        .env("XDG_CACHE_HOME", scratch.path().join("cache"));
    let output = run_with_deadline(&mut command, EMACS_DEADLINE, |output| {
        format!("emacs stderr:\n{}", String::from_utf8_lossy(&output.stderr))
    });
    let text = std::fs::read_to_string(&out).unwrap_or_else(|error| {
        panic!("the driver wrote no result ({error}); emacs stderr: {}", String::from_utf8_lossy(&output.stderr))
    });
    let seen: Value = serde_json::from_str(&text).unwrap();
    assert!(seen["errors"].is_null(), "the driver failed: {seen:#}");
    eprintln!("emacs {} drove the README's setup in {:?}", seen["emacs"], started.elapsed());
    seen
}

#[test]
fn emacs_eglot_setup_from_the_readme_checks_and_makes_visible() {
    let workspace = fixture_copy("shipping");
    let seen = drive(workspace.path());
    // The README's server entry started fslens for the F# buffer.
    assert_eq!(seen["mode"], "fsharp-mode", "{seen:#}");
    assert_eq!(seen["server"], "fslens", "{seen:#}");
    assert_eq!(seen["status"], "ready", "{seen:#}");

    // fslens-check on the buffer with an unsaved type error: the error, at its line, in a
    // compilation-mode buffer; nothing saved.
    let check = seen["check_buffer"].as_str().unwrap();
    let edited_line = seen["edited_line"].as_u64().unwrap();
    let error_line = check.lines().find(|line| line.contains("FS0001")).unwrap_or_else(|| panic!("{seen:#}"));
    assert!(error_line.starts_with(&format!("src/Shipping.App/Program.fs:{edited_line}:")), "{error_line}");
    assert!(error_line.contains("expected to have type"), "{error_line}");
    assert_eq!(seen["check_mode"], "compilation-mode");
    assert!(seen["messages"].as_str().unwrap().contains("fslens check: errors"), "{seen:#}");
    assert_eq!(seen["saved"], "    let s = create \"Books\" 12.5 \"Lyon\"", "nothing is saved");

    // fslens-make-visible: the edit arrives as workspace/applyEdit, eglot asks, the buffer
    // changes and the disk does not.
    assert_eq!(seen["before"], "type private Hidden = { Code: int }");
    assert_eq!(seen["after"], "type internal Hidden = { Code: int }");
    assert_eq!(seen["modified"], true);
    assert_eq!(seen["on_disk"], "type private Hidden = { Code: int }");
    assert!(seen["messages"].as_str().unwrap().contains("fslens: ok"), "{seen:#}");
}
