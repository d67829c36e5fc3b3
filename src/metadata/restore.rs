//! Which assemblies a project references, from files only: the project's restore output
//! (`obj/project.assets.json`: `targets` → compile assets, `libraries` → package paths,
//! `packageFolders`, `project.frameworks` → framework references), or, when it is missing,
//! the NuGet global-packages folder (`NUGET_PACKAGES`, else `~/.nuget/packages`) for the
//! project's `PackageReference`s. Framework assemblies come from a .NET targeting pack when
//! one is installed; otherwise the answer lists them as unreadable instead of pretending to
//! be complete. A `_._` compile asset means the package ships no referenceable assembly.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::workspace::Project;

/// Where the package → assembly map came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreSource {
    ProjectAssets(PathBuf),
    GlobalPackagesFolder(PathBuf),
    Nothing,
}

impl RestoreSource {
    pub fn kind(&self) -> &'static str {
        match self {
            RestoreSource::ProjectAssets(_) => "projectAssetsJson",
            RestoreSource::GlobalPackagesFolder(_) => "globalPackagesFolder",
            RestoreSource::Nothing => "none",
        }
    }

    pub fn path(&self) -> Option<&Path> {
        match self {
            RestoreSource::ProjectAssets(path) | RestoreSource::GlobalPackagesFolder(path) => Some(path),
            RestoreSource::Nothing => None,
        }
    }
}

/// One restored package and the compile-time assemblies it contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoredPackage {
    pub id: String,
    pub version: String,
    /// Compile assets that exist on disk.
    pub assemblies: Vec<PathBuf>,
    /// The package's compile assets are only `_._` placeholders (or none at all).
    pub ships_no_assembly: bool,
    /// `package`, or `framework` for a targeting pack.
    pub kind: &'static str,
}

/// A reference that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableReference {
    pub name: String,
    pub reason: String,
}

/// Everything a project references, as far as the files on this machine tell.
#[derive(Debug, Clone)]
pub struct ReferenceSet {
    pub source: RestoreSource,
    pub target_framework: Option<String>,
    pub packages: Vec<RestoredPackage>,
    pub unreadable: Vec<UnreadableReference>,
}

/// Where to look outside the project: injectable, so tests do not depend on the machine.
#[derive(Debug, Clone, Default)]
pub struct RestoreEnvironment {
    pub global_packages_folder: Option<PathBuf>,
    pub dotnet_roots: Vec<PathBuf>,
}

impl RestoreEnvironment {
    /// From `NUGET_PACKAGES`/`HOME` and `DOTNET_ROOT` plus the usual install folders.
    pub fn from_process() -> RestoreEnvironment {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let global_packages_folder = std::env::var_os("NUGET_PACKAGES")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|home| home.join(".nuget/packages")));
        let mut dotnet_roots: Vec<PathBuf> = std::env::var_os("DOTNET_ROOT").map(PathBuf::from).into_iter().collect();
        dotnet_roots.extend([PathBuf::from("/usr/share/dotnet"), PathBuf::from("/usr/lib/dotnet")]);
        if let Some(home) = home {
            dotnet_roots.push(home.join(".dotnet"));
        }
        RestoreEnvironment { global_packages_folder, dotnet_roots }
    }
}

/// The references of `project`.
pub fn resolve_references(project: &Project, environment: &RestoreEnvironment) -> ReferenceSet {
    let assets = project.directory().join("obj/project.assets.json");
    let mut references = match std::fs::read_to_string(&assets) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(json) => from_assets(&json, &assets, project),
            Err(error) => {
                let mut fallback = from_global_folder(project, environment);
                fallback.unreadable.push(UnreadableReference {
                    name: assets.display().to_string(),
                    reason: format!("not valid JSON ({error}); fell back to the global packages folder"),
                });
                fallback
            }
        },
        Err(_) => from_global_folder(project, environment),
    };
    add_framework(&mut references, project, environment);
    references
}

fn framework_key<'v>(targets: &'v serde_json::Map<String, Value>, wanted: &[String]) -> Option<&'v String> {
    wanted
        .iter()
        .find_map(|framework| targets.keys().find(|key| key.eq_ignore_ascii_case(framework)))
        .or_else(|| targets.keys().find(|key| !key.contains('/')))
        .or_else(|| targets.keys().next())
}

