//! `fslens.readSymbol` and `fslens.readEnclosing`: one declaration's verbatim source from the
//! syntax layer, taken from the editor's buffer when the file is open there, else from disk.
//!
//! `readSymbol` finds declarations by name (`weigh`, `Shipment.weigh`, fully qualified); more
//! than one match is answered with every candidate (`status: "ambiguous"`), never a guess,
//! and `path`, `line` or `kinds` pick one. `readEnclosing` maps a path and 0-based line (and
//! optionally a character) to the smallest enclosing declaration, with the chain of its
//! parents; a body longer than `maxLines` is handled as `onOversize` says: `error` (metadata
//! only), `slice` (a window around the line) or `outline` (the nested declarations, each with
//! the arguments that read it). Each answer is a typed struct (`Serialize` and `Deserialize`)
//! whose `status` is the tag of its outcome.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::find::rows::RowRange;
use crate::commands::params::{Bounded, CommandArguments, Coordinate};
use crate::commands::paths::{confine, display_relative};
use crate::commands::symbols::{
    AccessName, Completeness, HealthName, IndexFacts, KindName, SyntaxVia, WaitForIndexMs, apply_editor_buffers,
    ready_workspace, selected_kinds,
};
use crate::syntax::index::IndexedFile;
use crate::syntax::model::{Declaration, DeclarationKind, FileIndex, HealthStatus, NO_PARENT, Position};
use crate::syntax::{Overlay, SyntaxIndex, render_signature};

const SIGNATURE_MAX_CHARS: usize = 240;
/// At most this many candidates are listed for an ambiguous name.
const CANDIDATES_LIMIT: usize = 50;
/// At most this many nested declarations are listed by `onOversize: outline`.
const OUTLINE_LIMIT: usize = 200;
/// At most this many doc-comment and attribute lines are given above a declaration.
const LEADING_LINES_LIMIT: u32 = 40;

/// A `maxLines` or `aroundLine` argument: lines of source.
pub type LineCount<const DEFAULT: u64> = Bounded<1, 20_000, DEFAULT>;

// ---- arguments --------------------------------------------------------------------------------

/// The arguments of `fslens.readSymbol` (and of `fslens read-symbol`, where `name` is
/// positional).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadSymbolArguments {
    /// A declared name, plain (`weigh`) or dotted (`Shipment.weigh`): the declaration's full
    /// name or a dot-aligned suffix of it; case-sensitive.
    pub name: String,
    /// Only declarations in this file (then no workspace index is needed). Relative to the
    /// workspace root or absolute inside it; paths outside are refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub path: Option<String>,
    /// The 0-based line of the declaration (its name or its start), to pick among candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub line: Option<Coordinate>,
    /// Declaration kinds to consider: `type` (every type kind), `module`, `record`, `union`,
    /// `class`, `interface`, `member`, `let`, `val`, `union-case`, `record-field`, …
    #[serde(default, deserialize_with = "super::kinds_argument", skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    #[arg(long, value_delimiter = ',', value_enum)]
    pub kinds: Option<Vec<KindName>>,
    /// Longest source returned, in lines.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_lines: LineCount<400>,
    /// Without `path`: wait up to this long, in milliseconds, for the workspace index's first
    /// build, for its `index` facts in the answer; the lookup reads only the files that hold
    /// the name and never waits for it.
    #[serde(default)]
    #[arg(long = "wait-ms", value_name = "WAIT_MS", default_value_t)]
    pub wait_for_index_ms: WaitForIndexMs,
}

impl CommandArguments for ReadSymbolArguments {
    fn validate(&self) -> Result<(), CommandError> {
        match self.name().is_empty() {
            true => Err(CommandError::invalid_argument("name", "required: a declared name, plain or dotted")),
            false => Ok(()),
        }
    }
}

impl ReadSymbolArguments {
    /// The name as looked up: spaces and enclosing backticks dropped.
    fn name(&self) -> &str {
        self.name.trim().trim_matches('`')
    }
}

/// What `readEnclosing` gives for a declaration longer than `maxLines`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum Oversize {
    /// metadata only, with a message and a hint
    #[default]
    Error,
    /// a window of `aroundLine` lines around the line
    Slice,
    /// the declarations nested in it, each with the arguments that read it
    Outline,
}

/// The arguments of `fslens.readEnclosing` (and of `fslens read-enclosing`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadEnclosingArguments {
    /// The file (`.fs`, `.fsi`, `.fsx`). Relative to the workspace root or absolute inside it;
    /// paths outside are refused.
    #[arg(long)]
    pub path: String,
    /// 0-based line; past the end of the file is refused.
    #[arg(long)]
    pub line: Coordinate,
    /// 0-based UTF-16 column: then the declaration's range must contain the position, not just
    /// the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub character: Option<Coordinate>,
    /// Only declarations of these kinds enclose (as for `readSymbol`).
    #[serde(default, deserialize_with = "super::kinds_argument", skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    #[arg(long, value_delimiter = ',', value_enum)]
    pub kinds: Option<Vec<KindName>>,
    /// Longest body returned whole, in lines; default 200.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub max_lines: Option<LineCount<200>>,
    /// What a body longer than `maxLines` gives.
    #[serde(default)]
    #[arg(long, value_enum, default_value_t)]
    pub on_oversize: Oversize,
    /// The size of a slice, in lines; default `maxLines` when given, else 80.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub around_line: Option<LineCount<80>>,
}

