//! `fslens.diagnosticFixes`: FSAC's code actions for one diagnostic, each with its edits
//! previewed (file, range, old text, new text, the resulting lines) and the `WorkspaceEdit` to
//! apply. Nothing is written to disk; `apply` sends one chosen fix to the editor as
//! `workspace/applyEdit`, the way `fslens.makeInternalVisible` does.

use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::diagnostic::arguments::FixesArguments;
use crate::commands::diagnostic::{diagnostic_with_actions, preview_edit, to_json};

/// At most this many fixes are listed (`fixCount` counts them all).
const MAX_FIXES: usize = 50;

/// One code action as the tools show it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedFix {
    pub title: Value,
    pub kind: Value,
    /// Each text edit with the text it replaces and the lines it leaves; `null` without an edit.
    pub preview: Value,
    /// FSAC's edit, to apply as is.
    pub workspace_edit: Value,
    pub command: Value,
}

pub fn describe_action(
    action: &Value,
    root: &std::path::Path,
    overlay: &crate::syntax::index::Overlay,
) -> DescribedFix {
    let member = |name: &str| action.get(name).cloned().unwrap_or(Value::Null);
    let edit = member("edit");
    DescribedFix {
        title: action["title"].clone(),
        kind: member("kind"),
        preview: if edit.is_null() { Value::Null } else { preview_edit(&edit, root, overlay) },
        workspace_edit: edit,
        command: member("command"),
    }
}

/// The answer of `fslens.diagnosticFixes` once the diagnostic was found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FixesAnswer {
    /// `ok`, `no_fixes`, or `unknown` when FSAC gave no answer.
    status: &'static str,
    via: &'static str,
    diagnostic: Value,
    matched_count: usize,
    index: usize,
    analysis: Value,
    written_to_disk: bool,
    /// `unknown`: why FSAC gave no answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    offered: Option<Offered>,
    /// This page of fixes (`[]` when unknown).
    fixes: Vec<Value>,
    elapsed_ms: u64,
}

/// What FSAC offered, when it answered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Offered {
    fix_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    applied: Option<AppliedFix>,
    truncated: bool,
    truncated_by_budget: bool,
    fixes_omitted: usize,
}

/// With `apply`: which fix was sent and what the editor said.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AppliedFix {
    fix_index: Option<usize>,
    applied: bool,
    failure_reason: Value,
}

pub async fn diagnostic_fixes(arguments: FixesArguments, mut context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let Some(selector) = arguments.selector(false)? else {
        return Err(CommandError::invalid_argument("path", "required"));
    };
    let timeout = arguments.timeout_ms.as_duration_ms();
    let (located, actions) = match diagnostic_with_actions(&mut context, &selector, timeout, started).await? {
        Ok(found) => found,
        Err(unknown) => return to_json(&unknown),
    };
    let overlay = context.editor_buffers().await?;
    let mut answer = FixesAnswer {
        status: "unknown",
        via: "fsac",
        diagnostic: super::describe_diagnostic(&located.file(), &located.diagnostic),
        matched_count: located.matched,
        index: located.index,
        analysis: located.stamp.clone(),
        written_to_disk: false,
        reason: None,
        offered: None,
        fixes: Vec::new(),
        elapsed_ms: 0,
    };
    match actions {
        Ok(actions) => {
            let fixes: Vec<Value> = actions
                .iter()
                .map(|action| serde_json::to_value(describe_action(action, &located.root, &overlay)))
                .collect::<Result<_, _>>()
                .map_err(|error| CommandError::Internal(error.to_string()))?;
            let applied = match arguments.apply {
                true => Some(apply_fix(&context, &fixes, arguments.fix_index.map(|index| index.as_usize())).await?),
                false => None,
            };
            answer.status = if fixes.is_empty() { "no_fixes" } else { "ok" };
            (answer.offered, answer.fixes) = offered_page(fixes, applied);
        }
        Err(why) => answer.reason = Some(why),
    }
    answer.elapsed_ms = started.elapsed().as_millis() as u64;
    to_json(&answer)
}

/// The page of fixes (whole fixes up to the response budget: many "Replace with"
/// suggestions or long edits) and what is said about all of them.
fn offered_page(fixes: Vec<Value>, applied: Option<AppliedFix>) -> (Option<Offered>, Vec<Value>) {
    let page = crate::commands::budget::paginate(
        &fixes,
        0,
        MAX_FIXES,
        crate::commands::budget::PageBudget::units(crate::commands::budget::RESPONSE_CHAR_BUDGET),
    );
    let offered = Offered {
        fix_count: fixes.len(),
        note: fixes.is_empty().then_some(
            "FSAC offers no code action for this diagnostic; many of its fixes are off unless enabled in its settings (docs/fsac-protocol.md §7)",
        ),
        applied,
        truncated: page.truncated,
        truncated_by_budget: page.truncated_by_budget,
        fixes_omitted: fixes.len() - page.entries.len(),
    };
    (Some(offered), page.entries)
}

/// Sends the chosen fix to the editor as `workspace/applyEdit`; with no fix offered the
/// editor is not asked, and the answer says so rather than blaming `fixIndex`.
async fn apply_fix(
    context: &CommandContext,
    fixes: &[Value],
    fix_index: Option<usize>,
) -> Result<AppliedFix, CommandError> {
    if fixes.is_empty() && fix_index.is_none() {
        return Ok(AppliedFix {
            fix_index: None,
            applied: false,
            failure_reason: json!("FSAC offers no fix for this diagnostic, so nothing was sent to the editor"),
        });
    }
    let chosen = match (fix_index, fixes.len()) {
        (Some(index), count) if index < count => index,
        (Some(index), count) => {
            return Err(CommandError::invalid_argument(
                "fixIndex",
                format!("{index} is out of range: FSAC offers {count} fix(es)"),
            ));
        }
        (None, 1) => 0,
        (None, count) => {
            return Err(CommandError::invalid_argument(
                "fixIndex",
                format!("FSAC offers {count} fixes; say which one to apply (0-based)"),
            ));
        }
    };
    let fix = &fixes[chosen];
    let params = json!({ "label": fix["title"], "edit": fix["workspaceEdit"] });
    let apply_deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let answer = context.editor_request("workspace/applyEdit", params, "/workspace/applyEdit", apply_deadline).await;
    let (applied, failure_reason) = match answer {
        Ok(Ok(result)) => {
            (result["applied"] == json!(true), result.get("failureReason").cloned().unwrap_or(Value::Null))
        }
        Ok(Err(error)) => (false, json!(error.message)),
        Err(CommandError::Timeout) => (false, json!("the editor did not answer within 30 s")),
        Err(error) => return Err(error),
    };
    Ok(AppliedFix { fix_index: Some(chosen), applied, failure_reason })
}
