//! fslens started as `dotnet` (src/shim.rs), through a `dotnet` symbolic link in a shim
//! directory, in front of the stand-in real dotnet (tests/stand-in-dotnet: it records every
//! command line that is not FSAC and runs the FSAC double for `fsautocomplete.dll`), and in
//! front of the real .NET SDK (`--version`, `build` and `test` of `fixtures/tested`).
//!
//! An SDK command passes through to the real dotnet unchanged (arguments, standard streams,
//! environment, working directory, exit code, a signal); an FSAC command line makes the shim the
//! fslens proxy in front of that FSAC, with one FSAC process that CLI clients join.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{Value, json};

use crate::support::double::{Editor, TIMEOUT, fixture_copy, repository};

/// A shim directory (`dotnet` → the fslens binary) and what the shim runs in: the stand-in's
/// directory, the log it records to, a private runtime directory for session sockets.
struct ShimSetup {
    temporary: tempfile::TempDir,
    shim: PathBuf,
    stand_in: PathBuf,
    log: PathBuf,
    runtime: PathBuf,
    node: PathBuf,
    /// The real `dotnet`, which the stand-in runs the FSAC double with.
    dotnet: PathBuf,
}

impl ShimSetup {
    fn new() -> ShimSetup {
        let temporary = tempfile::tempdir().unwrap();
        let shim = temporary.path().join("shim");
        std::fs::create_dir(&shim).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fslens"), shim.join("dotnet")).unwrap();
        let runtime = temporary.path().join("runtime");
        std::fs::create_dir(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        let node = fslens::proxy::backend::find_on_path("node", std::env::var_os("PATH").as_deref())
            .expect("node is on PATH (the stand-in dotnet needs it)");
        let dotnet = fslens::proxy::backend::find_on_path("dotnet", std::env::var_os("PATH").as_deref())
            .expect("the real dotnet is on PATH (the FSAC double runs on it)");
        ShimSetup {
            log: temporary.path().join("invocations.jsonl"),
            shim,
            stand_in: repository().join("tests/stand-in-dotnet"),
            runtime,
            node,
            dotnet,
            temporary,
        }
    }

    /// The `PATH` the tests give: the shim first, then the stand-in real dotnet.
    fn path_with_stand_in(&self) -> std::ffi::OsString {
        std::env::join_paths([&self.shim, &self.stand_in]).unwrap()
    }

    /// A command for `program` with only the environment the tests choose.
    fn command(&self, program: &Path, arguments: &[&str], path: &std::ffi::OsStr) -> std::process::Command {
        let mut command = std::process::Command::new(program);
        command
            .args(arguments)
            .env_clear()
            .env("PATH", path)
            .env("XDG_RUNTIME_DIR", &self.runtime)
            .env("FSLENS_STAND_IN_NODE", &self.node)
            .env("FSLENS_STAND_IN_LOG", &self.log)
            .current_dir(self.temporary.path());
        command
    }

    fn records(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    }
}

fn run_with_input(mut command: std::process::Command, input: &[u8]) -> Output {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    output
}

/// A record without its time stamp, for comparing two runs.
fn without_time(mut record: Value) -> Value {
    record.as_object_mut().unwrap().remove("at");
    record
}

#[test]
fn a_build_passes_through_to_the_real_dotnet_unchanged() {
    let setup = ShimSetup::new();
    let arguments = ["build", "Shipping.sln", "-c", "Release", "-p:Name=a b", "", "--", "é;$HOME"];
    // Standard input larger than a pipe's buffer, echoed back by the stand-in.
    let input: Vec<u8> = (0..200_000u32).map(|index| b"abcdefghij\n"[index as usize % 11]).collect();
    let run = |program: &Path| {
        let mut command = setup.command(program, &arguments, &setup.path_with_stand_in());
        command.env("FSLENS_STAND_IN_ECHO_STDIN", "1").env("FSLENS_STAND_IN_EXIT_CODE", "3");
        run_with_input(command, &input)
    };
    let direct = run(&setup.stand_in.join("dotnet"));
    let through_shim = run(&setup.shim.join("dotnet"));

    assert_eq!(direct.status.code(), Some(3), "{direct:?}");
    assert_eq!(through_shim.status.code(), Some(3), "stderr: {}", String::from_utf8_lossy(&through_shim.stderr));
    assert!(direct.stdout.starts_with(&input), "the stand-in echoes its input");
    assert_eq!(through_shim.stdout, direct.stdout, "stdout differs through the shim");
    assert_eq!(through_shim.stderr, direct.stderr, "stderr differs through the shim");
    let records = setup.records();
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0]["argv"], json!(arguments), "{records:?}");
    assert_eq!(without_time(records[1].clone()), without_time(records[0].clone()), "argv, cwd, environment, exit code");
    assert_eq!(records[1]["environment"]["FSLENS_STAND_IN_ECHO_STDIN"], json!("1"), "{records:?}");
}

