//! `fslens.typeHierarchy`, which FSAC lacks (its `TextDocumentPrepareTypeHierarchy` logs
//! "unimplemented"): the type at a position as FSAC's definition resolves it, its supertypes
//! (the `inherit` and `interface` lines of its own declaration, each resolved by FSAC's
//! definition) and its subtypes (every `interface T`, `inherit T` and `new T` line of the
//! workspace's F# files whose `T` FSAC's definition resolves to this type's declaration).
//! Candidates come from lines of text, so the answer never claims to be complete.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::find::rows::{RowPosition, RowRange};
use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::commands::paths::display_relative;
use crate::commands::{CommandContext, CommandError};
use crate::lsp::ext::error_kinds;
use crate::lsp::message::error_codes;
use crate::session_state::status::State;

crate::commands::arguments::symbol_position_arguments! {
    cli: any();
    /// The arguments of `fslens.typeHierarchy`.
    #[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TypeHierarchyArguments {
        /// The file with the type's name or a use of it. Relative to the workspace root or
        /// absolute inside it; paths outside are refused.
        path,
        /// One deadline for the whole request (FSAC's definitions of every candidate), in
        /// milliseconds.
        #[serde(default)]
        pub timeout_ms: TimeoutMs<60_000>,
    }
}

impl CommandArguments for TypeHierarchyArguments {
    fn validate(&self) -> Result<(), CommandError> {
        self.position().validate()
    }
}

/// The answer of `fslens.typeHierarchy`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct TypeHierarchyAnswer {
    /// Always `typeHierarchy`.
    pub tool: String,
    /// Always `fsac+syntax`: candidates from lines of text, each confirmed by FSAC.
    pub via: String,
    #[serde(rename = "type")]
    pub type_: HierarchyType,
    pub supertypes: Vec<Supertype>,
    pub subtypes: Vec<Subtype>,
    pub candidates_checked: usize,
    /// Always `false`: candidates come from lines of text, so a subtype named through an
    /// abbreviation or split over lines is not seen.
    pub complete: bool,
    pub coverage: String,
}

/// `type`: the type's declaration as FSAC's definition resolves it.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct HierarchyType {
    pub name: String,
    pub uri: String,
    pub file: String,
    pub range: RowRange,
    pub line_text: String,
}

/// One `inherit X` / `interface X` line of the type's own declaration.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Supertype {
    pub uri: String,
    pub range: RowRange,
    pub via: HierarchyVia,
    /// FSAC's declaration of `X`, when it has one in the sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<SupertypeDeclaration>,
}

/// Where a supertype is declared: an empty range at its declaration's start.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct SupertypeDeclaration {
    /// `null` when the path has no `file:` URI.
    pub uri: Option<String>,
    pub range: RowRange,
}

/// One `interface T` / `inherit T` / `new T` line of the workspace naming this type.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Subtype {
    pub uri: String,
    pub range: RowRange,
    pub kind: SubtypeKind,
    pub via: HierarchyVia,
}

/// What a subtype line declares.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum SubtypeKind {
    /// A class, record or union implementing or inheriting the type.
    Type,
    /// `{ new T with … }`.
    ObjectExpression,
}

/// Who confirmed a row: always FSAC's definition.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum HierarchyVia {
    Fsac,
}

/// What the subtypes were looked for in, in words.
const COVERAGE: &str = "every F# file of the workspace's projects, read from disk: its interface, inherit and object-expression lines naming the type, each confirmed by FSAC's definition; a type named through an abbreviation or on a line of its own is not seen";

/// A declaration FSAC's definition points at: file, 0-based line and UTF-16 column.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Declared {
    path: PathBuf,
    line: u64,
    character: u64,
}

