//! `fslens.fieldImpact`: every site of a record field, grouped for planning a change of the
//! field's type — `find` with `kind=field` and site types, plus the groups and the honest
//! limits of what a site type can say.
//!
//! A file compiled by several projects is type-checked by FSAC in one project context; FSAC
//! has no request that asks for another project's view of the same file, so fslens reports the
//! type it got, marks those rows and says so, instead of guessing the other projects' types.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::find::answer::FindAnswer;
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments};
use crate::commands::find::rows::{SiteRow, SiteTypeContext};
use crate::commands::find::{ExtendedAnswer, PageHook};
use crate::commands::params::CommandArguments;

crate::commands::find::arguments::find_sweep_arguments! {
    cli: any();
    /// The arguments of `fslens.fieldImpact`: the field (by name or at a position) and find's
    /// sweep arguments, passed to `find` unchanged.
    #[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct FieldImpactArguments {
        /// The field: `Weight`, `Shipment.Weight` or fully qualified; a qualified name picks the
        /// record. Required for kind `field` (the default).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub field: Option<String>,
        /// The same as `field` (find's name for it); `field` wins when both are given.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub query: Option<String>,
        /// How the field is named; default `field`.
        #[serde(default)]
        pub kind: FieldImpactKind,
        /// Always `true`: field impact always includes site types.
        #[serde(default = "yes")]
        pub include_site_types: bool,
    }
}

/// How `fslens.fieldImpact` is told the field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FieldImpactKind {
    /// by name: `field` (or `query`)
    #[default]
    Field,
    /// the field under `path` + `line` + `word`/`character`
    Position,
}

fn yes() -> bool {
    true
}

impl CommandArguments for FieldImpactArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if !self.include_site_types {
            return Err(CommandError::invalid_argument("includeSiteTypes", "field impact always includes site types"));
        }
        // A bad value is blamed on the argument that holds it.
        if self.field.as_deref().is_some_and(|field| field.trim().is_empty()) {
            return Err(CommandError::invalid_argument("field", "expected a non-empty string"));
        }
        if self.field.is_none() && self.query.as_deref().is_some_and(|query| query.trim().is_empty()) {
            return Err(CommandError::invalid_argument("query", "expected a non-empty string"));
        }
        if self.kind == FieldImpactKind::Field && self.named_field().is_none() {
            return Err(CommandError::invalid_argument("field", "required: the field name, or Type.Field"));
        }
        self.find_arguments().validate()
    }
}

impl FieldImpactArguments {
    /// The field as named: `field`, else `query`, trimmed.
    fn named_field(&self) -> Option<String> {
        self.field.as_deref().or(self.query.as_deref()).map(str::trim).map(str::to_owned)
    }

    /// The `find` these arguments stand for: kind field (or position) with site types. A
    /// qualified name (`Shipment.Weight`) is find's query; a bare name restricts kind field.
    pub fn find_arguments(&self) -> FindArguments {
        let (query, field) = match (self.named_field(), self.kind) {
            (Some(named), FieldImpactKind::Field) if !named.contains('.') => (None, Some(named)),
            (named, _) => (named, None),
        };
        self.find_with(FindOwnArguments {
            query,
            kind: match self.kind {
                FieldImpactKind::Field => FindKind::Field,
                FieldImpactKind::Position => FindKind::Position,
            },
            member: None,
            field,
            include_site_types: true,
        })
    }
}

/// `fslens.fieldImpact`'s answer: find's members, then fieldImpact's (`field`, `groups`, `plan`).
pub type FieldImpactAnswer = ExtendedAnswer<FieldImpactParts>;

/// `fslens.fieldImpact`: find's answer with the field impact members on its page, which the
/// page planner measures with them.
pub async fn field_impact_answer(
    arguments: FieldImpactArguments,
    context: CommandContext,
) -> Result<FieldImpactAnswer, CommandError> {
    let hook = FieldImpactHook { field: arguments.named_field().unwrap_or_default() };
    crate::commands::find::find_answer_with(arguments.find_arguments(), context, &hook).await
}

/// fieldImpact's hook into find's page planning: each candidate page gets its members.
struct FieldImpactHook {
    /// The field as named.
    field: String,
}

impl PageHook for FieldImpactHook {
    type Members = FieldImpactParts;

    fn extend(&self, answer: &mut FindAnswer) -> Option<FieldImpactParts> {
        Some(add_parts(answer, &self.field))
    }
}

/// What fieldImpact adds to a find answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldImpactParts {
    /// The field as named.
    pub field: String,
    pub groups: PageGroups,
    /// Which edit each kind of site needs.
    pub plan: String,
}

/// `groups`: counts of this page's rows by kind, by declaring field and by site type (the
/// whole-set counts are `breakdown` and `siteTypes`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageGroups {
    /// Always `page`.
    pub scope: String,
    pub by_kind: BTreeMap<String, usize>,
    pub by_declaring_field: BTreeMap<String, usize>,
    pub by_site_type: BTreeMap<String, usize>,
}

const SINGLE_CONTEXT_NOTE: &str = " A file compiled by several projects is checked by FSAC in one project context, and \
    FSAC offers no way to ask another project's view of it: such rows carry siteTypeContext naming the project whose \
    type is shown and the projects that were not asked; typedDifferentlyByAnotherProject is therefore null (unknown), \
    never a count.";

const PLAN: &str = "Each kind needs its own edit: field-construction and field-copy-update sites set the field, \
    field-set-mutation sites assign it, field-pattern sites destructure it, field-read sites consume its value. After \
    editing, run fslens.check with scope workspace for the verdict.";

