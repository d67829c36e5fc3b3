//! Which MCP tools an agent sees at first and which wait until it asks for them.
//!
//! Every tool description an agent is shown costs it context on every turn, so `tools/list`
//! starts with the core tools — the intent-shaped ones an agent reaches for on most F# tasks —
//! plus `activate_tools`. The situational tools sit in named groups; `activate_tools` turns a
//! group on for this MCP connection and the bridge then sends `notifications/tools/list_changed`
//! so the client lists again. A call to a known tool that is not active yet still runs (and
//! activates its group): hiding a tool saves context, it must never fail a call. Hosts that
//! cannot follow list changes start the bridge with `--all-tools`.

use std::collections::BTreeSet;

use crate::commands::registry::Command;
pub use crate::commands::registry::ToolGroup;

/// The group of a tool, by its MCP name. Tools this table does not know (a command a newer
/// session advertises) are listed with the core tools, so a new command is never hidden
/// behind a group nobody knows to ask for.
pub fn group_of(tool_name: &str) -> ToolGroup {
    known_group_of(tool_name).unwrap_or(ToolGroup::Core)
}

/// The group this table assigns a tool, or `None` for a tool it does not know.
pub fn known_group_of(tool_name: &str) -> Option<ToolGroup> {
    if let Some(command) = Command::from_tool_name(tool_name) {
        return Some(command.group());
    }
    // The tools the bridge composes from LSP requests, and the loader.
    Some(match tool_name {
        ACTIVATE_TOOLS => ToolGroup::Core,
        "navigate" | "symbol_at_word" => ToolGroup::Navigation,
        _ => return None,
    })
}

/// The arguments of `activate_tools` (both optional: with neither, it lists the groups).
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActivateToolsArguments {
    /// Groups to activate; omit to list the groups and what is active.
    #[serde(default)]
    #[schemars(schema_with = "group_names_schema")]
    pub groups: Vec<String>,
    /// Or name tools; their groups are activated.
    #[serde(default)]
    pub tools: Vec<String>,
}

impl crate::commands::params::CommandArguments for ActivateToolsArguments {}

/// `groups`' schema: an array of the activatable group names.
fn group_names_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = ToolGroup::ACTIVATABLE.iter().map(|group| group.as_str()).collect();
    schemars::json_schema!({ "type": "array", "items": { "type": "string", "enum": names } })
}

/// The name of the loader tool.
pub const ACTIVATE_TOOLS: &str = "activate_tools";

/// The groups one MCP connection has turned on.
#[derive(Debug, Clone)]
pub struct Activation {
    everything: bool,
    active: BTreeSet<ToolGroup>,
}

impl Activation {
    /// Only the core tools (and what gets activated later); `everything` lists all tools.
    pub fn new(everything: bool) -> Activation {
        Activation { everything, active: BTreeSet::from([ToolGroup::Core]) }
    }

    pub fn is_listed(&self, tool_name: &str) -> bool {
        self.everything || self.active.contains(&group_of(tool_name))
    }

    pub fn is_active(&self, group: ToolGroup) -> bool {
        self.everything || self.active.contains(&group)
    }

    /// Turns `group` on; whether it was off before (so the tool list changed).
    pub fn activate(&mut self, group: ToolGroup) -> bool {
        !self.everything && self.active.insert(group)
    }

    /// Whether every tool is listed from the start (`--all-tools`).
    pub fn lists_everything(&self) -> bool {
        self.everything
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_tools_are_listed_and_situational_ones_wait_for_their_group() {
        let mut activation = Activation::new(false);
        assert!(activation.is_listed("find") && activation.is_listed(ACTIVATE_TOOLS));
        assert!(activation.is_listed("some_command_from_a_newer_session"));
        assert!(!activation.is_listed("nuget_types") && !activation.is_listed("navigate"));
        assert!(activation.activate(ToolGroup::Assemblies));
        assert!(!activation.activate(ToolGroup::Assemblies), "a second activation changes nothing");
        assert!(activation.is_listed("nuget_types") && !activation.is_listed("navigate"));
        let everything = Activation::new(true);
        assert!(everything.is_listed("restart"));
        assert!(!Activation::new(true).activate(ToolGroup::Session), "nothing to change when all are listed");
    }

    #[test]
    fn the_tests_group_holds_the_tools_that_choose_and_run_tests() {
        let tests: Vec<&str> = crate::commands::registry::Command::ALL
            .iter()
            .map(|command| command.tool_name())
            .filter(|name| group_of(name) == ToolGroup::Tests)
            .collect();
        assert_eq!(tests, ["tests_for_symbol", "run_tests", "affected_tests"]);
        assert_eq!(ToolGroup::from_name("tests"), Some(ToolGroup::Tests));
        let mut activation = Activation::new(false);
        assert!(tests.iter().all(|name| !activation.is_listed(name)), "they wait for their group");
        assert!(activation.activate(ToolGroup::Tests));
        assert!(tests.iter().all(|name| activation.is_listed(name)) && !activation.is_listed("diagnostics"));
    }
}
