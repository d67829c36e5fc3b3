//! `fslens.fieldImpact`: every site of a record field, grouped for planning a change of the
//! field's type — `find` with `kind=field` and site types, plus the groups and the honest
//! limits of what a site type can say.
//!
//! A file compiled by several projects is type-checked by FSAC in one project context; FSAC
//! has no request that asks for another project's view of the same file, so fslens reports the
//! type it got, marks those rows and says so, instead of guessing the other projects' types.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;

/// Arguments passed through to `find` unchanged (`field`, `kind` and `includeSiteTypes` are
/// this command's own).
const PASSED_TO_FIND: &[&str] = &[
    "query",
    "scope",
    "projectPath",
    "path",
    "line",
    "word",
    "occurrence",
    "character",
    "exact",
    "contextLines",
    "maxResults",
    "responseCharBudget",
    "cursor",
    "timeoutMs",
    "includeDeclaration",
    "includeInfo",
];

pub async fn field_impact(argument: Value, context: CommandContext) -> Result<Value, CommandError> {
    let object =
        argument.as_object().ok_or_else(|| CommandError::invalid_argument("arguments", "expected an object"))?;
    const OWN: &[&str] = &["field", "kind", "includeSiteTypes"];
    if let Some(unknown) =
        object.keys().find(|key| !OWN.contains(&key.as_str()) && !PASSED_TO_FIND.contains(&key.as_str()))
    {
        return Err(CommandError::invalid_argument(
            unknown,
            format!("unknown argument; expected one of {}, {}", OWN.join(", "), PASSED_TO_FIND.join(", ")),
        ));
    }
    // `kind` field (by name, the default) or position (the field under path/line/…).
    let kind = match object.get("kind") {
        None | Some(Value::Null) => "field",
        Some(Value::String(kind)) if kind == "field" || kind == "position" => kind.as_str(),
        Some(_) => return Err(CommandError::invalid_argument("kind", "expected field or position")),
    };
    if object.get("includeSiteTypes").is_some_and(|value| value != &json!(true)) {
        return Err(CommandError::invalid_argument("includeSiteTypes", "field impact always includes site types"));
    }
    // `field`, or find's `query` as its alias; a bad value is blamed on the argument that holds it.
    let named = match (object.get("field"), object.get("query")) {
        (Some(Value::String(field)), _) if !field.trim().is_empty() => Some(field.trim().to_owned()),
        (Some(value), _) if !value.is_null() => {
            return Err(CommandError::invalid_argument("field", "expected a non-empty string"));
        }
        (_, Some(Value::String(query))) if !query.trim().is_empty() => Some(query.trim().to_owned()),
        (_, Some(value)) if !value.is_null() => {
            return Err(CommandError::invalid_argument("query", "expected a non-empty string"));
        }
        _ => None,
    };
    if kind == "field" && named.is_none() {
        return Err(CommandError::invalid_argument("field", "required: the field name, or Type.Field"));
    }
    let field = named.clone().unwrap_or_default();
    let mut find_argument = Map::new();
    find_argument.insert("kind".into(), json!(kind));
    find_argument.insert("includeSiteTypes".into(), json!(true));
    for name in PASSED_TO_FIND {
        if let Some(value) = object.get(*name) {
            find_argument.insert((*name).to_owned(), value.clone());
        }
    }
    if let Some(named) = &named {
        // A qualified name (`Shipment.Weight`) is a query; a bare name restricts kind field.
        find_argument.remove("query");
        if kind == "field" && !named.contains('.') {
            find_argument.insert("field".into(), json!(named));
        } else {
            find_argument.insert("query".into(), json!(named));
        }
    }
    let mut answer = crate::commands::find::find(Value::Object(find_argument), context).await?;

    // Rows of files that several projects compile: their type comes from one project context.
    let mut single_context_rows = 0usize;
    if let Some(sites) = answer["sites"].as_array_mut() {
        for site in sites.iter_mut() {
            if site
                .get("alsoCompiledBy")
                .is_some_and(|others| others.as_array().is_some_and(|others| !others.is_empty()))
            {
                single_context_rows += 1;
                site["siteTypeContext"] = json!({
                    "project": site["project"].clone(),
                    "otherProjectsNotTyped": site["alsoCompiledBy"].clone(),
                });
            }
        }
    }
    let page_groups = group_page(answer["sites"].as_array().map(Vec::as_slice).unwrap_or_default());
    answer["groups"] = page_groups;
    answer["field"] = json!(field);
    let mut note = answer["siteTypesNote"].as_str().unwrap_or_default().to_owned();
    note.push_str(
        " A file compiled by several projects is checked by FSAC in one project context, and FSAC offers no way to ask \
         another project's view of it: such rows carry siteTypeContext naming the project whose type is shown and the \
         projects that were not asked; typedDifferentlyByAnotherProject is therefore null (unknown), never a count.",
    );
    answer["siteTypesNote"] = json!(note);
    answer["siteTypes"]["singleContextRowsOnPage"] = json!(single_context_rows);
    answer["plan"] = json!(
        "Each kind needs its own edit: field-construction and field-copy-update sites set the field, \
         field-set-mutation sites assign it, field-pattern sites destructure it, field-read sites consume its value. \
         After editing, run fslens.check with scope workspace for the verdict."
    );
    Ok(answer)
}

/// Counts of this page's rows by kind, by declaring field and by site type (the whole-set
/// counts are `breakdown` and `siteTypes`).
fn group_page(sites: &[Value]) -> Value {
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_symbol: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    for site in sites {
        *by_kind.entry(site["kind"].as_str().unwrap_or("unknown").to_owned()).or_default() += 1;
        let symbol = site["symbolFullName"].as_str().unwrap_or("(ambiguous)").to_owned();
        *by_symbol.entry(symbol).or_default() += 1;
        if site["kind"].as_str().is_some_and(|kind| kind.starts_with("field-")) {
            let site_type = site["siteType"].as_str().unwrap_or("(unresolved)").to_owned();
            *by_type.entry(site_type).or_default() += 1;
        }
    }
    json!({ "scope": "page", "byKind": by_kind, "byDeclaringField": by_symbol, "bySiteType": by_type })
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}
