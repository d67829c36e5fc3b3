//! `fslens.rename`: a rename preview from FSAC's `prepareRename` and `rename`, cross-checked
//! against `fslens.find` for the same symbol over every project, and applied only when asked.
//!
//! The preview groups the edits by file with every touched line's text before and after, and a
//! content hash of each file. A site that find reports and the rename's edit set lacks is a
//! `missedSites` entry, and then the preview is not `complete`. `apply: "editor"` sends one
//! `workspace/applyEdit` (the user can undo it); `apply: "disk"` first checks every file's
//! hash against the preview's (`expectedHashes`), then writes each file to a temporary
//! sibling and renames it over the original, all files or none.
//!
//! A rename renames one symbol. A `symbol` name that several compiler symbols share (a type
//! and the module of its name, two records' fields) is answered `status: "ambiguous"` with
//! each candidate's compiler name, kind and definition, and nothing is renamed: never a pick.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{ResolvedPosition, SymbolPosition};
use crate::commands::check::CheckArguments;
use crate::commands::check::edits::WhatIfEdits;
use crate::commands::find::answer::Completeness;
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments, FindTimeoutMs};
use crate::commands::find::rows::{RowPosition, RowRange, SiteKind, SiteVia, bound_line};
use crate::commands::find::{KEYWORDS, literal_at};
use crate::commands::params::{Bounded, CommandArguments, Coordinate, TimeoutMs};
use crate::commands::paths::display_relative;
use crate::commands::workspace_edit::{
    Edit, EditsInvalidData, apply_edits, content_hash, edits_by_path, edits_inside, write_all_or_none,
};
use crate::documents::{LineIndex, Position};
use crate::lsp::ext::error_kinds;
use crate::lsp::types::{ApplyWorkspaceEditResult, TextDocumentIdentifier, TextDocumentPositionParams};
use crate::session_state::status::State;

/// Default and upper bound of `maxLines`, the preview's budget of touched lines.
pub const DEFAULT_MAX_LINES: u64 = 200;
pub const MAX_MAX_LINES: u64 = 2_000;
/// The longest line text a preview row carries (UTF-16 units), as find's rows.
const LINE_TEXT_LIMIT: usize = crate::commands::find::rows::LINE_TEXT_MAX_UNITS;

crate::commands::arguments::symbol_position_arguments! {
    cli: all();
    /// The arguments of `fslens.rename`, and the flags of `fslens rename` (with
    /// [`RenameCommandLine`]'s `--expected-hashes`).
    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct RenameArguments {
        /// A qualified name (Module.Type.member) instead of path + line: find's one definition of
        /// it is the position; a name several symbols share is answered `ambiguous` with them.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long, conflicts_with_all = ["path", "line", "character", "word"])]
        pub symbol: Option<String>,
        /// The file with a use or the declaration of the symbol (required without `symbol`).
        /// Relative to the workspace root or absolute inside it; paths outside are refused.
        path? unless "symbol",
        /// The new name; backticks are added when it needs them.
        #[arg(long)]
        pub new_name: String,
        /// false: preview only; editor: one workspace/applyEdit (the user can undo it); disk: write
        /// every file or none (needs `expectedHashes`).
        #[serde(default)]
        #[arg(long, value_enum, default_value_t)]
        pub apply: ApplyMode,
        /// The preview's fileHashes (file → hash); required with apply disk.
        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "file_hashes")]
        #[arg(skip)]
        pub expected_hashes: Option<BTreeMap<String, String>>,
        /// The preview's budget of touched lines.
        #[serde(default)]
        #[arg(long, default_value_t)]
        pub max_lines: Bounded<1, MAX_MAX_LINES, DEFAULT_MAX_LINES>,
        /// One deadline for FSAC, find and the editor, in milliseconds.
        #[serde(default)]
        #[arg(long, default_value_t, value_parser = TimeoutMs::<120_000>::parse_clamped)]
        pub timeout_ms: TimeoutMs<120_000>,
        /// Also answer the compiler's verdict on the renamed code (a what-if check of the edit;
        /// nothing is written) as verification.
        #[serde(default)]
        #[arg(long)]
        pub verify: bool,
    }
}

impl CommandArguments for RenameArguments {
    fn validate(&self) -> Result<(), CommandError> {
        match &self.symbol {
            Some(symbol) => {
                if symbol.trim().is_empty() {
                    return Err(CommandError::invalid_argument("symbol", "is empty"));
                }
                if let Some(given) = self.first_position_member() {
                    return Err(CommandError::invalid_argument(
                        given,
                        "give symbol or a position (path, line, word or character), not both",
                    ));
                }
            }
            None => {
                if self.path.is_none() {
                    return Err(CommandError::invalid_argument("path", "required (or give a qualified symbol)"));
                }
                self.validate_position()?;
            }
        }
        validated_new_name(&self.new_name)?;
        if self.apply == ApplyMode::Disk && self.expected_hashes.is_none() {
            return Err(CommandError::invalid_argument(
                "expectedHashes",
                "apply \"disk\" needs the preview's fileHashes, so files changed since the preview are not overwritten",
            ));
        }
        Ok(())
    }
}

