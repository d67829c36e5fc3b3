//! The FSAC check. What is known of FSAC is gathered by whoever may look: the command line
//! resolves the command as the session would and runs its `--version` (both in
//! `proxy::backend`, the only place that starts programs); the session reports its own FSAC.
//! This module only judges what was found.

use serde_json::Value;

use super::{CheckId, CheckStatus, DoctorCheck};

/// What was found out about FSAC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FsacFinding {
    /// The command line's finding: the command a session would start, where it came from
    /// (`flag`, `environment`, `path`, `dotnet_tool`) and what its `--version` gave.
    Resolved { command: String, source: String, version: VersionProbe },
    /// No FSAC command was found; the sentence says what was tried.
    NotFound { reason: String },
    /// The user's own command line (`--fsac`, `FSLENS_FSAC`) could not be read.
    Unreadable { reason: String },
    /// The session's own FSAC, from its status report.
    Session {
        command: Option<String>,
        source: Option<String>,
        running: bool,
        pid: Option<u64>,
        /// Why FSAC does not run (the session's `reason`), with its last stderr.
        reason: Option<String>,
    },
}

/// What running `FSAC --version` gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionProbe {
    /// Its first line of output.
    Printed(String),
    /// It ended with success and printed nothing.
    Silent,
    /// It could not start, or ended with a failure (the message and the end of its stderr).
    Failed(String),
    /// It did not end within the deadline (milliseconds) and was stopped.
    TimedOut(u64),
}

impl FsacFinding {
    /// The session's FSAC from its `fslens.status` report.
    pub fn of_session(report: &Value) -> FsacFinding {
        let fsac = &report["fsac"];
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let running = fsac["running"].as_bool().unwrap_or(false);
        let reason = text(&report["reason"]).map(|reason| match text(&fsac["stderrTail"]) {
            Some(tail) if !running && !reason.contains(tail.trim()) => format!("{reason}; stderr: {}", tail.trim()),
            _ => reason,
        });
        FsacFinding::Session {
            command: text(&fsac["command"]),
            source: text(&fsac["source"]),
            running,
            pid: fsac["pid"].as_u64(),
            reason,
        }
    }
}

const INSTALL_FSAC: &str = "dotnet tool install --global fsautocomplete";

/// Where a command came from, in words, and how a user changes it.
fn origin(source: &str) -> (&'static str, String) {
    match source {
        "flag" => ("from --fsac", "correct the --fsac command line".to_owned()),
        "environment" => ("from FSLENS_FSAC", "correct FSLENS_FSAC (or unset it)".to_owned()),
        "path" => ("fsautocomplete on PATH", "dotnet tool update --global fsautocomplete".to_owned()),
        "dotnet_tool" => ("`dotnet fsautocomplete`", INSTALL_FSAC.to_owned()),
        _ => ("", INSTALL_FSAC.to_owned()),
    }
}

/// The FSAC check's line.
pub fn check(finding: &FsacFinding) -> DoctorCheck {
    match finding {
        FsacFinding::NotFound { reason } => {
            DoctorCheck::new(CheckId::Fsac, CheckStatus::Problem, reason.clone()).fix(INSTALL_FSAC)
        }
        FsacFinding::Unreadable { reason } => DoctorCheck::new(
            CheckId::Fsac,
            CheckStatus::Problem,
            format!("the FSAC command line cannot be read: {reason}"),
        )
        .fix("quote the FSAC command line as a POSIX shell would (--fsac or FSLENS_FSAC)"),
        FsacFinding::Resolved { command, source, version } => {
            let (from, fix) = origin(source);
            let found = format!("`{command}` ({from})");
            match version {
                VersionProbe::Printed(version) => {
                    DoctorCheck::new(CheckId::Fsac, CheckStatus::Ok, format!("{found}, version {version}"))
                }
                VersionProbe::Silent => DoctorCheck::new(
                    CheckId::Fsac,
                    CheckStatus::Warning,
                    format!("{found} printed no version for --version (not FSAC, or an FSAC without --version?)"),
                ),
                VersionProbe::TimedOut(milliseconds) => DoctorCheck::new(
                    CheckId::Fsac,
                    CheckStatus::Warning,
                    format!("{found} did not answer --version within {milliseconds} ms"),
                ),
                VersionProbe::Failed(error) => {
                    // The .NET host refuses to start anything when the global.json pin is not met.
                    let fix = if error.contains("global.json") {
                        "meet the global.json pin first (the global_json check says how)".to_owned()
                    } else {
                        fix
                    };
                    DoctorCheck::new(CheckId::Fsac, CheckStatus::Problem, format!("{found} does not run: {error}"))
                        .fix(fix)
                }
            }
        }
        FsacFinding::Session { command, source, running, pid, reason } => {
            let (from, fix) = origin(source.as_deref().unwrap_or(""));
            let Some(command) = command else {
                let reason = reason.clone().unwrap_or_else(|| "no FSAC command was found".to_owned());
                return DoctorCheck::new(
                    CheckId::Fsac,
                    CheckStatus::Problem,
                    format!("the session has no FSAC: {reason}"),
                )
                .fix(INSTALL_FSAC);
            };
            let found = format!("`{command}` ({from})");
            if *running {
                let pid = pid.map(|pid| format!(", pid {pid}")).unwrap_or_default();
                DoctorCheck::new(CheckId::Fsac, CheckStatus::Ok, format!("{found} runs in the session{pid}"))
            } else {
                let reason = reason.clone().unwrap_or_else(|| "it is not running".to_owned());
                DoctorCheck::new(CheckId::Fsac, CheckStatus::Problem, format!("{found} does not run: {reason}"))
                    .fix(fix)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_report_becomes_a_finding() {
        let report = serde_json::json!({
            "reason": "FSAC exited before initialize",
            "fsac": {"command": "fsautocomplete", "source": "path", "running": false, "pid": 12, "stderrTail": "SDK 99.0.100 not found"}
        });
        let finding = FsacFinding::of_session(&report);
        let line = check(&finding);
        assert_eq!(line.status, CheckStatus::Problem);
        assert!(line.message.contains("SDK 99.0.100 not found"), "{}", line.message);
        assert_eq!(line.fix.as_deref(), Some("dotnet tool update --global fsautocomplete"));
    }
}
