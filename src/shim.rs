//! fslens in a shim role: started under the name `dotnet` (a link or copy of the binary in a
//! directory an editor extension owns, named by Ionide's `FSharp.dotnetRoot`), fslens stands in
//! for the `dotnet` program so that Ionide's FsAutoComplete runs behind fslens, and Ionide,
//! fslens's commands and agents share that one FSAC.
//!
//! Ionide starts FSAC as `<dotnet> [host options] <path>/fsautocomplete.dll [FSAC arguments]`.
//! When the arguments run a file named `fsautocomplete.dll` (after any `dotnet` host options
//! such as `--roll-forward`), the shim becomes the ordinary fslens proxy with
//! `--fsac "<real dotnet> <the same arguments>"`: the caller talks LSP to fslens on its standard
//! streams and fslens starts the real FSAC. Any other invocation (`build`, `msbuild`, `run`,
//! `test`, `fsi`, `--version`) replaces this process with the real `dotnet` (`exec`): the same
//! arguments, environment, standard streams and working directory, and the caller sees the real
//! program's own exit status, a signal included (where a shell would report 128+N, the caller's
//! wait sees the signal itself).
//!
//! The real `dotnet` is the one named by the file [`REAL_DOTNET_FILE`] next to the shim (the
//! extension writes it from the user's own previous `FSharp.dotnetRoot`, with their consent),
//! else the first `dotnet` on `PATH` that is not this program. Nothing else chooses it: no
//! socket, MCP client or workspace file is read here (docs/architecture.md, invariant 8), and a candidate
//! that is this very program (same canonical path, or the same file through a hard link) is
//! never run, so the shim cannot recurse into itself.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The file in the shim's directory that names the real `dotnet` program: one absolute path,
/// on one line. Absent, the real `dotnet` is looked up on `PATH`.
pub const REAL_DOTNET_FILE: &str = "fslens-real-dotnet";

/// The file name fslens answers to as a shim.
pub const DOTNET_FILE_NAME: &str = "dotnet";

/// The file name of FsAutoComplete's entry assembly (compared without regard to ASCII case).
pub const FSAC_ASSEMBLY_NAME: &str = "fsautocomplete.dll";

/// `dotnet` host options that take a value (`dotnet [host-options] <app.dll>` and
/// `dotnet exec [options] <app.dll>`).
const HOST_OPTIONS_WITH_VALUE: &[&str] = &[
    "--additionalprobingpath",
    "--additional-deps",
    "--depsfile",
    "--fx-version",
    "--roll-forward",
    "--roll-forward-on-no-candidate-fx",
    "--runtimeconfig",
];

/// `dotnet` host options without a value.
const HOST_FLAGS: &[&str] = &["-d", "--diagnostics"];

/// What fslens does when it starts.
#[derive(Debug, PartialEq, Eq)]
pub enum ShimRole {
    /// Not started as `dotnet`: the ordinary command line.
    NotAShim,
    /// Started as `dotnet` to run FSAC: be the proxy in front of this FSAC command line
    /// (already quoted for `--fsac`).
    Proxy { fsac_command: String },
    /// Started as `dotnet` for anything else: run the real `dotnet` with these arguments.
    RealDotnet { program: PathBuf, arguments: Vec<OsString> },
}

/// What a `dotnet` command line does, as far as the shim cares.
#[derive(Debug, PartialEq, Eq)]
pub enum DotnetInvocation {
    /// It runs FsAutoComplete: the argument at this index is `…/fsautocomplete.dll`.
    Fsac { assembly_index: usize },
    /// Anything else (an SDK command, another application, `--version`, nothing at all).
    Other,
}

/// Where the real `dotnet` came from.
#[derive(Debug, PartialEq, Eq)]
pub enum RealDotnetSource {
    /// The [`REAL_DOTNET_FILE`] at this path.
    SettingFile(PathBuf),
    /// The `PATH` environment variable.
    Path,
}

