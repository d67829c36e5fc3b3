//! `fslens.status`: what the session knows about FSAC, its readiness and the editor's
//! documents — optionally after waiting for readiness, and with a liveness probe.

use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::blocking::BlockingReason;
use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::lsp::ext;
use crate::lsp::message::error_codes;
use crate::session_state::status::{ProjectError, State};

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

/// The answer of `fslens.status`: the session's report as its owner (the main loop) wrote it,
/// and what the command adds. The members the command line reads are typed; the rest of the
/// report (FSAC's process, the supervisor, pending requests, open documents…) passes through.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    pub state: State,
    pub reason: Option<String>,
    #[serde(default)]
    pub workspace_root: Option<String>,
    #[serde(default)]
    pub fsac: FsacReport,
    #[serde(default)]
    pub projects_loaded: Vec<String>,
    #[serde(default)]
    pub projects_loading: Vec<String>,
    #[serde(default)]
    pub project_errors: Vec<ProjectError>,
    #[serde(default)]
    pub unresponsive: bool,
    #[serde(default)]
    pub silent_for_ms: Option<u64>,
    /// With `waitUntil`: what the wait achieved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<Wait>,
    /// FSAC is ready with no project because the workspace has none: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_projects: Option<BlockingReason>,
    /// With `probe`: whether FSAC answered a request at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
    /// How many documents FSAC has reported an analysis of.
    #[serde(default)]
    pub documents_analyzed: u64,
    /// The documents the editor has open, with the version FSAC last analysed.
    #[serde(default)]
    pub open_documents: Vec<OpenDocument>,
    /// The session's socket and clients.
    #[serde(default)]
    pub session: SessionReport,
    /// Whether an editor initialized the session.
    #[serde(default)]
    pub editor: EditorReport,
    #[serde(default)]
    pub fslens_version: Option<String>,
    /// The rest of the session's report, as written.
    #[serde(flatten)]
    pub report: Map<String, Value>,
}

/// The report's `fsac` member: the command line and the process; the rest passes through.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FsacReport {
    pub command: Option<String>,
    pub pid: Option<u32>,
    #[serde(default)]
    pub running: bool,
    /// How many FSAC processes the session has started.
    #[serde(default)]
    pub generation: u64,
    #[serde(default)]
    pub uptime_ms: Option<u64>,
    /// The end of FSAC's standard error, when it wrote any.
    #[serde(default)]
    pub stderr_tail: Option<String>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// An open document of `openDocuments`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenDocument {
    pub uri: String,
    pub version: Option<i64>,
    pub analyzed_version: Option<i64>,
}

/// The report's `session` member: the session socket and how many clients joined it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    pub socket: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<usize>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// The report's `editor` member.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorReport {
    #[serde(default)]
    pub initialized: bool,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// `wait`: waited `until` ready, whether it got there, for how long.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Wait {
    pub until: WaitUntil,
    pub satisfied: bool,
    pub waited_ms: u64,
    pub timed_out: bool,
}

/// `probe`: FSAC answered (any JSON-RPC answer, even "method not found") and how fast, or why not.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub alive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_trip_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
}

impl StatusAnswer {
    /// The session's report as the answer's members.
    fn of(report: Value) -> Result<StatusAnswer, CommandError> {
        StatusAnswer::deserialize(report)
            .map_err(|error| CommandError::Internal(format!("the session's status report does not read: {error}")))
    }
}