/// fieldImpact's members of a find answer whose page is filled, and what they change in it
/// (each single-context row's `siteTypeContext`, the site types' note and ledger).
fn add_parts(answer: &mut FindAnswer, field: &str) -> FieldImpactParts {
    // Rows of files that several projects compile: their type comes from one project context.
    let mut single_context_rows = 0usize;
    let sites = answer.page.as_mut().map(|page| page.sites.as_mut_slice()).unwrap_or_default();
    for site in sites.iter_mut().filter(|site| !site.also_compiled_by.is_empty()) {
        single_context_rows += 1;
        site.site_type_context = Some(SiteTypeContext {
            project: site.project.clone(),
            other_projects_not_typed: site.also_compiled_by.clone(),
        });
    }
    let groups = group_page(sites);
    let mut note = answer.site_types_note.take().unwrap_or_default();
    note.push_str(SINGLE_CONTEXT_NOTE);
    answer.site_types_note = Some(note);
    if let Some(ledger) = &mut answer.site_types {
        ledger.single_context_rows_on_page = Some(single_context_rows);
    }
    FieldImpactParts { field: field.to_owned(), groups, plan: PLAN.to_owned() }
}

/// Counts of this page's rows by kind, by declaring field and by site type.
fn group_page(sites: &[SiteRow]) -> PageGroups {
    let mut groups = PageGroups { scope: "page".to_owned(), ..PageGroups::default() };
    for site in sites {
        *groups.by_kind.entry(site.kind.as_str().to_owned()).or_default() += 1;
        let symbol = site.symbol_full_name.as_deref().unwrap_or("(ambiguous)").to_owned();
        *groups.by_declaring_field.entry(symbol).or_default() += 1;
        if site.kind.is_field() {
            let site_type = site.site_type.as_ref().and_then(Option::as_deref).unwrap_or("(unresolved)").to_owned();
            *groups.by_site_type.entry(site_type).or_default() += 1;
        }
    }
    groups
}

/// A field-impact page is a definite answer, as find's is.
impl crate::commands::outcome::Answered for FieldImpactAnswer {}

#[cfg(test)]
mod tests {
    use crate::commands::params::parse_arguments;
    use serde_json::{Value, json};

    use super::*;

    fn parsed(argument: Value) -> Result<FieldImpactArguments, CommandError> {
        parse_arguments::<FieldImpactArguments>(argument)
    }

    fn blamed(argument: Value) -> String {
        let error = parsed(argument.clone()).expect_err("must be refused");
        assert_eq!(error.kind(), "invalid_argument", "{argument}: {error}");
        error.data()["argument"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn each_bad_argument_is_named() {
        assert_eq!(blamed(json!({"fieldd": "Weight"})), "fieldd");
        assert_eq!(blamed(json!({"member": "Weight"})), "member", "find's member is not fieldImpact's");
        assert_eq!(blamed(json!({})), "field");
        assert_eq!(blamed(Value::Null), "field");
        assert_eq!(blamed(json!([])), "field");
        assert_eq!(blamed(json!({"field": ""})), "field");
        assert_eq!(blamed(json!({"field": 3})), "field");
        assert_eq!(blamed(json!({"query": " "})), "query");
        assert_eq!(blamed(json!({"field": "Weight", "includeSiteTypes": false})), "includeSiteTypes");
        assert_eq!(blamed(json!({"field": "Weight", "kind": "members"})), "kind");
        assert_eq!(blamed(json!({"field": "Weight", "maxResults": 0})), "maxResults");
        // find's own rules still hold for what is passed through.
        assert_eq!(blamed(json!({"kind": "position", "line": 1, "word": "Weight"})), "path");
        assert_eq!(blamed(json!({"field": "Weight", "scope": "file"})), "path");
    }

    #[test]
    fn the_field_becomes_find_arguments() {
        let bare = parsed(json!({"field": " Weight ", "query": "Ignored"})).unwrap().find_arguments();
        assert_eq!((bare.kind, bare.field.as_deref(), bare.query.as_deref()), (FindKind::Field, Some("Weight"), None));
        assert!(bare.include_site_types);
        let qualified = parsed(json!({"query": "Shipment.Weight", "maxResults": 2})).unwrap().find_arguments();
        assert_eq!((qualified.field.as_deref(), qualified.query.as_deref()), (None, Some("Shipment.Weight")));
        assert_eq!(qualified.max_results(), 2);
        let position =
            parsed(json!({"kind": "position", "path": "A.fs", "line": 2, "word": "Weight"})).unwrap().find_arguments();
        assert_eq!((position.kind, position.line(), position.word.as_deref()), (FindKind::Position, 2, Some("Weight")));
        assert_eq!((position.field, position.query), (None, None));
    }

    #[test]
    fn the_schema_lists_field_and_what_is_passed_to_find() {
        let schema = crate::commands::params::input_schema::<FieldImpactArguments>();
        let properties = &schema["properties"];
        assert_eq!(properties["kind"]["enum"], json!(["field", "position"]));
        assert_eq!(properties["includeSiteTypes"]["default"], json!(true));
        assert_eq!(properties["scope"]["enum"], json!(["auto", "workspace", "project", "file"]));
        assert_eq!(properties["maxResults"]["maximum"], json!(1000));
        let find = crate::commands::params::input_schema::<crate::commands::find::FindArguments>();
        for (name, property) in properties.as_object().unwrap() {
            assert!(property["description"].as_str().is_some_and(|text| !text.is_empty()), "{name}");
            if name != "kind" && name != "field" && name != "query" {
                assert!(find["properties"].get(name).is_some(), "{name} is passed to find, which must take it");
            }
        }
    }
}
