//! The real .NET SDK in the tests: where its reference assemblies and its own FSharp.Core are,
//! building the small .NET programs under `tests/` that serve as independent second sources
//! (each built once per test process into `target/dotnet-tools/`), and a real `dotnet restore`.
//! Every function fails loudly, naming what is missing, rather than letting a test skip.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use super::double::repository;

/// The SDK's root folder (the one holding `sdk/`, `packs/` and `shared/`), read from
/// `dotnet --list-sdks` (`10.0.401 [/usr/share/dotnet/sdk]`): the newest SDK listed.
pub fn dotnet_root() -> PathBuf {
    static ROOT: OnceLock<(PathBuf, String)> = OnceLock::new();
    ROOT.get_or_init(newest_sdk).0.clone()
}

/// The newest installed SDK's version.
pub fn sdk_version() -> String {
    static ROOT: OnceLock<(PathBuf, String)> = OnceLock::new();
    ROOT.get_or_init(newest_sdk).1.clone()
}

fn newest_sdk() -> (PathBuf, String) {
    let output = Command::new("dotnet")
        .arg("--list-sdks")
        .output()
        .expect("the .NET SDK's `dotnet` is on PATH (the project's machines have SDK 10)");
    let listing = String::from_utf8_lossy(&output.stdout).into_owned();
    let (version, sdk_folder) = listing
        .lines()
        .filter_map(|line| {
            let (version, rest) = line.split_once(" [")?;
            Some((version.trim().to_owned(), PathBuf::from(rest.trim_end_matches(']'))))
        })
        .max_by(|a, b| version_key(&a.0).cmp(&version_key(&b.0)))
        .unwrap_or_else(|| panic!("`dotnet --list-sdks` lists no SDK: {listing:?}"));
    (sdk_folder.parent().expect("the sdk folder has a parent").to_owned(), version)
}

fn version_key(version: &str) -> Vec<u64> {
    version.split(['.', '-']).map(|part| part.parse().unwrap_or(0)).collect()
}

/// The newest `packs/Microsoft.NETCore.App.Ref/<version>/ref/<tfm>/` folder: the reference
/// assemblies (`System.Runtime.dll`, `netstandard.dll`, …) that projects compile against.
pub fn reference_pack() -> PathBuf {
    let packs = dotnet_root().join("packs/Microsoft.NETCore.App.Ref");
    let newest = newest_child(&packs);
    let reference = newest.join("ref");
    newest_child(&reference)
}

fn newest_child(folder: &Path) -> PathBuf {
    std::fs::read_dir(folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .max_by_key(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            version_key(name.trim_start_matches("net"))
        })
        .unwrap_or_else(|| panic!("{} has no sub-folder", folder.display()))
}

/// One reference assembly of the SDK's reference pack, by file name.
pub fn reference_assembly(name: &str) -> PathBuf {
    let path = reference_pack().join(name);
    assert!(path.exists(), "{} is not in the SDK's reference pack", path.display());
    path
}

/// The FSharp.Core.dll the SDK's F# compiler ships (a real implementation assembly).
pub fn sdk_fsharp_core() -> PathBuf {
    let path = dotnet_root().join("sdk").join(sdk_version()).join("FSharp/FSharp.Core.dll");
    assert!(path.exists(), "{} is missing from the SDK", path.display());
    path
}

/// Builds the .NET program whose project is `tests/<project_folder>` (once per test process)
/// into `target/dotnet-tools/<name>` and returns its entry assembly, to run as
/// `dotnet <dll> …`.
pub fn built_tool(project_folder: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
    let mut built = built.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, dll)) = built.iter().find(|(folder, _)| folder == project_folder) {
        return dll.clone();
    }
    let project = repository().join("tests").join(project_folder);
    let name = project.file_name().expect("a project folder").to_string_lossy().into_owned();
    let output_folder = repository().join("target/dotnet-tools").join(&name);
    let output = Command::new("dotnet")
        .args(["build", "-c", "Release", "--nologo", "-v", "quiet", "-o"])
        .arg(&output_folder)
        .arg(&project)
        .output()
        .expect("run dotnet build");
    assert!(
        output.status.success(),
        "`dotnet build {}` failed:\n{}{}",
        project.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let dll = output_folder.join(format!("{name}.dll"));
    assert!(dll.exists(), "{} was not built", dll.display());
    built.push((project_folder.to_owned(), dll.clone()));
    dll
}

/// Runs a real `dotnet restore` of `project` into the user's global packages folder, as a
/// user's own restore would (the NuGet copy these machines reach serves what the fixtures ask
/// for).
pub fn restore(project: &Path) {
    let output = Command::new("dotnet")
        .args(["restore", "--nologo", "-v", "quiet"])
        .arg(project)
        .output()
        .expect("run dotnet restore");
    assert!(
        output.status.success(),
        "`dotnet restore {}` failed:\n{}{}",
        project.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A file of a NuGet package as a real restore lays it out (`<global packages>/<id>/<version>/
/// <path>`): the package is restored once per test process through a generated project that
/// references it, from the NuGet these machines reach.
pub fn package_file(id: &str, version: &str, path: &str) -> PathBuf {
    static RESTORED: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let key = format!("{id}/{version}");
    let restored = RESTORED.get_or_init(|| Mutex::new(Vec::new()));
    let mut restored = restored.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !restored.contains(&key) {
        let project = tempfile::tempdir().unwrap();
        let file = project.path().join("Restore.fsproj");
        std::fs::write(
            &file,
            format!(
                "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup>\n  \
                 <ItemGroup><PackageReference Include=\"{id}\" Version=\"{version}\" /></ItemGroup>\n</Project>\n"
            ),
        )
        .unwrap();
        restore(&file);
        restored.push(key);
    }
    let packages = std::env::var_os("NUGET_PACKAGES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME names the user's folder")).join(".nuget/packages")
    });
    let file = packages.join(id.to_lowercase()).join(version).join(path);
    assert!(file.exists(), "{} is not in the restored package", file.display());
    file
}

/// The versions `dotnet --list-sdks` lists, in its order.
pub fn installed_sdk_versions() -> Vec<String> {
    let output = Command::new("dotnet").arg("--list-sdks").output().expect("run dotnet --list-sdks");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once(" [").map(|(version, _)| version.trim().to_owned()))
        .collect()
}