/// How the rename is applied: `false` (a preview), `"editor"` or `"disk"`. `"false"` and
/// `"preview"` are read as `false`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ApplyMode {
    #[default]
    #[value(alias = "false")]
    Preview,
    Editor,
    Disk,
}

impl<'de> Deserialize<'de> for ApplyMode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Null | Value::Bool(false) => Ok(ApplyMode::Preview),
            Value::String(mode) if mode == "false" || mode == "preview" => Ok(ApplyMode::Preview),
            Value::String(mode) if mode == "editor" => Ok(ApplyMode::Editor),
            Value::String(mode) if mode == "disk" => Ok(ApplyMode::Disk),
            other => {
                Err(serde::de::Error::custom(format!("expected false (preview), \"editor\" or \"disk\", got {other}")))
            }
        }
    }
}

impl Serialize for ApplyMode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ApplyMode::Preview => serializer.serialize_bool(false),
            ApplyMode::Editor => serializer.serialize_str("editor"),
            ApplyMode::Disk => serializer.serialize_str("disk"),
        }
    }
}

impl JsonSchema for ApplyMode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("RenameApplyMode")
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "enum": [false, "editor", "disk"] })
    }
}

/// `expectedHashes`: an object of file → hash, refused as a whole (naming `expectedHashes`).
fn file_hashes<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<BTreeMap<String, String>>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(None),
        Value::Object(hashes) if hashes.values().all(Value::is_string) => Ok(Some(
            hashes.into_iter().map(|(file, hash)| (file, hash.as_str().unwrap_or_default().to_owned())).collect(),
        )),
        other => Err(serde::de::Error::custom(format!(
            "expected the preview's fileHashes object (file → hash), got {other}"
        ))),
    }
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
    crate::syntax::words::is_plain_identifier(name) && name != "_"
}

fn no_symbol(reason: &str, message: impl Into<String>, line_text: &str) -> CommandError {
    CommandError::typed(
        error_kinds::NO_SYMBOL_AT_POSITION,
        crate::lsp::message::error_codes::INVALID_PARAMS,
        message,
        NoSymbolData { argument: "line", reason, line_text },
    )
}

/// `data` of `no_symbol_at_position`: why the line holds no symbol there, and the line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoSymbolData<'a> {
    argument: &'static str,
    reason: &'a str,
    line_text: &'a str,
}

/// The answer of `fslens.rename`: the preview (`status: "ok"`), or, when `symbol` names
/// several compiler symbols and a rename renames one, those candidates (`status:
/// "ambiguous"`) and nothing renamed. Written as the variant's own object; read by `status`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum RenameAnswer {
    Preview(Box<RenamePreview>),
    Ambiguous(AmbiguousSymbol),
}

impl<'de> Deserialize<'de> for RenameAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value["status"] == AMBIGUOUS {
            AmbiguousSymbol::deserialize(value).map(RenameAnswer::Ambiguous).map_err(serde::de::Error::custom)
        } else {
            RenamePreview::deserialize(value)
                .map(|preview| RenameAnswer::Preview(Box::new(preview)))
                .map_err(serde::de::Error::custom)
        }
    }
}

/// `status` of an answer that names the candidates instead of picking one.
const AMBIGUOUS: &str = "ambiguous";

/// `status: "ambiguous"`: the `symbol` asked names several compiler symbols (a type and the
/// module of its name, overloads, an intrinsic and an extension member), and a rename renames
/// exactly one. Nothing was renamed, applied or written, whatever `apply` said.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AmbiguousSymbol {
    /// Always `rename`.
    pub tool: String,
    /// Always `ambiguous`.
    pub status: String,
    /// The name asked (`symbol`).
    pub symbol: String,
    /// As written in source, backticks added.
    pub new_name: String,
    /// What is ambiguous and how to name one.
    pub message: String,
    /// Every definition the name has, one per compiler symbol, in find's order.
    pub candidates: Vec<SymbolCandidate>,
    /// Always `{mode: "none", applied: false}`.
    pub applied: Applied,
    /// Always `false`.
    pub written_to_disk: bool,
}

