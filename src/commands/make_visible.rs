//! `fslens.makeInternalVisible`: turn a `private` declaration into an `internal` one with a
//! one-token edit, found in the syntax tree (never by scanning text), optionally applied in
//! the editor and optionally with an `InternalsVisibleTo` for a test project.
//!
//! Nothing is written to disk: the edits are returned as a `WorkspaceEdit`, and with
//! `apply: true` sent to the editor as `workspace/applyEdit`, where the user sees and can undo
//! them.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_bool, optional_integer, optional_string, reject_unknown};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position as LspPosition};
use crate::session_state::status::State;
use crate::syntax::index::Overlay;
use crate::syntax::model::{Access, Declaration, DeclarationKind, FileIndex};
use crate::workspace::{WorkspaceModel, load_workspace};

#[derive(Debug)]
struct Arguments {
    path: String,
    line: u32,
    character: Option<u32>,
    word: Option<String>,
    occurrence: usize,
    apply: bool,
    expose_to: Option<String>,
    /// One deadline for the command: FSAC's confirmation (at most 10 s of it) and the editor's
    /// answer to `workspace/applyEdit`.
    timeout: std::time::Duration,
}

fn parse_arguments(argument: &Value) -> Result<Arguments, CommandError> {
    let object = object_of(argument)?;
    reject_unknown(object, &["path", "line", "character", "word", "occurrence", "apply", "exposeTo", "timeoutMs"])?;
    let integer = |name: &str| optional_integer(object, name, 0, u32::MAX as u64);
    let text = |name: &str| optional_string(object, name);
    let path = text("path")?.ok_or_else(|| CommandError::invalid_argument("path", "required"))?;
    let line = integer("line")?.ok_or_else(|| CommandError::invalid_argument("line", "required (0-based)"))? as u32;
    let character = integer("character")?.map(|value| value as u32);
    let word = text("word")?;
    crate::commands::arguments::character_or_word(character, word.as_deref())?;
    let occurrence = integer("occurrence")?.unwrap_or(1) as usize;
    if occurrence == 0 {
        return Err(CommandError::invalid_argument("occurrence", "counts from 1"));
    }
    let apply = optional_bool(object, "apply")?.unwrap_or(false);
    let timeout = crate::commands::arguments::timeout_argument(object, 60_000)?;
    Ok(Arguments { path, line, character, word, occurrence, apply, expose_to: text("exposeTo")?, timeout })
}

fn no_action(reason: impl Into<String>, original_line: Option<&str>, via: &str) -> Value {
    json!({
        "status": "no_action",
        "reason": reason.into(),
        "edits": null,
        "appliedPreview": null,
        "originalLineText": original_line,
        "via": via,
    })
}

