//! The text of `fslens union-case-impact`.

use crate::commands::union_impact::*;

/// `fslens union-case-impact`'s text: the edit, then each impact, site and wildcard match.
pub fn render_text(answer: &UnionCaseImpactAnswer) -> String {
    let mut lines = vec![format!(
        "{} {} of {} ({}:{}): {} impact(s), {} site(s), {} wildcard match(es) ({})",
        change_word(answer.change),
        answer.case,
        answer.union,
        answer.declared_in,
        answer.declared_line + 1,
        answer.impact_count,
        answer.site_count,
        answer.wildcard_match_count,
        if answer.complete { "complete" } else { "not complete" }
    )];
    let edit = &answer.edit;
    lines.push(format!(
        "edit: {} {}:{}-{}:{} {:?}",
        edit.file,
        edit.range.start.line + 1,
        edit.range.start.character + 1,
        edit.range.end.line + 1,
        edit.range.end.character + 1,
        edit.new_text
    ));
    for impact in &answer.impacts {
        lines.push(format!(
            "{}:{}:{} {} {} [{}]{}: {}",
            impact.file,
            impact.line + 1,
            impact.character + 1,
            impact.code,
            impact.kind.as_str(),
            impact.projects.join(", "),
            impact.function.as_deref().map(|name| format!(" in {name}")).unwrap_or_default(),
            impact.message.lines().next().unwrap_or_default()
        ));
    }
    for site in &answer.sites {
        lines.push(format!(
            "{}:{}:{} {:?}{}",
            site.file,
            site.line + 1,
            site.character + 1,
            site.kind,
            site.function.as_deref().map(|name| format!(" in {name}")).unwrap_or_default()
        ));
    }
    for found in &answer.wildcard_matches {
        lines.push(format!(
            "{}:{} wildcard match{} (catch-all arm at line {}; matches {})",
            found.file,
            found.line + 1,
            found.function.as_deref().map(|name| format!(" in {name}")).unwrap_or_default(),
            found.catch_all_line + 1,
            found.cases_matched.join(", ")
        ));
    }
    lines.extend(answer.notes.iter().map(|note| format!("note: {note}")));
    lines.join("\n")
}

fn change_word(change: CaseChange) -> &'static str {
    match change {
        CaseChange::Add => "add",
        CaseChange::Remove => "remove",
        CaseChange::Change => "change",
    }
}