/// The real `dotnet` program and where it was found.
#[derive(Debug, PartialEq, Eq)]
pub struct RealDotnet {
    pub program: PathBuf,
    pub source: RealDotnetSource,
}

/// Why the shim cannot do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum ShimError {
    #[error("cannot read {file}: {source}")]
    UnreadableSettingFile { file: PathBuf, source: std::io::Error },
    #[error("{file} names no program (it should hold the absolute path of the real dotnet)")]
    EmptySettingFile { file: PathBuf },
    #[error("{file} names {program}, which is not an absolute path")]
    RelativeSettingPath { file: PathBuf, program: PathBuf },
    #[error("{file} names {program}, which is not an executable file")]
    NotExecutable { file: PathBuf, program: PathBuf },
    #[error("{file} names {program}, which is this fslens shim itself; it must name the real dotnet")]
    SettingNamesTheShim { file: PathBuf, program: PathBuf },
    #[error(
        "no real dotnet found: {file} does not exist and no `dotnet` on PATH other than this shim ({shim}) is an \
         executable file; install .NET or write the real dotnet's path into {file}"
    )]
    NoRealDotnet { file: String, shim: PathBuf },
    #[error("cannot find this program's own file (to never run it as the real dotnet): {0}")]
    NoCurrentExecutable(std::io::Error),
    #[error("argument {index} ({argument:?}) is not UTF-8, so it cannot be passed to FSAC through --fsac")]
    NotUtf8 { index: usize, argument: OsString },
    #[error("argument {index} cannot be quoted for --fsac: {reason}")]
    Unquotable { index: usize, reason: String },
    #[error("the quoted FSAC command line {quoted:?} does not split back into the same words")]
    RoundTrip { quoted: String },
}

impl ShimError {
    /// The exit code a shell uses for the same failure: 127 when no program could be found,
    /// 126 when one was found but cannot be run, 2 for arguments that cannot be passed on.
    pub fn exit_code(&self) -> u8 {
        match self {
            ShimError::NoRealDotnet { .. } => 127,
            ShimError::NotUtf8 { .. } | ShimError::Unquotable { .. } | ShimError::RoundTrip { .. } => 2,
            _ => 126,
        }
    }
}

/// Whether a program started as `argv0` was started as `dotnet` (its file name).
pub fn invoked_as_dotnet(argv0: &OsStr) -> bool {
    Path::new(argv0).file_name().is_some_and(|name| name == DOTNET_FILE_NAME)
}

/// Classifies a `dotnet` command line (the arguments after the program name): FSAC when the
/// application it runs, after any host options and an optional `exec`, is a file named
/// `fsautocomplete.dll` (any ASCII case). An option the shim does not know ends the host
/// options and is taken as the SDK command (`--version`, `--info`), so such a line is
/// never FSAC: the real `dotnet` runs it unchanged.
pub fn classify_arguments(arguments: &[OsString]) -> DotnetInvocation {
    let mut index = 0;
    let mut seen_exec = false;
    while let Some(argument) = arguments.get(index) {
        let text = argument.to_str().unwrap_or_default();
        if HOST_OPTIONS_WITH_VALUE.contains(&text) {
            if index + 1 >= arguments.len() {
                return DotnetInvocation::Other;
            }
            index += 2;
        } else if HOST_FLAGS.contains(&text)
            || text.split_once('=').is_some_and(|(name, _)| HOST_OPTIONS_WITH_VALUE.contains(&name))
        {
            index += 1;
        } else if text == "exec" && !seen_exec {
            seen_exec = true;
            index += 1;
        } else {
            let is_fsac = Path::new(argument)
                .file_name()
                .and_then(OsStr::to_str)
                .is_some_and(|name| name.eq_ignore_ascii_case(FSAC_ASSEMBLY_NAME));
            return if is_fsac { DotnetInvocation::Fsac { assembly_index: index } } else { DotnetInvocation::Other };
        }
    }
    DotnetInvocation::Other
}

