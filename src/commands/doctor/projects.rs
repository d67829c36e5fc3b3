//! The checks on the workspace's projects, from the project model (`workspace/`): each
//! project's restore output, a paket repository's restore targets, and central package
//! management with what NuGet refuses under it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{CheckId, CheckStatus, DoctorCheck, display_path};
use crate::workspace::xml::{local_name, parse_xml};
use crate::workspace::{Project, Solution, load_workspace};

/// The project checks, in order: projects found, paket, central package management, restore.
pub fn checks(root: &Path) -> Vec<DoctorCheck> {
    let model = match load_workspace(root) {
        Ok(model) => model,
        Err(error) => {
            return vec![
                DoctorCheck::new(CheckId::Projects, CheckStatus::Problem, format!("{error:#}"))
                    .path(root.display().to_string()),
            ];
        }
    };
    let mut checks = Vec::new();
    if model.projects.is_empty() {
        checks.push(
            DoctorCheck::new(
                CheckId::Projects,
                CheckStatus::Warning,
                format!(
                    "no F# project (.fsproj, or a solution naming one) under the workspace; {} F# files belong to none",
                    model.source_files.len()
                ),
            )
            .fix("open the folder that holds the .fsproj or .sln (fslens doctor --workspace DIR)"),
        );
    } else {
        checks.push(DoctorCheck::new(
            CheckId::Projects,
            CheckStatus::Ok,
            format!("{} F# project(s), {} solution(s)", model.projects.len(), model.solutions.len()),
        ));
    }
    checks.extend(paket_check(root));
    checks.extend(central_package_checks(root, &model.projects));
    checks.extend(restore_checks(root, &model.projects, &model.solutions));
    checks
}

/// One check per project, except that the unrestored projects a solution lists (two or more)
/// are one problem with one fix, restoring that solution (a published library unrestored has a
/// dozen projects: a dozen `dotnet restore` lines is not what its user types). The solution
/// listing most of them is chosen; those it does not list keep their own check.
fn restore_checks(root: &Path, projects: &[Project], solutions: &[Solution]) -> Vec<DoctorCheck> {
    let (restored, unrestored): (Vec<&Project>, Vec<&Project>) =
        projects.iter().partition(|project| is_restored(project));
    let listed_by = |solution: &Solution| -> Vec<&Project> {
        unrestored
            .iter()
            .copied()
            .filter(|project| solution.projects.iter().any(|listed| same_file(listed, &project.path)))
            .collect()
    };
    let grouped = solutions
        .iter()
        .map(|solution| (solution, listed_by(solution)))
        .filter(|(_, listed)| listed.len() >= 2)
        .max_by_key(|(_, listed)| listed.len());
    let mut checks: Vec<DoctorCheck> = restored.iter().map(|project| restore_check(root, project)).collect();
    let mut alone = unrestored.clone();
    if let Some((solution, listed)) = grouped {
        alone.retain(|project| !listed.iter().any(|other| std::ptr::eq(*other, *project)));
        let shown = display_path(root, &solution.path);
        let names: Vec<String> = listed.iter().map(|project| display_path(root, &project.path)).collect();
        checks.push(
            DoctorCheck::new(
                CheckId::Restore,
                CheckStatus::Problem,
                format!(
                    "{} project(s) of {shown} are not restored (no obj/project.assets.json), so FSAC cannot load them: {}",
                    names.len(),
                    names.join(", ")
                ),
            )
            .fix(format!("dotnet restore {}", shell_word(&shown)))
            .path(shown),
        );
    }
    checks.extend(alone.into_iter().map(|project| restore_check(root, project)));
    checks
}

fn is_restored(project: &Project) -> bool {
    project.directory().join("obj").join("project.assets.json").is_file()
}

/// Paths compared as files (a solution may name a project through `..` or a different case of
/// separators), falling back to the text when either cannot be resolved.
fn same_file(left: &Path, right: &Path) -> bool {
    match (left.canonicalize(), right.canonicalize()) {
        (Ok(left), Ok(right)) => left == right,
        _ => left == right,
    }
}

/// A project is restored when `obj/project.assets.json` is beside it (the project model reads
/// no `BaseIntermediateOutputPath` or `MSBuildProjectExtensionsPath`, so a project that moves
/// its `obj/` is looked for in the default place).
fn restore_check(root: &Path, project: &Project) -> DoctorCheck {
    let shown = display_path(root, &project.path);
    if is_restored(project) {
        DoctorCheck::new(CheckId::Restore, CheckStatus::Ok, format!("{shown} is restored")).path(shown)
    } else {
        DoctorCheck::new(
            CheckId::Restore,
            CheckStatus::Problem,
            format!("{shown} is not restored (no obj/project.assets.json): FSAC cannot load it"),
        )
        .fix(format!("dotnet restore {}", shell_word(&shown)))
        .path(shown)
    }
}

