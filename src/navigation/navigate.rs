//! The `navigate` tool (and `fslens navigate` on the command line): one LSP navigation at a
//! position through the shared session — definition, references, hover, typeDefinition,
//! implementation, signatureHelp, incoming and outgoing calls (prepare and calls in one step,
//! paged), documentSymbol, workspaceSymbol, codeActions (previewed, one applied through the
//! editor on request: `navigation/code_actions.rs`) — and typeHierarchy, which FSAC lacks and
//! fslens computes from FSAC's definitions and the workspace's text. Its arguments are one
//! typed struct, so the MCP schema and the CLI flags come from the same declaration.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::commands::CommandError;
use crate::commands::params::{Bounded, CommandArguments, TimeoutMs};
use crate::commands::paths::confine;
use crate::failure::Failure;
use crate::lsp::ext::error_kinds;
use crate::navigation::locations::{enrich_locations, hover_text};
use crate::session_client::{ClientKind, Deadline, Session};

/// One navigation operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
#[value(rename_all = "camelCase")]
pub enum Operation {
    Definition,
    References,
    Hover,
    TypeDefinition,
    Implementation,
    SignatureHelp,
    IncomingCalls,
    OutgoingCalls,
    TypeHierarchy,
    DocumentSymbol,
    WorkspaceSymbol,
    CodeActions,
}

/// How `codeActions` applies the chosen action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
#[value(rename_all = "camelCase")]
pub enum ApplyMode {
    /// One `workspace/applyEdit` to the editor, through the session (the user can undo it).
    Editor,
    /// Written to disk, all files or none, once each file still hashes as the preview's
    /// `fileHashes` said (given back as `expectedHashes`); refused for a file open in the editor.
    Disk,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Definition => "definition",
            Operation::References => "references",
            Operation::Hover => "hover",
            Operation::TypeDefinition => "typeDefinition",
            Operation::Implementation => "implementation",
            Operation::SignatureHelp => "signatureHelp",
            Operation::IncomingCalls => "incomingCalls",
            Operation::OutgoingCalls => "outgoingCalls",
            Operation::TypeHierarchy => "typeHierarchy",
            Operation::DocumentSymbol => "documentSymbol",
            Operation::WorkspaceSymbol => "workspaceSymbol",
            Operation::CodeActions => "codeActions",
        }
    }

    /// Whether the operation is at a position (path + line + character or word).
    fn at_position(self) -> bool {
        !matches!(self, Operation::DocumentSymbol | Operation::WorkspaceSymbol)
    }

    /// Whether the operation needs a symbol under the position (a keyword, string or comment
    /// is refused with `no_symbol_at_position` instead of FSAC's empty answer).
    fn needs_symbol(self) -> bool {
        matches!(
            self,
            Operation::TypeDefinition
                | Operation::Implementation
                | Operation::IncomingCalls
                | Operation::OutgoingCalls
                | Operation::TypeHierarchy
        )
    }
}

crate::commands::arguments::symbol_position_arguments! {
    cli: all();
    /// The arguments of `navigate`, and the flags of `fslens navigate OPERATION`; the position
    /// (`path`, `line`, `character` or `word`, `occurrence`) is the one position argument of
    /// `commands::arguments`.
    #[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct NavigateArguments {
        /// What to ask at the position (documentSymbol: of the file; workspaceSymbol: by query).
        pub operation: Operation,
        /// The file (every operation but workspaceSymbol). Relative to the workspace root or
        /// absolute inside it; paths outside are refused.
        path?,
        /// The symbol name to search for (workspaceSymbol).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub query: Option<String>,
        /// references: include the declaration itself.
        #[serde(default = "yes")]
        #[arg(long = "exclude-declaration", action = clap::ArgAction::SetFalse,
            help = "references: leave the declaration out")]
        pub include_declaration: bool,
        /// incomingCalls, outgoingCalls: call sites per page.
        #[serde(default)]
        #[arg(long, default_value = "100")]
        pub max_results: Bounded<1, 1000, 100>,
        /// incomingCalls, outgoingCalls: the previous page's nextOffset.
        #[serde(default)]
        #[arg(long, default_value = "0")]
        pub offset: Bounded<0, { u32::MAX as u64 }, 0>,
        /// codeActions: 0-based line where the range ends (default: the range ends where it
        /// starts, or at the end of `word`).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long, requires = "end_character")]
        pub end_line: Option<Bounded<0, { u32::MAX as u64 }>>,
        /// codeActions: 0-based UTF-16 column where the range ends; required with `endLine`,
        /// alone it ends the range on the start's line.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub end_character: Option<Bounded<0, { u32::MAX as u64 }>>,
        /// codeActions: `editor` sends the chosen action's edit to the editor as one
        /// `workspace/applyEdit` (the user can undo it); `disk` writes it (all files or none, with
        /// the preview's `fileHashes` as `expectedHashes`; refused for a file open in the editor);
        /// without it the actions are only previewed.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub apply: Option<ApplyMode>,
        /// codeActions with `apply: "disk"`: the preview's `fileHashes`; a file whose text changed
        /// since fails the call and nothing is written.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long, value_parser = parse_hashes)]
        pub expected_hashes: Option<std::collections::BTreeMap<String, String>>,
        /// codeActions with `apply`: which action to apply (its `index`, from 0); may be left out
        /// when FSAC offers exactly one.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub action_index: Option<Bounded<0, 1000>>,
        /// One deadline for the whole request, in milliseconds.
        #[serde(default)]
        #[arg(long, default_value = "30000")]
        pub timeout_ms: TimeoutMs<LSP_TOOL_TIMEOUT_MS>,
    }
}