/// The directory the shim was started from: `argv0`'s directory when it names one (made
/// absolute against `current_directory`), else the first `PATH` directory whose `dotnet` is
/// this program.
pub fn shim_directory(
    argv0: &OsStr,
    current_directory: &Path,
    path_variable: Option<&OsStr>,
    this_executable: &Path,
) -> Option<PathBuf> {
    let invoked = Path::new(argv0);
    match invoked.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        Some(parent) => Some(current_directory.join(parent)),
        None => std::env::split_paths(path_variable?)
            .map(|directory| current_directory.join(directory))
            .find(|directory| is_same_file(&directory.join(DOTNET_FILE_NAME), this_executable)),
    }
}

/// Chooses the real `dotnet`: the program named in `shim_directory`'s [`REAL_DOTNET_FILE`]
/// when that file exists (an error when it names nothing usable, never a silent fallback to a
/// different SDK), else the first executable `dotnet` on `PATH` that is not this program.
pub fn choose_real_dotnet(
    shim_directory: Option<&Path>,
    current_directory: &Path,
    path_variable: Option<&OsStr>,
    this_executable: &Path,
) -> Result<RealDotnet, ShimError> {
    if let Some(file) = shim_directory.map(|directory| directory.join(REAL_DOTNET_FILE)) {
        match std::fs::read_to_string(&file) {
            Ok(text) => return real_dotnet_from_setting(file, &text, this_executable),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(ShimError::UnreadableSettingFile { file, source }),
        }
    }
    let on_path = path_variable.into_iter().flat_map(std::env::split_paths).map(|directory| {
        // A relative PATH entry is read from the current directory, as the shell would.
        current_directory.join(directory).join(DOTNET_FILE_NAME)
    });
    for candidate in on_path {
        if is_executable_file(&candidate) && !is_same_file(&candidate, this_executable) {
            return Ok(RealDotnet { program: candidate, source: RealDotnetSource::Path });
        }
    }
    let file = shim_directory.map_or_else(
        || format!("{REAL_DOTNET_FILE} (no shim directory)"),
        |directory| directory.join(REAL_DOTNET_FILE).display().to_string(),
    );
    Err(ShimError::NoRealDotnet { file, shim: this_executable.to_owned() })
}

fn real_dotnet_from_setting(file: PathBuf, text: &str, this_executable: &Path) -> Result<RealDotnet, ShimError> {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.is_empty() {
        return Err(ShimError::EmptySettingFile { file });
    }
    let program = PathBuf::from(line);
    if !program.is_absolute() {
        return Err(ShimError::RelativeSettingPath { file, program });
    }
    if !is_executable_file(&program) {
        return Err(ShimError::NotExecutable { file, program });
    }
    if is_same_file(&program, this_executable) {
        return Err(ShimError::SettingNamesTheShim { file, program });
    }
    Ok(RealDotnet { program, source: RealDotnetSource::SettingFile(file) })
}

/// The `--fsac` value that runs `real_dotnet` with `arguments`: every word quoted the way
/// `--fsac` splits them (POSIX shell words), checked by splitting it back.
pub fn fsac_command_line(real_dotnet: &Path, arguments: &[OsString]) -> Result<String, ShimError> {
    let mut words = Vec::with_capacity(arguments.len() + 1);
    let program = real_dotnet.as_os_str();
    for (index, word) in std::iter::once(program).chain(arguments.iter().map(OsString::as_os_str)).enumerate() {
        let text = word.to_str().ok_or_else(|| ShimError::NotUtf8 { index, argument: word.to_owned() })?;
        words.push(text);
    }
    let quoted = shlex::try_join(words.iter().copied()).map_err(|error| {
        // Only a word with a NUL byte is unquotable; find it to name it.
        let index = words.iter().position(|word| word.contains('\0')).unwrap_or(0);
        ShimError::Unquotable { index, reason: error.to_string() }
    })?;
    match shlex::split(&quoted) {
        Some(split) if split == words => Ok(quoted),
        _ => Err(ShimError::RoundTrip { quoted }),
    }
}

