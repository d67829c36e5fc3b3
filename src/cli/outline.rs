//! `outline`'s text: a file's declarations with their member counts, a project's files in
//! compile order, or the public API's signatures, then what the page left out.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::commands::find::rows::RowRange;
use crate::commands::outline::{
    FileEntity, FileHeader, OutlineAnswer, OutlinePage, Outlined, ProjectFileEntry, ProjectHeader, PublicApiEntity,
    PublicApiHeader,
};
use crate::commands::symbols::KindName;

/// A plain-text rendering of any outline answer.
pub fn render_text(answer: &OutlineAnswer) -> String {
    let mut output = match answer {
        OutlineAnswer::File(answer) => render_file(answer),
        OutlineAnswer::Project(answer) => render_project(answer),
        OutlineAnswer::PublicApi(answer) => render_public_api(answer),
    };
    let page = page_facts(answer);
    if page.truncated {
        render_remainder(&page, &mut output);
    }
    output
}

/// ` line:column` (1-based) of a range's start.
fn range_text(range: &RowRange) -> String {
    format!(" {}:{}", range.start.line + 1, range.start.character + 1)
}

/// `N kind` per kind, in the order of the kinds' names.
fn counts_text(counts: &BTreeMap<KindName, usize>) -> Vec<String> {
    let mut counts: Vec<(&str, usize)> = counts.iter().map(|(kind, count)| (kind.as_str(), *count)).collect();
    counts.sort();
    counts.into_iter().map(|(kind, count)| format!("{count} {kind}")).collect()
}

fn render_file(answer: &Outlined<FileHeader, FileEntity>) -> String {
    let header = &answer.header;
    let mut output = String::new();
    let _ = writeln!(
        output,
        "{} ({}, {} lines, {}) via syntax",
        header.path,
        header.grammar.as_str(),
        header.lines,
        header.health.status.as_str()
    );
    for entry in &answer.page.entries {
        let counts = counts_text(&entry.member_counts);
        let uncertain = if entry.certain { "" } else { " (uncertain)" };
        let _ = writeln!(
            output,
            "  {} {} [{}]{}{}{}",
            entry.kind.as_str(),
            entry.full_name,
            entry.access.as_str(),
            entry.range.as_ref().map(range_text).unwrap_or_default(),
            if counts.is_empty() { String::new() } else { format!(" — {}", counts.join(", ")) },
            uncertain
        );
        for member in entry.members.iter().flatten() {
            let _ = writeln!(
                output,
                "    {}{}  {}",
                member.kind.as_str(),
                range_text(&member.range),
                member.signature.as_deref().unwrap_or(&member.name)
            );
        }
    }
    output
}

fn render_project(answer: &Outlined<ProjectHeader, ProjectFileEntry>) -> String {
    let mut output = String::new();
    for project in &answer.header.projects {
        let _ = writeln!(output, "project {} [{}]", project.path, project.target_frameworks.join(";"));
    }
    for entry in &answer.page.entries {
        let all: Vec<&str> = entry
            .indexed
            .iter()
            .flat_map(|indexed| &indexed.declarations)
            .map(|name| name.full_name.as_str())
            .collect();
        let mut names: Vec<String> = all.iter().take(6).map(|name| (*name).to_owned()).collect();
        if all.len() > 6 {
            names.push(format!("… {} more (--path FILE outlines it)", all.len() - 6));
        }
        let order = if entry.compile_order > 0 { format!("#{}", entry.compile_order) } else { "orphan".to_owned() };
        let lines = entry.indexed.as_ref().map_or("null".to_owned(), |indexed| indexed.lines.to_string());
        let _ = writeln!(
            output,
            "  {order} {} ({}, {lines} lines) {}",
            entry.path,
            entry.health.as_str(),
            names.join(", ")
        );
    }
    output
}

fn render_public_api(answer: &Outlined<PublicApiHeader, PublicApiEntity>) -> String {
    let mut output = String::new();
    for entry in &answer.page.entries {
        let _ = writeln!(output, "{}  ({})", entry.signature, entry.full_name);
        for member in &entry.members {
            let _ = writeln!(output, "    {}", member.signature);
        }
    }
    output
}

/// How many entries the page left out, and how to get them.
fn render_remainder(page: &PageFacts, output: &mut String) {
    let left = page.total_entities.saturating_sub(page.shown);
    let _ = writeln!(
        output,
        "… {left} more entr{} not shown (truncated{}; next: --cursor {})",
        if left == 1 { "y" } else { "ies" },
        if page.truncated_by_budget { " by the response budget" } else { " at --max-results" },
        page.next_cursor.unwrap_or("")
    );
    if let Some(hint) = page.hint {
        let _ = writeln!(output, "hint: {hint}");
    }
}

/// The page's members, whatever the view.
fn page_facts(answer: &OutlineAnswer) -> PageFacts<'_> {
    match answer {
        OutlineAnswer::File(answer) => PageFacts::of(&answer.page),
        OutlineAnswer::Project(answer) => PageFacts::of(&answer.page),
        OutlineAnswer::PublicApi(answer) => PageFacts::of(&answer.page),
    }
}

/// What the text rendering says about a page, whatever its entries.
struct PageFacts<'a> {
    total_entities: usize,
    shown: usize,
    truncated: bool,
    truncated_by_budget: bool,
    next_cursor: Option<&'a str>,
    hint: Option<&'a str>,
}

impl<'a> PageFacts<'a> {
    fn of<Entry>(page: &'a OutlinePage<Entry>) -> PageFacts<'a> {
        PageFacts {
            total_entities: page.total_entities,
            shown: page.offset + page.returned_entry_count,
            truncated: page.truncated,
            truncated_by_budget: page.truncated_by_budget,
            next_cursor: page.next_cursor.as_deref(),
            hint: page.hint.as_deref(),
        }
    }
}
