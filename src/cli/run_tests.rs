//! The text of `fslens run-tests`.

use crate::commands::run_tests::*;

/// The command line's text: one line per test, the tests run through their fixture, the
/// totals, stale assemblies and why there are no results.
pub fn render_text(answer: &RunTestsAnswer) -> String {
    let mut lines = Vec::new();
    if let Some(reason) = &answer.blocking_reason {
        lines.push(format!("unknown: {} ({})", reason.message, reason.error_kind));
    }
    for test in &answer.tests {
        let outcome = match test.outcome {
            Outcome::Passed => "passed",
            Outcome::Failed => "FAILED",
            Outcome::Skipped => "skipped",
            Outcome::None => "no outcome",
            Outcome::NotFound => "not found",
        };
        let at = test.location.as_ref().map(|at| format!(" at {}:{}", at.path, at.line)).unwrap_or_default();
        lines.push(format!("{outcome:>10}  {} ({:.0} ms){at}", test.display_name, test.duration_ms));
        if test.outcome == Outcome::Failed
            && let Some(message) = &test.message
        {
            lines.extend(message.lines().map(|line| format!("            {line}")));
        }
    }
    if !answer.run_through_fixture.is_empty() {
        let fixtures: Vec<String> =
            answer.run_through_fixture.iter().map(|run| format!("{} (~{})", run.test, run.fixture)).collect();
        lines.push(format!(
            "run through their fixture (NUnit's filter cannot select a name with spaces; {} other result(s) left \
             out): {}",
            answer.results_left_out,
            fixtures.join(", ")
        ));
    }
    for stale in &answer.stale_assemblies {
        lines.push(format!("stale: {} ({}): {}; {}", stale.project, stale.assembly, stale.reason, stale.remedy));
    }
    if answer.status == RunStatus::Ok {
        let totals = &answer.totals;
        lines.push(format!(
            "{} passed, {} failed, {} skipped, {} other in {} ({} ms)",
            totals.passed,
            totals.failed,
            totals.skipped,
            totals.other,
            if answer.projects.is_empty() { "no test project".to_owned() } else { answer.projects.join(", ") },
            answer.elapsed_ms
        ));
    }
    lines.join("\n")
}