/// Decides the role from this process's command line (`argv0` and the arguments after it).
pub fn role(argv0: &OsStr, arguments: Vec<OsString>) -> Result<ShimRole, ShimError> {
    if !invoked_as_dotnet(argv0) {
        return Ok(ShimRole::NotAShim);
    }
    let this_executable = std::env::current_exe().map_err(ShimError::NoCurrentExecutable)?;
    let current_directory = std::env::current_dir().unwrap_or_default();
    let path_variable = std::env::var_os("PATH");
    let directory = shim_directory(argv0, &current_directory, path_variable.as_deref(), &this_executable);
    let real =
        choose_real_dotnet(directory.as_deref(), &current_directory, path_variable.as_deref(), &this_executable)?;
    Ok(match classify_arguments(&arguments) {
        DotnetInvocation::Fsac { .. } => {
            ShimRole::Proxy { fsac_command: fsac_command_line(&real.program, &arguments)? }
        }
        DotnetInvocation::Other => ShimRole::RealDotnet { program: real.program, arguments },
    })
}

/// Replaces this process with the real `dotnet` (same arguments, environment, standard
/// streams and working directory). Returns only when that fails, with the error.
#[cfg(unix)]
pub fn exec_real_dotnet(program: &Path, arguments: &[OsString]) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    std::process::Command::new(program).args(arguments).exec()
}

/// Elsewhere a process cannot be replaced: the shim says so (docs/platforms.md).
#[cfg(not(unix))]
pub fn exec_real_dotnet(program: &Path, _arguments: &[OsString]) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!("the dotnet shim cannot hand over to {} on this platform (Unix only)", program.display()),
    )
}

#[cfg(unix)]
fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// Whether two paths name the same file: the same canonical path (symbolic links resolved),
/// or the same device and inode (a hard link).
fn is_same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(a), Ok(b)) = (a.canonicalize(), b.canonicalize())
        && a == b
    {
        return true;
    }
    is_same_inode(a, b)
}

