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

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_bool, optional_integer, optional_string, reject_unknown};
use crate::commands::budget::{
    MIN_PAGE_CHAR_BUDGET, RESPONSE_CHAR_BUDGET, cursor_digest, decode_cursor, encode_cursor, paginate,
};
use crate::commands::paths::display_relative;
use crate::lsp::ext::{error_kinds, restore_states};
use crate::metadata::Assembly;
use crate::metadata::cache::load_assembly;
use crate::metadata::restore::{ReferenceSet, RestoreEnvironment, RestoreSource, resolve_references};
use crate::workspace::{Project, WorkspaceModel, load_workspace};

/// At most this many unreadable references are listed; the rest are counted.
const UNREADABLE_LIST_LIMIT: usize = 20;
/// At most this many candidate packages are offered on a miss.
const CANDIDATE_LIMIT: usize = 10;

/// Which of the three tools runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    ReferencedSymbols,
    NugetTypes,
    NugetMembers,
}

impl Tool {
    fn known_arguments(self) -> &'static [&'static str] {
        match self {
            Tool::ReferencedSymbols => {
                &["query", "projectPath", "includeNonPublic", "maxResults", "cursor", "responseCharBudget"]
            }
            Tool::NugetTypes => {
                &["packageId", "projectPath", "includeNonPublic", "maxResults", "cursor", "responseCharBudget"]
            }
            Tool::NugetMembers => &[
                "packageId",
                "typeName",
                "projectPath",
                "includeNonPublic",
                "maxResults",
                "cursor",
                "responseCharBudget",
            ],
        }
    }

    /// (default, maximum) page size, as the seed documents them.
    fn page_sizes(self) -> (u64, u64) {
        match self {
            Tool::ReferencedSymbols => (200, 1000),
            Tool::NugetTypes | Tool::NugetMembers => (500, 2000),
        }
    }
}

/// The validated arguments of one call.
#[derive(Clone, Debug)]
pub struct ReferencedArguments {
    pub tool: Tool,
    pub query: Option<String>,
    pub package_id: Option<String>,
    pub type_name: Option<String>,
    pub project_path: Option<String>,
    pub include_non_public: bool,
    pub max_results: usize,
    pub cursor: Option<String>,
    /// UTF-16 units of entries one page may hold.
    pub response_char_budget: usize,
}

fn required_text(object: &Map<String, Value>, name: &str) -> Result<String, CommandError> {
    match optional_string(object, name)? {
        Some(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Some(_) => Err(CommandError::invalid_argument(name, "must not be empty")),
        None => Err(CommandError::invalid_argument(name, "is required")),
    }
}

impl ReferencedArguments {
    pub fn from_json(tool: Tool, argument: &Value) -> Result<ReferencedArguments, CommandError> {
        let object = object_of(argument)?;
        reject_unknown(object, tool.known_arguments())?;
        let (default_size, maximum_size) = tool.page_sizes();
        Ok(ReferencedArguments {
            tool,
            query: if tool == Tool::ReferencedSymbols { Some(required_text(object, "query")?) } else { None },
            package_id: if tool == Tool::ReferencedSymbols { None } else { Some(required_text(object, "packageId")?) },
            type_name: if tool == Tool::NugetMembers { Some(required_text(object, "typeName")?) } else { None },
            project_path: optional_string(object, "projectPath")?,
            include_non_public: optional_bool(object, "includeNonPublic")?.unwrap_or(false),
            max_results: optional_integer(object, "maxResults", 1, maximum_size)?.unwrap_or(default_size) as usize,
            cursor: optional_string(object, "cursor")?,
            response_char_budget: optional_integer(
                object,
                "responseCharBudget",
                MIN_PAGE_CHAR_BUDGET,
                RESPONSE_CHAR_BUDGET as u64,
            )?
            .map_or(RESPONSE_CHAR_BUDGET, |budget| budget as usize),
        })
    }

    fn query_identity(&self) -> Value {
        json!({
            "tool": format!("{:?}", self.tool),
            "query": self.query,
            "packageId": self.package_id,
            "typeName": self.type_name,
            "projectPath": self.project_path,
            "includeNonPublic": self.include_non_public,
            "maxResults": self.max_results,
            "responseCharBudget": self.response_char_budget,
        })
    }
}

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
    unreadable: Vec<(String, String)>,
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
                    json!({ "workspaceRoot": root.display().to_string() }),
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
    let mut unreadable: Vec<(String, String)> =
        references.unreadable.iter().map(|entry| (entry.name.clone(), entry.reason.clone())).collect();
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
                Err(error) => unreadable.push((path.display().to_string(), error.to_string())),
            }
        }
    }
    Ok(ReferenceView { project, references, assemblies, unreadable })
}

