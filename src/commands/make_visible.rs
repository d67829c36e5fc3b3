//! `fslens.makeInternalVisible`: turn a `private` declaration into an `internal` one with a
//! one-token edit, found in the syntax tree (never by scanning text), optionally applied in
//! the editor and optionally with an `InternalsVisibleTo` for a test project.
//!
//! Nothing is written to disk: the edits are returned as a `WorkspaceEdit`, and with
//! `apply: true` sent to the editor as `workspace/applyEdit`, where the user sees and can undo
//! them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::diagnostic::answer::{OkStatus, Via};
use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position as LspPosition, Range};
use crate::lsp::types::{
    ApplyWorkspaceEditParams, TextDocumentIdentifier, TextDocumentPositionParams, TextEdit, WorkspaceEdit,
};
use crate::session_state::status::State;
use crate::syntax::index::Overlay;
use crate::syntax::model::{Access, Declaration, DeclarationKind, FileIndex};
use crate::workspace::{WorkspaceModel, load_workspace};

crate::commands::arguments::symbol_position_arguments! {
    cli: all();
    /// The arguments of `fslens.makeInternalVisible` (and the flags of `fslens make-visible`,
    /// which only prints the edit: there is no editor to apply it in).
    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct MakeVisibleArguments {
        /// The file with the declaration. Relative to the workspace root or absolute inside it;
        /// paths outside are refused.
        path,
        /// Also send the edit to the editor as `workspace/applyEdit`.
        #[serde(default)]
        #[arg(skip)]
        pub apply: bool,
        /// Project name to add `<InternalsVisibleTo Include="…" />` for in the declaring project,
        /// unless it is there.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub expose_to: Option<String>,
        /// One deadline for FSAC's confirmation (at most 10 s of it) and the editor's answer to
        /// `apply`, in milliseconds.
        #[serde(default)]
        #[arg(skip)]
        pub timeout_ms: TimeoutMs<60_000>,
    }
}

impl CommandArguments for MakeVisibleArguments {
    fn validate(&self) -> Result<(), CommandError> {
        self.position().validate()
    }
}

/// The answer of `fslens.makeInternalVisible`: the edit, or why there is none.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum MakeVisibleAnswer {
    Made(Box<MadeInternal>),
    NoAction(NoAction),
}

/// `status: "ok"`: the one-token edit (and the project edit of `exposeTo`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MadeInternal {
    pub status: OkStatus,
    pub declaration: DeclarationSummary,
    pub edits: WorkspaceEdit,
    pub applied_preview: String,
    pub original_line_text: String,
    /// `fsac` when FSAC confirmed a symbol at the name, else `syntax`.
    pub via: Via,
    pub notes: Vec<String>,
    pub written_to_disk: bool,
    /// With `apply`: the editor's answer, or why it could not be asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<Applied>,
}

/// `no_action`.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NoActionStatus {
    NoAction,
}

/// `status: "no_action"`: nothing to make internal here, and why.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NoAction {
    pub status: NoActionStatus,
    pub reason: String,
    /// Always `null`.
    pub edits: Option<WorkspaceEdit>,
    /// Always `null`.
    pub applied_preview: Option<String>,
    pub original_line_text: Option<String>,
    pub via: Via,
}

