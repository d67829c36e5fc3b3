//! Reading one `.fsproj`: properties (unconditional, last one wins), `Compile` items in order
//! (with `CompileBefore`/`CompileAfter`, `Link`, wildcards, `Exclude` and `Remove`),
//! `ProjectReference`s, target framework(s) and `PackageReference`s.
//!
//! This is a static reading, not an MSBuild evaluation: `Condition`s are not evaluated (every
//! item counts), imports (`Directory.Build.props`, targets) are not followed, and only simple
//! `$(Property)` references are substituted. What could not be resolved is listed in
//! `problems`, so a caller can say the model is approximate instead of silently wrong.
//!
//! What makes the project fail to build as written — a file that is not well-formed XML
//! (MSBuild refuses it), a `Compile` item naming a file that does not exist (the compiler's
//! FS0225) — is also in `errors`, typed and with the file at fault, so that no verdict over
//! such a project can be `clean`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::workspace::paths::{expand_wildcard, has_wildcard, path_matches, resolve_msbuild_path};
use crate::workspace::xml::{XmlElement, local_name, parse_xml};

/// One file compiled by a project, in compile order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileItem {
    pub path: PathBuf,
    /// The `Include` as written (after property substitution).
    pub include: String,
    /// The `Link` metadata (where the file appears in the project), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    pub exists: bool,
    /// True when the item came from a wildcard.
    pub from_wildcard: bool,
    /// The MSBuild `Condition` on the item (else on its `ItemGroup`), as written: not
    /// evaluated here (the item counts), read where a command needs to know whether the file
    /// is compiled in the configuration FSAC loads ([`crate::workspace::defines`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// A `PackageReference`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageReference {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// Why a project cannot be built as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectErrorKind {
    /// The project file is not well-formed XML.
    ProjectFileMalformed,
    /// A `Compile` item (not a wildcard) names a file that does not exist.
    CompileItemMissing,
}

/// One reason a project cannot be built as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectError {
    pub kind: ProjectErrorKind,
    /// What is wrong: the XML parser's words, or a sentence naming the missing file.
    pub message: String,
    /// The file at fault: the project file itself, or the missing compile item.
    pub file: PathBuf,
    /// Where a malformed file stops being XML (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// One project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub path: PathBuf,
    pub name: String,
    pub target_frameworks: Vec<String>,
    pub compile_items: Vec<CompileItem>,
    /// Referenced project files, resolved and normalised.
    pub project_references: Vec<PathBuf>,
    pub package_references: Vec<PackageReference>,
    /// The `IsTestProject` property as written (`true`/`false`), when the project sets it.
    pub is_test_project: Option<bool>,
    pub problems: Vec<String>,
    /// What makes the project fail to build as written (also described in `problems`).
    pub errors: Vec<ProjectError>,
}

impl Project {
    pub fn directory(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new(""))
    }

    /// True when `path` is one of this project's compile items.
    pub fn compiles(&self, path: &Path) -> bool {
        self.compile_items.iter().any(|item| item.path == path)
    }
}

