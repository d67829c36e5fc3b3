//! The checks on this machine: the session socket (its directory as `session/` requires it, what
//! is at its path) and a second FSAC serving the same files (Linux: read from `/proc`).

use std::path::Path;

use super::{CheckId, CheckStatus, DoctorCheck, DoctorEnvironment};

/// The session socket's directory must be a private directory of this user (or not exist yet:
/// it is created 0700); at the socket's path a live socket is a running session, a stale one is
/// replaced by the next session, a directory stops every session from serving.
#[cfg(unix)]
pub fn session_socket_check(root: &Path, environment: &DoctorEnvironment) -> DoctorCheck {
    use crate::session::{SessionPathError, check_private_directory, runtime_directory, socket_path};
    use std::os::unix::fs::FileTypeExt;
    let directory = runtime_directory(environment.xdg_runtime_dir.as_deref());
    let socket = socket_path(&directory, root);
    let shown_directory = directory.display().to_string();
    let shown_socket = socket.display().to_string();
    match check_private_directory(&directory) {
        Err(SessionPathError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return DoctorCheck::new(
                CheckId::SessionSocket,
                CheckStatus::Ok,
                format!("{shown_directory} does not exist yet; the first session creates it (0700)"),
            )
            .path(shown_socket);
        }
        Err(error) => {
            let fix = match &error {
                SessionPathError::TooOpen { .. } => format!("chmod 700 {shown_directory}"),
                SessionPathError::Symlink { .. } | SessionPathError::NotADirectory { .. } => {
                    format!("rm {shown_directory}")
                }
                _ => "set XDG_RUNTIME_DIR to a directory of your own (or remove the one named)".to_owned(),
            };
            return DoctorCheck::new(
                CheckId::SessionSocket,
                CheckStatus::Problem,
                format!("{error}: no session can share FSAC with the MCP bridge or the command line"),
            )
            .fix(fix)
            .path(shown_directory);
        }
        Ok(()) => {}
    }
    let check = match std::fs::symlink_metadata(&socket) {
        Err(_) => DoctorCheck::new(
            CheckId::SessionSocket,
            CheckStatus::Ok,
            "no session serves this workspace now; one started here serves it",
        ),
        Ok(metadata) if metadata.file_type().is_socket() => match std::os::unix::net::UnixStream::connect(&socket) {
            Ok(_) => DoctorCheck::new(
                CheckId::SessionSocket,
                CheckStatus::Info,
                "a session serves this workspace: the MCP bridge and the command line join it",
            ),
            Err(error) => DoctorCheck::new(
                CheckId::SessionSocket,
                CheckStatus::Info,
                format!("a stale socket is there ({error}); the next session replaces it"),
            ),
        },
        Ok(metadata) if metadata.is_dir() => DoctorCheck::new(
            CheckId::SessionSocket,
            CheckStatus::Problem,
            "a directory is at the socket's path: no session can serve this workspace",
        )
        .fix(format!("rm -r {shown_socket}")),
        Ok(_) => DoctorCheck::new(
            CheckId::SessionSocket,
            CheckStatus::Info,
            "something other than a socket is at the socket's path; the next session removes it",
        ),
    };
    check.path(shown_socket)
}

#[cfg(not(unix))]
pub fn session_socket_check(_root: &Path, _environment: &DoctorEnvironment) -> DoctorCheck {
    DoctorCheck::new(CheckId::SessionSocket, CheckStatus::Info, "session sharing is not available on this platform")
}

/// A second language server for the same files: an FSAC process (its command line names
/// `fsautocomplete`) whose working directory is the workspace root and whose parent is not an
/// fslens (an FSAC behind fslens is the shared one; Ionide's own runs beside it).
#[cfg(target_os = "linux")]
pub fn second_server_check(root: &Path) -> DoctorCheck {
    let mut behind_fslens = 0;
    let mut others = Vec::new();
    for process in fsac_processes_in(root) {
        if process.parent_is_fslens {
            behind_fslens += 1;
        } else {
            others.push(process);
        }
    }
    if others.is_empty() {
        return DoctorCheck::new(
            CheckId::SecondServer,
            CheckStatus::Ok,
            format!("no FSAC but fslens's serves this workspace ({behind_fslens} behind fslens)"),
        );
    }
    let listed = others
        .iter()
        .map(|process| format!("pid {} `{}`", process.pid, process.command_line))
        .collect::<Vec<_>>()
        .join(", ");
    DoctorCheck::new(
        CheckId::SecondServer,
        CheckStatus::Warning,
        format!(
            "another FSAC serves this workspace beside fslens ({listed}): two FSACs load the same projects, and an \
             editor talking to both gets two answers"
        ),
    )
    .fix(
        "in VS Code accept fslens's \"Ionide mode\" prompt (Ionide's FSAC then runs behind fslens), or disable \
         Ionide for this workspace",
    )
}

#[cfg(not(target_os = "linux"))]
pub fn second_server_check(_root: &Path) -> DoctorCheck {
    DoctorCheck::new(
        CheckId::SecondServer,
        CheckStatus::Info,
        "unknown: looking for a second FSAC is implemented on Linux only",
    )
}

/// One FSAC process.
#[cfg(target_os = "linux")]
struct FsacProcess {
    pid: u32,
    command_line: String,
    parent_is_fslens: bool,
}

/// The FSAC processes whose working directory is `root` (those this user may read).
#[cfg(target_os = "linux")]
fn fsac_processes_in(root: &Path) -> Vec<FsacProcess> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let arguments = command_line(pid);
        if !is_fsac(&arguments) {
            continue;
        }
        let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) else {
            continue;
        };
        if cwd != root {
            continue;
        }
        found.push(FsacProcess {
            pid,
            command_line: arguments.join(" "),
            parent_is_fslens: parent(pid).is_some_and(is_fslens),
        });
    }
    found.sort_by_key(|process| process.pid);
    found
}

#[cfg(target_os = "linux")]
fn command_line(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|byte| *byte == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// FSAC as an executable (`fsautocomplete`), an assembly (`dotnet …/fsautocomplete.dll`) or a
/// tool (`dotnet fsautocomplete`).
#[cfg(target_os = "linux")]
fn is_fsac(arguments: &[String]) -> bool {
    let file_name = |argument: &String| {
        Path::new(argument).file_name().map(|name| name.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
    };
    arguments.iter().take(3).any(|argument| {
        let name = file_name(argument);
        name == "fsautocomplete" || name == "fsautocomplete.dll" || name == "fsautocomplete.exe"
    })
}

#[cfg(target_os = "linux")]
fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: the command may hold spaces and parentheses, so read after the last `)`.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` runs the fslens binary (also when started as `dotnet`, Ionide mode).
#[cfg(target_os = "linux")]
fn is_fslens(pid: u32) -> bool {
    let executable = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let named = |path: &Path| path.file_name().is_some_and(|name| name == "fslens");
    executable.as_deref().is_some_and(named)
        || command_line(pid).first().is_some_and(|argument0| named(Path::new(argument0)))
}
