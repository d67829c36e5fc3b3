//! How a command's flags become a request: each argument struct's [`CliArguments`] (how long
//! the CLI waits for FSAC, where the answer comes from), and the wrappers of the subcommands
//! whose flags are not the argument struct as it is (`check --edits FILE`, `rename
//! --expected-hashes`, `field-impact FIELD`). The flags themselves are derived from the
//! commands' typed argument structs (`#[derive(clap::Args)]`, their doc comments the help).

use crate::cli::command_line::{CliArguments, CliRequest, CommandLine, Runs};
use crate::commands::dead_code::DeadCodeArguments;
use crate::commands::diagnostic::arguments::{ExplainArguments, FixesArguments, SuggestOpenArguments};
use crate::commands::doctor::DoctorArguments;
use crate::commands::find::FindArguments;
use crate::commands::make_visible::MakeVisibleArguments;
use crate::commands::outline::OutlineArguments;
use crate::commands::params::to_argument_object;
use crate::commands::project_inspect::ProjectInspectArguments;
use crate::commands::referenced::{NugetMembersArguments, NugetTypesArguments, ReferencedSymbolsArguments};
use crate::commands::run_tests::RunTestsArguments;
use crate::commands::signature_drift::SignatureDriftArguments;
use crate::commands::status::StatusArguments;
use crate::commands::symbols::read::{ReadEnclosingArguments, ReadSymbolArguments};
use crate::commands::symbols::{SearchArguments, WaitForIndexMs};
use crate::commands::tests_for_symbol::TestsForSymbolArguments;
use crate::commands::union_impact::UnionCaseImpactArguments;
use crate::commands::{check, field_impact, find, rename};
use crate::failure::Failure;

/// `doctor` runs in the CLI's own process: it must answer where FSAC cannot start.
impl CliArguments for DoctorArguments {
    const RUNS: Runs = Runs::InProcess(crate::cli::doctor::run_in_process);
}

/// The command line waits for FSAC's load up to the deadline.
impl CliArguments for ProjectInspectArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

impl CliArguments for OutlineArguments {}

impl CliArguments for MakeVisibleArguments {}

impl CliArguments for ReadEnclosingArguments {}

/// `fslens read-symbol --path` reads that file only: no waiting for the workspace's index.
impl CliArguments for ReadSymbolArguments {
    fn argument(&self) -> serde_json::Value {
        let mut arguments = self.clone();
        if arguments.path.is_some() {
            arguments.wait_for_index_ms = WaitForIndexMs::default();
        }
        to_argument_object(&arguments)
    }
}

impl CliArguments for SearchArguments {}

impl CliArguments for UnionCaseImpactArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// The diagnostic tools on the command line wait for FSAC up to their deadline; `suggest-open`
/// with only a name is answered by the syntax layer at once.
impl CliArguments for ExplainArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

impl CliArguments for FixesArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

impl CliArguments for SuggestOpenArguments {
    fn wait_ms(&self) -> Option<u64> {
        self.line.is_some().then_some(self.timeout_ms.get())
    }
}

/// The command line waits for FSAC up to the deadline: most uses come from its references.
impl CliArguments for DeadCodeArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// The command line waits for FSAC up to the run's own deadline.
impl CliArguments for RunTestsArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// `fslens status` waits for readiness up to the timeout.
impl CliArguments for StatusArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// The command line waits for FSAC up to the deadline: the sites come from its references.
impl CliArguments for TestsForSymbolArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// `fslens find` waits for FSAC up to the find's own deadline.
impl CliArguments for FindArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// The command line waits for FSAC up to the deadline: the `val` lines need its types.
impl CliArguments for SignatureDriftArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// The referenced-assembly tools read files: the command line runs them in its own process.
impl CliArguments for ReferencedSymbolsArguments {
    const RUNS: Runs = Runs::InProcess(crate::cli::referenced::run_in_process);
}

impl CliArguments for NugetTypesArguments {
    const RUNS: Runs = Runs::InProcess(crate::cli::referenced::run_in_process);
}

impl CliArguments for NugetMembersArguments {
    const RUNS: Runs = Runs::InProcess(crate::cli::referenced::run_in_process);
}

