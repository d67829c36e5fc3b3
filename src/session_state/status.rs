//! How far FSAC has got, as commands read it: the life-cycle [`State`], the project errors
//! FSAC reported, and [`StatusSnapshot`], the typed facts a command decides on (the public
//! `fslens.status` object is built by the main loop from the same state).

use serde::{Deserialize, Serialize};

/// The life-cycle state reported by `fslens.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// No FSAC runs (none found, or it was never started).
    Absent,
    /// FSAC was spawned and has not answered `initialize` yet.
    Starting,
    /// FSAC answered `initialize` and is loading projects.
    Loading,
    /// FSAC reported the workspace load finished.
    Ready,
    /// FSAC exited unexpectedly.
    Crashed,
}

impl State {
    /// The name `fslens.status` gives this state (`"ready"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            State::Absent => "absent",
            State::Starting => "starting",
            State::Loading => "loading",
            State::Ready => "ready",
            State::Crashed => "crashed",
        }
    }

    /// Whether waiting longer in this state can change anything (FSAC starts or loads).
    pub fn can_become_ready(self) -> bool {
        matches!(self, State::Starting | State::Loading)
    }
}

/// One project error reported by FSAC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectError {
    pub project: String,
    pub code: Option<i64>,
    pub message: String,
}

/// The configuration FSAC loaded a project in, from its `fsharp/notifyWorkspace` `project`
/// payload (docs/fsac-protocol.md §4): FSAC loads a project with several target frameworks
/// in one of them (the first), so the files it compiles are those of that configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedConfiguration {
    /// The project as FSAC names it.
    pub project: String,
    /// `Info.TargetFramework`: the target framework FSAC loaded.
    pub target_framework: Option<String>,
    /// `Info.TargetFrameworks`: every target framework the project declares.
    pub target_frameworks: Vec<String>,
    /// `Files`: the source files of the loaded configuration, in compile order; `None` when
    /// the payload has no list.
    pub files: Option<Vec<String>>,
    /// `Output`: the assembly the project builds (its `TargetPath`), when the payload names one.
    pub output: Option<String>,
    /// `ProjectReferences[].ProjectFileName`: the projects it references, as FSAC names them.
    pub project_references: Vec<String>,
    /// `PackageReferences[].Name`: the NuGet packages it references.
    pub package_references: Vec<String>,
    /// `PackageReferences[].Version`, one per package of `package_references`, when given.
    pub package_versions: Vec<Option<String>>,
    /// `Info.Configuration`: the configuration FSAC loaded (`Debug`).
    pub configuration: Option<String>,
    /// `OutputType`: `lib`, `exe`, … as FSAC names it.
    pub output_type: Option<String>,
    /// `Info.IsTestProject`: the MSBuild property as the design-time build evaluated it.
    pub is_test_project_property: Option<bool>,
    /// `Info.RestoreSuccess`.
    pub restore_success: Option<bool>,
}

/// The packages whose reference makes a project a test project for FSAC's test explorer
/// (FSAC's `TestProjectHelpers.isTestProject`; docs/fsac-protocol.md §9).
pub const TEST_PROJECT_PACKAGES: [&str; 2] = ["Microsoft.NET.Test.Sdk", "Microsoft.TestPlatform.TestHost"];

impl LoadedConfiguration {
    /// Whether FSAC's test explorer runs this project's tests: it references a test platform
    /// package (the `IsTestProject` property is not read).
    pub fn is_test_project(&self) -> bool {
        self.package_references
            .iter()
            .any(|name| TEST_PROJECT_PACKAGES.iter().any(|package| package.eq_ignore_ascii_case(name)))
    }
}

/// What a command may know about the session's FSAC at one moment.
#[derive(Debug, Clone)]
pub struct StatusSnapshot {
    pub state: State,
    /// Why the session is in this state (`fslens.status`'s `reason`).
    pub reason: Option<String>,
    /// Whether this session knows how to start an FSAC at all.
    pub fsac_configured: bool,
    /// How many FSAC processes this session started (0: none yet); it names the running one.
    pub generation: u64,
    /// Whether an FSAC process runs now.
    pub fsac_running: bool,
    /// The end of the last FSAC's stderr (empty when it wrote nothing).
    pub stderr_tail: String,
    /// Whether a restart of FSAC is scheduled (the supervisor's back-off, or `fslens.restart`).
    pub restart_scheduled: bool,
    /// The projects FSAC reported loaded.
    pub projects_loaded: Vec<String>,
    /// The projects FSAC could not load, and why.
    pub project_errors: Vec<ProjectError>,
    /// The configuration each loaded project was loaded in.
    pub loaded_configurations: Vec<LoadedConfiguration>,
}

/// Whether FSAC loaded one project file, as its `project` payloads say.
#[derive(Debug, Clone, Copy)]
pub enum ProjectLoad<'a> {
    /// FSAC loaded it, in this configuration.
    Loaded(&'a LoadedConfiguration),
    /// FSAC loaded other projects and not this one.
    NotLoaded,
    /// FSAC named no project it loaded, so nothing can be said.
    Unknown,
}

impl StatusSnapshot {
    /// The configuration FSAC loaded `project` (as FSAC names it) in, if it said.
    pub fn loaded_configuration(&self, project: &str) -> Option<&LoadedConfiguration> {
        self.loaded_configurations.iter().find(|loaded| loaded.project == project)
    }

    /// Whether FSAC loaded the project file `project`: compared as files (canonical paths), not
    /// as paths ending alike (`samples/Core/Core.fsproj` loaded is no load of `Core/Core.fsproj`).
    pub fn load_of(&self, project: &std::path::Path) -> ProjectLoad<'_> {
        if self.loaded_configurations.is_empty() {
            return ProjectLoad::Unknown;
        }
        let canonical = |path: &std::path::Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let wanted = canonical(project);
        self.loaded_configurations
            .iter()
            .find(|loaded| canonical(std::path::Path::new(&loaded.project)) == wanted)
            .map_or(ProjectLoad::NotLoaded, ProjectLoad::Loaded)
    }

    /// The error FSAC reported loading `project` (as FSAC names it), if any.
    pub fn project_error(&self, project: &str) -> Option<&ProjectError> {
        self.project_errors.iter().find(|error| error.project == project)
    }
}

#[cfg(test)]
mod tests {
    use super::State;

    #[test]
    fn each_state_is_named_as_it_is_serialized() {
        for state in [State::Absent, State::Starting, State::Loading, State::Ready, State::Crashed] {
            assert_eq!(serde_json::to_value(state).unwrap(), serde_json::json!(state.as_str()));
        }
    }
}
