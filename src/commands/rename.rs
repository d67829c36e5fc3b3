//! `fslens.rename`: a rename preview from FSAC's `prepareRename` and `rename`, cross-checked
//! against `fslens.find` for the same symbol over every project, and applied only when asked.
//!
//! The preview groups the edits by file with every touched line's text before and after, and a
//! content hash of each file. A site that find reports and the rename's edit set lacks is a
//! `missedSites` entry, and then the preview is not `complete`. `apply: "editor"` sends one
//! `workspace/applyEdit` (the user can undo it); `apply: "disk"` first checks every file's
//! hash against the preview's (`expectedHashes`), then writes each file to a temporary
//! sibling and renames it over the original, all files or none.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_integer, optional_string, reject_unknown};
use crate::commands::find::rows::bound_line;
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position};
use crate::lsp::ext::error_kinds;
use crate::session_state::status::State;

/// Default and upper bound of `maxLines`, the preview's budget of touched lines.
pub const DEFAULT_MAX_LINES: u64 = 200;
pub const MAX_MAX_LINES: u64 = 2_000;
/// The longest line text a preview row carries (UTF-16 units), as find's rows.
const LINE_TEXT_LIMIT: usize = crate::commands::find::rows::LINE_TEXT_MAX_UNITS;
/// Find pages read for the cross-check before it gives up (and says so).
const MAX_FIND_PAGES: usize = 20;

/// F#'s reserved words: a new name spelled as one of these needs double backticks.
const KEYWORDS: &[&str] = &[
    "abstract",
    "and",
    "as",
    "assert",
    "base",
    "begin",
    "class",
    "default",
    "delegate",
    "do",
    "done",
    "downcast",
    "downto",
    "elif",
    "else",
    "end",
    "exception",
    "extern",
    "false",
    "finally",
    "fixed",
    "for",
    "fun",
    "function",
    "global",
    "if",
    "in",
    "inherit",
    "inline",
    "interface",
    "internal",
    "lazy",
    "let",
    "match",
    "member",
    "module",
    "mutable",
    "namespace",
    "new",
    "not",
    "null",
    "of",
    "open",
    "or",
    "override",
    "private",
    "public",
    "rec",
    "return",
    "select",
    "sig",
    "static",
    "struct",
    "then",
    "to",
    "true",
    "try",
    "type",
    "upcast",
    "use",
    "val",
    "void",
    "when",
    "while",
    "with",
    "yield",
    "const",
];

/// How the rename is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyMode {
    Preview,
    Editor,
    Disk,
}

#[derive(Debug)]
struct Arguments {
    /// A qualified name to rename instead of a position (`path` and `line` then come from
    /// find's definition of it).
    symbol: Option<String>,
    path: String,
    line: u32,
    character: Option<u32>,
    word: Option<String>,
    occurrence: u32,
    new_name: String,
    apply: ApplyMode,
    expected_hashes: Option<Map<String, Value>>,
    max_lines: usize,
    timeout: std::time::Duration,
    /// Also run the edit through a what-if check (`fslens.check` with `edits`) and answer
    /// its verdict as `verification`.
    verify: bool,
}

const KNOWN_ARGUMENTS: &[&str] = &[
    "symbol",
    "path",
    "line",
    "character",
    "word",
    "occurrence",
    "newName",
    "apply",
    "expectedHashes",
    "maxLines",
    "timeoutMs",
    "verify",
];

