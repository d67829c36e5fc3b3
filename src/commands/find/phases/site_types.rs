//! `includeSiteTypes`: the field's type at each field site, from FSAC's hover there (its
//! signature's type after the first `: `), over the whole match set so that the ledger holds
//! across pages. FSAC types a file in one project context only, so a site type is the type
//! today, in that context, never a prediction after an edit.

use std::collections::HashSet;

use serde_json::Value;

use crate::commands::CommandError;
use crate::commands::find::model::answer::SiteTypesLedger;
use crate::commands::find::model::rows::Site;
use crate::commands::find::model::texts::{Texts, resolve_display};
use crate::commands::find::phases::find_run::FindRun;
use crate::lsp::types::TextDocumentPositionParams;

/// A rendered `siteType` is cut at this many characters (plus `...`).
const SITE_TYPE_MAX_CHARS: usize = 200;

/// `siteType` for every field site (the whole set, so the ledger holds across pages):
/// FSAC's hover at the site, its signature's type after the first `: `.
pub async fn site_types(
    find: &FindRun,
    texts: &mut Texts,
    sites: &[Site],
) -> Result<(Vec<Option<String>>, SiteTypesLedger), CommandError> {
    let (context, root, fsac_ready, deadline) = (&find.context, &find.root, find.fsac.ready, find.sweep_deadline);
    let mut types = vec![None; sites.len()];
    let (mut field_sites, mut typed, mut unresolved, mut timed_out) = (0usize, 0usize, 0usize, 0usize);
    let mut acquired: HashSet<String> = HashSet::new();
    for (number, site) in sites.iter().enumerate() {
        if !site.kind.is_field() {
            continue;
        }
        field_sites += 1;
        if !fsac_ready {
            unresolved += 1;
            continue;
        }
        if tokio::time::Instant::now() >= deadline {
            timed_out += 1;
            continue;
        }
        let path = resolve_display(root, &site.file);
        let Some(uri) = crate::uri::path_to_uri(&path) else {
            unresolved += 1;
            continue;
        };
        if !acquired.contains(&uri) {
            let Some((text, _)) = texts.text(&path) else {
                unresolved += 1;
                continue;
            };
            context.acquire_document(&uri, text.clone()).await?;
            acquired.insert(uri.clone());
        }
        let params = TextDocumentPositionParams::at(&uri, site.range.start.line, site.range.start.character);
        match context.backend_request("textDocument/hover", &params, deadline).await {
            Ok(Ok(answer)) => match site_type_from_hover(&answer) {
                Some(found) => {
                    types[number] = Some(found);
                    typed += 1;
                }
                None => unresolved += 1,
            },
            Ok(Err(_)) => unresolved += 1,
            Err(CommandError::Timeout) => timed_out += 1,
            Err(CommandError::Unavailable(_)) => unresolved += 1,
            Err(error) => return Err(error),
        }
    }
    for uri in acquired {
        context.release_document(&uri);
    }
    let ledger = SiteTypesLedger {
        requested: true,
        field_sites,
        typed,
        degraded: unresolved + timed_out,
        degraded_unresolved: unresolved,
        degraded_timed_out: timed_out,
        // FSAC types a file in one project context only (see siteTypeContext).
        typed_differently_by_another_project: None,
        alternatives_truncated_rows: 0,
        single_context_rows_on_page: None,
    };
    Ok((types, ledger))
}

/// `Shipment.Weight: float` → `float` (first line of the first code block).
fn site_type_from_hover(answer: &Value) -> Option<String> {
    let contents = &answer["contents"];
    let signature = match contents {
        Value::Array(items) => items.first().and_then(|item| item["value"].as_str().or(item.as_str())),
        Value::Object(_) => contents["value"].as_str(),
        Value::String(text) => Some(text.as_str()),
        _ => None,
    }?;
    let first_line = signature.lines().find(|line| !line.trim().is_empty() && !line.starts_with("```"))?;
    let (_, type_text) = first_line.split_once(':')?;
    let type_text = type_text.trim();
    if type_text.is_empty() {
        return None;
    }
    Some(if type_text.chars().count() > SITE_TYPE_MAX_CHARS {
        format!("{}...", type_text.chars().take(SITE_TYPE_MAX_CHARS).collect::<String>())
    } else {
        type_text.to_owned()
    })
}
