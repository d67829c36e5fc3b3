//! The MCP tool catalogue: names, descriptions (each at most 400 characters, saying when to
//! prefer the tool over text search) and input schemas, built from the fslens commands the
//! session advertises — so a command added to the session later (say `fslens.find`) gets its
//! tool without a new bridge — plus the two tools the bridge composes from LSP requests.
//!
//! Tool arguments use the command contract's names (docs/commands.md), so a tool's argument
//! object is the command's argument object; the schemas here are the documented surface and
//! the session remains the judge of each value.

use serde_json::{Value, json};

use crate::commands::registry::Command;

use crate::mcp::groups::{ACTIVATE_TOOLS, ToolGroup, group_of};

/// The longest description a tool may have.
pub const MAX_DESCRIPTION_CHARS: usize = 400;

/// What a tool does when called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolAction {
    /// Runs an fslens command in the session with the tool's arguments.
    Command(String),
    /// `fslens.status`, reshaped into the seed's `set_project` readiness answer.
    Status,
    /// Hover and definition at a word on a line.
    SymbolAtWord,
    /// One LSP navigation request.
    Navigate,
    /// Lists the tool groups and activates those asked for (`activate_tools`).
    ActivateTools,
}

/// One tool of the catalogue.
#[derive(Debug, Clone)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub action: ToolAction,
    pub read_only: bool,
}

/// The catalogue for a session advertising `commands` (in the session's order), followed by
/// the LSP-based tools.
pub fn catalogue(commands: &[String]) -> Vec<ToolDefinition> {
    let mut tools: Vec<ToolDefinition> = commands.iter().filter_map(|command| command_tool(command)).collect();
    tools.push(ToolDefinition {
        name: "symbol_at_word".into(),
        description: "What a word on a line is: the compiler's hover (type signature, docs) and its definition \
                      location(s). Give path, 0-based line and the word (occurrence picks among repeats); no column \
                      needed, a line off by a few is tolerated. Prefer over grepping for a name's declaration: \
                      overloads, shadowing and same-named symbols resolve as the compiler does."
            .into(),
        input_schema: crate::commands::params::input_schema::<crate::navigation::SymbolAtWordArguments>(),
        action: ToolAction::SymbolAtWord,
        read_only: true,
    });
    tools.push(ToolDefinition {
        name: "navigate".into(),
        description: "LSP navigation through the shared FSAC at path + line + character or word: definition, \
                      references, hover, typeDefinition, implementation, signatureHelp, incomingCalls/outgoingCalls \
                      (call sites, paged), typeHierarchy, documentSymbol, codeActions (previewed, or applied in the \
                      editor); workspaceSymbol by query. Prefer over text search for compiler-resolved answers; use \
                      find for sweeps with coverage."
            .into(),
        input_schema: crate::commands::params::input_schema::<crate::navigation::NavigateArguments>(),
        action: ToolAction::Navigate,
        // codeActions with `apply: "editor"` edits the editor's buffers (undoably).
        read_only: false,
    });
    tools.push(activate_tools_definition(&tools));
    tools
}

/// The loader tool; its description names every group and the tools in it.
fn activate_tools_definition(tools: &[ToolDefinition]) -> ToolDefinition {
    let groups: Vec<String> = ToolGroup::ACTIVATABLE
        .iter()
        .filter_map(|group| {
            let names: Vec<&str> =
                tools.iter().filter(|tool| group_of(&tool.name) == *group).map(|tool| tool.name.as_str()).collect();
            (!names.is_empty()).then(|| format!("{} ({})", group.as_str(), names.join(", ")))
        })
        .collect();
    let mut description = format!(
        "Activates more fslens tools for this session; they are listed at once. Groups: {}. Call with no \
         arguments to see what each is for. Prefer these over text search when the task needs them.",
        groups.join("; ")
    );
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        description =
            "Activates more fslens tools (groups navigation, diagnostics, tests, assemblies, edits, session); \
                       call with no arguments to see each group's tools. Prefer them over text search when the \
                       task needs them."
                .to_owned();
    }
    ToolDefinition {
        name: ACTIVATE_TOOLS.to_owned(),
        description,
        input_schema: crate::commands::params::input_schema::<crate::mcp::groups::ActivateToolsArguments>(),
        action: ToolAction::ActivateTools,
        read_only: true,
    }
}