fn parse_arguments(argument: &Value) -> Result<Arguments, CommandError> {
    let object = object_of(argument)?;
    reject_unknown(object, KNOWN_ARGUMENTS)?;
    let integer = |name: &str| optional_integer(object, name, 0, u32::MAX as u64);
    let symbol = optional_string(object, "symbol")?;
    if let Some(symbol) = &symbol {
        if symbol.trim().is_empty() {
            return Err(CommandError::invalid_argument("symbol", "is empty"));
        }
        let position = ["path", "line", "character", "word", "occurrence"];
        if let Some(given) = position.iter().find(|name| object.contains_key(**name)) {
            return Err(CommandError::invalid_argument(
                given,
                "give symbol or a position (path, line, word or character), not both",
            ));
        }
    }
    let (path, line, character, word) = if symbol.is_some() {
        (String::new(), 0, None, None)
    } else {
        let path = optional_string(object, "path")?
            .ok_or_else(|| CommandError::invalid_argument("path", "required (or give a qualified symbol)"))?;
        let line = integer("line")?.ok_or_else(|| CommandError::invalid_argument("line", "required (0-based)"))? as u32;
        let character = integer("character")?.map(|value| value as u32);
        let word = optional_string(object, "word")?;
        crate::commands::arguments::character_or_word(character, word.as_deref())?;
        (path, line, character, word)
    };
    let occurrence = integer("occurrence")?.unwrap_or(1) as u32;
    if occurrence == 0 {
        return Err(CommandError::invalid_argument("occurrence", "counts from 1"));
    }
    let new_name = optional_string(object, "newName")?
        .ok_or_else(|| CommandError::invalid_argument("newName", "required: the symbol's new name"))?;
    let new_name = validated_new_name(&new_name)?;
    let apply = match object.get("apply") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => ApplyMode::Preview,
        Some(Value::String(mode)) if mode == "false" || mode == "preview" => ApplyMode::Preview,
        Some(Value::String(mode)) if mode == "editor" => ApplyMode::Editor,
        Some(Value::String(mode)) if mode == "disk" => ApplyMode::Disk,
        Some(other) => {
            return Err(CommandError::invalid_argument(
                "apply",
                format!("expected false (preview), \"editor\" or \"disk\", got {other}"),
            ));
        }
    };
    let expected_hashes = match object.get("expectedHashes") {
        None | Some(Value::Null) => None,
        Some(Value::Object(hashes)) if hashes.values().all(Value::is_string) => Some(hashes.clone()),
        Some(other) => {
            return Err(CommandError::invalid_argument(
                "expectedHashes",
                format!("expected the preview's fileHashes object (file → hash), got {other}"),
            ));
        }
    };
    if apply == ApplyMode::Disk && expected_hashes.is_none() {
        return Err(CommandError::invalid_argument(
            "expectedHashes",
            "apply \"disk\" needs the preview's fileHashes, so files changed since the preview are not overwritten",
        ));
    }
    let max_lines = optional_integer(object, "maxLines", 1, MAX_MAX_LINES)?.unwrap_or(DEFAULT_MAX_LINES) as usize;
    let timeout = crate::commands::arguments::timeout_argument(object, 120_000)?;
    let verify = crate::commands::arguments::optional_bool(object, "verify")?.unwrap_or(false);
    Ok(Arguments {
        symbol,
        path,
        line,
        character,
        word,
        occurrence,
        new_name,
        apply,
        expected_hashes,
        max_lines,
        timeout,
        verify,
    })
}

/// The new name as it is written in source: a plain F# identifier as given, anything else
/// (a keyword, spaces, symbols) in double backticks. Names that cannot be written even in
/// backticks (empty, a newline, a backtick, a tab) are refused.
pub fn validated_new_name(name: &str) -> Result<String, CommandError> {
    let bare = match name.strip_prefix("``").and_then(|rest| rest.strip_suffix("``")) {
        Some(inner) => inner,
        None => name,
    };
    if bare.trim().is_empty() {
        return Err(CommandError::invalid_argument("newName", "is empty"));
    }
    if bare.contains(['`', '\n', '\r', '\t']) {
        return Err(CommandError::invalid_argument(
            "newName",
            format!("{name:?} cannot be an F# identifier, even in double backticks (backtick, tab or newline)"),
        ));
    }
    if is_plain_identifier(bare) && !KEYWORDS.contains(&bare) { Ok(bare.to_owned()) } else { Ok(format!("``{bare}``")) }
}

/// An identifier F# accepts without backticks: a letter or `_`, then letters, digits, `_`, `'`.
fn is_plain_identifier(name: &str) -> bool {
    let mut characters = name.chars();
    characters.next().is_some_and(|first| first.is_alphabetic() || first == '_')
        && characters.all(|next| next.is_alphanumeric() || next == '_' || next == '\'')
        && name != "_"
}

fn no_symbol(reason: &str, message: impl Into<String>, line_text: &str) -> CommandError {
    CommandError::typed(
        error_kinds::NO_SYMBOL_AT_POSITION,
        crate::lsp::message::error_codes::INVALID_PARAMS,
        message,
        json!({ "argument": "line", "reason": reason, "lineText": line_text }),
    )
}

/// Why the 0-based `line` and UTF-16 `character` of `path`'s `text` hold no symbol: `string`,
/// `comment` (a leaf of the syntax tree) or `keyword`; `None` when they may.
pub fn non_symbol_at(text: &str, path: &Path, line: u32, character: u32) -> Option<&'static str> {
    let grammar =
        crate::syntax::model::GrammarKind::for_path(path).unwrap_or(crate::syntax::model::GrammarKind::Implementation);
    let lines = LineIndex::new(text);
    let offset = lines.offset(text, Position { line, character });
    if let Some(kind) = literal_at(text, grammar, line as usize, offset) {
        return Some(kind);
    }
    let line_text = lines.line_text(text, line as usize)?;
    crate::commands::find::resolve::identifier_at(line_text, character)
        .filter(|name| KEYWORDS.contains(&name.as_str()))
        .map(|_| "keyword")
}

