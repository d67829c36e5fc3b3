//! Why a command has no verdict: the typed `blockingReason` that `fslens.check` gives with
//! `unknown` (docs/commands.md, check's answer table), and that the diagnostic tools, `runTests`
//! and `status`'s `noProjects` give in the same shape. `errorKind` is one of
//! `lsp::ext::error_kinds`; the other members belong to particular kinds and are left out when
//! the kind has none.

use serde::{Deserialize, Serialize};

use crate::session_state::status::State;

/// `{errorKind, message, remedy?, …}`: the kind, what happened in words, and the members the
/// kind adds.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase")]
pub struct BlockingReason {
    pub error_kind: String,
    pub message: String,
    /// What to do about it, when there is one thing to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
    /// FSAC's state when it was not ready or went away (`timeout`, `fsac_unavailable`,
    /// `fsac_restarted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
    /// The project concerned, relative to the workspace root (`project_not_restored`,
    /// `project_failure`, `project_file_malformed`, `compile_item_missing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// FSAC's code for a project that failed to load (100: never restored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsac_error_code: Option<i64>,
    /// The file concerned (`file_not_in_project`, the project-file errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `project_file_malformed`: the 1-based line and column where the XML breaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// `not_in_loaded_configuration`: the files FSAC never analyses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// `no_projects`: where fslens looked, what it skipped, how many F# files it found in no
    /// project, and what it could not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searched: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_directories: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_files: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<String>>,
    /// `sdk_not_found`: the SDK global.json pins, those installed, the global.json, and what to
    /// do (either remedy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_sdk_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_sdks: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_json_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedies: Option<Vec<String>>,
}

impl BlockingReason {
    /// A reason of `kind` (one of `error_kinds`) with no members besides the message.
    pub fn new(kind: &str, message: impl Into<String>) -> BlockingReason {
        BlockingReason { error_kind: kind.to_owned(), message: message.into(), ..BlockingReason::default() }
    }

    /// The same reason, saying FSAC's state.
    pub fn in_state(self, state: State) -> BlockingReason {
        BlockingReason { state: Some(state), ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_a_kind_lacks_are_left_out_and_the_rest_are_camel_case() {
        let reason = BlockingReason {
            project: Some("src/App.fsproj".into()),
            fsac_error_code: Some(100),
            remedy: Some("run `dotnet restore src/App.fsproj`".into()),
            ..BlockingReason::new("project_not_restored", "FSAC could not load src/App.fsproj")
        };
        assert_eq!(
            serde_json::to_value(&reason).unwrap(),
            serde_json::json!({"errorKind": "project_not_restored", "message": "FSAC could not load src/App.fsproj",
                "remedy": "run `dotnet restore src/App.fsproj`", "project": "src/App.fsproj", "fsacErrorCode": 100})
        );
        let timeout = BlockingReason::new("timeout", "FSAC had not finished loading").in_state(State::Loading);
        assert_eq!(serde_json::to_value(&timeout).unwrap()["state"], "loading");
        let read: BlockingReason = serde_json::from_value(serde_json::to_value(&timeout).unwrap()).unwrap();
        assert_eq!(read, timeout);
    }
}
