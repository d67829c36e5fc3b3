//! The text of `fslens dead-code`.

use crate::commands::dead_code::*;

/// The answer as the command line prints it (lines 1-based).
pub fn render_text(answer: &DeadCodeAnswer) -> String {
    let mut lines = vec![format!(
        "{} unused of {} candidate(s) in {} (via {}; {})",
        answer.unused.len(),
        answer.candidates.total,
        if answer.projects.is_empty() { "no project".to_owned() } else { answer.projects.join(", ") },
        answer.via.as_str(),
        if answer.complete { "complete" } else { "not complete" }
    )];
    for row in &answer.unused {
        lines.push(format!(
            "  {}:{}:{} {} {} {} [{}]{}",
            row.path,
            row.line + 1,
            row.character + 1,
            row.accessibility.as_str(),
            row.kind.as_str(),
            row.full_name,
            match row.source {
                Source::Fsac => "fsac",
                Source::Syntax => "syntax",
            },
            row.caveat.as_deref().map(|caveat| format!(" ({caveat})")).unwrap_or_default()
        ));
    }
    for group in &answer.kept_alive {
        let names: Vec<&str> = group.sample.iter().map(|named| named.full_name.as_str()).collect();
        lines.push(format!(
            "kept alive ({}): {}{}",
            serde_plain(group.reason),
            names.join(", "),
            if group.count > group.sample.len() {
                format!(" and {} more", group.count - group.sample.len())
            } else {
                String::new()
            }
        ));
    }
    for row in &answer.not_ruled_out {
        lines.push(format!("not ruled out: {}:{} {}: {}", row.path, row.line + 1, row.full_name, row.detail));
    }
    lines.extend(answer.incomplete.iter().map(|why| format!("incomplete: {why}")));
    lines.extend(answer.notes.iter().map(|note| format!("note: {note}")));
    lines.join("\n")
}

fn serde_plain(reason: KeptAliveReason) -> &'static str {
    match reason {
        KeptAliveReason::EntryPointAttribute => "entryPointAttribute",
        KeptAliveReason::TestAttribute => "testAttribute",
        KeptAliveReason::InteropAttribute => "interopAttribute",
        KeptAliveReason::SerializationAttribute => "serializationAttribute",
        KeptAliveReason::SignatureFile => "signatureFile",
        KeptAliveReason::OverrideOrInterfaceImplementation => "overrideOrInterfaceImplementation",
        KeptAliveReason::AbstractSlot => "abstractSlot",
        KeptAliveReason::ImplicitCall => "implicitCall",
        KeptAliveReason::Nameof => "nameof",
        KeptAliveReason::Typeof => "typeof",
        KeptAliveReason::NamedInString => "namedInString",
    }
}
