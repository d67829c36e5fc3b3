//! The `symbol_at_word` tool: the hover and the definition of a word on a line, found by its
//! text (a line off by a few is tolerated), so an agent need not count UTF-16 columns.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::arguments::{Occurrence, SymbolPosition};
use crate::commands::params::{CommandArguments, Coordinate, TimeoutMs};
use crate::commands::paths::{confine, display_relative};
use crate::failure::Failure;
use crate::lsp::ext::error_kinds;
use crate::navigation::locations::{enrich_locations, hover_text, locate_word};
use crate::navigation::navigate::{LSP_TOOL_TIMEOUT_MS, Navigator};

/// The arguments of `symbol_at_word`: a position given by its word (no `character`), read as
/// the one position argument ([`SymbolAtWordArguments::position`]), with a line off by a few
/// tolerated.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SymbolAtWordArguments {
    /// The file. Relative to the workspace root or absolute inside it; paths outside are
    /// refused.
    pub path: String,
    /// 0-based line of the word (a line off by a few is tolerated).
    pub line: Coordinate,
    /// The identifier to look up (a whole word).
    #[schemars(length(min = 1))]
    pub word: String,
    /// Which occurrence of the word on the line, from 1.
    #[serde(default)]
    pub occurrence: Occurrence,
    /// One deadline for the whole request, in milliseconds.
    #[serde(default)]
    pub timeout_ms: TimeoutMs<LSP_TOOL_TIMEOUT_MS>,
}

impl SymbolAtWordArguments {
    /// The position these arguments name: `word` on `line`, never a column.
    pub fn position(&self) -> SymbolPosition<'_> {
        SymbolPosition {
            path: &self.path,
            line: self.line.as_u32(),
            character: None,
            word: Some(&self.word),
            occurrence: self.occurrence.as_usize(),
        }
    }
}

impl CommandArguments for SymbolAtWordArguments {
    fn validate(&self) -> Result<(), CommandError> {
        self.position().validate()
    }
}

impl Navigator<'_> {
    /// The hover and the definition of the `occurrence`-th whole `word` on `line` (or a line
    /// near it), asked of FSAC at once.
    pub async fn symbol_at_word(&self, arguments: &SymbolAtWordArguments) -> Result<Value, Failure> {
        let allowed = arguments.timeout_ms.as_duration_ms();
        let deadline = (tokio::time::Instant::now() + allowed, allowed);
        let position = arguments.position();
        let path = confine(self.root, position.path, "path")?;
        let uri = crate::uri::path_to_uri(&path)
            .ok_or_else(|| Failure::invalid_argument("path", format!("cannot make a URI of {}", path.display())))?;
        let (word, occurrence) = (arguments.word.as_str(), position.occurrence);
        let text = crate::source_files::read_regular_text(&path).map_err(|error| {
            Failure::new(error_kinds::INVALID_PATH, format!("cannot read {}: {error}", path.display()))
        })?;
        let position = locate_word(&text, &position)?;
        let params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": position.line, "character": position.character },
        });
        let (hover, definition) = tokio::join!(
            self.forward("textDocument/hover", params.clone(), deadline),
            self.forward("textDocument/definition", params, deadline),
        );
        let hover = hover?;
        let mut definition = definition?;
        enrich_locations(&mut definition, self.root);
        let mut answer = json!({
            "path": display_relative(self.root, &path),
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
}
