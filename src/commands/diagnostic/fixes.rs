//! `fslens.diagnosticFixes`: FSAC's code actions for one diagnostic, each with its edits
//! previewed (file, range, old text, new text, the resulting lines) and the `WorkspaceEdit` to
//! apply. Nothing is written to disk; `apply` sends one chosen fix to the editor as
//! `workspace/applyEdit`, the way `fslens.makeInternalVisible` does.

use std::time::Instant;

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_bool, optional_integer, reject_unknown};
use crate::commands::diagnostic::{
    SELECTOR_ARGUMENTS, diagnostic_with_actions, parse_selector, preview_edit, timeout_of,
};

/// At most this many fixes are listed (`fixCount` counts them all).
const MAX_FIXES: usize = 50;

/// One code action as the tools show it.
pub fn describe_action(action: &Value, root: &std::path::Path, overlay: &crate::syntax::index::Overlay) -> Value {
    let edit = action.get("edit").cloned().unwrap_or(Value::Null);
    json!({
        "title": action["title"],
        "kind": action.get("kind").cloned().unwrap_or(Value::Null),
        "preview": if edit.is_null() { Value::Null } else { preview_edit(&edit, root, overlay) },
        "workspaceEdit": edit,
        "command": action.get("command").cloned().unwrap_or(Value::Null),
    })
}

pub async fn diagnostic_fixes(argument: Value, mut context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let object = object_of(&argument)?;
    let mut known = SELECTOR_ARGUMENTS.to_vec();
    known.extend(["apply", "fixIndex"]);
    reject_unknown(object, &known)?;
    let timeout = timeout_of(object)?;
    let apply = optional_bool(object, "apply")?.unwrap_or(false);
    let fix_index = optional_integer(object, "fixIndex", 0, 1000)?.map(|value| value as usize);
    if fix_index.is_some() && !apply {
        return Err(CommandError::invalid_argument("fixIndex", "only used with apply: true"));
    }
    let Some(selector) = parse_selector(object, false)? else {
        return Err(CommandError::invalid_argument("path", "required"));
    };
    let (located, actions) = match diagnostic_with_actions(&mut context, &selector, timeout, started).await? {
        Ok(found) => found,
        Err(unknown) => return Ok(unknown),
    };
    let overlay = context.editor_buffers().await?;
    let mut answer = json!({
        "via": "fsac",
        "diagnostic": super::describe_diagnostic(&located.file(), &located.diagnostic),
        "matchedCount": located.matched,
        "index": located.index,
        "analysis": located.stamp,
        "writtenToDisk": false,
    });
    let actions = match actions {
        Ok(actions) => actions,
        Err(why) => {
            answer["status"] = json!("unknown");
            answer["reason"] = json!(why);
            answer["fixes"] = json!([]);
            answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
            return Ok(answer);
        }
    };
    let fixes: Vec<Value> = actions.iter().map(|action| describe_action(action, &located.root, &overlay)).collect();
    answer["status"] = json!(if fixes.is_empty() { "no_fixes" } else { "ok" });
    answer["fixCount"] = json!(fixes.len());
    if fixes.is_empty() {
        answer["note"] = json!(
            "FSAC offers no code action for this diagnostic; many of its fixes are off unless enabled in its settings (shared/fsac-protocol.md §5.7)"
        );
    }
    if apply && fixes.is_empty() && fix_index.is_none() {
        // Nothing to choose from: the answer says so rather than blaming fixIndex.
        answer["applied"] = json!({
            "fixIndex": null,
            "applied": false,
            "failureReason": "FSAC offers no fix for this diagnostic, so nothing was sent to the editor",
        });
    } else if apply {
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
        answer["applied"] = match context
            .editor_request("workspace/applyEdit", params, "/workspace/applyEdit", apply_deadline)
            .await
        {
            Ok(Ok(result)) => json!({
                "fixIndex": chosen,
                "applied": result["applied"] == json!(true),
                "failureReason": result.get("failureReason"),
            }),
            Ok(Err(error)) => json!({ "fixIndex": chosen, "applied": false, "failureReason": error.message }),
            Err(CommandError::Timeout) => {
                json!({ "fixIndex": chosen, "applied": false, "failureReason": "the editor did not answer within 30 s" })
            }
            Err(error) => return Err(error),
        };
    }
    // Many "Replace with" suggestions or long edits: whole fixes up to the response budget.
    let page = crate::commands::budget::paginate(&fixes, 0, MAX_FIXES, crate::commands::budget::RESPONSE_CHAR_BUDGET);
    answer["truncated"] = json!(page.truncated);
    answer["truncatedByBudget"] = json!(page.truncated_by_budget);
    answer["fixesOmitted"] = json!(fixes.len() - page.entries.len());
    answer["fixes"] = json!(page.entries);
    answer["elapsedMs"] = json!(started.elapsed().as_millis() as u64);
    Ok(answer)
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}