impl CommandArguments for ReadEnclosingArguments {}

impl ReadEnclosingArguments {
    fn max_lines(&self) -> u32 {
        self.max_lines.unwrap_or_default().as_u32()
    }

    fn slice_lines(&self) -> u32 {
        match (self.around_line, self.max_lines) {
            (Some(around), _) => around.as_u32(),
            (None, Some(max_lines)) => max_lines.as_u32(),
            (None, None) => LineCount::<80>::default().as_u32(),
        }
    }
}

// ---- what both answers hold -------------------------------------------------------------------

/// One declaration, as `symbol`, a candidate, or a neighbour.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SymbolFacts {
    pub name: String,
    pub full_name: String,
    pub kind: KindName,
    pub access: AccessName,
    pub path: String,
    pub line: u32,
    pub range: RowRange,
    pub start_line: u32,
    pub end_line: u32,
    pub lines: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// `false` when the declaration or its file did not parse cleanly; absent when `true`.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub certain: bool,
}

/// One enclosing declaration of `chain[]`, outermost first.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ChainLink {
    pub name: String,
    pub kind: KindName,
    pub start_line: u32,
    pub end_line: u32,
}

/// `sourceRange`: the 0-based lines `source` spans.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SourceRange {
    pub start_line: u32,
    pub end_line: u32,
}

/// The `///` doc comment and `[<Attribute>]` lines directly above a declaration.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct LeadingLines {
    pub leading: String,
    pub leading_start_line: usize,
}

fn is_true(value: &bool) -> bool {
    *value
}

fn yes() -> bool {
    true
}

/// The text a file's index was built from: the editor buffer or the disk, only when its
/// SHA-256 still matches `sha256`.
pub fn current_text(path: &Path, overlay: &Overlay, sha256: &[u8; 32]) -> Option<String> {
    let text = overlay.current_text_lossy(path).ok()?;
    let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    (digest == *sha256).then_some(text)
}

/// The F# source file `path` indexed with the very text it was built from; a path that is not
/// an F# source file the editor has open or the disk holds is refused before anything is
/// indexed for it.
fn read_source_file(
    index: &SyntaxIndex,
    path: &Path,
    written: &str,
    overlay: &Overlay,
    unreadable: &str,
) -> Result<(Arc<IndexedFile>, String), CommandError> {
    let refuse = |message: &str| CommandError::InvalidPath { path: written.to_owned(), message: message.to_owned() };
    if crate::syntax::GrammarKind::for_path(path).is_none() {
        return Err(refuse("not an F# source file (.fs, .fsi, .fsx)"));
    }
    if overlay.get(path).is_none() && !path.is_file() {
        return Err(refuse("no such file in the workspace or the editor"));
    }
    indexed_text(index, path, overlay).ok_or_else(|| refuse(unreadable))
}

/// Indexes `path` from the overlay or the disk and returns its entry with the very text it
/// was built from (re-indexed once more if the file changes in between).
fn indexed_text(index: &SyntaxIndex, path: &Path, overlay: &Overlay) -> Option<(Arc<IndexedFile>, String)> {
    for _ in 0..3 {
        index.refresh_path(path, overlay);
        let file = index.file(path)?;
        if let Some(text) = current_text(path, overlay, &file.index.content_sha256) {
            return Some((file, text));
        }
    }
    None
}

/// `[start, end]` whole lines a declaration spans (an end at character 0 of a later line
/// does not take that line).
fn line_span(declaration: &Declaration) -> (u32, u32) {
    let range = declaration.range;
    let end =
        if range.end.character == 0 && range.end.line > range.start.line { range.end.line - 1 } else { range.end.line };
    (range.start.line, end.max(range.start.line))
}

