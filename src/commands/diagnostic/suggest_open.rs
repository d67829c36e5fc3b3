//! `fslens.suggestOpen`: for a name the compiler could not resolve (an FS0039 at a position,
//! or just a `name`), which `open` brings it into scope. Two sources, each labelled: FSAC's
//! own "open X" / "Use X.Y" code actions (offered only when FSAC's `ResolveNamespaces` setting
//! is on), and the workspace's declarations from the syntax index — the namespaces and modules
//! that declare the name, with the `open` line to insert and where, qualifying the name when
//! its module is `[<RequireQualifiedAccess>]`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::diagnostic::answer::{
    BlockingReason, DescribedFix, DiagnosticSummary, EditPreviews, UnknownStatus, Via,
};
use crate::commands::diagnostic::arguments::SuggestOpenArguments;
use crate::commands::diagnostic::{Location, Selector, code_actions, first_page, locate, read_text};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position};
use crate::lsp::types::{Diagnostic, Range, TextEdit, WorkspaceEdit};
use crate::syntax::index::{Overlay, SyntaxIndex};
use crate::syntax::model::{Access, DeclarationKind, FileIndex};
use crate::workspace::WorkspaceModel;

/// Titles of FSAC's ResolveNamespaces fixes (docs/fsac-protocol.md §7).
fn is_open_fix(title: &str) -> bool {
    title.starts_with("open ") || title.starts_with("Use ")
}

/// The unresolved name in an FS0039 message (`The value or constructor 'x' is not defined.`),
/// else the text the diagnostic's range covers.
pub fn unresolved_name(diagnostic: &Diagnostic, text: &str) -> Option<String> {
    let message = diagnostic.message.as_str();
    if let Some(open) = message.find('\'')
        && let Some(close) = message[open + 1..].find("' is not defined")
    {
        let name = &message[open + 1..open + 1 + close];
        if !name.is_empty() {
            return Some(name.to_owned());
        }
    }
    let lines = LineIndex::new(text);
    let start = lines.offset(text, diagnostic.range.start);
    let end = lines.offset(text, diagnostic.range.end);
    text.get(start..end).map(str::trim).filter(|name| !name.is_empty()).map(str::to_owned)
}

/// Where a new top-level `open` goes in `text`: after the last `open` of the file's header, else
/// after its `module`/`namespace` line, else at the top; with the indentation to use and the
/// namespaces already opened there.
pub struct OpenInsertion {
    pub line: u32,
    pub indentation: String,
    pub already_open: HashSet<String>,
}

pub fn open_insertion(text: &str) -> OpenInsertion {
    let mut insertion = OpenInsertion { line: 0, indentation: String::new(), already_open: HashSet::new() };
    let mut seen_header = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indentation = &line[..line.len() - trimmed.len()];
        if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with("[<") {
            continue;
        }
        // A script's `#r`/`#load`/`#I` directives bring what an `open` may need: go below them.
        if trimmed.starts_with('#') {
            if ["#r ", "#load ", "#I ", "#nowarn "].iter().any(|directive| trimmed.starts_with(directive)) {
                insertion.line = number as u32 + 1;
            }
            continue;
        }
        let word = trimmed.split_whitespace().next().unwrap_or_default();
        match word {
            "module" | "namespace" if !seen_header && !trimmed.trim_end().ends_with('=') => {
                seen_header = true;
                insertion.line = number as u32 + 1;
                insertion.indentation = indentation.to_owned();
            }
            "open" => {
                let opened = trimmed.trim_start_matches("open").trim();
                let opened = opened.strip_prefix("type ").unwrap_or(opened).trim();
                insertion.already_open.insert(opened.to_owned());
                insertion.line = number as u32 + 1;
                insertion.indentation = indentation.to_owned();
                seen_header = true;
            }
            _ => break,
        }
    }
    insertion
}

/// Whether the attribute lists just above (or at the start of) a module declaration hold
/// `RequireQualifiedAccess`, read from the text the syntax index points at.
fn requires_qualified_access(text: &str, declaration_line: u32, name_line: u32) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let mut first = declaration_line as usize;
    while first > 0 && lines.get(first - 1).is_some_and(|line| line.trim_start().starts_with("[<")) {
        first -= 1;
    }
    (first..=name_line as usize).filter_map(|line| lines.get(line)).any(|line| line.contains("RequireQualifiedAccess"))
}

