//! What an F# script can see of the workspace: the files it `#load`s (and those their scripts
//! load in turn), and whether it references an assembly by path (`#r "…/Lib.dll"`, which may
//! be a workspace project's build output). A script that only references packages (`#r
//! "nuget: …"`) sees no project's source: a use of a name there is a package's, never a
//! workspace declaration's (FsToolkit.ErrorHandling's `playground.fsx` references the
//! published package of the library the workspace builds).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::workspace::paths::resolve_msbuild_path;

/// What a script's directives reach.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptReach {
    /// The files it loads, directly or through the scripts it loads (lexically normalised).
    pub loads: HashSet<PathBuf>,
    /// Whether it may see anything: it references an assembly by path or name (`#r "Lib.dll"`,
    /// `#r "Lib"`), or has a directive whose target its text does not spell (`#load` of a
    /// computed path), or could not be read.
    pub may_see_anything: bool,
}

impl ScriptReach {
    /// Whether the script can see a declaration in `file` (a file a project compiles).
    pub fn sees(&self, file: &Path) -> bool {
        self.may_see_anything || self.loads.contains(file)
    }
}

/// Reads `script`'s `#load` and `#r` directives, following the scripts it loads; `read` gives
/// a file's text (`None` when it cannot be read).
pub fn reach_of(script: &Path, read: &dyn Fn(&Path) -> Option<String>) -> ScriptReach {
    let mut reach = ScriptReach::default();
    let mut pending = vec![script.to_path_buf()];
    let mut visited: HashSet<PathBuf> = HashSet::new();
    while let Some(next) = pending.pop() {
        if !visited.insert(next.clone()) {
            continue;
        }
        let Some(text) = read(&next) else {
            reach.may_see_anything = true;
            continue;
        };
        let directory = next.parent().unwrap_or(Path::new("")).to_path_buf();
        for directive in directives(&text) {
            match directive {
                Directive::Load(targets) if !targets.is_empty() => {
                    for target in targets {
                        let loaded = resolve_msbuild_path(&directory, &target);
                        if is_script(&loaded) {
                            pending.push(loaded.clone());
                        }
                        reach.loads.insert(loaded);
                    }
                }
                Directive::Load(_) => reach.may_see_anything = true,
                Directive::Reference(target) => {
                    let package = target.trim_start().to_ascii_lowercase().starts_with("nuget:");
                    if !package {
                        reach.may_see_anything = true;
                    }
                }
            }
        }
    }
    reach
}

/// Whether `path` is a script (`.fsx`, `.fsscript`).
pub fn is_script(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| matches!(extension.to_ascii_lowercase().as_str(), "fsx" | "fsscript"))
}

enum Directive {
    /// `#load "a.fs" "b.fsx"`: the quoted paths (none when its targets are not quoted).
    Load(Vec<String>),
    /// `#r "…"`: its one quoted target (empty when it is not quoted).
    Reference(String),
}

/// The `#load` and `#r` directives of a script's text, each at the start of its line.
fn directives(text: &str) -> Vec<Directive> {
    let mut found = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("#load").filter(|rest| rest.starts_with([' ', '\t', '"', '@'])) {
            found.push(Directive::Load(quoted(rest)));
        } else if let Some(rest) = line.strip_prefix("#r").filter(|rest| rest.starts_with([' ', '\t', '"', '@'])) {
            found.push(Directive::Reference(quoted(rest).into_iter().next().unwrap_or_default()));
        }
    }
    found
}

/// The double-quoted strings of a directive's rest (`@"…"` verbatim strings too), up to a
/// `//` comment.
fn quoted(rest: &str) -> Vec<String> {
    let mut strings = Vec::new();
    let mut remaining = rest;
    loop {
        let trimmed = remaining.trim_start().trim_start_matches('@');
        let Some(body) = trimmed.strip_prefix('"') else { break };
        let Some(end) = body.find('"') else { break };
        strings.push(body[..end].to_owned());
        remaining = &body[end + 1..];
    }
    strings
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn reach(files: &[(&str, &str)], script: &str) -> ScriptReach {
        let files: HashMap<PathBuf, String> =
            files.iter().map(|(path, text)| (PathBuf::from(path), (*text).to_owned())).collect();
        reach_of(Path::new(script), &|path| files.get(path).cloned())
    }

    #[test]
    fn a_script_sees_what_it_loads_and_what_its_scripts_load() {
        let reach = reach(
            &[
                ("/w/play.fsx", "#load \"lib/A.fs\" \"lib/More.fsx\"\n#r \"nuget: Expecto\"\nlet x = 1\n"),
                ("/w/lib/More.fsx", "#load @\"../src/B.fs\" // the second\n"),
            ],
            "/w/play.fsx",
        );
        assert!(!reach.may_see_anything);
        assert!(reach.sees(Path::new("/w/lib/A.fs")));
        assert!(reach.sees(Path::new("/w/src/B.fs")));
        assert!(!reach.sees(Path::new("/w/src/C.fs")));
    }

    #[test]
    fn a_script_of_packages_only_sees_no_project_source() {
        let reach =
            reach(&[("/w/play.fsx", "#r \"nuget: FsToolkit.ErrorHandling.TaskResult\"\nopen X\n")], "/w/play.fsx");
        assert!(!reach.sees(Path::new("/w/src/Result.fs")));
    }

    #[test]
    fn an_assembly_reference_or_an_unreadable_script_may_see_anything() {
        let dll = reach(&[("/w/play.fsx", "#r \"../bin/Debug/Lib.dll\"\n")], "/w/play.fsx");
        assert!(dll.sees(Path::new("/w/src/Result.fs")));
        let unreadable = reach(&[], "/w/play.fsx");
        assert!(unreadable.may_see_anything);
        let computed = reach(&[("/w/play.fsx", "#load __SOURCE_DIRECTORY__ + \"/a.fs\"\n")], "/w/play.fsx");
        assert!(computed.may_see_anything);
    }
}
