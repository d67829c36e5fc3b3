//! Site rows of `fslens.find`: one typed [`SiteRow`] per site, formed before any page is cut,
//! so a row serializes identically at every `maxResults` and page boundary.
//!
//! Source context is bounded here: `lineText` and every context entry hold at most
//! [`LINE_TEXT_MAX_UNITS`] UTF-16 code units, and the `lineTextSource*` fields map the
//! visible snippet back to the full line. `range` is never changed.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::syntax::model::{FieldSiteKind, TextRange};

/// The longest `lineText` (and context entry), in UTF-16 code units.
pub const LINE_TEXT_MAX_UNITS: usize = 512;

/// At most this many `symbolCandidates` are listed on one row (`symbolCandidateCount` gives
/// the number when there are more).
pub const SYMBOL_CANDIDATES_SHOWN: usize = 10;

/// What a site is (`kind` on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteKind {
    Definition,
    /// The declaration in a `.fsi` signature file.
    Signature,
    Reference,
    MemberUsage,
    /// In an `#if` branch the compiler did not see.
    Inactive,
    /// A field site the syntax layer does not classify.
    FieldReference,
    FieldConstruction,
    FieldCopyUpdate,
    FieldSetMutation,
    FieldPattern,
    FieldRead,
}

impl SiteKind {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::Definition => "definition",
            SiteKind::Signature => "signature",
            SiteKind::Reference => "reference",
            SiteKind::MemberUsage => "member-usage",
            SiteKind::Inactive => "inactive",
            SiteKind::FieldReference => "field-reference",
            SiteKind::FieldConstruction => "field-construction",
            SiteKind::FieldCopyUpdate => "field-copy-update",
            SiteKind::FieldSetMutation => "field-set-mutation",
            SiteKind::FieldPattern => "field-pattern",
            SiteKind::FieldRead => "field-read",
        }
    }

    /// One of the `field-*` kinds.
    pub fn is_field(self) -> bool {
        self.as_str().starts_with("field-")
    }

    /// `definition` or `signature`.
    pub fn is_declaration(self) -> bool {
        matches!(self, SiteKind::Definition | SiteKind::Signature)
    }
}

impl From<FieldSiteKind> for SiteKind {
    fn from(kind: FieldSiteKind) -> SiteKind {
        match kind {
            FieldSiteKind::Construction => SiteKind::FieldConstruction,
            FieldSiteKind::CopyUpdate => SiteKind::FieldCopyUpdate,
            FieldSiteKind::SetMutation => SiteKind::FieldSetMutation,
            FieldSiteKind::Pattern => SiteKind::FieldPattern,
            FieldSiteKind::Read => SiteKind::FieldRead,
        }
    }
}

impl std::fmt::Display for SiteKind {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Who found a site (`via` on a row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SiteVia {
    /// The compiler resolved it.
    Fsac,
    /// A name match.
    Syntax,
}

impl SiteVia {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteVia::Fsac => "fsac",
            SiteVia::Syntax => "syntax",
        }
    }
}

/// One site before it becomes a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Workspace-relative path with `/` separators (absolute when outside the root).
    pub file: String,
    pub range: TextRange,
    pub kind: SiteKind,
    /// The declaration's full name; `None` when syntax alone cannot tell which of several
    /// same-named declarations a site belongs to.
    pub symbol_full_name: Option<String>,
    /// What kind of symbol `symbol_full_name` is (`type`, `module`, `member`, `field`,
    /// `unionCase`, …), when known.
    pub symbol_kind: Option<&'static str>,
    /// Every same-named declaration, when `symbol_full_name` is `None`.
    pub symbol_candidates: std::sync::Arc<Vec<String>>,
    pub project: Option<String>,
    pub via: SiteVia,
    /// For an `inactive` row: the branch the compiler did not see (`#if NET6_0_OR_GREATER`).
    pub condition: Option<std::sync::Arc<str>>,
}

/// Removes the sites at `rows` (indices into `sites`), keeping the others in order.
pub fn remove_rows(sites: &mut Vec<Site>, rows: &std::collections::HashSet<usize>) {
    let mut index = 0;
    sites.retain(|_| {
        index += 1;
        !rows.contains(&(index - 1))
    });
}

