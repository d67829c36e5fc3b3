//! Finding, starting and watching FSAC.
//!
//! The FSAC command line comes only from the user: the `--fsac` flag, the `FSLENS_FSAC`
//! environment variable, `fsautocomplete` on `PATH`, or `dotnet fsautocomplete` (docs/architecture.md,
//! invariant 8). It is split like a POSIX shell would split it, but no shell runs it.
//!
//! A [`BackendLauncher`] hides whether the backend is a child process or, in tests, an
//! in-memory peer: the main loop only sees byte streams, a pid and an exit code.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::oneshot;

use crate::commands::check::confirm;
use crate::commands::context::{BuildRequest, BuildRun, ProjectBuildOutput};
use crate::commands::doctor::fsac::VersionProbe;

/// Where the FSAC command line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    Flag,
    Environment,
    Path,
    DotnetTool,
}

/// A resolved FSAC command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsacCommand {
    pub program: String,
    pub args: Vec<String>,
    pub source: CommandSource,
}

impl FsacCommand {
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .map(|part| shlex::try_quote(part).map(|quoted| quoted.into_owned()).unwrap_or_else(|_| part.to_owned()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl FsacCommand {
    /// The command with its relative path words read from `start_directory`, the directory
    /// fslens was started in. FSAC runs in the workspace root (it pins its SDK from there), so
    /// a word the user wrote relative to where they typed it (`--fsac "node tools/double.mjs"`,
    /// `--fsac ./bin/fsautocomplete`) would otherwise name a file under the workspace. A word
    /// is a path when it contains a `/`, is relative and does not start with `-`; the program
    /// and its arguments alike, whether or not the file exists (so what runs does not depend
    /// on what happens to be on disk). Bare words (`node`, `fsautocomplete`) are left for
    /// `PATH`; options such as `--log-file=x/y` pass unchanged. Only the user's own command
    /// lines (`--fsac`, `FSLENS_FSAC`) are read this way; nothing from a socket, MCP or the
    /// workspace ever names a program (invariant 8).
    pub fn relative_paths_from(mut self, start_directory: &Path) -> FsacCommand {
        let resolve = |word: &mut String| {
            if word.contains('/') && !word.starts_with('-') && Path::new(word.as_str()).is_relative() {
                let joined = crate::workspace::paths::normalize_lexically(&start_directory.join(word.as_str()));
                *word = joined.to_string_lossy().into_owned();
            }
        };
        if matches!(self.source, CommandSource::Flag | CommandSource::Environment) {
            resolve(&mut self.program);
            self.args.iter_mut().for_each(resolve);
        }
        self
    }
}

/// The environment variable naming an FSAC command line.
pub const FSAC_ENVIRONMENT_VARIABLE: &str = "FSLENS_FSAC";

/// Resolves the FSAC command: `--fsac`, then `FSLENS_FSAC`, then `fsautocomplete` on `PATH`,
/// then `dotnet fsautocomplete`. `Ok(None)` means none was found; the string says what was
/// tried. An unparsable command line is an error, not a silent fallback.
pub fn resolve_fsac_command(
    flag: Option<&str>,
    environment: Option<OsString>,
    path_variable: Option<OsString>,
) -> Result<Result<FsacCommand, String>, String> {
    if let Some(flag) = flag {
        return split_command(flag, CommandSource::Flag).map(Ok).map_err(|error| format!("--fsac: {error}"));
    }
    if let Some(environment) = environment.filter(|value| !value.is_empty()) {
        let text = environment.to_string_lossy().into_owned();
        return split_command(&text, CommandSource::Environment)
            .map(Ok)
            .map_err(|error| format!("{FSAC_ENVIRONMENT_VARIABLE}: {error}"));
    }
    if let Some(found) = find_on_path("fsautocomplete", path_variable.as_deref()) {
        return Ok(Ok(FsacCommand {
            program: found.to_string_lossy().into_owned(),
            args: Vec::new(),
            source: CommandSource::Path,
        }));
    }
    if let Some(dotnet) = find_on_path("dotnet", path_variable.as_deref()) {
        return Ok(Ok(FsacCommand {
            program: dotnet.to_string_lossy().into_owned(),
            args: vec!["fsautocomplete".to_owned()],
            source: CommandSource::DotnetTool,
        }));
    }
    Ok(Err(format!(
        "no FSAC found: pass --fsac CMD, set {FSAC_ENVIRONMENT_VARIABLE}, or install it \
         (`dotnet tool install --global fsautocomplete`); neither `fsautocomplete` nor `dotnet` is on PATH"
    )))
}

fn split_command(text: &str, source: CommandSource) -> Result<FsacCommand, String> {
    let mut parts =
        shlex::split(text).ok_or_else(|| format!("cannot split {text:?} into words (unbalanced quotes?)"))?;
    if parts.is_empty() {
        return Err("the command line is empty".to_owned());
    }
    let program = parts.remove(0);
    Ok(FsacCommand { program, args: parts, source })
}

/// The first executable file named `name` in the `PATH` directories.
pub fn find_on_path(name: &str, path_variable: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let path_variable = path_variable?;
    std::env::split_paths(path_variable)
        .map(|directory| directory.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().map(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Why a program run by [`run_captured`] gave no output.
#[derive(Debug)]
enum NotRun {
    /// It could not be started (not found, not executable, no such directory).
    CannotStart(std::io::Error),
    /// The deadline passed before it ended; it was killed.
    TimedOut,
    /// Its output could not be read.
    CannotRead(std::io::Error),
}

/// Runs `command` to its end with stdin closed and stdout and stderr captured, killing it at
/// `deadline`: the one way this module runs a program to read what it prints (FSAC's
/// `--version`, `dotnet build`, `git`). The program is set by the caller, a function of this
/// module that names it itself (`dotnet`, `git`) or takes the user's own FSAC command line;
/// nothing a peer sends chooses it (invariant 8).
async fn run_captured(
    mut command: tokio::process::Command,
    deadline: tokio::time::Instant,
) -> Result<std::process::Output, NotRun> {
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let child = command.spawn().map_err(NotRun::CannotStart)?;
    // At the deadline the future, and with it the child, is dropped: `kill_on_drop` ends it.
    match tokio::time::timeout_at(deadline, child.wait_with_output()).await {
        Err(_) => Err(NotRun::TimedOut),
        Ok(Err(error)) => Err(NotRun::CannotRead(error)),
        Ok(Ok(output)) => Ok(output),
    }
}

/// What `FSAC --version` gives (`fslens doctor`): runs the user's FSAC command (never a peer's:
/// invariant 8) with `--version` added, in
/// `workspace_root` (where FSAC starts, so a `global.json` pin applies as it would), stdin closed,
/// and stops it after `timeout`.
pub async fn fsac_version(command: &FsacCommand, workspace_root: &Path, timeout: std::time::Duration) -> VersionProbe {
    let mut version = tokio::process::Command::new(&command.program);
    version.args(&command.args).arg("--version").current_dir(workspace_root);
    let output = match run_captured(version, tokio::time::Instant::now() + timeout).await {
        Ok(output) => output,
        Err(NotRun::CannotStart(error)) => {
            return VersionProbe::Failed(format!("cannot start `{}`: {error}", command.display()));
        }
        Err(NotRun::TimedOut) => return VersionProbe::TimedOut(timeout.as_millis() as u64),
        Err(NotRun::CannotRead(error)) => return VersionProbe::Failed(format!("cannot read its output: {error}")),
    };
    let first_line = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).lines().map(str::trim).find(|line| !line.is_empty()).map(str::to_owned)
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(3)..].join(" ");
        let code = output.status.code().map_or_else(|| "a signal".to_owned(), |code| format!("exit code {code}"));
        let said = if tail.is_empty() { first_line(&output.stdout).unwrap_or_default() } else { tail };
        return VersionProbe::Failed(format!("`{} --version` ended with {code}: {said}", command.display()));
    }
    match first_line(&output.stdout) {
        Some(line) => VersionProbe::Printed(line.chars().take(200).collect()),
        None => VersionProbe::Silent,
    }
}

/// Runs `dotnet build` over each of `request`'s projects in turn (`check` with `confirm:
/// "build"`), in the workspace root (so a `global.json` pin applies as for FSAC), with every
/// project's `bin/` and `obj/` redirected to a temporary folder (removed afterwards) by the
/// props file of `commands::check::confirm::redirect_props`. The program is always `dotnet`
/// (invariant 8); the projects come from the workspace model, the arguments from
/// `confirm::build_arguments`. A build still running at the deadline is killed.
pub async fn run_build(request: BuildRequest) -> BuildRun {
    let started = std::time::Instant::now();
    let folder = match TemporaryFolder::create("fslens-build") {
        Ok(folder) => folder,
        Err(error) => return BuildRun::CannotStart(format!("cannot make a temporary folder: {error}")),
    };
    let props = folder.path.join("fslens-build.props");
    if let Err(error) = std::fs::write(&props, confirm::redirect_props(&folder.path.join("out"))) {
        return BuildRun::CannotStart(format!("cannot write {}: {error}", props.display()));
    }
    let mut builds = Vec::new();
    for project in &request.projects {
        let mut build = tokio::process::Command::new("dotnet");
        build
            .args(confirm::build_arguments(project, &props))
            .current_dir(&request.workspace_root)
            .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
            .env("DOTNET_NOLOGO", "1")
            .env("MSBUILDDISABLENODEREUSE", "1");
        let output = match run_captured(build, request.deadline).await {
            Ok(output) => output,
            Err(NotRun::CannotStart(error)) => {
                return BuildRun::CannotStart(format!("cannot start `dotnet build`: {error}"));
            }
            Err(NotRun::TimedOut) => {
                return BuildRun::TimedOut { builds, elapsed_ms: started.elapsed().as_millis() as u64 };
            }
            Err(NotRun::CannotRead(error)) => {
                return BuildRun::CannotStart(format!("cannot read `dotnet build`'s output: {error}"));
            }
        };
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        builds.push(ProjectBuildOutput { project: project.clone(), exit_code: output.status.code(), output: text });
    }
    BuildRun::Finished { builds, elapsed_ms: started.elapsed().as_millis() as u64 }
}

/// A folder under the system's temporary directory, removed with everything in it when
/// dropped (also when the build is stopped halfway).
struct TemporaryFolder {
    path: PathBuf,
}

impl TemporaryFolder {
    fn create(prefix: &str) -> std::io::Result<TemporaryFolder> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let count = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.subsec_nanos())
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!("{prefix}-{}-{count}-{nanos}", std::process::id()));
        std::fs::create_dir(&path)?;
        Ok(TemporaryFolder { path })
    }
}