fn slice_lines(text: &str, first: u32, last: u32) -> String {
    let mut out = String::new();
    for line in text.lines().skip(first as usize).take((last.saturating_sub(first) + 1) as usize) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The doc comment and attribute lines directly above line `first` (the syntax index's range
/// starts after them), when there are any.
fn leading_lines(text: &str, first: u32) -> Option<LeadingLines> {
    let lines: Vec<&str> = text.lines().take(first as usize).collect();
    let mut start = lines.len();
    while start > 0 && lines.len() - start < LEADING_LINES_LIMIT as usize {
        let line = lines[start - 1].trim_start();
        if line.starts_with("///") || line.starts_with("[<") {
            start -= 1;
        } else {
            break;
        }
    }
    (start < lines.len()).then(|| {
        let mut leading = lines[start..].join("\n");
        leading.push('\n');
        LeadingLines { leading, leading_start_line: start }
    })
}

fn symbol_facts(index: &SyntaxIndex, root: &Path, file: &IndexedFile, slot: usize, text: Option<&str>) -> SymbolFacts {
    let declaration = &file.index.declarations[slot];
    let (first, last) = line_span(declaration);
    SymbolFacts {
        name: index.name(declaration.name).to_string(),
        full_name: index.full_name(&file.index, slot),
        kind: declaration.kind.into(),
        access: declaration.access.into(),
        path: display_relative(root, &file.path),
        line: declaration.name_start.line,
        range: RowRange::of(declaration.range),
        start_line: first,
        end_line: last,
        lines: last - first + 1,
        signature: text
            .map(|text| render_signature(text, declaration.header_bytes, SIGNATURE_MAX_CHARS))
            .filter(|signature| !signature.is_empty()),
        certain: declaration.certain && file.index.health.status == HealthStatus::Clean,
    }
}

fn chain_of(index: &SyntaxIndex, file: &FileIndex, slot: usize) -> Vec<ChainLink> {
    file.declaration_chain(slot)
        .into_iter()
        .filter_map(|link| {
            let declaration = file.declarations.get(link)?;
            let (first, last) = line_span(declaration);
            Some(ChainLink {
                name: index.name(declaration.name).to_string(),
                kind: declaration.kind.into(),
                start_line: first,
                end_line: last,
            })
        })
        .collect()
}

// ---- readSymbol -------------------------------------------------------------------------------

/// `fslens.readSymbol` in a session.
pub async fn read_symbol(
    arguments: ReadSymbolArguments,
    context: CommandContext,
) -> Result<ReadSymbolAnswer, CommandError> {
    let started = Instant::now();
    let root = context.workspace_root()?.to_path_buf();
    let path = arguments.path.as_deref().map(|written| confine(&root, written, "path")).transpose()?;
    let index = context.syntax_index();
    // With a path only that file is needed. Without one, the files whose bytes hold the name:
    // the workspace index is not waited for (it is started for later calls, and waited for
    // only up to waitForIndexMs, for its facts in the answer).
    let mut searched = None;
    let mut warm_and_ready = None;
    if path.is_none() {
        let wait = arguments.wait_for_index_ms.as_duration_ms();
        let workspaces = crate::commands::symbols::warmup::of(&context);
        warm_and_ready = if wait.is_zero() {
            // Not waited for: only started (when the session builds in the background).
            workspaces.start_in_background(&index, &root);
            workspaces.ready(&root)
        } else {
            let (warm, ready) = ready_workspace(&index, &workspaces, &root, wait).await?;
            ready.map(|ready| (warm, ready))
        };
        searched = Some(match &warm_and_ready {
            Some((_, ready)) => ready.files.clone(),
            None => crate::commands::load_workspace_model(&root).await?.files_to_index(),
        });
    }
    let overlay = context.editor_buffers().await?;
    crate::commands::run_blocking(move || {
        let candidates = searched.map(|files| {
            let wanted = [crate::syntax::prefilter::WantedName::exact(simple_name(arguments.name()))];
            crate::syntax::prefilter::index_files_holding(&index, &files, &overlay, &wanted).candidates
        });
        let mut answer = read_symbol_with_index(&index, &root, &arguments, path.as_deref(), candidates, &overlay)?;
        // After the search, which applied the editor's buffers: the facts describe what was searched.
        answer.index = warm_and_ready.map(|(warm, ready)| IndexFacts::of(&index, &warm, &ready));
        answer.elapsed_ms = Some(started.elapsed().as_millis() as u64);
        Ok(answer)
    })
    .await
}

/// The answer of `fslens.readSymbol`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReadSymbolAnswer {
    pub tool: String,
    pub via: SyntaxVia,
    pub completeness: Completeness,
    /// Always `true`: the lookup reads the files holding the name and never waits for the
    /// workspace index.
    pub available: bool,
    pub name: String,
    #[serde(flatten)]
    pub outcome: ReadSymbolOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexFacts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
}

/// `status` and what it holds.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ReadSymbolOutcome {
    Ok(Box<SymbolSource>),
    Ambiguous(Candidates),
    NotFound(NotFound),
}

/// `status: "ok"`: the one declaration's source.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SymbolSource {
    pub symbol: SymbolFacts,
    pub chain: Vec<ChainLink>,
    pub source: String,
    #[serde(flatten)]
    pub leading: Option<LeadingLines>,
    pub source_range: SourceRange,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_omitted: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub from_editor_buffer: bool,
}

/// `status: "ambiguous"`: every match (up to a limit).
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Candidates {
    pub message: String,
    pub candidates: Vec<Candidate>,
    pub candidates_omitted: usize,
}

/// A candidate, with the arguments that read exactly that one.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Candidate {
    #[serde(flatten)]
    pub symbol: SymbolFacts,
    pub select: Selection,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Selection {
    pub name: String,
    pub path: String,
    pub line: u32,
}

/// `status: "not_found"`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct NotFound {
    /// True only when every file searched parsed cleanly.
    pub certain: bool,
    pub files_searched: usize,
    pub files_not_cleanly_parsed: usize,
    pub message: String,
    pub hint: String,
}

/// A declaration found: its file and slot.
type Found = (Arc<IndexedFile>, usize);