/// The kinds a bare name can refer to once its container is opened.
fn referable(kind: DeclarationKind) -> bool {
    !matches!(
        kind,
        DeclarationKind::Namespace
            | DeclarationKind::RecordField
            | DeclarationKind::UnionField
            | DeclarationKind::EnumCase
            | DeclarationKind::Member
            | DeclarationKind::AbstractMember
            | DeclarationKind::Override
            | DeclarationKind::Constructor
            | DeclarationKind::AutoProperty
    )
}

/// One workspace declaration of the name, turned into an `open` (and a qualification when a
/// `[<RequireQualifiedAccess>]` module stands in the way).
struct SyntaxCandidate {
    path: PathBuf,
    full_name: String,
    kind: &'static str,
    line: u32,
    open: Option<String>,
    qualifier: Vec<String>,
}

fn syntax_candidates(index: &SyntaxIndex, name: &str, texts: &Overlay) -> (Vec<SyntaxCandidate>, usize) {
    let Some(id) = index.interner().lookup(name) else { return (Vec::new(), 0) };
    let mut found = Vec::new();
    let mut private = 0;
    for path in index.paths() {
        let Some(file) = index.file(&path) else { continue };
        let file_index: &FileIndex = &file.index;
        let text = read_text(texts, &path).unwrap_or_default();
        for (slot, declaration) in file_index.declarations.iter().enumerate() {
            if declaration.name != id || !referable(declaration.kind) {
                continue;
            }
            if declaration.access == Access::Private {
                private += 1;
                continue;
            }
            // The containers (namespaces and modules), outermost first; a union case's type
            // is not one (its cases are in scope wherever the union's container is opened).
            let chain = file_index.declaration_chain(slot);
            let containers: Vec<usize> = chain[..chain.len().saturating_sub(1)]
                .iter()
                .copied()
                .filter(|&slot| {
                    matches!(file_index.declarations[slot].kind, DeclarationKind::Namespace | DeclarationKind::Module)
                })
                .collect();
            if chain.len() > 1 && containers.len() + 1 != chain.len() && declaration.kind != DeclarationKind::UnionCase
            {
                continue; // nested in a type: not reachable by a bare name
            }
            let mut opened: Vec<String> =
                containers.iter().map(|&slot| index.name(file_index.declarations[slot].name).to_string()).collect();
            let mut qualifier = Vec::new();
            for &slot in containers.iter().rev() {
                let container = &file_index.declarations[slot];
                let rqa = container.kind == DeclarationKind::Module
                    && requires_qualified_access(&text, container.range.start.line, container.name_start.line);
                if !rqa {
                    break;
                }
                qualifier.insert(0, opened.pop().unwrap_or_default());
            }
            found.push(SyntaxCandidate {
                path: path.clone(),
                full_name: index.full_name(file_index, slot),
                kind: declaration.kind.as_str(),
                line: declaration.name_start.line,
                open: if opened.is_empty() { None } else { Some(opened.join(".")) },
                qualifier,
            });
        }
    }
    (found, private)
}

/// Whether code in `from` can see declarations of `declared_in` by compile order and project
/// references: `before`, `later` (same project, later file), `referenced`, `not_referenced`.
fn visibility(model: &WorkspaceModel, from: &Path, declared_in: &Path) -> Visibility {
    let Some(project) = model.projects_compiling(from).into_iter().next() else { return Visibility::Unknown };
    let position = |path: &Path| project.compile_items.iter().position(|item| item.path == path);
    if let (Some(from_at), Some(declared_at)) = (position(from), position(declared_in)) {
        return if declared_at <= from_at { Visibility::Before } else { Visibility::Later };
    }
    let mut seen = HashSet::new();
    let mut stack = project.project_references.clone();
    while let Some(reference) = stack.pop() {
        if !seen.insert(reference.clone()) {
            continue;
        }
        if let Some(referenced) = model.project(&reference) {
            if referenced.compiles(declared_in) {
                return Visibility::Referenced;
            }
            stack.extend(referenced.project_references.iter().cloned());
        }
    }
    Visibility::NotReferenced
}

