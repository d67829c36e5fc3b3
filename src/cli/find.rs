//! `fslens find`'s text, and the pieces of it `field-impact`'s text shares: a site's place and
//! symbol, and what a page leaves out.

use crate::commands::find::answer::{FindAnswer, PaginationIncompleteReason, ProjectStatus, TruncatedBy};
use crate::commands::find::rows::SiteRow;

/// A readable summary of a `fslens.find` answer, for `fslens find` without `--json`.
pub fn render_text(answer: &FindAnswer) -> String {
    let mut lines = vec![format!(
        "{} ({}, via {}): {} site(s), coverage {}/{} project(s)",
        answer.outcome.as_str(),
        answer.status.as_str(),
        answer.via.as_str(),
        answer.total_sites,
        answer.coverage.projects_analyzed,
        answer.coverage.projects_requested,
    )];
    if let Some(reason) = answer.no_projects.as_ref().map(|reason| &reason.message) {
        lines.push(format!("no_projects: {reason}"));
    }
    if let Some(note) = &answer.configuration_note {
        lines.push(format!("configuration: {note}"));
    }
    for site in answer.page.iter().flat_map(|page| &page.sites) {
        let condition = site.condition.as_ref().map(|condition| format!(" [{condition}]")).unwrap_or_default();
        lines.push(format!(
            "{}  {:<20} {}{condition}  {}",
            site_position(site),
            site.kind.as_str(),
            symbol_of(site),
            site.line_text.as_deref().unwrap_or("").trim(),
        ));
    }
    lines.extend(page_omissions(answer));
    lines.join("\n")
}

/// A site's place for text: `file:line:column`, 1-based.
pub fn site_position(site: &SiteRow) -> String {
    crate::documents::file_line_column(
        &site.file,
        crate::documents::Position { line: site.range.start.line, character: site.range.start.character },
    )
}

/// A site's symbol for text: its full name, or, for a syntactic site whose name several
/// declarations share, the candidates; `?` marks a site matched by name only.
pub fn symbol_of(site: &SiteRow) -> String {
    let name = match (&site.symbol_full_name, &site.symbol_candidates) {
        (Some(name), _) => name.clone(),
        (None, Some(candidates)) if !candidates.is_empty() => format!("one of {}", candidates.join(" | ")),
        (None, _) => "?".to_owned(),
    };
    if site.certain == Some(false) { format!("{name} (by name)") } else { name }
}

/// The lines of a text rendering that say what a find (or fieldImpact) page leaves out: the
/// sites after it and why the page was cut, projects not analysed, the scope note, notes, and
/// how to continue. The `--json` answer carries the same in its fields.
pub fn page_omissions(answer: &FindAnswer) -> Vec<String> {
    let mut lines = Vec::new();
    let page = answer.page.as_ref();
    let shown = page.map_or(0, |page| page.page_offset.unwrap_or(0) + page.returned_sites);
    let left = answer.total_sites.saturating_sub(shown);
    if left > 0 {
        let by = match page.and_then(|page| page.truncated_by) {
            Some(TruncatedBy::MaxResults) => " (cut at --max-results)",
            Some(TruncatedBy::ResponseBudget) => " (cut by the response budget, --response-char-budget)",
            _ => "",
        };
        lines.push(format!("… {left} more site(s){by}"));
    }
    if answer.per_project_truncated == Some(true) {
        lines.push("per-project detail was reduced to fit the budget (--json shows what is left)".to_owned());
    }
    for project in answer.per_project.iter().filter(|project| project.status != ProjectStatus::Analyzed) {
        let remedy = project.remedy.as_ref().map(|remedy| format!(" (remedy: {remedy})")).unwrap_or_default();
        lines.push(format!(
            "project {} {}: {}{remedy}",
            project.project,
            project.status.as_str(),
            project.reason.as_deref().unwrap_or("")
        ));
    }
    if let Some(recovery) = &answer.recovery {
        lines.push(format!("recovery: {}", serde_json::to_value(recovery).unwrap_or_default()));
    }
    lines.push(format!("scope: {}", answer.scope_note));
    for note in &answer.notes {
        lines.push(format!("note: {note}"));
    }
    if let Some(cursor) = page.and_then(|page| page.next_cursor.as_ref()) {
        lines.push(format!("more: --cursor {cursor}"));
    } else if page.and_then(|page| page.pagination_restart_required) == Some(true) {
        let reason = match page.and_then(|page| page.pagination_incomplete_reason) {
            Some(PaginationIncompleteReason::DeadlineIncomplete) => "deadline_incomplete",
            None => "the sweep did not complete",
        };
        lines.push(format!("no cursor: {reason} (repeat with a larger --timeout-ms)"));
    }
    lines
}
