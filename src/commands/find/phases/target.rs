//! Which projects a find sweeps and which of their sites it keeps: the [`Target`] planned
//! from `scope`, `projectPath` and `path`; the [`Placement`] that keeps a site (scope file and
//! project filter by file) and names its project; and the scope note that says how much was
//! swept and how to widen or narrow it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::commands::CommandError;
use crate::commands::find::matching::same_file;
use crate::commands::find::model::arguments::{FindArguments, FindKind, FindScope};
use crate::commands::paths::confine;
use crate::workspace::WorkspaceModel;

/// Which projects are swept and which sites are kept.
pub struct Target {
    pub scope: FindScope,
    /// Requested projects, in project order.
    pub projects: Vec<PathBuf>,
    /// scope=file: only sites in this file.
    pub file: Option<PathBuf>,
    /// The solution (or directory) the projects belong to, for the scope note.
    pub container: String,
    /// An explicit single `.fsproj` target: no scope value can widen it.
    pub single_project_target: bool,
    pub normalized_project: Option<String>,
}

/// The target of `scope`, `projectPath` and `path`; a `projectPath` or `path` that names
/// nothing in the workspace is refused, naming the argument.
pub fn plan_target(arguments: &FindArguments, model: &WorkspaceModel, root: &Path) -> Result<Target, CommandError> {
    let project_path = read_project_path(model, root, arguments.project_path.as_deref())?;
    let file = match &arguments.path {
        Some(written) if arguments.scope == FindScope::File || arguments.kind != FindKind::Position => {
            Some(confine(root, written, "path")?)
        }
        _ => None,
    };
    let explicit_project = match &project_path {
        ProjectPath::Project(path) => Some(path.clone()),
        _ => None,
    };
    let scope = match arguments.scope {
        FindScope::Auto if explicit_project.is_some() => FindScope::Project,
        FindScope::Auto => FindScope::Workspace,
        scope => scope,
    };
    let normalized_project = match &project_path {
        ProjectPath::Project(path) => Some(model.display_path(path)),
        ProjectPath::Solution { name, .. } => Some(name.clone()),
        ProjectPath::None => None,
    };
    let single = |project: PathBuf, explicit: bool| Target {
        scope,
        container: model.display_path(&project),
        projects: vec![project],
        file: file.clone(),
        single_project_target: explicit,
        normalized_project: normalized_project.clone(),
    };
    Ok(match scope {
        FindScope::Workspace | FindScope::Auto => match project_path {
            ProjectPath::Project(project) => single(project, true),
            ProjectPath::Solution { members, name } => Target {
                scope,
                projects: members,
                file: None,
                container: name,
                single_project_target: false,
                normalized_project,
            },
            ProjectPath::None => Target {
                scope,
                projects: model.project_order.clone(),
                file: None,
                container: workspace_name(model),
                single_project_target: false,
                normalized_project: None,
            },
        },
        FindScope::Project => match explicit_project {
            Some(project) => single(project, true),
            None => single(the_one_project(model, file.as_deref())?, false),
        },
        FindScope::File => {
            let Some(path) = file else {
                return Err(CommandError::invalid_argument("path", "scope file needs a path"));
            };
            let mut projects: Vec<PathBuf> =
                model.projects_compiling(&path).iter().map(|project| project.path.clone()).collect();
            if let Some(project) = &explicit_project {
                projects.retain(|candidate| candidate == project);
            }
            Target {
                scope,
                container: model.display_path(&path),
                projects,
                file: Some(path),
                single_project_target: explicit_project.is_some(),
                normalized_project,
            }
        }
    })
}

/// What `projectPath` names.
enum ProjectPath {
    None,
    /// A solution of the workspace: its member projects, in project order, and its name.
    Solution {
        members: Vec<PathBuf>,
        name: String,
    },
    /// One project, by name or `.fsproj` path.
    Project(PathBuf),
}

fn read_project_path(model: &WorkspaceModel, root: &Path, written: Option<&str>) -> Result<ProjectPath, CommandError> {
    let Some(written) = written else { return Ok(ProjectPath::None) };
    if !crate::commands::paths::names_a_solution(written) {
        let project = crate::commands::paths::project_by_name_or_path(model, root, written)?;
        return Ok(ProjectPath::Project(project.path.clone()));
    }
    let path = confine(root, written, "projectPath")?;
    let solution = model.solutions.iter().find(|solution| same_file(&solution.path, &path)).ok_or_else(|| {
        CommandError::InvalidPath { path: written.to_owned(), message: "no such solution in the workspace".into() }
    })?;
    let members = model
        .project_order
        .iter()
        .filter(|project| solution.projects.iter().any(|member| same_file(member, project)))
        .cloned()
        .collect();
    Ok(ProjectPath::Solution { members, name: model.display_path(&solution.path) })
}