#[test]
fn a_signal_that_ends_the_real_dotnet_ends_the_shims_caller_alike() {
    let setup = ShimSetup::new();
    let mut command = setup.command(&setup.shim.join("dotnet"), &["test", "--no-build"], &setup.path_with_stand_in());
    command.env("FSLENS_STAND_IN_SIGNAL", "SIGTERM");
    let output = run_with_input(command, b"");
    // The shim replaced itself with the real dotnet, so its caller sees the signal itself (a
    // shell would print 128 + 15).
    assert_eq!(output.status.signal(), Some(15), "{output:?}");
    assert_eq!(setup.records()[0]["argv"], json!(["test", "--no-build"]));
}

#[test]
fn the_real_dotnet_named_next_to_the_shim_wins_and_the_shim_never_runs_itself() {
    let setup = ShimSetup::new();
    // The setting file names the stand-in; PATH has only the shim.
    let only_shim = std::env::join_paths([&setup.shim]).unwrap();
    let setting = setup.shim.join(fslens::shim::REAL_DOTNET_FILE);
    std::fs::write(&setting, format!("{}\n", setup.stand_in.join("dotnet").display())).unwrap();
    let output = run_with_input(setup.command(&setup.shim.join("dotnet"), &["--version"], &only_shim), b"");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "8.0.100\n");

    // Naming the shim itself is refused (exit 126), never followed into a loop.
    std::fs::write(&setting, setup.shim.join("dotnet").display().to_string()).unwrap();
    let output = run_with_input(setup.command(&setup.shim.join("dotnet"), &["--version"], &only_shim), b"");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(126), "{stderr}");
    assert!(
        stderr.contains("is this fslens shim itself") && stderr.contains(&setting.display().to_string()),
        "{stderr}"
    );

    // Without the file and with only the shim on PATH there is nothing to run: 127, like a shell.
    std::fs::remove_file(&setting).unwrap();
    let output = run_with_input(setup.command(&setup.shim.join("dotnet"), &["build"], &only_shim), b"");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(127), "{stderr}");
    assert!(stderr.contains("no real dotnet found"), "{stderr}");
    assert_eq!(setup.records().len(), 1, "only the first --version reached the stand-in");
}

/// Every process below `ancestor` (from /proc), with its command line.
fn descendants(ancestor: u32) -> Vec<(u32, String)> {
    let mut parents = HashMap::new();
    let mut command_lines = HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // The parent pid is the second field after the parenthesised program name.
        let Some(after_name) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
        let Some(parent) = after_name.split_whitespace().nth(1).and_then(|field| field.parse::<u32>().ok()) else {
            continue;
        };
        parents.insert(pid, parent);
        let line = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        command_lines.insert(pid, String::from_utf8_lossy(&line).replace('\0', " ").trim().to_owned());
    }
    let is_below = |mut pid: u32| {
        while let Some(&parent) = parents.get(&pid) {
            if parent == ancestor {
                return true;
            }
            if parent <= 1 {
                return false;
            }
            pid = parent;
        }
        false
    };
    let mut found: Vec<(u32, String)> =
        parents.keys().filter(|pid| is_below(**pid)).map(|pid| (*pid, command_lines[pid].clone())).collect();
    found.sort();
    found
}

