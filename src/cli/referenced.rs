//! The referenced-assembly tools on the command line (`referenced-symbols`, `nuget-types`,
//! `nuget-members`): run in the CLI's own process (they read metadata and
//! `project.assets.json`, no session, no FSAC), and their answers as text.

use anyhow::Context;
use serde_json::Value;

use crate::cli::command_line::{InProcess, Local};
use crate::commands::referenced::{
    MemberEntry, NugetMembersAnswer, NugetTypesAnswer, PackageFound, ReferencedAnswer, ReferencedArguments,
    ReferencedSymbolsAnswer, RestoreState, TypeEntry, run,
};
use crate::commands::registry::Command;
use crate::failure::Failure;
use crate::metadata::restore::RestoreEnvironment;

/// Runs one of the three tools in the CLI's own process, on a blocking thread: the files are
/// read directly, no session or FSAC is needed. The three subcommands take the commands' own
/// argument structs as flags (`--project` is `projectPath`); their queries are positional.
pub fn run_in_process(command: Command, argument: Value, local: Local) -> InProcess {
    Box::pin(async move {
        let answer = tokio::task::spawn_blocking(move || {
            let arguments = ReferencedArguments::parse(command, argument).map_err(Failure::from)?;
            run(&local.workspace, &arguments, &RestoreEnvironment::from_process()).map_err(Failure::from)
        })
        .await
        .context("the metadata reading thread failed")?;
        Ok(answer?)
    })
}

/// `referenced-symbols` as text.
pub fn symbols_text(answer: &ReferencedSymbolsAnswer) -> String {
    answer_text(answer, None, &answer.found.symbols, &[])
}

/// `nuget-types` as text.
pub fn types_text(answer: &NugetTypesAnswer) -> String {
    answer_text(answer, Some(&answer.found.package), &answer.found.types, &[])
}

/// `nuget-members` as text.
pub fn members_text(answer: &NugetMembersAnswer) -> String {
    answer_text(answer, Some(&answer.found.package), &[], &answer.found.members)
}

/// A plain-text rendering of any of the three answers: the project and restore facts, the
/// package miss (`package`), the `types` (or `symbols`) and the `members`.
fn answer_text<Found>(
    answer: &ReferencedAnswer<Found>,
    package: Option<&PackageFound>,
    types: &[TypeEntry],
    members: &[MemberEntry],
) -> String {
    let mut lines = vec![format!(
        "project {} ({}), restore: {}, via metadata; {} of {} shown{}",
        answer.project.name,
        answer.target_framework.as_deref().unwrap_or("null"),
        answer.restore_source.kind.as_str(),
        answer.returned,
        answer.total,
        match (answer.complete, answer.restore_state) {
            (true, _) => "",
            (false, RestoreState::NotRestored) => "; INCOMPLETE: the project was never restored",
            (false, RestoreState::Restored) => "; INCOMPLETE: some references unreadable",
        },
    )];
    if let Some(not_restored) = &answer.not_restored {
        lines.push(format!("not restored: {}", not_restored.message));
        lines.push(format!("remedy: {}", not_restored.remedy));
    }
    if let Some(hint) = package.and_then(|package| package.hint.as_deref()) {
        lines.push(format!("hint: {hint}"));
    }
    for candidate in package.and_then(|package| package.candidate_packages.as_deref()).unwrap_or_default() {
        lines.push(format!("  candidate: {} {}", candidate.package_id, candidate.version));
    }
    for entry in types {
        lines.push(format!(
            "{:<10} {:<9} {}  [{}]{}",
            entry.kind,
            entry.accessibility.as_str(),
            entry.full_name,
            entry.assembly,
            if entry.is_obsolete { " obsolete" } else { "" }
        ));
    }
    for entry in members {
        lines.push(format!(
            "{:<11} {:<9} {}{}",
            entry.kind.as_str(),
            entry.accessibility.as_str(),
            entry.signature,
            if entry.is_obsolete { " obsolete" } else { "" }
        ));
    }
    for unreadable in &answer.unreadable_references {
        lines.push(format!("unreadable: {}: {}", unreadable.name, unreadable.reason));
    }
    if let Some(cursor) = &answer.next_cursor {
        lines.push(format!("more: --cursor {cursor}"));
    }
    lines.join("\n")
}
