//! The command registry: one [`Command`] per `workspace/executeCommand` fslens answers, with
//! every fact about it in one place — its wire id, its MCP tool name and group, whether it
//! only reads, how its pages are sized, and the input schema generated from its argument
//! struct. The main loop, `commands::dispatch`, the MCP catalogue, the tool groups and the
//! advertised command list all read from here.

use serde_json::Value;

use crate::commands::params::input_schema;

use crate::lsp::ext::commands as ids;

/// Every command fslens answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    Status,
    Restart,
    Find,
    FieldImpact,
    Check,
    Diagnostics,
    MakeInternalVisible,
    Outline,
    ExplainDiagnostic,
    DiagnosticFixes,
    SuggestOpen,
    ReferencedSymbols,
    NugetTypes,
    NugetMembers,
    SymbolSearch,
    ReadSymbol,
    ReadEnclosing,
    Rename,
    TypeHierarchy,
}

/// A set of MCP tools that is listed or not as one (mcp/groups.rs says how).
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
    /// Edits to declarations (visibility, names).
    Edits,
    /// Session control.
    Session,
}

impl Command {
    /// Every command, in the order advertised in `executeCommandProvider`.
    pub const ALL: [Command; 19] = [
        Command::Status,
        Command::Restart,
        Command::Find,
        Command::FieldImpact,
        Command::Check,
        Command::Diagnostics,
        Command::MakeInternalVisible,
        Command::Outline,
        Command::ExplainDiagnostic,
        Command::DiagnosticFixes,
        Command::SuggestOpen,
        Command::ReferencedSymbols,
        Command::NugetTypes,
        Command::NugetMembers,
        Command::SymbolSearch,
        Command::ReadSymbol,
        Command::ReadEnclosing,
        Command::Rename,
        Command::TypeHierarchy,
    ];

    /// The `workspace/executeCommand` identifier.
    pub const fn id(self) -> &'static str {
        match self {
            Command::Status => ids::STATUS,
            Command::Restart => ids::RESTART,
            Command::Find => ids::FIND,
            Command::FieldImpact => ids::FIELD_IMPACT,
            Command::Check => ids::CHECK,
            Command::Diagnostics => ids::DIAGNOSTICS,
            Command::MakeInternalVisible => ids::MAKE_INTERNAL_VISIBLE,
            Command::Outline => ids::OUTLINE,
            Command::ExplainDiagnostic => ids::EXPLAIN_DIAGNOSTIC,
            Command::DiagnosticFixes => ids::DIAGNOSTIC_FIXES,
            Command::SuggestOpen => ids::SUGGEST_OPEN,
            Command::ReferencedSymbols => ids::REFERENCED_SYMBOLS,
            Command::NugetTypes => ids::NUGET_TYPES,
            Command::NugetMembers => ids::NUGET_MEMBERS,
            Command::SymbolSearch => ids::SYMBOL_SEARCH,
            Command::ReadSymbol => ids::READ_SYMBOL,
            Command::ReadEnclosing => ids::READ_ENCLOSING,
            Command::Rename => ids::RENAME,
            Command::TypeHierarchy => ids::TYPE_HIERARCHY,
        }
    }

    pub fn from_id(id: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|command| command.id() == id)
    }

    /// The MCP tool's name: the id's suffix in snake case (`fslens.fieldImpact` → `field_impact`).
    pub const fn tool_name(self) -> &'static str {
        match self {
            Command::Status => "status",
            Command::Restart => "restart",
            Command::Find => "find",
            Command::FieldImpact => "field_impact",
            Command::Check => "check",
            Command::Diagnostics => "diagnostics",
            Command::MakeInternalVisible => "make_internal_visible",
            Command::Outline => "outline",
            Command::ExplainDiagnostic => "explain_diagnostic",
            Command::DiagnosticFixes => "diagnostic_fixes",
            Command::SuggestOpen => "suggest_open",
            Command::ReferencedSymbols => "referenced_symbols",
            Command::NugetTypes => "nuget_types",
            Command::NugetMembers => "nuget_members",
            Command::SymbolSearch => "symbol_search",
            Command::ReadSymbol => "read_symbol",
            Command::ReadEnclosing => "read_enclosing",
            Command::Rename => "rename",
            Command::TypeHierarchy => "type_hierarchy",
        }
    }

    pub fn from_tool_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|command| command.tool_name() == name)
    }

    /// The MCP tool group the command's tool is listed in.
    pub const fn group(self) -> ToolGroup {
        match self {
            Command::Status
            | Command::Find
            | Command::Check
            | Command::FieldImpact
            | Command::SymbolSearch
            | Command::ReadSymbol
            | Command::ReadEnclosing => ToolGroup::Core,
            Command::Outline | Command::TypeHierarchy => ToolGroup::Navigation,
            Command::Diagnostics | Command::ExplainDiagnostic | Command::DiagnosticFixes | Command::SuggestOpen => {
                ToolGroup::Diagnostics
            }
            Command::ReferencedSymbols | Command::NugetTypes | Command::NugetMembers => ToolGroup::Assemblies,
            Command::MakeInternalVisible | Command::Rename => ToolGroup::Edits,
            Command::Restart => ToolGroup::Session,
        }
    }

    /// Whether the command only reads: it changes no file, no buffer and no process (an
    /// `apply` argument makes the others change something).
    pub const fn read_only(self) -> bool {
        !matches!(self, Command::MakeInternalVisible | Command::Rename | Command::DiagnosticFixes | Command::Restart)
    }

    /// Whether the command's page size is `maxResults` with a `responseCharBudget` over the
    /// whole answer (find's page planner), so the MCP bridge sizes the page to its output
    /// limit rather than cutting rows `nextCursor` would skip.
    pub const fn pages_by_max_results(self) -> bool {
        matches!(self, Command::Find | Command::FieldImpact)
    }

    /// The MCP tool's input schema, generated from the command's argument struct.
    pub fn input_schema(self) -> Value {
        use crate::commands as c;
        match self {
            Command::Status => input_schema::<c::status::StatusArguments>(),
            Command::Restart => input_schema::<c::RestartArguments>(),
            Command::Find => c::find::arguments::input_schema(),
            Command::FieldImpact => c::field_impact::input_schema(),
            Command::Check => c::check::input_schema(),
            Command::Diagnostics => c::diagnostics::input_schema(),
            Command::MakeInternalVisible => c::make_visible::input_schema(),
            Command::Outline => c::outline::input_schema(),
            Command::ExplainDiagnostic => c::diagnostic::explain::input_schema(),
            Command::DiagnosticFixes => c::diagnostic::fixes::input_schema(),
            Command::SuggestOpen => c::diagnostic::suggest_open::input_schema(),
            Command::ReferencedSymbols => c::referenced::input_schema(c::referenced::Tool::ReferencedSymbols),
            Command::NugetTypes => c::referenced::input_schema(c::referenced::Tool::NugetTypes),
            Command::NugetMembers => c::referenced::input_schema(c::referenced::Tool::NugetMembers),
            Command::SymbolSearch => c::symbols::search_input_schema(),
            Command::ReadSymbol => c::symbols::read::read_symbol_input_schema(),
            Command::ReadEnclosing => c::symbols::read::read_enclosing_input_schema(),
            Command::Rename => c::rename::input_schema(),
            Command::TypeHierarchy => c::type_hierarchy::input_schema(),
        }
    }
}