/// `files`: without `path`, the workspace files that may hold the name (already indexed).
fn read_symbol_with_index(
    index: &SyntaxIndex,
    root: &Path,
    arguments: &ReadSymbolArguments,
    path: Option<&Path>,
    files: Option<Vec<PathBuf>>,
    overlay: &Overlay,
) -> Result<ReadSymbolAnswer, CommandError> {
    let mut texts = TextCache::new(overlay);
    let files = files.unwrap_or_default();
    let mut candidates = match path {
        Some(path) => declarations_in_file(index, path, arguments, overlay, &mut texts)?,
        None => declarations_in_workspace(index, root, arguments.name(), &files, overlay),
    };
    let kinds = selected_kinds(arguments.kinds.as_deref());
    candidates.retain(|(file, slot)| selected(index, arguments, kinds.as_deref(), file, *slot, false));
    let named = candidates.clone();
    candidates.retain(|(file, slot)| selected(index, arguments, kinds.as_deref(), file, *slot, true));
    if candidates.is_empty()
        && let Some(line) = arguments.line
    {
        line_in_range(index, root, arguments.name(), line.as_u32(), path, &named)?;
    }
    let outcome = match candidates.len() {
        0 => ReadSymbolOutcome::NotFound(not_found_at(index, root, arguments, path, &files, &named)),
        1 => ReadSymbolOutcome::Ok(Box::new(symbol_source(index, root, arguments, &candidates[0], &mut texts)?)),
        _ => ReadSymbolOutcome::Ambiguous(ambiguous(index, root, arguments.name(), &candidates, &mut texts)),
    };
    Ok(ReadSymbolAnswer {
        tool: "readSymbol".to_owned(),
        via: SyntaxVia::Syntax,
        completeness: Completeness::Syntactic,
        available: true,
        name: arguments.name().to_owned(),
        outcome,
        index: None,
        elapsed_ms: None,
    })
}

/// The declarations of the one file `path` whose simple name is the name's last segment.
fn declarations_in_file(
    index: &SyntaxIndex,
    path: &Path,
    arguments: &ReadSymbolArguments,
    overlay: &Overlay,
    texts: &mut TextCache,
) -> Result<Vec<Found>, CommandError> {
    let written = arguments.path.as_deref().unwrap_or_default();
    let (file, text) = read_source_file(index, path, written, overlay, "cannot read it as an F# source file")?;
    let simple = simple_name(arguments.name());
    let found = (0..file.index.declarations.len())
        .filter(|slot| {
            let declaration = &file.index.declarations[*slot];
            crate::syntax::names::comparison_key(&index.name(declaration.name)) == simple
        })
        .map(|slot| (file.clone(), slot))
        .collect();
    texts.insert(path, text);
    Ok(found)
}

/// The declarations in `files` (the workspace files whose bytes hold the name's last segment)
/// whose simple name is that segment, after the editor's buffers are applied.
fn declarations_in_workspace(
    index: &SyntaxIndex,
    root: &Path,
    name: &str,
    files: &[PathBuf],
    overlay: &Overlay,
) -> Vec<Found> {
    apply_editor_buffers(index, root, overlay);
    let mut sorted = files.to_vec();
    sorted.sort();
    let mut found = Vec::new();
    for hit in index.find_declarations_in(&simple_name(name), &sorted) {
        if let Some(file) = index.file(&hit.path)
            && let Some(slot) = file.index.declarations.iter().position(|declaration| *declaration == hit.declaration)
        {
            found.push((file, slot));
        }
    }
    found
}

fn simple_name(name: &str) -> String {
    crate::commands::find::segments(name).pop().unwrap_or_default()
}

/// Whether a declaration is the one asked for: its full name is the name or ends with `.name`,
/// segment by segment and in any spelling of each (``` ``value`` ``` is `value`; `>>=`,
/// `(>>=)` and `op_GreaterGreaterEquals` are one operator), of the kinds and at the line given.
fn selected(
    index: &SyntaxIndex,
    arguments: &ReadSymbolArguments,
    kinds: Option<&[DeclarationKind]>,
    file: &IndexedFile,
    slot: usize,
    at_line: bool,
) -> bool {
    let declaration = &file.index.declarations[slot];
    crate::commands::find::qualified_matches(&index.full_name(&file.index, slot), arguments.name(), true)
        && kinds.is_none_or(|kinds| kinds.contains(&declaration.kind))
        && (!at_line
            || arguments.line.is_none_or(|line| {
                let line = line.as_u32();
                declaration.name_start.line == line || declaration.range.start.line == line
            }))
}

