//! Type errors on the lines that hold the name: where FSAC's diagnostics put an error on a
//! line holding a site or a syntax occurrence of a declared name, the compiler may have left a
//! use of the symbol unresolved there (FS0072 "Lookup on object of indeterminate type" on
//! `x.Value`), and such a use is in no references answer. fslens holds both facts, so a find
//! that has them is not complete and lists the lines (`typeErrorLines`).
//!
//! The diagnostics are those FSAC has published in this session for the running FSAC: current
//! ones (analysed at the text FSAC has now), and for a file not open in the editor the last it
//! published. A file FSAC published nothing for is not known to be clean; that is `check`'s
//! work, not find's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::commands::CommandError;
use crate::commands::find::FindRun;
use crate::commands::find::declarations::Resolved;
use crate::commands::find::rows::Site;
use crate::commands::find::target::Placement;

/// At most this many lines are listed (`typeErrorLineCount` gives the number when cut).
pub(super) const TYPE_ERROR_LINES_SHOWN: usize = 50;
/// A diagnostic's message is quoted up to this many characters.
const MESSAGE_CHARS: usize = 200;

/// One line holding the name on which FSAC reports an error.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeErrorLine {
    pub file: String,
    /// 0-based, as the rows' ranges.
    pub line: u32,
    /// FSAC's diagnostic code (an integer, e.g. 72), as it sent it.
    pub code: Value,
    pub message: String,
}

/// The lines holding a site or a syntax occurrence of a declared name on which FSAC has
/// published an error, sorted by file and line.
pub(super) async fn type_error_lines(
    find: &FindRun,
    placement: &Placement,
    resolved: &Resolved,
    sites: &[Site],
) -> Result<Vec<TypeErrorLine>, CommandError> {
    if !find.fsac.ready {
        return Ok(Vec::new());
    }
    let mut errors_by_file: BTreeMap<PathBuf, Vec<Value>> = BTreeMap::new();
    for snapshot in find.context.all_analyses().await? {
        let Some(path) = crate::uri::uri_to_path(&snapshot.uri) else { continue };
        if !find.in_workspace(&path) || !placement.keeps(&path) {
            continue;
        }
        let diagnostics = snapshot.current_diagnostics().or_else(|| {
            let published = snapshot.published.as_ref()?;
            (!snapshot.open_in_editor && published.generation == snapshot.generation)
                .then(|| published.diagnostics.clone())
        });
        let errors: Vec<Value> =
            diagnostics.into_iter().flatten().filter(|diagnostic| diagnostic["severity"] == 1).collect();
        if !errors.is_empty() {
            errors_by_file.entry(path).or_default().extend(errors);
        }
    }
    if errors_by_file.is_empty() {
        return Ok(Vec::new());
    }
    let mut names: BTreeSet<&str> = resolved.declared.iter().map(|declaration| declaration.name()).collect();
    names.extend(resolved.position_name.as_deref());
    let mut lines: BTreeMap<(String, u32), TypeErrorLine> = BTreeMap::new();
    for (path, errors) in errors_by_file {
        let file = find.model.display_path(&path);
        let mut name_lines: BTreeSet<u32> = sites
            .iter()
            .filter(|site| site.file == file)
            .flat_map(|site| site.range.start.line..=site.range.end.line)
            .collect();
        // A file none of the names is written in was not indexed for this find: it holds no
        // occurrence of them.
        if find.files().binary_search(&path).is_ok() {
            let paths = [path.clone()];
            for name in &names {
                name_lines.extend(find.index.find_occurrences_in(name, &paths).iter().map(|hit| hit.position.line));
            }
        }
        for error in &errors {
            let line_of = |end: &str| error["range"][end]["line"].as_u64().map(|line| line as u32);
            let (Some(first), Some(last)) = (line_of("start"), line_of("end")) else { continue };
            for line in name_lines.range(first..=last.max(first)) {
                let message = error["message"].as_str().unwrap_or_default();
                let message: String = message.lines().next().unwrap_or_default().chars().take(MESSAGE_CHARS).collect();
                // One entry per line: the first error FSAC listed on it.
                lines.entry((file.clone(), *line)).or_insert_with(|| TypeErrorLine {
                    file: file.clone(),
                    line: *line,
                    code: error["code"].clone(),
                    message,
                });
            }
        }
    }
    Ok(lines.into_values().collect())
}