impl ToolGroup {
    /// Every group that can be activated, in the order `activate_tools` lists them.
    pub const ACTIVATABLE: [ToolGroup; 5] =
        [ToolGroup::Navigation, ToolGroup::Diagnostics, ToolGroup::Assemblies, ToolGroup::Edits, ToolGroup::Session];

    /// The group's name on the wire (`activate_tools` arguments and answers).
    pub const fn as_str(self) -> &'static str {
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
    pub const fn purpose(self) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tool_names_round_trip_and_follow_the_wire_list() {
        let ids: Vec<&str> = Command::ALL.iter().map(|command| command.id()).collect();
        assert_eq!(ids, crate::lsp::ext::commands::ALL, "Command::ALL and lsp::ext::commands::ALL list the same ids");
        for command in Command::ALL {
            assert_eq!(Command::from_id(command.id()), Some(command));
            assert_eq!(Command::from_tool_name(command.tool_name()), Some(command));
            let suffix = command.id().strip_prefix(ids::PREFIX).expect("every id has the fslens. prefix");
            assert_eq!(crate::mcp::tools::snake_case(suffix), command.tool_name(), "{command:?}");
        }
        assert_eq!(Command::from_id("fslens.nothing"), None);
        assert_eq!(Command::from_id("fsharp.compile"), None);
    }

    #[test]
    fn status_schema_is_generated_with_enums_bounds_and_descriptions() {
        let schema = Command::Status.input_schema();
        assert_eq!(schema["properties"]["waitUntil"]["enum"], serde_json::json!(["ready"]), "{schema}");
        assert_eq!(schema["properties"]["timeoutMs"]["default"], 60_000, "{schema}");
        assert_eq!(schema["properties"]["timeoutMs"]["maximum"], 3_600_000, "{schema}");
        assert_eq!(schema["properties"]["probe"]["type"], "boolean", "{schema}");
        assert!(schema["properties"]["probe"]["description"].as_str().is_some_and(|text| text.contains("FSAC")));
        let restart = Command::Restart.input_schema();
        assert_eq!(restart["properties"], serde_json::json!({}), "{restart}");
        assert_eq!(restart["additionalProperties"], false, "{restart}");
    }

    #[test]
    fn group_names_round_trip() {
        for group in ToolGroup::ACTIVATABLE {
            assert_eq!(ToolGroup::from_name(group.as_str()), Some(group));
        }
        assert_eq!(ToolGroup::from_name("everything"), None);
    }
}