/// Binds cursors to the files read: a re-restore or a changed assembly invalidates them.
fn stream_identity(view: &ReferenceView) -> String {
    let mut hasher = Sha256::new();
    for loaded in &view.assemblies {
        hasher.update(loaded.path.to_string_lossy().as_bytes());
        if let Ok(metadata) = std::fs::metadata(&loaded.path) {
            hasher.update(metadata.len().to_le_bytes());
            if let Ok(modified) = metadata.modified()
                && let Ok(since) = modified.duration_since(std::time::UNIX_EPOCH)
            {
                hasher.update(since.as_nanos().to_le_bytes());
            }
        }
    }
    crate::syntax::cache::to_hex(&hasher.finalize()[..8])
}

fn simple_name_of(loaded: &LoadedAssembly) -> &str {
    &loaded.assembly.name
}

/// The assemblies `package_id` names: a package's, else an assembly's by simple name.
/// Returns (indices, matched package, package ships no assembly).
fn match_package<'v>(view: &'v ReferenceView, package_id: &str) -> (Vec<usize>, Option<&'v str>, bool) {
    if let Some(package) = view.references.packages.iter().find(|package| package.id.eq_ignore_ascii_case(package_id)) {
        let indices = view
            .assemblies
            .iter()
            .enumerate()
            .filter(|(_, loaded)| loaded.package_id == package.id)
            .map(|(index, _)| index)
            .collect();
        return (indices, Some(package.id.as_str()), package.ships_no_assembly);
    }
    let indices = view
        .assemblies
        .iter()
        .enumerate()
        .filter(|(_, loaded)| simple_name_of(loaded).eq_ignore_ascii_case(package_id))
        .map(|(index, _)| index)
        .collect();
    (indices, None, false)
}