fn from_assets(json: &Value, assets: &Path, project: &Project) -> ReferenceSet {
    let mut unreadable = Vec::new();
    let empty = serde_json::Map::new();
    let targets = json["targets"].as_object().unwrap_or(&empty);
    let libraries = json["libraries"].as_object().unwrap_or(&empty);
    let folders: Vec<PathBuf> = json["packageFolders"]
        .as_object()
        .map(|folders| folders.keys().map(PathBuf::from).collect())
        .unwrap_or_default();
    let Some(target_key) = framework_key(targets, &project.target_frameworks) else {
        unreadable.push(UnreadableReference {
            name: assets.display().to_string(),
            reason: "has no `targets` section: the restore did not complete".into(),
        });
        return ReferenceSet {
            source: RestoreSource::ProjectAssets(assets.to_path_buf()),
            target_framework: project.target_frameworks.first().cloned(),
            packages: Vec::new(),
            unreadable,
        };
    };
    let mut packages = Vec::new();
    for (key, entry) in targets[target_key].as_object().unwrap_or(&empty) {
        if entry["type"].as_str() != Some("package") {
            continue;
        }
        let (id, version) = key.split_once('/').unwrap_or((key.as_str(), ""));
        let relative = libraries.get(key).and_then(|library| library["path"].as_str()).unwrap_or_default();
        let mut assemblies = Vec::new();
        let mut any_asset = false;
        for asset in entry["compile"].as_object().map(|compile| compile.keys().collect::<Vec<_>>()).unwrap_or_default()
        {
            if asset.ends_with("/_._") || asset == "_._" {
                continue;
            }
            any_asset = true;
            let found = folders.iter().map(|folder| folder.join(relative).join(asset)).find(|path| path.is_file());
            match found {
                Some(path) => assemblies.push(path),
                None => unreadable.push(UnreadableReference {
                    name: format!("{id}/{version}: {asset}"),
                    reason: format!(
                        "not found under the restore's package folders ({}): the packages are not on this machine",
                        folders.iter().map(|folder| folder.display().to_string()).collect::<Vec<_>>().join(", ")
                    ),
                }),
            }
        }
        packages.push(RestoredPackage {
            id: id.to_owned(),
            version: version.to_owned(),
            assemblies,
            ships_no_assembly: !any_asset,
            kind: "package",
        });
    }
    ReferenceSet {
        source: RestoreSource::ProjectAssets(assets.to_path_buf()),
        target_framework: Some(target_key.clone()),
        packages,
        unreadable,
    }
}

/// The `ref/` (else `lib/`) folder of a package version that best fits `frameworks`.
fn best_asset_folder(package_version: &Path, frameworks: &[String]) -> Option<PathBuf> {
    for kind in ["ref", "lib"] {
        let base = package_version.join(kind);
        let Ok(entries) = std::fs::read_dir(&base) else { continue };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|entry| entry.path().is_dir())
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .collect();
        names.sort();
        let preferred = frameworks
            .iter()
            .chain(["netstandard2.1".to_owned(), "netstandard2.0".to_owned()].iter())
            .find_map(|framework| names.iter().find(|name| name.eq_ignore_ascii_case(framework)).cloned())
            .or_else(|| names.last().cloned());
        if let Some(name) = preferred {
            return Some(base.join(name));
        }
    }
    None
}

fn from_global_folder(project: &Project, environment: &RestoreEnvironment) -> ReferenceSet {
    let mut unreadable = Vec::new();
    let mut packages = Vec::new();
    let Some(folder) = environment.global_packages_folder.clone() else {
        for reference in &project.package_references {
            unreadable.push(UnreadableReference {
                name: reference.name.clone(),
                reason: "no obj/project.assets.json and no global packages folder (NUGET_PACKAGES or HOME unset)"
                    .into(),
            });
        }
        return ReferenceSet {
            source: RestoreSource::Nothing,
            target_framework: project.target_frameworks.first().cloned(),
            packages,
            unreadable,
        };
    };
    for reference in &project.package_references {
        let Some(version) = reference.version.as_deref().filter(|version| !version.contains('$')) else {
            unreadable.push(UnreadableReference {
                name: reference.name.clone(),
                reason: "no obj/project.assets.json and the PackageReference has no literal Version".into(),
            });
            continue;
        };
        let version_folder = folder.join(reference.name.to_lowercase()).join(version.to_lowercase());
        if !version_folder.is_dir() {
            unreadable.push(UnreadableReference {
                name: format!("{}/{version}", reference.name),
                reason: format!("not restored: {} does not exist", version_folder.display()),
            });
            continue;
        }
        let mut assemblies = Vec::new();
        if let Some(asset_folder) = best_asset_folder(&version_folder, &project.target_frameworks)
            && let Ok(entries) = std::fs::read_dir(&asset_folder)
        {
            assemblies = entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("dll")))
                .collect();
            assemblies.sort();
        }
        packages.push(RestoredPackage {
            id: reference.name.clone(),
            version: version.to_owned(),
            ships_no_assembly: assemblies.is_empty(),
            assemblies,
            kind: "package",
        });
    }
    ReferenceSet {
        source: RestoreSource::GlobalPackagesFolder(folder),
        target_framework: project.target_frameworks.first().cloned(),
        packages,
        unreadable,
    }
}

