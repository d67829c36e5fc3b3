//! How far FSAC has got: a state machine fed by what FSAC says on the wire.
//!
//! FSAC announces project loading through `fsharp/notifyWorkspace` (whose `content` is a JSON
//! string in FSAC's own PascalCase envelope) and `$/progress` ("Loading N Projects")
//! (docs/fsac-protocol.md §4); per-document analysis lives in `session_state::analysis`. Nothing
//! here guesses from elapsed time: a state changes only when FSAC said something.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

pub use crate::session_state::status::{LoadedConfiguration, ProjectError, State};

/// The readiness of the FSAC session.
#[derive(Debug, Clone)]
pub struct Readiness {
    state: State,
    reason: Option<String>,
    automatic_workspace_init: bool,
    projects_loading: BTreeSet<String>,
    projects_loaded: BTreeSet<String>,
    project_errors: Vec<ProjectError>,
    loaded_configurations: BTreeMap<String, LoadedConfiguration>,
    progress_titles: BTreeMap<String, String>,
    workspace_loads_finished: u64,
}

impl Readiness {
    pub fn absent(reason: impl Into<String>) -> Self {
        Readiness { state: State::Absent, reason: Some(reason.into()), ..Readiness::starting() }
    }

    pub fn starting() -> Self {
        Readiness {
            state: State::Starting,
            reason: None,
            automatic_workspace_init: false,
            projects_loading: BTreeSet::new(),
            projects_loaded: BTreeSet::new(),
            project_errors: Vec::new(),
            loaded_configurations: BTreeMap::new(),
            progress_titles: BTreeMap::new(),
            workspace_loads_finished: 0,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The projects FSAC reported loaded.
    pub fn projects_loaded(&self) -> Vec<String> {
        self.projects_loaded.iter().cloned().collect()
    }

    /// The configuration each loaded project was loaded in (target framework, files).
    pub fn loaded_configurations(&self) -> Vec<LoadedConfiguration> {
        self.loaded_configurations.values().cloned().collect()
    }

    /// The projects FSAC could not load.
    pub fn project_errors(&self) -> &[ProjectError] {
        &self.project_errors
    }

    pub fn is_ready(&self) -> bool {
        self.state == State::Ready
    }

    /// FSAC answered `initialize`. With automatic workspace init it loads by itself; without
    /// it, it waits for the editor's `fsharp/workspaceLoad`.
    pub fn initialized(&mut self, automatic_workspace_init: bool) {
        self.automatic_workspace_init = automatic_workspace_init;
        if self.state == State::Starting {
            self.state = State::Loading;
            self.reason = Some(if automatic_workspace_init {
                "FSAC is loading the workspace it chose (AutomaticWorkspaceInit)".to_owned()
            } else {
                "waiting for the editor to choose projects (fsharp/workspaceLoad)".to_owned()
            });
        }
    }

    /// FSAC could not be started or exited before answering `initialize`.
    pub fn failed_to_start(&mut self, reason: impl Into<String>) {
        self.state = State::Crashed;
        self.reason = Some(reason.into());
    }

    /// FSAC exited. An exit after `shutdown` is expected and not a crash.
    pub fn exited(&mut self, expected: bool, reason: impl Into<String>) {
        self.state = if expected { State::Absent } else { State::Crashed };
        self.reason = Some(reason.into());
        self.progress_titles.clear();
    }

    /// Feeds one notification from FSAC. Returns true when the reported state changed.
    pub fn observe_notification(&mut self, method: &str, params: &Value) -> bool {
        let before = (self.state, self.reason.clone());
        match method {
            "fsharp/notifyWorkspace" => self.observe_notify_workspace(params),
            "$/progress" => self.observe_progress(params),
            _ => {}
        }
        before != (self.state, self.reason.clone())
    }

    fn observe_notify_workspace(&mut self, params: &Value) {
        // `content` is itself JSON, serialized by FSAC's own (PascalCase) serializer.
        let Some(content) = params.get("content").and_then(Value::as_str) else {
            return;
        };
        let Ok(content) = serde_json::from_str::<Value>(content) else {
            return;
        };
        let data = content.get("Data").cloned().unwrap_or(Value::Null);
        let project = data
            .get("Project")
            .or_else(|| data.pointer("/AdditionalData/Project"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        match content.get("Kind").and_then(Value::as_str) {
            Some("projectLoading") => {
                if let Some(project) = project {
                    self.projects_loading.insert(project);
                }
                if matches!(self.state, State::Loading | State::Ready) {
                    self.state = State::Loading;
                    self.reason = Some(format!("FSAC is loading {} project(s)", self.projects_loading.len()));
                }
            }
            Some("project") => {
                if let Some(project) = project {
                    self.projects_loading.remove(&project);
                    self.project_errors.retain(|error| error.project != project);
                    self.loaded_configurations.insert(project.clone(), loaded_configuration(&project, &data));
                    self.projects_loaded.insert(project);
                }
            }
            Some("error") => {
                let project = project.unwrap_or_default();
                self.projects_loading.remove(&project);
                self.loaded_configurations.remove(&project);
                self.project_errors.retain(|error| error.project != project);
                self.project_errors.push(ProjectError {
                    project,
                    code: data.get("Code").and_then(Value::as_i64),
                    message: data.get("Message").and_then(Value::as_str).unwrap_or_default().to_owned(),
                });
            }
            Some("workspaceLoad") if data.get("Status").and_then(Value::as_str) == Some("finished") => {
                self.workspace_loads_finished += 1;
                self.projects_loading.clear();
                if matches!(self.state, State::Loading | State::Ready | State::Starting) {
                    self.state = State::Ready;
                    self.reason = Some(format!(
                        "workspace loaded: {} project(s), {} with errors",
                        self.projects_loaded.len(),
                        self.project_errors.len()
                    ));
                }
            }
            _ => {}
        }
    }

    fn observe_progress(&mut self, params: &Value) {
        let token = match params.get("token") {
            Some(Value::String(token)) => token.clone(),
            Some(other) => other.to_string(),
            None => return,
        };
        let value = params.get("value").cloned().unwrap_or(Value::Null);
        match value.get("kind").and_then(Value::as_str) {
            Some("begin") => {
                let title = value.get("title").and_then(Value::as_str).unwrap_or_default().to_owned();
                if title.starts_with("Loading") && matches!(self.state, State::Loading | State::Ready) {
                    self.state = State::Loading;
                    self.reason = Some(format!("FSAC: {title}"));
                }
                self.progress_titles.insert(token, title);
            }
            Some("end") => {
                self.progress_titles.remove(&token);
            }
            _ => {}
        }
    }

    /// The readiness part of `fslens.status`.
    pub fn to_json(&self) -> Value {
        json!({
            "state": self.state,
            "reason": self.reason,
            "automaticWorkspaceInit": self.automatic_workspace_init,
            "workspaceLoadsFinished": self.workspace_loads_finished,
            "projectsLoaded": self.projects_loaded,
            "projectsLoading": self.projects_loading,
            "projectErrors": self.project_errors,
            "progress": self.progress_titles.values().collect::<Vec<_>>(),
        })
    }
}

/// The configuration a `project` payload says FSAC loaded: `Info.TargetFramework`,
/// `Info.TargetFrameworks`, `Info.Configuration`, `Info.IsTestProject`, `Info.RestoreSuccess`,
/// `Files`, `Output`, `OutputType`, and the names (and versions) of its project and package
/// references.
fn loaded_configuration(project: &str, data: &Value) -> LoadedConfiguration {
    let text = |value: &Value| value.as_str().filter(|text| !text.is_empty()).map(str::to_owned);
    let info = data.get("Info").unwrap_or(&Value::Null);
    let target_framework = info.get("TargetFramework").and_then(text);
    let mut target_frameworks: Vec<String> =
        info.get("TargetFrameworks").and_then(Value::as_array).into_iter().flatten().filter_map(text).collect();
    if target_frameworks.is_empty() {
        target_frameworks.extend(target_framework.clone());
    }
    let files = data.get("Files").and_then(Value::as_array).map(|files| files.iter().filter_map(text).collect());
    let output = data.get("Output").and_then(text);
    let named = |list: &str, member: &str| -> Vec<String> {
        data.get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|item| item.get(member).and_then(text))
            .collect()
    };
    let packages: Vec<&Value> = data
        .get("PackageReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|item| item.get("Name").and_then(text).is_some())
        .collect();
    LoadedConfiguration {
        package_versions: packages.iter().map(|item| item.get("Version").and_then(text)).collect(),
        configuration: info.get("Configuration").and_then(text),
        output_type: data.get("OutputType").and_then(text),
        is_test_project_property: info.get("IsTestProject").and_then(Value::as_bool),
        restore_success: info.get("RestoreSuccess").and_then(Value::as_bool),
        project: project.to_owned(),
        target_framework,
        target_frameworks,
        files,
        output,
        project_references: named("ProjectReferences", "ProjectFileName"),
        package_references: named("PackageReferences", "Name"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notify(kind: &str, data: Value) -> Value {
        json!({ "content": json!({ "Kind": kind, "Data": data }).to_string() })
    }

    #[test]
    fn follows_a_workspace_load() {
        let mut readiness = Readiness::starting();
        assert_eq!(readiness.state(), State::Starting);
        readiness.initialized(true);
        assert_eq!(readiness.state(), State::Loading);
        readiness.observe_notification(
            "fsharp/notifyWorkspace",
            &notify("projectLoading", json!({"Project": "/w/A.fsproj"})),
        );
        readiness.observe_notification(
            "fsharp/notifyWorkspace",
            &notify("projectLoading", json!({"Project": "/w/B.fsproj"})),
        );
        readiness.observe_notification(
            "$/progress",
            &json!({"token": "t1", "value": {"kind": "begin", "title": "Loading 2 Projects"}}),
        );
        assert_eq!(readiness.reason(), Some("FSAC: Loading 2 Projects"));
        readiness.observe_notification("fsharp/notifyWorkspace", &notify("project", json!({"Project": "/w/A.fsproj"})));
        readiness.observe_notification(
            "fsharp/notifyWorkspace",
            &notify(
                "error",
                json!({"Code": 100, "Message": "Project not restored", "AdditionalData": {"Project": "/w/B.fsproj"}}),
            ),
        );
        assert_eq!(readiness.state(), State::Loading);
        let changed = readiness
            .observe_notification("fsharp/notifyWorkspace", &notify("workspaceLoad", json!({"Status": "finished"})));
        assert!(changed);
        assert!(readiness.is_ready());
        let status = readiness.to_json();
        assert_eq!(status["projectsLoaded"], json!(["/w/A.fsproj"]));
        assert_eq!(status["projectErrors"][0]["code"], json!(100));
        assert_eq!(status["reason"], json!("workspace loaded: 1 project(s), 1 with errors"));
    }

    #[test]
    fn keeps_the_configuration_each_project_was_loaded_in() {
        let mut readiness = Readiness::starting();
        readiness.initialized(true);
        let data = json!({"Project": "/w/M.fsproj", "Files": ["/w/Text.fs", "/w/Modern.fs"],
            "Output": "/w/bin/M.dll",
            "ProjectReferences": [{"RelativePath": "../L/L.fsproj", "ProjectFileName": "/L/L.fsproj"}],
            "PackageReferences": [{"Name": "Microsoft.NET.Test.Sdk", "Version": "17.0.0", "FullPath": "/p"}],
            "OutputType": "lib",
            "Info": {"TargetFramework": "net10.0", "TargetFrameworks": ["net10.0", "netstandard2.0"],
                "Configuration": "Debug", "IsTestProject": false, "RestoreSuccess": true}});
        readiness.observe_notification("fsharp/notifyWorkspace", &notify("project", data));
        readiness.observe_notification("fsharp/notifyWorkspace", &notify("project", json!({"Project": "/w/A.fsproj"})));
        let loaded = readiness.loaded_configurations();
        assert_eq!(loaded.len(), 2);
        assert_eq!(loaded[0].project, "/w/A.fsproj");
        assert_eq!((loaded[0].target_framework.as_deref(), loaded[0].files.as_ref()), (None, None));
        assert_eq!(loaded[1].target_framework.as_deref(), Some("net10.0"));
        assert_eq!(loaded[1].target_frameworks, ["net10.0", "netstandard2.0"]);
        assert_eq!(loaded[1].files.as_deref(), Some(&["/w/Text.fs".to_owned(), "/w/Modern.fs".to_owned()][..]));
        assert_eq!(loaded[1].output.as_deref(), Some("/w/bin/M.dll"));
        assert_eq!(loaded[1].project_references, ["/L/L.fsproj"]);
        assert_eq!(loaded[1].package_versions, [Some("17.0.0".to_owned())]);
        assert_eq!(loaded[1].configuration.as_deref(), Some("Debug"));
        assert_eq!(loaded[1].output_type.as_deref(), Some("lib"));
        assert_eq!((loaded[1].is_test_project_property, loaded[1].restore_success), (Some(false), Some(true)));
        assert_eq!((loaded[0].configuration.as_ref(), loaded[0].restore_success), (None, None));
        assert!(loaded[1].is_test_project() && !loaded[0].is_test_project());
        // A project that fails to load on a reload has no loaded configuration any more.
        readiness.observe_notification(
            "fsharp/notifyWorkspace",
            &notify("error", json!({"Code": 101, "Message": "bad", "AdditionalData": {"Project": "/w/M.fsproj"}})),
        );
        assert_eq!(readiness.loaded_configurations().len(), 1);
    }

    #[test]
    fn ignores_garbage_and_records_analysis() {
        let mut readiness = Readiness::starting();
        readiness.initialized(false);
        assert!(!readiness.observe_notification("fsharp/notifyWorkspace", &json!({"content": "not json"})));
        assert!(!readiness.observe_notification("fsharp/notifyWorkspace", &json!(7)));
        assert!(!readiness.observe_notification("$/progress", &json!({})));
        readiness.exited(false, "FSAC exited with code 3");
        assert_eq!(readiness.state(), State::Crashed);
    }
}
