//! The arguments of `fslens.check`: one typed struct, read from the wire by
//! `commands::params`, built by the CLI, and the source of the MCP tool's schema.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::edits::WhatIfEdits;
use super::file_glob::FileGlob;
use crate::commands::CommandError;
use crate::commands::params::{CommandArguments, TimeoutMs};

/// The arguments of `fslens.check` (all optional), and the flags of `fslens check` (where
/// `path` is positional and `--edits` names a file holding the edits).
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckArguments {
    /// What to check. auto: snippet if `snippet`, file if `path`, project if `projectPath`
    /// names a project (an .fsproj path or a project name), else workspace.
    #[serde(default)]
    #[arg(long, value_enum, default_value_t)]
    pub scope: CheckScope,
    /// A file to check (scope file). Relative to the workspace root or absolute inside it;
    /// paths outside are refused. A file neither on disk nor open in the editor is
    /// `invalid_path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Source text checked as a script (scope snippet).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub snippet: Option<String>,
    /// Where the snippet sits in the project's compile order.
    #[serde(default)]
    #[arg(long, value_enum, default_value_t)]
    pub snippet_position: SnippetPosition,
    /// Keep only files whose workspace-relative path matches: `*` and `?` within one path
    /// segment, `**` across segments.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub file_glob: Option<FileGlob>,
    /// trusted: FSAC analyses every file at its current content; fast: only what FSAC already
    /// reported, never opening files.
    #[serde(default)]
    #[arg(long, value_enum, default_value_t)]
    pub speed: Speed,
    /// Which diagnostics the answer lists (the counts cover all of them).
    #[serde(default)]
    #[arg(long, value_enum, default_value_t)]
    pub severity: SeverityFloor,
    /// .fsproj path or project name (scope project, or where a snippet goes), or a solution.
    /// Relative to the workspace root or absolute inside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub project_path: Option<String>,
    /// One deadline for waiting for FSAC and the analyses, in milliseconds.
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = TimeoutMs::<60_000>::parse_clamped)]
    pub timeout_ms: TimeoutMs<60_000>,
    /// What-if: check these edits without writing them (the editor sees nothing; FSAC's view
    /// is restored before the answer). A WorkspaceEdit (changes or documentChanges), or a list
    /// of {path, range, newText} (0-based line, UTF-16 character) or {path, text}. The answer
    /// adds baseline and delta (introduced, resolved, unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub edits: Option<WhatIfEdits>,
    /// build: after FSAC's check, run the real compiler (`dotnet build` into a temporary
    /// folder; the projects' own bin/ and obj/ are left alone) over the projects in scope, mark
    /// each FSAC error `confirmedByBuild`, list the build's errors FSAC did not report, and
    /// let the verdict rest on the build (`verdictSource`). Takes seconds to minutes; within
    /// `buildTimeoutMs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long, value_enum)]
    pub confirm: Option<Confirm>,
    /// With `confirm`: the build's own deadline in milliseconds, counted from when it starts
    /// (a published library's build takes minutes on a small machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long, value_parser = BuildTimeoutMs::parse_clamped)]
    pub build_timeout_ms: Option<BuildTimeoutMs>,
}

/// `confirm`: what else confirms the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum Confirm {
    /// The real compiler, through `dotnet build`.
    Build,
}

/// `buildTimeoutMs`: ten minutes unless given.
pub type BuildTimeoutMs = TimeoutMs<600_000>;

/// How long a caller waiting for a check's answer allows beyond `timeoutMs`: the build's
/// deadline when the (wire) arguments ask for `confirm`, else nothing.
pub fn build_allowance_ms(argument: &serde_json::Value) -> u64 {
    match argument.get("confirm") {
        None | Some(serde_json::Value::Null) => 0,
        Some(_) => argument
            .get("buildTimeoutMs")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(BuildTimeoutMs::default().get()),
    }
}

impl CheckArguments {
    /// The deadline of `confirm`'s build, in milliseconds from its start.
    pub fn build_deadline_ms(&self) -> u64 {
        self.build_timeout_ms.unwrap_or_default().get()
    }
}

impl CommandArguments for CheckArguments {
    /// An error in a change names its file's URI in brackets (`edits.changes[file:///…]`).
    fn from_argument(argument: serde_json::Value) -> Result<Self, CommandError> {
        let change_uris = crate::commands::check::edits::change_uris(&argument);
        crate::commands::params::parse_arguments(argument)
            .map_err(|error| crate::commands::check::edits::name_changes_in_brackets(error, &change_uris))
    }

