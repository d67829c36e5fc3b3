//! `fslens.referencedSymbols`, `fslens.nugetTypes` and `fslens.nugetMembers`: the types and
//! members of a project's referenced assemblies, read from their ECMA-335 metadata
//! ([`crate::metadata`]) with no .NET runtime and no FSAC, labelled `via: "metadata"`.
//!
//! The project's references come from its restore output ([`crate::metadata::restore`]);
//! every answer says which project and which restore source it used and lists the references
//! it could not read (`unreadableReferences`, `complete: false`), so a missing targeting pack
//! is never mistaken for "no such type". A project without restore output is `restoreState:
//! "not_restored"` with the remedy (`dotnet restore <project>`), and never complete. `packageId` matches a package id or an assembly's
//! simple name, exactly and case-insensitively, never as a prefix; a miss explains itself
//! (`hint`, `candidatePackages`). Pages follow the shared response budget and stateless
//! cursors of [`crate::commands::budget`].
//!
//! Each tool has its own typed argument struct (its MCP schema lists exactly what it takes);
//! all three become one [`ReferencedArguments`]. Each tool's answer is a [`ReferencedAnswer`]
//! around what it found ([`SymbolsFound`], [`TypesFound`], [`MembersFound`], each holding the
//! page under the tool's own name); they derive `Deserialize` too, so the CLI reads them typed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::budget::{PageBudget, cursor_digest, encode_cursor, page_offset, paginate};
use crate::commands::budget::{PageByteBudget, PageCharBudget, page_budget};
use crate::commands::params::{Bounded, CommandArguments, parse_arguments};
use crate::commands::paths::display_relative;
use crate::commands::registry::Command;
use crate::lsp::ext::error_kinds;
use crate::metadata::cache::load_assembly;
use crate::metadata::model::{Accessibility, MemberKind};
use crate::metadata::restore::{ReferenceSet, RestoreEnvironment, RestoreSource, resolve_references};
use crate::metadata::{Assembly, TypeInfo};
use crate::workspace::{Project, WorkspaceModel, load_workspace};

/// At most this many unreadable references are listed; the rest are counted.
const UNREADABLE_LIST_LIMIT: usize = 20;
/// At most this many candidate packages are offered on a miss.
const CANDIDATE_LIMIT: usize = 10;

// ---- arguments --------------------------------------------------------------------------------

/// `maxResults` of `referencedSymbols`.
pub type SymbolPageSize = Bounded<1, 1000, 200>;
/// `maxResults` of `nugetTypes` and `nugetMembers`.
pub type PackagePageSize = Bounded<1, 2000, 500>;

/// The arguments of `fslens.referencedSymbols`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReferencedSymbolsArguments {
    /// Substring of a type's display name or full name (case-insensitive).
    #[schemars(length(min = 1))]
    pub query: String,
    /// A project name or `.fsproj` path inside the workspace; default: the first project.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long = "project", value_name = "PROJECT")]
    pub project_path: Option<String>,
    /// Also internal and private types.
    #[serde(default)]
    #[arg(long)]
    pub include_non_public: bool,
    /// Types per page.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_results: SymbolPageSize,
    /// `nextCursor` of an earlier page of the same query.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub cursor: Option<String>,
    /// UTF-16 units of entries one page may hold, 200 to 45,000; default 45,000 (30,000
    /// through the MCP bridge, so a page fits its output).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_char_budget: Option<PageCharBudget>,
    /// UTF-8 bytes of entries one page may hold, 200 to 10,000,000; absent, no byte limit
    /// (30,000 through the MCP bridge, so a page of non-ASCII text fits its output too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_byte_budget: Option<PageByteBudget>,
}

/// The arguments of `fslens.nugetTypes`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NugetTypesArguments {
    /// A restored package id, else an assembly's simple name; exact and case-insensitive,
    /// never a prefix.
    #[schemars(length(min = 1))]
    pub package_id: String,
    /// A project name or `.fsproj` path inside the workspace; default: the first project.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long = "project", value_name = "PROJECT")]
    pub project_path: Option<String>,
    /// Also internal and private types.
    #[serde(default)]
    #[arg(long)]
    pub include_non_public: bool,
    /// Types per page.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_results: PackagePageSize,
    /// `nextCursor` of an earlier page of the same query.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub cursor: Option<String>,
    /// UTF-16 units of entries one page may hold, 200 to 45,000; default 45,000 (30,000
    /// through the MCP bridge, so a page fits its output).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_char_budget: Option<PageCharBudget>,
    /// UTF-8 bytes of entries one page may hold, 200 to 10,000,000; absent, no byte limit
    /// (30,000 through the MCP bridge, so a page of non-ASCII text fits its output too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_byte_budget: Option<PageByteBudget>,
}

/// The arguments of `fslens.nugetMembers`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NugetMembersArguments {
    /// A restored package id, else an assembly's simple name; exact and case-insensitive,
    /// never a prefix.
    #[schemars(length(min = 1))]
    pub package_id: String,
    /// The type: its display name, full name or a dotted tail of the full name
    /// (case-insensitive); every matching type is listed.
    #[schemars(length(min = 1))]
    pub type_name: String,
    /// A project name or `.fsproj` path inside the workspace; default: the first project.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long = "project", value_name = "PROJECT")]
    pub project_path: Option<String>,
    /// Also internal and private members.
    #[serde(default)]
    #[arg(long)]
    pub include_non_public: bool,
    /// Members per page.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub max_results: PackagePageSize,
    /// `nextCursor` of an earlier page of the same query.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub cursor: Option<String>,
    /// UTF-16 units of entries one page may hold, 200 to 45,000; default 45,000 (30,000
    /// through the MCP bridge, so a page fits its output).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_char_budget: Option<PageCharBudget>,
    /// UTF-8 bytes of entries one page may hold, 200 to 10,000,000; absent, no byte limit
    /// (30,000 through the MCP bridge, so a page of non-ASCII text fits its output too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub response_byte_budget: Option<PageByteBudget>,
}