/// Whether code in one file can see another's declarations, by compile order and project
/// references.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Earlier in the same project's compile order (or the same file, above the use).
    Before,
    /// Later in the same project, or further down the same file: no `open` helps.
    Later,
    /// In a project the file's project references.
    Referenced,
    /// In a project the file's project does not reference.
    NotReferenced,
    /// Without a file to look from.
    Unknown,
}

/// `ok` or `not_found`.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SuggestStatus {
    Ok,
    NotFound,
}

/// The answer of `fslens.suggestOpen`: the suggestions for the name, or that the name is not
/// known.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum SuggestOpenAnswer {
    Suggested(Box<Suggested>),
    NameUnknown(Box<NameUnknown>),
}

/// The answer once the name is known.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Suggested {
    pub status: SuggestStatus,
    /// A `not_found` is certain only when FSAC was asked and answered.
    pub certain: bool,
    pub name: String,
    /// The sources of the listed suggestions.
    pub via: Via,
    pub suggestions: Vec<Suggestion>,
    pub total_suggestions: usize,
    pub truncated: bool,
    pub truncated_by_budget: bool,
    pub suggestions_omitted: usize,
    pub omitted: Omitted,
    pub fsac: FsacReport,
    pub syntax: SyntaxReport,
    pub written_to_disk: bool,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<DiagnosticSummary>,
    /// The file the `open` is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// The answer when the name is not known: FSAC gave no diagnostic to read it from.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NameUnknown {
    pub status: UnknownStatus,
    pub via: Via,
    pub fsac: FsacReport,
    pub reason: String,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<BlockingReason>,
}

/// Declarations of the name that cannot be what it means.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Omitted {
    pub private_declarations: usize,
    pub later_in_compile_order: usize,
    pub in_unreferenced_projects: usize,
}

impl Omitted {
    /// Each count with its wire name, in the answer's order.
    pub fn counts(&self) -> [(&'static str, usize); 3] {
        [
            ("privateDeclarations", self.private_declarations),
            ("laterInCompileOrder", self.later_in_compile_order),
            ("inUnreferencedProjects", self.in_unreferenced_projects),
        ]
    }
}

/// Whether FSAC was asked for its `open` fixes and what it gave.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FsacReport {
    pub asked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_actions: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_fixes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// `false` when FSAC gave no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<BlockingReason>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SyntaxReport {
    pub indexed_files: usize,
    pub coverage: String,
}

/// One suggestion, labelled with its source.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum Suggestion {
    /// One of FSAC's `open X` / `Use X.Y` fixes.
    Fsac(DescribedFix),
    /// One workspace declaration of the name, as an `open` to add.
    Syntax(SyntaxSuggestion),
}

/// One workspace declaration of the name, as an `open` to add.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SyntaxSuggestion {
    pub open: Option<String>,
    pub open_line: Option<String>,
    pub use_as: String,
    pub require_qualified_access: bool,
    pub declaration: DeclarationSite,
    /// `before`, `referenced` or `unknown`.
    pub visibility: Visibility,
    /// With a file: whether it opens the container already, where the `open` goes, and the
    /// edit with its preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub already_open: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_at: Option<Position>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<EditPreviews>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_edit: Option<WorkspaceEdit>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationSite {
    pub full_name: String,
    /// The declaration kind as the syntax index spells it (`let`, `union-case`, …).
    pub kind: String,
    pub file: String,
    pub line: u32,
}

/// What the FSAC arm found: its report, its suggestions, and the FS0039 it read.
#[derive(Default)]
struct FsacArm {
    report: FsacReport,
    suggestions: Vec<Suggestion>,
    /// The unresolved name read from the diagnostic's message.
    name: Option<String>,
    range: Option<Range>,
    line: Option<u32>,
    description: Option<DiagnosticSummary>,
}

