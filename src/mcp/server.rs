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
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;

use crate::commands::CommandError;
use crate::commands::paths::{confine, display_relative};
use crate::commands::registry::Command;
use crate::lsp::ext;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::ResponseError;
use crate::mcp::groups::{Activation, ToolGroup, group_of};
use crate::mcp::navigation::{enrich_locations, hover_text, locate_word};
use crate::mcp::output::{RenderedOutput, render_answer, render_error};
use crate::mcp::session::{Session, SessionCallError};
use crate::mcp::tools::{
    BRIDGE_PAGE_BUDGET, PAGE_BUDGET_ARGUMENT, PATH_ARGUMENTS, ToolAction, ToolDefinition, catalogue, looks_like_path,
};
use crate::proxy::ProxyConfig;

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

/// A failure of a tool call, rendered as a `CallToolResult` with `is_error`.
#[derive(Debug)]
struct ToolFailure {
    kind: String,
    code: Option<i64>,
    message: String,
    data: Option<Value>,
}

impl ToolFailure {
    fn new(kind: &str, message: impl Into<String>) -> ToolFailure {
        ToolFailure { kind: kind.to_owned(), code: None, message: message.into(), data: None }
    }

    fn invalid_argument(argument: &str, message: impl Into<String>) -> ToolFailure {
        ToolFailure::from(CommandError::invalid_argument(argument, message))
    }
}

impl From<CommandError> for ToolFailure {
    fn from(error: CommandError) -> ToolFailure {
        ToolFailure {
            kind: error.kind().to_owned(),
            code: Some(error.code()),
            message: error.to_string(),
            data: Some(error.data()),
        }
    }
}

impl From<ResponseError> for ToolFailure {
    fn from(error: ResponseError) -> ToolFailure {
        let kind = error
            .data
            .as_ref()
            .and_then(|data| data.get("errorKind"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                if error.code == crate::lsp::message::error_codes::REQUEST_CANCELLED {
                    error_kinds::CANCELLED.to_owned()
                } else {
                    error_kinds::SESSION_ERROR.to_owned()
                }
            });
        ToolFailure { kind, code: Some(error.code), message: error.message, data: error.data }
    }
}