pub async fn type_hierarchy(
    arguments: TypeHierarchyArguments,
    context: CommandContext,
) -> Result<TypeHierarchyAnswer, CommandError> {
    let root = context.workspace_root()?.to_path_buf();
    let deadline = tokio::time::Instant::now() + arguments.timeout_ms.as_duration_ms();
    let status = context.status().await?;
    if status.state != State::Ready {
        return Err(CommandError::Unavailable(format!(
            "the type hierarchy needs FSAC's definitions, and FSAC is {} (fslens.status says why)",
            status.state.as_str()
        )));
    }
    let lookup = Lookup { context: &context, deadline, overlay: context.editor_buffers().await? };
    let crate::commands::arguments::ResolvedPosition { path, text, line, line_text, character } =
        arguments.position().resolve(&root, &lookup.overlay)?;
    if let Some(reason) = crate::commands::find::non_symbol_at(&text, &path, line, character) {
        return Err(no_symbol(reason, &line_text));
    }
    let asked = lookup.definitions(&path, &[(line as usize, character as usize)]).await?;
    let Some(Some(declared)) = asked.into_iter().next() else {
        return Err(no_symbol("no_symbol", &line_text));
    };
    let declared_text = lookup.text(&declared.path)?;
    let declared_lines: Vec<&str> = declared_text.lines().collect();
    let header = declared_lines.get(declared.line as usize).copied().unwrap_or_default();
    if !header.trim_start().starts_with("type ") && !header.trim_start().starts_with("and ") {
        return Err(CommandError::invalid_argument(
            "line",
            format!("the symbol here is declared by {:?}, which is not a type", header.trim()),
        ));
    }
    let name = identifier_at_column(header, declared.character as usize).unwrap_or_default();
    let supertypes = lookup.supertypes(&declared, &declared_text).await?;
    let model = crate::commands::load_workspace_model(&root).await?;
    let (subtypes, candidates) = lookup.subtypes(&declared, &name, &model.files_to_index()).await?;
    let type_uri = crate::uri::path_to_uri(&declared.path).unwrap_or_default();
    Ok(TypeHierarchyAnswer {
        tool: "typeHierarchy".to_owned(),
        via: "fsac+syntax".to_owned(),
        type_: HierarchyType {
            name,
            uri: type_uri,
            file: display_relative(&root, &declared.path),
            range: line_range(declared.line as usize, declared.character as usize, header),
            line_text: header.to_owned(),
        },
        supertypes,
        subtypes,
        candidates_checked: candidates,
        // Candidates come from lines of text: the answer never claims to be complete.
        complete: false,
        coverage: COVERAGE.to_owned(),
    })
}

/// FSAC's definitions, asked with each file opened for the command (closed again after).
struct Lookup<'a> {
    context: &'a CommandContext,
    deadline: tokio::time::Instant,
    /// The editor's unsaved buffers: what FSAC sees for the files open there.
    overlay: crate::syntax::index::Overlay,
}

