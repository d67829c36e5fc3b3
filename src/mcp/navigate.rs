//! The `navigate` tool (and `fslens navigate` on the command line): one LSP navigation at a
//! position through the shared session — definition, references, hover, typeDefinition,
//! implementation, signatureHelp, incoming and outgoing calls (prepare and calls in one step,
//! paged), documentSymbol, workspaceSymbol — and typeHierarchy, which FSAC lacks and fslens
//! computes from FSAC's definitions and the workspace's text. Its arguments are one typed
//! struct, so the MCP schema and the CLI flags come from the same declaration.

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::commands::CommandError;
use crate::commands::params::{Bounded, CommandArguments, TimeoutMs};
use crate::commands::paths::confine;
use crate::lsp::ext::error_kinds;
use crate::mcp::failure::ToolFailure;
use crate::mcp::navigation::{enrich_locations, hover_text, locate_word};
use crate::mcp::session::{Session, SessionCallError};

/// When an LSP call is given up, and the time that allows (for the `timeout` message).
pub type Deadline = (tokio::time::Instant, Duration);

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

/// The arguments of `navigate`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NavigateArguments {
    /// What to ask at the position (documentSymbol: of the file; workspaceSymbol: by query).
    pub operation: Operation,
    /// The file (every operation but workspaceSymbol). Relative to the workspace root or
    /// absolute inside it; paths outside are refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// 0-based line of the position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<Bounded<0, { u32::MAX as u64 }>>,
    /// 0-based UTF-16 column of the position; or give `word`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character: Option<Bounded<0, { u32::MAX as u64 }>>,
    /// A whole word on the line instead of a column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word: Option<String>,
    /// Which occurrence of `word` on the line, from 1.
    #[serde(default)]
    pub occurrence: Bounded<1, 100_000, 1>,
    /// The symbol name to search for (workspaceSymbol).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// references: include the declaration itself.
    #[serde(default = "yes")]
    pub include_declaration: bool,
    /// incomingCalls, outgoingCalls: call sites per page.
    #[serde(default)]
    pub max_results: Bounded<1, 1000, 100>,
    /// incomingCalls, outgoingCalls: the previous page's nextOffset.
    #[serde(default)]
    pub offset: Bounded<0, { u32::MAX as u64 }, 0>,
    /// One deadline for the whole request, in milliseconds.
    #[serde(default)]
    pub timeout_ms: TimeoutMs<LSP_TOOL_TIMEOUT_MS>,
}

fn yes() -> bool {
    true
}