fn yes() -> bool {
    true
}

impl CommandArguments for NavigateArguments {
    fn validate(&self) -> Result<(), CommandError> {
        self.validate_code_action_arguments()?;
        if self.operation == Operation::WorkspaceSymbol {
            if self.query.as_deref().is_none_or(str::is_empty) {
                return Err(CommandError::invalid_argument("query", "required for workspaceSymbol"));
            }
            return Ok(());
        }
        if self.path.is_none() {
            return Err(CommandError::invalid_argument("path", "required: a file of the workspace"));
        }
        if self.operation.at_position() {
            match self.position() {
                Some(position) => position.validate()?,
                None => return Err(CommandError::invalid_argument("line", "required: a 0-based integer")),
            }
        }
        Ok(())
    }
}

impl NavigateArguments {
    /// The range end, `apply` and `actionIndex` belong to codeActions, and must make sense there.
    fn validate_code_action_arguments(&self) -> Result<(), CommandError> {
        if self.operation != Operation::CodeActions {
            let given = [
                ("endLine", self.end_line.is_some()),
                ("endCharacter", self.end_character.is_some()),
                ("apply", self.apply.is_some()),
                ("actionIndex", self.action_index.is_some()),
                ("expectedHashes", self.expected_hashes.is_some()),
            ];
            if let Some((name, _)) = given.into_iter().find(|(_, given)| *given) {
                return Err(CommandError::invalid_argument(name, "only used with operation codeActions"));
            }
            return Ok(());
        }
        if self.end_line.is_some() && self.end_character.is_none() {
            return Err(CommandError::invalid_argument("endCharacter", "required with endLine"));
        }
        if self.action_index.is_some() && self.apply.is_none() {
            return Err(CommandError::invalid_argument("actionIndex", "only used with apply"));
        }
        match (self.apply, &self.expected_hashes) {
            (Some(ApplyMode::Disk), None) => {
                return Err(CommandError::invalid_argument(
                    "expectedHashes",
                    "required with apply disk: the preview's fileHashes",
                ));
            }
            (Some(ApplyMode::Editor) | None, Some(_)) => {
                return Err(CommandError::invalid_argument("expectedHashes", "only used with apply disk"));
            }
            _ => {}
        }
        if let (Some(end_line), Some(line)) = (self.end_line, self.line)
            && end_line < line
        {
            return Err(CommandError::invalid_argument("endLine", "the range ends before the line it starts on"));
        }
        Ok(())
    }
}

/// Runs navigation operations for one workspace through one session.
pub struct Navigator<'a> {
    pub session: &'a Session,
    /// The canonical workspace root (paths are confined to it).
    pub root: &'a Path,
    /// Fires when the caller cancels (the MCP client's `notifications/cancelled`).
    pub cancelled: CancellationToken,
}