impl From<SessionCallError> for ToolFailure {
    fn from(error: SessionCallError) -> ToolFailure {
        match error {
            SessionCallError::Closed => ToolFailure::new(
                error_kinds::SESSION_CLOSED,
                "the fslens session ended (was the editor closed?); the next call joins or starts a new one",
            ),
            SessionCallError::Cancelled { confirmed } => ToolFailure {
                kind: error_kinds::CANCELLED.to_owned(),
                code: Some(crate::lsp::message::error_codes::REQUEST_CANCELLED),
                message: error.to_string(),
                data: Some(json!({ "errorKind": error_kinds::CANCELLED, "sessionConfirmed": confirmed })),
            },
        }
    }
}

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
    async fn session(&self) -> Result<Arc<Session>, ToolFailure> {
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
            ToolFailure::new(error_kinds::FSAC_UNAVAILABLE, format!("cannot configure FSAC: {error:#}"))
        })?;
        let session = Session::join_or_start(&self.state.root, config).await.map_err(|error| {
            ToolFailure::new(error_kinds::SESSION_UNAVAILABLE, format!("cannot reach a session: {error:#}"))
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
                ext::commands::ALL.iter().map(|command| (*command).to_owned()).collect()
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
    ) -> Result<Value, ToolFailure> {
        if definition.action == ToolAction::ActivateTools {
            return self.activate_tools(&arguments, context).await;
        }
        confine_path_arguments(&self.state.root, &mut arguments)?;
        let session = self.session().await?;
        match &definition.action {
            ToolAction::Command(command) => {
                // A tool that pages by a character budget (its schema says so) gets one that
                // fits the bridge's 40 KiB output.
                let budgeted = definition.input_schema["properties"].get(PAGE_BUDGET_ARGUMENT).is_some();
                if budgeted && !arguments.contains_key(PAGE_BUDGET_ARGUMENT) {
                    arguments.insert(PAGE_BUDGET_ARGUMENT.into(), json!(BRIDGE_PAGE_BUDGET));
                }
                if Command::from_id(command).is_some_and(Command::pages_by_max_results) {
                    return execute_page_that_fits(&session, command, arguments, context).await;
                }
                execute(&session, command, Value::Object(arguments), context).await
            }
            ToolAction::Status => {
                let status = execute(&session, ext::commands::STATUS, Value::Object(arguments), context).await?;
                Ok(readiness(&status, &session))
            }
            ToolAction::SymbolAtWord => self.symbol_at_word(&session, &arguments, context).await,
            ToolAction::Navigate => self.navigate(&session, &arguments, context).await,
            ToolAction::ActivateTools => {
                Err(ToolFailure::new(error_kinds::INTERNAL_ERROR, "activate_tools is handled above"))
            }
        }
    }

    /// `activate_tools`: turns on the groups asked for (by name, or through the tools they
    /// hold) and answers with every group, its tools and whether it is active.
    async fn activate_tools(
        &self,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolFailure> {
        let tools = self.tool_definitions().await;
        let mut wanted = Vec::new();
        for name in string_list(arguments, "groups")? {
            match ToolGroup::from_name(&name) {
                Some(group) => wanted.push(group),
                None => {
                    let known: Vec<&str> = ToolGroup::ACTIVATABLE.iter().map(|group| group.as_str()).collect();
                    return Err(ToolFailure::invalid_argument(
                        "groups",
                        format!("no tool group `{name}`; the groups are {}", known.join(", ")),
                    ));
                }
            }
        }
        for name in string_list(arguments, "tools")? {
            if !tools.iter().any(|tool| tool.name == name) {
                let known: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
                return Err(ToolFailure::invalid_argument(
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

    async fn symbol_at_word(
        &self,
        session: &Session,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolFailure> {
        let deadline = lsp_tool_deadline(arguments)?;
        let (path, uri) = self.document(arguments)?;
        let line = required_integer(arguments, "line")?;
        let word = arguments
            .get("word")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolFailure::invalid_argument("word", "required: the identifier on the line"))?;
        let occurrence = optional_integer(arguments, "occurrence")?.unwrap_or(1).max(1);
        let text = crate::source_files::read_regular_text(&path).map_err(|error| {
            ToolFailure::new(error_kinds::INVALID_PATH, format!("cannot read {}: {error}", path.display()))
        })?;
        let position = locate_word(&text, line, word, occurrence)
            .map_err(|message| ToolFailure::invalid_argument("word", message))?;
        let params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": position.line, "character": position.character },
        });
        let (hover, definition) = tokio::join!(
            forward_until(session, "textDocument/hover", params.clone(), context, Some(deadline)),
            forward_until(session, "textDocument/definition", params, context, Some(deadline)),
        );
        let hover = hover?;
        let mut definition = definition?;
        enrich_locations(&mut definition, &self.state.root);
        let mut answer = json!({
            "path": display_relative(&self.state.root, &path),
            "word": word,
            "line": position.line,
            "character": position.character,
            "occurrence": occurrence,
            "hover": hover_text(&hover),
            "definition": definition,
            "textSource": "disk",
            "via": "fsac",
        });
        if let Some(asked) = position.moved_from_line {
            answer["note"] = json!(format!(
                "`{word}` is not on line {asked}; it was found on line {} (the nearest line that has it)",
                position.line
            ));
        }
        Ok(answer)
    }

    async fn navigate(
        &self,
        session: &Session,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolFailure> {
        let deadline = lsp_tool_deadline(arguments)?;
        let operation = arguments.get("operation").and_then(Value::as_str).ok_or_else(|| {
            ToolFailure::invalid_argument("operation", format!("required: {}", NAVIGATE_OPERATIONS.join(" | ")))
        })?;
        let (method, params) = match operation {
            "workspaceSymbol" => {
                let query = arguments
                    .get("query")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ToolFailure::invalid_argument("query", "required for workspaceSymbol"))?;
                ("workspace/symbol", json!({ "query": query }))
            }
            "documentSymbol" => {
                let (_, uri) = self.document(arguments)?;
                ("textDocument/documentSymbol", json!({ "textDocument": { "uri": uri } }))
            }
            "definition" | "references" | "hover" | "typeDefinition" | "implementation" | "signatureHelp"
            | "incomingCalls" | "outgoingCalls" | "typeHierarchy" => {
                let (path, uri) = self.document(arguments)?;
                let line = required_integer(arguments, "line")?;
                let character = match (optional_integer(arguments, "character")?, arguments.get("word")) {
                    (Some(character), _) => character,
                    (None, Some(Value::String(word))) => {
                        let occurrence = optional_integer(arguments, "occurrence")?.unwrap_or(1).max(1);
                        let text = crate::source_files::read_regular_text(&path).map_err(|error| {
                            ToolFailure::new(
                                error_kinds::INVALID_PATH,
                                format!("cannot read {}: {error}", path.display()),
                            )
                        })?;
                        let position = locate_word(&text, line, word, occurrence)
                            .map_err(|message| ToolFailure::invalid_argument("word", message))?;
                        if position.line != line {
                            return Err(ToolFailure::invalid_argument(
                                "word",
                                format!("`{word}` is not on line {line} (it is on line {})", position.line),
                            ));
                        }
                        position.character
                    }
                    _ => return Err(ToolFailure::invalid_argument("character", "give `character` or `word`")),
                };
                // The operations that need a symbol refuse a keyword, a string or a comment with a
                // typed error rather than FSAC's empty answer.
                if matches!(
                    operation,
                    "typeDefinition" | "implementation" | "incomingCalls" | "outgoingCalls" | "typeHierarchy"
                ) && let Ok(text) = crate::source_files::read_regular_text(&path)
                    && let Some(reason) =
                        crate::commands::rename::non_symbol_at(&text, &path, line as u32, character as u32)
                {
                    return Err(no_symbol_failure(reason, &text, line));
                }
                let mut params =
                    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });
                let method = match operation {
                    "definition" => "textDocument/definition",
                    "hover" => "textDocument/hover",
                    "typeDefinition" => "textDocument/typeDefinition",
                    "implementation" => "textDocument/implementation",
                    "signatureHelp" => "textDocument/signatureHelp",
                    "typeHierarchy" => {
                        return self.type_hierarchy(session, params, context, deadline).await;
                    }
                    "incomingCalls" | "outgoingCalls" => {
                        return self.calls(session, arguments, operation, params, context, deadline, &path).await;
                    }
                    _ => {
                        let include = arguments.get("includeDeclaration").and_then(Value::as_bool).unwrap_or(true);
                        params["context"] = json!({ "includeDeclaration": include });
                        "textDocument/references"
                    }
                };
                (method, params)
            }
            other => {
                return Err(ToolFailure::invalid_argument(
                    "operation",
                    format!("`{other}` is not one of {}", NAVIGATE_OPERATIONS.join(", ")),
                ));
            }
        };
        let mut result = forward_until(session, method, params, context, Some(deadline)).await?;
        enrich_locations(&mut result, &self.state.root);
        let mut answer = json!({ "operation": operation, "method": method, "via": "fsac" });
        if operation == "hover" {
            answer["text"] = json!(hover_text(&result));
        }
        if let Some(items) = result.as_array() {
            answer["count"] = json!(items.len());
        }
        answer["result"] = result;
        Ok(answer)
    }

    /// `incomingCalls` / `outgoingCalls`: FSAC's `prepareCallHierarchy` at the position, then
    /// the calls of its item, one row per call site with the caller's (or callee's) name,
    /// kind, file, line and line text, paged by `offset` + `maxResults`.
    #[allow(clippy::too_many_arguments)]
    async fn calls(
        &self,
        session: &Session,
        arguments: &Map<String, Value>,
        operation: &str,
        params: Value,
        context: &RequestContext<RoleServer>,
        deadline: (tokio::time::Instant, Duration),
        path: &Path,
    ) -> Result<Value, ToolFailure> {
        let max_results = optional_integer(arguments, "maxResults")?.unwrap_or(100).clamp(1, 1000);
        let offset = optional_integer(arguments, "offset")?.unwrap_or(0);
        let prepared =
            forward_until(session, "textDocument/prepareCallHierarchy", params.clone(), context, Some(deadline))
                .await?;
        let Some(item) = prepared.as_array().and_then(|items| items.first()).cloned() else {
            let line = params["position"]["line"].as_u64().unwrap_or(0) as usize;
            let text = crate::source_files::read_regular_text(path).unwrap_or_default();
            return Err(no_symbol_failure("no_symbol", &text, line));
        };
        let method =
            if operation == "incomingCalls" { "callHierarchy/incomingCalls" } else { "callHierarchy/outgoingCalls" };
        let answer = forward_until(session, method, json!({ "item": item }), context, Some(deadline)).await?;
        let mut rows = Vec::new();
        for call in answer.as_array().into_iter().flatten() {
            let other = if operation == "incomingCalls" { &call["from"] } else { &call["to"] };
            // Incoming call sites are in the caller's file; outgoing ones in the item's.
            let site_uri = if operation == "incomingCalls" { &other["uri"] } else { &item["uri"] };
            for range in call["fromRanges"].as_array().into_iter().flatten() {
                rows.push(json!({
                    "name": other["name"],
                    "kind": symbol_kind_name(other["kind"].as_u64().unwrap_or(0)),
                    "declaration": { "uri": other["uri"], "range": other["selectionRange"] },
                    "uri": site_uri,
                    "range": range,
                }));
            }
        }
        let total = rows.len();
        let mut page: Vec<Value> = rows.into_iter().skip(offset).take(max_results).collect();
        let next = offset + page.len();
        let mut page_value = Value::Array(std::mem::take(&mut page));
        enrich_locations(&mut page_value, &self.state.root);
        let mut item = item;
        enrich_locations(&mut item, &self.state.root);
        let direction = if operation == "incomingCalls" { "callers" } else { "callees" };
        Ok(json!({
            "operation": operation,
            "method": method,
            "via": "fsac",
            "item": item,
            "direction": direction,
            "totalCalls": total,
            "offset": offset,
            "count": page_value.as_array().map_or(0, Vec::len),
            "nextOffset": if next < total { json!(next) } else { Value::Null },
            "calls": page_value,
        }))
    }

    /// `typeHierarchy`, which FSAC lacks: the type at the position (FSAC's definition), its
    /// supertypes (the `inherit` and `interface` lines of its declaration, each resolved by FSAC's
    /// definition) and its subtypes (every `interface T`, `inherit T` and `new T` in the
    /// workspace's F# files whose `T` FSAC resolves to this type's declaration).
    async fn type_hierarchy(
        &self,
        session: &Session,
        params: Value,
        context: &RequestContext<RoleServer>,
        deadline: (tokio::time::Instant, Duration),
    ) -> Result<Value, ToolFailure> {
        let definition = |value: Value| -> Option<(String, u64, u64)> {
            let location = if value.is_array() { value.get(0).cloned()? } else { value };
            let uri = location.get("uri").or_else(|| location.get("targetUri"))?.as_str()?.to_owned();
            let range = location.get("range").or_else(|| location.get("targetSelectionRange"))?;
            Some((uri, range["start"]["line"].as_u64()?, range["start"]["character"].as_u64()?))
        };
        let asked = forward_until(session, "textDocument/definition", params.clone(), context, Some(deadline)).await?;
        let Some((type_uri, type_line, type_character)) = definition(asked) else {
            let line = params["position"]["line"].as_u64().unwrap_or(0) as usize;
            let path = params["textDocument"]["uri"].as_str().and_then(crate::uri::uri_to_path).unwrap_or_default();
            let text = crate::source_files::read_regular_text(&path).unwrap_or_default();
            return Err(no_symbol_failure("no_symbol", &text, line));
        };
        let type_path = crate::uri::uri_to_path(&type_uri).unwrap_or_default();
        let type_text = crate::source_files::read_regular_text(&type_path).unwrap_or_default();
        let type_lines: Vec<&str> = type_text.lines().collect();
        let header = type_lines.get(type_line as usize).copied().unwrap_or_default();
        if !header.trim_start().starts_with("type ") && !header.trim_start().starts_with("and ") {
            return Err(ToolFailure::invalid_argument(
                "line",
                format!("the symbol here is declared by {:?}, which is not a type", header.trim()),
            ));
        }
        let name = identifier_at_column(header, type_character as usize).unwrap_or_default();
        let indent = |line: &str| line.len() - line.trim_start().len();
        // Supertypes: the declaration's own `inherit X` / `interface X` lines.
        let mut supertypes = Vec::new();
        for (number, line) in type_lines.iter().enumerate().skip(type_line as usize + 1) {
            if !line.trim().is_empty() && indent(line) <= indent(header) {
                break;
            }
            if let Some((character, _)) = named_after_keyword(line, &["inherit", "interface"]) {
                let at = json!({ "textDocument": { "uri": type_uri }, "position": { "line": number, "character": character } });
                let resolved = forward_until(session, "textDocument/definition", at, context, Some(deadline)).await?;
                let mut row = json!({ "uri": type_uri, "range": line_range(number, character, line), "via": "fsac" });
                if let Some((uri, line, character)) = definition(resolved) {
                    row["declaration"] = json!({ "uri": uri, "range": { "start": { "line": line, "character": character }, "end": { "line": line, "character": character } } });
                }
                supertypes.push(row);
            }
        }
        // Subtypes: candidates by text in every F# file of the workspace, each confirmed.
        let root = self.state.root.clone();
        let files = tokio::task::spawn_blocking(move || {
            crate::workspace::load_workspace(&root).map(|model| model.files_to_index()).unwrap_or_default()
        })
        .await
        .unwrap_or_default();
        let mut subtypes = Vec::new();
        let mut candidates = 0usize;
        for file in files {
            let Ok(text) = crate::source_files::read_regular_text(&file) else { continue };
            if name.is_empty() || !text.contains(&name) {
                continue;
            }
            let Some(uri) = crate::uri::path_to_uri(&file) else { continue };
            for (number, line) in text.lines().enumerate() {
                let Some((character, found)) = named_after_keyword(line, &["inherit", "interface", "new"]) else {
                    continue;
                };
                if found != name {
                    continue;
                }
                candidates += 1;
                let at =
                    json!({ "textDocument": { "uri": uri }, "position": { "line": number, "character": character } });
                let resolved = forward_until(session, "textDocument/definition", at, context, Some(deadline)).await?;
                if definition(resolved).is_some_and(|(uri, line, _)| {
                    crate::uri::uri_to_path(&uri) == Some(type_path.clone()) && line == type_line
                }) {
                    let kind = if line.contains("new ") { "objectExpression" } else { "type" };
                    subtypes.push(json!({ "uri": uri, "range": line_range(number, character, line), "kind": kind, "via": "fsac" }));
                }
            }
        }
        let mut answer = json!({
            "operation": "typeHierarchy",
            "via": "fsac+syntax",
            "type": { "name": name, "uri": type_uri, "range": line_range(type_line as usize, type_character as usize, header) },
            "supertypes": supertypes,
            "subtypes": subtypes,
            "candidatesChecked": candidates,
            // Candidates come from lines of text, so a subtype named through an abbreviation
            // or split over lines is not seen: the answer never claims to be complete.
            "complete": false,
            "coverage": "every F# file of the workspace's projects, read from disk: its interface, inherit and object-expression lines naming the type, each confirmed by FSAC's definition; a type named through an abbreviation or on a line of its own is not seen",
        });
        enrich_locations(&mut answer, &self.state.root);
        Ok(answer)
    }

    /// The confined path and URI of the `path` argument.
    fn document(&self, arguments: &Map<String, Value>) -> Result<(PathBuf, String), ToolFailure> {
        let written = arguments
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolFailure::invalid_argument("path", "required: a file of the workspace"))?;
        let path = confine(&self.state.root, written, "path")?;
        let uri = crate::uri::path_to_uri(&path)
            .ok_or_else(|| ToolFailure::invalid_argument("path", format!("cannot make a URI of {}", path.display())))?;
        Ok((path, uri))
    }
}

/// Refuses path arguments that leave the workspace (`..`, absolute paths elsewhere, symbolic
/// links out, sibling directories sharing the root's name as a prefix).
fn confine_path_arguments(root: &Path, arguments: &mut Map<String, Value>) -> Result<(), ToolFailure> {
    for name in PATH_ARGUMENTS {
        match arguments.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::String(written)) => {
                if *name == "path" || looks_like_path(written) {
                    confine(root, written, name)?;
                }
            }
            Some(_) => return Err(ToolFailure::invalid_argument(name, "expected a string")),
        }
    }
    Ok(())
}