/// A blank name names nothing: refused like a missing one.
fn not_blank(argument: &str, text: &str) -> Result<(), CommandError> {
    match text.trim().is_empty() {
        true => Err(CommandError::invalid_argument(argument, "must not be empty")),
        false => Ok(()),
    }
}

impl CommandArguments for ReferencedSymbolsArguments {
    fn validate(&self) -> Result<(), CommandError> {
        not_blank("query", &self.query)
    }
}

impl CommandArguments for NugetTypesArguments {
    fn validate(&self) -> Result<(), CommandError> {
        not_blank("packageId", &self.package_id)
    }
}

impl CommandArguments for NugetMembersArguments {
    fn validate(&self) -> Result<(), CommandError> {
        not_blank("packageId", &self.package_id)?;
        not_blank("typeName", &self.type_name)
    }
}

/// What one call looks up, names trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Symbols { query: String },
    Types { package_id: String },
    Members { package_id: String, type_name: String },
}

/// One call's arguments, whichever tool it is: what [`run`] reads.
#[derive(Clone, Debug)]
pub struct ReferencedArguments {
    pub lookup: Lookup,
    pub project_path: Option<String>,
    pub include_non_public: bool,
    pub max_results: usize,
    pub cursor: Option<String>,
    /// What one page may hold of entries.
    pub budget: PageBudget,
}

impl ReferencedArguments {
    /// Reads the argument object of `command`, one of the three tools.
    pub fn parse(command: Command, argument: Value) -> Result<ReferencedArguments, CommandError> {
        Ok(match command {
            Command::ReferencedSymbols => parse_arguments::<ReferencedSymbolsArguments>(argument)?.into(),
            Command::NugetTypes => parse_arguments::<NugetTypesArguments>(argument)?.into(),
            Command::NugetMembers => parse_arguments::<NugetMembersArguments>(argument)?.into(),
            other => {
                return Err(CommandError::invalid_argument(
                    "command",
                    format!("{} reads no referenced assembly", other.id()),
                ));
            }
        })
    }

    fn query_identity(&self) -> Value {
        let (tool, query, package_id, type_name) = match &self.lookup {
            Lookup::Symbols { query } => (Command::ReferencedSymbols, Some(query), None, None),
            Lookup::Types { package_id } => (Command::NugetTypes, None, Some(package_id), None),
            Lookup::Members { package_id, type_name } => {
                (Command::NugetMembers, None, Some(package_id), Some(type_name))
            }
        };
        let identity = QueryIdentity {
            tool: format!("{tool:?}"),
            query,
            package_id,
            type_name,
            project_path: self.project_path.as_deref(),
            include_non_public: self.include_non_public,
            max_results: self.max_results,
            response_char_budget: self.budget.units,
            response_byte_budget: self.budget.bytes,
        };
        serde_json::to_value(identity).unwrap_or_default()
    }
}

/// What binds a cursor to its query: the tool and every argument but the cursor.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QueryIdentity<'a> {
    tool: String,
    query: Option<&'a String>,
    package_id: Option<&'a String>,
    type_name: Option<&'a String>,
    project_path: Option<&'a str>,
    include_non_public: bool,
    max_results: usize,
    response_char_budget: usize,
    response_byte_budget: Option<usize>,
}

impl From<ReferencedSymbolsArguments> for ReferencedArguments {
    fn from(arguments: ReferencedSymbolsArguments) -> Self {
        ReferencedArguments {
            lookup: Lookup::Symbols { query: arguments.query.trim().to_owned() },
            project_path: arguments.project_path,
            include_non_public: arguments.include_non_public,
            max_results: arguments.max_results.as_usize(),
            cursor: arguments.cursor,
            budget: page_budget(arguments.response_char_budget, arguments.response_byte_budget),
        }
    }
}

impl From<NugetTypesArguments> for ReferencedArguments {
    fn from(arguments: NugetTypesArguments) -> Self {
        ReferencedArguments {
            lookup: Lookup::Types { package_id: arguments.package_id.trim().to_owned() },
            project_path: arguments.project_path,
            include_non_public: arguments.include_non_public,
            max_results: arguments.max_results.as_usize(),
            cursor: arguments.cursor,
            budget: page_budget(arguments.response_char_budget, arguments.response_byte_budget),
        }
    }
}

impl From<NugetMembersArguments> for ReferencedArguments {
    fn from(arguments: NugetMembersArguments) -> Self {
        ReferencedArguments {
            lookup: Lookup::Members {
                package_id: arguments.package_id.trim().to_owned(),
                type_name: arguments.type_name.trim().to_owned(),
            },
            project_path: arguments.project_path,
            include_non_public: arguments.include_non_public,
            max_results: arguments.max_results.as_usize(),
            cursor: arguments.cursor,
            budget: page_budget(arguments.response_char_budget, arguments.response_byte_budget),
        }
    }
}

// ---- in a session -----------------------------------------------------------------------------

/// `fslens.referencedSymbols` in a session: files only, no FSAC.
pub async fn referenced_symbols(
    arguments: ReferencedSymbolsArguments,
    context: CommandContext,
) -> Result<ReferencedSymbolsAnswer, CommandError> {
    let query = arguments.query.trim().to_owned();
    let arguments = ReferencedArguments::from(arguments);
    in_session(context, move |root, environment| symbols_answer(root, &arguments, &query, environment)).await
}

