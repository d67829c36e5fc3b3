//! `fslens.diagnosticFixes`: FSAC's code actions for one diagnostic, each with its edits
//! previewed (file, range, old text, new text, the resulting lines) and the `WorkspaceEdit` to
//! apply. Nothing is written to disk; `apply` sends one chosen fix to the editor as
//! `workspace/applyEdit`, the way `fslens.makeInternalVisible` does.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::diagnostic::answer::{Blocked, DescribedFix, DiagnosticSummary, Matched, UnknownStatus, Via};
use crate::commands::diagnostic::arguments::FixesArguments;
use crate::commands::diagnostic::{diagnostic_with_actions, preview_edit};
use crate::lsp::types::{ApplyWorkspaceEditParams, CodeAction};

/// At most this many fixes are listed (`fixCount` counts them all).
const MAX_FIXES: usize = 50;

impl DescribedFix {
    /// A code action as the tools show it: its edit previewed.
    pub fn of(action: CodeAction, root: &std::path::Path, overlay: &crate::syntax::index::Overlay) -> DescribedFix {
        DescribedFix {
            preview: action.edit.as_ref().map(|edit| preview_edit(edit, root, overlay)),
            title: action.title,
            kind: action.kind,
            workspace_edit: action.edit,
            command: action.command,
        }
    }
}

/// [`DescribedFix::of`] for a caller that holds FSAC's action as JSON (navigation's
/// `codeActions`); what is not a code action is shown as it came.
pub fn describe_action(action: &Value, root: &std::path::Path, overlay: &crate::syntax::index::Overlay) -> Value {
    match CodeAction::deserialize(action) {
        Ok(read) => serde_json::to_value(DescribedFix::of(read, root, overlay)).unwrap_or_else(|_| action.clone()),
        Err(_) => action.clone(),
    }
}

/// The answer of `fslens.diagnosticFixes`: what FSAC offers for the diagnostic, that FSAC gave
/// no answer for it, or `unknown` before the diagnostic was found.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum FixesAnswer {
    Offered(Box<OfferedFixes>),
    NotAnswered(Box<NotAnswered>),
    Unknown(Blocked),
}

/// The members of every answer about a diagnostic that was found.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FoundDiagnostic {
    pub via: Via,
    pub diagnostic: DiagnosticSummary,
    #[serde(flatten)]
    pub matched: Matched,
    pub written_to_disk: bool,
}

/// `ok` or `no_fixes`.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OfferedStatus {
    Ok,
    NoFixes,
}

/// What FSAC offered, when it answered.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OfferedFixes {
    pub status: OfferedStatus,
    #[serde(flatten)]
    pub found: FoundDiagnostic,
    pub fix_count: usize,
    /// `no_fixes`: FSAC's fixes are often gated by its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// With `apply`: which fix was sent and what the editor said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<AppliedFix>,
    pub truncated: bool,
    pub truncated_by_budget: bool,
    pub fixes_omitted: usize,
    /// This page of fixes.
    pub fixes: Vec<DescribedFix>,
    pub elapsed_ms: u64,
}

/// `status: "unknown"` after the diagnostic was found: FSAC gave no answer for its fixes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NotAnswered {
    pub status: UnknownStatus,
    #[serde(flatten)]
    pub found: FoundDiagnostic,
    /// Why FSAC gave no answer.
    pub reason: String,
    /// Always `[]`.
    pub fixes: Vec<DescribedFix>,
    pub elapsed_ms: u64,
}

/// With `apply`: which fix was sent and what the editor said.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AppliedFix {
    pub fix_index: Option<usize>,
    pub applied: bool,
    pub failure_reason: Option<String>,
}

pub async fn diagnostic_fixes(
    arguments: FixesArguments,
    mut context: CommandContext,
) -> Result<FixesAnswer, CommandError> {
    let started = Instant::now();
    let Some(selector) = arguments.selector(false)? else {
        return Err(CommandError::invalid_argument("path", "required"));
    };
    let timeout = arguments.timeout_ms.as_duration_ms();
    let (located, actions) = match diagnostic_with_actions(&mut context, &selector, timeout, started).await? {
        Ok(found) => found,
        Err(unknown) => return Ok(FixesAnswer::Unknown(unknown)),
    };
    let overlay = context.editor_buffers().await?;
    let found = FoundDiagnostic {
        via: Via::Fsac,
        diagnostic: located.summary(),
        matched: located.matched.clone(),
        written_to_disk: false,
    };
    let actions = match actions {
        Ok(actions) => actions,
        Err(reason) => {
            return Ok(FixesAnswer::NotAnswered(Box::new(NotAnswered {
                status: UnknownStatus::Unknown,
                found,
                reason,
                fixes: Vec::new(),
                elapsed_ms: started.elapsed().as_millis() as u64,
            })));
        }
    };
    let fixes: Vec<DescribedFix> =
        actions.into_iter().map(|action| DescribedFix::of(action, &located.root, &overlay)).collect();
    let applied = match arguments.apply {
        true => Some(apply_fix(&context, &fixes, arguments.fix_index.map(|index| index.as_usize())).await?),
        false => None,
    };
    Ok(FixesAnswer::Offered(Box::new(offered_page(found, fixes, applied, started))))
}

/// The page of fixes (whole fixes up to the response budget: many "Replace with"
/// suggestions or long edits) and what is said about all of them.
fn offered_page(
    found: FoundDiagnostic,
    mut fixes: Vec<DescribedFix>,
    applied: Option<AppliedFix>,
    started: Instant,
) -> OfferedFixes {
    let page = crate::commands::diagnostic::first_page(&fixes, MAX_FIXES);
    let fix_count = fixes.len();
    fixes.truncate(page.kept);
    OfferedFixes {
        status: if fix_count == 0 { OfferedStatus::NoFixes } else { OfferedStatus::Ok },
        found,
        fix_count,
        note: (fix_count == 0).then(|| {
            "FSAC offers no code action for this diagnostic; many of its fixes are off unless enabled in its settings (docs/fsac-protocol.md §7)".to_owned()
        }),
        applied,
        truncated: page.truncated,
        truncated_by_budget: page.truncated_by_budget,
        fixes_omitted: fix_count - fixes.len(),
        fixes,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}

/// Sends the chosen fix to the editor as `workspace/applyEdit`; with no fix offered the
/// editor is not asked, and the answer says so rather than blaming `fixIndex`.
async fn apply_fix(
    context: &CommandContext,
    fixes: &[DescribedFix],
    fix_index: Option<usize>,
) -> Result<AppliedFix, CommandError> {
    if fixes.is_empty() && fix_index.is_none() {
        return Ok(AppliedFix {
            fix_index: None,
            applied: false,
            failure_reason: Some(
                "FSAC offers no fix for this diagnostic, so nothing was sent to the editor".to_owned(),
            ),
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
    let edit = ApplyWorkspaceEditParams { label: fix.title.clone(), edit: fix.workspace_edit.clone() };
    let apply_deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let (applied, failure_reason) = crate::commands::diagnostic::apply_in_editor(context, &edit, apply_deadline)
        .await?
        .unwrap_or_else(|| (false, Some("the editor did not answer within 30 s".to_owned())));
    Ok(AppliedFix { fix_index: Some(chosen), applied, failure_reason })
}

/// Definite when FSAC offers fixes, not definite for `no_fixes` and `unknown`.
impl crate::commands::outcome::Answered for FixesAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(
            matches!(self, FixesAnswer::Offered(offered) if offered.status == OfferedStatus::Ok),
        )
    }
}