/// A `line` that no file in question has is the caller's mistake, never a place where the name
/// is not declared: with `path`, past that file's end; without, past the end of every file
/// that declares the name (`named`: its declarations at any line).
fn line_in_range(
    index: &SyntaxIndex,
    root: &Path,
    name: &str,
    line: u32,
    path: Option<&Path>,
    named: &[Found],
) -> Result<(), CommandError> {
    let lines_of = |file: &IndexedFile| file.index.lines;
    let longest = match path {
        Some(path) => index.file(path).map(|file| lines_of(&file)),
        None => named.iter().map(|(file, _)| lines_of(file)).max(),
    };
    match longest {
        // `lines` counts the lines an editor shows; the empty position after a final newline is
        // a line a position may still name.
        Some(lines) if line > lines => Err(CommandError::invalid_argument(
            "line",
            match path {
                Some(path) => format!(
                    "line {line} is past the end of {}, which has {lines} lines (0-based)",
                    display_relative(root, path)
                ),
                None => format!(
                    "line {line} is past the end of every file declaring {name:?} (the longest has {lines} lines, 0-based)"
                ),
            },
        )),
        _ => Ok(()),
    }
}

/// `not_found`, and when the name is declared but not at the `line` given, the message says
/// where it is declared (the first few places).
fn not_found_at(
    index: &SyntaxIndex,
    root: &Path,
    arguments: &ReadSymbolArguments,
    path: Option<&Path>,
    files: &[PathBuf],
    named: &[Found],
) -> NotFound {
    let mut answer = not_found(index, root, arguments.name(), path, files);
    if let Some(line) = arguments.line
        && !named.is_empty()
    {
        let places: Vec<String> = named
            .iter()
            .take(5)
            .map(|(file, slot)| {
                format!(
                    "{} line {}",
                    display_relative(root, &file.path),
                    file.index.declarations[*slot].name_start.line
                )
            })
            .collect();
        answer.message = format!(
            "no declaration named {:?} at line {line}; it is declared at {}{}",
            arguments.name(),
            places.join(", "),
            if named.len() > places.len() {
                format!(" and {} more", named.len() - places.len())
            } else {
                String::new()
            }
        );
    }
    answer
}

/// A declaration can hide in a region the parser could not read: "not found" is only certain
/// when every file searched (`path`, else the workspace files whose bytes hold the name: no
/// other file can declare it) parsed cleanly.
fn not_found(index: &SyntaxIndex, root: &Path, name: &str, path: Option<&Path>, files: &[PathBuf]) -> NotFound {
    let searched: Vec<Arc<IndexedFile>> = match path {
        Some(path) => index.file(path).into_iter().collect(),
        None => files.iter().filter_map(|path| index.file(path)).collect(),
    };
    let unclean: Vec<&Arc<IndexedFile>> =
        searched.iter().filter(|file| file.index.health.status != HealthStatus::Clean).collect();
    let mut message = format!(
        "no declaration named {name:?}{} in the syntax index",
        if path.is_some() { " in that file" } else { "" }
    );
    if let Some(first) = unclean.first() {
        message.push_str(&format!(
            "; {} of the {} files searched did not parse cleanly (first: {}), so it may be declared in \
             a region the parser could not read",
            unclean.len(),
            searched.len(),
            display_relative(root, &first.path)
        ));
    }
    NotFound {
        certain: unclean.is_empty(),
        files_searched: searched.len(),
        files_not_cleanly_parsed: unclean.len(),
        message,
        hint: "symbol_search finds files by partial names; names are case-sensitive here".to_owned(),
    }
}

/// The one declaration's source, cut at `maxLines`.
fn symbol_source(
    index: &SyntaxIndex,
    root: &Path,
    arguments: &ReadSymbolArguments,
    (file, slot): &Found,
    texts: &mut TextCache,
) -> Result<SymbolSource, CommandError> {
    let Some(text) = texts.text_of(file) else {
        return Err(CommandError::Internal(format!("{} changed while it was read; try again", file.path.display())));
    };
    let (first, last) = line_span(&file.index.declarations[*slot]);
    let shown_last = last.min(first + arguments.max_lines.as_u32() - 1);
    let truncated = shown_last < last;
    Ok(SymbolSource {
        symbol: symbol_facts(index, root, file, *slot, Some(&text)),
        chain: chain_of(index, &file.index, *slot),
        source: slice_lines(&text, first, shown_last),
        leading: leading_lines(&text, first),
        source_range: SourceRange { start_line: first, end_line: shown_last },
        truncated,
        lines_omitted: truncated.then(|| last - shown_last),
        hint: truncated
            .then(|| "raise maxLines, or call read_enclosing with onOversize outline for its parts".to_owned()),
        from_editor_buffer: texts.overlay.get(&file.path).is_some(),
    })
}

fn ambiguous(index: &SyntaxIndex, root: &Path, name: &str, found: &[Found], texts: &mut TextCache) -> Candidates {
    let candidates = found
        .iter()
        .take(CANDIDATES_LIMIT)
        .map(|(file, slot)| {
            let text = texts.text_of(file);
            Candidate {
                symbol: symbol_facts(index, root, file, *slot, text.as_deref()),
                select: Selection {
                    name: name.to_owned(),
                    path: display_relative(root, &file.path),
                    line: file.index.declarations[*slot].name_start.line,
                },
            }
        })
        .collect();
    Candidates {
        message: format!("{} declarations match; pick one with path and line (or kinds)", found.len()),
        candidates,
        candidates_omitted: found.len().saturating_sub(CANDIDATES_LIMIT),
    }
}

