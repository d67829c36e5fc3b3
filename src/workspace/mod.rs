//! The project model: `.sln`, `.slnx`, `.slnf` and `.fsproj` discovery under a workspace root,
//! each project's compile order, the `ProjectReference` graph in topological order, target
//! frameworks and package references, and the F# files that belong to no project
//! (`orphan_files`: reported, never dropped).
//!
//! Discovery skips `bin/`, `obj/`, `node_modules/` and `.git/`. Projects outside the root
//! that a solution or a reference names are loaded too. The reading is static (see
//! [`project`]); every approximation is listed in `problems`.

pub mod defines;
pub mod paths;
pub mod project;
pub mod scripts;
pub mod solution;
pub mod xml;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use project::{
    CompileItem, PackageReference, Project, ProjectError, ProjectErrorKind, parse_project, read_project,
};
pub use solution::{Solution, read_solution};

/// Everything known about the workspace's projects and files.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceModel {
    pub root: PathBuf,
    pub solutions: Vec<Solution>,
    /// Sorted by path.
    pub projects: Vec<Project>,
    /// Project paths, every project after the projects it references.
    pub project_order: Vec<PathBuf>,
    /// F# source files found under the root (build output skipped), sorted.
    pub source_files: Vec<PathBuf>,
    /// Source files under the root that no project compiles.
    pub orphan_files: Vec<PathBuf>,
    pub problems: Vec<String>,
}

impl WorkspaceModel {
    /// The projects that compile `path`.
    pub fn projects_compiling(&self, path: &Path) -> Vec<&Project> {
        self.projects.iter().filter(|project| project.compiles(path)).collect()
    }

    pub fn project(&self, path: &Path) -> Option<&Project> {
        self.projects.iter().find(|project| project.path == path)
    }

    /// Every file worth indexing: existing compile items in project order, then the other
    /// source files under the root. No duplicates.
    pub fn files_to_index(&self) -> Vec<PathBuf> {
        let mut seen = HashSet::new();
        let mut files = Vec::new();
        let by_path: std::collections::HashMap<&Path, &Project> =
            self.projects.iter().map(|project| (project.path.as_path(), project)).collect();
        for project_path in &self.project_order {
            if let Some(project) = by_path.get(project_path.as_path()) {
                for item in project.compile_items.iter().filter(|item| item.exists) {
                    if seen.insert(item.path.clone()) {
                        files.push(item.path.clone());
                    }
                }
            }
        }
        for file in &self.source_files {
            if seen.insert(file.clone()) {
                files.push(file.clone());
            }
        }
        files
    }
}

/// Discovers and reads the workspace under `root`. Fails only when `root` is not a readable
/// directory; everything else degrades into `problems`.
pub fn load_workspace(root: &Path) -> anyhow::Result<WorkspaceModel> {
    use anyhow::Context;
    let metadata = std::fs::metadata(root).with_context(|| format!("reading workspace root {}", root.display()))?;
    anyhow::ensure!(metadata.is_dir(), "workspace root {} is not a directory", root.display());
    let root = paths::normalize_lexically(&std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()));

    let files = paths::walk_files(&root);
    let mut problems = Vec::new();
    let mut solutions = Vec::new();
    let mut wanted_projects: BTreeSet<PathBuf> = BTreeSet::new();
    let mut source_files = Vec::new();
    for file in &files {
        let extension = file.extension().and_then(|extension| extension.to_str()).unwrap_or("").to_ascii_lowercase();
        match extension.as_str() {
            "sln" | "slnx" | "slnf" => {
                let solution = read_solution(file);
                for project in &solution.projects {
                    if is_fsproj(project) {
                        wanted_projects.insert(project.clone());
                    }
                }
                solutions.push(solution);
            }
            "fsproj" => {
                wanted_projects.insert(file.clone());
            }
            _ if paths::is_fsharp_source(file) => source_files.push(file.clone()),
            _ => {}
        }
    }

    // Load projects, following references to projects not yet seen (outside the root too).
    let mut projects: BTreeMap<PathBuf, Project> = BTreeMap::new();
    let mut pending: Vec<PathBuf> = wanted_projects.into_iter().collect();
    // The projects found on disk are read side by side; the ones only referenced, in turn.
    let mut read_ahead = read_projects_side_by_side(&pending);
    while let Some(path) = pending.pop() {
        if projects.contains_key(&path) {
            continue;
        }
        match read_ahead.remove(&path).unwrap_or_else(|| read_project(&path)) {
            Ok(project) => {
                for reference in &project.project_references {
                    if is_fsproj(reference) && !projects.contains_key(reference) {
                        if reference.is_file() {
                            pending.push(reference.clone());
                        } else {
                            problems.push(format!(
                                "{} references missing project {}",
                                project.path.display(),
                                reference.display()
                            ));
                        }
                    }
                }
                projects.insert(path, project);
            }
            Err(error) => problems.push(format!("{error:#}")),
        }
    }
    let projects: Vec<Project> = projects.into_values().collect();
    let project_order = topological_order(&projects, &mut problems);

    let compiled: HashSet<&PathBuf> =
        projects.iter().flat_map(|project| project.compile_items.iter().map(|item| &item.path)).collect();
    let orphan_files = source_files.iter().filter(|file| !compiled.contains(file)).cloned().collect();
    Ok(WorkspaceModel { root, solutions, projects, project_order, source_files, orphan_files, problems })
}

