//! `fslens.doctor`: for a workspace, each thing that keeps fslens or FSAC from serving it, with
//! the fix a user types. The checks read files and the process table only (never start a
//! program), so they run where FSAC cannot: the command line runs them in its own process
//! ("from files", with what it found out about FSAC through `proxy::backend`), the session runs
//! the same checks with its own FSAC's state.
//!
//! The checks: the .NET SDK and the `global.json` pin ([`sdk`]), FSAC ([`fsac`]), each
//! project's restore, a paket repository's restore targets and central package management
//! ([`projects`]), the session socket and a second language server on the same files
//! ([`machine`]). The command line runs them through `cli::doctor`, which also writes their text.

pub mod fsac;
pub mod machine;
pub mod projects;
pub mod sdk;

use std::ffi::OsString;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::params::CommandArguments;
use crate::commands::{CommandContext, CommandError};

pub use fsac::FsacFinding;

/// `fslens.doctor` takes no arguments: the workspace is the session's (on the command line,
/// `--workspace`), the FSAC command the session's (on the command line, `--fsac` and the same
/// resolution as the session's).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct DoctorArguments {}

impl CommandArguments for DoctorArguments {}

/// Which check a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckId {
    /// A .NET SDK is installed beside the `dotnet` that runs.
    DotnetSdk,
    /// The `global.json` pin is satisfied by an installed SDK (its `rollForward` applied).
    GlobalJson,
    /// FSAC is found (which command) and answers `--version`; in the session, it runs.
    Fsac,
    /// The workspace has F# projects.
    Projects,
    /// A project's restore output (`obj/project.assets.json`) is there.
    Restore,
    /// A paket repository's `.paket/Paket.Restore.targets` is there.
    Paket,
    /// Central package management (`Directory.Packages.props`) and what NuGet refuses under it.
    CentralPackages,
    /// The session socket's directory and path can be used.
    SessionSocket,
    /// No second FSAC (Ionide's own) serves the same files.
    SecondServer,
}

impl CheckId {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckId::DotnetSdk => "dotnet_sdk",
            CheckId::GlobalJson => "global_json",
            CheckId::Fsac => "fsac",
            CheckId::Projects => "projects",
            CheckId::Restore => "restore",
            CheckId::Paket => "paket",
            CheckId::CentralPackages => "central_packages",
            CheckId::SessionSocket => "session_socket",
            CheckId::SecondServer => "second_server",
        }
    }
}

/// What a check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// Nothing to do.
    Ok,
    /// Said for information (a policy in force, something that cannot be checked here).
    Info,
    /// Works, but not as well as it could (a second FSAC, a version not known).
    Warning,
    /// Keeps fslens or FSAC from serving the workspace: the command exits non-zero.
    Problem,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Ok => "ok",
            CheckStatus::Info => "info",
            CheckStatus::Warning => "warning",
            CheckStatus::Problem => "problem",
        }
    }
}

/// One line of the diagnosis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorCheck {
    pub id: CheckId,
    pub status: CheckStatus,
    /// What was found, in a sentence.
    pub message: String,
    /// What a user types to fix it (`null` when there is nothing to fix).
    pub fix: Option<String>,
    /// The file or directory the check is about, relative to the workspace when inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl DoctorCheck {
    pub fn new(id: CheckId, status: CheckStatus, message: impl Into<String>) -> DoctorCheck {
        DoctorCheck { id, status, message: message.into(), fix: None, path: None }
    }

    pub fn fix(mut self, fix: impl Into<String>) -> DoctorCheck {
        self.fix = Some(fix.into());
        self
    }

    pub fn path(mut self, path: impl Into<String>) -> DoctorCheck {
        self.path = Some(path.into());
        self
    }
}

/// Where the checks ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RanIn {
    /// In the session (`fslens.doctor` on the wire or MCP): FSAC is the session's.
    Session,
    /// In the command line's own process, no session started.
    Files,
}

/// The answer of `fslens.doctor`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorAnswer {
    /// The workspace root diagnosed.
    pub workspace: String,
    pub ran_in: RanIn,
    /// Whether any check is a `problem` (the command line then exits 1).
    pub blocked: bool,
    /// The checks, in the order they ran.
    pub checks: Vec<DoctorCheck>,
}

/// What the checks read of the process's environment.
#[derive(Clone, Debug, Default)]
pub struct DoctorEnvironment {
    pub path: Option<OsString>,
    pub dotnet_root: Option<OsString>,
    pub xdg_runtime_dir: Option<OsString>,
}

impl DoctorEnvironment {
    pub fn from_process() -> DoctorEnvironment {
        DoctorEnvironment {
            path: std::env::var_os("PATH"),
            dotnet_root: std::env::var_os("DOTNET_ROOT"),
            xdg_runtime_dir: std::env::var_os("XDG_RUNTIME_DIR"),
        }
    }
}

/// Runs every check on the workspace at `root` (canonical), with what is known of FSAC.
pub fn diagnose(root: &Path, fsac: &FsacFinding, environment: &DoctorEnvironment, ran_in: RanIn) -> DoctorAnswer {
    let mut checks = Vec::new();
    checks.extend(sdk::checks(root, environment));
    checks.push(fsac::check(fsac));
    checks.extend(projects::checks(root));
    checks.push(machine::session_socket_check(root, environment));
    checks.push(machine::second_server_check(root));
    DoctorAnswer {
        workspace: root.display().to_string(),
        ran_in,
        blocked: checks.iter().any(|check| check.status == CheckStatus::Problem),
        checks,
    }
}

/// `fslens.doctor` in the session: the same checks, FSAC as the session knows it.
pub async fn doctor(_arguments: DoctorArguments, context: CommandContext) -> Result<DoctorAnswer, CommandError> {
    let root = context.workspace_root()?.to_path_buf();
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let (_, report) = context.status_report().await?;
    let finding = FsacFinding::of_session(&report);
    crate::commands::run_blocking(move || {
        Ok(diagnose(&root, &finding, &DoctorEnvironment::from_process(), RanIn::Session))
    })
    .await
}

/// `path` relative to `root` when inside it, else as it is.
pub(crate) fn display_path(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// Errors (a definite verdict that something is wrong, like `check`'s `errors`) when a check is
/// a `problem`; definite when nothing blocks.
impl crate::commands::outcome::Answered for DoctorAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        if self.blocked {
            crate::commands::outcome::Outcome::Errors
        } else {
            crate::commands::outcome::Outcome::Definite
        }
    }
}
