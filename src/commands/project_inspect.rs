//! `fslens.projectInspect`: the project model FSAC loaded, per project — compile order, project
//! and package references, the target framework it chose among those declared, configuration,
//! output type, test project or not, restore state, defines — read from FSAC's
//! `fsharp/notifyWorkspace` `project` and `error` payloads (docs/fsac-protocol.md §4, kept by
//! `src/proxy/readiness.rs`), next to fslens's own static reading of the project files
//! (`src/workspace`), with every difference between the two named.
//!
//! The defines are not in FSAC's payload: they are derived for the target framework FSAC chose
//! the way `src/workspace/defines.rs` does, and marked so. Without a ready FSAC the answer is
//! fslens's reading alone, `via: "projectFiles"`, and says why FSAC's model is unavailable.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::params::{CommandArguments, TimeoutMs};
use crate::commands::paths::{display_relative, project_by_name_or_path};
use crate::commands::{CommandContext, CommandError};
use crate::session_state::status::{LoadedConfiguration, State, StatusSnapshot, TEST_PROJECT_PACKAGES};
use crate::workspace::Project;
use crate::workspace::defines::{compile_condition_holds, project_defines};

/// The arguments of `fslens.projectInspect` (and the flags of `fslens project-inspect`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectInspectArguments {
    /// Only this project (its name, or its `.fsproj` relative to the workspace root or
    /// absolute inside it); default: every project of the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub project_path: Option<String>,
    /// How long to wait for FSAC to finish loading the workspace, in milliseconds; past it the
    /// answer is the project files' reading alone.
    #[serde(default)]
    #[arg(long, default_value_t)]
    pub timeout_ms: TimeoutMs<60_000>,
}

impl CommandArguments for ProjectInspectArguments {
    fn validate(&self) -> Result<(), CommandError> {
        if self.project_path.as_deref().is_some_and(|value| value.trim().is_empty()) {
            return Err(CommandError::invalid_argument("projectPath", "must not be empty"));
        }
        Ok(())
    }
}

/// Where the answer's model came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InspectVia {
    /// FSAC's `project` payloads (and fslens's reading beside them).
    Fsac,
    /// fslens's reading of the project files alone: FSAC's model was unavailable.
    ProjectFiles,
}

/// Whether FSAC's model could be read, and why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FsacModelState {
    pub available: bool,
    pub state: Option<State>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A package reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageRow {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The project as FSAC loaded it (its `project` payload).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FsacProjectModel {
    /// `Info.TargetFramework`: the framework FSAC loaded.
    pub target_framework: Option<String>,
    /// `Info.TargetFrameworks`: every framework the project declares.
    pub target_frameworks: Vec<String>,
    /// Why that framework (FSAC loads one framework of a multi-targeted project).
    pub target_framework_choice: String,
    /// `Info.Configuration`.
    pub configuration: Option<String>,
    /// `Files`: the compile order, relative to the workspace root.
    pub files: Vec<String>,
    /// `ProjectReferences[].ProjectFileName`, relative to the workspace root.
    pub project_references: Vec<String>,
    /// `PackageReferences` (the SDK's implicit ones, such as FSharp.Core, included).
    pub package_references: Vec<PackageRow>,
    /// `Output`: the assembly it builds.
    pub output: Option<String>,
    /// `OutputType`.
    pub output_type: Option<String>,
    /// `Info.IsTestProject`, as MSBuild evaluated it.
    pub is_test_project: Option<bool>,
    /// Whether it references a test platform package, which is what FSAC's test explorer
    /// looks for.
    pub references_test_platform: bool,
    /// `Info.RestoreSuccess`.
    pub restore_success: Option<bool>,
    /// The conditional-compilation symbols for the loaded framework and configuration:
    /// derived by fslens (the payload carries no compiler options), see `definesVia`.
    pub defines: Vec<String>,
    pub defines_via: DefinesVia,
}

/// How the defines were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DefinesVia {
    /// Put together by fslens as the .NET SDK would (compiler, configuration, framework and
    /// `DefineConstants` symbols): not read from the compiler's command line.
    Derived,
}

