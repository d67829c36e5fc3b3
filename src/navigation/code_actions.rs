//! `navigate` `codeActions`: the code actions FSAC offers at a position or range, each with a
//! preview of its edit, and one of them applied through the editor when asked. FSAC offers
//! most fixes only for diagnostics the client echoes back exactly (docs/fsac-protocol.md
//! §7), so the file is first checked (a trusted `fslens.check` of the file: FSAC analyses it
//! at the content it has now), the diagnostics FSAC published over the range are read back
//! from `fslens.diagnostics`, and they go in `context.diagnostics` of one
//! `textDocument/codeAction` through the session. The previews are the diagnostic tools'
//! (`commands::diagnostic::fixes::describe_action`), read from the disk: the bridge does not
//! see the editor's unsaved buffers. `apply: "editor"` sends the chosen action's edit as one
//! `workspace/applyEdit` to the session, which relays it to the editor when the editor accepts
//! applyEdit and otherwise answers why not. `apply: "disk"` writes it as rename's disk mode does
//! (every file's hash against the preview's `fileHashes`, all files or none), and is refused for
//! a file open in the editor, whose buffer the bridge cannot see.

use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use crate::commands::budget::{PageBudget, RESPONSE_CHAR_BUDGET, paginate};
use crate::commands::diagnostic::describe_diagnostic;
use crate::commands::diagnostic::fixes::describe_action;
use crate::commands::paths::display_relative;
use crate::commands::registry::Command;
use crate::failure::Failure;
use crate::lsp::ext;
use crate::navigation::navigate::{ApplyMode, NavigateArguments, Navigator};
use crate::session_client::Deadline;

/// At most this many actions are listed (`totalActions` counts them all), as diagnosticFixes.
const MAX_ACTIONS: usize = 50;

/// A 0-based LSP position (line, UTF-16 column).
pub type Spot = (usize, usize);

/// The range the actions are asked for.
#[derive(Debug, Clone, Copy)]
pub struct AskedRange {
    pub start: Spot,
    pub end: Spot,
}

impl AskedRange {
    fn to_lsp(self) -> Value {
        json!({
            "start": { "line": self.start.0, "character": self.start.1 },
            "end": { "line": self.end.0, "character": self.end.1 },
        })
    }

    /// Whether a published diagnostic's range touches this one (both ends included, so a
    /// position inside a diagnostic or at its edge selects it).
    fn touches(self, diagnostic: &Value) -> bool {
        let spot =
            |at: &Value| -> Option<Spot> { Some((at["line"].as_u64()? as usize, at["character"].as_u64()? as usize)) };
        match (spot(&diagnostic["range"]["start"]), spot(&diagnostic["range"]["end"])) {
            (Some(start), Some(end)) => start <= self.end && end >= self.start,
            _ => false,
        }
    }
}

/// What happened to the chosen action (`mode: "none"` without `apply`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Applied {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    action_index: Option<usize>,
    applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure_reason: Option<Value>,
}

/// The answer of `codeActions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CodeActionsAnswer {
    operation: &'static str,
    method: &'static str,
    via: &'static str,
    file: String,
    range: Value,
    /// The published diagnostics echoed in `context.diagnostics`, as the diagnostic tools show them.
    diagnostics: Vec<Value>,
    total_actions: usize,
    count: usize,
    actions: Vec<Value>,
    truncated: bool,
    truncated_by_budget: bool,
    preview_source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// `sha256:` of the disk text of every file an action touches: `expectedHashes` of a
    /// later `apply: "disk"`.
    file_hashes: std::collections::BTreeMap<String, String>,
    applied: Applied,
    written_to_disk: bool,
}