/// `fslens.nugetTypes` in a session: files only, no FSAC.
pub async fn nuget_types(
    arguments: NugetTypesArguments,
    context: CommandContext,
) -> Result<NugetTypesAnswer, CommandError> {
    let package_id = arguments.package_id.trim().to_owned();
    let arguments = ReferencedArguments::from(arguments);
    in_session(context, move |root, environment| types_answer(root, &arguments, &package_id, environment)).await
}

/// `fslens.nugetMembers` in a session: files only, no FSAC.
pub async fn nuget_members(
    arguments: NugetMembersArguments,
    context: CommandContext,
) -> Result<NugetMembersAnswer, CommandError> {
    let (package_id, type_name) = (arguments.package_id.trim().to_owned(), arguments.type_name.trim().to_owned());
    let arguments = ReferencedArguments::from(arguments);
    in_session(context, move |root, environment| members_answer(root, &arguments, &package_id, &type_name, environment))
        .await
}

/// Reads the metadata off the routing thread; the session's context is not needed.
async fn in_session<Answer: Send + 'static>(
    context: CommandContext,
    answer: impl FnOnce(&Path, &RestoreEnvironment) -> Result<Answer, CommandError> + Send + 'static,
) -> Result<Answer, CommandError> {
    let root = context.workspace_root()?.to_path_buf();
    crate::commands::run_blocking(move || answer(&root, &RestoreEnvironment::from_process())).await
}

// ---- the answer -------------------------------------------------------------------------------

/// The answer of `fslens.referencedSymbols`.
pub type ReferencedSymbolsAnswer = ReferencedAnswer<SymbolsFound>;
/// The answer of `fslens.nugetTypes`.
pub type NugetTypesAnswer = ReferencedAnswer<TypesFound>;
/// The answer of `fslens.nugetMembers`.
pub type NugetMembersAnswer = ReferencedAnswer<MembersFound>;

/// What every one of the three tools answers, around what the tool found (`Found`, which holds
/// the page of entries under the tool's own name: `symbols`, `types` or `members`).
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReferencedAnswer<Found> {
    pub via: MetadataVia,
    pub project: ProjectUsed,
    pub target_framework: Option<String>,
    pub restore_source: RestoreSourceUsed,
    pub restore_state: RestoreState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_restored: Option<NotRestored>,
    pub complete: bool,
    pub unreadable_references: Vec<UnreadableEntry>,
    pub unreadable_references_omitted: usize,
    pub total: usize,
    pub returned: usize,
    pub truncated: bool,
    pub truncated_by_budget: bool,
    pub next_cursor: Option<String>,
    #[serde(flatten)]
    pub found: Found,
}

/// `via`: always `metadata`, read from the assemblies' ECMA-335 tables.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MetadataVia {
    Metadata,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ProjectUsed {
    pub name: String,
    pub path: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct RestoreSourceUsed {
    pub kind: RestoreSourceKind,
    pub path: Option<String>,
}

/// Where the package → assembly map came from (`restoreSource.kind`).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum RestoreSourceKind {
    /// The project's `obj/project.assets.json`.
    ProjectAssetsJson,
    /// The PackageReferences found in the global packages folder.
    GlobalPackagesFolder,
    None,
}

impl RestoreSourceKind {
    fn of(source: &RestoreSource) -> RestoreSourceKind {
        match source {
            RestoreSource::ProjectAssets(_) => RestoreSourceKind::ProjectAssetsJson,
            RestoreSource::GlobalPackagesFolder(_) => RestoreSourceKind::GlobalPackagesFolder,
            RestoreSource::Nothing => RestoreSourceKind::None,
        }
    }

    /// The wire spelling (as [`RestoreSource::kind`]).
    pub fn as_str(self) -> &'static str {
        match self {
            RestoreSourceKind::ProjectAssetsJson => "projectAssetsJson",
            RestoreSourceKind::GlobalPackagesFolder => "globalPackagesFolder",
            RestoreSourceKind::None => "none",
        }
    }
}

/// `restoreState` (the values of `lsp::ext::restore_states`).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RestoreState {
    Restored,
    NotRestored,
}

/// Why an answer for a project that was never restored cannot be complete, and the remedy.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct NotRestored {
    pub error_kind: NotRestoredKind,
    pub project: String,
    pub message: String,
    pub remedy: String,
}

/// `notRestored.errorKind`: always `project_not_restored` ([`error_kinds::PROJECT_NOT_RESTORED`]).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NotRestoredKind {
    ProjectNotRestored,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct UnreadableEntry {
    pub name: String,
    pub reason: String,
}

/// `referencedSymbols`: the query, how many assemblies were searched, and the page of types.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SymbolsFound {
    pub query: String,
    pub searched_assemblies: usize,
    pub symbols: Vec<TypeEntry>,
}

/// `nugetTypes`: the package part and the page of types.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TypesFound {
    #[serde(flatten)]
    pub package: PackageFound,
    pub types: Vec<TypeEntry>,
}

/// `nugetTypes` and `nugetMembers`: what `packageId` resolved to, and on a miss why.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct PackageFound {
    pub package_id: String,
    pub matched_package: Option<String>,
    pub matched_assemblies: Vec<MatchedAssembly>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_packages: Option<Vec<CandidatePackage>>,
}

/// `nugetMembers`: the package part, the types `typeName` matched and the page of members.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct MembersFound {
    #[serde(flatten)]
    pub package: PackageFound,
    pub type_name: String,
    pub matched_types: Vec<TypeEntry>,
    pub members: Vec<MemberEntry>,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct MatchedAssembly {
    pub name: String,
    pub version: String,
    pub package_id: String,
    pub package_version: String,
    pub path: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct CandidatePackage {
    pub package_id: String,
    pub version: String,
    pub assemblies: Vec<String>,
}

/// One type of `symbols[]`, `types[]` and `matchedTypes[]`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct TypeEntry {
    pub display_name: String,
    pub full_name: String,
    /// As the metadata reader names it: class, interface, struct, enum, delegate, module,
    /// record, union, exception, forwarder.
    pub kind: String,
    pub accessibility: AccessibilityName,
    pub is_obsolete: bool,
    pub is_abstract: bool,
    pub generic_parameters: Vec<String>,
    pub generic_constraints: Vec<String>,
    pub assembly: String,
    pub package_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarded_to: Option<String>,
    /// A forwarder whose target assembly the project references too: where its members were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_in: Option<String>,
}