/// A paket repository (`paket.dependencies` in the workspace root) needs
/// `.paket/Paket.Restore.targets`, which every paket project imports.
fn paket_check(root: &Path) -> Option<DoctorCheck> {
    let dependencies = root.join("paket.dependencies");
    if !dependencies.is_file() {
        return None;
    }
    let targets = root.join(".paket").join("Paket.Restore.targets");
    let shown = display_path(root, &targets);
    Some(if targets.is_file() {
        DoctorCheck::new(CheckId::Paket, CheckStatus::Ok, format!("paket repository: {shown} is there")).path(shown)
    } else {
        DoctorCheck::new(
            CheckId::Paket,
            CheckStatus::Problem,
            format!("paket repository without {shown}: its projects' restore imports it, so none of them loads"),
        )
        .fix("dotnet tool restore && dotnet paket restore")
        .path(shown)
    })
}

/// The `Directory.Packages.props` MSBuild imports for a project: the first one in its directory
/// or a parent directory.
fn packages_props_of(project: &Project) -> Option<PathBuf> {
    project
        .directory()
        .ancestors()
        .map(|directory| directory.join("Directory.Packages.props"))
        .find(|candidate| candidate.is_file())
}

/// What a `Directory.Packages.props` says.
struct PackagesProps {
    /// `ManagePackageVersionsCentrally` is `true`.
    enabled: bool,
    /// The `PackageVersion` items' package ids, lower-cased.
    versions: Vec<String>,
}

fn read_packages_props(path: &Path) -> Result<PackagesProps, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("cannot read it: {error}"))?;
    let document = parse_xml(&text).map_err(|error| error.to_string())?;
    let mut enabled = false;
    let mut versions = Vec::new();
    for element in document.descendants() {
        match local_name(&element.name).to_ascii_lowercase().as_str() {
            "managepackageversionscentrally" => enabled = element.text.trim().eq_ignore_ascii_case("true"),
            "packageversion" => {
                if let Some(id) = element.attribute("Include").or_else(|| element.attribute("Update")) {
                    versions.push(id.trim().to_ascii_lowercase());
                }
            }
            _ => {}
        }
    }
    Ok(PackagesProps { enabled, versions })
}

/// Central package management: each `Directory.Packages.props` with
/// `ManagePackageVersionsCentrally` said (info), and what NuGet's restore refuses under it: a
/// `PackageReference` with a `Version` (NU1008; `VersionOverride` is the allowed form).
fn central_package_checks(root: &Path, projects: &[Project]) -> Vec<DoctorCheck> {
    let mut by_props: BTreeMap<PathBuf, Vec<&Project>> = BTreeMap::new();
    for project in projects {
        if let Some(props) = packages_props_of(project) {
            by_props.entry(props).or_default().push(project);
        }
    }
    let mut checks = Vec::new();
    for (props_path, projects) in by_props {
        let shown = display_path(root, &props_path);
        let props = match read_packages_props(&props_path) {
            Ok(props) => props,
            Err(error) => {
                checks.push(
                    DoctorCheck::new(CheckId::CentralPackages, CheckStatus::Problem, format!("{shown}: {error}"))
                        .fix(format!("correct the XML of {shown}"))
                        .path(shown),
                );
                continue;
            }
        };
        if !props.enabled {
            checks.push(
                DoctorCheck::new(
                    CheckId::CentralPackages,
                    CheckStatus::Info,
                    format!("{shown} is there but does not set ManagePackageVersionsCentrally to true: versions stay in the projects"),
                )
                .path(shown),
            );
            continue;
        }
        checks.push(
            DoctorCheck::new(
                CheckId::CentralPackages,
                CheckStatus::Info,
                format!(
                    "central package management: {shown} sets the package versions of {} project(s) ({} PackageVersion items)",
                    projects.len(),
                    props.versions.len()
                ),
            )
            .path(shown.clone()),
        );
        for project in projects {
            let project_shown = display_path(root, &project.path);
            for reference in &project.package_references {
                if let Some(version) = &reference.version {
                    checks.push(
                        DoctorCheck::new(
                            CheckId::CentralPackages,
                            CheckStatus::Problem,
                            format!(
                                "{project_shown}: PackageReference {} has Version=\"{version}\" under central package management; NuGet refuses it (NU1008)",
                                reference.name
                            ),
                        )
                        .fix(if props.versions.contains(&reference.name.to_ascii_lowercase()) {
                            format!(
                                "remove Version=\"{version}\" from {}'s PackageReference in {project_shown} (its version comes from {shown}), or write VersionOverride=\"{version}\"",
                                reference.name
                            )
                        } else {
                            format!(
                                "remove Version=\"{version}\" from {}'s PackageReference in {project_shown} and add <PackageVersion Include=\"{}\" Version=\"{version}\" /> to {shown}",
                                reference.name, reference.name
                            )
                        })
                        .path(project_shown.clone()),
                    );
                }
            }
        }
    }
    checks
}

/// A path as one shell word: quoted when it holds anything a shell would split or expand.
fn shell_word(text: &str) -> String {
    shlex::try_quote(text).map(|quoted| quoted.into_owned()).unwrap_or_else(|_| text.to_owned())
}
