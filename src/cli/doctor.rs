//! `fslens doctor` on the command line: run in the CLI's own process (it must answer where FSAC
//! cannot start), FSAC resolved as a session would resolve it and its `--version` run (both in
//! `proxy::backend`), then the checks from files; and its answer as text, one line per check.

use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

use crate::cli::command_line::{InProcess, Local, canonical_workspace};
use crate::commands::doctor::{
    CheckStatus, DoctorAnswer, DoctorArguments, DoctorEnvironment, FsacFinding, RanIn, diagnose,
};
use crate::commands::params::CommandArguments;
use crate::commands::registry::Command;
use crate::failure::Failure;
use crate::proxy::backend::{FSAC_ENVIRONMENT_VARIABLE, fsac_version, resolve_fsac_command};

/// How long `fslens doctor` lets FSAC's `--version` run.
const FSAC_VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// `fslens doctor` in the CLI's own process: the workspace (canonical), FSAC as the command line
/// finds it, then the checks on a blocking thread. An argument object that is not `{}` is
/// refused naming the argument.
pub fn run_in_process(_command: Command, argument: Value, local: Local) -> InProcess {
    Box::pin(async move {
        let root = canonical_workspace(&local.workspace)?;
        let finding = fsac_finding(&local, &root).await?;
        let answer = tokio::task::spawn_blocking(move || {
            DoctorArguments::from_argument(argument).map_err(Failure::from)?;
            Ok::<_, Failure>(diagnose(&root, &finding, &DoctorEnvironment::from_process(), RanIn::Files))
        })
        .await
        .context("the doctor's thread failed")??;
        Ok(serde_json::to_value(answer)?)
    })
}

/// FSAC as the command line finds it: the command a session would start (`--fsac`, else
/// `$FSLENS_FSAC`, else the `PATH`) and what its `--version` says.
async fn fsac_finding(local: &Local, root: &std::path::Path) -> anyhow::Result<FsacFinding> {
    let resolved = resolve_fsac_command(
        local.fsac.as_deref(),
        std::env::var_os(FSAC_ENVIRONMENT_VARIABLE),
        std::env::var_os("PATH"),
    );
    Ok(match resolved {
        Err(reason) => FsacFinding::Unreadable { reason },
        Ok(Err(reason)) => FsacFinding::NotFound { reason },
        Ok(Ok(fsac)) => {
            let fsac = fsac.relative_paths_from(&local.shell_directory);
            let version = fsac_version(&fsac, root, FSAC_VERSION_TIMEOUT).await;
            let source = serde_json::to_value(fsac.source)?.as_str().unwrap_or_default().to_owned();
            FsacFinding::Resolved { command: fsac.display(), source, version }
        }
    })
}

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