impl TypeEntry {
    fn of(loaded: &LoadedAssembly, info: &TypeInfo) -> TypeEntry {
        TypeEntry {
            display_name: info.display_name.clone(),
            full_name: info.full_name.clone(),
            kind: info.kind.to_owned(),
            accessibility: info.accessibility.into(),
            is_obsolete: info.is_obsolete,
            is_abstract: info.is_abstract,
            generic_parameters: info.generic_parameters.clone(),
            generic_constraints: info.generic_constraints.clone(),
            assembly: loaded.assembly.name.clone(),
            package_id: loaded.package_id.clone(),
            forwarded_to: info.forwarded_to.clone(),
            resolved_in: None,
        }
    }
}

/// One member of `members[]`.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct MemberEntry {
    pub name: String,
    pub kind: MemberKindName,
    pub signature: String,
    pub accessibility: AccessibilityName,
    pub is_static: bool,
    pub is_abstract: bool,
    pub generic_parameters: Vec<String>,
    pub is_obsolete: bool,
    /// Always null: compiled assemblies carry no XML docs.
    pub xml_doc_summary: Option<String>,
    pub declaring_type: String,
    pub assembly: String,
}

/// Declared accessibility as answers spell it.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessibilityName {
    #[serde(rename = "public")]
    Public,
    #[serde(rename = "protected")]
    Protected,
    #[serde(rename = "protected internal")]
    ProtectedInternal,
    #[serde(rename = "internal")]
    Internal,
    #[serde(rename = "private protected")]
    PrivateProtected,
    #[serde(rename = "private")]
    Private,
}

impl From<Accessibility> for AccessibilityName {
    fn from(accessibility: Accessibility) -> AccessibilityName {
        match accessibility {
            Accessibility::Public => AccessibilityName::Public,
            Accessibility::Protected => AccessibilityName::Protected,
            Accessibility::ProtectedInternal => AccessibilityName::ProtectedInternal,
            Accessibility::Internal => AccessibilityName::Internal,
            Accessibility::PrivateProtected => AccessibilityName::PrivateProtected,
            Accessibility::Private => AccessibilityName::Private,
        }
    }
}

impl AccessibilityName {
    /// The wire spelling (as [`Accessibility::as_str`]).
    pub fn as_str(self) -> &'static str {
        match self {
            AccessibilityName::Public => "public",
            AccessibilityName::Protected => "protected",
            AccessibilityName::ProtectedInternal => "protected internal",
            AccessibilityName::Internal => "internal",
            AccessibilityName::PrivateProtected => "private protected",
            AccessibilityName::Private => "private",
        }
    }
}

/// A member's kind as answers spell it.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MemberKindName {
    Method,
    Constructor,
    Property,
    Event,
    Field,
}

impl From<MemberKind> for MemberKindName {
    fn from(kind: MemberKind) -> MemberKindName {
        match kind {
            MemberKind::Method => MemberKindName::Method,
            MemberKind::Constructor => MemberKindName::Constructor,
            MemberKind::Property => MemberKindName::Property,
            MemberKind::Event => MemberKindName::Event,
            MemberKind::Field => MemberKindName::Field,
        }
    }
}

impl MemberKindName {
    /// The wire spelling (as [`MemberKind::as_str`]).
    pub fn as_str(self) -> &'static str {
        match self {
            MemberKindName::Method => "method",
            MemberKindName::Constructor => "constructor",
            MemberKindName::Property => "property",
            MemberKindName::Event => "event",
            MemberKindName::Field => "field",
        }
    }
}

fn to_json(value: &impl Serialize) -> Result<Value, CommandError> {
    serde_json::to_value(value)
        .map_err(|error| CommandError::Internal(format!("the answer did not serialize: {error}")))
}

// ---- reading the references -------------------------------------------------------------------

/// One readable referenced assembly and the package it came from.
struct LoadedAssembly {
    package_id: String,
    package_version: String,
    path: PathBuf,
    assembly: Arc<Assembly>,
}

/// The project, its references and the assemblies that could be read.
struct ReferenceView {
    project: Project,
    references: ReferenceSet,
    assemblies: Vec<LoadedAssembly>,
    /// Unreadable references, those the restore reported and those whose file failed to parse.
    unreadable: Vec<UnreadableEntry>,
}

/// `data` of `no_project`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoProjectData {
    workspace_root: String,
}

fn choose_project(model: &WorkspaceModel, root: &Path, written: Option<&str>) -> Result<Project, CommandError> {
    let Some(written) = written else {
        let first = model
            .project_order
            .iter()
            .find_map(|path| model.project(path))
            .or_else(|| model.projects.first())
            .ok_or_else(|| {
                CommandError::typed(
                    error_kinds::NO_PROJECT,
                    crate::lsp::message::error_codes::INVALID_PARAMS,
                    format!("no .fsproj found under {}", root.display()),
                    serde_json::to_value(NoProjectData { workspace_root: root.display().to_string() })
                        .unwrap_or_default(),
                )
            })?;
        return Ok(first.clone());
    };
    crate::commands::paths::project_by_name_or_path(model, root, written).cloned()
}