/// One symbol an ambiguous name has: its compiler name and kind, and where it is defined
/// (0-based, as `line` and `character` are given: that position renames exactly it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolCandidate {
    /// As the compiler names it (`Ns.MoneyModule` for the module beside type `Money`);
    /// `null` when find could not tell.
    pub symbol_full_name: Option<String>,
    /// `type`, `module`, `member`, `field`, …, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    pub path: String,
    pub line: u32,
    pub character: u32,
}

/// The preview of `fslens.rename` (`status: "ok"`): the edits, their cross-check and what was
/// applied.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenamePreview {
    /// Always `rename`.
    pub tool: String,
    /// Always `ok`.
    pub status: String,
    /// The text at prepareRename's range.
    pub old_name: Option<String>,
    /// As written in source, backticks added.
    pub new_name: String,
    pub position: RenamePosition,
    /// Always `fsac`.
    pub via: String,
    pub complete: bool,
    pub total_edits: usize,
    pub total_files: usize,
    pub files: Vec<FilePreview>,
    pub lines_shown: usize,
    pub lines_omitted: usize,
    pub truncated: bool,
    /// `{file: "sha256:…"}` of each file's text the preview was made from.
    pub file_hashes: BTreeMap<String, String>,
    pub missed_sites: Vec<MissedSite>,
    pub cross_check: CrossCheckSummary,
    pub applied: Applied,
    pub written_to_disk: bool,
    /// With `verify`: the what-if check's whole answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Box<crate::commands::check::answer::CheckAnswer>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RenamePosition {
    pub path: String,
    pub line: u32,
    pub character: u32,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct FilePreview {
    pub file: String,
    pub edits: usize,
    pub lines: Vec<LinePreview>,
}

/// One touched line before and after (renames never add or remove lines).
#[derive(Debug, Serialize, Deserialize)]
pub struct LinePreview {
    pub line: u32,
    pub before: Option<String>,
    pub after: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossCheckSummary {
    pub find_completeness: Completeness,
    pub find_sites: usize,
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    pub mode: AppliedMode,
    pub applied: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<Value>,
}

/// Where the edit was applied (`applied.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AppliedMode {
    None,
    Editor,
    Disk,
}

/// Where the rename starts: the file, its current text and the position in it.
struct RenameSite {
    path: PathBuf,
    text: String,
    line: u32,
    character: u32,
    line_text: String,
}

/// The previewed edit set: each file's touched lines, the texts it was made from, their hashes.
struct Preview {
    files: Vec<FilePreview>,
    texts: BTreeMap<PathBuf, String>,
    hashes: BTreeMap<String, String>,
    lines_shown: usize,
    lines_omitted: usize,
    total_edits: usize,
}

pub async fn rename(arguments: RenameArguments, context: CommandContext) -> Result<RenameAnswer, CommandError> {
    let timeout = arguments.timeout_ms.as_duration_ms();
    let deadline = tokio::time::Instant::now() + timeout;
    let root = context.workspace_root()?.to_path_buf();
    let new_name = validated_new_name(&arguments.new_name)?;
    let overlay = context.editor_buffers().await?;
    match rename_site(&arguments, &context, &root, &overlay).await? {
        StartAt::Site(site) => {
            let request = RenameRequest { arguments, context, root, new_name, overlay, deadline };
            preview_and_apply(request, site).await.map(|preview| RenameAnswer::Preview(Box::new(preview)))
        }
        StartAt::Ambiguous { symbol, candidates } => Ok(RenameAnswer::Ambiguous(AmbiguousSymbol {
            tool: "rename".to_owned(),
            status: AMBIGUOUS.to_owned(),
            message: format!(
                "{symbol:?} names {} symbols and a rename renames one: nothing was renamed. Ask again with one \
                 candidate's position (path, line, character), or with its symbolFullName when no other \
                 candidate's name ends with it (the compiler's `…Module` name of a module beside a type of its name)",
                candidates.len()
            ),
            symbol,
            new_name,
            candidates,
            applied: Applied { mode: AppliedMode::None, applied: false, failure_reason: None },
            written_to_disk: false,
        })),
    }
}

/// What a rename was asked with, once its site is known.
struct RenameRequest {
    arguments: RenameArguments,
    context: CommandContext,
    root: PathBuf,
    new_name: String,
    overlay: crate::syntax::index::Overlay,
    deadline: tokio::time::Instant,
}