/// The tool for one advertised command; commands this bridge does not know yet get a generic
/// tool named after them (`fslens.someThing` → `some_thing`).
fn command_tool(command_id: &str) -> Option<ToolDefinition> {
    let suffix = command_id.strip_prefix(crate::commands::registry::PREFIX)?;
    let Some(command) = Command::from_id(command_id) else {
        return Some(ToolDefinition {
            name: snake_case(suffix),
            description: "An fslens command this bridge has no dedicated description for; it takes the command's JSON \
                          argument object (docs/commands.md) and answers with the command's result."
                .to_owned(),
            input_schema: json!({ "type": "object", "additionalProperties": true }),
            action: ToolAction::Command(command_id.to_owned()),
            read_only: false,
        });
    };
    let action = match command {
        // `status` is reshaped into the seed's `set_project` readiness answer.
        Command::Status => ToolAction::Status,
        _ => ToolAction::Command(command_id.to_owned()),
    };
    Some(ToolDefinition {
        name: command.tool_name().to_owned(),
        description: command.description().to_owned(),
        input_schema: command.input_schema(),
        action,
        read_only: command.read_only(),
    })
}

/// The budgets of a page the bridge sizes to fit its 40 KiB output: UTF-16 units and UTF-8
/// bytes. A tool whose schema has one gets [`BRIDGE_PAGE_BUDGET`] of it when the caller sets
/// none (`server.rs`).
pub const PAGE_BUDGET_ARGUMENTS: [&str; 2] = ["responseCharBudget", "responseByteBudget"];

/// Units and bytes a paged tool may spend on one page when the caller sets no budget: the page
/// then fits the 40 KiB output with room for the envelope, whatever its text, so the bridge
/// never has to cut entries that `nextCursor` would skip.
pub const BRIDGE_PAGE_BUDGET: u64 = 30_000;

pub use crate::commands::registry::snake_case;

/// Argument names that hold a path in some tool. `path` is always a path; the others may also
/// be a project name, and are confined only when they look like a path.
pub const PATH_ARGUMENTS: &[&str] = &["path", "projectPath", "project"];

/// Whether a value of a name-or-path argument is written as a path.
pub fn looks_like_path(value: &str) -> bool {
    value.contains('/')
        || value.contains('\\')
        || value.starts_with('.')
        || [".fsproj", ".sln", ".slnx", ".fs", ".fsx", ".fsi"].iter().any(|extension| value.ends_with(extension))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_command() -> Vec<String> {
        let mut commands: Vec<String> = crate::commands::registry::Command::ids().map(str::to_owned).collect();
        commands.push("fslens.brandNew".to_owned());
        commands
    }

    #[test]
    fn every_tool_of_fslens_own_commands_has_a_group_of_its_own_choosing() {
        let commands: Vec<String> = crate::commands::registry::Command::ids().map(str::to_owned).collect();
        for tool in catalogue(&commands) {
            assert!(
                crate::mcp::groups::known_group_of(&tool.name).is_some(),
                "{} falls back to the core group: give it a group in mcp/groups.rs",
                tool.name
            );
        }
    }

    #[test]
    fn descriptions_are_short_and_schemas_are_objects() {
        let tools = catalogue(&every_command());
        for tool in &tools {
            let length = tool.description.chars().count();
            assert!(length <= MAX_DESCRIPTION_CHARS, "{}: {length} characters", tool.name);
            assert!(
                tool.description.to_lowercase().contains("prefer")
                    || tool.name == "restart"
                    || tool.name == "brand_new",
                "{}: says when to prefer it",
                tool.name
            );
            assert_eq!(tool.input_schema["type"], json!("object"), "{}", tool.name);
        }
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "status",
                "restart",
                "doctor",
                "find",
                "tests_for_symbol",
                "field_impact",
                "check",
                "diagnostics",
                "make_internal_visible",
                "outline",
                "explain_diagnostic",
                "diagnostic_fixes",
                "suggest_open",
                "referenced_symbols",
                "nuget_types",
                "nuget_members",
                "symbol_search",
                "read_symbol",
                "read_enclosing",
                "rename",
                "type_hierarchy",
                "run_tests",
                "affected_tests",
                "union_case_impact",
                "signature_drift",
                "project_inspect",
                "dead_code",
                "brand_new",
                "symbol_at_word",
                "navigate",
                "activate_tools"
            ]
        );
    }

    #[test]
    fn only_fslens_commands_become_tools() {
        let tools =
            catalogue(&["fsharp.compile".to_owned(), crate::commands::registry::Command::Check.id().to_owned()]);
        assert_eq!(
            tools.iter().map(|tool| tool.name.as_str()).collect::<Vec<_>>(),
            ["check", "symbol_at_word", "navigate", "activate_tools"]
        );
    }

    #[test]
    fn names_and_paths() {
        assert_eq!(snake_case("makeInternalVisible"), "make_internal_visible");
        assert!(looks_like_path("src/App.fsproj") && looks_like_path("../x") && looks_like_path("A.fsproj"));
        assert!(!looks_like_path("Shipping.Domain"));
    }
}