/// `string` or `comment` when the byte `offset` is inside one (a leaf of the syntax tree).
fn literal_at(
    text: &str,
    grammar: crate::syntax::model::GrammarKind,
    line: usize,
    offset: usize,
) -> Option<&'static str> {
    let leaves = crate::syntax::tokens::leaves_on_line(text, grammar, line)?;
    let leaf = leaves.iter().find(|leaf| leaf.start_byte <= offset && offset < leaf.end_byte)?;
    if leaf.kind.contains("comment") || leaf.kind == "xml_doc" {
        Some("comment")
    } else if leaf.kind.contains("string") || leaf.kind == "char" {
        Some("string")
    } else {
        None
    }
}

/// The hash a preview reports for a file's text, and that `apply: "disk"` checks.
pub fn content_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!("sha256:{}", digest.iter().map(|byte| format!("{byte:02x}")).collect::<String>())
}

/// One text edit, in a file's own positions.
#[derive(Clone, Debug)]
struct Edit {
    start: Position,
    end: Position,
    new_text: String,
}

/// The edits of an LSP WorkspaceEdit (`changes` or `documentChanges`), by path.
fn edits_by_path(edit: &Value) -> Result<BTreeMap<PathBuf, Vec<Edit>>, CommandError> {
    let mut by_path: BTreeMap<PathBuf, Vec<Edit>> = BTreeMap::new();
    let mut add = |uri: &str, edits: &Value| -> Result<(), CommandError> {
        let path = crate::uri::uri_to_path(uri)
            .ok_or_else(|| CommandError::Internal(format!("FSAC's rename names a URI that is not a file: {uri}")))?;
        for edit in edits.as_array().into_iter().flatten() {
            let position = |at: &Value| -> Option<Position> { serde_json::from_value(at.clone()).ok() };
            let (Some(start), Some(end)) = (position(&edit["range"]["start"]), position(&edit["range"]["end"])) else {
                return Err(CommandError::Internal(format!("FSAC's rename has an edit without a range: {edit}")));
            };
            let new_text = edit["newText"].as_str().unwrap_or_default().to_owned();
            by_path.entry(path.clone()).or_default().push(Edit { start, end, new_text });
        }
        Ok(())
    };
    if let Some(changes) = edit["changes"].as_object() {
        for (uri, edits) in changes {
            add(uri, edits)?;
        }
    }
    for change in edit["documentChanges"].as_array().into_iter().flatten() {
        if let Some(uri) = change["textDocument"]["uri"].as_str() {
            add(uri, &change["edits"])?;
        }
    }
    for edits in by_path.values_mut() {
        edits.sort_by_key(|edit| (edit.start.line, edit.start.character));
        edits.dedup_by_key(|edit| (edit.start.line, edit.start.character));
    }
    Ok(by_path)
}

/// `text` with `edits` (non-overlapping, sorted) applied.
fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let lines = LineIndex::new(text);
    let mut result = text.to_owned();
    for edit in edits.iter().rev() {
        let start = lines.offset(text, edit.start);
        let end = lines.offset(text, edit.end).max(start);
        result.replace_range(start..end, &edit.new_text);
    }
    result
}

/// The current text of a file: the editor's buffer when open, else the disk.
fn read_text(path: &Path, overlay: &crate::syntax::index::Overlay) -> Result<String, CommandError> {
    match overlay.get(path) {
        Some(text) => Ok(text.to_string()),
        None => crate::source_files::read_regular_text(path).map_err(|error| CommandError::InvalidPath {
            path: path.display().to_string(),
            message: format!("cannot read it: {error}"),
        }),
    }
}

