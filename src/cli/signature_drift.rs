//! The text of `fslens signature-drift`.

use crate::commands::signature_drift::*;

/// The answer as the command line prints it.
pub fn render_text(answer: &SignatureDriftAnswer) -> String {
    let mut text = String::new();
    if answer.pairs.is_empty() {
        text.push_str("no signature/implementation pair (X.fsi before X.fs) in the projects searched\n");
    }
    for pair in &answer.pairs {
        text.push_str(&format!(
            "{} + {} ({}){}\n",
            pair.signature_file,
            pair.implementation_file,
            pair.project,
            if pair.complete { "" } else { " [incomplete]" }
        ));
        if pair.implementation_only.is_empty() && pair.signature_only.is_empty() {
            text.push_str("  in step\n");
        }
        for item in &pair.implementation_only {
            text.push_str(&format!(
                "  implementation only: {} insert at {}:{}:\n",
                item_and_fix(item),
                item.fix.file,
                item.fix.range.start.line + 1
            ));
            for line in item.fix.new_text.trim_matches('\n').lines() {
                text.push_str(&format!("      + {line}\n"));
            }
        }
        for item in &pair.signature_only {
            text.push_str(&format!(
                "  signature only (build error): {} delete lines {}-{} of {}\n",
                item_and_fix(item),
                item.fix.range.start.line + 1,
                item.fix.range.end.line + 1,
                item.fix.file
            ));
        }
        for limit in &pair.limits {
            text.push_str(&format!("  limit: {limit}\n"));
        }
    }
    for unpaired in &answer.unpaired_signatures {
        text.push_str(&format!("unpaired: {} ({}): {}\n", unpaired.signature_file, unpaired.project, unpaired.reason));
    }
    if let Some(reason) = &answer.fsac.reason
        && answer.fsac.asked
    {
        text.push_str(&format!("fsac: {reason}\n"));
    }
    text.push_str("nothing was written (the fixes are previews)\n");
    text
}

/// `kind name (file:line) — fix (status):`, the head of an item's line either way round.
fn item_and_fix(item: &DriftItem) -> String {
    format!(
        "{} {} ({}:{}) — fix ({}):",
        item.kind.as_str(),
        item.name,
        item.file,
        item.line + 1,
        fix_status_text(item.fix.status)
    )
}

fn fix_status_text(status: FixStatus) -> &'static str {
    match status {
        FixStatus::Ready => "ready",
        FixStatus::TypeNotKnown => "type not known",
        FixStatus::MembersNeedSignatures => "members need signatures",
        FixStatus::Unverified => "unverified: the parser could not read the files cleanly",
    }
}
