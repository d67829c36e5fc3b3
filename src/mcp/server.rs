//! The rmcp `ServerHandler`: lists the catalogue's tools and runs each call against the
//! session — path arguments confined to the workspace first, cancellation forwarded as
//! `$/cancelRequest`, progress sent while a call runs when the client gave a token, and every
//! answer or failure rendered as a bounded `CallToolResult`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;

use crate::commands::params::parse_arguments;
use crate::commands::paths::confine;
use crate::commands::status::{Probe, StatusAnswer, Wait};
use crate::failure::Failure;
use crate::lsp::ext::error_kinds;
use crate::mcp::groups::{ActivateToolsArguments, Activation, ToolGroup, group_of};
use crate::mcp::output::{RenderedOutput, render_answer, render_error};
use crate::mcp::tools::{
    BRIDGE_PAGE_BUDGET, PAGE_BUDGET_ARGUMENTS, PATH_ARGUMENTS, ToolAction, ToolDefinition, catalogue, looks_like_path,
};
use crate::navigation::{NavigateArguments, Navigator, SymbolAtWordArguments};
use crate::proxy::ProxyConfig;
use crate::session_client::{ClientKind, Session};
use crate::session_state::status::{ProjectError, State};

/// Builds the `ProxyConfig` for a session the bridge starts itself (from the user's flags).
pub type ConfigFactory = Arc<dyn Fn() -> anyhow::Result<ProxyConfig> + Send + Sync>;

/// How often a running call reports progress when the client asked for it.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(1000);

/// The MCP server for one workspace.
#[derive(Clone)]
pub struct BridgeServer {
    state: Arc<BridgeState>,
}

struct BridgeState {
    /// The canonical workspace root; every path argument must stay inside it.
    root: PathBuf,
    config_factory: ConfigFactory,
    session: Mutex<Option<Arc<Session>>>,
    /// The catalogue built for the commands the session advertised last (built once, not per
    /// call: every call looks its tool up).
    catalogue: std::sync::Mutex<Option<CachedCatalogue>>,
    /// The tool groups this connection has turned on.
    activation: std::sync::Mutex<Activation>,
    /// Set when the catalogue was rebuilt for a session advertising other commands than the
    /// one the client last listed (a bridge that rejoined a newer session); the next call
    /// tells the client with `tools/list_changed`.
    catalogue_changed: std::sync::atomic::AtomicBool,
}

/// A catalogue and the advertised commands it was built from.
type CachedCatalogue = (Vec<String>, Arc<Vec<ToolDefinition>>);

