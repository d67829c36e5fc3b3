//! Paths typed in the shell: how the command line reads a relative `--path` or project path
//! before the command (which confines it to the workspace, `commands::paths`) receives it.

use std::path::Path;

use crate::commands::paths::names_a_solution;
use crate::workspace::paths::normalize_lexically;

/// The argument names whose values the CLI reads as paths typed in the shell: `path` always,
/// the project arguments (`projectPath`, `project`) only when they spell a project or solution
/// file (a bare project name is a name, not a path).
const CLI_PATH_ARGUMENTS: [&str; 3] = ["path", "projectPath", "project"];

/// How the CLI reads a relative path typed in the shell: from the shell's current directory
/// first (as every other command-line tool does), so `fslens check some/dir/File.fs
/// --workspace some/dir` names `some/dir/File.fs`. When nothing exists there but the path
/// exists under the workspace root, the workspace's file is meant (`--path src/A.fs
/// --workspace app` from outside `app`). When it exists in neither place, the shell's reading
/// is kept if it lies inside the workspace, else the workspace's, so the command's
/// `invalid_path` says "no such file" rather than "outside the workspace". Absolute paths pass
/// unchanged. The answer is what the command receives: an absolute path, or the path as typed
/// (then read against the workspace root).
pub fn resolve_cli_path(written: &str, shell_directory: &Path, workspace: &Path) -> String {
    let typed = Path::new(written);
    if written.is_empty() || typed.is_absolute() {
        return written.to_owned();
    }
    let from_shell = normalize_lexically(&shell_directory.join(typed));
    if from_shell.exists() {
        return from_shell.to_string_lossy().into_owned();
    }
    let workspace = normalize_lexically(&shell_directory.join(workspace));
    if workspace.join(typed).exists() {
        return written.to_owned();
    }
    let real_workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.clone());
    let inside = from_shell.starts_with(&workspace)
        || shell_directory
            .canonicalize()
            .is_ok_and(|real| normalize_lexically(&real.join(typed)).starts_with(&real_workspace));
    if inside { from_shell.to_string_lossy().into_owned() } else { written.to_owned() }
}

/// Applies [`resolve_cli_path`] to the path arguments of a command built from CLI flags.
pub fn resolve_cli_path_arguments(arguments: &mut serde_json::Value, shell_directory: &Path, workspace: &Path) {
    for name in CLI_PATH_ARGUMENTS {
        let Some(written) = arguments.get(name).and_then(serde_json::Value::as_str) else { continue };
        let is_path = name == "path" || names_a_solution(written) || written.ends_with(".fsproj");
        if is_path {
            let resolved = resolve_cli_path(written, shell_directory, workspace);
            arguments[name] = serde_json::Value::String(resolved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cli_paths_are_read_from_the_shell_first_then_from_the_workspace() {
        let temporary = tempfile::tempdir().unwrap();
        let shell = temporary.path().canonicalize().unwrap();
        std::fs::create_dir_all(shell.join("app/src")).unwrap();
        std::fs::write(shell.join("app/src/A.fs"), "").unwrap();
        std::fs::write(shell.join("app/App.fsproj"), "").unwrap();
        let workspace = Path::new("app");
        let shell_path = |written: &str| resolve_cli_path(written, &shell, workspace);
        assert_eq!(shell_path("app/src/A.fs"), shell.join("app/src/A.fs").to_string_lossy());
        assert_eq!(shell_path("./app/src/../src/A.fs"), shell.join("app/src/A.fs").to_string_lossy());
        assert_eq!(shell_path("src/A.fs"), "src/A.fs", "only under the workspace: the workspace's file");
        assert_eq!(shell_path("app/src/Missing.fs"), shell.join("app/src/Missing.fs").to_string_lossy());
        assert_eq!(shell_path("src/Missing.fs"), "src/Missing.fs", "outside the workspace from the shell");
        assert_eq!(shell_path("/abs/B.fs"), "/abs/B.fs");
        let mut arguments =
            json!({ "path": "app/src/A.fs", "projectPath": "app/App.fsproj", "project": "App", "line": 1 });
        resolve_cli_path_arguments(&mut arguments, &shell, workspace);
        assert_eq!(arguments["path"], json!(shell.join("app/src/A.fs").to_string_lossy()));
        assert_eq!(arguments["projectPath"], json!(shell.join("app/App.fsproj").to_string_lossy()));
        assert_eq!(arguments["project"], json!("App"), "a project name is not a path");
        assert_eq!(arguments["line"], json!(1));
    }
}
