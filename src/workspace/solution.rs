//! Reading solution files: classic `.sln` (line format), `.slnx` (XML) and `.slnf` (a JSON
//! filter naming a solution and a subset of its projects). Each yields the project paths it
//! lists, resolved against the solution's directory.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::workspace::paths::resolve_msbuild_path;
use crate::workspace::xml::{local_name, parse_xml};

/// One solution file and the projects it lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Solution {
    pub path: PathBuf,
    /// `sln`, `slnx` or `slnf`.
    pub format: String,
    pub projects: Vec<PathBuf>,
    pub problems: Vec<String>,
}

const PROJECT_EXTENSIONS: &[&str] = &["fsproj", "csproj", "vbproj", "proj", "sqlproj", "shproj"];

fn is_project_path(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| PROJECT_EXTENSIONS.iter().any(|known| extension.eq_ignore_ascii_case(known)))
}

/// Reads a solution file of any of the three formats; unreadable files become problems.
pub fn read_solution(path: &Path) -> Solution {
    let format = path.extension().and_then(|extension| extension.to_str()).unwrap_or("").to_ascii_lowercase();
    let directory = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut solution =
        Solution { path: path.to_path_buf(), format: format.clone(), projects: Vec::new(), problems: Vec::new() };
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(error) => {
            solution.problems.push(format!("cannot read {}: {error}", path.display()));
            return solution;
        }
    };
    match format.as_str() {
        "sln" => {
            // Project("{TYPE-GUID}") = "Name", "relative\path.fsproj", "{PROJECT-GUID}"
            for line in text.lines() {
                let line = line.trim();
                if !line.starts_with("Project(") {
                    continue;
                }
                let Some((_, right)) = line.split_once('=') else {
                    continue;
                };
                let quoted: Vec<&str> = right.split('"').skip(1).step_by(2).collect();
                if let Some(written) = quoted.get(1) {
                    let resolved = resolve_msbuild_path(&directory, written);
                    if is_project_path(&resolved) {
                        solution.projects.push(resolved);
                    }
                }
            }
        }
        "slnx" => {
            let document = match parse_xml(&text) {
                Ok(document) => document,
                Err(error) => {
                    solution.problems.push(format!("{}: {error}", path.display()));
                    return solution;
                }
            };
            for element in document.descendants() {
                if local_name(&element.name).eq_ignore_ascii_case("Project")
                    && let Some(written) = element.attribute("Path")
                {
                    solution.projects.push(resolve_msbuild_path(&directory, written));
                }
            }
        }
        "slnf" => match serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}')) {
            Ok(value) => {
                let solution_path = value.pointer("/solution/path").and_then(|value| value.as_str()).unwrap_or("");
                let base = resolve_msbuild_path(&directory, solution_path);
                let base_directory = base.parent().map(Path::to_path_buf).unwrap_or(directory.clone());
                if let Some(projects) = value.pointer("/solution/projects").and_then(|value| value.as_array()) {
                    for written in projects.iter().filter_map(|value| value.as_str()) {
                        solution.projects.push(resolve_msbuild_path(&base_directory, written));
                    }
                }
            }
            Err(error) => solution.problems.push(format!("invalid solution filter JSON: {error}")),
        },
        _ => solution.problems.push(format!("unknown solution format `{format}`")),
    }
    solution
}