/// `codeActions` at `range` of `path` (already confined to the workspace; `uri` is its URI).
pub async fn code_actions(
    navigator: &Navigator<'_>,
    arguments: &NavigateArguments,
    path: &Path,
    uri: &str,
    range: AskedRange,
    deadline: Deadline,
) -> Result<Value, Failure> {
    analyse_file(navigator, path, deadline).await?;
    let (published, open_in_editor) = published_diagnostics(navigator, path, deadline).await?;
    let echoed: Vec<Value> = published.into_iter().filter(|diagnostic| range.touches(diagnostic)).collect();
    let actions = ask_code_actions(navigator, uri, range, &echoed, deadline).await?;
    let file = display_relative(navigator.root, path);
    let overlay = crate::syntax::index::Overlay::new();
    let described: Vec<Value> = actions
        .iter()
        .enumerate()
        .map(|(index, action)| {
            let mut shown =
                serde_json::to_value(describe_action(action, navigator.root, &overlay)).unwrap_or_else(|_| json!({}));
            shown["index"] = json!(index);
            shown
        })
        .collect();
    let mut file_hashes = std::collections::BTreeMap::new();
    for action in &described {
        if !action["workspaceEdit"].is_null() {
            file_hashes.extend(
                crate::commands::workspace_edit::workspace_edit_file_hashes(navigator.root, &action["workspaceEdit"])
                    .map_err(Failure::from)?,
            );
        }
    }
    let mut written_to_disk = false;
    let applied = match arguments.apply {
        None => Applied { mode: "none", action_index: None, applied: false, failure_reason: None },
        Some(ApplyMode::Disk) => match chosen_action(arguments, &described)? {
            Some(chosen) if open_in_editor => Applied {
                mode: "disk",
                action_index: Some(chosen),
                applied: false,
                failure_reason: Some(json!(
                    "the file is open in the editor: nothing was written; use apply \"editor\" so its buffer gets the edit"
                )),
            },
            Some(chosen) => {
                let edit = &described[chosen]["workspaceEdit"];
                if edit.is_null() {
                    Applied {
                        mode: "disk",
                        action_index: Some(chosen),
                        applied: false,
                        failure_reason: Some(json!("the action has no edit (it runs a command); nothing was written")),
                    }
                } else {
                    let expected = arguments.expected_hashes.clone().unwrap_or_default();
                    crate::commands::workspace_edit::write_workspace_edit_to_disk(navigator.root, edit, &expected)
                        .map_err(Failure::from)?;
                    written_to_disk = true;
                    Applied { mode: "disk", action_index: Some(chosen), applied: true, failure_reason: None }
                }
            }
            None => Applied {
                mode: "disk",
                action_index: None,
                applied: false,
                failure_reason: Some(json!("FSAC offers no code action here, so nothing was written")),
            },
        },
        Some(ApplyMode::Editor) => match chosen_action(arguments, &described)? {
            Some(chosen) => apply_in_editor(navigator, &described[chosen], chosen, deadline).await?,
            // Nothing to choose from: the answer says so rather than blaming actionIndex.
            None => Applied {
                mode: "editor",
                action_index: None,
                applied: false,
                failure_reason: Some(json!("FSAC offers no code action here, so nothing was sent to the editor")),
            },
        },
    };
    let page = paginate(&described, 0, MAX_ACTIONS, PageBudget::units(RESPONSE_CHAR_BUDGET));
    let note = open_in_editor.then(|| {
        "the file is open in the editor: the previews read its text on disk, which may differ from the unsaved buffer FSAC analysed".to_owned()
    });
    let answer = CodeActionsAnswer {
        operation: "codeActions",
        method: "textDocument/codeAction",
        via: "fsac",
        diagnostics: echoed.iter().map(|diagnostic| describe_diagnostic(&file, diagnostic)).collect(),
        file,
        range: range.to_lsp(),
        total_actions: described.len(),
        count: page.entries.len(),
        actions: page.entries,
        truncated: page.truncated,
        truncated_by_budget: page.truncated_by_budget,
        preview_source: "disk",
        note,
        file_hashes,
        applied,
        written_to_disk,
    };
    serde_json::to_value(answer).map_err(|error| Failure::new(ext::error_kinds::INTERNAL_ERROR, error.to_string()))
}

/// A trusted check of the file, so that what FSAC published for it is about its content now.
/// A check that cannot tell (FSAC loading or gone, the file in no project) fails the call with
/// its `blockingReason`.
async fn analyse_file(navigator: &Navigator<'_>, path: &Path, deadline: Deadline) -> Result<(), Failure> {
    let argument = json!({
        "path": path.display().to_string(), "scope": "file", "severity": "all", "timeoutMs": crate::deadline::Deadline::at(deadline.0.into_std()).remaining_ms(),
    });
    let check = navigator.execute(Command::Check.id(), argument, deadline).await?;
    if check["verdict"] != json!("unknown") {
        return Ok(());
    }
    let reason = &check["blockingReason"];
    let kind = reason["errorKind"].as_str().unwrap_or(ext::error_kinds::FSAC_UNAVAILABLE);
    let message = reason["message"].as_str().unwrap_or("FSAC could not analyse the file");
    Err(Failure {
        error_kind: kind.to_owned(),
        code: None,
        message: format!("no code actions: FSAC has not analysed the file ({message})"),
        data: Some(reason.clone()),
    })
}

/// The diagnostics FSAC published for the file, exactly as published (FSAC matches its fixes
/// on their code, message, source and range), and whether the file is open in the editor.
async fn published_diagnostics(
    navigator: &Navigator<'_>,
    path: &Path,
    deadline: Deadline,
) -> Result<(Vec<Value>, bool), Failure> {
    let answer =
        navigator.execute(Command::Diagnostics.id(), json!({ "path": path.display().to_string() }), deadline).await?;
    let file = answer["files"].as_array().and_then(|files| files.first());
    let diagnostics = file.and_then(|file| file["diagnostics"].as_array()).cloned().unwrap_or_default();
    let open_in_editor = file.is_some_and(|file| file["openInEditor"] == json!(true));
    Ok((diagnostics, open_in_editor))
}