pub async fn rename(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let mut arguments = parse_arguments(&argument)?;
    let deadline = tokio::time::Instant::now() + arguments.timeout;
    let root = context.workspace_root()?.to_path_buf();
    if let Some(symbol) = arguments.symbol.clone() {
        let (path, line, character) = definition_of(&context, &symbol, arguments.timeout).await?;
        (arguments.path, arguments.line, arguments.character) = (path, line, Some(character));
    }
    let path = confine(&root, &arguments.path, "path")?;
    let overlay = context.editor_buffers().await?;
    let text = read_text(&path, &overlay)?;
    let lines = LineIndex::new(&text);
    let Some(line_text) = lines.line_text(&text, arguments.line as usize) else {
        return Err(CommandError::invalid_argument("line", format!("the file has {} lines", lines.line_count())));
    };
    let line_text = line_text.to_owned();
    let character = match (&arguments.word, arguments.character) {
        (Some(word), _) => crate::commands::find::resolve::word_column(&line_text, word, arguments.occurrence)
            .ok_or_else(|| {
                CommandError::invalid_argument(
                    "word",
                    format!("{word:?} (occurrence {}) is not on line {}", arguments.occurrence, arguments.line),
                )
            })?,
        (None, Some(character)) => character,
        (None, None) => return Err(CommandError::invalid_argument("character", "give character or word")),
    };
    // A keyword or a string is no symbol, whatever the backend says about it.
    let grammar =
        crate::syntax::model::GrammarKind::for_path(&path).unwrap_or(crate::syntax::model::GrammarKind::Implementation);
    let offset = lines.offset(&text, Position { line: arguments.line, character });
    if let Some(kind) = literal_at(&text, grammar, arguments.line as usize, offset) {
        return Err(no_symbol(
            kind,
            format!("line {} character {character} is in a {kind}, not on a symbol", arguments.line),
            &line_text,
        ));
    }
    if let Some(name) = crate::commands::find::resolve::identifier_at(&line_text, character)
        && KEYWORDS.contains(&name.as_str())
    {
        return Err(no_symbol("keyword", format!("{name:?} is an F# keyword, not a symbol"), &line_text));
    }

    let status = context.status().await?;
    if status.state != State::Ready {
        return Err(CommandError::Unavailable(format!(
            "rename needs FSAC's analysis, and FSAC is {} (fslens.status says why)",
            status.state.as_str()
        )));
    }
    let uri = crate::uri::path_to_uri(&path).ok_or_else(|| CommandError::Internal("cannot make a URI".to_owned()))?;
    context.acquire_document(&uri, text.clone()).await?;
    let position = json!({ "line": arguments.line, "character": character });
    let document = json!({ "textDocument": { "uri": uri }, "position": position });
    let prepared = context.backend_request("textDocument/prepareRename", document.clone(), deadline).await?;
    let prepared = match prepared {
        Ok(range) if !range.is_null() => range,
        Ok(_) => return Err(no_symbol("no_symbol", "FSAC's prepareRename found nothing to rename here", &line_text)),
        Err(error) => {
            let reason = if error.message.contains("external") { "external" } else { "no_symbol" };
            return Err(no_symbol(reason, format!("FSAC's prepareRename: {}", error.message), &line_text));
        }
    };
    let mut params = document.clone();
    params["newName"] = json!(arguments.new_name);
    let workspace_edit = match context.backend_request("textDocument/rename", params, deadline).await? {
        Ok(edit) => edit,
        Err(error) => {
            return Err(CommandError::invalid_argument("newName", format!("FSAC's rename refused: {}", error.message)));
        }
    };
    context.release_document(&uri);
    let by_path = edits_by_path(&workspace_edit)?;

    // The cross-check: every site find has for the symbol at the same position.
    let cross_check = cross_check_with_find(&context, &root, &path, arguments.line, character, &by_path).await?;

    // The preview: texts before and after, hashes, bounded by maxLines.
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    for file in by_path.keys() {
        texts.insert(file.clone(), read_text(file, &overlay)?);
    }
    let mut files = Vec::new();
    let mut hashes = Map::new();
    let mut lines_shown = 0usize;
    let mut lines_omitted = 0usize;
    let mut total_edits = 0usize;
    for (file, edits) in &by_path {
        let before = &texts[file];
        let after = apply_edits(before, edits);
        let relative = display_relative(&root, file);
        hashes.insert(relative.clone(), json!(content_hash(before)));
        total_edits += edits.len();
        let touched: BTreeSet<u32> = edits.iter().map(|edit| edit.start.line).collect();
        let (before_lines, after_lines): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
        let mut rows = Vec::new();
        for line in &touched {
            if lines_shown >= arguments.max_lines {
                lines_omitted += 1;
                continue;
            }
            lines_shown += 1;
            let bounded = |text: Option<&&str>| text.map(|text| bound_line(text, 0, 0, LINE_TEXT_LIMIT).text);
            // Renames never add or remove lines, so a line keeps its number.
            rows.push(json!({
                "line": line,
                "before": bounded(before_lines.get(*line as usize)),
                "after": bounded(after_lines.get(*line as usize)),
            }));
        }
        files.push(json!({ "file": relative, "edits": edits.len(), "lines": rows }));
    }
    let complete = cross_check.complete && cross_check.missed.is_empty();
    let mut answer = json!({
        "tool": "rename",
        "status": "ok",
        "oldName": prepared_text(&text, &lines, &prepared),
        "newName": arguments.new_name,
        "position": { "path": display_relative(&root, &path), "line": arguments.line, "character": character },
        "via": "fsac",
        "complete": complete,
        "totalEdits": total_edits,
        "totalFiles": by_path.len(),
        "files": files,
        "linesShown": lines_shown,
        "linesOmitted": lines_omitted,
        "truncated": lines_omitted > 0,
        "fileHashes": hashes,
        "missedSites": cross_check.missed,
        "crossCheck": { "findCompleteness": cross_check.find_completeness, "findSites": cross_check.find_sites, "notes": cross_check.notes },
        "applied": { "mode": "none", "applied": false },
        "writtenToDisk": false,
    });
    if arguments.verify {
        // The compiler's verdict on the renamed code, before anything is applied: a what-if
        // check of the same edit over the projects it touches and those downstream.
        let what_if = json!({ "edits": workspace_edit, "timeoutMs": arguments.timeout.as_millis() as u64 });
        answer["verification"] = crate::commands::check::check(what_if, context.clone()).await?;
    }
    match arguments.apply {
        ApplyMode::Preview => {}
        ApplyMode::Editor => {
            let params = json!({ "label": format!("Rename to {}", arguments.new_name), "edit": workspace_edit });
            answer["applied"] = match context
                .editor_request("workspace/applyEdit", params, "/workspace/applyEdit", deadline)
                .await
            {
                Ok(Ok(result)) => json!({
                    "mode": "editor",
                    "applied": result["applied"] == json!(true),
                    "failureReason": result.get("failureReason"),
                }),
                Ok(Err(error)) => json!({ "mode": "editor", "applied": false, "failureReason": error.message }),
                Err(CommandError::Timeout) => json!({
                    "mode": "editor", "applied": false,
                    "failureReason": format!("the editor did not answer within timeoutMs = {}", arguments.timeout.as_millis()),
                }),
                Err(error) => return Err(error),
            };
        }
        ApplyMode::Disk => {
            let expected = arguments.expected_hashes.unwrap_or_default();
            write_all_or_none(&root, &by_path, &texts, &overlay, &expected)?;
            answer["applied"] = json!({ "mode": "disk", "applied": true });
            answer["writtenToDisk"] = json!(true);
        }
    }
    Ok(answer)
}