/// An optional array-of-strings argument.
fn string_list(arguments: &Map<String, Value>, name: &str) -> Result<Vec<String>, ToolFailure> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| ToolFailure::invalid_argument(name, "expected strings"))
            })
            .collect(),
        Some(_) => Err(ToolFailure::invalid_argument(name, "expected an array of strings")),
    }
}

fn required_integer(arguments: &Map<String, Value>, name: &str) -> Result<usize, ToolFailure> {
    optional_integer(arguments, name)?.ok_or_else(|| ToolFailure::invalid_argument(name, "required: a 0-based integer"))
}

fn optional_integer(arguments: &Map<String, Value>, name: &str) -> Result<Option<usize>, ToolFailure> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|number| usize::try_from(number).ok())
            .map(Some)
            .ok_or_else(|| ToolFailure::invalid_argument(name, "expected a non-negative integer")),
    }
}

/// Runs a paged command (`Command::pages_by_max_results`: its pages are planned against a UTF-16
/// budget, the bridge passes 30,000 units, yet a page of mostly non-ASCII text can still exceed
/// the bridge's 40 KiB of bytes, and cutting rows from it would break its cursor), halving `maxResults` while the page would not fit the output limit
/// (until it fits or is one row); the answer then says so in `maxResultsLowered`. Every page
/// returned was measured: an unmeasured one could be cut by the output limit, and its cursor
/// would then skip the rows cut.
async fn execute_page_that_fits(
    session: &Session,
    command: &str,
    mut arguments: Map<String, Value>,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ToolFailure> {
    let asked = arguments.get("maxResults").and_then(Value::as_u64).unwrap_or(80);
    let mut max_results = asked;
    loop {
        let mut answer = execute(session, command, Value::Object(arguments.clone()), context).await?;
        let size = serde_json::to_vec(&answer).map_or(usize::MAX, |bytes| bytes.len());
        if size + 1024 <= crate::mcp::output::OUTPUT_LIMIT_BYTES || max_results <= 1 {
            if max_results != asked {
                answer["maxResultsLowered"] = json!({
                    "from": asked,
                    "to": max_results,
                    "reason": "the page did not fit the 40 KiB tool output; continue with nextCursor",
                });
            }
            return Ok(answer);
        }
        max_results = (max_results / 2).max(1);
        arguments.insert("maxResults".into(), json!(max_results));
    }
}

/// Runs an fslens command in the session, cancellable by the MCP client.
async fn execute(
    session: &Session,
    command: &str,
    argument: Value,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ToolFailure> {
    forward(session, "workspace/executeCommand", json!({ "command": command, "arguments": [argument] }), context).await
}

/// Sends one request to the session; `notifications/cancelled` for the MCP request becomes
/// `$/cancelRequest` for it.
async fn forward(
    session: &Session,
    method: &str,
    params: Value,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ToolFailure> {
    forward_until(session, method, params, context, None).await
}

/// The identifier starting at or spanning the byte `column` of `line`.
fn identifier_at_column(line: &str, column: usize) -> Option<String> {
    let is_identifier = |character: char| character.is_alphanumeric() || character == '_' || character == '\'';
    let start = line[..column.min(line.len())].rfind(|c: char| !is_identifier(c)).map_or(0, |at| at + 1);
    let end = line[start..].find(|c: char| !is_identifier(c)).map_or(line.len(), |at| start + at);
    (end > start).then(|| line[start..end].to_owned())
}

/// The UTF-16 column and text of the (last dotted segment of the) name after the first of
/// `keywords` on `line`, as in `interface IShape with`, `inherit Base()`, `{ new IShape with`.
fn named_after_keyword(line: &str, keywords: &[&str]) -> Option<(usize, String)> {
    let code = line.split("//").next().unwrap_or(line);
    for keyword in keywords {
        let mut from = 0;
        while let Some(found) = code[from..].find(keyword) {
            let at = from + found;
            from = at + keyword.len();
            let before_ok = code[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            let rest = &code[at + keyword.len()..];
            if !before_ok || !rest.starts_with(' ') {
                continue;
            }
            let trimmed = rest.trim_start();
            let name_start = at + keyword.len() + (rest.len() - trimmed.len());
            let name: String =
                trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.' || *c == '\'').collect();
            let name = name.trim_end_matches('.');
            if name.is_empty() {
                continue;
            }
            let last = name.rsplit('.').next().unwrap_or(name);
            let last_start = name_start + name.len() - last.len();
            return Some((line[..last_start].encode_utf16().count(), last.to_owned()));
        }
    }
    None
}

fn line_range(line: usize, character: usize, text: &str) -> Value {
    let end = character + identifier_at_column(text, character).map_or(0, |name| name.encode_utf16().count());
    json!({ "start": { "line": line, "character": character }, "end": { "line": line, "character": end } })
}

/// `no_symbol_at_position` for `navigate`, with the reason and the line's text.
fn no_symbol_failure(reason: &str, text: &str, line: usize) -> ToolFailure {
    let line_text = text.lines().nth(line).unwrap_or_default();
    let message = match reason {
        "no_symbol" => "FSAC found no function, member, value or type at this position".to_owned(),
        other => format!("the position is on a {other}, not on a symbol"),
    };
    ToolFailure {
        kind: error_kinds::NO_SYMBOL_AT_POSITION.to_owned(),
        code: Some(crate::lsp::message::error_codes::INVALID_PARAMS),
        message,
        data: Some(json!({
            "errorKind": error_kinds::NO_SYMBOL_AT_POSITION, "argument": "line", "reason": reason, "lineText": line_text,
        })),
    }
}

/// The operations of the `navigate` tool.
pub const NAVIGATE_OPERATIONS: &[&str] = &[
    "definition",
    "references",
    "hover",
    "typeDefinition",
    "implementation",
    "signatureHelp",
    "incomingCalls",
    "outgoingCalls",
    "typeHierarchy",
    "documentSymbol",
    "workspaceSymbol",
];

/// The LSP `SymbolKind` number as its name (`function`, `method`, …).
fn symbol_kind_name(kind: u64) -> &'static str {
    match kind {
        1 => "file",
        2 => "module",
        3 => "namespace",
        5 => "class",
        6 => "method",
        7 => "property",
        8 => "field",
        9 => "constructor",
        10 => "enum",
        11 => "interface",
        12 => "function",
        13 => "variable",
        14 => "constant",
        22 => "enumMember",
        23 => "struct",
        24 => "event",
        _ => "other",
    }
}

/// The default `timeoutMs` of the LSP-based tools (`symbol_at_word`, `navigate`).
const LSP_TOOL_TIMEOUT_MS: u64 = 30_000;

/// The deadline an LSP-based tool's `timeoutMs` sets (default 30 s), with the time it allows.
fn lsp_tool_deadline(arguments: &Map<String, Value>) -> Result<(tokio::time::Instant, Duration), ToolFailure> {
    let allowed = crate::commands::arguments::timeout_argument(arguments, LSP_TOOL_TIMEOUT_MS)?;
    Ok((tokio::time::Instant::now() + allowed, allowed))
}

/// [`forward`], given up at `deadline` when there is one: the request is then cancelled in the
/// session (and so in FSAC) and the tool fails with `timeout`, naming the method and the time
/// allowed.
async fn forward_until(
    session: &Session,
    method: &str,
    params: Value,
    context: &RequestContext<RoleServer>,
    deadline: Option<(tokio::time::Instant, Duration)>,
) -> Result<Value, ToolFailure> {
    let cancelled = context.ct.clone();
    let give_up = async move {
        match deadline {
            Some((at, _)) => tokio::select! {
                () = cancelled.cancelled_owned() => {}
                () = tokio::time::sleep_until(at) => {}
            },
            None => cancelled.cancelled_owned().await,
        }
    };
    match session.connection.call_cancellable(method, params, give_up).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) => Err(ToolFailure::from(error)),
        Err(SessionCallError::Cancelled { confirmed }) if !context.ct.is_cancelled() => {
            let allowed_ms = deadline.map_or(0, |(_, allowed)| allowed.as_millis() as u64);
            Err(ToolFailure {
                kind: error_kinds::TIMEOUT.to_owned(),
                code: None,
                message: format!(
                    "FSAC did not answer {method} within timeoutMs = {allowed_ms}; the request was cancelled (is FSAC still loading? see status)"
                ),
                data: Some(
                    json!({ "errorKind": error_kinds::TIMEOUT, "timeoutMs": allowed_ms, "sessionConfirmed": confirmed }),
                ),
            })
        }
        Err(error) => Err(ToolFailure::from(error)),
    }
}

