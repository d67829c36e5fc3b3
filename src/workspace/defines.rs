//! The conditional-compilation symbols a project is compiled with, as fslens reads them
//! without MSBuild: what FSAC loads it with (its first target framework, configuration
//! `Debug`) and what the project says.
//!
//! FSAC's `fsharp/notifyWorkspace` `project` payload carries no compiler options
//! (docs/fsac-protocol.md §4: `Info` names the target framework and the configuration,
//! not the `--define:`s), so the defines are put together the way the .NET SDK does:
//!
//! - the compiler's own: `COMPILED` (not `INTERACTIVE`) and `EDITING` (FCS checks for an
//!   editor with it defined);
//! - the configuration's: `DEBUG` and `TRACE` (FSAC loads `Debug`);
//! - the target framework's implicit ones (`NET`, `NET8_0`, `NET8_0_OR_GREATER` … `NET5_0_OR_GREATER`,
//!   `NETCOREAPP`, `NETCOREAPP3_1_OR_GREATER` …; `NETSTANDARD2_0`, `NETSTANDARD2_0_OR_GREATER` …;
//!   `NETFRAMEWORK`, `NET48`, `NET48_OR_GREATER` …);
//! - every symbol of a `<DefineConstants>` of the project file or of the `Directory.Build.props`
//!   MSBuild imports for it (the nearest one above the project), `$(…)` references left out,
//!   when it is unconditioned or its `Condition` (its own, or its property group's) holds in
//!   the configuration FSAC loads (see [`condition_holds`]).
//!
//! A `Condition` fslens cannot read (another property, a function, `Exists(…)`) is not taken to
//! hold: the symbols under it are not counted (code under them reads as inactive, which makes
//! an answer partial, never wrongly complete).

use std::collections::BTreeSet;
use std::path::Path;

use crate::workspace::Project;
use crate::workspace::xml::{local_name, parse_xml};

/// The defines `project` is compiled with when FSAC loads it (see the module's notes).
pub fn project_defines(project: &Project) -> BTreeSet<String> {
    let mut defines: BTreeSet<String> =
        ["COMPILED", "EDITING", "DEBUG", "TRACE"].iter().map(|name| (*name).to_owned()).collect();
    if let Some(framework) = project.target_frameworks.first() {
        defines.extend(framework_defines(framework));
    }
    if let Some(props) = directory_build_props(project.directory()) {
        defines.extend(define_constants_in(&props, project));
    }
    defines.extend(define_constants_in(&project.path, project));
    defines
}

/// Whether a `Compile` item's MSBuild condition holds in the configuration FSAC loads
/// `project` with: see [`condition_holds`].
pub fn compile_condition_holds(condition: &str, project: &Project) -> Option<bool> {
    condition_holds(condition, project)
}

/// The configuration FSAC loads every project in (`Debug`, the module's notes), and the
/// platform the .NET SDK gives a project that names none.
const LOADED_CONFIGURATION: &str = "debug";
const DEFAULT_PLATFORM: &str = "anycpu";

/// Whether an MSBuild `Condition` holds in the configuration FSAC loads `project` with (its
/// first target framework, `Debug`, `AnyCPU`): comparisons (`==`, `!=`, case-insensitive, as
/// MSBuild compares) of texts made of literals and `$(TargetFramework)`, `$(Configuration)` and
/// `$(Platform)` (`'$(Configuration)|$(Platform)' == 'Debug|AnyCPU'`), joined by `and` or by
/// `or`, each in parentheses or not. Any other condition is `None` (not known).
pub fn condition_holds(condition: &str, project: &Project) -> Option<bool> {
    let framework = project.target_frameworks.first().map(|framework| framework.to_ascii_lowercase());
    let lower = condition.to_ascii_lowercase();
    let value_of = |side: &str| -> Option<String> {
        let side = side.trim().trim_matches('\'').trim();
        let mut value = side.replace("$(configuration)", LOADED_CONFIGURATION).replace("$(platform)", DEFAULT_PLATFORM);
        if value.contains("$(targetframework)") {
            value = value.replace("$(targetframework)", framework.as_deref()?);
        }
        (!value.contains("$(") && !value.contains('\'')).then_some(value)
    };
    let comparison = |text: &str| -> Option<bool> {
        let text = text.trim();
        let text = text.strip_prefix('(').and_then(|inner| inner.strip_suffix(')')).unwrap_or(text);
        let (left, right, equal) = match (text.split_once("=="), text.split_once("!=")) {
            (Some((left, right)), None) => (left, right, true),
            (None, Some((left, right))) => (left, right, false),
            _ => return None,
        };
        Some((value_of(left)? == value_of(right)?) == equal)
    };
    if lower.contains(" or ") {
        if lower.contains(" and ") {
            return None;
        }
        let parts: Option<Vec<bool>> = lower.split(" or ").map(comparison).collect();
        return parts.map(|parts| parts.into_iter().any(|part| part));
    }
    let parts: Option<Vec<bool>> = lower.split(" and ").map(comparison).collect();
    parts.map(|parts| parts.into_iter().all(|part| part))
}

