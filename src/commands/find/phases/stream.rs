//! The result stream: every row formed once, in order, and hashed into the stream identity
//! with the project ledger and the resolved declarations, of which only the rows of the
//! requested page are kept (memory is bounded by the page, not the answer); and the check
//! that a cursor continues this very stream.

use std::ops::Range;

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
use crate::commands::find::matching::Declared;
use crate::commands::find::model::answer::ProjectRow;
use crate::commands::find::model::cursor::{CursorRefusal, FindCursor, StreamHasher};
use crate::commands::find::model::rows::{SYMBOL_CANDIDATES_SHOWN, Site, SiteRow};
use crate::commands::find::model::texts::{Texts, resolve_display};
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::target::Placement;
use crate::lsp::ext::error_kinds;
use crate::lsp::message::error_codes;

/// The stream, formed.
pub struct Stream {
    /// `resolution.declarations`, every one (the answer shows the first few).
    pub declarations: Vec<Value>,
    /// The rows of the requested window.
    pub page_rows: Vec<SiteRow>,
    /// The stream identity a cursor carries.
    pub identity: String,
}

/// What the stream identity hashes before the rows (keys sorted, as a JSON map of them
/// would write them).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StreamHead<'a> {
    declarations: &'a [Value],
    from_file: Option<&'a str>,
    per_project: Value,
    via: &'static str,
}

/// The rows a page may take: from the cursor's offset, at most `maxResults`.
pub fn window(find: &FindRun, cursor: Option<&FindCursor>) -> Range<usize> {
    let start = cursor.map_or(0, |cursor| cursor.offset);
    start..start.saturating_add(find.arguments.max_results().max(1))
}

/// Forms the rows of `window` and the stream identity over the ledger, the declarations and
/// every row of the segment (which starts at `from_file`, when given).
///
/// A row is identified by what it is made of, not by its serialized text: its file (display
/// path, the content hash the syntax index holds for the text it read, the other projects
/// compiling it) once per file, then each row's position, kind, symbol, project, origin and
/// site type. Any change to what a row would show changes one of these, so a cursor over a
/// changed file is still stale; and a file none of whose rows is in the window is never read
/// (a name used in every file of a large workspace costs one read per file of the page, not of
/// the workspace).
pub fn form(
    find: &FindRun,
    texts: &mut Texts,
    placement: &Placement,
    ledger: (&[ProjectRow], &[Declared]),
    sites: &[Site],
    site_types: Option<&[Option<String>]>,
    (window, from_file): (Range<usize>, Option<&str>),
) -> Stream {
    let (per_project, declared) = ledger;
    let declarations = declarations_json(find, texts, declared);
    let via = if find.fsac.ready { "fsac" } else { "syntax" };
    let mut hasher = StreamHasher::new();
    let per_project = serde_json::to_value(per_project).unwrap_or(Value::Null);
    hasher.add_serialized(&StreamHead { declarations: &declarations, from_file, per_project, via });
    let context_lines = find.arguments.context_lines_applied();
    let mut page_rows = Vec::with_capacity(window.len().min(sites.len()));
    let mut last_candidates: Option<(&[String], usize)> = None;
    // Sites are sorted by file: each file's path, content and compiling projects are looked up
    // once for all its rows; its text is read only when a row of the window needs it, and
    // dropped after them.
    let mut number = 0;
    for file_sites in sites.chunk_by(|left, right| left.file == right.file) {
        let path = resolve_display(&find.root, &file_sites[0].file);
        let compiling = placement.compiling_projects(&path, &find.model);
        let in_window = window.start < number + file_sites.len() && number < window.end;
        let content = match find.index.file(&path) {
            Some(indexed) if !in_window => FileContent::Indexed(indexed.index.content_sha256),
            _ => match texts.text(&path) {
                Some((text, _)) => FileContent::Read(crate::syntax::cache::to_hex(&Sha256::digest(text.as_bytes()))),
                None => FileContent::Unreadable,
            },
        };
        // The same text hashes alike whether the index or this read supplied its digest.
        let digest = match &content {
            FileContent::Indexed(digest) => Some(crate::syntax::cache::to_hex(digest)),
            FileContent::Read(digest) => Some(digest.clone()),
            FileContent::Unreadable => None,
        };
        hasher.add_serialized(&FileKey {
            file: &file_sites[0].file,
            content: digest.as_deref(),
            compiling: &compiling,
        });
        let lines = if in_window { texts.text(&path).map(|(_, lines)| lines) } else { None };
        for site in file_sites {
            let site_type = site_types
                .filter(|_| site.kind.is_field())
                .map(|types| types.get(number).and_then(|found| found.as_deref()));
            // What a row shows of its candidates (the first few and the count), hashed again
            // only when it differs from the row before (many rows share one long list).
            let all = site.symbol_candidates.as_slice();
            let candidates = (&all[..all.len().min(SYMBOL_CANDIDATES_SHOWN)], all.len());
            if last_candidates != Some(candidates) {
                hasher.add_serialized(&candidates);
                last_candidates = Some(candidates);
            }
            hasher.add_serialized(&RowKey::of(site, site_type));
            if window.contains(&number) {
                // A file linked into several projects: the others that compile it.
                let others: Vec<String> =
                    compiling.iter().filter(|other| site.project.as_deref() != Some(other.as_str())).cloned().collect();
                page_rows.push(SiteRow::new(site, lines, context_lines, others, site_type));
            }
            number += 1;
        }
        texts.forget(&path);
    }
    Stream { declarations, page_rows, identity: hasher.finish() }
}

/// Where a file's content digest came from.
enum FileContent {
    /// The syntax index's SHA-256 of the text it indexed (the buffer's, else the disk's).
    Indexed([u8; 32]),
    /// The SHA-256 of the text read now (hex).
    Read(String),
    Unreadable,
}

/// What the stream identity hashes once per file.
#[derive(Serialize)]
struct FileKey<'a> {
    file: &'a str,
    content: Option<&'a str>,
    compiling: &'a [String],
}

/// What the stream identity hashes for each row (besides its file's [`FileKey`]).
#[derive(Serialize)]
struct RowKey<'a> {
    range: [u32; 4],
    kind: &'a str,
    symbol: Option<&'a str>,
    project: Option<&'a str>,
    via: &'a str,
    condition: Option<&'a str>,
    site_type: Option<Option<&'a str>>,
}

impl<'a> RowKey<'a> {
    fn of(site: &'a Site, site_type: Option<Option<&'a str>>) -> Self {
        let range = site.range;
        RowKey {
            range: [range.start.line, range.start.character, range.end.line, range.end.character],
            kind: site.kind.as_str(),
            symbol: site.symbol_full_name.as_deref(),
            project: site.project.as_deref(),
            via: site.via.as_str(),
            condition: site.condition.as_deref(),
            site_type,
        }
    }
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
pub fn page_offset(
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
            CursorRefusal {
                reuse_original_cursor: None,
                retry_same_cursor: Some(true),
                pagination_restart_required: Some(false),
                ..CursorRefusal::RESTART
            },
        ));
    }
    cursor.validate(query_identity, &stream.identity, total)
}