impl Navigator<'_> {
    /// The answer to one navigation.
    pub async fn run(&self, arguments: &NavigateArguments) -> Result<Value, Failure> {
        let allowed = arguments.timeout_ms.as_duration_ms();
        let deadline = (tokio::time::Instant::now() + allowed, allowed);
        let operation = arguments.operation;
        let (method, params) = match operation {
            Operation::WorkspaceSymbol => {
                ("workspace/symbol", json!({ "query": arguments.query.clone().unwrap_or_default() }))
            }
            Operation::DocumentSymbol => {
                let (_, uri) = self.document(arguments)?;
                ("textDocument/documentSymbol", json!({ "textDocument": { "uri": uri } }))
            }
            _ => {
                let (path, uri) = self.document(arguments)?;
                let (line, character) = self.position(arguments, &path)?;
                if operation == Operation::CodeActions {
                    let range = code_action_range(arguments, (line, character))?;
                    return crate::navigation::code_actions::code_actions(
                        self, arguments, &path, &uri, range, deadline,
                    )
                    .await;
                }
                if operation.needs_symbol()
                    && let Ok(text) = crate::source_files::read_regular_text(&path)
                    && let Some(reason) =
                        crate::commands::find::non_symbol_at(&text, &path, line as u32, character as u32)
                {
                    return Err(no_symbol_failure(reason, &text, line));
                }
                let mut params =
                    json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });
                let method = match operation {
                    Operation::Definition => "textDocument/definition",
                    Operation::Hover => "textDocument/hover",
                    Operation::TypeDefinition => "textDocument/typeDefinition",
                    Operation::Implementation => "textDocument/implementation",
                    Operation::SignatureHelp => "textDocument/signatureHelp",
                    Operation::TypeHierarchy => return self.type_hierarchy(params, deadline).await,
                    Operation::IncomingCalls | Operation::OutgoingCalls => {
                        return self.calls(arguments, params, deadline, &path).await;
                    }
                    _ => {
                        params["context"] = json!({ "includeDeclaration": arguments.include_declaration });
                        "textDocument/references"
                    }
                };
                (method, params)
            }
        };
        let mut result = self.forward(method, params, deadline).await?;
        enrich_locations(&mut result, self.root);
        let mut answer = json!({ "operation": operation.as_str(), "method": method, "via": "fsac" });
        if operation == Operation::Hover {
            answer["text"] = json!(hover_text(&result));
        }
        if let Some(items) = result.as_array() {
            answer["count"] = json!(items.len());
        }
        answer["result"] = result;
        Ok(answer)
    }

    /// One request to the session, given up at `deadline` or when the caller cancels.
    pub(crate) async fn forward(&self, method: &str, params: Value, deadline: Deadline) -> Result<Value, Failure> {
        self.session.call_until(method, params, &self.cancelled, Some(deadline)).await
    }

    /// One fslens command run by the session, given up at `deadline` or when the caller cancels.
    pub(crate) async fn execute(&self, command: &str, argument: Value, deadline: Deadline) -> Result<Value, Failure> {
        let params = json!({ "command": command, "arguments": [argument] });
        self.forward("workspace/executeCommand", params, deadline).await
    }

    /// The confined path and URI of the `path` argument.
    fn document(&self, arguments: &NavigateArguments) -> Result<(PathBuf, String), Failure> {
        let written = arguments
            .path
            .as_deref()
            .ok_or_else(|| Failure::invalid_argument("path", "required: a file of the workspace"))?;
        let path = confine(self.root, written, "path")?;
        let uri = crate::uri::path_to_uri(&path)
            .ok_or_else(|| Failure::invalid_argument("path", format!("cannot make a URI of {}", path.display())))?;
        Ok((path, uri))
    }

    /// The 0-based line and UTF-16 column asked for: the position argument's column
    /// ([`SymbolPosition::column_in`](crate::commands::arguments::SymbolPosition::column_in)).
    fn position(&self, arguments: &NavigateArguments, path: &Path) -> Result<(usize, usize), Failure> {
        let position =
            arguments.position().ok_or_else(|| Failure::invalid_argument("line", "required: a 0-based integer"))?;
        // The position is checked against the file on disk: a line or column past its end is
        // the caller's mistake, never a place where FSAC finds nothing.
        let text = crate::source_files::read_regular_text(path).map_err(|error| {
            Failure::new(error_kinds::INVALID_PATH, format!("cannot read {}: {error}", path.display()))
        })?;
        let character = position.column_in(&text)?;
        Ok((position.line as usize, character as usize))
    }

    /// `incomingCalls` / `outgoingCalls`: FSAC's `prepareCallHierarchy` at the position, then
    /// the calls of its item, one row per call site with the caller's (or callee's) name,
    /// kind, file, line and line text, paged by `offset` + `maxResults`.
    async fn calls(
        &self,
        arguments: &NavigateArguments,
        params: Value,
        deadline: Deadline,
        path: &Path,
    ) -> Result<Value, Failure> {
        let operation = arguments.operation.as_str();
        let max_results = arguments.max_results.as_usize();
        let offset = arguments.offset.as_usize();
        let prepared = self.forward("textDocument/prepareCallHierarchy", params.clone(), deadline).await?;
        let Some(item) = prepared.as_array().and_then(|items| items.first()).cloned() else {
            let line = params["position"]["line"].as_u64().unwrap_or(0) as usize;
            let text = crate::source_files::read_regular_text(path).unwrap_or_default();
            return Err(no_symbol_failure("no_symbol", &text, line));
        };
        let method =
            if operation == "incomingCalls" { "callHierarchy/incomingCalls" } else { "callHierarchy/outgoingCalls" };
        let answer = self.forward(method, json!({ "item": item }), deadline).await?;
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
        enrich_locations(&mut page_value, self.root);
        let mut item = item;
        enrich_locations(&mut item, self.root);
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

    /// `typeHierarchy`, which FSAC lacks: `fslens.typeHierarchy` in the session (the command
    /// computes it from FSAC's definitions), answered with the tool's `operation`.
    async fn type_hierarchy(&self, params: Value, deadline: Deadline) -> Result<Value, Failure> {
        let argument = json!({
            "path": params["textDocument"]["uri"].as_str().and_then(crate::uri::uri_to_path),
            "line": params["position"]["line"],
            "character": params["position"]["character"],
            "timeoutMs": deadline.1.as_millis() as u64,
        });
        let command = crate::commands::registry::Command::TypeHierarchy.id();
        let call = json!({ "command": command, "arguments": [argument] });
        let mut answer = self.forward("workspace/executeCommand", call, deadline).await?;
        answer["operation"] = json!("typeHierarchy");
        enrich_locations(&mut answer, self.root);
        Ok(answer)
    }
}

