//! Path arguments of commands, confined to the workspace root.
//!
//! A path may be relative to the root or absolute; either way it must stay inside the root
//! after `..` is resolved and after symbolic links are followed, and a sibling directory that
//! merely shares the root's name as a prefix (`/w/app` vs `/w/app-other`) is outside.

use std::path::{Component, Path, PathBuf};

use crate::commands::CommandError;
use crate::workspace::paths::normalize_lexically;
use crate::workspace::{Project, WorkspaceModel};

/// True when a `projectPath` argument names a solution (`.sln`, `.slnx`, `.slnf`) rather than
/// a project (an .fsproj path or a project name).
pub fn names_a_solution(written: &str) -> bool {
    [".sln", ".slnx", ".slnf"].iter().any(|extension| written.ends_with(extension))
}

/// The project a `projectPath` argument names: a project name (exactly, else ignoring case) or
/// a path to its `.fsproj` confined to the workspace. An unknown project is an
/// `invalid_argument` naming `projectPath` and listing the workspace's projects.
pub fn project_by_name_or_path<'a>(
    model: &'a WorkspaceModel,
    root: &Path,
    written: &str,
) -> Result<&'a Project, CommandError> {
    let by_name = model
        .projects
        .iter()
        .find(|project| project.name == written)
        .or_else(|| model.projects.iter().find(|project| project.name.eq_ignore_ascii_case(written)));
    if let Some(project) = by_name {
        return Ok(project);
    }
    let path = confine(root, written, "projectPath")?;
    let canonical = path.canonicalize().ok();
    model
        .projects
        .iter()
        .find(|project| project.path == path || (canonical.is_some() && project.path.canonicalize().ok() == canonical))
        .ok_or_else(|| {
            let names: Vec<&str> = model.projects.iter().map(|project| project.name.as_str()).collect();
            CommandError::invalid_argument(
                "projectPath",
                format!("`{written}` is no project of this workspace (projects: {})", names.join(", ")),
            )
        })
}

/// Resolves `written` against `root` and checks it stays inside. The file need not exist
/// (an unsaved editor buffer may have no file yet), but whatever part of it exists is
/// resolved through symbolic links.
pub fn confine(root: &Path, written: &str, argument: &str) -> Result<PathBuf, CommandError> {
    if written.is_empty() {
        return Err(CommandError::invalid_argument(argument, "must not be empty"));
    }
    if written.contains('\0') {
        return Err(CommandError::invalid_argument(argument, "must not contain NUL"));
    }
    // The root as given (an editor may name it through a symbolic link, and so spell absolute
    // paths under it that way) and as it really is; the final check is on the real one.
    let spelled_root = normalize_lexically(&std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()));
    let root = root.canonicalize().unwrap_or_else(|_| spelled_root.clone());
    let written_path = Path::new(written);
    let joined = if written_path.is_absolute() { written_path.to_path_buf() } else { root.join(written_path) };
    let lexical = normalize_lexically(&joined);
    let outside = || CommandError::InvalidPath {
        path: written.to_owned(),
        message: format!("outside the workspace root {}", root.display()),
    };
    if lexical.components().any(|component| component == Component::ParentDir)
        || !(lexical.starts_with(&root) || lexical.starts_with(&spelled_root))
    {
        return Err(outside());
    }
    // Follow symbolic links through the longest existing ancestor.
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|name| name.to_owned()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut resolved = existing.canonicalize().unwrap_or(existing);
    for name in rest.into_iter().rev() {
        resolved.push(name);
    }
    if !resolved.starts_with(&root) {
        return Err(outside());
    }
    Ok(resolved)
}

/// A file's text as FSAC sees it: the editor's buffer when it is open there, else the disk; a
/// file that cannot be read is `invalid_path` naming it.
pub fn current_text(overlay: &crate::syntax::index::Overlay, path: &Path) -> Result<String, CommandError> {
    overlay.current_text(path).map_err(|error| CommandError::InvalidPath {
        path: path.display().to_string(),
        message: format!("cannot read it: {error}"),
    })
}

/// A file's current text and its syntax tree (or why it has none).
pub type ParsedFile = (String, Result<tree_sitter::Tree, String>);

/// Each file's current text (editor buffers first) and syntax tree, read and parsed once: for
/// a command that looks at many sites in few files.
pub struct ParsedFiles {
    pub overlay: crate::syntax::index::Overlay,
    pub parsers: crate::syntax::parse::FsharpParsers,
    /// `None` for a file that cannot be read.
    files: std::collections::HashMap<PathBuf, Option<ParsedFile>>,
}

impl ParsedFiles {
    pub fn new(overlay: crate::syntax::index::Overlay) -> ParsedFiles {
        ParsedFiles {
            overlay,
            parsers: crate::syntax::parse::FsharpParsers::new(),
            files: std::collections::HashMap::new(),
        }
    }