impl Drop for TemporaryFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// How long one git command may take.
const GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs `git` (the one on `PATH`: no peer chooses the program, invariant 8) with `arguments` in
/// `directory`, stdin closed; its stdout, or what it said when it failed.
async fn git(directory: &Path, arguments: &[&str]) -> Result<Vec<u8>, String> {
    let mut git = tokio::process::Command::new("git");
    git.args(arguments).current_dir(directory);
    let output = match run_captured(git, tokio::time::Instant::now() + GIT_TIMEOUT).await {
        Ok(output) => output,
        Err(NotRun::CannotStart(error)) => return Err(format!("cannot start git: {error}")),
        Err(NotRun::TimedOut) => {
            return Err(format!("`git {}` took longer than {} s", arguments.join(" "), GIT_TIMEOUT.as_secs()));
        }
        Err(NotRun::CannotRead(error)) => return Err(format!("cannot read git's output: {error}")),
    };
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr).trim().lines().take(3).collect::<Vec<_>>().join(" ");
        return Err(format!("`git {}` failed: {said}", arguments.join(" ")));
    }
    Ok(output.stdout)
}

/// The files of `workspace_root` changed since `revision` (a commit-ish; one starting with `-`
/// is refused): git's diff of the working tree against it (committed and uncommitted
/// changes, renames as a removal and an addition) and the untracked files (as added), with
/// each kept path's text at the revision (`wanted` chooses the paths worth reading).
pub async fn git_changes(
    workspace_root: &Path,
    revision: &str,
    wanted: fn(&Path) -> bool,
) -> Result<Vec<crate::commands::context::GitChange>, String> {
    use crate::commands::context::GitChange;
    if revision.is_empty() || revision.starts_with('-') || revision.contains(['\0', '\n']) {
        return Err(format!("{revision:?} is no git revision"));
    }
    let commit = format!("{revision}^{{commit}}");
    git(workspace_root, &["rev-parse", "--verify", "--quiet", "--end-of-options", &commit])
        .await
        .map_err(|_| format!("{revision:?} names no commit of the repository at {}", workspace_root.display()))?;
    let diff =
        git(workspace_root, &["diff", "--name-status", "--no-renames", "--relative", "-z", revision, "--"]).await?;
    let untracked = git(workspace_root, &["ls-files", "--others", "--exclude-standard", "-z"]).await?;
    let mut changes = Vec::new();
    let diff = String::from_utf8_lossy(&diff).into_owned();
    let mut fields = diff.split('\0').filter(|field| !field.is_empty());
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let absolute = workspace_root.join(path);
        if !wanted(&absolute) {
            continue;
        }
        let before = if status.starts_with('A') {
            None
        } else {
            let at = format!("{revision}:./{path}");
            git(workspace_root, &["show", &at]).await.ok().map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        };
        changes.push(GitChange { path: absolute, before });
    }
    for path in String::from_utf8_lossy(&untracked).split('\0').filter(|path| !path.is_empty()) {
        let absolute = workspace_root.join(path);
        if wanted(&absolute) && !changes.iter().any(|change| change.path == absolute) {
            changes.push(GitChange { path: absolute, before: None });
        }
    }
    Ok(changes)
}