/// The symbols of the `<DefineConstants>` of an MSBuild file that hold for `project`: those
/// unconditioned, and those whose condition (and their property group's) holds.
fn define_constants_in(path: &Path, project: &Project) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let Ok(document) = parse_xml(&text) else { return Vec::new() };
    let holds =
        |condition: Option<&str>| condition.is_none_or(|condition| condition_holds(condition, project) == Some(true));
    let mut symbols = Vec::new();
    for root in &document.children {
        for group in root.children_named("PropertyGroup").filter(|group| holds(group.attribute("Condition"))) {
            for property in group.children.iter().filter(|property| holds(property.attribute("Condition"))) {
                if local_name(&property.name).eq_ignore_ascii_case("DefineConstants") {
                    symbols.extend(
                        property
                            .text
                            .split([';', ','])
                            .map(str::trim)
                            .filter(|symbol| !symbol.is_empty() && !symbol.contains("$("))
                            .map(str::to_owned),
                    );
                }
            }
        }
    }
    symbols
}

/// The `Directory.Build.props` MSBuild imports for a project in `directory`: the nearest one
/// in it or above it.
fn directory_build_props(directory: &Path) -> Option<std::path::PathBuf> {
    directory.ancestors().map(|ancestor| ancestor.join("Directory.Build.props")).find(|props| props.is_file())
}

/// The .NET SDK's implicit defines for a target framework moniker (`net8.0`,
/// `netstandard2.0`, `net48`, `netcoreapp3.1`; a platform suffix such as `-windows` is
/// dropped).
pub fn framework_defines(framework: &str) -> Vec<String> {
    let framework = framework.split('-').next().unwrap_or(framework).to_ascii_lowercase();
    let mut defines = Vec::new();
    let version = |text: &str| -> Option<(u32, u32)> {
        let mut parts = text.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().map_or(Some(0), |minor| minor.parse().ok())?;
        Some((major, minor))
    };
    if let Some(rest) = framework.strip_prefix("netstandard") {
        let Some((major, minor)) = version(rest) else { return defines };
        defines.push("NETSTANDARD".to_owned());
        defines.push(format!("NETSTANDARD{major}_{minor}"));
        for (known_major, known_minor) in [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 0), (2, 1)] {
            if (known_major, known_minor) <= (major, minor) {
                defines.push(format!("NETSTANDARD{known_major}_{known_minor}_OR_GREATER"));
            }
        }
    } else if let Some(rest) = framework.strip_prefix("netcoreapp") {
        let Some((major, minor)) = version(rest) else { return defines };
        defines.push("NETCOREAPP".to_owned());
        defines.push(format!("NETCOREAPP{major}_{minor}"));
        for known in core_versions().into_iter().filter(|known| *known <= (major, minor)) {
            defines.push(format!("NETCOREAPP{}_{}_OR_GREATER", known.0, known.1));
        }
    } else if let Some(rest) = framework.strip_prefix("net") {
        if rest.contains('.') {
            // net5.0 and later: .NET (Core).
            let Some((major, minor)) = version(rest) else { return defines };
            defines.push("NET".to_owned());
            defines.push(format!("NET{major}_{minor}"));
            defines.push("NETCOREAPP".to_owned());
            for known in core_versions().into_iter().filter(|known| *known <= (major, minor)) {
                defines.push(format!("NETCOREAPP{}_{}_OR_GREATER", known.0, known.1));
            }
            for known_major in 5..=major {
                defines.push(format!("NET{known_major}_0_OR_GREATER"));
            }
        } else if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
            // net48, net472: the .NET Framework.
            defines.push("NETFRAMEWORK".to_owned());
            defines.push(format!("NET{rest}"));
            for known in
                ["20", "30", "35", "40", "45", "451", "452", "46", "461", "462", "47", "471", "472", "48", "481"]
            {
                let padded = |digits: &str| format!("{digits:0<3}");
                if padded(known) <= padded(rest) {
                    defines.push(format!("NET{known}_OR_GREATER"));
                }
            }
        }
    }
    defines
}