impl Site {
    /// The canonical order: file, position, then kind and symbol (for identical ranges of
    /// distinct symbols, which the de-duplication then collapses).
    pub fn canonical_order(&self, other: &Site) -> Ordering {
        (&self.file, self.range, self.kind.as_str(), &self.symbol_full_name).cmp(&(
            &other.file,
            other.range,
            other.kind.as_str(),
            &other.symbol_full_name,
        ))
    }
}

/// Sorts and removes later duplicates of the same (file, range); the first (in the
/// canonical order) wins.
pub fn sort_and_deduplicate(sites: &mut Vec<Site>) {
    sites.sort_by(Site::canonical_order);
    sites.dedup_by(|later, earlier| later.file == earlier.file && later.range == earlier.range);
    drop_enclosing_sites(sites);
}

/// Two rows of one symbol never overlap: a row whose range holds another row of the same
/// symbol in the same file is not a site of its own. FSAC reports an active pattern's whole
/// `|Even|Odd|` beside the case's own characters (`Even`); the case is the site, and the whole
/// pattern would be a second row for one place. `sites` is in canonical order (file, then
/// range), so only the rows starting before a row's end can lie inside it.
fn drop_enclosing_sites(sites: &mut Vec<Site>) {
    let mut enclosing = vec![false; sites.len()];
    for (index, outer) in sites.iter().enumerate() {
        let Some(symbol) = outer.symbol_full_name.as_ref() else { continue };
        let later = sites[index + 1..]
            .iter()
            .enumerate()
            .take_while(|(_, inner)| inner.file == outer.file && inner.range.start < outer.range.end);
        for (offset, inner) in later {
            if inner.symbol_full_name.as_ref() != Some(symbol) {
                continue;
            }
            // Sorted by start, so `inner` starts at or after `outer`: either `outer` holds it, or
            // both start together and `inner`, the longer, holds `outer`.
            if inner.range.end <= outer.range.end {
                enclosing[index] = true;
            } else if inner.range.start == outer.range.start {
                enclosing[index + 1 + offset] = true;
            }
        }
    }
    if enclosing.contains(&true) {
        let mut flags = enclosing.into_iter();
        sites.retain(|_| !flags.next().unwrap_or(false));
    }
}

/// A bounded window of one source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundedLine {
    pub text: String,
    /// UTF-16 column of the window's first unit in the full line.
    pub source_start: usize,
    /// UTF-16 column just past the window (exclusive).
    pub source_end: usize,
    /// The full line's length in UTF-16 units.
    pub source_length: usize,
    pub truncated: bool,
}

/// The window of at most `limit` UTF-16 units of `line` that shows `focus_start..focus_end`
/// (clamped), centred on it when the line is longer. Never splits a surrogate pair.
pub fn bound_line(line: &str, focus_start: usize, focus_end: usize, limit: usize) -> BoundedLine {
    let units: Vec<(usize, usize)> = {
        // (utf16 column, byte offset) of each char start, plus the end.
        let mut columns = Vec::with_capacity(line.len() + 1);
        let mut column = 0usize;
        for (byte, character) in line.char_indices() {
            columns.push((column, byte));
            column += character.len_utf16();
        }
        columns.push((column, line.len()));
        columns
    };
    let length = units.last().map_or(0, |(column, _)| *column);
    if length <= limit {
        return BoundedLine {
            text: line.to_owned(),
            source_start: 0,
            source_end: length,
            source_length: length,
            truncated: false,
        };
    }
    let focus_start = focus_start.min(length);
    let focus_end = focus_end.clamp(focus_start, length);
    let focus_length = focus_end - focus_start;
    let wanted_start = if focus_length >= limit {
        focus_start
    } else {
        focus_start.saturating_sub((limit - focus_length) / 2).min(length - limit)
    };
    // Snap to character boundaries: start forward, end backward.
    let start_index = units.partition_point(|(column, _)| *column < wanted_start);
    let (start_column, start_byte) = units[start_index.min(units.len() - 1)];
    let end_limit = start_column + limit;
    let end_index = units.partition_point(|(column, _)| *column <= end_limit).saturating_sub(1);
    let (end_column, end_byte) = units[end_index.max(start_index.min(units.len() - 1))];
    BoundedLine {
        text: line.get(start_byte..end_byte).unwrap_or_default().to_owned(),
        source_start: start_column,
        source_end: end_column,
        source_length: length,
        truncated: true,
    }
}