pub async fn suggest_open(
    arguments: SuggestOpenArguments,
    mut context: CommandContext,
) -> Result<SuggestOpenAnswer, CommandError> {
    let started = Instant::now();
    let selector = arguments.fs0039_selector()?;
    let root = context.workspace_root()?.to_path_buf();
    let timeout = arguments.timeout_ms.as_duration_ms();
    let fsac = match &selector {
        Some(selector) => fsac_arm(&mut context, &root, selector, timeout).await?,
        None => FsacArm::default(),
    };
    let name = match (&arguments.name, &fsac.name) {
        (Some(name), _) => name.trim().to_owned(),
        (None, Some(name)) => name.clone(),
        (None, None) => {
            let blocking_reason = fsac.report.blocking_reason.clone();
            return Ok(SuggestOpenAnswer::NameUnknown(Box::new(NameUnknown {
                status: UnknownStatus::Unknown,
                via: Via::Fsac,
                fsac: fsac.report,
                reason: "the unresolved name is not known: FSAC gave no diagnostic to read it from; pass `name`"
                    .to_owned(),
                elapsed_ms: started.elapsed().as_millis() as u64,
                blocking_reason,
            })));
        }
    };
    // The file the `open` is for: the diagnostic's, or with only a name `path`.
    let target = match selector.as_ref().map(|selector| selector.path.as_str()).or(arguments.path.as_deref()) {
        Some(path) => Some(confine(&root, path, "path")?),
        None => None,
    };
    let syntax = syntax_arm(&context, &root, &name, target.as_deref(), &fsac).await?;
    let mut suggestions = fsac.suggestions;
    suggestions.extend(syntax.suggestions);
    let total = suggestions.len();
    let page = first_page(&suggestions, arguments.max_results.as_usize());
    suggestions.truncate(page.kept);
    let from_fsac = suggestions.iter().any(|suggestion| matches!(suggestion, Suggestion::Fsac(_)));
    let from_syntax = suggestions.iter().any(|suggestion| matches!(suggestion, Suggestion::Syntax(_)));
    let via = match (from_fsac, from_syntax) {
        (true, true) => Via::FsacAndSyntax,
        (true, false) => Via::Fsac,
        _ => Via::Syntax,
    };
    // Nothing found is only certain when FSAC was asked and answered: the syntax arm sees the
    // workspace's own declarations, not referenced packages or the framework.
    let fsac_answered = fsac.report.asked && fsac.report.complete != Some(false);
    Ok(SuggestOpenAnswer::Suggested(Box::new(Suggested {
        status: if total == 0 { SuggestStatus::NotFound } else { SuggestStatus::Ok },
        certain: total > 0 || fsac_answered,
        name,
        via,
        total_suggestions: total,
        truncated: page.truncated,
        truncated_by_budget: page.truncated_by_budget,
        suggestions_omitted: total - suggestions.len(),
        suggestions,
        omitted: syntax.omitted,
        fsac: fsac.report,
        syntax: SyntaxReport {
            indexed_files: syntax.indexed_files,
            coverage:
                "declarations in the workspace's own F# files; referenced packages and the framework are not searched"
                    .to_owned(),
        },
        written_to_disk: false,
        elapsed_ms: started.elapsed().as_millis() as u64,
        diagnostic: fsac.description,
        file: target.map(|path| display_relative(&root, &path)),
    })))
}

/// The FSAC arm: the FS0039 at the position, and FSAC's open/Use fixes for it.
async fn fsac_arm(
    context: &mut CommandContext,
    root: &Path,
    selector: &Selector,
    timeout: std::time::Duration,
) -> Result<FsacArm, CommandError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let located = match locate(context, selector, timeout).await? {
        Location::Found(located) => located,
        Location::Unknown(reason) => {
            let report = FsacReport {
                asked: true,
                complete: Some(false),
                reason: Some(reason.message.clone()),
                blocking_reason: Some(*reason),
                ..FsacReport::default()
            };
            return Ok(FsacArm { report, ..FsacArm::default() });
        }
    };
    let mut arm = FsacArm {
        name: unresolved_name(&located.diagnostic, &located.text),
        range: Some(located.diagnostic.range),
        line: Some(located.diagnostic.range.start.line),
        description: Some(located.summary()),
        ..FsacArm::default()
    };
    let actions = code_actions(context, &located, deadline).await;
    located.release(context);
    let overlay = context.editor_buffers().await?;
    match actions? {
        Ok(actions) => {
            let code_actions = actions.len();
            let offered: Vec<_> = actions.into_iter().filter(|action| is_open_fix(&action.title)).collect();
            arm.report = FsacReport {
                asked: true,
                code_actions: Some(code_actions),
                open_fixes: Some(offered.len()),
                note: offered.is_empty().then(|| {
                    "FSAC offered no \"open X\" / \"Use X.Y\" fix; it offers them only with its ResolveNamespaces setting on"
                        .to_owned()
                }),
                ..FsacReport::default()
            };
            arm.suggestions =
                offered.into_iter().map(|action| Suggestion::Fsac(DescribedFix::of(action, root, &overlay))).collect();
        }
        Err(why) => {
            arm.report = FsacReport { asked: true, complete: Some(false), reason: Some(why), ..FsacReport::default() }
        }
    }
    Ok(arm)
}