/// Reads `paths` on up to two threads (each project file is small; there may be hundreds).
fn read_projects_side_by_side(paths: &[PathBuf]) -> std::collections::HashMap<PathBuf, anyhow::Result<Project>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let read = std::sync::Mutex::new(std::collections::HashMap::new());
    let work = || {
        let mut mine = Vec::new();
        while let Some(path) = paths.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
            mine.push((path.clone(), read_project(path)));
        }
        read.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).extend(mine);
    };
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get()).min(2);
    std::thread::scope(|scope| {
        if workers > 1 && paths.len() > 1 {
            let _ = std::thread::Builder::new().name("project_read_task".to_owned()).spawn_scoped(scope, work);
        }
        work();
    });
    read.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn is_fsproj(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| extension.eq_ignore_ascii_case("fsproj"))
}

/// Kahn's algorithm over the loaded projects (references to unloaded projects are ignored),
/// ties broken by path. Projects on a cycle are appended in path order and reported.
fn topological_order(projects: &[Project], problems: &mut Vec<String>) -> Vec<PathBuf> {
    let known: BTreeSet<&PathBuf> = projects.iter().map(|project| &project.path).collect();
    let mut remaining: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = projects
        .iter()
        .map(|project| {
            let dependencies = project
                .project_references
                .iter()
                .filter(|reference| known.contains(reference) && **reference != project.path)
                .collect();
            (&project.path, dependencies)
        })
        .collect();
    let mut order = Vec::new();
    loop {
        let ready: Vec<&PathBuf> =
            remaining.iter().filter(|(_, dependencies)| dependencies.is_empty()).map(|(path, _)| *path).collect();
        if ready.is_empty() {
            break;
        }
        for path in ready {
            remaining.remove(path);
            for dependencies in remaining.values_mut() {
                dependencies.remove(path);
            }
            order.push(path.clone());
        }
    }
    if !remaining.is_empty() {
        let cycle: Vec<String> = remaining.keys().map(|path| path.display().to_string()).collect();
        problems.push(format!("project reference cycle among: {}", cycle.join(", ")));
        order.extend(remaining.keys().map(|path| (*path).clone()));
    }
    order
}

impl WorkspaceModel {
    /// `path` relative to the root when it is inside it, with `/` separators.
    pub fn display_path(&self, path: &Path) -> String {
        let shown = path.strip_prefix(&self.root).unwrap_or(path);
        shown.to_string_lossy().replace('\\', "/")
    }

    /// A plain-text summary: solutions, projects in topological order with their compile
    /// order, references, frameworks and packages, then orphan files and problems.
    pub fn describe(&self) -> String {
        use std::fmt::Write;
        let mut output = String::new();
        for solution in &self.solutions {
            let projects: Vec<String> = solution.projects.iter().map(|path| self.display_path(path)).collect();
            let _ = writeln!(
                output,
                "solution {} ({}): {}",
                self.display_path(&solution.path),
                solution.format,
                projects.join(", ")
            );
            for problem in &solution.problems {
                let _ = writeln!(output, "  problem: {problem}");
            }
        }
        for project_path in &self.project_order {
            let Some(project) = self.project(project_path) else {
                continue;
            };
            let _ = writeln!(
                output,
                "project {} [{}]",
                self.display_path(&project.path),
                project.target_frameworks.join(";")
            );
            for reference in &project.project_references {
                let _ = writeln!(output, "  references {}", self.display_path(reference));
            }
            for package in &project.package_references {
                let _ = writeln!(
                    output,
                    "  package {} {}",
                    package.name,
                    package.version.as_deref().unwrap_or("(no version)")
                );
            }
            for (position, item) in project.compile_items.iter().enumerate() {
                let mut notes = Vec::new();
                if let Some(link) = &item.link {
                    notes.push(format!("link={link}"));
                }
                if item.from_wildcard {
                    notes.push(format!("wildcard={}", item.include));
                }
                if !item.exists {
                    notes.push("missing".to_owned());
                }
                let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
                let _ = writeln!(output, "  compile {} {}{}", position + 1, self.display_path(&item.path), notes);
            }
            for problem in &project.problems {
                let _ = writeln!(output, "  problem: {problem}");
            }
        }
        for orphan in &self.orphan_files {
            let _ = writeln!(output, "orphan {}", self.display_path(orphan));
        }
        for problem in &self.problems {
            let _ = writeln!(output, "problem: {problem}");
        }
        output
    }
}