/// The shared framework a target framework implies (`net8.0` → Microsoft.NETCore.App).
fn implied_framework(target_framework: &str) -> Option<&'static str> {
    let lower = target_framework.to_ascii_lowercase();
    if lower.starts_with("netcoreapp") {
        return Some("Microsoft.NETCore.App");
    }
    if lower == "netstandard2.1" {
        return Some("NETStandard.Library");
    }
    let version = lower.strip_prefix("net")?;
    // `net48`, `net472`: .NET Framework, whose reference assemblies are not a targeting pack.
    if !version.contains('.') {
        return None;
    }
    let major: u32 = version.split('.').next()?.parse().ok()?;
    (5..100).contains(&major).then_some("Microsoft.NETCore.App")
}

fn add_framework(references: &mut ReferenceSet, project: &Project, environment: &RestoreEnvironment) {
    let Some(target_framework) =
        references.target_framework.clone().or_else(|| project.target_frameworks.first().cloned())
    else {
        return;
    };
    let short = target_framework.split('/').next().unwrap_or(&target_framework).to_owned();
    let Some(framework) = implied_framework(&short) else {
        let lower = short.to_ascii_lowercase();
        if lower.starts_with("net") && !lower.contains('.') && !lower.starts_with("netstandard") {
            references.unreadable.push(UnreadableReference {
                name: format!(".NET Framework ({short})"),
                reason: "the .NET Framework reference assemblies are not read; only packages are searched".into(),
            });
        }
        return;
    };
    let pack = format!("{framework}.Ref");
    let found = environment.dotnet_roots.iter().find_map(|root| {
        let versions = std::fs::read_dir(root.join("packs").join(&pack)).ok()?;
        let mut versions: Vec<PathBuf> = versions.flatten().map(|entry| entry.path()).collect();
        versions.sort();
        versions.into_iter().rev().find_map(|version| {
            let folder = version.join("ref").join(&short);
            folder.is_dir().then_some((version, folder))
        })
    });
    match found {
        Some((version, folder)) => {
            let mut assemblies: Vec<PathBuf> = std::fs::read_dir(&folder)
                .map(|entries| {
                    entries
                        .flatten()
                        .map(|entry| entry.path())
                        .filter(|path| path.extension().is_some_and(|extension| extension == "dll"))
                        .collect()
                })
                .unwrap_or_default();
            assemblies.sort();
            references.packages.push(RestoredPackage {
                id: framework.to_owned(),
                version: version.file_name().and_then(|name| name.to_str()).unwrap_or_default().to_owned(),
                ships_no_assembly: assemblies.is_empty(),
                assemblies,
                kind: "framework",
            });
        }
        None => references.unreadable.push(UnreadableReference {
            name: framework.to_owned(),
            reason: format!(
                "no .NET targeting pack (packs/{pack}/*/ref/{short}) on this machine; the framework's types are not searched"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frameworks_implied_by_target_framework_monikers() {
        assert_eq!(implied_framework("net8.0"), Some("Microsoft.NETCore.App"));
        assert_eq!(implied_framework("netcoreapp3.1"), Some("Microsoft.NETCore.App"));
        assert_eq!(implied_framework("net48"), None);
        assert_eq!(implied_framework("netstandard2.0"), None);
    }

    #[test]
    fn frameworks_that_cannot_be_read_are_said() {
        let project_for = |framework: &str| {
            crate::workspace::parse_project(
                Path::new("/nonexistent/App/App.fsproj"),
                &format!(
                    "<Project><PropertyGroup><TargetFramework>{framework}</TargetFramework></PropertyGroup></Project>"
                ),
            )
        };
        let unreadable = |framework: &str| -> Vec<String> {
            resolve_references(&project_for(framework), &RestoreEnvironment::default())
                .unreadable
                .into_iter()
                .map(|entry| entry.name)
                .collect()
        };
        assert_eq!(unreadable("net8.0"), ["Microsoft.NETCore.App"]);
        assert_eq!(unreadable("net48"), [".NET Framework (net48)"]);
        assert!(unreadable("netstandard2.0").is_empty());
    }
}