/// The text of a file split into lines (`\n`, `\r\n` or `\r`), for line lookups: one copy
/// of the text and where each line lies in it.
pub struct SourceLines {
    text: String,
    /// Each line's byte range in `text`, without its line break.
    lines: Vec<std::ops::Range<usize>>,
}

impl SourceLines {
    pub fn new(text: &str) -> SourceLines {
        let mut lines = Vec::new();
        let mut start = 0;
        loop {
            match text[start..].find(['\n', '\r']) {
                Some(found) => {
                    let at = start + found;
                    lines.push(start..at);
                    let skip = if text[at..].starts_with("\r\n") { 2 } else { 1 };
                    start = at + skip;
                }
                None => {
                    lines.push(start..text.len());
                    break;
                }
            }
        }
        SourceLines { text: text.to_owned(), lines }
    }

    pub fn line(&self, number: u32) -> Option<&str> {
        self.lines.get(number as usize).map(|range| &self.text[range.clone()])
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }
}

/// One site as a page lists it. Optional members are left out when `None` (`lineText`,
/// `project` and `symbolFullName` are `null` instead); docs/commands.md describes each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteRow {
    /// Context lines after the site's line (with `contextLines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<ContextLine>>,
    /// The other projects compiling the site's file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_compiled_by: Vec<String>,
    /// Context lines before the site's line (with `contextLines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Vec<ContextLine>>,
    /// `false` on a site matched by name only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certain: Option<bool>,
    /// For an `inactive` row: the branch the compiler did not see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    pub file: String,
    pub kind: SiteKind,
    /// The site's line, bounded; `null` when the file cannot be read.
    pub line_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text_source_end_column: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text_source_length: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text_source_start_column: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text_truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text_unavailable: Option<bool>,
    pub project: Option<String>,
    pub range: RowRange,
    /// A field site of a find with `includeSiteTypes`: its type, `null` when unresolved.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub site_type: Option<Option<String>>,
    /// fieldImpact, on a row of a file several projects compile: whose type is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_type_context: Option<SiteTypeContext>,
    /// Set when `symbolCandidates` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_candidate_count: Option<usize>,
    /// The first few same-named declarations, when `symbolFullName` is `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_candidates: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_candidates_truncated: Option<bool>,
    pub symbol_full_name: Option<String>,
    /// What kind of symbol `symbolFullName` names (`type`, `module`, `member`, `field`,
    /// `unionCase`, …); absent when it is `null` or unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    pub via: SiteVia,
}

/// A member that is present (even as `null`) is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

/// `siteTypeContext`: the project whose type a row shows, and those that were not asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteTypeContext {
    pub project: Option<String>,
    pub other_projects_not_typed: Vec<String>,
}

