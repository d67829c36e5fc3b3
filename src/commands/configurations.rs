//! The configuration FSAC loaded each project in, as `check` and `find` name it.
//!
//! FSAC loads a project with several target frameworks in one of them (the first), so what it
//! analyses is that configuration's files and that configuration's `#if` branches. fslens's own
//! reading of a project file does not evaluate `Condition`s, so it names files the loaded
//! configuration may not compile. The `fsharp/notifyWorkspace` `project` payload says which
//! target framework was loaded, which ones the project declares and which files it compiles:
//! from it each answer says what it covers and what it does not.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::session_state::status::StatusSnapshot;
use crate::workspace::WorkspaceModel;

/// One project's configuration as FSAC loaded it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectConfiguration {
    pub project: String,
    /// The target framework FSAC loaded the project in (`null` when FSAC did not say).
    pub target_framework: Option<String>,
    /// Every target framework the project declares.
    pub target_frameworks: Vec<String>,
    /// The declared target frameworks the answer did not cover.
    pub target_frameworks_not_checked: Vec<String>,
    /// Files the project file names that the loaded configuration does not compile, as shown.
    pub files_not_checked: Vec<String>,
}

impl ProjectConfiguration {
    /// True when the loaded configuration leaves something of the project out.
    pub fn leaves_something_out(&self) -> bool {
        !self.target_frameworks_not_checked.is_empty() || !self.files_not_checked.is_empty()
    }
}

/// The configuration of each of `projects` that FSAC reported loading (a project it said
/// nothing about has no row), with paths shown by `display`.
pub fn loaded_configurations(
    projects: &[PathBuf],
    status: &StatusSnapshot,
    model: &WorkspaceModel,
    display: &dyn Fn(&Path) -> String,
) -> Vec<ProjectConfiguration> {
    let same_file = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rows = Vec::new();
    for project_path in projects {
        let Some(loaded) = status.loaded_configuration(&project_path.display().to_string()) else { continue };
        let mut files_not_checked = Vec::new();
        if let (Some(project), Some(files)) = (model.project(project_path), &loaded.files) {
            let loaded_files: HashSet<PathBuf> = files.iter().map(|file| same_file(Path::new(file))).collect();
            for item in project.compile_items.iter().filter(|item| item.exists) {
                if !loaded_files.contains(&same_file(&item.path)) {
                    files_not_checked.push(display(&item.path));
                }
            }
        }
        let target_frameworks_not_checked = loaded
            .target_frameworks
            .iter()
            .filter(|framework| Some(*framework) != loaded.target_framework.as_ref())
            .cloned()
            .collect();
        rows.push(ProjectConfiguration {
            project: display(project_path),
            target_framework: loaded.target_framework.clone(),
            target_frameworks: loaded.target_frameworks.clone(),
            target_frameworks_not_checked,
            files_not_checked,
        });
    }
    rows
}

/// The sentence that says what the loaded configurations leave out, if they leave anything;
/// `covered` names what the answer did (`checked`, `searched`).
pub fn configuration_note(configurations: &[ProjectConfiguration], covered: &str) -> Option<String> {
    let parts: Vec<String> = configurations
        .iter()
        .filter(|row| row.leaves_something_out())
        .map(|row| {
            let mut part = format!(
                "{} was {covered} for {} only",
                row.project,
                row.target_framework.as_deref().unwrap_or("the configuration FSAC loaded")
            );
            if !row.target_frameworks_not_checked.is_empty() {
                part.push_str(&format!(", not for {}", row.target_frameworks_not_checked.join(", ")));
            }
            if !row.files_not_checked.is_empty() {
                part.push_str(&format!(
                    " ({} not compiled in that configuration: {})",
                    if row.files_not_checked.len() == 1 { "a file" } else { "files" },
                    row.files_not_checked.join(", ")
                ));
            }
            part
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "{}. FSAC loads a project in one configuration (the first target framework): code compiled only for \
             another one (a file, an #if branch) is not covered by this answer; `dotnet build` builds every target \
             framework",
            parts.join("; ")
        )
    })
}