/// The seed's `set_project` readiness answer from an `fslens.status` object: the stable
/// booleans `lsp`, `projectOptions`, `symbolIndex`, with `symbolIndexState`/`symbolIndexHint`
/// saying why `symbolIndex` is false, plus FSAC's pid and how the bridge reached the session.
pub fn readiness(status: &Value, session: &Session) -> Value {
    let state = status["state"].as_str().unwrap_or("absent");
    let running = status["fsac"]["running"].as_bool().unwrap_or(false);
    let lsp = running && matches!(state, "loading" | "ready");
    let loaded = status["projectsLoaded"].as_array().map_or(0, Vec::len);
    let project_options = state == "ready" && loaded > 0;
    let analysed = status["documentsAnalyzed"].as_u64().unwrap_or(0);
    let symbol_index = project_options && analysed > 0;
    let reason = status["reason"].as_str().unwrap_or_default();
    let (index_state, hint) = if symbol_index {
        ("ready", "FSAC has loaded the workspace and analysed documents; empty answers are trustworthy.".to_owned())
    } else if project_options {
        (
            "not_warmed",
            "The workspace is loaded but FSAC has not reported an analysis yet. Not a fault: find and check work; the \
             first check or opened file warms it."
                .to_owned(),
        )
    } else if state == "ready" {
        ("blocked_on_projects", "FSAC is ready but loaded no project: see projectErrors.".to_owned())
    } else {
        let why = if reason.is_empty() { state.to_owned() } else { format!("{state}: {reason}") };
        ("blocked_on_lsp", format!("FSAC is not ready ({why}). Call status with waitUntil: \"ready\" to wait for it."))
    };
    json!({
        "lsp": lsp,
        "projectOptions": project_options,
        "symbolIndex": symbol_index,
        "symbolIndexState": index_state,
        "symbolIndexHint": hint,
        "fsacPid": status["fsac"]["pid"],
        "state": state,
        "reason": status["reason"],
        "unresponsive": status["unresponsive"],
        "workspaceRoot": status["workspaceRoot"],
        "projectsLoaded": status["projectsLoaded"],
        "projectsLoading": status["projectsLoading"],
        "projectErrors": status["projectErrors"],
        "documentsAnalyzed": analysed,
        "openDocuments": status["openDocuments"].as_array().map_or(0, Vec::len),
        "pendingRequests": status["pendingRequests"],
        "fsac": {
            "pid": status["fsac"]["pid"],
            "running": status["fsac"]["running"],
            "generation": status["fsac"]["generation"],
            "command": status["fsac"]["command"],
            "uptimeMs": status["fsac"]["uptimeMs"],
            "stderrTail": status["fsac"]["stderrTail"],
        },
        "session": {
            "bridge": session.origin.as_str(),
            "socket": session.socket.as_ref().map(|path| path.display().to_string()),
            "clients": status["session"]["clients"],
            "editorInitialized": status["editor"]["initialized"],
            "startupFailure": session.startup_failure,
        },
        "wait": status["wait"],
        "probe": status["probe"],
        "fslensVersion": status["fslensVersion"],
    })
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
                tracing::info!("tool {name} failed: {} ({})", failure.message, failure.kind);
                let output =
                    render_error(&name, &failure.kind, failure.code, &failure.message, failure.data, started.elapsed());
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
        let older = vec![ext::commands::STATUS.to_owned()];
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
            confine_path_arguments(&root, &mut arguments).map_err(|failure| failure.kind)
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
