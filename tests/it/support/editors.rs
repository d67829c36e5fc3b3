//! For the tests that drive a real editor (Neovim, Emacs) as a child process: finding the
//! editor's program, and waiting for it with a deadline.

use std::io::Read;
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

/// Reads `pipe` to its end on a thread of its own.
fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Runs `command` (stdin closed, output captured) until it exits; past `deadline` kills it
/// and panics with `context(output so far)`. The output is drained while the editor runs, so
/// an editor that writes more than a pipe holds does not stall until the deadline.
pub fn run_with_deadline(command: &mut Command, deadline: Duration, context: impl Fn(&Output) -> String) -> Output {
    let mut child: Child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the editor starts");
    let stdout = drain(child.stdout.take().expect("stdout is piped"));
    let stderr = drain(child.stderr.take().expect("stderr is piped"));
    let started = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (status, false);
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            break (child.wait().unwrap(), true);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() };
    assert!(!timed_out, "the editor did not finish within {deadline:?}; {}", context(&output));
    output
}