/// FSAC's load error for a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FsacLoadError {
    /// FSAC's code: 100 not restored, 101 unreadable, 102 not found.
    pub code: Option<i64>,
    pub message: String,
}

/// One compile item as fslens reads the project file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileRow {
    pub file: String,
    pub exists: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Whether fslens finds the condition true for the configuration FSAC loads (`null`: it
    /// cannot evaluate it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition_holds: Option<bool>,
}

/// The project as fslens reads its file (no MSBuild evaluation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectFilesModel {
    pub target_frameworks: Vec<String>,
    pub compile_items: Vec<CompileRow>,
    pub project_references: Vec<String>,
    pub package_references: Vec<PackageRow>,
    /// The `IsTestProject` property as written.
    pub is_test_project: Option<bool>,
    pub references_test_platform: bool,
    /// Whether `obj/project.assets.json` exists beside the project (a restore wrote it).
    pub restored: bool,
    pub defines: Vec<String>,
    pub problems: Vec<String>,
}

/// What differs between FSAC's model and fslens's reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DifferenceKind {
    FileOnlyInFsac,
    FileOnlyInProjectFiles,
    CompileOrderDiffers,
    ProjectReferenceOnlyInFsac,
    ProjectReferenceOnlyInProjectFiles,
    PackageReferenceOnlyInFsac,
    PackageReferenceOnlyInProjectFiles,
    TargetFrameworksDiffer,
    TestProjectDiffers,
}

/// One named difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelDifference {
    pub kind: DifferenceKind,
    /// The file, project or package concerned.
    pub subject: String,
    /// Why, as far as fslens can tell.
    pub detail: String,
}

/// One project of the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectedProject {
    pub project: String,
    pub name: String,
    /// FSAC's model (`null` when it has none: see `fsacError` and the answer's `fsacModel`).
    pub fsac: Option<FsacProjectModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsac_error: Option<FsacLoadError>,
    pub project_files: ProjectFilesModel,
    /// Empty when FSAC's model is not known (nothing was compared) or both agree.
    pub differences: Vec<ModelDifference>,
    /// False when FSAC said nothing about this project.
    pub compared: bool,
}

/// The answer of `fslens.projectInspect`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInspectAnswer {
    pub via: InspectVia,
    pub fsac_model: FsacModelState,
    pub projects: Vec<InspectedProject>,
    /// True when FSAC's model of every project was compared with the project files.
    pub complete: bool,
    pub limits: Vec<String>,
}

const LIMITS: [&str; 2] = [
    "fslens's reading is static: MSBuild properties other than $(TargetFramework), $(Configuration) and \
     $(Platform) and imported .props/.targets (beyond Directory.Build.props for defines) are not evaluated",
    "FSAC's defines are derived, not read: the project payload carries no compiler options",
];

pub async fn project_inspect(
    arguments: ProjectInspectArguments,
    mut context: CommandContext,
) -> Result<ProjectInspectAnswer, CommandError> {
    let deadline = tokio::time::Instant::now() + arguments.timeout_ms.as_duration_ms();
    let root = context.workspace_root()?.to_path_buf();
    let model = crate::commands::load_workspace_model(&root).await?;
    crate::commands::refuse_without_projects(&model)?;
    let projects: Vec<&Project> = match &arguments.project_path {
        Some(written) => vec![project_by_name_or_path(&model, &root, written)?],
        None => model.projects.iter().collect(),
    };
    let status = context.status_when_ready(deadline).await?;
    let display = |path: &Path| display_relative(&root, path);
    let ready = status.state == State::Ready;
    let fsac_model = FsacModelState {
        available: ready,
        state: Some(status.state),
        reason: (!ready).then(|| {
            let why = status.reason.clone().unwrap_or_else(|| "FSAC is not running".to_owned());
            format!(
                "FSAC's model is unavailable: FSAC is {} ({why}); the project files' reading is shown",
                status.state.as_str()
            )
        }),
    };
    let inspected: Vec<InspectedProject> =
        projects.iter().map(|project| inspect(project, ready.then_some(&status), &display)).collect();
    let mut limits: Vec<String> = LIMITS.iter().map(|limit| (*limit).to_owned()).collect();
    for project in inspected.iter().filter(|project| ready && !project.compared) {
        limits.push(format!("FSAC said nothing about {}: it is not among the projects it loaded", project.project));
    }
    Ok(ProjectInspectAnswer {
        via: if ready { InspectVia::Fsac } else { InspectVia::ProjectFiles },
        complete: ready && inspected.iter().all(|project| project.compared),
        fsac_model,
        projects: inspected,
        limits,
    })
}

