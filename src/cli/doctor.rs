//! `fslens doctor`'s face on the command line: one line per check and its exit code. Kept apart
//! from the checks (they answer typed values; this turns them into text and a code).

use crate::commands::doctor::{CheckStatus, DoctorAnswer};

/// One line per check: `status  id: message`, and the fix under it after `fix:`.
pub fn render_text(answer: &DoctorAnswer) -> String {
    let mut text = format!("fslens doctor: {}\n", answer.workspace);
    for check in &answer.checks {
        text.push_str(&format!("{:<8} {}: {}\n", check.status.as_str(), check.id.as_str(), check.message));
        if let Some(fix) = &check.fix {
            text.push_str(&format!("         fix: {fix}\n"));
        }
    }
    let count = |status: CheckStatus| answer.checks.iter().filter(|check| check.status == status).count();
    text.push_str(&format!(
        "{} problem(s), {} warning(s): {}",
        count(CheckStatus::Problem),
        count(CheckStatus::Warning),
        if answer.blocked { "something blocks this workspace" } else { "nothing blocks this workspace" }
    ));
    text
}