fn load_view(
    root: &Path,
    arguments: &ReferencedArguments,
    environment: &RestoreEnvironment,
) -> Result<ReferenceView, CommandError> {
    let model = load_workspace(root).map_err(|error| CommandError::InvalidPath {
        path: root.display().to_string(),
        message: format!("{error:#}"),
    })?;
    let project = choose_project(&model, root, arguments.project_path.as_deref())?;
    let references = resolve_references(&project, environment);
    let mut unreadable: Vec<UnreadableEntry> = references
        .unreadable
        .iter()
        .map(|entry| UnreadableEntry { name: entry.name.clone(), reason: entry.reason.clone() })
        .collect();
    let mut assemblies = Vec::new();
    for package in &references.packages {
        for path in &package.assemblies {
            match load_assembly(path) {
                Ok(assembly) => assemblies.push(LoadedAssembly {
                    package_id: package.id.clone(),
                    package_version: package.version.clone(),
                    path: path.clone(),
                    assembly,
                }),
                Err(error) => {
                    unreadable.push(UnreadableEntry { name: path.display().to_string(), reason: error.to_string() })
                }
            }
        }
    }
    Ok(ReferenceView { project, references, assemblies, unreadable })
}

/// Binds cursors to the files read: a re-restore or a changed assembly invalidates them.
fn stream_identity(view: &ReferenceView) -> String {
    let mut identity = crate::commands::cursor::StreamIdentity::new();
    for loaded in &view.assemblies {
        identity.add_bytes(loaded.path.to_string_lossy().as_bytes());
        if let Ok(metadata) = std::fs::metadata(&loaded.path) {
            identity.add_bytes(&metadata.len().to_le_bytes());
            if let Ok(modified) = metadata.modified()
                && let Ok(since) = modified.duration_since(std::time::UNIX_EPOCH)
            {
                identity.add_bytes(&since.as_nanos().to_le_bytes());
            }
        }
    }
    identity.finish()
}

/// The assemblies `packageId` names: a package's, else an assembly's by simple name.
struct PackageMatch<'v> {
    /// Indices into the view's assemblies.
    indices: Vec<usize>,
    /// The restored package the id named, when it named one.
    package: Option<&'v str>,
    /// That package's compile assets are `_._`: it ships no referenceable assembly.
    ships_nothing: bool,
}