/// Reads a project file from disk. A missing or unreadable file is an error; malformed
/// content is not (it yields a project without items, with the reason in `errors`).
pub fn read_project(path: &Path) -> anyhow::Result<Project> {
    use anyhow::Context;
    let bytes = std::fs::read(path).with_context(|| format!("reading project {}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(parse_project(path, &text))
}

/// Interprets project XML as if it were at `path`.
pub fn parse_project(path: &Path, text: &str) -> Project {
    let directory = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let name = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let empty = |problem: String, error: Option<ProjectError>| Project {
        path: path.to_path_buf(),
        name: name.clone(),
        target_frameworks: Vec::new(),
        compile_items: Vec::new(),
        project_references: Vec::new(),
        package_references: Vec::new(),
        is_test_project: None,
        problems: vec![problem],
        errors: error.into_iter().collect(),
    };
    let document = match parse_xml(text) {
        Ok(document) => document,
        Err(error) => {
            let project_error = ProjectError {
                kind: ProjectErrorKind::ProjectFileMalformed,
                message: error.message.clone(),
                file: path.to_path_buf(),
                line: Some(error.line),
                column: Some(error.column),
            };
            return empty(format!("{}: {error}", path.display()), Some(project_error));
        }
    };
    let mut problems = Vec::new();
    let Some(root) = document.children.iter().find(|element| local_name(&element.name).eq_ignore_ascii_case("Project"))
    else {
        return empty("no <Project> element".to_owned(), None);
    };

    let properties = project_properties(root, &directory, &name);
    let target_frameworks = target_frameworks_of(&properties);
    let items = read_items(root, &directory, &properties, &mut problems);
    let is_test_project = is_test_project_of(&properties);
    let ItemLists { before, main, after, project_references, package_references } = items;
    let mut compile_items = before;
    compile_items.extend(main);
    compile_items.extend(after);
    let errors = missing_compile_items(path, &compile_items, &mut problems);
    Project {
        path: path.to_path_buf(),
        name,
        target_frameworks,
        compile_items,
        project_references,
        package_references,
        is_test_project,
        problems,
        errors,
    }
}

/// The project's properties (names lower-cased), MSBuild's own directory and name properties
/// first, each `PropertyGroup` read in order with `$(...)` substituted.
fn project_properties(root: &XmlElement, directory: &Path, name: &str) -> HashMap<String, String> {
    let mut properties: HashMap<String, String> = HashMap::new();
    let mut directory_text = directory.to_string_lossy().into_owned();
    if !directory_text.ends_with('/') {
        directory_text.push('/');
    }
    properties.insert("msbuildprojectdirectory".to_owned(), directory_text.trim_end_matches('/').to_owned());
    properties.insert("msbuildthisfiledirectory".to_owned(), directory_text.clone());
    properties.insert("msbuildprojectname".to_owned(), name.to_owned());
    for group in root.children_named("PropertyGroup") {
        for property in &group.children {
            let value = substitute(&property.text, &properties, &mut Vec::new());
            properties.insert(local_name(&property.name).to_ascii_lowercase(), value);
        }
    }
    properties
}

/// `TargetFrameworks` then `TargetFramework`, each framework once, in order.
fn target_frameworks_of(properties: &HashMap<String, String>) -> Vec<String> {
    let mut target_frameworks = Vec::new();
    for key in ["targetframeworks", "targetframework"] {
        if let Some(value) = properties.get(key) {
            for framework in value.split(';').map(str::trim).filter(|value| !value.is_empty()) {
                if !target_frameworks.iter().any(|existing: &String| existing == framework) {
                    target_frameworks.push(framework.to_owned());
                }
            }
        }
    }
    target_frameworks
}

/// `IsTestProject` when it says `true` or `false`.
fn is_test_project_of(properties: &HashMap<String, String>) -> Option<bool> {
    properties.get("istestproject").map(|value| value.trim()).and_then(|value| {
        match value.to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    })
}

/// The items of a project's `ItemGroup`s: compile items by list (`CompileBefore`, `Compile`,
/// `CompileAfter`), project and package references.
#[derive(Default)]
struct ItemLists {
    before: Vec<CompileItem>,
    main: Vec<CompileItem>,
    after: Vec<CompileItem>,
    project_references: Vec<PathBuf>,
    package_references: Vec<PackageReference>,
}

/// Reads every `ItemGroup` in order (an item's `Remove` applies to what its list holds so far).
fn read_items(
    root: &XmlElement,
    directory: &Path,
    properties: &HashMap<String, String>,
    problems: &mut Vec<String>,
) -> ItemLists {
    let mut items = ItemLists::default();
    for group in root.children_named("ItemGroup") {
        for item in &group.children {
            let item_name = local_name(&item.name).to_ascii_lowercase();
            let include = item.attribute("Include").map(|value| substitute(value, properties, problems));
            let remove = item.attribute("Remove").map(|value| substitute(value, properties, problems));
            match item_name.as_str() {
                "compile" | "compilebefore" | "compileafter" => {
                    let list = match item_name.as_str() {
                        "compilebefore" => &mut items.before,
                        "compileafter" => &mut items.after,
                        _ => &mut items.main,
                    };
                    if let Some(include) = include {
                        add_compile_item(list, group, item, directory, &include, properties, problems);
                    }
                    if let Some(remove) = remove {
                        for pattern in remove.split(';').map(str::trim).filter(|value| !value.is_empty()) {
                            list.retain(|existing: &CompileItem| !path_matches(directory, pattern, &existing.path));
                        }
                    }
                }
                "projectreference" => {
                    if let Some(include) = include {
                        for written in include.split(';').map(str::trim).filter(|value| !value.is_empty()) {
                            let resolved = resolve_msbuild_path(directory, written);
                            if !items.project_references.contains(&resolved) {
                                items.project_references.push(resolved);
                            }
                        }
                    }
                }
                "packagereference" => {
                    let package = include.or_else(|| item.attribute("Update").map(str::to_owned));
                    if let Some(package) = package.filter(|value| !value.trim().is_empty()) {
                        let version = item
                            .attribute("Version")
                            .map(str::to_owned)
                            .or_else(|| item.child_text("Version").map(str::to_owned))
                            .filter(|value| !value.is_empty());
                        items.package_references.push(PackageReference { name: package.trim().to_owned(), version });
                    }
                }
                _ => {}
            }
        }
    }
    items
}

/// One `Compile` (or `CompileBefore`/`CompileAfter`) item with an `Include`: its files (with
/// `Exclude` and `Link`) added to `list`, each carrying the item's or its group's `Condition`.
fn add_compile_item(
    list: &mut Vec<CompileItem>,
    group: &XmlElement,
    item: &XmlElement,
    directory: &Path,
    include: &str,
    properties: &HashMap<String, String>,
    problems: &mut Vec<String>,
) {
    let exclude = item.attribute("Exclude").map(|value| substitute(value, properties, problems));
    let link = item
        .attribute("Link")
        .map(str::to_owned)
        .or_else(|| item.child_text("Link").map(str::to_owned))
        .map(|link| substitute(&link, properties, problems));
    let condition = item.attribute("Condition").or_else(|| group.attribute("Condition")).map(str::to_owned);
    let start = list.len();
    add_compile_items(list, directory, include, exclude.as_deref(), link);
    for added in &mut list[start..] {
        added.condition = condition.clone();
    }
}

/// A problem and an error for each compile item whose file does not exist.
fn missing_compile_items(path: &Path, compile_items: &[CompileItem], problems: &mut Vec<String>) -> Vec<ProjectError> {
    let mut errors = Vec::new();
    for item in compile_items {
        if !item.exists {
            problems.push(format!("compile item not found: {}", item.path.display()));
            errors.push(ProjectError {
                kind: ProjectErrorKind::CompileItemMissing,
                message: format!(
                    "{} compiles {} (`<Compile Include=\"{}\">`), which does not exist",
                    path.display(),
                    item.path.display(),
                    item.include
                ),
                file: item.path.clone(),
                line: None,
                column: None,
            });
        }
    }
    errors
}

fn add_compile_items(
    list: &mut Vec<CompileItem>,
    directory: &Path,
    include: &str,
    exclude: Option<&str>,
    link: Option<String>,
) {
    let excluded = |path: &Path| {
        exclude.is_some_and(|exclude| {
            exclude
                .split(';')
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .any(|pattern| path_matches(directory, pattern, path))
        })
    };
    for written in include.split(';').map(str::trim).filter(|value| !value.is_empty()) {
        if has_wildcard(written) {
            for path in expand_wildcard(directory, written) {
                if excluded(&path)
                    || !crate::workspace::paths::is_fsharp_source(&path)
                    || list.iter().any(|item| item.path == path)
                {
                    continue;
                }
                list.push(CompileItem {
                    path,
                    include: written.to_owned(),
                    link: None,
                    exists: true,
                    from_wildcard: true,
                    condition: None,
                });
            }
        } else {
            let path = resolve_msbuild_path(directory, written);
            if excluded(&path) {
                continue;
            }
            let exists = path.is_file();
            list.push(CompileItem {
                path,
                include: written.to_owned(),
                link: link.clone(),
                exists,
                from_wildcard: false,
                condition: None,
            });
        }
    }
}

/// Replaces `$(Name)` with known properties (case-insensitive); unknown ones are kept and
/// reported.
fn substitute(text: &str, properties: &HashMap<String, String>, problems: &mut Vec<String>) -> String {
    if !text.contains("$(") {
        return text.to_owned();
    }
    let mut output = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("$(") {
        output.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else {
            output.push_str(&rest[start..]);
            return output;
        };
        let name = &after[..end];
        match properties.get(&name.to_ascii_lowercase()) {
            Some(value) => output.push_str(value),
            None => {
                problems.push(format!("unresolved property $({name})"));
                output.push_str(&rest[start..start + 2 + end + 1]);
            }
        }
        rest = &after[end + 1..];
    }
    output.push_str(rest);
    output
}