/// What the syntax arm found.
struct SyntaxArm {
    suggestions: Vec<Suggestion>,
    omitted: Omitted,
    indexed_files: usize,
}

/// The syntax arm: the workspace's declarations of the name, each as an `open` (with the edit
/// for `target` when there is one), leaving out those that cannot be what the name means.
async fn syntax_arm(
    context: &CommandContext,
    root: &Path,
    name: &str,
    target: Option<&Path>,
    fsac: &FsacArm,
) -> Result<SyntaxArm, CommandError> {
    // `Text.shout` is looked up by its last segment; the written qualifier must then match.
    let (written_qualifier, last_segment) = match name.rsplit_once('.') {
        Some((qualifier, last)) => (Some(qualifier.to_owned()), last.to_owned()),
        None => (None, name.to_owned()),
    };
    let model = crate::commands::load_workspace_model(root).await?;
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    let (candidates, private_skipped) = {
        let (index, overlay, files, last_segment) =
            (index.clone(), overlay.clone(), model.files_to_index(), last_segment.clone());
        crate::commands::run_blocking(move || {
            index.index_paths(&files, &overlay);
            Ok(syntax_candidates(&index, &last_segment, &overlay))
        })
        .await?
    };
    let insertion = match target {
        Some(path) => Some(open_insertion(
            &read_text(&overlay, path)
                .map_err(|message| CommandError::InvalidPath { path: display_relative(root, path), message })?,
        )),
        None => None,
    };
    let target_uri = target.and_then(crate::uri::path_to_uri);
    let edit_target = insertion.as_ref().zip(target_uri.as_deref());
    let mut omitted = Omitted { private_declarations: private_skipped, ..Omitted::default() };
    let mut suggestions = Vec::new();
    let mut seen = HashSet::new();
    for candidate in candidates {
        if let Some(written) = &written_qualifier {
            let container = candidate.full_name.rsplit_once('.').map(|(container, _)| container).unwrap_or_default();
            if !(container == written || container.ends_with(&format!(".{written}"))) {
                continue;
            }
        }
        let visible = match target {
            // Further down the same file: declared after its use, so no `open` helps.
            Some(target) if *target == candidate.path && fsac.line.is_some_and(|line| candidate.line > line) => {
                Visibility::Later
            }
            Some(target) => visibility(&model, target, &candidate.path),
            None => Visibility::Unknown,
        };
        match visible {
            Visibility::Later => {
                omitted.later_in_compile_order += 1;
                continue;
            }
            Visibility::NotReferenced => {
                omitted.in_unreferenced_projects += 1;
                continue;
            }
            Visibility::Before | Visibility::Referenced | Visibility::Unknown => {}
        }
        let qualified = if candidate.qualifier.is_empty() {
            last_segment.clone()
        } else {
            format!("{}.{last_segment}", candidate.qualifier.join("."))
        };
        if !seen.insert((candidate.open.clone(), qualified.clone())) {
            continue;
        }
        let mut suggestion = syntax_suggestion(&candidate, qualified, visible, root);
        if let Some((insertion, uri)) = edit_target {
            let qualify_at = fsac.range.as_ref().filter(|_| suggestion.use_as != name);
            add_the_edit(&mut suggestion, insertion, uri, qualify_at);
            if let Some(edit) = &suggestion.workspace_edit {
                suggestion.preview = Some(super::preview_edit(edit, root, &overlay));
            }
        }
        suggestions.push(Suggestion::Syntax(suggestion));
    }
    Ok(SyntaxArm { suggestions, omitted, indexed_files: index.file_count() })
}