/// The same file, whatever the spelling of its path.
fn same_file(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| crate::workspace::paths::normalize_lexically(path))
}

fn references_test_platform<'a>(mut names: impl Iterator<Item = &'a str>) -> bool {
    names.any(|name| TEST_PROJECT_PACKAGES.iter().any(|package| package.eq_ignore_ascii_case(name)))
}

fn project_files_model(project: &Project, display: &dyn Fn(&Path) -> String) -> ProjectFilesModel {
    ProjectFilesModel {
        target_frameworks: project.target_frameworks.clone(),
        compile_items: project
            .compile_items
            .iter()
            .map(|item| CompileRow {
                file: display(&item.path),
                exists: item.exists,
                condition: item.condition.clone(),
                condition_holds: item
                    .condition
                    .as_deref()
                    .and_then(|condition| compile_condition_holds(condition, project)),
            })
            .collect(),
        project_references: project.project_references.iter().map(|path| display(path)).collect(),
        package_references: project
            .package_references
            .iter()
            .map(|package| PackageRow { name: package.name.clone(), version: package.version.clone() })
            .collect(),
        is_test_project: project.is_test_project,
        references_test_platform: references_test_platform(
            project.package_references.iter().map(|package| package.name.as_str()),
        ),
        restored: project.directory().join("obj").join("project.assets.json").is_file(),
        defines: project_defines(project).into_iter().collect(),
        problems: project.problems.clone(),
    }
}

fn fsac_model(project: &Project, loaded: &LoadedConfiguration, display: &dyn Fn(&Path) -> String) -> FsacProjectModel {
    let mut as_loaded = project.clone();
    if let Some(framework) = &loaded.target_framework {
        as_loaded.target_frameworks = vec![framework.clone()];
    }
    let choice = match (&loaded.target_framework, loaded.target_frameworks.as_slice()) {
        (None, _) => "FSAC's payload names no target framework".to_owned(),
        (Some(framework), [only]) if only == framework => format!("{framework} is the project's only target framework"),
        (Some(framework), [first, ..]) if first == framework => {
            format!("{framework}: FSAC loads the first of TargetFrameworks ({})", loaded.target_frameworks.join(";"))
        }
        (Some(framework), _) => {
            format!("FSAC loaded {framework} (TargetFrameworks: {})", loaded.target_frameworks.join(";"))
        }
    };
    FsacProjectModel {
        target_framework: loaded.target_framework.clone(),
        target_frameworks: loaded.target_frameworks.clone(),
        target_framework_choice: choice,
        configuration: loaded.configuration.clone(),
        files: loaded.files.iter().flatten().map(|file| display(Path::new(file))).collect(),
        project_references: loaded.project_references.iter().map(|path| display(Path::new(path))).collect(),
        package_references: loaded
            .package_references
            .iter()
            .enumerate()
            .map(|(slot, name)| PackageRow {
                name: name.clone(),
                version: loaded.package_versions.get(slot).cloned().flatten(),
            })
            .collect(),
        output: loaded.output.as_deref().map(|output| display(Path::new(output))),
        output_type: loaded.output_type.clone(),
        is_test_project: loaded.is_test_project_property,
        references_test_platform: loaded.is_test_project(),
        restore_success: loaded.restore_success,
        defines: project_defines(&as_loaded).into_iter().collect(),
        defines_via: DefinesVia::Derived,
    }
}