#[tokio::test]
async fn an_fsac_command_line_makes_the_shim_the_proxy_with_one_fsac() {
    let setup = ShimSetup::new();
    let workspace = fixture_copy("shipping");
    let root = workspace.path().canonicalize().unwrap();
    let state = setup.temporary.path().join("fsac state");
    // Ionide's command line: FSharp.fsac.dotnetArgs, the bundled dll, its own flags.
    let assembly = "/ionide/bin/net8.0/fsautocomplete.dll";
    let state_text = state.display().to_string();
    let arguments = ["--roll-forward", "LatestMajor", assembly, "--state-directory", state_text.as_str()];
    let mut command = tokio::process::Command::new(setup.shim.join("dotnet"));
    command
        .args(arguments)
        .env_clear()
        .env("PATH", setup.path_with_stand_in())
        .env("XDG_RUNTIME_DIR", &setup.runtime)
        .env("FSLENS_STAND_IN_NODE", &setup.node)
        .env("FSLENS_STAND_IN_DOTNET", &setup.dotnet)
        .env("FSLENS_STAND_IN_LOG", &setup.log)
        // The double loads the workspace with the real SDK, which needs a home for NuGet.
        .env("HOME", std::env::var_os("HOME").unwrap_or_else(|| setup.temporary.path().into()))
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .env("DOTNET_GCServer", "1")
        .current_dir(&root);
    let capabilities = json!({"textDocument": {"publishDiagnostics": {}, "hover": {}}});
    let mut editor = Editor::start_from_command(command, &root, capabilities).await;
    let fslens_pid = editor.pid();
    let status = editor.wait_until_ready().await["result"].clone();

    // fslens started the stand-in real dotnet with Ionide's arguments, quoted and split back.
    let expected = fslens::shim::fsac_command_line(
        &setup.stand_in.join("dotnet"),
        &arguments.iter().map(std::ffi::OsString::from).collect::<Vec<_>>(),
    )
    .unwrap();
    assert_eq!(status["fsac"]["command"], json!(expected), "{status}");
    assert!(expected.contains("'"), "the state directory's space is quoted: {expected}");

    // One FSAC process below the shim: the double, started with those arguments.
    let fsac: Vec<(u32, String)> =
        descendants(fslens_pid).into_iter().filter(|(_, line)| line.contains("FsacDouble.dll")).collect();
    assert_eq!(fsac.len(), 1, "FSAC processes below the shim: {fsac:?}");
    assert_eq!(json!(fsac[0].0), status["fsac"]["pid"], "{status}");
    assert!(fsac[0].1.ends_with(&format!("{assembly} --state-directory {state_text}")), "{fsac:?}");
    assert!(setup.records().is_empty(), "FSAC is not an SDK command: {:?}", setup.records());

    // The session works: a hover answered by the double through fslens.
    let types = root.join("src/Shipping.Domain/Types.fs");
    let uri = editor.open(&types, 1).await;
    let text = std::fs::read_to_string(&types).unwrap();
    let line = text.lines().position(|line| line.contains("mutable Weight")).unwrap();
    let character = text.lines().nth(line).unwrap().find("Weight").unwrap();
    let hover = editor
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
        .await;
    assert!(hover["result"]["contents"].to_string().contains("float"), "{hover}");

    // `fslens session-path` names the socket this session serves (the extension joins it).
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["session-path", "--workspace"])
        .arg(&root)
        .env("XDG_RUNTIME_DIR", &setup.runtime)
        .output()
        .unwrap();
    assert!(printed.status.success(), "{printed:?}");
    assert_eq!(json!(String::from_utf8_lossy(&printed.stdout).trim_end()), status["session"]["socket"], "{status}");

    // A CLI client joins this session (the one FSAC), as `fslens mcp` would.
    let joined = tokio::time::timeout(
        TIMEOUT,
        tokio::process::Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args(["status", "--json", "--workspace"])
            .arg(&root)
            .env("XDG_RUNTIME_DIR", &setup.runtime)
            .env_remove("FSLENS_FSAC")
            .output(),
    )
    .await
    .unwrap()
    .unwrap();
    let joined: Value = serde_json::from_slice(&joined.stdout)
        .unwrap_or_else(|_| panic!("fslens status: {}", String::from_utf8_lossy(&joined.stderr)));
    assert_eq!(joined["fsac"]["pid"], status["fsac"]["pid"], "{joined}");
    assert_eq!(joined["session"]["clients"], json!(1), "{joined}");
    let after: Vec<(u32, String)> =
        descendants(fslens_pid).into_iter().filter(|(_, line)| line.contains("FsacDouble.dll")).collect();
    assert_eq!(after.len(), 1, "{after:?}");
    editor.stop().await;
}