/// A declaration of the name as an `open` to add (the edit comes with a target file).
fn syntax_suggestion(
    candidate: &SyntaxCandidate,
    use_as: String,
    visibility: Visibility,
    root: &Path,
) -> SyntaxSuggestion {
    SyntaxSuggestion {
        open: candidate.open.clone(),
        open_line: candidate.open.as_ref().map(|open| format!("open {open}")),
        use_as,
        require_qualified_access: !candidate.qualifier.is_empty(),
        declaration: DeclarationSite {
            full_name: candidate.full_name.clone(),
            kind: candidate.kind.to_owned(),
            file: display_relative(root, &candidate.path),
            line: candidate.line,
        },
        visibility,
        already_open: None,
        insert_at: None,
        preview: None,
        workspace_edit: None,
    }
}

/// The `open` line for the target file (unless it is open already) and, when the name needs
/// its module's qualification, the qualified name at the diagnostic's range.
fn add_the_edit(suggestion: &mut SyntaxSuggestion, insertion: &OpenInsertion, uri: &str, qualify_at: Option<&Range>) {
    let mut edits = Vec::new();
    let already = suggestion.open.as_ref().is_some_and(|open| insertion.already_open.contains(open));
    suggestion.already_open = Some(already);
    if let Some(open) = suggestion.open.as_ref().filter(|_| !already) {
        let at = Position { line: insertion.line, character: 0 };
        suggestion.insert_at = Some(at);
        edits.push(TextEdit::new(Range { start: at, end: at }, format!("{}open {open}\n", insertion.indentation)));
    }
    if let Some(range) = qualify_at {
        edits.push(TextEdit::new(*range, suggestion.use_as.clone()));
    }
    if !edits.is_empty() {
        suggestion.workspace_edit = Some(WorkspaceEdit::changes(BTreeMap::from([(uri.to_owned(), edits)])));
    }
}

/// Definite with suggestions, not definite for `not_found` and `unknown`.
impl crate::commands::outcome::Answered for SuggestOpenAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(
            matches!(self, SuggestOpenAnswer::Suggested(suggested) if suggested.status == SuggestStatus::Ok),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_name_comes_from_the_message_even_with_a_quote_in_it() {
        let range = json!({"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}});
        let read = |value: serde_json::Value| Diagnostic::read(&value).unwrap();
        let diagnostic = read(
            json!({"range": range, "message": "The value or constructor 'lenght'' is not defined. Maybe you want one of the following:\n   length'"}),
        );
        assert_eq!(unresolved_name(&diagnostic, "").as_deref(), Some("lenght'"));
        let ranged = read(json!({"message": "odd", "range": range}));
        assert_eq!(unresolved_name(&ranged, "let shout = 1").as_deref(), Some("shout"));
    }

    #[test]
    fn opens_go_after_the_header_and_its_opens() {
        let text = "module Fixes.Program\n\nopen System\nopen System.IO\n\nlet x = 1\n";
        let insertion = open_insertion(text);
        assert_eq!(insertion.line, 4);
        assert!(insertion.already_open.contains("System.IO"));
        let bare = open_insertion("namespace Acme\n\ntype T = int\n");
        assert_eq!(bare.line, 1);
        assert_eq!(open_insertion("let x = 1\n").line, 0);
        assert_eq!(
            open_insertion("#r \"nuget: X\"\n#load \"A.fs\"\n\nlet x = 1\n").line,
            2,
            "below a script's directives"
        );
    }

    #[test]
    fn require_qualified_access_is_read_above_the_module() {
        let text = "namespace N\n\n[<RequireQualifiedAccess>]\nmodule Numbers =\n    let f x = x\n";
        assert!(requires_qualified_access(text, 3, 3));
        assert!(requires_qualified_access(text, 2, 3));
        assert!(!requires_qualified_access("namespace N\nmodule Text =\n  let f = 1\n", 1, 1));
    }
}