/// Restored package ids closest to `wanted`: shared dotted segments first, then edit distance.
fn candidate_packages(view: &ReferenceView, wanted: &str) -> Vec<Value> {
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
            json!({ "packageId": package.id, "version": package.version, "assemblies": assemblies })
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

fn type_entry(loaded: &LoadedAssembly, info: &crate::metadata::TypeInfo) -> Value {
    let mut entry = json!({
        "displayName": info.display_name,
        "fullName": info.full_name,
        "kind": info.kind,
        "accessibility": info.accessibility.as_str(),
        "isObsolete": info.is_obsolete,
        "isAbstract": info.is_abstract,
        "genericParameters": info.generic_parameters,
        "genericConstraints": info.generic_constraints,
        "assembly": loaded.assembly.name,
        "packageId": loaded.package_id,
    });
    if let Some(target) = &info.forwarded_to {
        entry["forwardedTo"] = json!(target);
    }
    entry
}

fn type_is_listed(info: &crate::metadata::TypeInfo, include_non_public: bool) -> bool {
    include_non_public || info.is_visible_outside
}

fn matched_assemblies(view: &ReferenceView, indices: &[usize]) -> Vec<Value> {
    indices
        .iter()
        .map(|index| {
            let loaded = &view.assemblies[*index];
            json!({
                "name": loaded.assembly.name,
                "version": loaded.assembly.version,
                "packageId": loaded.package_id,
                "packageVersion": loaded.package_version,
                "path": loaded.path.display().to_string(),
            })
        })
        .collect()
}

/// Runs one of the three tools over the workspace at `root`.
pub fn run(
    root: &Path,
    arguments: &ReferencedArguments,
    environment: &RestoreEnvironment,
) -> Result<Value, CommandError> {
    let view = load_view(root, arguments, environment)?;
    let mut answer = Map::new();
    let mut entries: Vec<Value> = Vec::new();
    let list_name;
    match arguments.tool {
        Tool::ReferencedSymbols => {
            list_name = "symbols";
            let needle = arguments.query.clone().unwrap_or_default().to_lowercase();
            let loaded_names: std::collections::HashSet<String> =
                view.assemblies.iter().map(|loaded| loaded.assembly.name.to_lowercase()).collect();
            for loaded in &view.assemblies {
                for info in &loaded.assembly.types {
                    // A forwarder into an assembly that is searched too would list the type twice.
                    let shadowed =
                        info.forwarded_to.as_ref().is_some_and(|target| loaded_names.contains(&target.to_lowercase()));
                    if !shadowed
                        && type_is_listed(info, arguments.include_non_public)
                        && (info.display_name.to_lowercase().contains(&needle)
                            || info.full_name.to_lowercase().contains(&needle))
                    {
                        entries.push(type_entry(loaded, info));
                    }
                }
            }
            answer.insert("query".into(), json!(arguments.query));
            answer.insert("searchedAssemblies".into(), json!(view.assemblies.len()));
        }
        Tool::NugetTypes | Tool::NugetMembers => {
            let package_id = arguments.package_id.clone().unwrap_or_default();
            let (indices, package, ships_nothing) = match_package(&view, &package_id);
            answer.insert("packageId".into(), json!(package_id));
            answer.insert("matchedPackage".into(), json!(package));
            answer.insert("matchedAssemblies".into(), json!(matched_assemblies(&view, &indices)));
            if indices.is_empty() {
                let hint = match package {
                    Some(found) if ships_nothing => format!(
                        "package {found} is restored, but contributes no compile-time reference (its compile assets are `_._` placeholders: analyzers, build or content only)"
                    ),
                    Some(found) => format!(
                        "package {found} is restored, but none of its assemblies could be read here; see unreadableReferences"
                    ),
                    None => format!(
                        "`{package_id}` is neither a package in this project's restore graph nor the simple name of an assembly it references (matching is exact, never by prefix); see candidatePackages, or use referencedSymbols to search every loaded assembly"
                    ),
                };
                answer.insert("hint".into(), json!(hint));
                if package.is_none() {
                    answer.insert("candidatePackages".into(), json!(candidate_packages(&view, &package_id)));
                }
            }
            if arguments.tool == Tool::NugetTypes {
                list_name = "types";
                for index in &indices {
                    let loaded = &view.assemblies[*index];
                    for info in &loaded.assembly.types {
                        if type_is_listed(info, arguments.include_non_public) {
                            entries.push(type_entry(loaded, info));
                        }
                    }
                }
            } else {
                list_name = "members";
                let type_name = arguments.type_name.clone().unwrap_or_default();
                let wanted = type_name.to_lowercase();
                let suffix = format!(".{wanted}");
                let mut matched_types = Vec::new();
                for index in &indices {
                    let loaded = &view.assemblies[*index];
                    for info in &loaded.assembly.types {
                        let full = info.full_name.to_lowercase();
                        if !(info.display_name.to_lowercase() == wanted || full == wanted || full.ends_with(&suffix)) {
                            continue;
                        }
                        let mut entry = type_entry(loaded, info);
                        // A facade's forwarder: the members live in the target assembly, when
                        // the project references it too.
                        let (declaring_assembly, declaring) = match &info.forwarded_to {
                            Some(target) => match view.assemblies.iter().find_map(|candidate| {
                                let resolved =
                                    candidate.assembly.name.eq_ignore_ascii_case(target).then(|| {
                                        candidate.assembly.types.iter().find(|other| {
                                            other.forwarded_to.is_none() && other.full_name == info.full_name
                                        })
                                    })??;
                                Some((candidate, resolved))
                            }) {
                                Some((candidate, resolved)) => {
                                    entry["resolvedIn"] = json!(candidate.assembly.name);
                                    (candidate, resolved)
                                }
                                None => (loaded, info),
                            },
                            None => (loaded, info),
                        };
                        matched_types.push(entry);
                        let (loaded, info) = (declaring_assembly, declaring);
                        for member in &info.members {
                            if member.is_hidden
                                || !(arguments.include_non_public || member.accessibility.is_visible_outside())
                            {
                                continue;
                            }
                            entries.push(json!({
                                "name": member.name,
                                "kind": member.kind.as_str(),
                                "signature": member.signature,
                                "accessibility": member.accessibility.as_str(),
                                "isStatic": member.is_static,
                                "isAbstract": member.is_abstract,
                                "genericParameters": member.generic_parameters,
                                "isObsolete": member.is_obsolete,
                                "xmlDocSummary": null,
                                "declaringType": info.full_name,
                                "assembly": loaded.assembly.name,
                            }));
                        }
                    }
                }
                if !indices.is_empty() && matched_types.is_empty() {
                    let searched: Vec<&str> =
                        indices.iter().map(|index| view.assemblies[*index].assembly.name.as_str()).collect();
                    answer.insert(
                        "hint".into(),
                        json!(format!(
                            "no type named `{type_name}` in {} (matching is by display name or full name, case-insensitive); list its types with nugetTypes and packageId `{package_id}`",
                            searched.join(", ")
                        )),
                    );
                }
                if let Some(forwarder) = matched_types
                    .iter()
                    .find(|entry| entry.get("resolvedIn").is_none())
                    .and_then(|entry| entry["forwardedTo"].as_str())
                {
                    answer.insert(
                        "hint".into(),
                        json!(format!(
                            "the type is forwarded to assembly {forwarder}, which this project does not reference readably; its members are listed there"
                        )),
                    );
                }
                answer.insert("typeName".into(), json!(type_name));
                answer.insert("matchedTypes".into(), json!(matched_types));
            }
        }
    }
    finish(answer, entries, list_name, &view, arguments, root)
}

fn finish(
    mut answer: Map<String, Value>,
    entries: Vec<Value>,
    list_name: &str,
    view: &ReferenceView,
    arguments: &ReferencedArguments,
    root: &Path,
) -> Result<Value, CommandError> {
    let digest = cursor_digest(&arguments.query_identity(), &stream_identity(view));
    let offset = match &arguments.cursor {
        Some(cursor) => decode_cursor(cursor, &digest)?,
        None => 0,
    };
    if offset > entries.len() {
        return Err(CommandError::invalid_argument("cursor", "points past the end of the results"));
    }
    let page = paginate(&entries, offset, arguments.max_results, arguments.response_char_budget);
    let unreadable: Vec<Value> = view
        .unreadable
        .iter()
        .take(UNREADABLE_LIST_LIMIT)
        .map(|(name, reason)| json!({ "name": name, "reason": reason }))
        .collect();
    answer.insert("via".into(), json!("metadata"));
    answer.insert(
        "project".into(),
        json!({ "name": view.project.name, "path": display_relative(root, &view.project.path) }),
    );
    answer.insert("targetFramework".into(), json!(view.references.target_framework));
    answer.insert(
        "restoreSource".into(),
        json!({
            "kind": view.references.source.kind(),
            "path": view.references.source.path().map(|path| path.display().to_string()),
        }),
    );
    // Without the restore output the package graph is a guess: never complete.
    let restored = matches!(view.references.source, RestoreSource::ProjectAssets(_));
    answer.insert(
        "restoreState".into(),
        json!(if restored { restore_states::RESTORED } else { restore_states::NOT_RESTORED }),
    );
    if !restored {
        answer.insert("notRestored".into(), not_restored(&view.project, root));
    }
    answer.insert("complete".into(), json!(restored && view.unreadable.is_empty()));
    answer.insert("unreadableReferences".into(), json!(unreadable));
    answer.insert(
        "unreadableReferencesOmitted".into(),
        json!(view.unreadable.len().saturating_sub(UNREADABLE_LIST_LIMIT)),
    );
    answer.insert("total".into(), json!(entries.len()));
    answer.insert("returned".into(), json!(page.entries.len()));
    answer.insert("truncated".into(), json!(page.truncated));
    answer.insert("truncatedByBudget".into(), json!(page.truncated_by_budget));
    answer.insert("nextCursor".into(), json!(page.next_offset.map(|next| encode_cursor(next, &digest))));
    answer.insert(list_name.into(), json!(page.entries));
    Ok(Value::Object(answer))
}

/// Why an answer for a project that was never restored cannot be complete, and the remedy.
fn not_restored(project: &Project, root: &Path) -> Value {
    let relative = display_relative(root, &project.path);
    json!({
        "errorKind": error_kinds::PROJECT_NOT_RESTORED,
        "project": relative,
        "message": format!(
            "{relative} has no restore output ({}), so the packages it references (FSharp.Core included) are not known; what is listed comes only from the PackageReferences found in the global packages folder and the targeting pack",
            display_relative(root, &project.directory().join("obj/project.assets.json"))
        ),
        "remedy": format!("dotnet restore {relative}"),
    })
}

/// The flags of `fslens referenced-symbols QUERY`.
#[derive(clap::Args, Clone, Debug)]
pub struct ReferencedSymbolsCliArgs {
    /// Substring of a type's name or full name (case-insensitive).
    pub query: String,
    #[command(flatten)]
    pub common: CommonCliArgs,
}

/// The flags of `fslens nuget-types PACKAGE`.
#[derive(clap::Args, Clone, Debug)]
pub struct NugetTypesCliArgs {
    /// A package id or an assembly's simple name (exact, case-insensitive).
    pub package_id: String,
    #[command(flatten)]
    pub common: CommonCliArgs,
}

/// The flags of `fslens nuget-members PACKAGE TYPE`.
#[derive(clap::Args, Clone, Debug)]
pub struct NugetMembersCliArgs {
    /// A package id or an assembly's simple name (exact, case-insensitive).
    pub package_id: String,
    /// The type: display name, full name or a dotted tail of it.
    pub type_name: String,
    #[command(flatten)]
    pub common: CommonCliArgs,
}

/// Flags shared by the three subcommands.
#[derive(clap::Args, Clone, Debug)]
pub struct CommonCliArgs {
    /// A project (.fsproj path or name); default: the first project of the workspace.
    #[arg(long)]
    pub project: Option<String>,
    /// Include internal and private types and members.
    #[arg(long)]
    pub include_non_public: bool,
    /// At most this many entries per page.
    #[arg(long)]
    pub max_results: Option<u64>,
    /// Continue from a previous answer's nextCursor.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Print the JSON answer instead of a table.
    #[arg(long)]
    pub json: bool,
}

impl CommonCliArgs {
    fn fill(&self, arguments: &mut Map<String, Value>) {
        if let Some(project) = &self.project {
            arguments.insert("projectPath".into(), json!(project));
        }
        if self.include_non_public {
            arguments.insert("includeNonPublic".into(), json!(true));
        }
        if let Some(max_results) = self.max_results {
            arguments.insert("maxResults".into(), json!(max_results));
        }
        if let Some(cursor) = &self.cursor {
            arguments.insert("cursor".into(), json!(cursor));
        }
    }
}

impl ReferencedSymbolsCliArgs {
    pub fn to_arguments(&self) -> Value {
        let mut arguments = Map::new();
        arguments.insert("query".into(), json!(self.query));
        self.common.fill(&mut arguments);
        Value::Object(arguments)
    }
}

impl NugetTypesCliArgs {
    pub fn to_arguments(&self) -> Value {
        let mut arguments = Map::new();
        arguments.insert("packageId".into(), json!(self.package_id));
        self.common.fill(&mut arguments);
        Value::Object(arguments)
    }
}

impl NugetMembersCliArgs {
    pub fn to_arguments(&self) -> Value {
        let mut arguments = Map::new();
        arguments.insert("packageId".into(), json!(self.package_id));
        arguments.insert("typeName".into(), json!(self.type_name));
        self.common.fill(&mut arguments);
        Value::Object(arguments)
    }
}

/// Runs a subcommand in-process: the files are read directly, no session or FSAC is needed.
pub fn run_cli(tool: Tool, argument: &Value, workspace: &Path) -> anyhow::Result<Value> {
    let arguments = ReferencedArguments::from_json(tool, argument)
        .map_err(|error| anyhow::anyhow!("{error} ({})", error.data()))?;
    run(workspace, &arguments, &RestoreEnvironment::from_process())
        .map_err(|error| anyhow::anyhow!("{error} ({})", error.data()))
}

/// A plain-text rendering of any of the three answers.
pub fn render_text(answer: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![format!(
        "project {} ({}), restore: {}, via metadata; {} of {} shown{}",
        text(&answer["project"]["name"]),
        text(&answer["targetFramework"]),
        text(&answer["restoreSource"]["kind"]),
        answer["returned"],
        answer["total"],
        match (answer["complete"] == json!(true), answer["restoreState"].as_str()) {
            (true, _) => "",
            (false, Some(restore_states::NOT_RESTORED)) => "; INCOMPLETE: the project was never restored",
            (false, _) => "; INCOMPLETE: some references unreadable",
        },
    )];
    if let Some(not_restored) = answer.get("notRestored") {
        lines.push(format!("not restored: {}", text(&not_restored["message"])));
        lines.push(format!("remedy: {}", text(&not_restored["remedy"])));
    }
    if let Some(hint) = answer["hint"].as_str() {
        lines.push(format!("hint: {hint}"));
    }
    for candidate in answer["candidatePackages"].as_array().into_iter().flatten() {
        lines.push(format!("  candidate: {} {}", text(&candidate["packageId"]), text(&candidate["version"])));
    }
    for entry in answer["types"].as_array().or(answer["symbols"].as_array()).into_iter().flatten() {
        lines.push(format!(
            "{:<10} {:<9} {}  [{}]{}",
            text(&entry["kind"]),
            text(&entry["accessibility"]),
            text(&entry["fullName"]),
            text(&entry["assembly"]),
            if entry["isObsolete"] == json!(true) { " obsolete" } else { "" }
        ));
    }
    for entry in answer["members"].as_array().into_iter().flatten() {
        lines.push(format!(
            "{:<11} {:<9} {}{}",
            text(&entry["kind"]),
            text(&entry["accessibility"]),
            text(&entry["signature"]),
            if entry["isObsolete"] == json!(true) { " obsolete" } else { "" }
        ));
    }
    for unreadable in answer["unreadableReferences"].as_array().into_iter().flatten() {
        lines.push(format!("unreadable: {}: {}", text(&unreadable["name"]), text(&unreadable["reason"])));
    }
    if let Some(cursor) = answer["nextCursor"].as_str() {
        lines.push(format!("more: --cursor {cursor}"));
    }
    lines.join("\n")
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema(_tool: Tool) -> Option<serde_json::Value> {
    None
}