/// Where the qualified `symbol` is defined, from find's definitions (a signature's
/// declaration is not a definition): exactly one, or `invalid_argument` naming `symbol` with
/// the candidates.
async fn definition_of(
    context: &CommandContext,
    symbol: &str,
    timeout: std::time::Duration,
) -> Result<(String, u32, u32), CommandError> {
    let query =
        json!({ "query": symbol, "kind": "definition", "maxResults": 50, "timeoutMs": timeout.as_millis() as u64 });
    let answer = crate::commands::find::find(query, context.clone()).await?;
    let definitions: Vec<&Value> =
        answer["sites"].as_array().into_iter().flatten().filter(|site| site["kind"] == json!("definition")).collect();
    let names: BTreeSet<String> =
        definitions.iter().map(|site| site["symbolFullName"].as_str().unwrap_or("?").to_owned()).collect();
    match definitions.as_slice() {
        [site] => Ok((
            site["file"].as_str().unwrap_or_default().to_owned(),
            site["range"]["start"]["line"].as_u64().unwrap_or(0) as u32,
            site["range"]["start"]["character"].as_u64().unwrap_or(0) as u32,
        )),
        [] => Err(CommandError::invalid_argument(
            "symbol",
            format!("no declaration named {symbol:?} in the workspace (find: {})", answer["status"]),
        )),
        _ => Err(CommandError::typed(
            error_kinds::INVALID_ARGUMENT,
            crate::lsp::message::error_codes::INVALID_PARAMS,
            format!("{symbol:?} names {} declarations: qualify it, or give path and line", definitions.len()),
            json!({ "argument": "symbol", "candidates": names }),
        )),
    }
}

/// The old name, as the text at prepareRename's range.
fn prepared_text(text: &str, lines: &LineIndex, range: &Value) -> Option<String> {
    let start: Position = serde_json::from_value(range["start"].clone()).ok()?;
    let end: Position = serde_json::from_value(range["end"].clone()).ok()?;
    text.get(lines.offset(text, start)..lines.offset(text, end)).map(str::to_owned)
}