impl<'v> PackageMatch<'v> {
    fn of(view: &'v ReferenceView, package_id: &str) -> PackageMatch<'v> {
        let packages = &view.references.packages;
        if let Some(package) = packages.iter().find(|package| package.id.eq_ignore_ascii_case(package_id)) {
            return PackageMatch {
                indices: view.assembly_indices(|loaded| loaded.package_id == package.id),
                package: Some(package.id.as_str()),
                ships_nothing: package.ships_no_assembly,
            };
        }
        let indices = view.assembly_indices(|loaded| loaded.assembly.name.eq_ignore_ascii_case(package_id));
        PackageMatch { indices, package: None, ships_nothing: false }
    }

    /// The answer's package part; on a miss, the hint that says which miss it is.
    fn found(&self, view: &ReferenceView, package_id: &str) -> PackageFound {
        let miss = self.indices.is_empty();
        let hint = miss.then(|| match self.package {
            Some(found) if self.ships_nothing => format!(
                "package {found} is restored, but contributes no compile-time reference (its compile assets are `_._` placeholders: analyzers, build or content only)"
            ),
            Some(found) => format!(
                "package {found} is restored, but none of its assemblies could be read here; see unreadableReferences"
            ),
            None => format!(
                "`{package_id}` is neither a package in this project's restore graph nor the simple name of an assembly it references (matching is exact, never by prefix); see candidatePackages, or use referencedSymbols to search every loaded assembly"
            ),
        });
        PackageFound {
            package_id: package_id.to_owned(),
            matched_package: self.package.map(str::to_owned),
            matched_assemblies: self.indices.iter().map(|index| view.assemblies[*index].matched()).collect(),
            hint,
            candidate_packages: (miss && self.package.is_none()).then(|| candidate_packages(view, package_id)),
        }
    }
}

impl ReferenceView {
    fn assembly_indices(&self, wanted: impl Fn(&LoadedAssembly) -> bool) -> Vec<usize> {
        self.assemblies.iter().enumerate().filter(|(_, loaded)| wanted(loaded)).map(|(index, _)| index).collect()
    }
}

impl LoadedAssembly {
    fn matched(&self) -> MatchedAssembly {
        MatchedAssembly {
            name: self.assembly.name.clone(),
            version: self.assembly.version.clone(),
            package_id: self.package_id.clone(),
            package_version: self.package_version.clone(),
            path: self.path.display().to_string(),
        }
    }
}

/// Restored package ids closest to `wanted`: shared dotted segments first, then edit distance.
fn candidate_packages(view: &ReferenceView, wanted: &str) -> Vec<CandidatePackage> {
    let wanted_lower = wanted.to_lowercase();
    let wanted_segments: Vec<&str> = wanted_lower.split('.').collect();
    let mut scored: Vec<(i64, &crate::metadata::restore::RestoredPackage)> = view
        .references
        .packages
        .iter()
        .map(|package| {
            let id = package.id.to_lowercase();
            let shared = id.split('.').filter(|segment| wanted_segments.contains(segment)).count() as i64;
            let contains = (id.contains(&wanted_lower) || wanted_lower.contains(&id)) as i64;
            (contains * 1000 + shared * 100 - edit_distance(&id, &wanted_lower) as i64, package)
        })
        .collect();
    scored.sort_by(|left, right| right.0.cmp(&left.0).then_with(|| left.1.id.cmp(&right.1.id)));
    scored
        .into_iter()
        .take(CANDIDATE_LIMIT)
        .map(|(_, package)| {
            let assemblies: Vec<String> = view
                .assemblies
                .iter()
                .filter(|loaded| loaded.package_id == package.id)
                .map(|loaded| loaded.assembly.name.clone())
                .collect();
            CandidatePackage { package_id: package.id.clone(), version: package.version.clone(), assemblies }
        })
        .collect()
}

fn edit_distance(left: &str, right: &str) -> usize {
    let right: Vec<char> = right.chars().collect();
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    for (row, left_char) in left.chars().enumerate() {
        let mut current = vec![row + 1];
        for (column, right_char) in right.iter().enumerate() {
            let substitution = previous[column] + usize::from(left_char != *right_char);
            current.push(substitution.min(previous[column + 1] + 1).min(current[column] + 1));
        }
        previous = current;
    }
    previous[right.len()]
}

// ---- the three tools --------------------------------------------------------------------------

/// Runs one of the three tools over the workspace at `root`, its answer as the wire's JSON (the
/// command line runs them in its own process: `cli::referenced`).
pub fn run(
    root: &Path,
    arguments: &ReferencedArguments,
    environment: &RestoreEnvironment,
) -> Result<Value, CommandError> {
    match &arguments.lookup {
        Lookup::Symbols { query } => to_json(&symbols_answer(root, arguments, query, environment)?),
        Lookup::Types { package_id } => to_json(&types_answer(root, arguments, package_id, environment)?),
        Lookup::Members { package_id, type_name } => {
            to_json(&members_answer(root, arguments, package_id, type_name, environment)?)
        }
    }
}

/// `referencedSymbols` over the workspace at `root`.
pub fn symbols_answer(
    root: &Path,
    arguments: &ReferencedArguments,
    query: &str,
    environment: &RestoreEnvironment,
) -> Result<ReferencedSymbolsAnswer, CommandError> {
    let view = load_view(root, arguments, environment)?;
    let entries = search_types(&view, query, arguments.include_non_public);
    let searched_assemblies = view.assemblies.len();
    page_answer(entries, &view, arguments, root, |symbols| SymbolsFound {
        query: query.to_owned(),
        searched_assemblies,
        symbols,
    })
}

/// `nugetTypes` over the workspace at `root`.
pub fn types_answer(
    root: &Path,
    arguments: &ReferencedArguments,
    package_id: &str,
    environment: &RestoreEnvironment,
) -> Result<NugetTypesAnswer, CommandError> {
    let view = load_view(root, arguments, environment)?;
    let matched = PackageMatch::of(&view, package_id);
    let entries = package_types(&view, &matched, arguments.include_non_public);
    let package = matched.found(&view, package_id);
    page_answer(entries, &view, arguments, root, |types| TypesFound { package, types })
}

/// `nugetMembers` over the workspace at `root`.
pub fn members_answer(
    root: &Path,
    arguments: &ReferencedArguments,
    package_id: &str,
    type_name: &str,
    environment: &RestoreEnvironment,
) -> Result<NugetMembersAnswer, CommandError> {
    let view = load_view(root, arguments, environment)?;
    let matched = PackageMatch::of(&view, package_id);
    let (matched_types, members) = type_members(&view, &matched, type_name, arguments.include_non_public);
    let mut package = matched.found(&view, package_id);
    if let Some(hint) = members_hint(&view, &matched, &matched_types, package_id, type_name) {
        package.hint = Some(hint);
    }
    page_answer(members, &view, arguments, root, |members| MembersFound {
        package,
        type_name: type_name.to_owned(),
        matched_types,
        members,
    })
}

/// `referencedSymbols`: every listed type of every assembly whose display or full name holds
/// `query`; a forwarder into an assembly that is searched too is left out (its target is listed).
fn search_types(view: &ReferenceView, query: &str, include_non_public: bool) -> Vec<TypeEntry> {
    let needle = query.to_lowercase();
    let loaded_names: std::collections::HashSet<String> =
        view.assemblies.iter().map(|loaded| loaded.assembly.name.to_lowercase()).collect();
    let mut entries = Vec::new();
    for loaded in &view.assemblies {
        for info in &loaded.assembly.types {
            let shadowed =
                info.forwarded_to.as_ref().is_some_and(|target| loaded_names.contains(&target.to_lowercase()));
            if !shadowed
                && type_is_listed(info, include_non_public)
                && (info.display_name.to_lowercase().contains(&needle)
                    || info.full_name.to_lowercase().contains(&needle))
            {
                entries.push(TypeEntry::of(loaded, info));
            }
        }
    }
    entries
}

/// `nugetTypes`: every listed type of the matched assemblies.
fn package_types(view: &ReferenceView, matched: &PackageMatch, include_non_public: bool) -> Vec<TypeEntry> {
    let mut entries = Vec::new();
    for index in &matched.indices {
        let loaded = &view.assemblies[*index];
        entries.extend(
            loaded
                .assembly
                .types
                .iter()
                .filter(|info| type_is_listed(info, include_non_public))
                .map(|info| TypeEntry::of(loaded, info)),
        );
    }
    entries
}

/// `nugetMembers`: the types of the matched assemblies that `type_name` names (display name,
/// full name or a dotted tail of it), and their listed members.
fn type_members(
    view: &ReferenceView,
    matched: &PackageMatch,
    type_name: &str,
    include_non_public: bool,
) -> (Vec<TypeEntry>, Vec<MemberEntry>) {
    let wanted = type_name.to_lowercase();
    let suffix = format!(".{wanted}");
    let (mut matched_types, mut members) = (Vec::new(), Vec::new());
    for index in &matched.indices {
        let loaded = &view.assemblies[*index];
        for info in &loaded.assembly.types {
            let full = info.full_name.to_lowercase();
            if !(info.display_name.to_lowercase() == wanted || full == wanted || full.ends_with(&suffix)) {
                continue;
            }
            let resolved = resolved_forwarder(view, info);
            let mut entry = TypeEntry::of(loaded, info);
            entry.resolved_in = resolved.map(|(target, _)| target.assembly.name.clone());
            let (declaring_assembly, declaring) = resolved.unwrap_or((loaded, info));
            matched_types.push(entry);
            members.extend(
                declaring
                    .members
                    .iter()
                    .filter(|member| {
                        !member.is_hidden && (include_non_public || member.accessibility.is_visible_outside())
                    })
                    .map(|member| MemberEntry {
                        name: member.name.clone(),
                        kind: member.kind.into(),
                        signature: member.signature.clone(),
                        accessibility: member.accessibility.into(),
                        is_static: member.is_static,
                        is_abstract: member.is_abstract,
                        generic_parameters: member.generic_parameters.clone(),
                        is_obsolete: member.is_obsolete,
                        xml_doc_summary: None,
                        declaring_type: declaring.full_name.clone(),
                        assembly: declaring_assembly.assembly.name.clone(),
                    }),
            );
        }
    }
    (matched_types, members)
}

/// For a facade's forwarder, the type its members live in: the target assembly's type of the
/// same full name, when the project references that assembly too.
fn resolved_forwarder<'v>(view: &'v ReferenceView, info: &TypeInfo) -> Option<(&'v LoadedAssembly, &'v TypeInfo)> {
    let target = info.forwarded_to.as_ref()?;
    view.assemblies.iter().filter(|candidate| candidate.assembly.name.eq_ignore_ascii_case(target)).find_map(
        |candidate| {
            let resolved = candidate
                .assembly
                .types
                .iter()
                .find(|other| other.forwarded_to.is_none() && other.full_name == info.full_name)?;
            Some((candidate, resolved))
        },
    )
}

