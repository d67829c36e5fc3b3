//! The `symbol_at_word` tool: the hover and the definition of a word on a line, found by its
//! text (a line off by a few is tolerated), so an agent need not count UTF-16 columns.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::params::{Bounded, CommandArguments, TimeoutMs};
use crate::commands::paths::{confine, display_relative};
use crate::failure::Failure;
use crate::lsp::ext::error_kinds;
use crate::navigation::locations::{enrich_locations, hover_text, locate_word};
use crate::navigation::navigate::{LSP_TOOL_TIMEOUT_MS, Navigator};

/// The arguments of `symbol_at_word`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SymbolAtWordArguments {
    /// The file. Relative to the workspace root or absolute inside it; paths outside are
    /// refused.
    pub path: String,
    /// 0-based line of the word (a line off by a few is tolerated).
    pub line: Bounded<0, { u32::MAX as u64 }>,
    /// The identifier to look up (a whole word).
    #[schemars(length(min = 1))]
    pub word: String,
    /// Which occurrence of the word on the line, from 1.
    #[serde(default)]
    pub occurrence: Bounded<1, 100_000, 1>,
    /// One deadline for the whole request, in milliseconds.
    #[serde(default)]
    pub timeout_ms: TimeoutMs<LSP_TOOL_TIMEOUT_MS>,
}

impl CommandArguments for SymbolAtWordArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if self.word.is_empty() {
            return Err(CommandError::invalid_argument("word", "required: the identifier on the line"));
        }
        Ok(())
    }
}

impl Navigator<'_> {
    /// The hover and the definition of the `occurrence`-th whole `word` on `line` (or a line
    /// near it), asked of FSAC at once.
    pub async fn symbol_at_word(&self, arguments: &SymbolAtWordArguments) -> Result<Value, Failure> {
        let allowed = arguments.timeout_ms.as_duration_ms();
        let deadline = (tokio::time::Instant::now() + allowed, allowed);
        let path = confine(self.root, &arguments.path, "path")?;
        let uri = crate::uri::path_to_uri(&path)
            .ok_or_else(|| Failure::invalid_argument("path", format!("cannot make a URI of {}", path.display())))?;
        let line = arguments.line.as_usize();
        let word = arguments.word.as_str();
        let occurrence = arguments.occurrence.as_usize();
        let text = crate::source_files::read_regular_text(&path).map_err(|error| {
            Failure::new(error_kinds::INVALID_PATH, format!("cannot read {}: {error}", path.display()))
        })?;
        // A line past the end of the file is the `line`'s fault, whatever the word.
        crate::commands::arguments::line_of(&text, u32::try_from(line).unwrap_or(u32::MAX))?;
        let position =
            locate_word(&text, line, word, occurrence).map_err(|message| Failure::invalid_argument("word", message))?;
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