/// The preview of renaming the symbol at `site`, verified and applied as asked.
async fn preview_and_apply(request: RenameRequest, site: RenameSite) -> Result<RenamePreview, CommandError> {
    let RenameRequest { arguments, context, root, new_name, overlay, deadline } = request;
    refuse_a_non_symbol(&site)?;
    let (mut prepared, mut workspace_edit) = fsac_rename(&context, &site, &new_name, deadline).await?;
    // A case of an active pattern, asked at its banana clip: FSAC would rename the whole
    // pattern, so the case is renamed from one of its uses.
    let mut asked = None;
    let old_name = prepared_text(&site.text, &LineIndex::new(&site.text), &prepared);
    if let Some(case) = old_name.as_deref().and_then(|resolved| case_asked_in_clip(&site, resolved)) {
        let at_use = case_use_site(&context, &site, &case, &prepared, &overlay)?;
        (prepared, workspace_edit) = fsac_rename(&context, &at_use, &new_name, deadline).await?;
        let renamed = prepared_text(&at_use.text, &LineIndex::new(&at_use.text), &prepared);
        if renamed.as_deref() != Some(case.as_str()) {
            return Err(no_symbol(
                "active_pattern",
                format!("FSAC resolves the use of {case:?} at line {} to {renamed:?}, not to the case", at_use.line),
                &site.line_text,
            ));
        }
        asked = Some(at_use);
    }
    let asked_site = asked.as_ref().unwrap_or(&site);
    let by_path = edits_by_path(&workspace_edit)?;
    // The cross-check: every site find has for the symbol at the same position.
    let mut cross_check =
        cross_check_with_find(&context, &root, &asked_site.path, asked_site.line, asked_site.character, &by_path)
            .await?;
    if let Some(at_use) = &asked {
        cross_check.notes.push(format!(
            "FSAC reads the banana clip at the position as the whole active pattern, so the case was renamed from its use at {}:{}",
            display_relative(&root, &at_use.path),
            at_use.line
        ));
    }
    let preview = preview(&by_path, &overlay, &root, arguments.max_lines.as_usize())?;
    let lines = LineIndex::new(&asked_site.text);
    let mut answer = RenamePreview {
        tool: "rename".to_owned(),
        status: "ok".to_owned(),
        old_name: prepared_text(&asked_site.text, &lines, &prepared),
        new_name: new_name.clone(),
        position: RenamePosition {
            path: display_relative(&root, &site.path),
            line: site.line,
            character: site.character,
        },
        via: "fsac".to_owned(),
        complete: cross_check.complete && cross_check.missed.is_empty(),
        total_edits: preview.total_edits,
        total_files: by_path.len(),
        lines_shown: preview.lines_shown,
        lines_omitted: preview.lines_omitted,
        truncated: preview.lines_omitted > 0,
        files: preview.files,
        file_hashes: preview.hashes,
        missed_sites: cross_check.missed,
        cross_check: CrossCheckSummary {
            find_completeness: cross_check.find_completeness,
            find_sites: cross_check.find_sites,
            notes: cross_check.notes,
        },
        applied: Applied { mode: AppliedMode::None, applied: false, failure_reason: None },
        written_to_disk: false,
        verification: None,
    };
    if arguments.verify {
        answer.verification = Some(verify(&workspace_edit, &arguments, &context).await?);
    }
    match arguments.apply {
        ApplyMode::Preview => {}
        ApplyMode::Editor => {
            answer.applied = apply_in_editor(&context, &new_name, workspace_edit, &arguments, deadline).await?;
        }
        ApplyMode::Disk => {
            let expected = arguments.expected_hashes.unwrap_or_default();
            write_all_or_none(&root, &by_path, &preview.texts, &overlay, &expected)?;
            answer.applied = Applied { mode: AppliedMode::Disk, applied: true, failure_reason: None };
            answer.written_to_disk = true;
        }
    }
    Ok(answer)
}

/// The compiler's verdict on the renamed code, before anything is applied: a what-if check of
/// the same edit over the projects it touches and those downstream. The edit is FSAC's, not
/// the caller's: a what-if that refuses it never blames an argument `edits` the caller did not
/// pass.
async fn verify(
    workspace_edit: &Value,
    arguments: &RenameArguments,
    context: &CommandContext,
) -> Result<Box<crate::commands::check::answer::CheckAnswer>, CommandError> {
    let refused = |argument: String, message: String| {
        CommandError::typed(
            error_kinds::RENAME_EDITS_INVALID,
            crate::lsp::message::error_codes::INTERNAL_ERROR,
            format!("the what-if check refused the backend's rename edit ({argument}): {message}"),
            EditsInvalidData {
                reason: "refused_by_check",
                check_argument: Some(argument),
                file: None,
                edits: Vec::new(),
            },
        )
    };
    async {
        let edits =
            WhatIfEdits::deserialize(workspace_edit).map_err(|error| refused("edits".to_owned(), error.to_string()))?;
        let what_if = CheckArguments {
            edits: Some(edits),
            timeout_ms: TimeoutMs::clamped(arguments.timeout_ms.get()),
            ..CheckArguments::default()
        };
        what_if.validate()?;
        crate::commands::check::check(what_if, context.clone()).await.map(Box::new)
    }
    .await
    .map_err(|error| match error {
        CommandError::InvalidArgument { argument, message } if argument.starts_with("edits") => {
            refused(argument, message)
        }
        other => other,
    })
}