impl Lookup<'_> {
    /// Where FSAC says the symbol at each of `positions` (line, UTF-16 column) of `path` is
    /// declared (`None`: no source declaration). The file is opened in FSAC once for all of
    /// them (a no-op when the editor has it open) and closed again.
    async fn definitions(
        &self,
        path: &Path,
        positions: &[(usize, usize)],
    ) -> Result<Vec<Option<Declared>>, CommandError> {
        if positions.is_empty() {
            return Ok(Vec::new());
        }
        let uri =
            crate::uri::path_to_uri(path).ok_or_else(|| CommandError::Internal("cannot make a URI".to_owned()))?;
        self.context.acquire_document(&uri, self.text(path)?).await?;
        let mut found = Vec::with_capacity(positions.len());
        for (line, character) in positions {
            let params = DefinitionParams {
                text_document: TextDocument { uri: &uri },
                position: RowPosition { line: *line as u32, character: *character as u32 },
            };
            let params = serde_json::to_value(params)
                .map_err(|error| CommandError::Internal(format!("the definition request: {error}")))?;
            match self.context.backend_request("textDocument/definition", params, self.deadline).await {
                Ok(Ok(answer)) => found.push(declared_at(answer)),
                Ok(Err(error)) => {
                    self.context.release_document(&uri);
                    return Err(CommandError::Unavailable(format!("FSAC's definition failed: {}", error.message)));
                }
                Err(error) => {
                    self.context.release_document(&uri);
                    return Err(error);
                }
            }
        }
        self.context.release_document(&uri);
        Ok(found)
    }

    /// A file's text as FSAC sees it (the editor's buffer first).
    fn text(&self, path: &Path) -> Result<String, CommandError> {
        crate::commands::paths::current_text(&self.overlay, path)
    }

    /// The declaration's own `inherit X` / `interface X` lines, each with FSAC's declaration
    /// of `X` when it has one in the sources.
    async fn supertypes(&self, declared: &Declared, text: &str) -> Result<Vec<Supertype>, CommandError> {
        let lines: Vec<&str> = text.lines().collect();
        let header = lines.get(declared.line as usize).copied().unwrap_or_default();
        let indent = |line: &str| line.len() - line.trim_start().len();
        let mut candidates = Vec::new();
        for (number, line) in lines.iter().enumerate().skip(declared.line as usize + 1) {
            if !line.trim().is_empty() && indent(line) <= indent(header) {
                break;
            }
            if let Some((character, _)) = named_after_keyword(line, &["inherit", "interface"]) {
                candidates.push((number, character));
            }
        }
        let resolved = self.definitions(&declared.path, &candidates).await?;
        let uri = crate::uri::path_to_uri(&declared.path).unwrap_or_default();
        Ok(candidates
            .iter()
            .zip(resolved)
            .map(|(&(number, character), found)| Supertype {
                uri: uri.clone(),
                range: line_range(number, character, lines[number]),
                via: HierarchyVia::Fsac,
                declaration: found.map(|found| {
                    let at = RowPosition { line: found.line as u32, character: found.character as u32 };
                    SupertypeDeclaration {
                        uri: crate::uri::path_to_uri(&found.path),
                        range: RowRange { start: at, end: at },
                    }
                }),
            })
            .collect())
    }

    /// Every `interface`/`inherit`/`new` line of `files` naming `name` whose name FSAC resolves
    /// to `declared`; and how many candidate lines were checked.
    async fn subtypes(
        &self,
        declared: &Declared,
        name: &str,
        files: &[PathBuf],
    ) -> Result<(Vec<Subtype>, usize), CommandError> {
        let mut subtypes = Vec::new();
        let mut checked = 0usize;
        for file in files {
            let Ok(text) = self.text(file) else { continue };
            if name.is_empty() || !text.contains(name) {
                continue;
            }
            let Some(uri) = crate::uri::path_to_uri(file) else { continue };
            let lines: Vec<&str> = text.lines().collect();
            let candidates: Vec<(usize, usize)> = lines
                .iter()
                .enumerate()
                .filter_map(|(number, line)| match named_after_keyword(line, &["inherit", "interface", "new"]) {
                    Some((character, found)) if found == name => Some((number, character)),
                    _ => None,
                })
                .collect();
            checked += candidates.len();
            let resolved = self.definitions(file, &candidates).await?;
            for (&(number, character), found) in candidates.iter().zip(resolved) {
                if found.is_some_and(|found| found.path == declared.path && found.line == declared.line) {
                    let kind =
                        if lines[number].contains("new ") { SubtypeKind::ObjectExpression } else { SubtypeKind::Type };
                    subtypes.push(Subtype {
                        uri: uri.clone(),
                        range: line_range(number, character, lines[number]),
                        kind,
                        via: HierarchyVia::Fsac,
                    });
                }
            }
        }
        Ok((subtypes, checked))
    }
}

/// The params of `textDocument/definition`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DefinitionParams<'a> {
    text_document: TextDocument<'a>,
    position: RowPosition,
}

#[derive(Serialize)]
struct TextDocument<'a> {
    uri: &'a str,
}

/// FSAC's `textDocument/definition` answer, as far as fslens reads it: a Location, Locations
/// or LocationLinks (or `null`). The LSP shape lives here, beside its only reader.
#[derive(Deserialize)]
#[serde(untagged)]
enum DefinitionAnswer {
    Many(Vec<DefinitionTarget>),
    One(DefinitionTarget),
}

/// A Location (`uri`, `range`) or a LocationLink (`targetUri`, `targetSelectionRange`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DefinitionTarget {
    uri: Option<String>,
    range: Option<RowRange>,
    target_uri: Option<String>,
    target_selection_range: Option<RowRange>,
}

/// The declaration a `textDocument/definition` answer points at (the first of several).
fn declared_at(answer: Value) -> Option<Declared> {
    let target = match DefinitionAnswer::deserialize(answer).ok()? {
        DefinitionAnswer::Many(targets) => targets.into_iter().next()?,
        DefinitionAnswer::One(target) => target,
    };
    let uri = target.uri.or(target.target_uri)?;
    let range = target.range.or(target.target_selection_range)?;
    Some(Declared {
        path: crate::uri::uri_to_path(&uri)?,
        line: u64::from(range.start.line),
        character: u64::from(range.start.character),
    })
}

/// `data` of `no_symbol_at_position`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoSymbolData<'a> {
    argument: &'static str,
    reason: &'a str,
    line_text: &'a str,
}

/// `no_symbol_at_position`, naming `line`, with the reason and the line's text.
fn no_symbol(reason: &str, line_text: &str) -> CommandError {
    let message = match reason {
        "no_symbol" => "FSAC found no type at this position".to_owned(),
        other => format!("the position is on a {other}, not on a symbol"),
    };
    CommandError::typed(
        error_kinds::NO_SYMBOL_AT_POSITION,
        error_codes::INVALID_PARAMS,
        message,
        serde_json::to_value(NoSymbolData { argument: "line", reason, line_text }).unwrap_or_default(),
    )
}