/// The range `codeActions` asks about: from the position to `endLine`/`endCharacter`, else to
/// the end of `word`, else the position itself.
fn code_action_range(
    arguments: &NavigateArguments,
    start: (usize, usize),
) -> Result<crate::navigation::code_actions::AskedRange, Failure> {
    let end = match (arguments.end_line, arguments.end_character, arguments.word.as_deref()) {
        (line, Some(character), _) => (line.map_or(start.0, Bounded::as_usize), character.as_usize()),
        (_, None, Some(word)) => (start.0, start.1 + word.encode_utf16().count()),
        (_, None, None) => start,
    };
    if end < start {
        let argument = if end.0 < start.0 { "endLine" } else { "endCharacter" };
        return Err(Failure::invalid_argument(argument, "the range ends before it starts"));
    }
    Ok(crate::navigation::code_actions::AskedRange { start, end })
}

/// `no_symbol_at_position` for `navigate`, with the reason and the line's text.
pub fn no_symbol_failure(reason: &str, text: &str, line: usize) -> Failure {
    let line_text = text.lines().nth(line).unwrap_or_default();
    let message = match reason {
        "no_symbol" => "FSAC found no function, member, value or type at this position".to_owned(),
        other => format!("the position is on a {other}, not on a symbol"),
    };
    Failure {
        error_kind: error_kinds::NO_SYMBOL_AT_POSITION.to_owned(),
        code: Some(crate::lsp::message::error_codes::INVALID_PARAMS),
        message,
        data: Some(json!({
            "errorKind": error_kinds::NO_SYMBOL_AT_POSITION, "argument": "line", "reason": reason, "lineText": line_text,
        })),
    }
}

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
pub const LSP_TOOL_TIMEOUT_MS: u64 = 30_000;

/// `--expected-hashes`: a JSON object of file → `sha256:…`.
fn parse_hashes(text: &str) -> Result<std::collections::BTreeMap<String, String>, String> {
    serde_json::from_str(text).map_err(|error| format!("expected a JSON object of file to hash: {error}"))
}

/// Runs one navigation for the CLI: joins the session serving `canonical_root` (or starts one
/// for the call), waits for the workspace to load within the request's deadline, and answers.
pub async fn run_from_cli(
    canonical_root: &Path,
    config: crate::proxy::ProxyConfig,
    arguments: NavigateArguments,
) -> anyhow::Result<Value> {
    arguments.validate().map_err(|error| anyhow::Error::new(crate::failure::Failure::from(error)))?;
    let allowed = arguments.timeout_ms.as_duration_ms();
    crate::session_client::with_cli_session(
        canonical_root,
        config,
        ClientKind::CliNavigation,
        Some(allowed),
        allowed * 2,
        async |session: &Session| {
            let navigator = Navigator { session, root: canonical_root, cancelled: CancellationToken::new() };
            navigator.run(&arguments).await
        },
    )
    .await
}