pub async fn make_internal_visible(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let arguments = parse_arguments(&argument)?;
    let deadline = tokio::time::Instant::now() + arguments.timeout;
    let root = context.workspace_root()?.to_path_buf();
    let path = confine(&root, &arguments.path, "path")?;
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    let file_path = path.clone();
    let model_root = root.clone();
    let (text, file, model) = crate::commands::run_blocking(move || {
        let text = match overlay.get(&file_path) {
            Some(text) => text.to_string(),
            None => crate::source_files::read_regular_text(&file_path).map_err(|error| CommandError::InvalidPath {
                path: file_path.display().to_string(),
                message: format!("cannot read it: {error}"),
            })?,
        };
        let mut single = Overlay::new();
        single.insert(file_path.clone(), text.as_str());
        index.refresh_path(&file_path, &single);
        let file = index
            .file(&file_path)
            .ok_or_else(|| CommandError::Internal(format!("{} could not be parsed", file_path.display())))?;
        let model = load_workspace(&model_root).map_err(|error| CommandError::InvalidPath {
            path: model_root.display().to_string(),
            message: format!("{error:#}"),
        })?;
        Ok((text, file, model))
    })
    .await?;
    let lines = LineIndex::new(&text);
    let Some(line_text) = lines.line_text(&text, arguments.line as usize) else {
        return Err(CommandError::invalid_argument("line", format!("the file has {} lines", lines.line_count())));
    };
    let original_line = line_text.to_owned();
    let character = match (&arguments.word, arguments.character) {
        (Some(word), _) => match nth_word(line_text, word, arguments.occurrence) {
            Some(character) => character,
            None => {
                return Ok(no_action(
                    format!("{word:?} (occurrence {}) is not on line {}", arguments.occurrence, arguments.line),
                    Some(&original_line),
                    "syntax",
                ));
            }
        },
        (None, Some(character)) => character,
        (None, None) => unreachable!("checked while parsing"),
    };
    let offset = lines.offset(&text, LspPosition { line: arguments.line, character });

    let index = context.syntax_index();
    let mut notes = Vec::new();
    let (name, full_name, kind, modifier, name_position, degraded) = match declaration_at(&file.index, offset) {
        Some(target) => {
            let declaration = &file.index.declarations[target];
            let full_name = index.full_name(&file.index, target);
            let name_position =
                LspPosition { line: declaration.name_start.line, character: declaration.name_start.character };
            if declaration.access != Access::Private {
                let access = match declaration.access {
                    Access::Internal => "internal",
                    Access::Public => "public",
                    _ => "public by default",
                };
                // `type Token private (value: string) =`: the type is public, its primary
                // constructor is private. Pointing at that `private` or after it means the
                // constructor; pointing at the type's name gets told where to point.
                let primary_constructor = (declaration.kind == DeclarationKind::Class)
                    .then(|| private_token(&file.index, declaration, &text, &lines))
                    .flatten();
                let not_private = format!("{full_name} is not private (it is {access})");
                match primary_constructor {
                    Some(modifier) if offset >= lines.offset(&text, modifier_start(&modifier)) => {
                        notes.push(format!(
                            "the private primary constructor of {full_name} (the type itself is {access})"
                        ));
                        let full_name = format!("{full_name}.new");
                        (String::from("new"), full_name, "constructor", modifier, name_position, !declaration.certain)
                    }
                    Some(modifier) => {
                        let at = modifier_start(&modifier);
                        let message = format!(
                            "{not_private}; its primary constructor is: point at that `private` (line {}, character \
                             {}) to make the constructor internal",
                            at.line, at.character
                        );
                        return Ok(no_action(message, Some(&original_line), "syntax"));
                    }
                    None => return Ok(no_action(not_private, Some(&original_line), "syntax")),
                }
            } else {
                let Some(modifier) = private_token(&file.index, declaration, &text, &lines) else {
                    return Ok(no_action(
                        format!("{full_name} is private, but its `private` keyword is not in its header"),
                        Some(&original_line),
                        "syntax",
                    ));
                };
                (
                    index.name(declaration.name).to_string(),
                    full_name,
                    declaration.kind.as_str(),
                    modifier,
                    name_position,
                    !declaration.certain,
                )
            }
        }
        None => {
            // The grammar misreads `and private name …`; its tokens still say what it is.
            let grammar = crate::syntax::model::GrammarKind::for_path(&path)
                .unwrap_or(crate::syntax::model::GrammarKind::Implementation);
            match crate::syntax::tokens::private_and_binding(&text, grammar, arguments.line as usize) {
                Some(((start, end), name))
                    if offset >= lines.offset(&text, LspPosition { line: arguments.line, character: 0 }) =>
                {
                    notes.push(
                        "read from the syntax tree's tokens: tree-sitter-fsharp parses `and` bindings with an access modifier as an expression".to_owned(),
                    );
                    let modifier = json!({ "start": lines.position(&text, start), "end": lines.position(&text, end) });
                    let name_at = text[end..].find(&name).map_or(end, |at| end + at);
                    (name.clone(), name, "let", modifier, lines.position(&text, name_at), true)
                }
                _ => {
                    return Ok(no_action(
                        "no declaration at this position (comments, strings and bodies are not declarations)",
                        Some(&original_line),
                        "syntax",
                    ));
                }
            }
        }
    };

    // With FSAC ready, confirm that the compiler sees a symbol at the declared name.
    let via = confirm_with_fsac(&context, &path, &text, name_position, deadline).await;

    let uri = crate::uri::path_to_uri(&path).ok_or_else(|| CommandError::Internal("cannot make a URI".to_owned()))?;
    let edit = json!({ "range": modifier, "newText": "internal" });
    let mut changes = serde_json::Map::new();
    changes.insert(uri.clone(), json!([edit]));
    if degraded {
        notes.push("the declaration sits in a region the parser could not read cleanly; check the edit".to_owned());
    }
    if let Some(target_project) = &arguments.expose_to {
        match internals_visible_to_edit(&model, &path, target_project)? {
            ExposeOutcome::Edit { project_uri, edit, project } => {
                changes.insert(project_uri, json!([edit]));
                notes.push(format!(
                    "adds InternalsVisibleTo {target_project:?} to {}",
                    display_relative(&root, &project)
                ));
            }
            ExposeOutcome::AlreadyThere { project } => notes.push(format!(
                "{} already has InternalsVisibleTo {target_project:?}; no project edit",
                display_relative(&root, &project)
            )),
        }
    }
    let start = lines.offset(&text, modifier_start(&modifier));
    let end = lines.offset(&text, modifier_end(&modifier));
    let line_start = lines.offset(&text, LspPosition { line: modifier_start(&modifier).line, character: 0 });
    let line_of_edit = lines.line_text(&text, modifier_start(&modifier).line as usize).unwrap_or_default();
    let preview =
        format!("{}internal{}", &text[line_start..start], &line_of_edit[(end - line_start).min(line_of_edit.len())..]);
    let workspace_edit = json!({ "changes": changes });
    let mut answer = json!({
        "status": "ok",
        "declaration": { "name": name, "fullName": full_name, "kind": kind, "file": display_relative(&root, &path) },
        "edits": workspace_edit,
        "appliedPreview": preview,
        "originalLineText": line_of_edit,
        "via": via,
        "notes": notes,
        "writtenToDisk": false,
    });
    if arguments.apply {
        let params = json!({ "label": format!("Make {name} internal"), "edit": workspace_edit });
        answer["applied"] = match context
            .editor_request("workspace/applyEdit", params, "/workspace/applyEdit", deadline)
            .await
        {
            Ok(Ok(result)) => json!({
                "applied": result["applied"] == json!(true),
                "failureReason": result.get("failureReason"),
            }),
            Ok(Err(error)) => json!({ "applied": false, "failureReason": error.message }),
            Err(CommandError::Timeout) => {
                json!({ "applied": false, "failureReason": format!("the editor did not answer within timeoutMs = {}", arguments.timeout.as_millis()) })
            }
            Err(error) => return Err(error),
        };
    }
    Ok(answer)
}