/// Where a rename starts: a site, or the candidates of a `symbol` that names several.
enum StartAt {
    Site(RenameSite),
    Ambiguous { symbol: String, candidates: Vec<SymbolCandidate> },
}

/// The file, text and position the rename starts at: the arguments' own, or (with `symbol`)
/// find's one definition of it; several are the candidates, never a pick.
async fn rename_site(
    arguments: &RenameArguments,
    context: &CommandContext,
    root: &Path,
    overlay: &crate::syntax::index::Overlay,
) -> Result<StartAt, CommandError> {
    let found;
    let position = match &arguments.symbol {
        Some(symbol) => {
            let candidates = definitions_of(context, symbol, arguments.timeout_ms.as_duration_ms()).await?;
            // Never empty: one is the site, several are the candidates.
            let one = match <[SymbolCandidate; 1]>::try_from(candidates) {
                Ok([one]) => one,
                Err(candidates) => return Ok(StartAt::Ambiguous { symbol: symbol.clone(), candidates }),
            };
            found = one.path;
            SymbolPosition { path: &found, line: one.line, character: Some(one.character), word: None, occurrence: 1 }
        }
        None => arguments
            .position()
            .ok_or_else(|| CommandError::invalid_argument("path", "required (or give a qualified symbol)"))?,
    };
    let ResolvedPosition { path, text, line, line_text, character } = position.resolve(root, overlay)?;
    Ok(StartAt::Site(RenameSite { path, text, line, character, line_text }))
}

/// A keyword or a string is no symbol, whatever the backend says about it.
fn refuse_a_non_symbol(site: &RenameSite) -> Result<(), CommandError> {
    let grammar = crate::syntax::model::GrammarKind::for_path(&site.path)
        .unwrap_or(crate::syntax::model::GrammarKind::Implementation);
    let lines = LineIndex::new(&site.text);
    let offset = lines.offset(&site.text, Position { line: site.line, character: site.character });
    if let Some(kind) = literal_at(&site.text, grammar, site.line as usize, offset) {
        return Err(no_symbol(
            kind,
            format!("line {} character {} is in a {kind}, not on a symbol", site.line, site.character),
            &site.line_text,
        ));
    }
    if let Some(name) = crate::commands::find::identifier_at(&site.line_text, site.character)
        && KEYWORDS.contains(&name.as_str())
    {
        return Err(no_symbol("keyword", format!("{name:?} is an F# keyword, not a symbol"), &site.line_text));
    }
    Ok(())
}

/// FSAC's `prepareRename` range and its `rename` WorkspaceEdit for the site.
async fn fsac_rename(
    context: &CommandContext,
    site: &RenameSite,
    new_name: &str,
    deadline: tokio::time::Instant,
) -> Result<(Value, Value), CommandError> {
    let status = context.status().await?;
    if status.state != State::Ready {
        return Err(CommandError::Unavailable(format!(
            "rename needs FSAC's analysis, and FSAC is {} (fslens.status says why)",
            status.state.as_str()
        )));
    }
    let uri =
        crate::uri::path_to_uri(&site.path).ok_or_else(|| CommandError::Internal("cannot make a URI".to_owned()))?;
    context.acquire_document(&uri, site.text.clone()).await?;
    let document = TextDocumentPositionParams {
        text_document: TextDocumentIdentifier { uri: uri.clone() },
        position: Position { line: site.line, character: site.character },
    };
    let prepared = context.backend_request("textDocument/prepareRename", &document, deadline).await?;
    let prepared = match prepared {
        Ok(range) if !range.is_null() => range,
        Ok(_) => {
            return Err(no_symbol("no_symbol", "FSAC's prepareRename found nothing to rename here", &site.line_text));
        }
        Err(error) => {
            let reason = if error.message.contains("external") { "external" } else { "no_symbol" };
            return Err(no_symbol(reason, format!("FSAC's prepareRename: {}", error.message), &site.line_text));
        }
    };
    let params = RenameParams { document, new_name };
    let workspace_edit = match context.backend_request("textDocument/rename", &params, deadline).await? {
        Ok(edit) => edit,
        Err(error) => {
            return Err(CommandError::invalid_argument("newName", format!("FSAC's rename refused: {}", error.message)));
        }
    };
    context.release_document(&uri);
    Ok((prepared, workspace_edit))
}

