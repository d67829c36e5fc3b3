//! The result stream: every row formed once, in order, and hashed into the stream identity
//! with the project ledger and the resolved declarations, of which only the rows of the
//! requested page are kept (memory is bounded by the page, not the answer); and the check
//! that a cursor continues this very stream.

use std::ops::Range;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::find::answer::ProjectRow;
use crate::commands::find::page::{FindCursor, StreamHasher};
use crate::commands::find::resolve::Declared;
use crate::commands::find::rows::{Site, site_row};
use crate::commands::find::target::Placement;
use crate::commands::find::{FindRun, Texts, resolve_display};
use crate::lsp::ext::error_kinds;
use crate::lsp::message::error_codes;

/// The stream, formed.
pub(super) struct Stream {
    /// `resolution.declarations`, every one (the answer shows the first few).
    pub declarations: Vec<Value>,
    /// The rows of the requested window.
    pub page_rows: Vec<Value>,
    /// The stream identity a cursor carries.
    pub identity: String,
}

/// The rows a page may take: from the cursor's offset, at most `maxResults`.
fn window(find: &FindRun, cursor: Option<&FindCursor>) -> Range<usize> {
    let start = cursor.map_or(0, |cursor| cursor.offset);
    start..start.saturating_add(find.arguments.max_results().max(1))
}

/// Forms every row of the segment (sites are sorted by file, so each file's text is read once and dropped
/// after its rows) and the stream identity over the ledger, the declarations and the rows.
pub(super) fn form(
    find: &FindRun,
    texts: &mut Texts,
    placement: &Placement,
    ledger: (&[ProjectRow], &[Declared]),
    sites: &[Site],
    site_types: Option<&[Option<String>]>,
    cursor: Option<&FindCursor>,
) -> Stream {
    let window = window(find, cursor);
    let from_file = cursor.and_then(|cursor| cursor.from_file.as_deref());
    let (per_project, declared) = ledger;
    let declarations = declarations_json(find, texts, declared);
    let via = if find.fsac.ready { "fsac" } else { "syntax" };
    let mut hasher = StreamHasher::new();
    hasher.add(&json!({ "perProject": per_project, "declarations": declarations, "via": via, "fromFile": from_file }));
    let context_lines = find.arguments.context_lines_applied();
    let mut page_rows = Vec::with_capacity(window.len().min(sites.len()));
    let mut previous_file: Option<PathBuf> = None;
    for (number, site) in sites.iter().enumerate() {
        let path = resolve_display(&find.root, &site.file);
        if let Some(previous) = previous_file.take_if(|previous| *previous != path) {
            texts.forget(&previous);
        }
        let lines = texts.text(&path).map(|(_, lines)| lines);
        let mut row = site_row(site, lines, context_lines);
        // A file linked into several projects: the others that compile it.
        let others = placement.also_compiled_by(&path, site.project.as_deref(), &find.model);
        if !others.is_empty() {
            row["alsoCompiledBy"] = json!(others);
        }
        if let Some(types) = site_types
            && site.kind.starts_with("field-")
        {
            row["siteType"] = json!(types.get(number).cloned().flatten());
        }
        hasher.add(&row);
        if window.contains(&number) {
            page_rows.push(row);
        }
        previous_file = Some(path);
    }
    Stream { declarations, page_rows, identity: hasher.finish() }
}

/// The resolved declarations as the answer lists them (with `includeInfo`, their access and
/// rendered signature).
fn declarations_json(find: &FindRun, texts: &mut Texts, declared: &[Declared]) -> Vec<Value> {
    let include_info = find.arguments.include_info;
    declared
        .iter()
        .map(|declaration| {
            let text = if include_info { texts.text(&declaration.path).map(|(text, _)| text.clone()) } else { None };
            declaration.to_json(&|path| find.model.display_path(path), include_info, text.as_deref())
        })
        .collect()
}

/// The page's offset: 0, or the cursor's once it is shown to continue this query and this
/// stream. A sweep that did not complete cannot show that: the same cursor is to be retried.
pub(super) fn page_offset(
    cursor: Option<&FindCursor>,
    query_identity: &str,
    stream: &Stream,
    total: usize,
    sweep_incomplete: bool,
) -> Result<usize, CommandError> {
    let Some(cursor) = cursor else { return Ok(0) };
    if sweep_incomplete {
        return Err(CommandError::typed(
            error_kinds::FIND_CURSOR_VALIDATION_INCOMPLETE,
            error_codes::INVALID_PARAMS,
            "the sweep did not complete in time, so the cursor could not be validated; retry the same cursor (with a \
             larger timeoutMs)",
            json!({ "argument": "cursor", "retrySameCursor": true, "paginationRestartRequired": false }),
        ));
    }
    cursor.validate(query_identity, &stream.identity, total)
}