    fn validate(&self) -> Result<(), CommandError> {
        if self.edits.is_some() && (self.scope == CheckScope::Snippet || self.snippet.is_some()) {
            return Err(CommandError::invalid_argument("edits", "a what-if checks project files, not a snippet"));
        }
        if self.edits.is_some() && self.speed == Speed::Fast {
            return Err(CommandError::invalid_argument(
                "speed",
                "a what-if needs FSAC to analyse the edited texts: use speed=trusted",
            ));
        }
        if self.confirm.is_some() && self.edits.is_some() {
            return Err(CommandError::invalid_argument(
                "confirm",
                "the build compiles the files on disk, not a what-if's edits",
            ));
        }
        if self.confirm.is_none() && self.build_timeout_ms.is_some() {
            return Err(CommandError::invalid_argument(
                "buildTimeoutMs",
                "it is the deadline of confirm's build; give confirm too",
            ));
        }
        if self.confirm.is_some() && (self.scope == CheckScope::Snippet || self.snippet.is_some()) {
            return Err(CommandError::invalid_argument("confirm", "the build compiles projects, not a snippet"));
        }
        if self.scope == CheckScope::Snippet && self.snippet.is_none() {
            return Err(CommandError::invalid_argument("snippet", "scope snippet needs the snippet text"));
        }
        if self.scope == CheckScope::File && self.path.is_none() {
            return Err(CommandError::invalid_argument("path", "scope file needs a path"));
        }
        Ok(())
    }
}

/// `scope` as asked; `auto` is resolved by the plan.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum CheckScope {
    #[default]
    Auto,
    File,
    Project,
    Workspace,
    Snippet,
}

/// `snippetPosition`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum SnippetPosition {
    /// After the project's files (those of referenced projects first).
    #[default]
    End,
    /// With nothing before it.
    Start,
}

/// `speed`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum Speed {
    #[default]
    Trusted,
    Fast,
}

/// `severity`: the least severe diagnostic the answer lists.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum SeverityFloor {
    #[default]
    Error,
    Warning,
    Information,
    /// Hidden diagnostics (no severity) count as hints, so `hint` and `all` keep the same
    /// rows; the answer echoes the one asked for.
    Hint,
    All,
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::commands::params::parse_arguments;

    fn blamed(argument: Value) -> String {
        match parse_arguments::<CheckArguments>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn arguments_are_checked_and_named() {
        assert_eq!(blamed(json!({"scope": "everything"})), "scope");
        assert_eq!(blamed(json!({"timeoutMs": -1})), "timeoutMs");
        assert_eq!(blamed(json!({"scope": "file"})), "path");
        assert_eq!(blamed(json!({"scope": "snippet"})), "snippet");
        assert_eq!(blamed(json!({"pathh": "x"})), "pathh");
        assert_eq!(blamed(json!({"fileGlob": "src/[A.fs"})), "fileGlob");
        assert_eq!(blamed(json!({"snippet": "1", "edits": [{"path": "A.fs", "text": ""}]})), "edits");
        assert_eq!(blamed(json!({"speed": "fast", "edits": [{"path": "A.fs", "text": ""}]})), "speed");
        assert_eq!(blamed(json!({"confirm": "fsac"})), "confirm");
        assert_eq!(blamed(json!({"confirm": "build", "edits": [{"path": "A.fs", "text": ""}]})), "confirm");
        assert_eq!(blamed(json!({"confirm": "build", "snippet": "1"})), "confirm");
        let confirmed: CheckArguments = parse_arguments(json!({"confirm": "build"})).unwrap();
        assert_eq!(confirmed.confirm, Some(Confirm::Build));
        assert_eq!(confirmed.build_deadline_ms(), 600_000);
        assert_eq!(blamed(json!({"buildTimeoutMs": 1000})), "buildTimeoutMs");
        let quick: CheckArguments = parse_arguments(json!({"confirm": "build", "buildTimeoutMs": 1000})).unwrap();
        assert_eq!(quick.build_deadline_ms(), 1000);
        let parsed: CheckArguments = parse_arguments(json!({"severity": "all", "speed": "fast"})).unwrap();
        assert_eq!((parsed.severity, parsed.speed), (SeverityFloor::All, Speed::Fast));
        let defaults: CheckArguments = parse_arguments(json!([])).unwrap();
        assert_eq!(
            (defaults.scope, defaults.speed, defaults.severity, defaults.snippet_position, defaults.timeout_ms.get()),
            (CheckScope::Auto, Speed::Trusted, SeverityFloor::Error, SnippetPosition::End, 60_000)
        );
        let no_edits: CheckArguments = parse_arguments(json!({"edits": null})).unwrap();
        assert!(no_edits.edits.is_none());
    }

    #[test]
    fn the_schema_lists_the_choices_defaults_and_both_edit_shapes() {
        let schema = crate::commands::params::input_schema::<CheckArguments>();
        let properties = &schema["properties"];
        assert_eq!(properties["scope"]["enum"], json!(["auto", "file", "project", "workspace", "snippet"]));
        assert_eq!(properties["severity"]["default"], json!("error"));
        assert_eq!(properties["speed"]["enum"], json!(["trusted", "fast"]));
        assert_eq!(properties["timeoutMs"]["maximum"], json!(3_600_000));
        assert_eq!(properties["fileGlob"]["type"], json!("string"));
        let shapes = properties["edits"]["anyOf"].as_array().expect("the edit shapes");
        assert_eq!(shapes.len(), 2, "{}", properties["edits"]);
        assert!(properties["edits"]["description"].as_str().unwrap().contains("What-if"));
    }
}