/// The texts before and after, their hashes, and the touched lines within `max_lines`.
fn preview(
    by_path: &BTreeMap<PathBuf, Vec<Edit>>,
    overlay: &crate::syntax::index::Overlay,
    root: &Path,
    max_lines: usize,
) -> Result<Preview, CommandError> {
    let mut preview = Preview {
        files: Vec::new(),
        texts: BTreeMap::new(),
        hashes: BTreeMap::new(),
        lines_shown: 0,
        lines_omitted: 0,
        total_edits: 0,
    };
    for (file, edits) in by_path {
        let before = crate::commands::paths::current_text(overlay, file)?;
        edits_inside(file, &before, edits)?;
        let after = apply_edits(&before, edits);
        let relative = display_relative(root, file);
        preview.hashes.insert(relative.clone(), content_hash(&before));
        preview.total_edits += edits.len();
        let touched: BTreeSet<u32> = edits.iter().map(|edit| edit.start.line).collect();
        let (before_lines, after_lines): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
        let mut rows = Vec::new();
        for line in touched {
            if preview.lines_shown >= max_lines {
                preview.lines_omitted += 1;
                continue;
            }
            preview.lines_shown += 1;
            let bounded = |text: Option<&&str>| text.map(|text| bound_line(text, 0, 0, LINE_TEXT_LIMIT).text);
            // Renames never add or remove lines, so a line keeps its number.
            rows.push(LinePreview {
                line,
                before: bounded(before_lines.get(line as usize)),
                after: bounded(after_lines.get(line as usize)),
            });
        }
        preview.files.push(FilePreview { file: relative, edits: edits.len(), lines: rows });
        preview.texts.insert(file.clone(), before);
    }
    Ok(preview)
}

/// Sends the whole edit to the editor as one `workspace/applyEdit`.
async fn apply_in_editor(
    context: &CommandContext,
    new_name: &str,
    workspace_edit: Value,
    arguments: &RenameArguments,
    deadline: tokio::time::Instant,
) -> Result<Applied, CommandError> {
    let params = ApplyEditParams { label: format!("Rename to {new_name}"), edit: &workspace_edit };
    let answer = context.editor_request("workspace/applyEdit", &params, "/workspace/applyEdit", deadline).await;
    let (applied, failure_reason) = match answer {
        Ok(Ok(result)) => match ApplyWorkspaceEditResult::deserialize(&result) {
            Ok(result) => (result.applied, result.failure_reason.map_or(Value::Null, Value::String)),
            Err(error) => (false, Value::String(format!("the editor's answer could not be read ({error}): {result}"))),
        },
        Ok(Err(error)) => (false, Value::String(error.message)),
        Err(CommandError::Timeout) => {
            (false, Value::String(format!("the editor did not answer within timeoutMs = {}", arguments.timeout_ms)))
        }
        Err(error) => return Err(error),
    };
    Ok(Applied { mode: AppliedMode::Editor, applied, failure_reason: Some(failure_reason) })
}

/// The definitions (a signature's declaration is not one) of the qualified `symbol`, one per
/// compiler symbol: at least one, or `invalid_argument` naming `symbol`. The compiler's name of
/// a module beside a type of its name (`Ns.MoneyModule`, as a candidate lists it) is
/// written nowhere in source: when nothing is declared under it, the name without `Module` is
/// asked and only the definitions the compiler names so are kept.
async fn definitions_of(
    context: &CommandContext,
    symbol: &str,
    timeout: std::time::Duration,
) -> Result<Vec<SymbolCandidate>, CommandError> {
    let (mut candidates, completeness) = definitions_named(context, symbol, timeout).await?;
    if candidates.is_empty()
        && let Some(written) = symbol.strip_suffix("Module").filter(|rest| !rest.is_empty() && !rest.ends_with('.'))
    {
        let (named, _) = definitions_named(context, written, timeout).await?;
        let suffix = format!(".{symbol}");
        candidates = named
            .into_iter()
            .filter(|candidate| {
                candidate.symbol_full_name.as_deref().is_some_and(|name| name == symbol || name.ends_with(&suffix))
            })
            .collect();
    }
    if candidates.is_empty() {
        return Err(CommandError::invalid_argument(
            "symbol",
            format!("no declaration named {symbol:?} in the workspace (find's answer is {})", completeness.as_str()),
        ));
    }
    Ok(candidates)
}