/// The last lines a backend wrote to stderr, for error messages and status.
#[derive(Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrTail {
    const MAX_LINES: usize = 40;

    pub fn push(&self, line: String) {
        if let Ok(mut lines) = self.lines.lock() {
            if lines.len() == Self::MAX_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }

    pub fn text(&self) -> String {
        self.lines.lock().map(|lines| lines.iter().cloned().collect::<Vec<_>>().join("\n")).unwrap_or_default()
    }
}

/// A started backend: its byte streams and how to stop it.
pub struct BackendConnection {
    pub stdout: Box<dyn AsyncRead + Send + Unpin>,
    pub stdin: Box<dyn AsyncWrite + Send + Unpin>,
    pub stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
    pub pid: Option<u32>,
    /// Resolves with the exit code once the backend has ended (`None`: killed by a signal or
    /// unknown).
    pub exit: oneshot::Receiver<Option<i32>>,
    /// Dropping or sending on this kills the backend.
    pub kill: Option<oneshot::Sender<()>>,
}

/// Starts backends; one launch per FSAC generation.
pub trait BackendLauncher: Send {
    /// The command line (or a test description), for status and logs.
    fn describe(&self) -> String;
    /// Where the command came from, for status.
    fn source(&self) -> Option<CommandSource>;
    /// Starts a backend whose working directory is `workspace_root`.
    fn launch(&mut self, workspace_root: &Path) -> anyhow::Result<BackendConnection>;
    /// Whether a launched backend's pid is a real process whose memory can be read (the
    /// memory guard samples only those; in-memory test backends report a made-up pid).
    fn measures_memory(&self) -> bool {
        false
    }
}

