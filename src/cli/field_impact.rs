//! `fslens field-impact`'s text: one row per site with its kind, symbol and type, then what
//! the page leaves out (find's).

use crate::cli::find::{page_omissions, site_position, symbol_of};
use crate::commands::field_impact::FieldImpactAnswer;

/// `fslens field-impact`'s table: one row per site with its kind, symbol and type.
pub fn render_text(extended: &FieldImpactAnswer) -> String {
    let field = extended.members.as_ref().map_or("", |parts| parts.field.as_str());
    let answer = &extended.find;
    let mut lines = vec![format!(
        "{} sites of {field} (outcome {}, {})",
        answer.total_sites,
        answer.outcome.as_str(),
        answer.status.as_str()
    )];
    for site in answer.page.iter().flat_map(|page| &page.sites) {
        lines.push(format!(
            "{}  {:<20} {:<40} {}",
            site_position(site),
            site.kind.as_str(),
            symbol_of(site),
            site.site_type.as_ref().and_then(Option::as_deref).unwrap_or("")
        ));
    }
    lines.extend(page_omissions(answer));
    if let Some(note) = &answer.site_types_note {
        lines.push(format!("site types: {note}"));
    }
    lines.join("\n")
}