/// The texts read so far, each checked against its file's content hash when first read.
struct TextCache<'a> {
    overlay: &'a Overlay,
    texts: HashMap<PathBuf, String>,
}

impl<'a> TextCache<'a> {
    fn new(overlay: &'a Overlay) -> Self {
        TextCache { overlay, texts: HashMap::new() }
    }

    fn insert(&mut self, path: &Path, text: String) {
        self.texts.insert(path.to_path_buf(), text);
    }

    fn text_of(&mut self, file: &IndexedFile) -> Option<String> {
        if let Some(text) = self.texts.get(&file.path) {
            return Some(text.clone());
        }
        let text = current_text(&file.path, self.overlay, &file.index.content_sha256)?;
        self.texts.insert(file.path.clone(), text.clone());
        Some(text)
    }
}

// ---- readEnclosing ----------------------------------------------------------------------------

/// `fslens.readEnclosing` in a session: only the one file is indexed, so it never waits for
/// the workspace index.
pub async fn read_enclosing(
    arguments: ReadEnclosingArguments,
    context: CommandContext,
) -> Result<ReadEnclosingAnswer, CommandError> {
    let started = Instant::now();
    let root = context.workspace_root()?.to_path_buf();
    let path = confine(&root, &arguments.path, "path")?;
    let index = context.syntax_index();
    let overlay = context.editor_buffers().await?;
    crate::commands::run_blocking(move || {
        let mut answer = read_enclosing_with_index(&index, &root, &path, &arguments, &overlay)?;
        answer.elapsed_ms = Some(started.elapsed().as_millis() as u64);
        Ok(answer)
    })
    .await
}

/// The answer of `fslens.readEnclosing`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReadEnclosingAnswer {
    pub tool: String,
    pub via: SyntaxVia,
    pub completeness: Completeness,
    pub path: String,
    pub line: u32,
    pub line_text: String,
    pub from_editor_buffer: bool,
    /// The file's parse health.
    pub health: HealthName,
    #[serde(flatten)]
    pub outcome: EnclosingOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
}

/// `status` and what it holds.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum EnclosingOutcome {
    NoEnclosingDeclaration(NoEnclosing),
    Ok(Enclosed<WholeBody>),
    Oversize(Enclosed<Refusal>),
    Slice(Enclosed<Slice>),
    Outline(Enclosed<NestedParts>),
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct NoEnclosing {
    pub message: String,
    pub nearest: Nearest,
}

/// The declarations ending last before the line and starting first after it.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Nearest {
    pub before: Option<SymbolFacts>,
    pub after: Option<SymbolFacts>,
}