/// Launches FSAC as a child process.
pub struct ProcessLauncher {
    pub command: FsacCommand,
}

impl BackendLauncher for ProcessLauncher {
    fn describe(&self) -> String {
        self.command.display()
    }

    fn source(&self) -> Option<CommandSource> {
        Some(self.command.source)
    }

    fn measures_memory(&self) -> bool {
        true
    }

    fn launch(&mut self, workspace_root: &Path) -> anyhow::Result<BackendConnection> {
        // FSAC pins its .NET SDK from its working directory at start-up (global.json), so it
        // must start in the workspace root (docs/fsac-protocol.md §1).
        let mut child = tokio::process::Command::new(&self.command.program)
            .args(&self.command.args)
            .current_dir(workspace_root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start FSAC `{}` in {}", self.describe(), workspace_root.display()))?;
        let pid = child.id();
        let stdin = child.stdin.take().context("FSAC has no stdin pipe")?;
        let stdout = child.stdout.take().context("FSAC has no stdout pipe")?;
        let stderr = child.stderr.take();
        let (exit_sender, exit) = oneshot::channel();
        let (kill, kill_requested) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let status = tokio::select! {
                status = child.wait() => status,
                _ = kill_requested => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            };
            let _ = exit_sender.send(status.ok().and_then(|status| status.code()));
        });
        Ok(BackendConnection {
            stdout: Box::new(stdout),
            stdin: Box::new(stdin),
            stderr: stderr.map(|stderr| Box::new(stderr) as Box<dyn AsyncRead + Send + Unpin>),
            pid,
            exit,
            kill: Some(kill),
        })
    }
}