struct CrossCheck {
    complete: bool,
    missed: Vec<Value>,
    find_completeness: Value,
    find_sites: usize,
    notes: Vec<String>,
}

/// Runs `fslens.find` at the same position (every page) and lists its sites that no edit
/// starts at.
async fn cross_check_with_find(
    context: &CommandContext,
    root: &Path,
    path: &Path,
    line: u32,
    character: u32,
    by_path: &BTreeMap<PathBuf, Vec<Edit>>,
) -> Result<CrossCheck, CommandError> {
    let edit_starts: BTreeSet<(String, u32, u32)> = by_path
        .iter()
        .flat_map(|(file, edits)| {
            let relative = display_relative(root, file);
            edits.iter().map(move |edit| (relative.clone(), edit.start.line, edit.start.character))
        })
        .collect();
    let mut query = json!({
        "kind": "position",
        "path": display_relative(root, path),
        "line": line,
        "character": character,
        "maxResults": crate::commands::find::arguments::MAX_MAX_RESULTS,
    });
    let mut check = CrossCheck {
        complete: true,
        missed: Vec::new(),
        find_completeness: Value::Null,
        find_sites: 0,
        notes: Vec::new(),
    };
    for page in 0.. {
        if page == MAX_FIND_PAGES {
            check.complete = false;
            check.notes.push(format!("find had more than {MAX_FIND_PAGES} pages; the rest were not compared"));
            break;
        }
        let answer = crate::commands::find::find(query.clone(), context.clone()).await?;
        if answer["completeness"] != json!("complete") {
            check.complete = false;
        }
        check.find_completeness = answer["completeness"].clone();
        for site in answer["sites"].as_array().into_iter().flatten() {
            check.find_sites += 1;
            let key = (
                site["file"].as_str().unwrap_or_default().to_owned(),
                site["range"]["start"]["line"].as_u64().unwrap_or(0) as u32,
                site["range"]["start"]["character"].as_u64().unwrap_or(0) as u32,
            );
            if !edit_starts.contains(&key) {
                check.missed.push(json!({
                    "file": key.0,
                    "range": site["range"],
                    "kind": site["kind"],
                    "symbolFullName": site["symbolFullName"],
                    "lineText": site["lineText"],
                    "via": site["via"],
                }));
            }
        }
        // Declarations the syntax index has and FSAC's references lack: find names them, and
        // the rename (the same references sweep) is likely to miss them too.
        for declaration in answer["crossCheck"]["missedByBackend"].as_array().into_iter().flatten() {
            let key = (
                declaration["file"].as_str().unwrap_or_default().to_owned(),
                declaration["range"]["start"]["line"].as_u64().unwrap_or(0) as u32,
                declaration["range"]["start"]["character"].as_u64().unwrap_or(0) as u32,
            );
            if !edit_starts.contains(&key)
                && !check
                    .missed
                    .iter()
                    .any(|site| site["file"] == json!(key.0) && site["range"] == declaration["range"])
            {
                check.missed.push(json!({
                    "file": key.0,
                    "range": declaration["range"],
                    "kind": declaration["role"],
                    "symbolFullName": declaration["symbolFullName"],
                    "lineText": Value::Null,
                    "via": "syntax",
                }));
            }
        }
        match answer["nextCursor"].as_str() {
            Some(cursor) => query["cursor"] = json!(cursor),
            None => break,
        }
    }
    if check.find_completeness != json!("complete") {
        check.notes.push(format!(
            "find's answer is {} (not complete), so the rename cannot be shown to cover every site",
            check.find_completeness
        ));
    }
    Ok(check)
}