fn inspect(project: &Project, status: Option<&StatusSnapshot>, display: &dyn Fn(&Path) -> String) -> InspectedProject {
    let key = project.path.display().to_string();
    let loaded = status.and_then(|status| status.loaded_configuration(&key));
    let error = status.and_then(|status| status.project_error(&key));
    let project_files = project_files_model(project, display);
    let differences = loaded.map(|loaded| differences(project, loaded, display)).unwrap_or_default();
    InspectedProject {
        project: display(&project.path),
        name: project.name.clone(),
        fsac: loaded.map(|loaded| fsac_model(project, loaded, display)),
        fsac_error: error.map(|error| FsacLoadError { code: error.code, message: error.message.clone() }),
        project_files,
        differences,
        compared: loaded.is_some() || error.is_some(),
    }
}

/// Every difference between FSAC's `loaded` model and fslens's reading of `project`.
fn differences(
    project: &Project,
    loaded: &LoadedConfiguration,
    display: &dyn Fn(&Path) -> String,
) -> Vec<ModelDifference> {
    let mut found = file_differences(project, loaded, display);
    found.extend(reference_differences(project, loaded, display));
    if !loaded.target_frameworks.is_empty() && loaded.target_frameworks != project.target_frameworks {
        found.push(ModelDifference {
            kind: DifferenceKind::TargetFrameworksDiffer,
            subject: display(&project.path),
            detail: format!(
                "FSAC: {}; the project file: {}",
                loaded.target_frameworks.join(";"),
                if project.target_frameworks.is_empty() {
                    "none read".to_owned()
                } else {
                    project.target_frameworks.join(";")
                }
            ),
        });
    }
    if let (Some(fsac), Some(own)) = (loaded.is_test_project_property, project.is_test_project)
        && fsac != own
    {
        found.push(ModelDifference {
            kind: DifferenceKind::TestProjectDiffers,
            subject: display(&project.path),
            detail: format!("IsTestProject is {fsac} for MSBuild and written {own} in the project file"),
        });
    }
    found
}

/// The compile items only one side has, and the first place their common files' order differs.
fn file_differences(
    project: &Project,
    loaded: &LoadedConfiguration,
    display: &dyn Fn(&Path) -> String,
) -> Vec<ModelDifference> {
    let mut found = Vec::new();
    let fsac_files: Vec<PathBuf> = loaded.files.iter().flatten().map(|file| same_file(Path::new(file))).collect();
    let own_files: Vec<PathBuf> = project.compile_items.iter().map(|item| same_file(&item.path)).collect();
    let fsac_set: HashSet<&PathBuf> = fsac_files.iter().collect();
    let own_set: HashSet<&PathBuf> = own_files.iter().collect();
    for file in fsac_files.iter().filter(|file| !own_set.contains(file)) {
        let generated = file.components().any(|component| component.as_os_str() == "obj");
        found.push(ModelDifference {
            kind: DifferenceKind::FileOnlyInFsac,
            subject: display(file),
            detail: if generated {
                "FSAC compiles it and the project file names no Compile item for it: generated by the build (under obj/)"
                    .to_owned()
            } else {
                "FSAC compiles it and fslens's reading of the project file has no Compile item for it (an import, a \
                 property or a wildcard fslens does not evaluate)"
                    .to_owned()
            },
        });
    }
    for (item, file) in project.compile_items.iter().zip(&own_files) {
        if fsac_set.contains(file) {
            continue;
        }
        let detail = match (
            &item.condition,
            item.condition.as_deref().and_then(|condition| compile_condition_holds(condition, project)),
        ) {
            (Some(condition), Some(false)) => format!(
                "the project file compiles it only when {condition}, which does not hold for the configuration FSAC \
                 loaded ({})",
                loaded.target_framework.as_deref().unwrap_or("its target framework")
            ),
            (Some(condition), _) => {
                format!("the project file compiles it when {condition}; FSAC's configuration does not")
            }
            (None, _) if !item.exists => "the project file names it but it does not exist".to_owned(),
            (None, _) => "the project file names it and FSAC does not compile it".to_owned(),
        };
        found.push(ModelDifference {
            kind: DifferenceKind::FileOnlyInProjectFiles,
            subject: display(&item.path),
            detail,
        });
    }
    let common_fsac: Vec<&PathBuf> = fsac_files.iter().filter(|file| own_set.contains(file)).collect();
    let common_own: Vec<&PathBuf> = own_files.iter().filter(|file| fsac_set.contains(file)).collect();
    if let Some(slot) = common_fsac.iter().zip(&common_own).position(|(fsac, own)| fsac != own) {
        found.push(ModelDifference {
            kind: DifferenceKind::CompileOrderDiffers,
            subject: display(common_fsac[slot]),
            detail: format!(
                "FSAC compiles {} where the project file has {} (position {} of the files both have)",
                display(common_fsac[slot]),
                display(common_own[slot]),
                slot + 1
            ),
        });
    }
    found
}