/// Copies a backend's stderr into the log and the tail, line by line.
pub async fn stderr_task(stderr: Box<dyn AsyncRead + Send + Unpin>, tail: StderrTail) {
    let mut lines = BufReader::new(stderr).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) => {
                tracing::info!(target: "fsac", "{line}");
                tail.push(line);
            }
            Ok(None) => break,
            Err(error) => {
                // Non-UTF-8 output: keep going with what can be read.
                tracing::debug!(target: "fsac", "unreadable stderr line: {error}");
                tail.push("<unreadable stderr line>".to_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_wins_and_is_split_like_a_shell() {
        let resolved =
            resolve_fsac_command(Some("'/opt/my fsac/fsautocomplete' --verbose \"a b\""), Some("x".into()), None);
        let command = resolved.unwrap().unwrap();
        assert_eq!(command.program, "/opt/my fsac/fsautocomplete");
        assert_eq!(command.args, vec!["--verbose", "a b"]);
        assert_eq!(command.source, CommandSource::Flag);
        assert_eq!(command.display(), "'/opt/my fsac/fsautocomplete' --verbose 'a b'");
    }

    #[test]
    fn environment_then_path_then_dotnet() {
        let command = resolve_fsac_command(None, Some("node double.mjs".into()), None).unwrap().unwrap();
        assert_eq!((command.program.as_str(), command.source), ("node", CommandSource::Environment));

        let directory = tempfile::tempdir().unwrap();
        let write_executable = |name: &str| {
            let path = directory.path().join(name);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        };
        let path_variable = Some(directory.path().as_os_str().to_owned());
        assert!(resolve_fsac_command(None, None, path_variable.clone()).unwrap().is_err());
        write_executable("dotnet");
        let command = resolve_fsac_command(None, Some("".into()), path_variable.clone()).unwrap().unwrap();
        assert_eq!(
            (command.args.clone(), command.source),
            (vec!["fsautocomplete".to_owned()], CommandSource::DotnetTool)
        );
        write_executable("fsautocomplete");
        let command = resolve_fsac_command(None, None, path_variable).unwrap().unwrap();
        assert_eq!(command.source, CommandSource::Path);
    }

    #[test]
    fn relative_path_words_of_the_users_command_are_read_from_the_start_directory() {
        let start = Path::new("/home/me/project");
        let flag = resolve_fsac_command(
            Some("node tests/double.mjs --log-file=a/b -x ./here ../up/fsac bare /abs/f"),
            None,
            None,
        );
        let command = flag.unwrap().unwrap().relative_paths_from(start);
        assert_eq!(command.program, "node");
        assert_eq!(
            command.args,
            vec![
                "/home/me/project/tests/double.mjs",
                "--log-file=a/b",
                "-x",
                "/home/me/project/here",
                "/home/me/up/fsac",
                "bare",
                "/abs/f"
            ]
        );
        let program = resolve_fsac_command(None, Some("./bin/fsautocomplete --verbose".into()), None).unwrap().unwrap();
        assert_eq!(program.relative_paths_from(start).program, "/home/me/project/bin/fsautocomplete");
        let dotnet =
            FsacCommand { program: "dotnet".into(), args: vec!["a/b".into()], source: CommandSource::DotnetTool };
        assert_eq!(dotnet.clone().relative_paths_from(start), dotnet, "only the user's command lines");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_captured_run_gives_both_streams_the_exit_code_or_why_it_did_not_run() {
        let mut both = tokio::process::Command::new("sh");
        both.args(["-c", "echo out; echo err >&2; exit 3"]);
        let soon = || tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        let output = run_captured(both, soon()).await.unwrap();
        assert_eq!(
            (output.stdout.as_slice(), output.stderr.as_slice(), output.status.code()),
            (&b"out\n"[..], &b"err\n"[..], Some(3))
        );
        let missing = tokio::process::Command::new("/nonexistent/fslens-no-such-program");
        assert!(matches!(run_captured(missing, soon()).await, Err(NotRun::CannotStart(_))));
        let mut slow = tokio::process::Command::new("sleep");
        slow.arg("30");
        let started = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(200);
        assert!(matches!(run_captured(slow, deadline).await, Err(NotRun::TimedOut)));
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "stopped at the deadline");
    }

    #[test]
    fn unbalanced_quotes_are_an_error() {
        assert!(resolve_fsac_command(Some("fsac 'oops"), None, None).unwrap_err().contains("--fsac"));
        assert!(resolve_fsac_command(Some("   "), None, None).is_err());
    }
}