pub async fn status(arguments: StatusArguments, mut context: CommandContext) -> Result<StatusAnswer, CommandError> {
    let timeout = arguments.timeout_ms.as_duration_ms();
    let deadline = tokio::time::Instant::now() + timeout;
    let started = Instant::now();

    let (mut snapshot, mut report) = context.status_report().await?;
    let mut wait = None;
    if let Some(until) = arguments.wait_until {
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
            (snapshot, report) = context.status_report().await?;
        }
        wait = Some(Wait {
            until,
            satisfied,
            waited_ms: started.elapsed().as_millis() as u64,
            timed_out: !satisfied && tokio::time::Instant::now() >= deadline,
        });
    }
    let mut answer = StatusAnswer::of(report)?;
    answer.wait = wait;
    // FSAC "ready with 0 projects" reads as a loaded workspace; say that there is none. The
    // project model is read only when FSAC lists no project (the common case costs nothing).
    if snapshot.projects_loaded.is_empty()
        && let Ok(root) = context.workspace_root()
    {
        let model = crate::commands::load_workspace_model(root).await?;
        answer.no_projects = crate::commands::no_projects(&model);
    }
    if arguments.probe {
        let probe_started = Instant::now();
        let reply = context.backend_request(ext::backend_requests::PING, Value::Object(Map::new()), deadline).await;
        let round_trip = probe_started.elapsed().as_secs_f64() * 1000.0;
        let alive =
            Probe { alive: true, round_trip_ms: Some(round_trip), error: None, error_data: None, timed_out: None };
        answer.probe = Some(match reply {
            // Any JSON-RPC answer, including "method not found", proves FSAC is responsive.
            Ok(Ok(_)) => alive,
            Ok(Err(error)) if error.code == error_codes::METHOD_NOT_FOUND => alive,
            Ok(Err(error)) => Probe {
                alive: false,
                round_trip_ms: None,
                error: Some(error.message),
                error_data: Some(error.data.unwrap_or(Value::Null)),
                timed_out: None,
            },
            Err(CommandError::Timeout) => Probe {
                alive: false,
                round_trip_ms: None,
                error: Some("no answer before the deadline".to_owned()),
                error_data: None,
                timed_out: Some(true),
            },
            Err(error) => return Err(error),
        });
    }
    Ok(answer)
}

/// FSAC not running (it crashed or could not start) is [`Outcome::BackendDown`]; every other
/// status is definite.
///
/// [`Outcome::BackendDown`]: crate::commands::outcome::Outcome::BackendDown
impl crate::commands::outcome::Answered for StatusAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        if self.state == State::Crashed {
            crate::commands::outcome::Outcome::BackendDown
        } else {
            crate::commands::outcome::Outcome::Definite
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{StatusAnswer, StatusArguments, Wait, WaitUntil};
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

    #[test]
    fn a_session_report_reads_as_the_answer_and_back_unchanged() {
        let report = json!({
            "state": "loading", "reason": null, "automaticWorkspaceInit": true, "workspaceLoadsFinished": 0,
            "projectsLoaded": ["A.fsproj"], "projectsLoading": ["B.fsproj"],
            "projectErrors": [{"project": "C.fsproj", "code": 100, "message": "Project not restored"}],
            "progress": [], "fslensVersion": "0.1.0", "workspaceRoot": "/w",
            "fsac": {"command": "fsautocomplete", "source": "flag", "pid": 42, "running": true, "generation": 1,
                     "uptimeMs": 5, "stderrTail": null, "residentBytes": 1000},
            "openDocuments": [], "editor": {"initialized": true, "applyEdit": false}, "documentsAnalyzed": 0,
            "fslensDocuments": 0, "pendingRequests": {"editorToFsac": 0}, "uptimeMs": 9,
            "supervisor": {"crashes": 0}, "unresponsive": false, "session": {"socket": null}, "silentForMs": 3,
        });
        let mut answer = StatusAnswer::of(report.clone()).unwrap();
        assert_eq!(serde_json::to_value(&answer).unwrap(), report);
        answer.wait = Some(Wait { until: WaitUntil::Ready, satisfied: false, waited_ms: 7, timed_out: true });
        let sent = serde_json::to_value(&answer).unwrap();
        assert_eq!(sent["wait"], json!({"until": "ready", "satisfied": false, "waitedMs": 7, "timedOut": true}));
        let text = crate::cli::status::render_text(&answer);
        assert!(text.contains("fsac pid:   42") && text.contains("  loading B.fsproj"), "{text}");
        assert!(text.contains("not ready after 7 ms: the timeout passed"), "{text}");
        assert!(text.contains("  error 100: Project not restored (C.fsproj)"), "{text}");
    }
}