/// The project and package references only one side has.
fn reference_differences(
    project: &Project,
    loaded: &LoadedConfiguration,
    display: &dyn Fn(&Path) -> String,
) -> Vec<ModelDifference> {
    let mut found = Vec::new();
    let fsac_references: Vec<PathBuf> =
        loaded.project_references.iter().map(|reference| same_file(Path::new(reference))).collect();
    let own_references: Vec<PathBuf> =
        project.project_references.iter().map(|reference| same_file(reference)).collect();
    for reference in fsac_references.iter().filter(|reference| !own_references.contains(reference)) {
        found.push(ModelDifference {
            kind: DifferenceKind::ProjectReferenceOnlyInFsac,
            subject: display(reference),
            detail: "FSAC's model references it; fslens's reading of the project file does not".to_owned(),
        });
    }
    for reference in own_references.iter().filter(|reference| !fsac_references.contains(reference)) {
        found.push(ModelDifference {
            kind: DifferenceKind::ProjectReferenceOnlyInProjectFiles,
            subject: display(reference),
            detail: "the project file references it; FSAC's model does not".to_owned(),
        });
    }
    let own_packages: Vec<String> =
        project.package_references.iter().map(|package| package.name.to_ascii_lowercase()).collect();
    let fsac_packages: Vec<String> = loaded.package_references.iter().map(|name| name.to_ascii_lowercase()).collect();
    for name in loaded.package_references.iter().filter(|name| !own_packages.contains(&name.to_ascii_lowercase())) {
        found.push(ModelDifference {
            kind: DifferenceKind::PackageReferenceOnlyInFsac,
            subject: name.clone(),
            detail: if name.eq_ignore_ascii_case("FSharp.Core") {
                "implicit: the F# SDK adds FSharp.Core unless DisableImplicitFSharpCoreReference is set".to_owned()
            } else {
                "FSAC's model references it; the project file does not (an import such as Directory.Packages.props or \
                 Directory.Build.props, or the SDK)"
                    .to_owned()
            },
        });
    }
    for package in
        project.package_references.iter().filter(|package| !fsac_packages.contains(&package.name.to_ascii_lowercase()))
    {
        found.push(ModelDifference {
            kind: DifferenceKind::PackageReferenceOnlyInProjectFiles,
            subject: package.name.clone(),
            detail: "the project file references it; FSAC's model does not (under a Condition, or removed)".to_owned(),
        });
    }
    found
}

// ---- the command line ---------------------------------------------------------------------------

/// Definite with FSAC's model of every project; not definite when it is missing for some or all.
impl crate::commands::outcome::Answered for ProjectInspectAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(self.complete)
    }
}