/// The workspace's name in the scope note: its first solution when that holds every project, else the directory.
fn workspace_name(model: &WorkspaceModel) -> String {
    let holds_all = |solution: &&crate::workspace::Solution| {
        model.project_order.iter().all(|project| solution.projects.iter().any(|member| same_file(member, project)))
    };
    model
        .solutions
        .first()
        .filter(holds_all)
        .map(|solution| model.display_path(&solution.path))
        .unwrap_or_else(|| "the workspace directory".to_owned())
}

/// scope project without a `.fsproj` projectPath: the one project compiling `path` (or the
/// workspace's only project); several or none is refused, naming `projectPath`.
fn the_one_project(model: &WorkspaceModel, file: Option<&Path>) -> Result<PathBuf, CommandError> {
    let candidates: Vec<PathBuf> = match file {
        Some(path) => model.projects_compiling(path).iter().map(|project| project.path.clone()).collect(),
        None => model.project_order.clone(),
    };
    match candidates.as_slice() {
        [only] => Ok(only.clone()),
        _ => Err(CommandError::invalid_argument(
            "projectPath",
            format!(
                "scope project needs one project: pass projectPath (an .fsproj) or a path compiled by exactly one \
                 project ({} candidates)",
                candidates.len()
            ),
        )),
    }
}

/// Where a site may be kept and which project it belongs to, built once per find: a site's
/// project is a lookup, not a walk over every project's compile items (that walk made large
/// finds quadratic).
pub struct Placement {
    /// scope file or project: the files whose sites are kept (`None`: every file).
    scope_files: Option<HashSet<PathBuf>>,
    /// The same files with symbolic links resolved.
    canonical_scope_files: Option<HashSet<PathBuf>>,
    /// The projects that compile each file, in project order.
    compiling_projects: HashMap<PathBuf, Vec<PathBuf>>,
    targeted: HashSet<PathBuf>,
}

impl Placement {
    pub fn new(target: &Target, model: &WorkspaceModel) -> Placement {
        let scope_files: Option<HashSet<PathBuf>> = match target.scope {
            FindScope::File => target.file.clone().map(|file| HashSet::from([file])),
            FindScope::Project => Some(
                target
                    .projects
                    .iter()
                    .filter_map(|project| model.project(project))
                    .flat_map(|project| project.compile_items.iter().map(|item| item.path.clone()))
                    .collect(),
            ),
            _ => None,
        };
        let canonical_scope_files = scope_files
            .as_ref()
            .map(|files| files.iter().map(|file| file.canonicalize().unwrap_or_else(|_| file.clone())).collect());
        Placement {
            scope_files,
            canonical_scope_files,
            compiling_projects: compiling_projects_by_file(model),
            targeted: target.projects.iter().cloned().collect(),
        }
    }

    /// Whether the scope keeps sites in `path`. Paths compare as written first; a
    /// symbolic-link spelling is resolved once per site.
    pub fn keeps(&self, path: &Path) -> bool {
        match (&self.scope_files, &self.canonical_scope_files) {
            (Some(files), Some(canonical)) => {
                files.contains(path) || path.canonicalize().is_ok_and(|resolved| canonical.contains(&resolved))
            }
            _ => true,
        }
    }

    /// A site's project: the first requested project compiling its file, else the first.
    pub fn project_of(&self, path: &Path, model: &WorkspaceModel) -> Option<String> {
        let compiling = self.compiling_projects.get(path).map(Vec::as_slice).unwrap_or_default();
        compiling
            .iter()
            .find(|project| self.targeted.contains(*project))
            .or(compiling.first())
            .map(|project| model.display_path(project))
    }

    /// The requested projects compiling `path`, in project order.
    pub fn requested_compiling(&self, path: &Path) -> Vec<&Path> {
        self.compiling_projects
            .get(path)
            .into_iter()
            .flatten()
            .filter(|project| self.targeted.contains(*project))
            .map(PathBuf::as_path)
            .collect()
    }

    /// Whether every requested project compiling `path` (at least one) is one of `projects`.
    pub fn compiled_only_by(&self, path: &Path, projects: &HashSet<&Path>) -> bool {
        let mut requested =
            self.compiling_projects.get(path).into_iter().flatten().filter(|project| self.targeted.contains(*project));
        let mut any = false;
        let only = requested.all(|project| {
            any = true;
            projects.contains(project.as_path())
        });
        any && only
    }

    /// Every project compiling `path`, as the answer spells it, in project order (a row lists
    /// those other than its own as `alsoCompiledBy`).
    pub fn compiling_projects(&self, path: &Path, model: &WorkspaceModel) -> Vec<String> {
        self.compiling_projects.get(path).into_iter().flatten().map(|other| model.display_path(other)).collect()
    }
}

/// The projects that compile each file, in project order (a file linked into several
/// projects lists each of them once).
fn compiling_projects_by_file(model: &WorkspaceModel) -> HashMap<PathBuf, Vec<PathBuf>> {
    let mut by_file: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    for project_path in &model.project_order {
        let Some(project) = model.project(project_path) else { continue };
        for item in &project.compile_items {
            let projects = by_file.entry(item.path.clone()).or_default();
            if !projects.contains(project_path) {
                projects.push(project_path.clone());
            }
        }
    }
    by_file
}
