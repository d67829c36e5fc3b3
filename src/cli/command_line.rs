//! A command on the command line: `fslens <subcommand> [flags]` for every row of the command
//! table that has one. The row names the subcommand, its one-line help and the clap type its
//! flags come from (usually [`OnCommandLine`] over the command's own argument struct, so a flag's
//! help is the same doc comment the MCP schema describes the argument with); the binary builds
//! its subcommands from the table and turns the parsed flags into a [`CliRequest`] here. Adding
//! a command adds no line to `main.rs`.

// clap's command-line definition (no process: tests/it/architecture.rs looks for those).
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use clap::Command as Subcommand;
use serde::Serialize;
use serde_json::Value;

use crate::commands::params::to_argument_object;
use crate::commands::registry::Command;
use crate::failure::Failure;

/// Where a subcommand's answer comes from.
#[derive(Clone, Copy, Debug)]
pub enum Runs {
    /// In the workspace's session (joined, or started headless).
    InSession,
    /// In the CLI's own process, with no session: the function answers from what the command
    /// line gives it ([`Local`]). The referenced-assembly tools read metadata and
    /// `project.assets.json`; `doctor` resolves FSAC as a session would and runs its
    /// `--version`, since it must answer where FSAC cannot start.
    InProcess(RunInProcess),
}

/// A command run in the CLI's own process: the command, its argument object (the paths typed
/// in the shell already resolved) and what the command line gives it; it answers the wire's JSON.
pub type RunInProcess = fn(Command, Value, Local) -> InProcess;

/// The answer of a command run in the CLI's own process, on its way.
pub type InProcess = Pin<Box<dyn Future<Output = anyhow::Result<Value>>>>;

/// What the command line gives a command run in its own process.
#[derive(Clone, Debug)]
pub struct Local {
    /// The workspace root as given (`--workspace`, else the current directory).
    pub workspace: PathBuf,
    /// The shell's current directory (a relative `--fsac` program is read from it).
    pub shell_directory: PathBuf,
    /// The FSAC command line of `--fsac`, if given (else `$FSLENS_FSAC`, else the `PATH`).
    pub fsac: Option<String>,
}

/// What a command line asks: the command's argument object, how long to wait for FSAC to load
/// the workspace first (`None`: the syntax layer answers without waiting), and whether the
/// answer is printed as JSON.
#[derive(Clone, Debug)]
pub struct CliRequest {
    pub argument: Value,
    pub wait_ms: Option<u64>,
    pub json: bool,
    pub runs: Runs,
}

/// A command's argument struct as flags: how its command line becomes a request. The defaults
/// suit a command the syntax layer answers in the session.
pub trait CliArguments: clap::Args + clap::FromArgMatches + Serialize {
    /// How long the CLI waits for FSAC to load before asking (milliseconds); `None` asks at
    /// once. Commands that need the compiler wait for their own deadline.
    fn wait_ms(&self) -> Option<u64> {
        None
    }

    /// The argument object sent: the flags as the wire's JSON.
    fn argument(&self) -> Value {
        to_argument_object(self)
    }

    /// Where the answer comes from.
    const RUNS: Runs = Runs::InSession;
}

/// A subcommand's parsed flags, ready to become a request.
pub trait CommandLine: clap::Args + clap::FromArgMatches {
    fn request(self) -> Result<CliRequest, Failure>;
}

/// A command's arguments on the command line: the command's own argument struct, whose
/// `#[arg]` attributes make its members flags (their help is the members' doc comments, the
/// same text the MCP schema describes them with), and `--json`.
#[derive(Clone, Debug, clap::Args)]
pub struct OnCommandLine<T: clap::Args> {
    #[command(flatten)]
    pub arguments: T,
    /// Print the JSON answer instead of the text rendering.
    #[arg(long)]
    pub json: bool,
}

impl<T: CliArguments> CommandLine for OnCommandLine<T> {
    fn request(self) -> Result<CliRequest, Failure> {
        Ok(CliRequest {
            argument: self.arguments.argument(),
            wait_ms: self.arguments.wait_ms(),
            json: self.json,
            runs: T::RUNS,
        })
    }
}

/// The subcommand `name` with the flags of `Line` and `about` as its help line.
pub fn subcommand<Line: CommandLine>(name: &'static str, about: &'static str) -> Subcommand {
    // The flags' type may carry doc comments of its own; the row's line is the subcommand's help.
    Line::augment_args(Subcommand::new(name)).about(about).long_about(None)
}

/// The request a subcommand's matches stand for; flags clap parsed but the type refuses are
/// bad input naming the flag.
pub fn request_of<Line: CommandLine>(matches: &clap::ArgMatches) -> Result<CliRequest, Failure> {
    let line = Line::from_arg_matches(matches).map_err(|error| Failure::usage(&error))?;
    line.request()
}

/// The workspace root, canonical; one that does not exist is `invalid_path`.
pub fn canonical_workspace(workspace: &Path) -> Result<PathBuf, Failure> {
    workspace.canonicalize().map_err(|error| {
        let written = workspace.display().to_string();
        Failure::invalid_path(&written, format!("workspace {written} does not exist: {error}"))
    })
}