/// The enclosing declaration, and what its outcome gives of its body.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Enclosed<Body> {
    pub symbol: SymbolFacts,
    pub chain: Vec<ChainLink>,
    pub max_lines: u32,
    #[serde(flatten)]
    pub body: Body,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct WholeBody {
    pub source: String,
    #[serde(flatten)]
    pub leading: Option<LeadingLines>,
    pub source_range: SourceRange,
    pub truncated: bool,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct OversizeFacts {
    pub lines: u32,
    pub max_lines: u32,
    pub on_oversize: Oversize,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Refusal {
    pub oversize: OversizeFacts,
    pub truncated: bool,
    pub message: String,
    pub hint: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Slice {
    pub oversize: OversizeFacts,
    pub source: String,
    pub source_range: SourceRange,
    pub truncated: bool,
    pub lines_omitted: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct NestedParts {
    pub oversize: OversizeFacts,
    pub signature: Option<String>,
    pub nested: Vec<NestedDeclaration>,
    pub nested_omitted: usize,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct NestedDeclaration {
    pub name: String,
    pub kind: KindName,
    pub depth: usize,
    pub start_line: u32,
    pub end_line: u32,
    pub lines: u32,
    /// Exactly readEnclosing's arguments, so a client can pass it back as it is.
    pub read: ReadAt,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ReadAt {
    pub path: String,
    pub line: u32,
}

/// What the enclosing declaration's outcome is built from.
struct EnclosingSource<'a> {
    index: &'a SyntaxIndex,
    root: &'a Path,
    path: &'a Path,
    file: &'a IndexedFile,
    text: &'a str,
    arguments: &'a ReadEnclosingArguments,
}

fn read_enclosing_with_index(
    index: &SyntaxIndex,
    root: &Path,
    path: &Path,
    arguments: &ReadEnclosingArguments,
    overlay: &Overlay,
) -> Result<ReadEnclosingAnswer, CommandError> {
    let (file, text) = read_source_file(index, path, &arguments.path, overlay, "cannot read it")?;
    let line = arguments.line.as_u32();
    crate::commands::arguments::line_of(&text, line)?;
    let source = EnclosingSource { index, root, path, file: &file, text: &text, arguments };
    let outcome = match smallest_enclosing(&file.index, arguments) {
        None => EnclosingOutcome::NoEnclosingDeclaration(source.nearest()),
        Some(slot) => source.enclosed(slot),
    };
    Ok(ReadEnclosingAnswer {
        tool: "readEnclosing".to_owned(),
        via: SyntaxVia::Syntax,
        completeness: Completeness::Syntactic,
        path: display_relative(root, path),
        line,
        line_text: text.lines().nth(line as usize).unwrap_or_default().chars().take(200).collect(),
        from_editor_buffer: overlay.get(path).is_some(),
        health: file.index.health.status.into(),
        outcome,
        elapsed_ms: None,
    })
}

/// The smallest declaration of the wanted kinds enclosing the position (fewest lines; ties:
/// the innermost).
fn smallest_enclosing(file: &FileIndex, arguments: &ReadEnclosingArguments) -> Option<usize> {
    let kinds: Option<Vec<DeclarationKind>> = selected_kinds(arguments.kinds.as_deref());
    let (line, character) = (arguments.line.as_u32(), arguments.character.map(Bounded::as_u32));
    file.declarations
        .iter()
        .enumerate()
        .filter(|(_, declaration)| kinds.as_ref().is_none_or(|kinds| kinds.contains(&declaration.kind)))
        .filter(|(_, declaration)| contains(declaration, line, character))
        .min_by_key(|(slot, declaration)| {
            let (first, last) = line_span(declaration);
            (last - first, std::cmp::Reverse(first), std::cmp::Reverse(*slot))
        })
        .map(|(slot, _)| slot)
}

fn contains(declaration: &Declaration, line: u32, character: Option<u32>) -> bool {
    let (first, last) = line_span(declaration);
    if line < first || line > last {
        return false;
    }
    let Some(character) = character else { return true };
    let at = Position { line, character };
    declaration.range.start <= at && (at < declaration.range.end || line < declaration.range.end.line)
}

impl EnclosingSource<'_> {
    fn facts(&self, slot: usize) -> SymbolFacts {
        symbol_facts(self.index, self.root, self.file, slot, Some(self.text))
    }

    fn nearest(&self) -> NoEnclosing {
        let line = self.arguments.line.as_u32();
        let declarations = self.file.index.declarations.iter().enumerate();
        let before = declarations
            .clone()
            .filter(|(_, declaration)| line_span(declaration).1 < line)
            .max_by_key(|(_, declaration)| line_span(declaration).1);
        let after = declarations
            .filter(|(_, declaration)| declaration.range.start.line > line)
            .min_by_key(|(_, declaration)| declaration.range.start.line);
        NoEnclosing {
            message: "no declaration of the requested kinds encloses that line".to_owned(),
            nearest: Nearest {
                before: before.map(|(slot, _)| self.facts(slot)),
                after: after.map(|(slot, _)| self.facts(slot)),
            },
        }
    }

    /// The declaration at `slot` whole, or what `onOversize` gives when it is too long.
    fn enclosed(&self, slot: usize) -> EnclosingOutcome {
        let (first, last) = line_span(&self.file.index.declarations[slot]);
        let total = last - first + 1;
        let max_lines = self.arguments.max_lines();
        if total <= max_lines {
            return EnclosingOutcome::Ok(self.with_symbol(
                slot,
                WholeBody {
                    source: slice_lines(self.text, first, last),
                    leading: leading_lines(self.text, first),
                    source_range: SourceRange { start_line: first, end_line: last },
                    truncated: false,
                },
            ));
        }
        let oversize = OversizeFacts { lines: total, max_lines, on_oversize: self.arguments.on_oversize };
        match self.arguments.on_oversize {
            Oversize::Error => EnclosingOutcome::Oversize(
                self.with_symbol(
                    slot,
                    Refusal {
                        oversize,
                        truncated: true,
                        message: format!(
                            "the declaration has {total} lines, more than maxLines {max_lines}; no source returned"
                        ),
                        hint:
                            "raise maxLines, or pass onOversize slice (a window around the line) or outline (its parts)"
                                .to_owned(),
                    },
                ),
            ),
            Oversize::Slice => EnclosingOutcome::Slice(self.with_symbol(slot, self.slice(oversize, first, last))),
            Oversize::Outline => {
                let signature = self.facts(slot).signature;
                EnclosingOutcome::Outline(self.with_symbol(slot, self.nested_parts(oversize, slot, signature)))
            }
        }
    }

    fn with_symbol<Body>(&self, slot: usize, body: Body) -> Enclosed<Body> {
        Enclosed {
            symbol: self.facts(slot),
            chain: chain_of(self.index, &self.file.index, slot),
            max_lines: self.arguments.max_lines(),
            body,
        }
    }

    /// A window of the slice size around the line, kept inside the declaration's lines.
    fn slice(&self, oversize: OversizeFacts, first: u32, last: u32) -> Slice {
        let total = last - first + 1;
        let window = self.arguments.slice_lines().min(total).max(1);
        let mut start = self.arguments.line.as_u32().saturating_sub(window / 2).max(first);
        let end = (start + window - 1).min(last);
        start = end + 1 - window.min(end + 1 - first);
        Slice {
            oversize,
            source: slice_lines(self.text, start, end),
            source_range: SourceRange { start_line: start, end_line: end },
            truncated: true,
            lines_omitted: total - (end - start + 1),
        }
    }

    /// Every declaration inside the one at `slot` (at most [`OUTLINE_LIMIT`]).
    fn nested_parts(&self, oversize: OversizeFacts, slot: usize, signature: Option<String>) -> NestedParts {
        let file = &self.file.index;
        let inside: Vec<usize> =
            (0..file.declarations.len()).filter(|child| *child != slot && is_inside(file, *child, slot)).collect();
        let depth_of_parent = file.declaration_chain(slot).len();
        let nested: Vec<NestedDeclaration> = inside
            .iter()
            .take(OUTLINE_LIMIT)
            .map(|child| {
                let candidate = &file.declarations[*child];
                let (child_first, child_last) = line_span(candidate);
                NestedDeclaration {
                    name: self.index.name(candidate.name).to_string(),
                    kind: candidate.kind.into(),
                    depth: file.declaration_chain(*child).len() - depth_of_parent,
                    start_line: child_first,
                    end_line: child_last,
                    lines: child_last - child_first + 1,
                    read: ReadAt { path: display_relative(self.root, self.path), line: candidate.name_start.line },
                }
            })
            .collect();
        NestedParts {
            oversize,
            signature,
            nested,
            nested_omitted: inside.len().saturating_sub(OUTLINE_LIMIT),
            truncated: true,
            hint: inside
                .is_empty()
                .then(|| "no nested declarations: pass onOversize slice to read around the line".to_owned()),
        }
    }
}

/// Whether declaration `child` sits under `ancestor` in the parent chain.
fn is_inside(file: &FileIndex, child: usize, ancestor: usize) -> bool {
    let mut current = file.declarations.get(child).map(|declaration| declaration.parent).unwrap_or(NO_PARENT);
    let mut steps = 0;
    while current != NO_PARENT && steps <= file.declarations.len() {
        if current as usize == ancestor {
            return true;
        }
        current = file.declarations.get(current as usize).map(|declaration| declaration.parent).unwrap_or(NO_PARENT);
        steps += 1;
    }
    false
}

/// Definite for source; not definite for `ambiguous` and `not_found`.
impl crate::commands::outcome::Answered for ReadSymbolAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(matches!(self.outcome, ReadSymbolOutcome::Ok(_)))
    }
}

/// Definite for source (`ok`, and the `slice` or `outline` that `onOversize` asked for); not
/// definite for `no_enclosing_declaration` and `oversize`.
impl crate::commands::outcome::Answered for ReadEnclosingAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(matches!(
            self.outcome,
            EnclosingOutcome::Ok(_) | EnclosingOutcome::Slice(_) | EnclosingOutcome::Outline(_)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "module Shapes

/// A shape.
type Shape =
    | Circle of radius: float
    | Square of side: float

let area shape =
    match shape with
    | Circle r -> r * r
    | Square s -> s * s

module Inner =
    let area x = x
";

    fn workspace() -> (SyntaxIndex, PathBuf, PathBuf, Overlay) {
        let root = PathBuf::from("/w");
        let path = root.join("Shapes.fs");
        let mut overlay = Overlay::new();
        overlay.insert(path.clone(), SOURCE);
        (SyntaxIndex::new(crate::syntax::IndexOptions::without_cache()), root, path, overlay)
    }

    /// The answer as sent reads back to the same answer, and `status` is `expected`.
    fn reads_back<Answer: Serialize + serde::de::DeserializeOwned>(answer: &Answer, expected: &str) {
        let sent = serde_json::to_value(answer).unwrap();
        assert_eq!(sent["status"], expected, "{sent:#}");
        let read: Answer = serde_json::from_value(sent.clone()).unwrap_or_else(|error| panic!("{error}: {sent:#}"));
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
    }

    #[test]
    fn read_symbol_answers_read_back_as_sent() {
        let (index, root, path, overlay) = workspace();
        for (name, status) in [("Shape", "ok"), ("area", "ambiguous"), ("Nothing", "not_found")] {
            let arguments: ReadSymbolArguments =
                serde_json::from_value(serde_json::json!({ "name": name, "path": "Shapes.fs" })).unwrap();
            let answer = read_symbol_with_index(&index, &root, &arguments, Some(&path), None, &overlay).unwrap();
            reads_back(&answer, status);
        }
    }

    #[test]
    fn read_enclosing_answers_read_back_as_sent() {
        let (index, root, path, overlay) = workspace();
        let cases = [
            (serde_json::json!({ "line": 9 }), "ok"),
            (serde_json::json!({ "line": 9, "maxLines": 1 }), "oversize"),
            (serde_json::json!({ "line": 9, "maxLines": 1, "onOversize": "slice" }), "slice"),
            (serde_json::json!({ "line": 0, "maxLines": 1, "onOversize": "outline" }), "outline"),
            (serde_json::json!({ "line": 2, "kinds": ["let"] }), "no_enclosing_declaration"),
        ];
        for (mut arguments, status) in cases {
            arguments["path"] = serde_json::json!("Shapes.fs");
            let arguments: ReadEnclosingArguments = serde_json::from_value(arguments).unwrap();
            let answer = read_enclosing_with_index(&index, &root, &path, &arguments, &overlay).unwrap();
            reads_back(&answer, status);
        }
    }
}
