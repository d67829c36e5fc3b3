//! For the tests that drive a real editor (Neovim, Emacs) as a child process: finding the
//! editor's program, and waiting for it with a deadline.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The editor program named by `variable`, else `default`; panics with `install_hint` when it
/// cannot be run (a missing editor fails its tests, it does not skip them).
pub fn editor_program(variable: &str, default: &str, install_hint: &str) -> PathBuf {
    let program = std::env::var_os(variable).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(default));
    match Command::new(&program).arg("--version").stdin(Stdio::null()).output() {
        Ok(output) if output.status.success() => program,
        Ok(output) => panic!("`{} --version` failed: {}", program.display(), String::from_utf8_lossy(&output.stderr)),
        Err(error) => panic!("cannot run `{}` ({error}): {install_hint}", program.display()),
    }
}

/// Runs `command` (stdin closed, output captured) until it exits; past `deadline` kills it
/// and panics with `context(output so far)`.
pub fn run_with_deadline(command: &mut Command, deadline: Duration, context: impl Fn(&Output) -> String) -> Output {
    let mut child: Child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the editor starts");
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("the editor did not finish within {deadline:?}; {}", context(&output));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