fn no_action(reason: impl Into<String>, original_line: &str) -> NoAction {
    NoAction {
        status: NoActionStatus::NoAction,
        reason: reason.into(),
        edits: None,
        applied_preview: None,
        original_line_text: Some(original_line.to_owned()),
        via: Via::Syntax,
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationSummary {
    pub name: String,
    pub full_name: String,
    /// The declaration kind as the syntax index spells it (`let`, `constructor`, …).
    pub kind: String,
    pub file: String,
}

/// With `apply`: whether the editor applied the edit, and why not.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    pub applied: bool,
    pub failure_reason: Option<String>,
}

/// The declaration to make internal: where its `private` is and what it is.
struct Target {
    name: String,
    full_name: String,
    kind: &'static str,
    modifier: Range,
    name_position: LspPosition,
    /// The declaration sits in a region the parser could not read cleanly.
    degraded: bool,
    notes: Vec<String>,
}

/// The file as the command reads it: the editor's buffer, else the disk, with its syntax.
struct SourceFile {
    path: PathBuf,
    text: String,
    lines: LineIndex,
    syntax: std::sync::Arc<crate::syntax::index::IndexedFile>,
}

pub async fn make_internal_visible(
    arguments: MakeVisibleArguments,
    context: CommandContext,
) -> Result<MakeVisibleAnswer, CommandError> {
    let deadline = tokio::time::Instant::now() + arguments.timeout_ms.as_duration_ms();
    let root = context.workspace_root()?.to_path_buf();
    let path = confine(&root, &arguments.path, "path")?;
    let (source, model) = read_source_and_model(&context, &root, path).await?;
    let position = arguments.position();
    let original_line = crate::commands::arguments::line_of(&source.text, position.line)?.to_owned();
    let target = match (position.column_on(&original_line), position.word) {
        (Ok(character), _) => target_at(&source, &context, position.line, character),
        // A word that is not on the line is no declaration to make internal: an answer, not a
        // refused argument.
        (Err(_), Some(word)) => {
            Err(format!("{word:?} (occurrence {}) is not on line {}", position.occurrence, position.line))
        }
        (Err(error), None) => return Err(error),
    };
    Ok(match target {
        Ok(target) => MakeVisibleAnswer::Made(Box::new(
            make_internal(target, &arguments, &source, &model, &root, &context, deadline).await?,
        )),
        Err(reason) => MakeVisibleAnswer::NoAction(no_action(reason, &original_line)),
    })
}

/// Reads the file (the editor's buffer, else the disk), indexes its syntax and loads the
/// workspace model, off the async thread.
async fn read_source_and_model(
    context: &CommandContext,
    root: &Path,
    path: PathBuf,
) -> Result<(SourceFile, WorkspaceModel), CommandError> {
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    let model_root = root.to_path_buf();
    crate::commands::run_blocking(move || {
        let text = crate::commands::paths::current_text(&overlay, &path)?;
        let mut single = Overlay::new();
        single.insert(path.clone(), text.as_str());
        index.refresh_path(&path, &single);
        let syntax = index
            .file(&path)
            .ok_or_else(|| CommandError::Internal(format!("{} could not be parsed", path.display())))?;
        let model = load_workspace(&model_root).map_err(|error| CommandError::InvalidPath {
            path: model_root.display().to_string(),
            message: format!("{error:#}"),
        })?;
        let lines = LineIndex::new(&text);
        Ok((SourceFile { path, text, lines, syntax }, model))
    })
    .await
}

/// The private declaration at the position, or why there is none to make internal.
fn target_at(source: &SourceFile, context: &CommandContext, line: u32, character: u32) -> Result<Target, String> {
    let offset = source.lines.offset(&source.text, LspPosition { line, character });
    match declaration_at(&source.syntax.index, offset) {
        Some(slot) => declared_target(source, context, slot, offset),
        None => and_binding_target(source, line, offset),
    }
}

/// A declaration the syntax tree has: private (its `private` becomes `internal`), or a public
/// type whose primary constructor is private.
fn declared_target(
    source: &SourceFile,
    context: &CommandContext,
    slot: usize,
    offset: usize,
) -> Result<Target, String> {
    let index = context.syntax_index();
    let file = &source.syntax.index;
    let declaration = &file.declarations[slot];
    let full_name = index.full_name(file, slot);
    let name_position = LspPosition { line: declaration.name_start.line, character: declaration.name_start.character };
    let private = private_token(file, declaration, &source.text, &source.lines);
    if declaration.access == Access::Private {
        let Some(modifier) = private else {
            return Err(format!("{full_name} is private, but its `private` keyword is not in its header"));
        };
        return Ok(Target {
            name: index.name(declaration.name).to_string(),
            full_name,
            kind: declaration.kind.as_str(),
            modifier,
            name_position,
            degraded: !declaration.certain,
            notes: Vec::new(),
        });
    }
    let access = match declaration.access {
        Access::Internal => "internal",
        Access::Public => "public",
        _ => "public by default",
    };
    // `type Token private (value: string) =`: the type is public, its primary constructor is
    // private. Pointing at that `private` or after it means the constructor; pointing at the
    // type's name gets told where to point.
    let primary_constructor = private.filter(|_| declaration.kind == DeclarationKind::Class);
    let not_private = format!("{full_name} is not private (it is {access})");
    match primary_constructor {
        Some(modifier) if offset >= source.lines.offset(&source.text, modifier.start) => Ok(Target {
            name: String::from("new"),
            full_name: format!("{full_name}.new"),
            kind: "constructor",
            modifier,
            name_position,
            degraded: !declaration.certain,
            notes: vec![format!("the private primary constructor of {full_name} (the type itself is {access})")],
        }),
        Some(modifier) => Err(format!(
            "{not_private}; its primary constructor is: point at that `private` (line {}, character {}) to make \
                 the constructor internal",
            modifier.start.line, modifier.start.character
        )),
        None => Err(not_private),
    }
}

/// `and private name …`: the grammar misreads it, but its tokens still say what it is.
fn and_binding_target(source: &SourceFile, line: u32, offset: usize) -> Result<Target, String> {
    let (text, lines) = (&source.text, &source.lines);
    let grammar = crate::syntax::model::GrammarKind::for_path(&source.path)
        .unwrap_or(crate::syntax::model::GrammarKind::Implementation);
    match crate::syntax::tokens::private_and_binding(text, grammar, line as usize) {
        Some(((start, end), name)) if offset >= lines.offset(text, LspPosition { line, character: 0 }) => {
            let name_at = text[end..].find(&name).map_or(end, |at| end + at);
            Ok(Target {
                full_name: name.clone(),
                name,
                kind: "let",
                modifier: Range { start: lines.position(text, start), end: lines.position(text, end) },
                name_position: lines.position(text, name_at),
                degraded: true,
                notes: vec![
                    "read from the syntax tree's tokens: tree-sitter-fsharp parses `and` bindings with an access modifier as an expression".to_owned(),
                ],
            })
        }
        _ => Err("no declaration at this position (comments, strings and bodies are not declarations)".to_owned()),
    }
}

/// The edit for `target` (and `exposeTo`'s project edit), confirmed with FSAC when it is
/// ready, previewed, and with `apply` sent to the editor.
async fn make_internal(
    target: Target,
    arguments: &MakeVisibleArguments,
    source: &SourceFile,
    model: &WorkspaceModel,
    root: &Path,
    context: &CommandContext,
    deadline: tokio::time::Instant,
) -> Result<MadeInternal, CommandError> {
    // With FSAC ready, confirm that the compiler sees a symbol at the declared name.
    let via = confirm_with_fsac(context, &source.path, &source.text, target.name_position, deadline).await;
    let mut notes = target.notes;
    if target.degraded {
        notes.push("the declaration sits in a region the parser could not read cleanly; check the edit".to_owned());
    }
    let uri =
        crate::uri::path_to_uri(&source.path).ok_or_else(|| CommandError::Internal("cannot make a URI".to_owned()))?;
    let mut changes = BTreeMap::new();
    changes.insert(uri, vec![TextEdit::new(target.modifier, "internal")]);
    if let Some(target_project) = &arguments.expose_to {
        match internals_visible_to_edit(model, &source.path, target_project)? {
            ExposeOutcome::Edit { project_uri, edit, project } => {
                changes.insert(project_uri, vec![edit]);
                notes.push(format!(
                    "adds InternalsVisibleTo {target_project:?} to {}",
                    display_relative(root, &project)
                ));
            }
            ExposeOutcome::AlreadyThere { project } => notes.push(format!(
                "{} already has InternalsVisibleTo {target_project:?}; no project edit",
                display_relative(root, &project)
            )),
        }
    }
    let (applied_preview, original_line_text) = preview_of(source, target.modifier);
    let edits = WorkspaceEdit::changes(changes);
    let applied = match arguments.apply {
        true => Some(apply_in_editor(context, &target.name, &edits, arguments, deadline).await?),
        false => None,
    };
    Ok(MadeInternal {
        status: OkStatus::Ok,
        declaration: DeclarationSummary {
            name: target.name,
            full_name: target.full_name,
            kind: target.kind.to_owned(),
            file: display_relative(root, &source.path),
        },
        edits,
        applied_preview,
        original_line_text,
        via,
        notes,
        written_to_disk: false,
        applied,
    })
}

/// The line of the `private` keyword after the edit, and as it is.
fn preview_of(source: &SourceFile, modifier: Range) -> (String, String) {
    let (text, lines) = (&source.text, &source.lines);
    let start = lines.offset(text, modifier.start);
    let end = lines.offset(text, modifier.end);
    let line_start = lines.offset(text, LspPosition { line: modifier.start.line, character: 0 });
    let line_of_edit = lines.line_text(text, modifier.start.line as usize).unwrap_or_default();
    let preview =
        format!("{}internal{}", &text[line_start..start], &line_of_edit[(end - line_start).min(line_of_edit.len())..]);
    (preview, line_of_edit.to_owned())
}

/// Sends the edit to the editor as `workspace/applyEdit`: its answer, or why there is none.
async fn apply_in_editor(
    context: &CommandContext,
    name: &str,
    edits: &WorkspaceEdit,
    arguments: &MakeVisibleArguments,
    deadline: tokio::time::Instant,
) -> Result<Applied, CommandError> {
    let params = ApplyWorkspaceEditParams { label: format!("Make {name} internal"), edit: Some(edits.clone()) };
    let answer = crate::commands::diagnostic::apply_in_editor(context, &params, deadline).await?;
    let (applied, failure_reason) = answer.unwrap_or_else(|| {
        (false, Some(format!("the editor did not answer within timeoutMs = {}", arguments.timeout_ms)))
    });
    Ok(Applied { applied, failure_reason })
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
fn private_token(file: &FileIndex, declaration: &Declaration, text: &str, lines: &LineIndex) -> Option<Range> {
    let (start, end) = (declaration.header_bytes.0 as usize, declaration.header_bytes.1 as usize);
    file.access_modifiers
        .iter()
        .filter(|span| span.access == Access::Private)
        .find(|span| {
            let position = LspPosition { line: span.range.start.line, character: span.range.start.character };
            let offset = lines.offset(text, position);
            start <= offset && offset < end && text[offset..].starts_with("private")
        })
        .map(|span| Range {
            start: LspPosition { line: span.range.start.line, character: span.range.start.character },
            end: LspPosition { line: span.range.end.line, character: span.range.end.character },
        })
}

/// `fsac` when FSAC is ready and has a hover at the declared name, else `syntax`.
async fn confirm_with_fsac(
    context: &CommandContext,
    path: &Path,
    text: &str,
    name_position: LspPosition,
    deadline: tokio::time::Instant,
) -> Via {
    let Ok(status) = context.status().await else { return Via::Syntax };
    if status.state != State::Ready {
        return Via::Syntax;
    }
    let Some(uri) = crate::uri::path_to_uri(path) else { return Via::Syntax };
    if context.acquire_document(&uri, text.to_owned()).await.is_err() {
        return Via::Syntax;
    }
    let params = TextDocumentPositionParams {
        text_document: TextDocumentIdentifier { uri: uri.clone() },
        position: name_position,
    };
    let Ok(params) = serde_json::to_value(params) else { return Via::Syntax };
    let deadline = deadline.min(tokio::time::Instant::now() + std::time::Duration::from_secs(10));
    let answer = context.backend_request("textDocument/hover", params, deadline).await;
    context.release_document(&uri);
    match answer {
        Ok(Ok(hover)) if !hover.is_null() => Via::Fsac,
        _ => Via::Syntax,
    }
}

enum ExposeOutcome {
    Edit { project_uri: String, edit: TextEdit, project: PathBuf },
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
    let edit = TextEdit::new(
        Range { start: at, end: at },
        format!("  <ItemGroup>\n    <InternalsVisibleTo Include=\"{escaped}\" />\n  </ItemGroup>\n"),
    );
    let project_uri =
        crate::uri::path_to_uri(&declaring.path).ok_or_else(|| CommandError::Internal("cannot make a URI".into()))?;
    Ok(ExposeOutcome::Edit { project_uri, edit, project: declaring.path.clone() })
}

/// Definite with the edit; not definite for `no_action`.
impl crate::commands::outcome::Answered for MakeVisibleAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(matches!(self, MakeVisibleAnswer::Made(_)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::commands::params::parse_arguments;

    #[test]
    fn words_are_found_whole_and_counted() {
        assert_eq!(crate::syntax::words::word_column("let private rate = rate2 + rate", "rate", 1), Some(12));
        assert_eq!(crate::syntax::words::word_column("let private rate = rate2 + rate", "rate", 2), Some(27));
        assert_eq!(crate::syntax::words::word_column("let é = é", "é", 2), Some(8));
        assert_eq!(crate::syntax::words::word_column("let x = 1", "y", 1), None);
    }

    #[test]
    fn arguments_name_what_is_wrong() {
        let blamed = |argument: Value| match parse_arguments::<MakeVisibleArguments>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        };
        assert_eq!(blamed(json!({"line": 1, "word": "x"})), "path");
        assert_eq!(blamed(json!({"path": "a.fs", "word": "x"})), "line");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1})), "character");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x", "character": 2})), "character");
        assert_eq!(blamed(json!({"path": "a.fs", "line": -1, "word": "x"})), "line");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x", "apply": "yes"})), "apply");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x", "occurrence": 0})), "occurrence");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x", "expose": "T"})), "expose");
        let parsed: MakeVisibleArguments = parse_arguments(json!({"path": "a.fs", "line": 1, "word": "x"})).unwrap();
        assert_eq!((parsed.occurrence.get(), parsed.apply, parsed.timeout_ms.get()), (1, false, 60_000));
    }

    #[test]
    fn an_answer_reads_back_to_the_value_sent_and_renders_the_project_edit() {
        let at = |line: u32, character: u32| json!({"line": line, "character": character});
        let sent = json!({
            "status": "ok",
            "declaration": {"name": "Hidden", "fullName": "Shipping.Domain.Visibility.Hidden", "kind": "let", "file": "src/D/Visibility.fs"},
            "edits": {"changes": {
                "file:///w/src/D/D.fsproj": [{"range": {"start": at(9, 0), "end": at(9, 0)}, "newText": "  <ItemGroup>\n    <InternalsVisibleTo Include=\"App\" />\n  </ItemGroup>\n"}],
                "file:///w/src/D/Visibility.fs": [{"range": {"start": at(16, 4), "end": at(16, 11)}, "newText": "internal"}],
            }},
            "appliedPreview": "let internal Hidden = 1",
            "originalLineText": "let private Hidden = 1",
            "via": "fsac",
            "notes": ["adds InternalsVisibleTo \"App\" to src/D/D.fsproj"],
            "writtenToDisk": false,
            "applied": {"applied": false, "failureReason": null},
        });
        let read: MakeVisibleAnswer = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        assert_eq!(
            crate::cli::make_visible::render_text(&read),
            "Shipping.Domain.Visibility.Hidden (let, src/D/Visibility.fs)\n- let private Hidden = 1\n+ let internal Hidden = 1\n\
             /w/src/D/D.fsproj:10: insert\n+   <ItemGroup>\n+     <InternalsVisibleTo Include=\"App\" />\n+   </ItemGroup>\n\
             note: adds InternalsVisibleTo \"App\" to src/D/D.fsproj\napplied in the editor: false"
        );
        assert_eq!(crate::cli::exit_code_of_answer(&read), 0);
        let sent = serde_json::to_value(MakeVisibleAnswer::NoAction(no_action("why", "let x = 1"))).unwrap();
        let read: MakeVisibleAnswer = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        assert_eq!(
            (crate::cli::make_visible::render_text(&read).as_str(), crate::cli::exit_code_of_answer(&read)),
            ("no action: why", 2)
        );
    }

    #[test]
    fn a_no_action_answer_keeps_its_null_members() {
        let answer = serde_json::to_value(MakeVisibleAnswer::NoAction(no_action("why", "let x = 1"))).unwrap();
        assert_eq!(
            answer,
            json!({"status": "no_action", "reason": "why", "edits": null, "appliedPreview": null, "originalLineText": "let x = 1", "via": "syntax"})
        );
    }
}