#[cfg(unix)]
fn is_same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Elsewhere only the canonical paths are compared.
#[cfg(not(unix))]
fn is_same_inode(_: &Path, _: &Path) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn words(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    fn executable(path: &Path) {
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn only_the_file_name_dotnet_is_a_shim() {
        assert!(invoked_as_dotnet("/home/u/.vscode/globalStorage/fslens/ionide-shim/0a1b/dotnet".as_ref()));
        assert!(invoked_as_dotnet("dotnet".as_ref()));
        assert!(!invoked_as_dotnet("/usr/bin/fslens".as_ref()));
        assert!(!invoked_as_dotnet("fslens".as_ref()));
        assert!(!invoked_as_dotnet("/opt/dotnet/dotnet-fslens".as_ref()));
        assert!(!invoked_as_dotnet("/opt/dotnet/Dotnet.exe".as_ref()));
    }

    #[test]
    fn fsautocomplete_after_host_options_is_fsac() {
        let ionide = words(&[
            "--roll-forward",
            "LatestMajor",
            "/ext/ionide/bin/net8.0/fsautocomplete.dll",
            "--state-directory",
            "/ws/state",
        ]);
        assert_eq!(classify_arguments(&ionide), DotnetInvocation::Fsac { assembly_index: 2 });
        assert_eq!(
            classify_arguments(&words(&["/x/FsAutoComplete.DLL"])),
            DotnetInvocation::Fsac { assembly_index: 0 }
        );
        assert_eq!(classify_arguments(&words(&["fsautocomplete.dll"])), DotnetInvocation::Fsac { assembly_index: 0 });
        assert_eq!(
            classify_arguments(&words(&[
                "exec",
                "--fx-version",
                "8.0.1",
                "--depsfile",
                "d.json",
                "/f/fsautocomplete.dll"
            ])),
            DotnetInvocation::Fsac { assembly_index: 5 }
        );
        assert_eq!(
            classify_arguments(&words(&["--roll-forward=Major", "-d", "/f/fsautocomplete.dll", "--verbose"])),
            DotnetInvocation::Fsac { assembly_index: 2 }
        );
    }

    #[test]
    fn sdk_commands_and_other_applications_are_not_fsac() {
        for line in [
            &["build", "/w/fsautocomplete.dll"][..],
            &["msbuild", "/w/App.fsproj", "/t:Build"],
            &["fsi", "--readline-"],
            &["--version"],
            &["--info"],
            &["test", "--no-build"],
            &["/w/bin/App.dll", "fsautocomplete.dll"],
            &["/w/fsautocomplete.dll.config"],
            &["/w/fsautocomplete.dll/other.dll"],
            &["--unknown-host-option", "/w/fsautocomplete.dll"],
            &["--roll-forward"],
            &["exec", "exec", "/w/fsautocomplete.dll"],
            &[],
        ] {
            assert_eq!(classify_arguments(&words(line)), DotnetInvocation::Other, "{line:?}");
        }
    }

    #[test]
    fn the_shim_directory_is_where_it_was_started_from() {
        let temporary = tempfile::tempdir().unwrap();
        let this = temporary.path().join("fslens");
        executable(&this);
        let shim = temporary.path().join("shim");
        std::fs::create_dir(&shim).unwrap();
        std::os::unix::fs::symlink(&this, shim.join("dotnet")).unwrap();
        let cwd = temporary.path();
        assert_eq!(shim_directory(shim.join("dotnet").as_os_str(), cwd, None, &this), Some(shim.clone()));
        assert_eq!(shim_directory("shim/dotnet".as_ref(), cwd, None, &this), Some(cwd.join("shim")));
        let path_variable = std::env::join_paths(["/nonexistent", shim.to_str().unwrap()]).unwrap();
        assert_eq!(shim_directory("dotnet".as_ref(), cwd, Some(&path_variable), &this), Some(shim.clone()));
        assert_eq!(shim_directory("dotnet".as_ref(), cwd, Some("/nonexistent".as_ref()), &this), None);
    }

    #[test]
    fn the_real_dotnet_is_the_setting_file_else_the_first_other_dotnet_on_path() {
        let temporary = tempfile::tempdir().unwrap();
        let root = temporary.path();
        let this = root.join("fslens");
        executable(&this);
        let shim = root.join("shim");
        let real = root.join("real");
        let other = root.join("other");
        for directory in [&shim, &real, &other] {
            std::fs::create_dir(directory).unwrap();
        }
        std::os::unix::fs::symlink(&this, shim.join("dotnet")).unwrap();
        executable(&real.join("dotnet"));
        executable(&other.join("dotnet"));
        std::fs::write(root.join("not-executable"), "").unwrap();
        let path_of = |directories: &[&Path]| std::env::join_paths(directories).unwrap();

        // PATH: the shim itself is skipped, as is a directory without dotnet.
        let path_variable = path_of(&[&shim, root, &real, &other]);
        let chosen = choose_real_dotnet(Some(&shim), root, Some(&path_variable), &this).unwrap();
        assert_eq!(chosen, RealDotnet { program: real.join("dotnet"), source: RealDotnetSource::Path });
        // A hard link to fslens is fslens too.
        let hard = root.join("hard");
        std::fs::create_dir(&hard).unwrap();
        std::fs::hard_link(&this, hard.join("dotnet")).unwrap();
        let chosen = choose_real_dotnet(Some(&shim), root, Some(&path_of(&[&hard, &other])), &this).unwrap();
        assert_eq!(chosen.program, other.join("dotnet"));
        // A relative PATH entry is read from the current directory.
        let chosen = choose_real_dotnet(None, root, Some("other".as_ref()), &this).unwrap();
        assert_eq!(chosen.program, root.join("other/dotnet"));
        // Only the shim on PATH: nothing to run, never the shim.
        let error = choose_real_dotnet(Some(&shim), root, Some(&path_of(&[&shim])), &this).unwrap_err();
        assert!(matches!(error, ShimError::NoRealDotnet { .. }), "{error}");
        assert_eq!(error.exit_code(), 127);
        assert!(error.to_string().contains(&shim.join(REAL_DOTNET_FILE).display().to_string()), "{error}");

        // The setting file wins over PATH.
        let setting = shim.join(REAL_DOTNET_FILE);
        std::fs::write(&setting, format!("{}\n", other.join("dotnet").display())).unwrap();
        let chosen = choose_real_dotnet(Some(&shim), root, Some(&path_variable), &this).unwrap();
        assert_eq!(
            chosen,
            RealDotnet { program: other.join("dotnet"), source: RealDotnetSource::SettingFile(setting.clone()) }
        );

        // A setting that names nothing usable is an error naming the file, not a fallback.
        let refused = |content: String| {
            std::fs::write(&setting, content).unwrap();
            let error = choose_real_dotnet(Some(&shim), root, Some(&path_variable), &this).unwrap_err();
            assert!(error.to_string().contains(&setting.display().to_string()), "{error}");
            error
        };
        assert!(matches!(refused("\n".into()), ShimError::EmptySettingFile { .. }));
        assert!(matches!(refused("other/dotnet".into()), ShimError::RelativeSettingPath { .. }));
        assert!(matches!(refused(root.join("missing").display().to_string()), ShimError::NotExecutable { .. }));
        assert!(matches!(refused(root.join("not-executable").display().to_string()), ShimError::NotExecutable { .. }));
        assert!(matches!(refused(shim.join("dotnet").display().to_string()), ShimError::SettingNamesTheShim { .. }));
        assert!(matches!(refused(this.display().to_string()), ShimError::SettingNamesTheShim { .. }));
        assert!(matches!(refused(hard.join("dotnet").display().to_string()), ShimError::SettingNamesTheShim { .. }));
    }

    #[test]
    fn the_fsac_command_line_splits_back_into_the_same_words() {
        let arguments = words(&[
            "--roll-forward",
            "LatestMajor",
            "/home/a b/.vscode/extensions/ionide.ionide-fsharp-7.0.0/bin/net8.0/fsautocomplete.dll",
            "--state-directory",
            "/home/a b/state 'quoted' \"double\" $HOME `x` \\ ; & | * ?",
            "",
            "é",
        ]);
        let line = fsac_command_line(Path::new("/opt/dot net/dotnet"), &arguments).unwrap();
        let split = shlex::split(&line).unwrap();
        assert_eq!(split[0], "/opt/dot net/dotnet");
        assert_eq!(split[1..].iter().map(OsString::from).collect::<Vec<_>>(), arguments);
        // The proxy's own reading of --fsac gives the same program and arguments.
        let command = crate::proxy::backend::resolve_fsac_command(Some(&line), None, None).unwrap().unwrap();
        assert_eq!(command.program, "/opt/dot net/dotnet");
        assert_eq!(command.args, split[1..]);
    }

    #[test]
    fn arguments_that_cannot_be_passed_on_are_named() {
        use std::os::unix::ffi::OsStringExt;
        let not_utf8 = vec![OsString::from("/f/fsautocomplete.dll"), OsString::from_vec(vec![0x66, 0xff])];
        let error = fsac_command_line(Path::new("/d/dotnet"), &not_utf8).unwrap_err();
        assert!(matches!(error, ShimError::NotUtf8 { index: 2, .. }), "{error}");
        assert_eq!(error.exit_code(), 2);
        let with_nul = words(&["/f/fsautocomplete.dll", "a\0b"]);
        let error = fsac_command_line(Path::new("/d/dotnet"), &with_nul).unwrap_err();
        assert!(matches!(error, ShimError::Unquotable { index: 2, .. }), "{error}");
    }

    #[test]
    fn started_under_another_name_fslens_is_no_shim() {
        assert_eq!(role("/usr/bin/fslens".as_ref(), words(&["status"])).unwrap(), ShimRole::NotAShim);
    }
}