/// find's definitions of `query` (kind `definition`), as candidates, and how complete its
/// answer was.
async fn definitions_named(
    context: &CommandContext,
    query: &str,
    timeout: std::time::Duration,
) -> Result<(Vec<SymbolCandidate>, Completeness), CommandError> {
    let own = FindOwnArguments { query: Some(query.to_owned()), kind: FindKind::Definition, ..Default::default() };
    let mut arguments = FindArguments::new(own);
    arguments.timeout_ms = FindTimeoutMs::clamped(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
    let found = crate::commands::find::all_sites(arguments, context.clone()).await?;
    let candidates = found
        .rows
        .iter()
        .filter(|site| site.kind == SiteKind::Definition)
        .map(|site| SymbolCandidate {
            symbol_full_name: site.symbol_full_name.clone(),
            symbol_kind: site.symbol_kind.clone(),
            path: site.file.clone(),
            line: site.range.start.line,
            character: site.range.start.character,
        })
        .collect();
    Ok((candidates, found.completeness))
}

/// The case the user pointed at when FSAC resolved the position to a whole banana clip
/// (`resolved`, e.g. `|Even|Odd|`) and the word there is one of its cases.
fn case_asked_in_clip(site: &RenameSite, resolved: &str) -> Option<String> {
    let word = crate::commands::find::identifier_at(&site.line_text, site.character)?;
    crate::commands::find::case_of_clip(resolved, &word).map(str::to_owned)
}

/// Where the case `case` is used, to rename it from there: after the clip in its own file,
/// else at an occurrence the syntax index has in another file. None found is a typed refusal:
/// renaming from the clip would rename the whole pattern.
fn case_use_site(
    context: &CommandContext,
    site: &RenameSite,
    case: &str,
    prepared: &Value,
    overlay: &crate::syntax::index::Overlay,
) -> Result<RenameSite, CommandError> {
    use crate::commands::find::{case_use_after, case_use_elsewhere};
    let site_at = |path: &Path, text: String, at: Position| {
        let line_text = LineIndex::new(&text).line_text(&text, at.line as usize).unwrap_or_default().to_owned();
        RenameSite { path: path.to_owned(), text, line: at.line, character: at.character, line_text }
    };
    let clip_end: Option<Position> = serde_json::from_value(prepared["end"].clone()).ok();
    if let Some(at) = clip_end.and_then(|end| case_use_after(&site.text, &site.path, case, end)) {
        return Ok(site_at(&site.path, site.text.clone(), at));
    }
    let hits = context.syntax_index().find_occurrences(case);
    if let Some((path, text, at)) =
        case_use_elsewhere(hits, &site.path, case, |path| crate::commands::paths::current_text(overlay, path).ok())
    {
        return Ok(site_at(&path, text, at));
    }
    Err(no_symbol(
        "active_pattern",
        format!(
            "FSAC reads the banana clip here as the whole active pattern, and no use of the case {case:?} was found to \
             rename it from: give the position of a use of {case:?}"
        ),
        &site.line_text,
    ))
}

/// The old name, as the text at prepareRename's range.
fn prepared_text(text: &str, lines: &LineIndex, range: &Value) -> Option<String> {
    let start: Position = serde_json::from_value(range["start"].clone()).ok()?;
    let end: Position = serde_json::from_value(range["end"].clone()).ok()?;
    text.get(lines.offset(text, start)..lines.offset(text, end)).map(str::to_owned)
}

struct CrossCheck {
    complete: bool,
    missed: Vec<MissedSite>,
    find_completeness: Completeness,
    find_sites: usize,
    notes: Vec<String>,
}

/// A site find has that no edit of the rename starts at (`missedSites[]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissedSite {
    pub file: String,
    pub range: RowRange,
    /// The site's kind, or a missed declaration's role.
    pub kind: String,
    pub symbol_full_name: Option<String>,
    pub line_text: Option<String>,
    pub via: SiteVia,
    /// A site in an inactive `#if` branch: the branch the rename's compiler never saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// Every site find has at the same position, compared with the edit set: its sites that no
/// edit starts at, and the declarations find's syntax cross-check says FSAC's references miss
/// (the rename, the same references sweep, is likely to miss them too).
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
    let starts_an_edit = |file: &str, at: RowPosition| edit_starts.contains(&(file.to_owned(), at.line, at.character));
    let own = FindOwnArguments { kind: FindKind::Position, ..FindOwnArguments::default() };
    let mut arguments = FindArguments::new(own);
    arguments.path = Some(display_relative(root, path));
    arguments.line = Some(Coordinate::clamped(u64::from(line)));
    arguments.character = Some(Coordinate::clamped(u64::from(character)));
    let found = crate::commands::find::all_sites(arguments, context.clone()).await?;
    let mut missed: Vec<MissedSite> = found
        .rows
        .iter()
        .filter(|site| !starts_an_edit(&site.file, site.range.start))
        .map(|site| MissedSite {
            file: site.file.clone(),
            range: site.range,
            kind: site.kind.as_str().to_owned(),
            symbol_full_name: site.symbol_full_name.clone(),
            line_text: site.line_text.clone(),
            via: site.via,
            condition: site.condition.clone(),
        })
        .collect();
    for declaration in found.missed_by_backend {
        if !starts_an_edit(&declaration.file, declaration.range.start)
            && !missed.iter().any(|site| site.file == declaration.file && site.range == declaration.range)
        {
            missed.push(MissedSite {
                file: declaration.file,
                range: declaration.range,
                kind: declaration.role,
                symbol_full_name: Some(declaration.symbol_full_name),
                line_text: None,
                via: SiteVia::Syntax,
                condition: None,
            });
        }
    }
    let complete = found.completeness == Completeness::Complete;
    let mut notes = Vec::new();
    if !complete {
        notes.push(format!(
            "find's answer is \"{}\" (not complete), so the rename cannot be shown to cover every site",
            found.completeness.as_str()
        ));
    }
    Ok(CrossCheck { complete, missed, find_completeness: found.completeness, find_sites: found.rows.len(), notes })
}

