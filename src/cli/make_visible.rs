//! The text of `fslens make-visible`.

use crate::commands::make_visible::*;
use crate::documents::Range;

/// `make-visible` as text: the declaration's line before and after, then every other edit of
/// the answer's `WorkspaceEdit` (the `.fsproj`'s `InternalsVisibleTo` with `--expose-to`) as the
/// lines it inserts or replaces, and the notes. Nothing is written to disk.
pub fn render_text(answer: &MakeVisibleAnswer) -> String {
    let made = match answer {
        MakeVisibleAnswer::Made(made) => made,
        MakeVisibleAnswer::NoAction(no_action) => return format!("no action: {}", no_action.reason),
    };
    let declaration_file = made.declaration.file.as_str();
    let mut lines = vec![
        format!("{} ({}, {declaration_file})", made.declaration.full_name, made.declaration.kind),
        format!("- {}", made.original_line_text),
        format!("+ {}", made.applied_preview),
    ];
    let (files, _) = made.edits.text_edits();
    for (uri, edits) in files {
        let shown =
            crate::uri::uri_to_path(uri).map(|path| path.display().to_string()).unwrap_or_else(|| uri.to_owned());
        if shown.ends_with(declaration_file) && !declaration_file.is_empty() {
            continue;
        }
        for edit in edits {
            let Range { start, end } = edit.range;
            lines.push(format!(
                "{shown}:{}: {}",
                start.line + 1,
                if start == end { "insert".to_owned() } else { format!("replace up to line {}", end.line + 1) }
            ));
            lines.extend(edit.new_text.lines().map(|added| format!("+ {added}")));
        }
    }
    lines.extend(made.notes.iter().map(|note| format!("note: {note}")));
    lines.push(match &made.applied {
        Some(applied) => format!("applied in the editor: {}", applied.applied),
        None => "nothing was written to disk".to_owned(),
    });
    lines.join("\n")
}