/// Runs `program` with `arguments` in `directory`, keeping this process's environment (the
/// real SDK needs HOME and its own variables) but with `path` as PATH.
fn run_in(program: &Path, arguments: &[&str], directory: &Path, path: &std::ffi::OsStr) -> Output {
    std::process::Command::new(program)
        .args(arguments)
        .env("PATH", path)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .env("DOTNET_NOLOGO", "1")
        .current_dir(directory)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The compiler's error lines of a build's output (the rest holds times and paths of the run).
fn error_lines(output: &Output) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.contains(": error FS"))
        .map(|line| line.trim().to_owned())
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

/// The real .NET SDK behind the shim, as Ionide mode runs it: the shim's setting file names the
/// real `dotnet`, the shim is first on PATH (so the SDK's own child processes that look
/// `dotnet` up go through it too). `--version`, a failing `build` and a `test` run with a
/// failing test come out as the real program gives them: the same exit codes and output.
#[test]
fn the_real_sdk_passes_through_the_shim() {
    let setup = ShimSetup::new();
    let system_path = std::env::var_os("PATH").unwrap_or_default();
    let real = fslens::proxy::backend::find_on_path("dotnet", Some(&system_path))
        .expect("the .NET SDK's dotnet is on PATH (the project's machines have SDK 10)");
    std::fs::write(setup.shim.join(fslens::shim::REAL_DOTNET_FILE), format!("{}\n", real.display())).unwrap();
    let mut shim_first = vec![setup.shim.clone()];
    shim_first.extend(std::env::split_paths(&system_path));
    let shim_first = std::env::join_paths(shim_first).unwrap();
    let shim = setup.shim.join("dotnet");
    let workspace = fixture_copy("tested");
    let root = workspace.path();

    let direct = run_in(&real, &["--version"], root, &system_path);
    let through_shim = run_in(&shim, &["--version"], root, &shim_first);
    assert_eq!(direct.status.code(), Some(0), "{direct:?}");
    assert_eq!(through_shim.status.code(), Some(0), "{through_shim:?}");
    assert_eq!(through_shim.stdout, direct.stdout);

    // A type error in the library: the build fails with the compiler's own lines and code.
    let counter = root.join("src/Tally/Counter.fs");
    let text = std::fs::read_to_string(&counter).unwrap();
    std::fs::write(&counter, text.replace("tally.Count + amount", "tally.Count + string amount")).unwrap();
    let build = ["build", "src/Tally/Tally.fsproj", "-clp:NoSummary"];
    let direct = run_in(&real, &build, root, &system_path);
    let through_shim = run_in(&shim, &build, root, &shim_first);
    assert_eq!(direct.status.code(), Some(1), "{}", String::from_utf8_lossy(&direct.stdout));
    assert_eq!(through_shim.status.code(), direct.status.code(), "{}", String::from_utf8_lossy(&through_shim.stderr));
    assert!(!error_lines(&direct).is_empty(), "{}", String::from_utf8_lossy(&direct.stdout));
    assert_eq!(error_lines(&through_shim), error_lines(&direct));
    std::fs::write(&counter, text).unwrap();

    // A test that fails: `dotnet test` through the shim says which, and exits 1.
    let tests = root.join("tests/Tally.Xunit/CounterTests.fs");
    let text = std::fs::read_to_string(&tests).unwrap();
    std::fs::write(&tests, text.replace("Assert.Equal(5, tally.Count)", "Assert.Equal(6, tally.Count)")).unwrap();
    let run = run_in(&shim, &["test", "tests/Tally.Xunit/Tally.Xunit.fsproj"], root, &shim_first);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("add adds") && stdout.contains("Failed:     1, Passed:     4"), "{stdout}");
}