/// FSAC's `textDocument/codeAction` for the range with `diagnostics` echoed; `null` is none.
async fn ask_code_actions(
    navigator: &Navigator<'_>,
    uri: &str,
    range: AskedRange,
    diagnostics: &[Value],
    deadline: Deadline,
) -> Result<Vec<Value>, Failure> {
    let params = json!({
        "textDocument": { "uri": uri },
        "range": range.to_lsp(),
        "context": { "diagnostics": diagnostics, "triggerKind": 1 },
    });
    match navigator.forward("textDocument/codeAction", params, deadline).await? {
        Value::Array(actions) => Ok(actions),
        Value::Null => Ok(Vec::new()),
        other => Err(Failure::new(
            ext::error_kinds::SESSION_ERROR,
            format!("FSAC answered textDocument/codeAction with an unexpected {other}"),
        )),
    }
}

/// The action `apply` means: `actionIndex`, or the only one offered; `None` when none is.
fn chosen_action(arguments: &NavigateArguments, described: &[Value]) -> Result<Option<usize>, Failure> {
    match (arguments.action_index.map(|index| index.as_usize()), described.len()) {
        (Some(index), count) if index < count => Ok(Some(index)),
        (Some(index), count) => Err(Failure::invalid_argument(
            "actionIndex",
            format!("{index} is out of range: FSAC offers {count} action(s) here"),
        )),
        (None, 1) => Ok(Some(0)),
        (None, 0) => Ok(None),
        (None, count) => Err(Failure::invalid_argument(
            "actionIndex",
            format!("FSAC offers {count} actions here; say which one to apply (its index)"),
        )),
    }
}

/// Sends the action's edit to the editor through the session (one `workspace/applyEdit`).
async fn apply_in_editor(
    navigator: &Navigator<'_>,
    action: &Value,
    index: usize,
    deadline: Deadline,
) -> Result<Applied, Failure> {
    let refused = |reason: &str| Applied {
        mode: "editor",
        action_index: Some(index),
        applied: false,
        failure_reason: Some(json!(reason)),
    };
    let edit = &action["workspaceEdit"];
    if edit.is_null() {
        return Ok(refused("the action carries no edit, only a command, which fslens does not run"));
    }
    let params = json!({ "label": action["title"], "edit": edit });
    let answer = navigator.forward(ext::SESSION_APPLY_EDIT, params, deadline).await?;
    Ok(Applied {
        mode: "editor",
        action_index: Some(index),
        applied: answer["applied"] == json!(true),
        failure_reason: answer.get("failureReason").filter(|reason| !reason.is_null()).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::params::parse_arguments;

    fn diagnostic(start: Spot, end: Spot) -> Value {
        json!({ "range": {
            "start": { "line": start.0, "character": start.1 },
            "end": { "line": end.0, "character": end.1 },
        } })
    }

    #[test]
    fn a_range_touches_the_diagnostics_it_overlaps_edges_included() {
        let at = AskedRange { start: (4, 4), end: (4, 4) };
        assert!(at.touches(&diagnostic((4, 4), (4, 9))));
        assert!(at.touches(&diagnostic((3, 0), (4, 4))), "ending at the position");
        assert!(!at.touches(&diagnostic((4, 5), (4, 9))));
        let lines = AskedRange { start: (3, 0), end: (6, 30) };
        assert!(lines.touches(&diagnostic((6, 15), (6, 22))));
        assert!(!lines.touches(&diagnostic((14, 4), (14, 9))));
        assert!(!lines.touches(&json!({ "message": "no range" })));
    }

    fn navigate(arguments: Value) -> Result<NavigateArguments, crate::commands::CommandError> {
        parse_arguments::<NavigateArguments>(arguments)
    }

    #[test]
    fn code_action_arguments_are_refused_where_they_mean_nothing_naming_them() {
        let at = json!({ "operation": "codeActions", "path": "a.fs", "line": 4, "character": 4 });
        assert!(navigate(at.clone()).is_ok());
        let refused = |extra: Value, argument: &str| {
            let mut arguments = at.clone();
            arguments.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            let error = navigate(arguments).expect_err(argument);
            assert_eq!(error.data()["argument"], json!(argument), "{error}");
        };
        refused(json!({ "operation": "hover", "endCharacter": 9 }), "endCharacter");
        refused(json!({ "operation": "definition", "apply": "editor" }), "apply");
        refused(json!({ "endLine": 5 }), "endCharacter");
        refused(json!({ "endLine": 3, "endCharacter": 0 }), "endLine");
        refused(json!({ "actionIndex": 0 }), "actionIndex");
        refused(json!({ "apply": "disk" }), "expectedHashes");
        refused(json!({ "apply": "editor", "expectedHashes": {} }), "expectedHashes");
        refused(json!({ "apply": "everywhere" }), "apply");
        assert!(navigate(json!({ "operation": "codeActions", "path": "a.fs", "line": 4, "character": 4, "apply": "disk", "expectedHashes": {"a.fs": "sha256:0"} })).is_ok());
        assert!(navigate(json!({ "operation": "codeActions", "path": "a.fs", "line": 4, "character": 4, "apply": "editor", "actionIndex": 1 })).is_ok());
    }
}