    /// The file's text and tree; `None` when it cannot be read.
    pub fn parsed(&mut self, path: &Path) -> Option<&ParsedFile> {
        let (overlay, parsers) = (&self.overlay, &mut self.parsers);
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = current_text(overlay, path).ok()?;
                let tree = crate::syntax::enclosing::parse(parsers, &text);
                Some((text, tree))
            })
            .as_ref()
    }
}

/// The path relative to the root, with `/` separators, for answers.
/// A path outside the root is shown whole, as written (`/tmp/x.fs`, never `//tmp/x.fs`: joining
/// its components would put a separator after the root component `/`).
pub fn display_relative(root: &Path, path: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match path.strip_prefix(&root) {
        Ok(relative) => {
            relative.components().map(|component| component.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
        }
        Err(_) => path.to_string_lossy().replace('\\', "/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_outside_the_root_is_shown_whole_with_one_leading_slash() {
        let root = tempfile::tempdir().unwrap();
        let inside = root.path().canonicalize().unwrap().join("src").join("A.fs");
        assert_eq!(display_relative(root.path(), &inside), "src/A.fs");
        assert_eq!(display_relative(root.path(), Path::new("/elsewhere/B.fs")), "/elsewhere/B.fs");
    }

    #[test]
    fn a_project_is_named_by_name_in_any_case_or_by_its_path_and_an_unknown_one_lists_the_others() {
        let temporary = tempfile::tempdir().unwrap();
        let root = temporary.path();
        std::fs::create_dir_all(root.join("src/App")).unwrap();
        std::fs::write(
            root.join("src/App/App.fsproj"),
            r#"<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><Compile Include="A.fs" /></ItemGroup></Project>"#,
        )
        .unwrap();
        let model = crate::workspace::load_workspace(root).unwrap();
        let expected = root.canonicalize().unwrap().join("src/App/App.fsproj");
        for written in ["App", "app", "src/App/App.fsproj", "./src/App/../App/App.fsproj"] {
            let project = project_by_name_or_path(&model, root, written).unwrap();
            assert_eq!(project.path.canonicalize().unwrap(), expected, "{written}");
        }
        let unknown = project_by_name_or_path(&model, root, "Other").unwrap_err();
        assert_eq!(unknown.data()["argument"], "projectPath");
        assert!(unknown.to_string().contains("projects: App"), "{unknown}");
        let outside = project_by_name_or_path(&model, root, "../Elsewhere.fsproj").unwrap_err();
        assert_eq!(outside.kind(), "invalid_path");
    }

    #[test]
    fn refuses_escapes_of_every_kind() {
        let temporary = tempfile::tempdir().unwrap();
        let root = temporary.path().join("app");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(temporary.path().join("app-other")).unwrap();
        std::fs::write(root.join("src/A.fs"), "").unwrap();
        std::os::unix::fs::symlink(temporary.path(), root.join("escape")).unwrap();
        let canonical = root.canonicalize().unwrap();

        assert_eq!(confine(&root, "src/A.fs", "path").unwrap(), canonical.join("src/A.fs"));
        assert_eq!(confine(&root, "src/./New.fs", "path").unwrap(), canonical.join("src/New.fs"));
        let absolute = canonical.join("src/A.fs");
        assert_eq!(confine(&root, absolute.to_str().unwrap(), "path").unwrap(), absolute);
        for bad in ["../app-other/x.fs", "/etc/passwd", "src/../../x", "escape/app-other/x.fs"] {
            let error = confine(&root, bad, "path").unwrap_err();
            assert_eq!(error.kind(), "invalid_path", "{bad}");
        }
        let sibling = temporary.path().join("app-other/x.fs");
        assert!(confine(&root, sibling.to_str().unwrap(), "path").is_err());
        assert_eq!(confine(&root, "", "path").unwrap_err().kind(), "invalid_argument");
        assert_eq!(display_relative(&root, &canonical.join("src/A.fs")), "src/A.fs");
    }

    #[test]
    fn a_root_named_through_a_symbolic_link_accepts_absolute_paths_spelled_through_it() {
        let temporary = tempfile::tempdir().unwrap();
        let real = temporary.path().join("real");
        std::fs::create_dir_all(real.join("src")).unwrap();
        std::fs::write(real.join("src/A.fs"), "").unwrap();
        std::fs::create_dir_all(temporary.path().join("other")).unwrap();
        let link = temporary.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let through_link = link.join("src/A.fs");
        assert_eq!(
            confine(&link, through_link.to_str().unwrap(), "path").unwrap(),
            real.canonicalize().unwrap().join("src/A.fs")
        );
        // The link's own parent is still outside.
        let beside = temporary.path().join("other/x.fs");
        assert_eq!(confine(&link, beside.to_str().unwrap(), "path").unwrap_err().kind(), "invalid_path");
    }
}