/// `nugetMembers`' own miss: the matched assemblies have no such type, or the type is
/// forwarded to an assembly the project does not reference readably.
fn members_hint(
    view: &ReferenceView,
    matched: &PackageMatch,
    matched_types: &[TypeEntry],
    package_id: &str,
    type_name: &str,
) -> Option<String> {
    if let Some(forwarder) =
        matched_types.iter().find(|entry| entry.resolved_in.is_none()).and_then(|entry| entry.forwarded_to.as_deref())
    {
        return Some(format!(
            "the type is forwarded to assembly {forwarder}, which this project does not reference readably; its members are listed there"
        ));
    }
    if matched.indices.is_empty() || !matched_types.is_empty() {
        return None;
    }
    let searched: Vec<&str> =
        matched.indices.iter().map(|index| view.assemblies[*index].assembly.name.as_str()).collect();
    Some(format!(
        "no type named `{type_name}` in {} (matching is by display name or full name, case-insensitive); list its types with nugetTypes and packageId `{package_id}`",
        searched.join(", ")
    ))
}

fn type_is_listed(info: &TypeInfo, include_non_public: bool) -> bool {
    include_non_public || info.is_visible_outside
}

/// The answer: one page of `entries`, which `found` puts under the tool's own name beside what
/// the tool found, with the project and restore facts and what could not be read.
fn page_answer<Entry: Serialize + Clone, Found>(
    entries: Vec<Entry>,
    view: &ReferenceView,
    arguments: &ReferencedArguments,
    root: &Path,
    found: impl FnOnce(Vec<Entry>) -> Found,
) -> Result<ReferencedAnswer<Found>, CommandError> {
    let digest = cursor_digest(&arguments.query_identity(), &stream_identity(view));
    let offset = match &arguments.cursor {
        Some(cursor) => page_offset(cursor, &digest)?,
        None => 0,
    };
    if offset > entries.len() {
        return Err(CommandError::invalid_argument("cursor", "points past the end of the results"));
    }
    let page = paginate(&entries, offset, arguments.max_results, arguments.budget);
    // Without the restore output the package graph is a guess: never complete.
    let restored = matches!(view.references.source, RestoreSource::ProjectAssets(_));
    Ok(ReferencedAnswer {
        via: MetadataVia::Metadata,
        project: ProjectUsed { name: view.project.name.clone(), path: display_relative(root, &view.project.path) },
        target_framework: view.references.target_framework.clone(),
        restore_source: RestoreSourceUsed {
            kind: RestoreSourceKind::of(&view.references.source),
            path: view.references.source.path().map(|path| path.display().to_string()),
        },
        restore_state: if restored { RestoreState::Restored } else { RestoreState::NotRestored },
        not_restored: (!restored).then(|| not_restored(&view.project, root)),
        complete: restored && view.unreadable.is_empty(),
        unreadable_references: view.unreadable.iter().take(UNREADABLE_LIST_LIMIT).cloned().collect(),
        unreadable_references_omitted: view.unreadable.len().saturating_sub(UNREADABLE_LIST_LIMIT),
        total: entries.len(),
        returned: page.entries.len(),
        truncated: page.truncated,
        truncated_by_budget: page.truncated_by_budget,
        next_cursor: page.next_offset.map(|next| encode_cursor(next, &digest)),
        found: found(page.entries),
    })
}

fn not_restored(project: &Project, root: &Path) -> NotRestored {
    let relative = display_relative(root, &project.path);
    NotRestored {
        error_kind: NotRestoredKind::ProjectNotRestored,
        project: relative.clone(),
        message: format!(
            "{relative} has no restore output ({}), so the packages it references (FSharp.Core included) are not known; what is listed comes only from the PackageReferences found in the global packages folder and the targeting pack",
            display_relative(root, &project.directory().join("obj/project.assets.json"))
        ),
        remedy: format!("dotnet restore {relative}"),
    }
}

/// Not definite when the package did not resolve (the hint says why).
impl crate::commands::outcome::Answered for NugetTypesAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(!self.found.package.matched_assemblies.is_empty())
    }
}

/// Not definite when the package or the type did not resolve.
impl crate::commands::outcome::Answered for NugetMembersAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(
            !self.found.package.matched_assemblies.is_empty() && !self.found.matched_types.is_empty(),
        )
    }
}

