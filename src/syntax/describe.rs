//! A plain-text rendering of one file's index, for snapshot tests and debugging: one line per
//! declaration, field site, access modifier and health finding, in text order.

use std::fmt::Write;

use crate::syntax::extract::{extract_file_index, render_signature};
use crate::syntax::model::{GrammarKind, LocalFileIndex};
use crate::syntax::parse::{DeadlinePolicy, FsharpParsers};

/// Parses `text` and extracts its index (no cache, default deadline).
pub fn index_text(text: &str, grammar: GrammarKind) -> Result<LocalFileIndex, crate::syntax::ParseFailure> {
    let mut parsers = FsharpParsers::new();
    let tree = parsers.parse(text, grammar, DeadlinePolicy::default().budget_for(text.len()))?;
    Ok(extract_file_index(text, &tree, grammar, [0; 32]))
}

/// The rendering described in the module docs. Names are resolved through the entry's own table.
pub fn describe_local_index(text: &str, entry: &LocalFileIndex) -> String {
    let name = |id: crate::syntax::NameId| entry.names.get(id.0 as usize).map_or("?", String::as_str);
    let index = &entry.index;
    let mut output = String::new();
    let _ = writeln!(
        output,
        "health: {}{}",
        index.health.status.as_str(),
        if index.health.root_is_error { " (root is ERROR)" } else { "" }
    );
    for region in &index.health.error_regions {
        let _ = writeln!(output, "  error-region {}", region.display_compact());
    }
    for finding in &index.health.misparses {
        let _ = writeln!(
            output,
            "  misparse {} at {} region {}",
            finding.indicator.as_str(),
            finding.range.display_compact(),
            finding.region.display_compact()
        );
    }
    for (slot, declaration) in index.declarations.iter().enumerate() {
        let mut chain = Vec::new();
        for link in index.declaration_chain(slot) {
            if let Some(item) = index.declarations.get(link) {
                chain.push(name(item.name));
            }
        }
        let _ = writeln!(
            output,
            "decl {} {} [{}] {} name@{}{} | {}",
            declaration.kind.as_str(),
            chain.join("."),
            declaration.access.as_str(),
            declaration.range.display_compact(),
            declaration.name_range().display_compact(),
            if declaration.certain { "" } else { " UNCERTAIN" },
            render_signature(text, declaration.header_bytes, 80),
        );
    }
    for site in &index.field_sites {
        let _ = writeln!(
            output,
            "site {} {} path={} {}{}",
            site.kind.as_str(),
            name(site.field),
            name(site.path),
            site.range().display_compact(),
            if site.certain() { String::new() } else { format!(" uncertain={}", site.uncertainty.as_str()) },
        );
    }
    for modifier in &index.access_modifiers {
        let _ = writeln!(output, "access {} {}", modifier.access.as_str(), modifier.range.display_compact());
    }
    output
}

/// Parses and describes in one step; a parse failure is rendered as text.
pub fn describe_text(text: &str, grammar: GrammarKind) -> String {
    match index_text(text, grammar) {
        Ok(entry) => describe_local_index(text, &entry),
        Err(failure) => format!("parse failed: {failure}\n"),
    }
}