impl CommandArguments for NavigateArguments {
    fn validate(&self) -> Result<(), CommandError> {
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
            if self.line.is_none() {
                return Err(CommandError::invalid_argument("line", "required: a 0-based integer"));
            }
            match (&self.character, &self.word) {
                (None, None) => return Err(CommandError::invalid_argument("character", "give `character` or `word`")),
                (Some(_), Some(_)) => {
                    return Err(CommandError::invalid_argument("word", "give `character` or `word`, not both"));
                }
                _ => {}
            }
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
    pub async fn run(&self, arguments: &NavigateArguments) -> Result<Value, ToolFailure> {
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
                if operation.needs_symbol()
                    && let Ok(text) = crate::source_files::read_regular_text(&path)
                    && let Some(reason) =
                        crate::commands::rename::non_symbol_at(&text, &path, line as u32, character as u32)
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
    async fn forward(&self, method: &str, params: Value, deadline: Deadline) -> Result<Value, ToolFailure> {
        forward_until(self.session, method, params, &self.cancelled, Some(deadline)).await
    }

    /// The confined path and URI of the `path` argument.
    fn document(&self, arguments: &NavigateArguments) -> Result<(PathBuf, String), ToolFailure> {
        let written = arguments
            .path
            .as_deref()
            .ok_or_else(|| ToolFailure::invalid_argument("path", "required: a file of the workspace"))?;
        let path = confine(self.root, written, "path")?;
        let uri = crate::uri::path_to_uri(&path)
            .ok_or_else(|| ToolFailure::invalid_argument("path", format!("cannot make a URI of {}", path.display())))?;
        Ok((path, uri))
    }

    /// The 0-based line and UTF-16 column asked for: `character`, or where `word` is on the line.
    fn position(&self, arguments: &NavigateArguments, path: &Path) -> Result<(usize, usize), ToolFailure> {
        let line = arguments
            .line
            .map(Bounded::as_usize)
            .ok_or_else(|| ToolFailure::invalid_argument("line", "required: a 0-based integer"))?;
        let character = match (arguments.character, arguments.word.as_deref()) {
            (Some(character), _) => character.as_usize(),
            (None, Some(word)) => {
                let text = crate::source_files::read_regular_text(path).map_err(|error| {
                    ToolFailure::new(error_kinds::INVALID_PATH, format!("cannot read {}: {error}", path.display()))
                })?;
                let position = locate_word(&text, line, word, arguments.occurrence.as_usize())
                    .map_err(|message| ToolFailure::invalid_argument("word", message))?;
                if position.line != line {
                    return Err(ToolFailure::invalid_argument(
                        "word",
                        format!("`{word}` is not on line {line} (it is on line {})", position.line),
                    ));
                }
                position.character
            }
            (None, None) => return Err(ToolFailure::invalid_argument("character", "give `character` or `word`")),
        };
        Ok((line, character))
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
    ) -> Result<Value, ToolFailure> {
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

    /// `typeHierarchy`, which FSAC lacks: the type at the position (FSAC's definition), its
    /// supertypes (the `inherit` and `interface` lines of its declaration, each resolved by FSAC's
    /// definition) and its subtypes (every `interface T`, `inherit T` and `new T` in the
    /// workspace's F# files whose `T` FSAC resolves to this type's declaration).
    async fn type_hierarchy(&self, params: Value, deadline: Deadline) -> Result<Value, ToolFailure> {
        let definition = |value: Value| -> Option<(String, u64, u64)> {
            let location = if value.is_array() { value.get(0).cloned()? } else { value };
            let uri = location.get("uri").or_else(|| location.get("targetUri"))?.as_str()?.to_owned();
            let range = location.get("range").or_else(|| location.get("targetSelectionRange"))?;
            Some((uri, range["start"]["line"].as_u64()?, range["start"]["character"].as_u64()?))
        };
        let asked = self.forward("textDocument/definition", params.clone(), deadline).await?;
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
                let resolved = self.forward("textDocument/definition", at, deadline).await?;
                let mut row = json!({ "uri": type_uri, "range": line_range(number, character, line), "via": "fsac" });
                if let Some((uri, line, character)) = definition(resolved) {
                    row["declaration"] = json!({ "uri": uri, "range": { "start": { "line": line, "character": character }, "end": { "line": line, "character": character } } });
                }
                supertypes.push(row);
            }
        }
        // Subtypes: candidates by text in every F# file of the workspace, each confirmed.
        let root = self.root.to_path_buf();
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
                let resolved = self.forward("textDocument/definition", at, deadline).await?;
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
        enrich_locations(&mut answer, self.root);
        Ok(answer)
    }
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
pub fn no_symbol_failure(reason: &str, text: &str, line: usize) -> ToolFailure {
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

/// One request to the session, given up when `cancelled` fires (the MCP client's cancel) or
/// at `deadline` when there is one: the request is then cancelled in the session (and so in
/// FSAC) and the call fails with `timeout`, naming the method and the time allowed.
pub async fn forward_until(
    session: &Session,
    method: &str,
    params: Value,
    cancelled: &CancellationToken,
    deadline: Option<Deadline>,
) -> Result<Value, ToolFailure> {
    let token = cancelled.clone();
    let cancelled = token.clone();
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
        Err(SessionCallError::Cancelled { confirmed }) if !token.is_cancelled() => {
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

/// `fslens navigate OP` on the command line: the `navigate` tool's arguments as flags.
#[derive(Debug, Clone, clap::Args)]
pub struct NavigateCliArgs {
    /// What to ask: definition, references, hover, typeDefinition, implementation,
    /// signatureHelp, incomingCalls, outgoingCalls, typeHierarchy, documentSymbol,
    /// workspaceSymbol.
    pub operation: Operation,
    /// The file (every operation but workspaceSymbol).
    #[arg(long)]
    pub path: Option<String>,
    /// 0-based line of the position.
    #[arg(long)]
    pub line: Option<Bounded<0, { u32::MAX as u64 }>>,
    /// 0-based UTF-16 column of the position (instead of --word).
    #[arg(long, conflicts_with = "word")]
    pub character: Option<Bounded<0, { u32::MAX as u64 }>>,
    /// A whole word on the line instead of a column.
    #[arg(long)]
    pub word: Option<String>,
    /// Which occurrence of the word on the line (from 1).
    #[arg(long, default_value = "1")]
    pub occurrence: Bounded<1, 100_000, 1>,
    /// The name to search for (workspaceSymbol).
    #[arg(long)]
    pub query: Option<String>,
    /// references: leave the declaration out.
    #[arg(long)]
    pub exclude_declaration: bool,
    /// incomingCalls, outgoingCalls: call sites per page (1..1000, default 100).
    #[arg(long, default_value = "100")]
    pub max_results: Bounded<1, 1000, 100>,
    /// incomingCalls, outgoingCalls: continue from the previous page's nextOffset.
    #[arg(long, default_value = "0")]
    pub offset: Bounded<0, { u32::MAX as u64 }, 0>,
    /// The deadline for the request (and for FSAC to load), in milliseconds.
    #[arg(long, default_value = "30000")]
    pub timeout_ms: TimeoutMs<LSP_TOOL_TIMEOUT_MS>,
    /// Print the JSON answer instead of a readable list.
    #[arg(long)]
    pub json: bool,
}

impl NavigateCliArgs {
    /// The tool's arguments these flags stand for (every field named, so a new argument does
    /// not compile until the CLI says what it sends).
    pub fn to_arguments(&self) -> NavigateArguments {
        NavigateArguments {
            operation: self.operation,
            path: self.path.clone(),
            line: self.line,
            character: self.character,
            word: self.word.clone(),
            occurrence: self.occurrence,
            query: self.query.clone(),
            include_declaration: !self.exclude_declaration,
            max_results: self.max_results,
            offset: self.offset,
            timeout_ms: self.timeout_ms,
        }
    }
}

/// Runs one navigation for the CLI: joins the session serving `canonical_root` (or starts one
/// for the call), waits for the workspace to load within the request's deadline, and answers.
pub async fn run_from_cli(
    canonical_root: &Path,
    config: crate::proxy::ProxyConfig,
    arguments: NavigateArguments,
) -> anyhow::Result<Value> {
    arguments.validate().map_err(|error| anyhow::anyhow!("{error}"))?;
    let session = Session::join_or_start(canonical_root, config).await?;
    let wait = json!({ "waitUntil": "ready", "timeoutMs": arguments.timeout_ms.get() });
    let ready = session
        .connection
        .call("workspace/executeCommand", json!({ "command": crate::lsp::ext::commands::STATUS, "arguments": [wait] }))
        .await;
    let answer = match ready {
        Ok(_) => {
            let navigator = Navigator { session: &session, root: canonical_root, cancelled: CancellationToken::new() };
            navigator.run(&arguments).await
        }
        Err(error) => Err(ToolFailure::from(error)),
    };
    session.close().await;
    answer.map_err(|failure| anyhow::anyhow!("{} ({})", failure.message, failure.kind))
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