impl SiteRow {
    /// The row of `site`. `lines` is the site's file text (if readable); `context_lines` lines
    /// above and below are added when positive; `also_compiled_by` names the other projects
    /// compiling the file; `site_type` is set on a field site of a find with site types.
    pub fn new(
        site: &Site,
        lines: Option<&SourceLines>,
        context_lines: usize,
        also_compiled_by: Vec<String>,
        site_type: Option<Option<&str>>,
    ) -> SiteRow {
        let start = site.range.start;
        let focus_end = if site.range.end.line == start.line { site.range.end.character } else { u32::MAX };
        let bounded = lines
            .and_then(|lines| lines.line(start.line))
            .map(|line| bound_line(line, start.character as usize, focus_end as usize, LINE_TEXT_MAX_UNITS));
        let context = lines.filter(|_| context_lines > 0);
        let reach = context_lines as u32;
        let total = site.symbol_candidates.len();
        let shown = &site.symbol_candidates[..total.min(SYMBOL_CANDIDATES_SHOWN)];
        // A name declared in thousands of files would make every row thousands of names long
        // (and no page could hold one row): the first few are listed, with the count.
        let cut = shown.len() < total;
        SiteRow {
            after: context.map(|lines| {
                context_entries(lines, start.line + 1..start.line.saturating_add(reach).saturating_add(1))
            }),
            also_compiled_by,
            before: context.map(|lines| context_entries(lines, start.line.saturating_sub(reach)..start.line)),
            certain: (site.via == SiteVia::Syntax).then_some(false),
            condition: site.condition.as_deref().map(str::to_owned),
            file: site.file.clone(),
            kind: site.kind,
            line_text_source_end_column: bounded.as_ref().map(|bounded| bounded.source_end),
            line_text_source_length: bounded.as_ref().map(|bounded| bounded.source_length),
            line_text_source_start_column: bounded.as_ref().map(|bounded| bounded.source_start),
            line_text_truncated: bounded.as_ref().map(|bounded| bounded.truncated),
            line_text_unavailable: bounded.is_none().then_some(true),
            line_text: bounded.map(|bounded| bounded.text),
            project: site.project.clone(),
            range: RowRange::of(site.range),
            site_type: site_type.map(|found| found.map(str::to_owned)),
            site_type_context: None,
            symbol_candidate_count: cut.then_some(total),
            symbol_candidates: (!shown.is_empty()).then(|| shown.to_vec()),
            symbol_candidates_truncated: cut.then_some(true),
            symbol_full_name: site.symbol_full_name.clone(),
            symbol_kind: site.symbol_full_name.as_ref().and(site.symbol_kind).map(str::to_owned),
            via: site.via,
        }
    }
}

/// `range` as a row writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowRange {
    pub end: RowPosition,
    pub start: RowPosition,
}

/// A 0-based line and UTF-16 character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RowPosition {
    pub character: u32,
    pub line: u32,
}

impl RowRange {
    pub fn of(range: TextRange) -> RowRange {
        let position = |position: crate::syntax::model::Position| RowPosition {
            character: position.character,
            line: position.line,
        };
        RowRange { end: position(range.end), start: position(range.start) }
    }
}

/// The lines of `numbers` that exist, each bounded.
fn context_entries(lines: &SourceLines, numbers: std::ops::Range<u32>) -> Vec<ContextLine> {
    numbers
        .filter_map(|number| {
            let line = lines.line(number)?;
            let bounded = bound_line(line, 0, 0, LINE_TEXT_MAX_UNITS);
            Some(ContextLine {
                line: number,
                source_end_column: bounded.source_end,
                source_length: bounded.source_length,
                source_start_column: bounded.source_start,
                text: bounded.text,
                truncated: bounded.truncated,
            })
        })
        .collect()
}

