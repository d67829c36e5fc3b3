//! `fslens.status`: what the session knows about FSAC, its readiness and the editor's
//! documents — optionally after waiting for readiness, and with a liveness probe.

use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::lsp::ext;
use crate::lsp::message::error_codes;
use crate::session_state::status::State;

/// The arguments of `fslens.status` (all optional), and the flags of `fslens status`, which
/// always waits until the workspace is ready.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusArguments {
    /// Answer once FSAC reports the workspace loaded, or once waiting can no longer help (FSAC
    /// absent or crashed).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip = Some(WaitUntil::Ready))]
    pub wait_until: Option<WaitUntil>,
    /// How long to wait, in milliseconds.
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = TimeoutMs::<60_000>::parse_clamped)]
    pub timeout_ms: TimeoutMs<60_000>,
    /// Also send FSAC a request it answers at once, and report whether and how fast it did.
    #[serde(default)]
    #[arg(skip)]
    pub probe: bool,
}

/// What `waitUntil` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum WaitUntil {
    /// The workspace is loaded (or cannot be).
    Ready,
}

impl CommandArguments for StatusArguments {}

pub async fn status(arguments: StatusArguments, mut context: CommandContext) -> Result<Value, CommandError> {
    let timeout = arguments.timeout_ms.as_duration_ms();
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

/// `fslens status` as text: the state, FSAC, the projects and what is not ready.
pub fn render_text(status: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![
        format!("state:      {}", text(&status["state"])),
        format!("reason:     {}", text(&status["reason"])),
        format!("workspace:  {}", text(&status["workspaceRoot"])),
        format!("fsac:       {}", text(&status["fsac"]["command"])),
        format!("fsac pid:   {}", text(&status["fsac"]["pid"])),
    ];
    let loaded = status["projectsLoaded"].as_array().map_or(0, Vec::len);
    lines.push(format!("projects:   {loaded} loaded"));
    if let Some(reason) = status["noProjects"]["message"].as_str() {
        lines.push(format!("no_projects: {reason}"));
    }
    for project in status["projectsLoading"].as_array().into_iter().flatten() {
        lines.push(format!("  loading {}", text(project)));
    }
    let wait = &status["wait"];
    if wait["satisfied"] == json!(false) {
        let why = if wait["timedOut"] == json!(true) { "the timeout passed" } else { "waiting could not help" };
        lines.push(format!("not ready after {} ms: {why}", text(&wait["waitedMs"])));
    }
    if status["unresponsive"] == json!(true) {
        lines.push(format!("unresponsive: FSAC silent for {} ms with requests pending", text(&status["silentForMs"])));
    }
    for project in status["projectsLoaded"].as_array().into_iter().flatten() {
        lines.push(format!("  {}", text(project)));
    }
    for error in status["projectErrors"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  error {}: {} ({})",
            text(&error["code"]),
            text(&error["message"]),
            text(&error["project"])
        ));
    }
    lines.join("\n")
}

/// `fslens status`'s exit code: 3 when FSAC is not running (it crashed or could not start).
pub fn exit_code(status: &Value) -> u8 {
    if status["state"] == "crashed" {
        crate::cli_contract::exit_codes::FSAC_NOT_RUNNING
    } else {
        crate::cli_contract::exit_codes::SUCCESS
    }
}

/// `fslens status` waits for readiness up to the timeout.
impl crate::commands::command_line::CliArguments for StatusArguments {
    fn wait_ms(&self) -> Option<u64> {
        Some(self.timeout_ms.get())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{StatusArguments, WaitUntil};
    use crate::commands::CommandError;
    use crate::commands::params::parse_arguments;

    fn blamed(argument: serde_json::Value) -> String {
        match parse_arguments::<StatusArguments>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn each_bad_argument_is_named() {
        assert_eq!(blamed(json!({"timeoutMs": -1})), "timeoutMs");
        assert_eq!(blamed(json!({"timeoutMs": 3_600_001})), "timeoutMs");
        assert_eq!(blamed(json!({"waitUntil": 1})), "waitUntil");
        assert_eq!(blamed(json!({"waitUntil": "loaded"})), "waitUntil");
        assert_eq!(blamed(json!({"probe": "yes"})), "probe");
        assert_eq!(blamed(json!({"wait": "ready"})), "wait");
        assert_eq!(blamed(json!("ready")), "arguments");
        let accepted: StatusArguments =
            parse_arguments(json!({"waitUntil": "ready", "timeoutMs": 0, "probe": true})).unwrap();
        assert_eq!(
            (accepted.wait_until, accepted.timeout_ms.as_duration_ms(), accepted.probe),
            (Some(WaitUntil::Ready), std::time::Duration::ZERO, true)
        );
        for empty in [serde_json::Value::Null, json!([])] {
            assert_eq!(parse_arguments::<StatusArguments>(empty).unwrap().timeout_ms.get(), 60_000);
        }
    }
}