impl BridgeServer {
    /// A server for `canonical_root`; `session` is the session joined or started beforehand.
    /// `all_tools` lists every tool from the start (for hosts that ignore `tools/list_changed`).
    pub fn new(
        canonical_root: PathBuf,
        config_factory: ConfigFactory,
        session: Option<Session>,
        all_tools: bool,
    ) -> BridgeServer {
        BridgeServer {
            state: Arc::new(BridgeState {
                root: canonical_root,
                config_factory,
                session: Mutex::new(session.map(Arc::new)),
                catalogue: std::sync::Mutex::new(None),
                activation: std::sync::Mutex::new(Activation::new(all_tools)),
                catalogue_changed: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// The current session, joining or starting one when there is none or it ended.
    async fn session(&self) -> Result<Arc<Session>, Failure> {
        let mut slot = self.state.session.lock().await;
        if let Some(session) = slot.as_ref()
            && !session.connection.is_closed()
        {
            return Ok(session.clone());
        }
        if let Some(ended) = slot.take() {
            tracing::info!("the session ended; joining or starting a new one");
            ended.close().await;
        }
        let config = (self.state.config_factory)().map_err(|error| {
            Failure::new(error_kinds::FSAC_UNAVAILABLE, format!("cannot configure FSAC: {error:#}"))
        })?;
        let session =
            Session::join_or_start(&self.state.root, config, ClientKind::McpBridge).await.map_err(|error| {
                Failure::new(error_kinds::SESSION_UNAVAILABLE, format!("cannot reach a session: {error:#}"))
            })?;
        let session = Arc::new(session);
        *slot = Some(session.clone());
        Ok(session)
    }

    /// Ends the bridge's own session, if it started one.
    pub async fn close(&self) {
        if let Some(session) = self.state.session.lock().await.take() {
            session.close().await;
        }
    }

    async fn tool_definitions(&self) -> Arc<Vec<ToolDefinition>> {
        let commands = match self.session().await {
            Ok(session) => session.commands.clone(),
            Err(failure) => {
                tracing::warn!("listing tools without a session: {}", failure.message);
                crate::commands::registry::Command::ids().map(str::to_owned).collect()
            }
        };
        let Ok(mut cached) = self.state.catalogue.lock() else {
            return Arc::new(catalogue(&commands));
        };
        match cached.as_ref() {
            Some((for_commands, tools)) if *for_commands == commands => tools.clone(),
            previous => {
                if previous.is_some() {
                    tracing::info!("the session advertises other commands now; the tool list changed");
                    self.state.catalogue_changed.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                let tools = Arc::new(catalogue(&commands));
                *cached = Some((commands, tools.clone()));
                tools
            }
        }
    }

    /// Runs one tool call to its JSON answer.
    async fn run_tool(
        &self,
        definition: &ToolDefinition,
        mut arguments: Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, Failure> {
        if definition.action == ToolAction::ActivateTools {
            return self.activate_tools(&arguments, context).await;
        }
        confine_path_arguments(&self.state.root, &mut arguments)?;
        let session = self.session().await?;
        match &definition.action {
            ToolAction::Command(command) => {
                // A tool that pages by a budget (its schema says so) gets one, in units and in
                // bytes, that fits the bridge's 40 KiB output.
                for budget in PAGE_BUDGET_ARGUMENTS {
                    let budgeted = definition.input_schema["properties"].get(budget).is_some();
                    if budgeted && !arguments.contains_key(budget) {
                        arguments.insert(budget.into(), json!(BRIDGE_PAGE_BUDGET));
                    }
                }
                execute(&session, command, Value::Object(arguments), context).await
            }
            ToolAction::Status => {
                let status = execute(
                    &session,
                    crate::commands::registry::Command::Status.id(),
                    Value::Object(arguments),
                    context,
                )
                .await?;
                let status = StatusAnswer::deserialize(&status).map_err(|error| {
                    Failure::new(
                        error_kinds::INTERNAL_ERROR,
                        format!("the session's status answer does not read: {error}"),
                    )
                })?;
                Ok(serde_json::to_value(readiness(&status, &session)).unwrap_or_default())
            }
            ToolAction::SymbolAtWord => {
                let arguments: SymbolAtWordArguments = parse_arguments(Value::Object(arguments))?;
                let navigator = Navigator { session: &session, root: &self.state.root, cancelled: context.ct.clone() };
                navigator.symbol_at_word(&arguments).await
            }
            ToolAction::Navigate => {
                let arguments: NavigateArguments = parse_arguments(Value::Object(arguments))?;
                let navigator = Navigator { session: &session, root: &self.state.root, cancelled: context.ct.clone() };
                navigator.run(&arguments).await
            }
            ToolAction::ActivateTools => {
                Err(Failure::new(error_kinds::INTERNAL_ERROR, "activate_tools is handled above"))
            }
        }
    }

    /// `activate_tools`: turns on the groups asked for (by name, or through the tools they
    /// hold) and answers with every group, its tools and whether it is active.
    async fn activate_tools(
        &self,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, Failure> {
        let arguments: ActivateToolsArguments = parse_arguments(Value::Object(arguments.clone()))?;
        let tools = self.tool_definitions().await;
        let mut wanted = Vec::new();
        for name in arguments.groups {
            match ToolGroup::from_name(&name) {
                Some(group) => wanted.push(group),
                None => {
                    let known: Vec<&str> = ToolGroup::ACTIVATABLE.iter().map(|group| group.as_str()).collect();
                    return Err(Failure::invalid_argument(
                        "groups",
                        format!("no tool group `{name}`; the groups are {}", known.join(", ")),
                    ));
                }
            }
        }
        for name in arguments.tools {
            if !tools.iter().any(|tool| tool.name == name) {
                let known: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
                return Err(Failure::invalid_argument(
                    "tools",
                    format!("no tool `{name}`; the tools are {}", known.join(", ")),
                ));
            }
            wanted.push(group_of(&name));
        }
        let mut activated = Vec::new();
        let mut already_active = Vec::new();
        for group in wanted {
            // The core group is always active, so naming it lands in alreadyActive.
            if activated.contains(&group.as_str()) || already_active.contains(&group.as_str()) {
                continue;
            }
            if self.activate(group) {
                activated.push(group.as_str());
            } else {
                already_active.push(group.as_str());
            }
        }
        let list_changed = !activated.is_empty() && self.announce_list_changed(context).await;
        let activation = self.activation();
        let groups: Vec<Value> = [ToolGroup::Core]
            .into_iter()
            .chain(ToolGroup::ACTIVATABLE)
            .map(|group| {
                let names: Vec<&str> =
                    tools.iter().filter(|tool| group_of(&tool.name) == group).map(|tool| tool.name.as_str()).collect();
                json!({
                    "group": group.as_str(),
                    "purpose": group.purpose(),
                    "active": activation.is_active(group),
                    "tools": names,
                })
            })
            .collect();
        let note = if activation.lists_everything() {
            "This bridge lists every tool (--all-tools): nothing needed activating."
        } else if activated.is_empty() {
            "Nothing new was activated. Any tool named here can be called; calling one activates its group."
        } else {
            "The activated tools are listed now (notifications/tools/list_changed was sent) and can be called at once."
        };
        Ok(json!({
            "activated": activated,
            "alreadyActive": already_active,
            "listChanged": list_changed,
            "groups": groups,
            "note": note,
            "via": "bridge",
        }))
    }

    fn activation(&self) -> Activation {
        match self.state.activation.lock() {
            Ok(activation) => activation.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Turns a group on; whether the tool list changed.
    fn activate(&self, group: ToolGroup) -> bool {
        match self.state.activation.lock() {
            Ok(mut activation) => activation.activate(group),
            Err(poisoned) => poisoned.into_inner().activate(group),
        }
    }

    /// Tells the client to list the tools again; whether the notification went out.
    async fn announce_list_changed(&self, context: &RequestContext<RoleServer>) -> bool {
        match context.peer.notify_tool_list_changed().await {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!("cannot send tools/list_changed: {error}");
                false
            }
        }
    }
}

/// Refuses path arguments that leave the workspace (`..`, absolute paths elsewhere, symbolic
/// links out, sibling directories sharing the root's name as a prefix).
fn confine_path_arguments(root: &Path, arguments: &mut Map<String, Value>) -> Result<(), Failure> {
    for name in PATH_ARGUMENTS {
        match arguments.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::String(written)) => {
                if *name == "path" || looks_like_path(written) {
                    confine(root, written, name)?;
                }
            }
            Some(_) => return Err(Failure::invalid_argument(name, "expected a string")),
        }
    }
    Ok(())
}

/// Runs an fslens command in the session, cancellable by the MCP client.
async fn execute(
    session: &Session,
    command: &str,
    argument: Value,
    context: &RequestContext<RoleServer>,
) -> Result<Value, Failure> {
    forward(session, "workspace/executeCommand", json!({ "command": command, "arguments": [argument] }), context).await
}

/// Sends one request to the session; `notifications/cancelled` for the MCP request becomes
/// `$/cancelRequest` for it.
async fn forward(
    session: &Session,
    method: &str,
    params: Value,
    context: &RequestContext<RoleServer>,
) -> Result<Value, Failure> {
    session.call_until(method, params, &context.ct, None).await
}

/// The seed's `set_project` readiness answer from an `fslens.status` answer: the stable
/// booleans `lsp`, `projectOptions`, `symbolIndex`, with `symbolIndexState`/`symbolIndexHint`
/// saying why `symbolIndex` is false, plus FSAC's pid and how the bridge reached the session.
pub fn readiness(status: &StatusAnswer, session: &Session) -> Readiness {
    let state = status.state;
    let lsp = status.fsac.running && matches!(state, State::Loading | State::Ready);
    let project_options = state == State::Ready && !status.projects_loaded.is_empty();
    let symbol_index = project_options && status.documents_analyzed > 0;
    let reason = status.reason.clone().unwrap_or_default();
    let (symbol_index_state, hint) = if symbol_index {
        (
            IndexState::Ready,
            "FSAC has loaded the workspace and analysed documents; empty answers are trustworthy.".to_owned(),
        )
    } else if project_options {
        (
            IndexState::NotWarmed,
            "The workspace is loaded but FSAC has not reported an analysis yet. Not a fault: find and check work; the \
             first check or opened file warms it."
                .to_owned(),
        )
    } else if state == State::Ready {
        (IndexState::BlockedOnProjects, "FSAC is ready but loaded no project: see projectErrors.".to_owned())
    } else {
        let state = state.as_str();
        let why = if reason.is_empty() { state.to_owned() } else { format!("{state}: {reason}") };
        (
            IndexState::BlockedOnLsp,
            format!("FSAC is not ready ({why}). Call status with waitUntil: \"ready\" to wait for it."),
        )
    };
    Readiness {
        lsp,
        project_options,
        symbol_index,
        symbol_index_state,
        symbol_index_hint: hint,
        fsac_pid: status.fsac.pid,
        state,
        reason: status.reason.clone(),
        unresponsive: status.unresponsive,
        workspace_root: status.workspace_root.clone(),
        projects_loaded: status.projects_loaded.clone(),
        projects_loading: status.projects_loading.clone(),
        project_errors: status.project_errors.clone(),
        documents_analyzed: status.documents_analyzed,
        open_documents: status.open_documents.len(),
        pending_requests: status.report.get("pendingRequests").cloned().unwrap_or_default(),
        fsac: ReadinessFsac {
            pid: status.fsac.pid,
            running: status.fsac.running,
            generation: status.fsac.generation,
            command: status.fsac.command.clone(),
            uptime_ms: status.fsac.uptime_ms,
            stderr_tail: status.fsac.stderr_tail.clone(),
        },
        session: ReadinessSession {
            bridge: session.origin.as_str(),
            socket: session.socket.as_ref().map(|path| path.display().to_string()),
            clients: status.session.clients,
            editor_initialized: status.editor.initialized,
            startup_failure: session.startup_failure.clone(),
        },
        wait: status.wait.clone(),
        probe: status.probe.clone(),
        fslens_version: status.fslens_version.clone(),
    }
}

/// The `status` tool's answer: whether each layer an agent relies on is ready, and the
/// session's report members an agent reads.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Readiness {
    pub lsp: bool,
    pub project_options: bool,
    pub symbol_index: bool,
    pub symbol_index_state: IndexState,
    pub symbol_index_hint: String,
    pub fsac_pid: Option<u32>,
    pub state: State,
    pub reason: Option<String>,
    pub unresponsive: bool,
    pub workspace_root: Option<String>,
    pub projects_loaded: Vec<String>,
    pub projects_loading: Vec<String>,
    pub project_errors: Vec<ProjectError>,
    pub documents_analyzed: u64,
    /// How many documents the editor has open.
    pub open_documents: usize,
    /// The session's pending requests by direction, as its owner counts them.
    pub pending_requests: Value,
    pub fsac: ReadinessFsac,
    pub session: ReadinessSession,
    pub wait: Option<Wait>,
    pub probe: Option<Probe>,
    pub fslens_version: Option<String>,
}

/// Why `symbolIndex` is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexState {
    Ready,
    NotWarmed,
    BlockedOnProjects,
    BlockedOnLsp,
}

/// FSAC's process, as the bridge's status shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadinessFsac {
    pub pid: Option<u32>,
    pub running: bool,
    pub generation: u64,
    pub command: Option<String>,
    pub uptime_ms: Option<u64>,
    pub stderr_tail: Option<String>,
}

/// How the bridge reached the session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadinessSession {
    pub bridge: &'static str,
    pub socket: Option<String>,
    pub clients: Option<usize>,
    pub editor_initialized: bool,
    pub startup_failure: Option<String>,
}

/// Sends MCP progress for a running call until dropped.
struct ProgressTicker {
    task: Option<tokio::task::JoinHandle<()>>,
}

impl ProgressTicker {
    fn start(
        token: Option<ProgressToken>,
        peer: Peer<RoleServer>,
        tool: String,
        session: Option<Arc<Session>>,
    ) -> ProgressTicker {
        let Some(token) = token else {
            return ProgressTicker { task: None };
        };
        let task = tokio::spawn(async move {
            let started = Instant::now();
            let mut ticks = 0u32;
            loop {
                tokio::time::sleep(PROGRESS_INTERVAL).await;
                ticks += 1;
                let announced = session.as_ref().and_then(|session| session.connection.announced_status().state);
                let state = announced.map(|state| format!("; FSAC {state}")).unwrap_or_default();
                let message = format!("{tool}: running for {:.1} s{state}", started.elapsed().as_secs_f64());
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(ticks)).with_message(message);
                if peer.notify_progress(progress).await.is_err() {
                    return;
                }
            }
        });
        ProgressTicker { task: Some(task) }
    }
}

impl Drop for ProgressTicker {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

fn to_call_tool_result(output: RenderedOutput, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(output.text)];
    if is_error { CallToolResult::error(content) } else { CallToolResult::success(content) }
}

impl ServerHandler for BridgeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("fslens", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "F# language tools over the editor's live FsAutoComplete session for {}: unsaved buffers \
                                  count, answers say how complete they are. Call `status` first when unsure FSAC is ready; \
                 `activate_tools` lists further tools (navigation, diagnostics, referenced assemblies, edits).",
                self.state.root.display()
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let activation = self.activation();
        let definitions = self.tool_definitions().await;
        // This listing is the news: no list_changed is owed for it any more.
        self.state.catalogue_changed.store(false, std::sync::atomic::Ordering::SeqCst);
        let tools = definitions
            .iter()
            .filter(|definition| activation.is_listed(&definition.name))
            .cloned()
            .map(|definition| {
                let schema = match definition.input_schema {
                    Value::Object(schema) => schema,
                    _ => Map::new(),
                };
                let mut tool = Tool::new(definition.name, definition.description, schema);
                let mut annotations = ToolAnnotations::new();
                annotations.read_only_hint = Some(definition.read_only);
                annotations.open_world_hint = Some(false);
                tool.annotations = Some(annotations);
                tool
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let name = request.name.to_string();
        let Some(definition) = self.tool_definitions().await.iter().find(|tool| tool.name == name).cloned() else {
            return Err(ErrorData::invalid_params(format!("unknown tool {name:?}"), None));
        };
        let group = group_of(&name);
        let newly_activated = self.activate(group);
        if newly_activated {
            // Hidden tools save the agent context; they never fail a call. The first call
            // activates the tool's group, so it is listed from now on.
            tracing::info!("tool {name} called before its group {} was activated", group.as_str());
            self.announce_list_changed(&context).await;
        }
        let session = self.state.session.lock().await.clone();
        let _ticker =
            ProgressTicker::start(context.meta.get_progress_token(), context.peer.clone(), name.clone(), session);
        let arguments = request.arguments.unwrap_or_default();
        let result = match self.run_tool(&definition, arguments, &context).await {
            Ok(answer) => to_call_tool_result(render_answer(&name, answer, started.elapsed()), false),
            Err(failure) => {
                tracing::info!("tool {name} failed: {} ({})", failure.message, failure.error_kind);
                let output = render_error(
                    &name,
                    &failure.error_kind,
                    failure.code,
                    &failure.message,
                    failure.data,
                    started.elapsed(),
                );
                to_call_tool_result(output, true)
            }
        };
        if self.state.catalogue_changed.swap(false, std::sync::atomic::Ordering::SeqCst) {
            self.announce_list_changed(&context).await;
        }
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_catalogue_rebuilt_for_other_commands_is_owed_a_list_changed_until_listed() {
        let root = tempfile::tempdir().unwrap();
        let factory: ConfigFactory = Arc::new(|| Err(anyhow::anyhow!("no FSAC in this test")));
        let server = BridgeServer::new(root.path().to_owned(), factory, None, false);
        // The client last listed a catalogue built for a session advertising fewer commands.
        let older = vec![crate::commands::registry::Command::Status.id().to_owned()];
        *server.state.catalogue.lock().unwrap() = Some((older.clone(), Arc::new(catalogue(&older))));
        let tools = server.tool_definitions().await;
        assert!(tools.iter().any(|tool| tool.name == "find"), "rebuilt for every command");
        assert!(server.state.catalogue_changed.load(std::sync::atomic::Ordering::SeqCst));
        // The same commands again: nothing new is owed.
        server.state.catalogue_changed.store(false, std::sync::atomic::Ordering::SeqCst);
        server.tool_definitions().await;
        assert!(!server.state.catalogue_changed.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[test]
    fn path_arguments_are_confined_and_project_names_pass() {
        let temporary = tempfile::tempdir().unwrap();
        let root = temporary.path().join("app");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::os::unix::fs::symlink(temporary.path(), root.join("out")).unwrap();
        let confined = |arguments: Value| {
            let Value::Object(mut arguments) = arguments else { unreachable!() };
            confine_path_arguments(&root, &mut arguments).map_err(|failure| failure.error_kind)
        };
        assert!(confined(json!({"path": "src/A.fs", "projectPath": "Shipping.Domain", "project": "App"})).is_ok());
        assert!(confined(json!({"projectPath": "src/App.fsproj"})).is_ok());
        for escape in [
            json!({"path": "../x.fs"}),
            json!({"path": "/etc/passwd"}),
            json!({"path": "out/app-other/x.fs"}),
            json!({"projectPath": "../other/Other.fsproj"}),
            json!({"project": "/elsewhere/App.fsproj"}),
        ] {
            assert_eq!(confined(escape.clone()), Err("invalid_path".to_owned()), "{escape}");
        }
        assert_eq!(confined(json!({"path": 3})), Err("invalid_argument".to_owned()));
    }
}