fn modifier_start(range: &Value) -> LspPosition {
    serde_json::from_value(range["start"].clone()).unwrap_or(LspPosition { line: 0, character: 0 })
}

fn modifier_end(range: &Value) -> LspPosition {
    serde_json::from_value(range["end"].clone()).unwrap_or(LspPosition { line: 0, character: 0 })
}

/// The 0-based UTF-16 column of the `occurrence`-th whole-word `word` on `line`.
fn nth_word(line: &str, word: &str, occurrence: usize) -> Option<u32> {
    if word.is_empty() {
        return None;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let mut found = 0;
    for (at, _) in line.match_indices(word) {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            continue;
        }
        found += 1;
        if found == occurrence {
            return Some(line[..at].encode_utf16().count() as u32);
        }
    }
    None
}

/// The innermost declaration whose header (the text up to its `=` or body) or name contains
/// the byte `offset`.
fn declaration_at(file: &FileIndex, offset: usize) -> Option<usize> {
    file.declarations
        .iter()
        .enumerate()
        .filter(|(_, declaration)| {
            let (start, end) = (declaration.header_bytes.0 as usize, declaration.header_bytes.1 as usize);
            start <= offset && offset <= end
        })
        .min_by_key(|(_, declaration)| declaration.header_bytes.1 - declaration.header_bytes.0)
        .map(|(slot, _)| slot)
}

/// The range of the `private` keyword inside the declaration's header, from the syntax tree's
/// access-modifier spans.
fn private_token(file: &FileIndex, declaration: &Declaration, text: &str, lines: &LineIndex) -> Option<Value> {
    let (start, end) = (declaration.header_bytes.0 as usize, declaration.header_bytes.1 as usize);
    file.access_modifiers
        .iter()
        .filter(|span| span.access == Access::Private)
        .find(|span| {
            let position = LspPosition { line: span.range.start.line, character: span.range.start.character };
            let offset = lines.offset(text, position);
            start <= offset && offset < end && text[offset..].starts_with("private")
        })
        .map(|span| {
            json!({
                "start": { "line": span.range.start.line, "character": span.range.start.character },
                "end": { "line": span.range.end.line, "character": span.range.end.character },
            })
        })
}