/// Writes every renamed file, or none: each file's text must still hash as the preview said
/// and match the editor's buffer; then each new text goes to a temporary sibling, and only when
/// all are written are they renamed over the originals.
fn write_all_or_none(
    root: &Path,
    by_path: &BTreeMap<PathBuf, Vec<Edit>>,
    texts: &BTreeMap<PathBuf, String>,
    overlay: &crate::syntax::index::Overlay,
    expected: &Map<String, Value>,
) -> Result<(), CommandError> {
    let mut changed = Vec::new();
    let mut new_texts = Vec::new();
    for (file, edits) in by_path {
        let relative = display_relative(root, file);
        let on_disk = crate::source_files::read_regular_text(file).map_err(|error| CommandError::InvalidPath {
            path: file.display().to_string(),
            message: format!("cannot read it: {error}"),
        })?;
        let hash = content_hash(&on_disk);
        let unsaved = overlay.get(file).is_some_and(|buffer| **buffer != *on_disk);
        if expected.get(&relative).and_then(Value::as_str) != Some(hash.as_str()) || unsaved {
            changed.push(json!({
                "file": relative,
                "expectedHash": expected.get(&relative),
                "actualHash": hash,
                "unsavedInEditor": unsaved,
            }));
            continue;
        }
        new_texts.push((file.clone(), apply_edits(&texts[file], edits)));
    }
    let unexpected: Vec<&String> =
        expected.keys().filter(|file| !by_path.keys().any(|path| display_relative(root, path) == **file)).collect();
    if !changed.is_empty() || !unexpected.is_empty() {
        return Err(CommandError::typed(
            error_kinds::RENAME_FILES_CHANGED,
            crate::lsp::message::error_codes::INVALID_PARAMS,
            "files changed since the preview (or are unsaved in the editor); nothing was written: preview again",
            json!({ "argument": "expectedHashes", "changedFiles": changed, "filesNotInRename": unexpected }),
        ));
    }
    let mut temporaries = Vec::new();
    for (file, new_text) in &new_texts {
        let temporary = file.with_file_name(format!(
            ".{}.fslens-rename-{}",
            file.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default(),
            std::process::id()
        ));
        if let Err(error) = std::fs::write(&temporary, new_text) {
            for written in &temporaries {
                let _ = std::fs::remove_file(written);
            }
            let _ = std::fs::remove_file(&temporary);
            return Err(CommandError::Internal(format!(
                "cannot write {} (nothing was renamed): {error}",
                temporary.display()
            )));
        }
        temporaries.push(temporary);
    }
    for ((file, _), temporary) in new_texts.iter().zip(&temporaries) {
        std::fs::rename(temporary, file).map_err(|error| {
            CommandError::Internal(format!("cannot rename {} over {}: {error}", temporary.display(), file.display()))
        })?;
    }
    Ok(())
}

/// `fslens rename`: the command's arguments on the command line.
#[derive(clap::Args, Debug)]
pub struct RenameCliArgs {
    /// A qualified name to rename instead of --path/--line (e.g. `Billing.Types.Order.Total`).
    #[arg(long, conflicts_with_all = ["path", "line", "character", "word"])]
    pub symbol: Option<String>,
    /// The file (relative to the workspace or absolute).
    #[arg(long, required_unless_present = "symbol")]
    pub path: Option<String>,
    /// 0-based line.
    #[arg(long, required_unless_present = "symbol")]
    pub line: Option<u32>,
    /// 0-based UTF-16 column on the line.
    #[arg(long, conflicts_with = "word")]
    pub character: Option<u32>,
    /// A word on the line instead of a column (the symbol's name).
    #[arg(long)]
    pub word: Option<String>,
    /// Which occurrence of the word (from 1).
    #[arg(long)]
    pub occurrence: Option<u32>,
    /// The new name (double backticks are added when it needs them).
    #[arg(long)]
    pub new_name: String,
    /// editor | disk (default: a preview only).
    #[arg(long)]
    pub apply: Option<String>,
    /// With --apply disk: the preview's fileHashes, as JSON.
    #[arg(long)]
    pub expected_hashes: Option<String>,
    /// The preview's budget of touched lines.
    #[arg(long)]
    pub max_lines: Option<u32>,
    /// The deadline (also for FSAC to load), in milliseconds.
    #[arg(long, default_value_t = 120_000)]
    pub timeout_ms: u64,
    /// Also check the renamed code in memory (a what-if check; nothing is written).
    #[arg(long)]
    pub verify: bool,
    /// Print the JSON answer instead of the preview.
    #[arg(long)]
    pub json: bool,
}

impl RenameCliArgs {
    /// The command's argument object; `--expected-hashes` that is not JSON is sent as a string,
    /// which the command refuses naming `expectedHashes`.
    pub fn to_arguments(&self) -> Value {
        let mut arguments = json!({ "newName": self.new_name, "timeoutMs": self.timeout_ms });
        if let Some(symbol) = &self.symbol {
            arguments["symbol"] = json!(symbol);
        }
        if let Some(path) = &self.path {
            arguments["path"] = json!(path);
        }
        if let Some(line) = self.line {
            arguments["line"] = json!(line);
        }
        if let Some(character) = self.character {
            arguments["character"] = json!(character);
        }
        if let Some(word) = &self.word {
            arguments["word"] = json!(word);
        }
        if let Some(occurrence) = self.occurrence {
            arguments["occurrence"] = json!(occurrence);
        }
        if let Some(apply) = &self.apply {
            arguments["apply"] = json!(apply);
        }
        if let Some(hashes) = &self.expected_hashes {
            arguments["expectedHashes"] = serde_json::from_str(hashes).unwrap_or_else(|_| json!(hashes));
        }
        if let Some(max_lines) = self.max_lines {
            arguments["maxLines"] = json!(max_lines);
        }
        if self.verify {
            arguments["verify"] = json!(true);
        }
        arguments
    }
}

