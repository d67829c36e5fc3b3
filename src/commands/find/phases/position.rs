//! Phase 2, kind position: `path` + `line` + `word` or `character` resolved to a column of a
//! readable file, and the identifier there (the name the find looks for).

use std::path::{Path, PathBuf};

use crate::commands::CommandError;
use crate::commands::find::matching;
use crate::commands::find::model::arguments::FindArguments;
use crate::commands::find::model::texts::Texts;
use crate::commands::paths::confine;

/// The position of kind=position, resolved to a column.
pub struct ResolvedPosition {
    pub path: PathBuf,
    pub uri: String,
    pub line: u32,
    pub character: u32,
    pub word: Option<String>,
    /// The identifier under the position (else the `word` given): the name looked for.
    pub name: Option<String>,
    pub text: String,
}

/// kind position: `path` + `line` + `word` (its `occurrence`) or `character`, resolved to a
/// column of a readable file; a line, word or column that is not there names the argument.
pub fn resolve_position(
    arguments: &FindArguments,
    root: &Path,
    texts: &mut Texts,
) -> Result<ResolvedPosition, CommandError> {
    let position = arguments
        .position()
        .ok_or_else(|| CommandError::invalid_argument("path", "kind position needs path, line and word"))?;
    let written = position.path;
    let path = confine(root, written, "path")?;
    let (text, lines) = texts.text(&path).ok_or_else(|| CommandError::InvalidPath {
        path: written.to_owned(),
        message: "cannot read the file".into(),
    })?;
    let line_number = position.line;
    let line = lines.line(line_number).ok_or_else(|| {
        CommandError::invalid_argument("line", crate::commands::arguments::past_the_end_message(text, line_number))
    })?;
    let character = position.column_on(line)?;
    let uri = crate::uri::path_to_uri(&path)
        .ok_or_else(|| CommandError::InvalidPath { path: written.to_owned(), message: "cannot make a URI".into() })?;
    let name = matching::identifier_at(line, character).or(arguments.word.clone());
    Ok(ResolvedPosition {
        path,
        uri,
        line: line_number,
        character,
        word: arguments.word.clone(),
        name,
        text: text.clone(),
    })
}