/// `fslens field-impact FIELD`: the field and find's sweep flags (every other argument keeps its
/// wire default; site types are always on).
#[derive(Debug, clap::Args)]
pub struct FieldImpactCommandLine {
    /// The field: `Name`, `Type.Name` or a fully qualified name.
    field: String,
    /// Which projects are swept and which sites are kept (default auto).
    #[arg(long, value_enum)]
    scope: Option<find::FindScope>,
    /// A project (.fsproj) or solution to sweep.
    #[arg(long)]
    project_path: Option<String>,
    /// At most this many sites per page.
    #[arg(long)]
    max_results: Option<find::arguments::MaxResults>,
    /// Continue from a previous answer's nextCursor.
    #[arg(long)]
    cursor: Option<String>,
    /// The deadline (also for FSAC to load), in milliseconds.
    #[arg(long, default_value_t = Default::default())]
    timeout_ms: find::arguments::FindTimeoutMs,
    /// Print the JSON answer instead of a table.
    #[arg(long)]
    json: bool,
}

impl CommandLine for FieldImpactCommandLine {
    fn request(self) -> Result<CliRequest, Failure> {
        let arguments = field_impact::FieldImpactArguments {
            field: Some(self.field),
            query: None,
            kind: field_impact::FieldImpactKind::Field,
            include_site_types: true,
            scope: self.scope.unwrap_or_default(),
            project_path: self.project_path,
            path: None,
            line: None,
            word: None,
            occurrence: None,
            character: None,
            exact: true,
            context_lines: Default::default(),
            max_results: self.max_results.unwrap_or_default(),
            response_char_budget: None,
            response_byte_budget: None,
            cursor: self.cursor,
            timeout_ms: self.timeout_ms,
            include_declaration: true,
            include_info: false,
        };
        Ok(CliRequest {
            argument: to_argument_object(&arguments),
            wait_ms: Some(self.timeout_ms.get()),
            json: self.json,
            runs: Runs::InSession,
        })
    }
}

/// `fslens rename`: the command's arguments as flags, with the preview's hashes given as JSON
/// text.
#[derive(Clone, Debug, clap::Args)]
pub struct RenameCommandLine {
    #[command(flatten)]
    pub arguments: rename::RenameArguments,
    /// With --apply disk: the preview's fileHashes, as JSON.
    #[arg(long)]
    pub expected_hashes: Option<String>,
    /// Print the JSON answer instead of the preview.
    #[arg(long)]
    pub json: bool,
}

impl CommandLine for RenameCommandLine {
    /// The rename waits for FSAC up to its deadline; `--expected-hashes` must be the preview's
    /// `fileHashes` JSON.
    fn request(self) -> Result<CliRequest, Failure> {
        let mut arguments = self.arguments;
        if let Some(hashes) = &self.expected_hashes {
            arguments.expected_hashes = Some(serde_json::from_str(hashes).map_err(|error| {
                Failure::invalid_argument(
                    "expectedHashes",
                    format!("--expected-hashes is not the preview's fileHashes JSON (file → hash): {error}"),
                )
            })?);
        }
        Ok(CliRequest {
            argument: to_argument_object(&arguments),
            wait_ms: Some(arguments.timeout_ms.get()),
            json: self.json,
            runs: Runs::InSession,
        })
    }
}

/// `fslens check`: the command's arguments as flags, with the what-if's edits read from a file.
#[derive(Debug, clap::Args)]
pub struct CheckCommandLine {
    #[command(flatten)]
    pub arguments: check::CheckArguments,
    /// What-if: a JSON file (`-`: standard input) holding the hypothetical edits (a
    /// WorkspaceEdit, or a list of {path, range, newText} / {path, text}); nothing is written.
    #[arg(long)]
    pub edits: Option<String>,
    /// Print the JSON answer instead of a readable summary.
    #[arg(long)]
    pub json: bool,
}

impl CommandLine for CheckCommandLine {
    /// The check waits for FSAC up to its own deadline.
    fn request(mut self) -> Result<CliRequest, Failure> {
        self.arguments.edits = self.edits.as_deref().map(read_what_if_edits).transpose()?;
        Ok(CliRequest {
            argument: to_argument_object(&self.arguments),
            wait_ms: Some(self.arguments.timeout_ms.get()),
            json: self.json,
            runs: Runs::InSession,
        })
    }
}

/// The `--edits` file (`-`: standard input): the `edits` value of a what-if check.
fn read_what_if_edits(source: &str) -> Result<check::edits::WhatIfEdits, Failure> {
    let text = if source == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|error| {
            Failure::invalid_path("-", format!("cannot read the edits from standard input: {error}"))
        })?
    } else {
        std::fs::read_to_string(source)
            .map_err(|error| Failure::invalid_path(source, format!("cannot read the edits file {source}: {error}")))?
    };
    let edits: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| Failure::invalid_argument("edits", format!("the edits in {source} are not JSON: {error}")))?;
    serde_path_to_error::deserialize(edits).map_err(|error| {
        Failure::invalid_argument(
            "edits",
            format!("the edits in {source} are not a what-if's edits: at {}: {}", error.path(), error.inner()),
        )
    })
}
