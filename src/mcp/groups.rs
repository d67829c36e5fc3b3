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

/// A set of tools that is listed or not as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolGroup {
    /// Always listed.
    Core,
    /// Compiler-resolved navigation at a position and file/project outlines.
    Navigation,
    /// What the session has reported, what a diagnostic means and how FSAC would fix it.
    Diagnostics,
    /// Types and members of the assemblies the projects reference (NuGet and framework).
    Assemblies,
    /// Edits to declarations (visibility).
    Edits,
    /// Session control.
    Session,
}

impl ToolGroup {
    /// Every group that can be activated, in the order `activate_tools` lists them.
    pub const ACTIVATABLE: [ToolGroup; 5] =
        [ToolGroup::Navigation, ToolGroup::Diagnostics, ToolGroup::Assemblies, ToolGroup::Edits, ToolGroup::Session];

    /// The group's name on the wire (`activate_tools` arguments and answers).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolGroup::Core => "core",
            ToolGroup::Navigation => "navigation",
            ToolGroup::Diagnostics => "diagnostics",
            ToolGroup::Assemblies => "assemblies",
            ToolGroup::Edits => "edits",
            ToolGroup::Session => "session",
        }
    }

    pub fn from_name(name: &str) -> Option<ToolGroup> {
        [ToolGroup::Core].into_iter().chain(ToolGroup::ACTIVATABLE).find(|group| group.as_str() == name)
    }

    /// When an agent wants the group, in a few words.
    pub fn purpose(self) -> &'static str {
        match self {
            ToolGroup::Core => "listed from the start",
            ToolGroup::Navigation => "compiler answers at one position (definition, references, hover) and outlines",
            ToolGroup::Diagnostics => {
                "known diagnostics per file, what one means, FSAC's fixes for it, the `open` an unresolved name needs"
            }
            ToolGroup::Assemblies => "types and members of referenced NuGet and framework assemblies",
            ToolGroup::Edits => {
                "code edits: renaming a symbol everywhere, exposing a private declaration (private → internal)"
            }
            ToolGroup::Session => "restarting FSAC when status says it crashed or hangs",
        }
    }
}

/// The group of a tool, by its MCP name. Tools this table does not know (a command a newer
/// session advertises) are listed with the core tools, so a new command is never hidden
/// behind a group nobody knows to ask for.
pub fn group_of(tool_name: &str) -> ToolGroup {
    known_group_of(tool_name).unwrap_or(ToolGroup::Core)
}

/// The group this table assigns a tool, or `None` for a tool it does not know.
pub fn known_group_of(tool_name: &str) -> Option<ToolGroup> {
    Some(match tool_name {
        "status" | "find" | "check" | "field_impact" | "symbol_search" | "read_symbol" | "read_enclosing"
        | ACTIVATE_TOOLS => ToolGroup::Core,
        "navigate" | "symbol_at_word" | "outline" => ToolGroup::Navigation,
        "diagnostics" | "explain_diagnostic" | "diagnostic_fixes" | "suggest_open" => ToolGroup::Diagnostics,
        "referenced_symbols" | "nuget_types" | "nuget_members" => ToolGroup::Assemblies,
        "make_internal_visible" | "rename" => ToolGroup::Edits,
        "restart" => ToolGroup::Session,
        _ => return None,
    })
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
    fn group_names_round_trip() {
        for group in ToolGroup::ACTIVATABLE {
            assert_eq!(ToolGroup::from_name(group.as_str()), Some(group));
        }
        assert_eq!(ToolGroup::from_name("everything"), None);
    }
}