/// The identifier starting at or spanning the byte `column` of `line`.
pub fn identifier_at_column(line: &str, column: usize) -> Option<String> {
    let is_identifier = crate::syntax::words::is_identifier_char;
    let start = line[..column.min(line.len())].rfind(|c: char| !is_identifier(c)).map_or(0, |at| at + 1);
    let end = line[start..].find(|c: char| !is_identifier(c)).map_or(line.len(), |at| start + at);
    (end > start).then(|| line[start..end].to_owned())
}

/// The UTF-16 column and text of the (last dotted segment of the) name after the first of
/// `keywords` on `line`, as in `interface IShape with`, `inherit Base()`, `{ new IShape with`.
pub fn named_after_keyword(line: &str, keywords: &[&str]) -> Option<(usize, String)> {
    let code = line.split("//").next().unwrap_or(line);
    for keyword in keywords {
        let mut from = 0;
        while let Some(found) = code[from..].find(keyword) {
            let at = from + found;
            from = at + keyword.len();
            let before_ok = code[..at].chars().next_back().is_none_or(|c| !crate::syntax::words::is_identifier_char(c));
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

/// The range of the identifier at UTF-16 `character` of `line` (empty when there is none).
pub fn line_range(line: usize, character: usize, text: &str) -> RowRange {
    let end = character + identifier_at_column(text, character).map_or(0, |name| name.encode_utf16().count());
    let at = |character: usize| RowPosition { line: line as u32, character: character as u32 };
    RowRange { start: at(character), end: at(end) }
}

/// A hierarchy is always definite (what it could not confirm, it says in its fields).
impl crate::commands::outcome::Answered for TypeHierarchyAnswer {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reads_back_as_sent() {
        let sent = serde_json::json!({
            "tool": "typeHierarchy",
            "via": "fsac+syntax",
            "type": {
                "name": "IShape", "uri": "file:///w/Shapes.fs", "file": "Shapes.fs", "lineText": "type IShape =",
                "range": { "start": { "line": 2, "character": 5 }, "end": { "line": 2, "character": 11 } },
            },
            "supertypes": [
                {
                    "uri": "file:///w/Shapes.fs", "via": "fsac",
                    "range": { "start": { "line": 3, "character": 14 }, "end": { "line": 3, "character": 20 } },
                    "declaration": {
                        "uri": "file:///w/Base.fs",
                        "range": { "start": { "line": 0, "character": 5 }, "end": { "line": 0, "character": 5 } },
                    },
                },
                {
                    "uri": "file:///w/Shapes.fs", "via": "fsac",
                    "range": { "start": { "line": 4, "character": 14 }, "end": { "line": 4, "character": 25 } },
                },
            ],
            "subtypes": [{
                "uri": "file:///w/Circle.fs", "kind": "objectExpression", "via": "fsac",
                "range": { "start": { "line": 7, "character": 10 }, "end": { "line": 7, "character": 16 } },
            }],
            "candidatesChecked": 3,
            "complete": false,
            "coverage": COVERAGE,
        });
        let answer = TypeHierarchyAnswer::deserialize(&sent).expect("the answer reads back");
        assert_eq!(answer.subtypes[0].kind, SubtypeKind::ObjectExpression);
        assert_eq!(serde_json::to_value(&answer).unwrap(), sent);
    }

    #[test]
    fn definitions_are_read_from_locations_and_links() {
        let location = serde_json::json!({
            "uri": "file:///w/A.fs",
            "range": { "start": { "line": 4, "character": 5 }, "end": { "line": 4, "character": 9 } },
        });
        let link = serde_json::json!([{
            "targetUri": "file:///w/B.fs",
            "targetRange": { "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } },
            "targetSelectionRange": { "start": { "line": 1, "character": 5 }, "end": { "line": 1, "character": 9 } },
        }]);
        let at = |path: &str, line, character| Some(Declared { path: PathBuf::from(path), line, character });
        assert_eq!(declared_at(location.clone()), at("/w/A.fs", 4, 5));
        assert_eq!(declared_at(serde_json::json!([location])), at("/w/A.fs", 4, 5));
        assert_eq!(declared_at(link), at("/w/B.fs", 1, 5));
        assert_eq!(declared_at(Value::Null), None);
        assert_eq!(declared_at(serde_json::json!([])), None);
    }
}