/// A readable rendering of a navigation answer: one `file:line:column  text` row per location,
/// call site or hierarchy entry (1-based, as editors and compilers print them), or the hover text.
pub fn render_text(answer: &Value) -> String {
    let operation = answer["operation"].as_str().unwrap_or_default();
    let row = |location: &Value| -> Option<String> {
        let file = location.get("file").and_then(Value::as_str)?;
        let start = location.get("range").map(|range| &range["start"])?;
        let line = start["line"].as_u64()? + 1;
        let column = start["character"].as_u64()? + 1;
        let text = location.get("lineText").and_then(Value::as_str).unwrap_or_default().trim();
        let label = location.get("name").and_then(Value::as_str).map(|name| format!("{name}  ")).unwrap_or_default();
        Some(format!("{file}:{line}:{column}  {label}{text}"))
    };
    let mut lines = Vec::new();
    match operation {
        "hover" => lines.push(answer["text"].as_str().unwrap_or("(no hover)").to_owned()),
        "incomingCalls" | "outgoingCalls" => {
            lines.push(format!(
                "{} {} of {}",
                answer["totalCalls"],
                answer["direction"].as_str().unwrap_or("calls"),
                answer["item"]["name"].as_str().unwrap_or("?")
            ));
            lines.extend(answer["calls"].as_array().into_iter().flatten().filter_map(row));
            if let Some(next) = answer["nextOffset"].as_u64() {
                lines.push(format!("more: --offset {next}"));
            }
        }
        "codeActions" => lines.extend(code_action_lines(answer)),
        "typeHierarchy" => {
            lines.push(format!("type {}", answer["type"]["name"].as_str().unwrap_or("?")));
            for (title, key) in [("supertypes", "supertypes"), ("subtypes", "subtypes")] {
                let rows: Vec<String> = answer[key].as_array().into_iter().flatten().filter_map(row).collect();
                lines.push(format!("{title}: {}", rows.len()));
                lines.extend(rows.into_iter().map(|row| format!("  {row}")));
            }
            lines.push("(candidates come from text: the list may be incomplete)".to_owned());
        }
        _ => {
            let result = &answer["result"];
            let items: Vec<&Value> = match result {
                Value::Array(items) => items.iter().collect(),
                Value::Null => Vec::new(),
                single => vec![single],
            };
            let rows: Vec<String> =
                items.iter().filter_map(|item| row(item).or_else(|| row(&item["location"]))).collect();
            if rows.is_empty() && !items.is_empty() {
                lines.push(serde_json::to_string_pretty(result).unwrap_or_default());
            } else {
                lines.push(format!("{} result(s)", rows.len()));
                lines.extend(rows);
            }
        }
    }
    lines.join("\n")
}

/// The readable rows of a `codeActions` answer: the diagnostics echoed, each action with its
/// index, title and kind and each edit's lines before (`-`) and after (`+`), then what `apply` did.
fn code_action_lines(answer: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let start = &answer["range"]["start"];
    lines.push(format!(
        "{} action(s) at {}:{}:{}",
        answer["totalActions"],
        answer["file"].as_str().unwrap_or("?"),
        start["line"].as_u64().unwrap_or(0) + 1,
        start["character"].as_u64().unwrap_or(0) + 1
    ));
    for diagnostic in answer["diagnostics"].as_array().into_iter().flatten() {
        let message = diagnostic["message"].as_str().unwrap_or_default().lines().next().unwrap_or_default();
        lines.push(format!(
            "  for {} {}: {message}",
            diagnostic["code"].as_str().unwrap_or("-"),
            diagnostic["severity"].as_str().unwrap_or("?")
        ));
    }
    for action in answer["actions"].as_array().into_iter().flatten() {
        lines.push(format!(
            "[{}] {} ({})",
            action["index"],
            action["title"].as_str().unwrap_or("?"),
            action["kind"].as_str().unwrap_or("no kind")
        ));
        for edit in action["preview"]["edits"].as_array().into_iter().flatten() {
            let at = &edit["range"]["start"];
            lines.push(format!(
                "    {}:{}:{}",
                edit["file"].as_str().unwrap_or("?"),
                at["line"].as_u64().unwrap_or(0) + 1,
                at["character"].as_u64().unwrap_or(0) + 1
            ));
            let texts = |key: &str| -> Vec<String> {
                edit[key].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
            };
            lines.extend(texts("linesBefore").into_iter().map(|text| format!("    - {text}")));
            lines.extend(texts("linesAfter").into_iter().map(|text| format!("    + {text}")));
        }
    }
    let applied = &answer["applied"];
    if applied["mode"] == json!("editor") {
        lines.push(if applied["applied"] == json!(true) {
            format!("applied action {} through the editor", applied["actionIndex"])
        } else {
            format!("not applied: {}", applied["failureReason"].as_str().unwrap_or("the editor declined"))
        });
    }
    lines
}