/// A symbol search over the references is a definite answer.
impl crate::commands::outcome::Answered for ReferencedSymbolsAnswer {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Lookup, ReferencedArguments};
    use crate::commands::registry::Command;

    #[test]
    fn each_tool_takes_its_own_arguments() {
        let properties = |command: Command| {
            let schema = command.input_schema();
            let names: Vec<String> = schema["properties"].as_object().expect("properties").keys().cloned().collect();
            (names, schema["required"].clone())
        };
        let (symbols, required) = properties(Command::ReferencedSymbols);
        assert!(symbols.contains(&"query".to_owned()) && !symbols.contains(&"packageId".to_owned()), "{symbols:?}");
        assert_eq!(required, json!(["query"]));
        let (types, required) = properties(Command::NugetTypes);
        assert!(!types.contains(&"typeName".to_owned()) && !types.contains(&"query".to_owned()), "{types:?}");
        assert_eq!(required, json!(["packageId"]));
        assert_eq!(properties(Command::NugetMembers).1, json!(["packageId", "typeName"]));
        let refused = ReferencedArguments::parse(Command::NugetTypes, json!({"packageId": "X", "query": "Y"}));
        assert_eq!(refused.expect_err("query is not a nugetTypes argument").data()["argument"], "query");
    }

    #[test]
    fn names_are_trimmed_and_defaults_follow_the_tool() {
        let members =
            ReferencedArguments::parse(Command::NugetMembers, json!({"packageId": " A ", "typeName": "B "})).unwrap();
        assert_eq!(members.lookup, Lookup::Members { package_id: "A".to_owned(), type_name: "B".to_owned() });
        assert_eq!((members.max_results, members.budget.units, members.budget.bytes), (500, 45_000, None));
        let symbols = ReferencedArguments::parse(Command::ReferencedSymbols, json!({"query": "x"})).unwrap();
        assert_eq!(symbols.max_results, 200);
    }

    #[test]
    fn answers_read_back_as_sent() {
        use serde::Deserialize;
        let common = json!({
            "via": "metadata",
            "project": { "name": "App", "path": "src/App/App.fsproj" },
            "targetFramework": "net8.0",
            "restoreSource": { "kind": "globalPackagesFolder", "path": "/home/u/.nuget/packages" },
            "restoreState": "not_restored",
            "notRestored": {
                "errorKind": "project_not_restored", "project": "src/App/App.fsproj",
                "message": "no restore output", "remedy": "dotnet restore src/App/App.fsproj",
            },
            "complete": false,
            "unreadableReferences": [{ "name": "System.Runtime", "reason": "no targeting pack" }],
            "unreadableReferencesOmitted": 0,
            "total": 3, "returned": 1, "truncated": true, "truncatedByBudget": false, "nextCursor": "o1.abc",
        });
        let with = |found: serde_json::Value| {
            let mut answer = common.clone();
            answer.as_object_mut().unwrap().extend(found.as_object().unwrap().clone());
            answer
        };
        let type_entry = json!({
            "displayName": "List", "fullName": "Acme.List", "kind": "class", "accessibility": "protected internal",
            "isObsolete": false, "isAbstract": true, "genericParameters": ["T"], "genericConstraints": [],
            "assembly": "Acme", "packageId": "Acme", "forwardedTo": "Acme.Core", "resolvedIn": "Acme.Core",
        });
        let package = json!({
            "packageId": "acme", "matchedPackage": "Acme",
            "matchedAssemblies": [{
                "name": "Acme", "version": "1.0.0.0", "packageId": "Acme", "packageVersion": "1.0.0",
                "path": "/p/acme.dll",
            }],
        });
        let symbols = with(json!({ "query": "List", "searchedAssemblies": 4, "symbols": [type_entry] }));
        let read = super::ReferencedSymbolsAnswer::deserialize(&symbols).expect("symbols read back");
        assert_eq!(serde_json::to_value(&read).unwrap(), symbols);
        let mut types = with(package.clone());
        types["types"] = json!([type_entry]);
        let read = super::NugetTypesAnswer::deserialize(&types).expect("types read back");
        assert_eq!(serde_json::to_value(&read).unwrap(), types);
        let mut missed = with(json!({
            "packageId": "nope", "matchedPackage": null, "matchedAssemblies": [], "hint": "not a package",
            "candidatePackages": [{ "packageId": "Acme", "version": "1.0.0", "assemblies": ["Acme"] }],
            "types": [],
        }));
        missed["restoreState"] = json!("restored");
        let read = super::NugetTypesAnswer::deserialize(&missed).expect("a miss reads back");
        assert_eq!(serde_json::to_value(&read).unwrap(), missed);
        assert_eq!(crate::cli::exit_code(Command::NugetTypes, &missed), crate::cli::contract::exit_codes::NOT_DEFINITE);
        let mut members = with(package);
        members["typeName"] = json!("List");
        members["matchedTypes"] = json!([type_entry]);
        members["members"] = json!([{
            "name": "Add", "kind": "method", "signature": "Add(item: T) : unit", "accessibility": "private protected",
            "isStatic": false, "isAbstract": false, "genericParameters": [], "isObsolete": true,
            "xmlDocSummary": null, "declaringType": "Acme.List", "assembly": "Acme",
        }]);
        let read = super::NugetMembersAnswer::deserialize(&members).expect("members read back");
        assert_eq!(serde_json::to_value(&read).unwrap(), members);
        assert_eq!(crate::cli::exit_code(Command::NugetMembers, &members), crate::cli::contract::exit_codes::SUCCESS);
        let text = crate::cli::render_text(Command::NugetMembers, &members);
        assert!(text.contains("method      private protected Add(item: T) : unit obsolete"), "{text}");
    }
}
