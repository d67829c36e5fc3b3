//! The face of `fslens affected-tests`: its subcommand, how long it waits for FSAC, and its
//! text (each selected test with its reasons and, with `--run`, its results).

use crate::cli::command_line::{CliArguments, OnCommandLine};
use crate::cli::{Face, Subcommand, read_as};
use crate::commands::affected_tests::*;
use crate::commands::run_tests::Outcome;

/// `fslens affected-tests [--since REV] [--files …] [--run]`.
pub fn face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<AffectedTestsArguments>>(
            "affected-tests",
            "List the tests a change reaches (git since a revision, files, or unsaved buffers), each with its reason; --run runs them",
        )),
        read: |answer| read_as::<AffectedTestsAnswer>(answer, render_text),
    }
}

/// The command line waits for FSAC up to the walk's deadline.
impl CliArguments for AffectedTestsArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

/// The answer as the command line prints it.
pub fn render_text(answer: &AffectedTestsAnswer) -> String {
    let mut lines = Vec::new();
    let source = match &answer.source {
        ChangeSource::Since { revision } => format!("since {revision}"),
        ChangeSource::Buffers => "unsaved buffers".to_owned(),
    };
    lines.push(format!(
        "{} test(s) affected by {} changed declaration(s) ({source}; {})",
        answer.total_tests,
        answer.changed_declarations.len(),
        if answer.complete { format!("complete to depth {}", answer.depth) } else { "not complete".to_owned() }
    ));
    for changed in &answer.changed_declarations {
        lines.push(format!(
            "changed: {}:{} {} ({}; {} test(s))",
            changed.path,
            changed.line + 1,
            changed.qualified_name,
            changed.change.as_str(),
            changed.tests
        ));
    }
    for project in &answer.project_changes {
        lines.push(format!("changed project file: {} (tests of {})", project.path, project.test_projects.join(", ")));
    }
    for test in &answer.tests {
        lines.push(format!(
            "  {}:{} {}",
            test.path,
            test.line + 1,
            test.fully_qualified_name.as_deref().unwrap_or(&test.name)
        ));
        for reason in &test.reasons {
            let chain: Vec<String> =
                reason.chain.iter().map(|step| format!("{} ({}:{})", step.name, step.path, step.line + 1)).collect();
            let breaks = if reason.no_longer_compiles { "; no longer compiles" } else { "" };
            lines.push(format!("      because {}: {}{breaks}", reason.change, chain.join(" → ")));
        }
        for result in &test.results {
            let outcome = match result.outcome {
                Outcome::Passed => "passed",
                Outcome::Failed => "FAILED",
                Outcome::Skipped => "skipped",
                Outcome::None => "no outcome",
                Outcome::NotFound => "not found",
            };
            let at = result.location.as_ref().map(|at| format!(" at {}:{}", at.path, at.line)).unwrap_or_default();
            lines.push(format!("      {outcome}: {}{at}", result.display_name));
        }
    }
    lines.extend(answer.missing.iter().map(|missing| format!("missing: {missing}")));
    for test in &answer.fallback_tests {
        lines.push(format!(
            "fallback: {}:{} {}",
            test.path,
            test.line + 1,
            test.fully_qualified_name.as_deref().unwrap_or(&test.name)
        ));
    }
    if let Some(run) = &answer.run {
        lines.push(crate::cli::run_tests::render_text(run));
    }
    lines.extend(answer.notes.iter().map(|note| format!("note: {note}")));
    lines.join("\n")
}