/// The .NET Core versions before .NET 5 the SDK names `NETCOREAPPx_y_OR_GREATER`.
fn core_versions() -> Vec<(u32, u32)> {
    vec![(1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (3, 0), (3, 1)]
}

#[cfg(test)]
mod tests {
    use super::{compile_condition_holds, condition_holds, framework_defines, project_defines};

    #[test]
    fn target_framework_conditions_of_compile_items() {
        let project = crate::workspace::parse_project(
            std::path::Path::new("/w/M.fsproj"),
            "<Project><PropertyGroup><TargetFrameworks>net10.0;netstandard2.0</TargetFrameworks></PropertyGroup></Project>",
        );
        assert_eq!(compile_condition_holds("'$(TargetFramework)' == 'net10.0'", &project), Some(true));
        assert_eq!(compile_condition_holds(" '$(TargetFramework)'=='netstandard2.0' ", &project), Some(false));
        assert_eq!(compile_condition_holds("'$(TargetFramework)' != 'netstandard2.0'", &project), Some(true));
        assert_eq!(
            compile_condition_holds("'$(TargetFramework)' == 'net48' Or '$(TargetFramework)' == 'net10.0'", &project),
            Some(true)
        );
        assert_eq!(compile_condition_holds("Exists('x.fs')", &project), None);
    }

    #[test]
    fn configuration_and_platform_conditions() {
        let project = crate::workspace::parse_project(
            std::path::Path::new("/w/M.fsproj"),
            "<Project><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>",
        );
        assert_eq!(condition_holds("'$(Configuration)' == 'Debug'", &project), Some(true));
        assert_eq!(condition_holds(" '$(Configuration)|$(Platform)' == 'Release|AnyCPU' ", &project), Some(false));
        assert_eq!(condition_holds("'$(Configuration)|$(Platform)'=='Debug|AnyCPU'", &project), Some(true));
        assert_eq!(
            condition_holds("('$(Configuration)' == 'Debug') and ('$(TargetFramework)' == 'net8.0')", &project),
            Some(true)
        );
        assert_eq!(
            condition_holds("'$(Configuration)' != 'Debug' or '$(TargetFramework)' == 'net6.0'", &project),
            Some(false)
        );
        assert_eq!(condition_holds("'$(OS)' == 'Windows_NT'", &project), None);
        assert_eq!(condition_holds("'$(DefineConstants)' == ''", &project), None);
        assert_eq!(
            condition_holds("$([MSBuild]::IsTargetFrameworkCompatible('$(TargetFramework)', 'net6.0'))", &project),
            None
        );
        assert_eq!(condition_holds("'$(Configuration)' == 'Debug' and '$(A)' == '' or '$(B)' == ''", &project), None);
    }

    /// Only the `DefineConstants` whose conditions hold in Debug count (`DEBUG_METERS`, from a
    /// group, and `EVERYWHERE`; `RELEASE_METERS` and `WINDOWS_ONLY`, whose condition fslens
    /// cannot read, do not). Before, every conditioned one was left out.
    #[test]
    fn conditioned_define_constants_count_when_their_condition_holds() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("M.fsproj");
        let text = r#"<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework><DefineConstants>$(DefineConstants);EVERYWHERE</DefineConstants></PropertyGroup>
  <PropertyGroup Condition="'$(Configuration)' == 'Debug'"><DefineConstants>$(DefineConstants);DEBUG_METERS</DefineConstants></PropertyGroup>
  <PropertyGroup Condition=" '$(Configuration)|$(Platform)' == 'Release|AnyCPU' "><DefineConstants>$(DefineConstants);RELEASE_METERS</DefineConstants></PropertyGroup>
  <PropertyGroup><DefineConstants Condition="'$(OS)' == 'Windows_NT'">$(DefineConstants);WINDOWS_ONLY</DefineConstants></PropertyGroup>
</Project>"#;
        std::fs::write(&path, text).unwrap();
        let project = crate::workspace::parse_project(&path, text);
        let defines = project_defines(&project);
        assert!(defines.contains("DEBUG_METERS") && defines.contains("EVERYWHERE"), "{defines:?}");
        assert!(!defines.contains("RELEASE_METERS") && !defines.contains("WINDOWS_ONLY"), "{defines:?}");
    }

    #[test]
    fn implicit_defines_of_target_frameworks() {
        let net8 = framework_defines("net8.0");
        for name in ["NET", "NET8_0", "NETCOREAPP", "NET8_0_OR_GREATER", "NET6_0_OR_GREATER", "NET5_0_OR_GREATER"] {
            assert!(net8.contains(&name.to_owned()), "{name}: {net8:?}");
        }
        assert!(!net8.contains(&"NET9_0_OR_GREATER".to_owned()));
        let standard = framework_defines("netstandard2.0");
        assert!(standard.contains(&"NETSTANDARD2_0_OR_GREATER".to_owned()), "{standard:?}");
        assert!(!standard.iter().any(|name| name.starts_with("NET6")), "{standard:?}");
        let framework = framework_defines("net48");
        assert!(framework.contains(&"NET472_OR_GREATER".to_owned()) && framework.contains(&"NETFRAMEWORK".to_owned()));
        assert!(!framework.contains(&"NET481_OR_GREATER".to_owned()), "{framework:?}");
        assert!(framework_defines("net8.0-windows").contains(&"NET8_0_OR_GREATER".to_owned()));
    }
}