async fn confirm_with_fsac(
    context: &CommandContext,
    path: &Path,
    text: &str,
    name_position: LspPosition,
    deadline: tokio::time::Instant,
) -> &'static str {
    let Ok(status) = context.status().await else { return "syntax" };
    if status.state != State::Ready {
        return "syntax";
    }
    let Some(uri) = crate::uri::path_to_uri(path) else { return "syntax" };
    if context.acquire_document(&uri, text.to_owned()).await.is_err() {
        return "syntax";
    }
    let params = json!({
        "textDocument": { "uri": uri },
                "position": name_position,
    });
    let deadline = deadline.min(tokio::time::Instant::now() + std::time::Duration::from_secs(10));
    let answer = context.backend_request("textDocument/hover", params, deadline).await;
    context.release_document(&uri);
    match answer {
        Ok(Ok(hover)) if !hover.is_null() => "fsac",
        _ => "syntax",
    }
}

enum ExposeOutcome {
    Edit { project_uri: String, edit: Value, project: PathBuf },
    AlreadyThere { project: PathBuf },
}

/// An edit that adds `<InternalsVisibleTo Include="target" />` to the project compiling
/// `file`, unless it is there already.
fn internals_visible_to_edit(model: &WorkspaceModel, file: &Path, target: &str) -> Result<ExposeOutcome, CommandError> {
    if !model.projects.iter().any(|project| project.name == target) {
        let known: Vec<&str> = model.projects.iter().map(|project| project.name.as_str()).collect();
        return Err(CommandError::invalid_argument(
            "exposeTo",
            format!("no project named {target:?} in the workspace (known: {})", known.join(", ")),
        ));
    }
    let declaring = model
        .projects_compiling(file)
        .into_iter()
        .next()
        .ok_or_else(|| CommandError::invalid_argument("exposeTo", "the file is compiled by no project"))?;
    let project_text = std::fs::read_to_string(&declaring.path).map_err(|error| CommandError::InvalidPath {
        path: declaring.path.display().to_string(),
        message: format!("cannot read it: {error}"),
    })?;
    let project_document = crate::workspace::xml::parse_xml(&project_text).map_err(|error| {
        CommandError::InvalidPath { path: declaring.path.display().to_string(), message: error.to_string() }
    })?;
    let already = project_document.descendants().into_iter().any(|element| {
        let name = crate::workspace::xml::local_name(&element.name);
        (name == "InternalsVisibleTo" && element.attribute("Include") == Some(target))
            || (name == "AssemblyAttribute"
                && element.attribute("Include").is_some_and(|include| include.ends_with("InternalsVisibleToAttribute"))
                && element.child_text("_Parameter1") == Some(target))
    });
    if already {
        return Ok(ExposeOutcome::AlreadyThere { project: declaring.path.clone() });
    }
    let Some(close) = project_text.rfind("</Project>") else {
        return Err(CommandError::InvalidPath {
            path: declaring.path.display().to_string(),
            message: "no </Project> to add an ItemGroup before".to_owned(),
        });
    };
    let lines = LineIndex::new(&project_text);
    let at = lines.position(&project_text, close);
    let escaped = target.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    let edit = json!({
        "range": { "start": at, "end": at },
        "newText": format!("  <ItemGroup>\n    <InternalsVisibleTo Include=\"{escaped}\" />\n  </ItemGroup>\n"),
    });
    let project_uri =
        crate::uri::path_to_uri(&declaring.path).ok_or_else(|| CommandError::Internal("cannot make a URI".into()))?;
    Ok(ExposeOutcome::Edit { project_uri, edit, project: declaring.path.clone() })
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
    fn words_are_found_whole_and_counted() {
        assert_eq!(nth_word("let private rate = rate2 + rate", "rate", 1), Some(12));
        assert_eq!(nth_word("let private rate = rate2 + rate", "rate", 2), Some(27));
        assert_eq!(nth_word("let é = é", "é", 2), Some(8));
        assert_eq!(nth_word("let x = 1", "y", 1), None);
    }

    #[test]
    fn arguments_name_what_is_wrong() {
        assert_eq!(parse_arguments(&json!({"line": 1, "word": "x"})).unwrap_err().data()["argument"], json!("path"));
        assert_eq!(
            parse_arguments(&json!({"path": "a.fs", "line": 1})).unwrap_err().data()["argument"],
            json!("character")
        );
        assert_eq!(
            parse_arguments(&json!({"path": "a.fs", "line": -1, "word": "x"})).unwrap_err().data()["argument"],
            json!("line")
        );
        assert_eq!(
            parse_arguments(&json!({"path": "a.fs", "line": 1, "word": "x", "apply": "yes"})).unwrap_err().data()["argument"],
            json!("apply")
        );
    }
}
