//! `fslens.status`: what the session knows about FSAC, its readiness and the editor's
//! documents — optionally after waiting for readiness, and with a liveness probe.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_bool, optional_string, reject_unknown, timeout_argument};
use crate::lsp::ext;
use crate::lsp::message::error_codes;
use crate::session_state::status::State;

/// The argument object of `fslens.status`.
#[derive(Debug)]
pub struct StatusArguments {
    /// `"ready"`: answer once FSAC reports the workspace loaded (or can no longer get there).
    pub wait_until: Option<String>,
    /// How long to wait (default 60 s).
    pub timeout: Duration,
    /// Send FSAC a request it answers at once, and report whether and how fast it did.
    pub probe: bool,
}

/// Reads the argument object; every error names the argument at fault.
fn status_arguments(argument: &Value) -> Result<StatusArguments, CommandError> {
    let object = object_of(argument)?;
    reject_unknown(object, &["waitUntil", "timeoutMs", "probe"])?;
    Ok(StatusArguments {
        wait_until: optional_string(object, "waitUntil")?,
        timeout: timeout_argument(object, 60_000)?,
        probe: optional_bool(object, "probe")?.unwrap_or(false),
    })
}

pub async fn status(argument: Value, mut context: CommandContext) -> Result<Value, CommandError> {
    let arguments = status_arguments(&argument)?;
    if let Some(until) = arguments.wait_until.as_deref()
        && until != "ready"
    {
        return Err(CommandError::invalid_argument("waitUntil", format!("expected \"ready\", got {until:?}")));
    }
    let timeout = arguments.timeout;
    let deadline = tokio::time::Instant::now() + timeout;
    let started = Instant::now();

    let (mut snapshot, mut status) = context.status_report().await?;
    if arguments.wait_until.is_some() {
        let mut satisfied = false;
        loop {
            if snapshot.state == State::Ready {
                satisfied = true;
                break;
            }
            // Waiting helps while FSAC starts or loads, or before the editor's initialize
            // starts a configured FSAC; not once FSAC crashed or when none is configured.
            let not_started_yet =
                snapshot.state == State::Absent && snapshot.fsac_configured && snapshot.generation == 0;
            // A crashed FSAC that the supervisor (or the user) is restarting can still get there.
            if !snapshot.state.can_become_ready() && !not_started_yet && !snapshot.restart_scheduled {
                break;
            }
            match tokio::time::timeout_at(deadline, context.state_changed()).await {
                Ok(changed) => changed?,
                Err(_) => break,
            }
            (snapshot, status) = context.status_report().await?;
        }
        status["wait"] = json!({
            "until": "ready",
            "satisfied": satisfied,
            "waitedMs": started.elapsed().as_millis() as u64,
            "timedOut": !satisfied && tokio::time::Instant::now() >= deadline,
        });
    }
    // FSAC "ready with 0 projects" reads as a loaded workspace; say that there is none. The
    // project model is read only when FSAC lists no project (the common case costs nothing).
    if snapshot.projects_loaded.is_empty()
        && let Ok(root) = context.workspace_root()
    {
        let model = crate::commands::load_workspace_model(root).await?;
        if let Some(reason) = crate::commands::no_projects(&model) {
            status["noProjects"] = reason;
        }
    }
    if arguments.probe {
        let probe_started = Instant::now();
        let answer = context.backend_request(ext::backend_requests::PING, json!({}), deadline).await;
        let round_trip = probe_started.elapsed().as_secs_f64() * 1000.0;
        status["probe"] = match answer {
            // Any JSON-RPC answer, including "method not found", proves FSAC is responsive.
            Ok(Ok(_)) => json!({ "alive": true, "roundTripMs": round_trip }),
            Ok(Err(error)) if error.code == error_codes::METHOD_NOT_FOUND => {
                json!({ "alive": true, "roundTripMs": round_trip })
            }
            Ok(Err(error)) => {
                json!({ "alive": false, "error": error.message, "errorData": error.data })
            }
            Err(CommandError::Timeout) => {
                json!({ "alive": false, "error": "no answer before the deadline", "timedOut": true })
            }
            Err(error) => return Err(error),
        };
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::status_arguments;
    use crate::commands::CommandError;

    fn blamed(argument: serde_json::Value) -> String {
        match status_arguments(&argument) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn each_bad_argument_is_named() {
        assert_eq!(blamed(json!({"timeoutMs": -1})), "timeoutMs");
        assert_eq!(blamed(json!({"timeoutMs": 3_600_001})), "timeoutMs");
        assert_eq!(blamed(json!({"waitUntil": 1})), "waitUntil");
        assert_eq!(blamed(json!({"probe": "yes"})), "probe");
        assert_eq!(blamed(json!({"wait": "ready"})), "wait");
        assert_eq!(blamed(json!([])), "arguments");
        let accepted = status_arguments(&json!({"waitUntil": "ready", "timeoutMs": 0, "probe": true})).unwrap();
        assert_eq!(
            (accepted.wait_until.as_deref(), accepted.timeout, accepted.probe),
            (Some("ready"), std::time::Duration::ZERO, true)
        );
        assert!(status_arguments(&serde_json::Value::Null).is_ok());
    }
}