/// One context line (`before[]`, `after[]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextLine {
    pub line: u32,
    pub source_end_column: usize,
    pub source_length: usize,
    pub source_start_column: usize,
    pub text: String,
    pub truncated: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::model::Position;
    use serde_json::{Value, json};

    fn utf16_length(text: &str) -> usize {
        text.encode_utf16().count()
    }

    #[test]
    fn short_lines_are_whole() {
        let bounded = bound_line("let x = 1", 4, 5, 512);
        assert_eq!(bounded.text, "let x = 1");
        assert!(!bounded.truncated);
        assert_eq!((bounded.source_start, bounded.source_end, bounded.source_length), (0, 9, 9));
    }

    #[test]
    fn long_lines_keep_the_site_and_never_split_a_pair() {
        let line = format!("{}target{}", "𝄞".repeat(400), "x".repeat(700));
        let start = 800; // each 𝄞 is two units
        let bounded = bound_line(&line, start, start + 6, 512);
        assert!(bounded.truncated);
        assert!(utf16_length(&bounded.text) <= 512);
        assert!(bounded.text.contains("target"));
        assert_eq!(bounded.source_end - bounded.source_start, utf16_length(&bounded.text));
        assert_eq!(bounded.source_length, 800 + 6 + 700);
        // Every window position, including odd ones inside the pairs, stays valid.
        for focus in [0, 1, 3, 401, 799, 1505, 5000] {
            let bounded = bound_line(&line, focus, focus + 1, 512);
            assert!(utf16_length(&bounded.text) <= 512, "{focus}");
            assert_eq!(bounded.source_end - bounded.source_start, utf16_length(&bounded.text));
        }
    }

    #[test]
    fn source_lines_split_at_every_line_break() {
        let lines = SourceLines::new("a\r\nb\rc\n\nd\u{e9}\r\n");
        let all: Vec<&str> = (0..lines.line_count() as u32).filter_map(|number| lines.line(number)).collect();
        assert_eq!(all, ["a", "b", "c", "", "d\u{e9}", ""]);
        assert_eq!(lines.line(6), None);
        assert_eq!(SourceLines::new("").line(0), Some(""));
    }

    #[test]
    fn rows_are_bounded_and_deduplicated() {
        let lines = SourceLines::new(&format!("a\r\n{}\nc", "y".repeat(2000)));
        assert_eq!(lines.line_count(), 3);
        let range =
            TextRange { start: Position { line: 1, character: 1500 }, end: Position { line: 1, character: 1501 } };
        let site = Site {
            file: "A.fs".into(),
            range,
            kind: SiteKind::Reference,
            symbol_full_name: Some("A.b".into()),
            symbol_kind: None,
            symbol_candidates: Default::default(),
            project: None,
            via: SiteVia::Fsac,
            condition: None,
        };
        let row = SiteRow::new(&site, Some(&lines), 2, Vec::new(), None);
        assert_eq!(row.line_text.as_deref().map(str::len), Some(512));
        assert_eq!(row.line_text_truncated, Some(true));
        assert_eq!(row.before.as_deref().map(|before| before[0].text.as_str()), Some("a"));
        assert_eq!(row.after.as_deref().map(|after| after[0].text.as_str()), Some("c"));
        let mut sites = vec![site.clone(), Site { kind: SiteKind::Definition, ..site.clone() }, site];
        sort_and_deduplicate(&mut sites);
        assert_eq!(sites.len(), 1);
        assert_eq!(sites[0].kind, SiteKind::Definition);
    }

    /// The row as it was built before it serialized itself: a `json!` value, key by key.
    fn reference_row(site: &Site, lines: Option<&SourceLines>, context_lines: usize) -> Value {
        let mut row = json!({
            "file": site.file,
            "range": site.range.to_json(),
            "kind": site.kind.as_str(),
            "symbolFullName": site.symbol_full_name,
            "project": site.project,
            "via": site.via.as_str(),
        });
        if !site.symbol_candidates.is_empty() {
            // A name declared in thousands of files would make every row thousands of names
            // long (and no page could hold one row): the first few are listed, with the count.
            let shown = &site.symbol_candidates[..site.symbol_candidates.len().min(SYMBOL_CANDIDATES_SHOWN)];
            row["symbolCandidates"] = json!(shown);
            if shown.len() < site.symbol_candidates.len() {
                row["symbolCandidateCount"] = json!(site.symbol_candidates.len());
                row["symbolCandidatesTruncated"] = json!(true);
            }
        }
        if site.via == SiteVia::Syntax {
            row["certain"] = json!(false);
        }
        if let Some(condition) = &site.condition {
            row["condition"] = json!(condition.as_ref());
        }
        let start = site.range.start;
        let focus_end = if site.range.end.line == start.line { site.range.end.character } else { u32::MAX };
        match lines.and_then(|lines| lines.line(start.line)) {
            Some(line) => {
                let bounded = bound_line(line, start.character as usize, focus_end as usize, LINE_TEXT_MAX_UNITS);
                row["lineText"] = json!(bounded.text);
                row["lineTextSourceStartColumn"] = json!(bounded.source_start);
                row["lineTextSourceEndColumn"] = json!(bounded.source_end);
                row["lineTextSourceLength"] = json!(bounded.source_length);
                row["lineTextTruncated"] = json!(bounded.truncated);
            }
            None => {
                row["lineText"] = Value::Null;
                row["lineTextUnavailable"] = json!(true);
            }
        }
        if context_lines > 0
            && let Some(lines) = lines
        {
            let entry = |number: u32| -> Option<Value> {
                let line = lines.line(number)?;
                let bounded = bound_line(line, 0, 0, LINE_TEXT_MAX_UNITS);
                Some(json!({
                    "line": number,
                    "text": bounded.text,
                    "sourceStartColumn": bounded.source_start,
                    "sourceEndColumn": bounded.source_end,
                    "sourceLength": bounded.source_length,
                    "truncated": bounded.truncated,
                }))
            };
            let first = start.line.saturating_sub(context_lines as u32);
            let before: Vec<Value> = (first..start.line).filter_map(entry).collect();
            let after: Vec<Value> =
                (start.line + 1..=start.line.saturating_add(context_lines as u32)).filter_map(entry).collect();
            row["before"] = json!(before);
            row["after"] = json!(after);
        }
        row
    }

    #[test]
    fn a_row_serializes_to_the_bytes_of_its_value_and_is_the_value_it_was() {
        let text = format!("first\n  let x = Parcel.Weight\n{}Weight\nlast", "z".repeat(900));
        let lines = SourceLines::new(&text);
        let range = |line: u32, start: u32, end_line: u32, end: u32| TextRange {
            start: Position { line, character: start },
            end: Position { line: end_line, character: end },
        };
        let many: Vec<String> = (0..14).map(|index| format!("P{index}.M.Weight")).collect();
        let few = vec!["A.Weight".to_owned(), "B.Weight\"quoted\"".to_owned()];
        let mut checked = 0;
        for site_range in
            [range(0, 0, 0, 5), range(1, 15, 1, 21), range(2, 900, 2, 906), range(1, 2, 2, 3), range(9, 0, 9, 1)]
        {
            for candidates in [Vec::new(), few.clone(), many.clone()] {
                for (via, full_name, project) in [
                    (SiteVia::Syntax, None, None),
                    (SiteVia::Fsac, Some("Parcel.Weight".to_owned()), Some("src/P/P.fsproj".to_owned())),
                ] {
                    for context_lines in [0, 1, 3] {
                        for readable in [true, false] {
                            let site = Site {
                                file: "src/P/\u{e9}F.fs".into(),
                                range: site_range,
                                kind: SiteKind::FieldRead,
                                symbol_full_name: full_name.clone(),
                                symbol_kind: None,
                                symbol_candidates: std::sync::Arc::new(candidates.clone()),
                                project: project.clone(),
                                via,
                                condition: (via == SiteVia::Syntax).then(|| "#if NET6_0_OR_GREATER".into()),
                            };
                            let lines = readable.then_some(&lines);
                            let reference = reference_row(&site, lines, context_lines);
                            let row = SiteRow::new(&site, lines, context_lines, Vec::new(), None);
                            assert_eq!(serde_json::to_value(&row).unwrap(), reference);
                            assert_eq!(serde_json::from_value::<SiteRow>(reference.clone()).unwrap(), row);
                            assert_eq!(
                                serde_json::to_string(&row).unwrap(),
                                serde_json::to_string(&reference).unwrap()
                            );
                            // With the fields the stream adds.
                            let others = ["src/Q/Q.fsproj".to_owned()];
                            for site_type in [None, Some(None), Some(Some("float<kg>"))] {
                                let row = SiteRow::new(&site, lines, context_lines, others.to_vec(), site_type);
                                let mut reference = reference.clone();
                                reference["alsoCompiledBy"] = json!(others);
                                if let Some(site_type) = site_type {
                                    reference["siteType"] = json!(site_type);
                                }
                                assert_eq!(serde_json::to_value(&row).unwrap(), reference);
                                assert_eq!(serde_json::from_value::<SiteRow>(reference.clone()).unwrap(), row);
                                assert_eq!(
                                    serde_json::to_string(&row).unwrap(),
                                    serde_json::to_string(&reference).unwrap()
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 5 * 3 * 2 * 3 * 2 * 3);
    }
}