/// FSAC's `textDocument/rename` parameters.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RenameParams<'a> {
    #[serde(flatten)]
    document: TextDocumentPositionParams,
    new_name: &'a str,
}

/// The editor's `workspace/applyEdit` parameters, with FSAC's edit as it came.
#[derive(Serialize)]
struct ApplyEditParams<'a> {
    label: String,
    edit: &'a Value,
}

/// Definite when the preview is complete; not definite when it is not, or when the name was
/// ambiguous.
impl crate::commands::outcome::Answered for RenameAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        match self {
            RenameAnswer::Preview(preview) => crate::commands::outcome::definite_if(preview.complete),
            RenameAnswer::Ambiguous(_) => crate::commands::outcome::Outcome::NotDefinite,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::params::parse_arguments;
    use serde_json::json;

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

    fn blamed(argument: Value) -> String {
        match parse_arguments::<RenameArguments>(argument.clone()) {
            Err(CommandError::InvalidArgument { argument, .. }) => argument,
            other => panic!("{argument} was accepted or failed otherwise: {other:?}"),
        }
    }

    #[test]
    fn disk_mode_needs_the_preview_hashes() {
        let at = json!({"path": "a.fs", "line": 0, "word": "x", "newName": "y"});
        let with = |key: &str, value: Value| {
            let mut argument = at.clone();
            argument[key] = value;
            argument
        };
        assert_eq!(blamed(with("apply", json!("disk"))), "expectedHashes");
        assert_eq!(blamed(with("apply", json!("yes"))), "apply");
        assert_eq!(blamed(with("apply", json!(true))), "apply");
        assert_eq!(blamed(with("expectedHashes", json!({"a.fs": 1}))), "expectedHashes");
        for preview in [json!(false), json!("false"), json!("preview"), Value::Null] {
            let parsed: RenameArguments = parse_arguments(with("apply", preview)).unwrap();
            assert_eq!(parsed.apply, ApplyMode::Preview);
        }
        let parsed: RenameArguments = parse_arguments(with("apply", json!("disk")).tap_hashes()).unwrap();
        assert_eq!((parsed.apply, parsed.max_lines.get(), parsed.timeout_ms.get()), (ApplyMode::Disk, 200, 120_000));
    }

    trait TapHashes {
        fn tap_hashes(self) -> Value;
    }

    impl TapHashes for Value {
        fn tap_hashes(mut self) -> Value {
            self["expectedHashes"] = json!({"a.fs": "sha256:00"});
            self
        }
    }

    #[test]
    fn a_symbol_or_a_position_and_each_missing_one_is_named() {
        assert_eq!(blamed(json!({"symbol": "A.b", "line": 1, "newName": "c"})), "line");
        assert_eq!(blamed(json!({"symbol": "A.b", "occurrence": 2, "newName": "c"})), "occurrence");
        assert_eq!(blamed(json!({"symbol": " ", "newName": "c"})), "symbol");
        assert_eq!(blamed(json!({"line": 1, "word": "x", "newName": "c"})), "path");
        assert_eq!(blamed(json!({"path": "a.fs", "word": "x", "newName": "c"})), "line");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "newName": "c"})), "character");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x"})), "newName");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x", "newName": "a`b"})), "newName");
        assert_eq!(blamed(json!({"path": "a.fs", "line": 1, "word": "x", "newName": "c", "maxLines": 0})), "maxLines");
        assert!(parse_arguments::<RenameArguments>(json!({"symbol": "A.b", "newName": "c"})).is_ok());
    }

    #[test]
    fn the_apply_schema_accepts_false_and_the_two_modes() {
        let schema = crate::commands::params::input_schema::<RenameArguments>();
        assert_eq!(schema["properties"]["apply"]["enum"], json!([false, "editor", "disk"]));
        assert_eq!(schema["properties"]["apply"]["default"], json!(false));
        assert_eq!(schema["properties"]["maxLines"]["maximum"], json!(2000));
        assert_eq!(schema["required"], json!(["newName"]));
    }
}