/// The text form of a rename answer: each file's lines before and after, then what is missed.
pub fn render_text(answer: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![format!(
        "rename {} -> {}: {} edits in {} files{}",
        text(&answer["oldName"]),
        text(&answer["newName"]),
        answer["totalEdits"],
        answer["totalFiles"],
        if answer["complete"] == json!(true) { String::new() } else { " (INCOMPLETE: see missed sites)".to_owned() }
    )];
    for file in answer["files"].as_array().into_iter().flatten() {
        lines.push(format!("{} ({} edits)", text(&file["file"]), file["edits"]));
        for row in file["lines"].as_array().into_iter().flatten() {
            let number = row["line"].as_u64().unwrap_or(0) + 1;
            lines.push(format!("  {number:>5} - {}", text(&row["before"])));
            lines.push(format!("  {number:>5} + {}", text(&row["after"])));
        }
    }
    if let Some(omitted) = answer["linesOmitted"].as_u64().filter(|omitted| *omitted > 0) {
        lines.push(format!("{omitted} more changed lines not shown (raise --max-lines)"));
    }
    for site in answer["missedSites"].as_array().into_iter().flatten() {
        lines.push(format!(
            "MISSED {}:{}:{} {}",
            text(&site["file"]),
            site["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
            site["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
            text(&site["kind"])
        ));
    }
    for note in answer["crossCheck"]["notes"].as_array().into_iter().flatten() {
        lines.push(format!("note: {}", text(note)));
    }
    let verification = &answer["verification"];
    if !verification.is_null() {
        let introduced = verification["delta"]["introduced"].as_array().map_or(0, Vec::len);
        lines.push(format!(
            "verified in memory: {} ({} error(s), {introduced} introduced by the rename)",
            text(&verification["verdict"]),
            verification["errorCount"]
        ));
        for diagnostic in verification["delta"]["introduced"].as_array().into_iter().flatten() {
            lines.push(format!(
                "  introduced {}:{}: FS{:04} {}",
                text(&diagnostic["file"]),
                diagnostic["range"]["start"]["line"].as_u64().map_or(0, |line| line + 1),
                diagnostic["code"].as_u64().unwrap_or(0),
                text(&diagnostic["message"])
            ));
        }
    }
    lines.push(match answer["applied"]["mode"].as_str() {
        Some("disk") => "written to disk".to_owned(),
        Some("editor") if answer["applied"]["applied"] == json!(true) => "applied in the editor".to_owned(),
        Some("editor") => format!("not applied in the editor: {}", text(&answer["applied"]["failureReason"])),
        _ => "preview only: nothing was written".to_owned(),
    });
    lines.join("\n")
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_names_are_plain_or_backticked() {
        assert_eq!(validated_new_name("total").unwrap(), "total");
        assert_eq!(validated_new_name("total'").unwrap(), "total'");
        assert_eq!(validated_new_name("grand total").unwrap(), "``grand total``");
        assert_eq!(validated_new_name("``grand total``").unwrap(), "``grand total``");
        assert_eq!(validated_new_name("``plain``").unwrap(), "plain");
        assert_eq!(validated_new_name("type").unwrap(), "``type``");
        assert_eq!(validated_new_name("1st").unwrap(), "``1st``");
        for bad in ["", "  ", "a`b", "two\nlines", "````"] {
            assert_eq!(validated_new_name(bad).unwrap_err().data()["argument"], json!("newName"), "{bad:?}");
        }
    }

    #[test]
    fn disk_mode_needs_the_preview_hashes() {
        let error = parse_arguments(&json!({"path": "a.fs", "line": 0, "word": "x", "newName": "y", "apply": "disk"}))
            .unwrap_err();
        assert_eq!(error.data()["argument"], json!("expectedHashes"));
        let error = parse_arguments(&json!({"path": "a.fs", "line": 0, "word": "x", "newName": "y", "apply": "yes"}))
            .unwrap_err();
        assert_eq!(error.data()["argument"], json!("apply"));
    }
}
