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
        description = "Activates more fslens tools (groups navigation, diagnostics, assemblies, edits, session); \
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
    let suffix = command_id.strip_prefix(crate::lsp::ext::commands::PREFIX)?;
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
        description: tool_description(command).to_owned(),
        input_schema: command.input_schema(),
        action,
        read_only: command.read_only(),
    })
}

/// What the tool does and when to prefer it, for an agent (at most [`MAX_DESCRIPTION_CHARS`]).
fn tool_description(command: Command) -> &'static str {
    match command {
        Command::Status => {
            "Readiness of the shared F# session: whether FSAC runs (lsp), the projects are loaded \
             (projectOptions) and the symbol index is warm (symbolIndex), a hint when not, FSAC's pid and whether \
             this bridge joined the editor's session. Call it first and when answers look incomplete; prefer it \
             over guessing from text search whether semantic answers can be trusted yet."
        }
        Command::Check => {
            "Type-checks a file, project, workspace or snippet with the F# compiler and returns one verdict \
             (clean | errors | unknown) that says which files and versions it covers, the editor's unsaved buffers \
             included. Prefer over building or reading code to guess whether an edit compiles: `clean` is only \
             said when every file in scope was analysed. With `edits`, checks a planned change before writing it."
        }
        Command::Find => {
            "Every definition and reference of an F# symbol across all projects, resolved by the compiler in the \
             editor's live session (unsaved edits included); record-field sites classified (construction, \
             copy-update, mutation, pattern, read). Prefer over grep whenever you need a symbol's uses: same-named \
             symbols, strings and comments are not hits, and incomplete coverage is said."
        }
        Command::FieldImpact => {
            "Plans a record-field change: every construction, copy-and-update, mutation, pattern and read of a field \
             across all projects, each with the field's type at that site as the compiler resolves it. Prefer over \
             text search when changing a field's type or name: same-named fields of other records and unrelated \
             uses are told apart."
        }
        Command::MakeInternalVisible => {
            "Turns a `private` declaration into `internal` with a one-token edit found in the syntax tree (never in \
             strings or comments) and returns the WorkspaceEdit and a preview; writes nothing (apply: true asks the \
             editor, exposeTo adds InternalsVisibleTo). Prefer over a text replace of `private`, which hits the \
             wrong token on lines with strings, comments or several bindings."
        }
        Command::Rename => {
            "Renames the symbol at path + line + word: FSAC's rename edits grouped by file with each line before and \
             after, cross-checked against find over every project (missedSites; complete only when nothing is \
             missed). Writes nothing unless apply is \"disk\" (with the preview's fileHashes). Prefer over a text \
             replace, which hits same-named fields of other types and strings."
        }
        Command::Outline => {
            "Outline of a file, a project or its public API from the syntax tree: modules, types, members and \
             signatures, the editor's unsaved buffers included; paged. Prefer over reading whole files or grepping \
             for let/type/member when you need to know what a file or project declares."
        }
        Command::SymbolSearch => {
            "Ranks files for identifiers in milliseconds from the syntax index (BM25; declaring files first; tests, \
             generated and vendored code demoted): per file the matched names with counts, declaring symbols, best \
             lines and projects. Works before FSAC is ready. Prefer over grep to find which files matter for a name; \
             available:false means the index builds: retry after retryAfterMs."
        }
        Command::ReadSymbol => {
            "One declaration's verbatim source by name (`weigh`, `Shipment.weigh`, fully qualified), from the editor's \
             unsaved buffer when open, with its range and parent chain. Several matches are all listed with path and \
             line to pick one, never guessed. Prefer over reading whole files when you need one type or function."
        }
        Command::ReadEnclosing => {
            "Maps a path and 0-based line (from grep, diagnostics or locations) to the smallest enclosing declaration's \
             verbatim source and its parent chain, from the syntax tree only. Over maxLines, onOversize says: error \
             (metadata only), slice (aroundLine lines around the line) or outline (its parts with read arguments). \
             Prefer over reading a file around a line."
        }
        Command::Diagnostics => {
            "What FSAC has reported in this session: per file, errors and warnings with freshness (current = \
             analysed at the content it has now, stale, unverified), the editor's unsaved buffers included. Cheap: \
             never starts an analysis. Prefer over building to see known errors; a file absent here is not known \
             to be clean: use check for a verdict."
        }
        Command::ExplainDiagnostic => {
            "Explains one compiler diagnostic at path + line (+ code, character): FSAC's exact message, code, \
             severity and range, the line with context, what the code usually means and which fixes FSAC offers. \
             The file is analysed first if needed. Prefer over guessing from the message text or re-running a build."
        }
        Command::DiagnosticFixes => {
            "FSAC's code actions for one diagnostic at path + line (+ code): each fix's title, kind, edits previewed \
             (old text, new text, resulting lines) and the WorkspaceEdit. Writes nothing; apply: true (with \
             fixIndex) asks the editor. Prefer over hand-editing when the compiler already knows the fix."
        }
        Command::SuggestOpen => {
            "Which `open` brings an unresolved name into scope: give `name`, or path + line of its FS0039. Answers \
             FSAC's open/Use fixes and the workspace's own modules declaring it (RequireQualifiedAccess respected), \
             each with the edit and its source. Prefer over grepping for the declaration and guessing the namespace."
        }
        Command::Restart => {
            "Restarts the shared FSAC process (the editor's too) and replays the open buffers into it. Use only when \
             status says FSAC crashed or is unresponsive; ordinary answers never need it."
        }
        Command::ReferencedSymbols => {
            "Searches the types of the project's referenced assemblies (NuGet packages, framework when a \
             targeting pack is installed) by name substring, read from their metadata; each hit names its \
             assembly and package. Prefer over grepping the packages folder or guessing namespaces; the answer \
             lists references it could not read."
        }
        Command::NugetTypes => {
            "Lists every type of one referenced package or assembly: packageId is a NuGet package id or an \
             assembly simple name (exact, case-insensitive, never a prefix). A miss says why (hint) and offers \
             candidatePackages. Prefer over decompiling or web search to learn what a package exposes."
        }
        Command::NugetMembers => {
            "Lists the members of one type of a referenced package or assembly with signatures, accessibility \
             (from metadata), static/abstract and obsolete flags. typeName is the display name, full name or a \
             dotted tail. Prefer over guessing an API from memory; use nuget_types first to find type names."
        }
        Command::TypeHierarchy => {
            "The type hierarchy FSAC lacks, at a type's name or a use of it: its supertypes (inherit, interface \
             lines, each resolved by FSAC) and subtypes (every class, record, union or object expression in the \
             workspace implementing or inheriting it, each confirmed by FSAC's definition). Prefer over grepping \
             for `interface X`: same-named types are told apart."
        }
    }
}

/// The entry budget of a page the bridge sizes to fit its 40 KiB output. A tool whose schema
/// has it gets [`BRIDGE_PAGE_BUDGET`] when the caller sets none (`server.rs`).
pub const PAGE_BUDGET_ARGUMENT: &str = "responseCharBudget";

/// Characters a paged tool may spend on one page when the caller sets no budget: the page then
/// fits the 40 KiB output with room for the envelope, so the bridge never has to cut entries
/// that `nextCursor` would skip.
pub const BRIDGE_PAGE_BUDGET: u64 = 30_000;

/// `fieldImpact` → `field_impact`.
pub fn snake_case(camel: &str) -> String {
    let mut snake = String::with_capacity(camel.len() + 4);
    for character in camel.chars() {
        if character.is_ascii_uppercase() {
            if !snake.is_empty() {
                snake.push('_');
            }
            snake.push(character.to_ascii_lowercase());
        } else {
            snake.push(character);
        }
    }
    snake
}

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
    use crate::lsp::ext;

    fn every_command() -> Vec<String> {
        let mut commands: Vec<String> = ext::commands::ALL.iter().map(|command| (*command).to_owned()).collect();
        commands.push("fslens.brandNew".to_owned());
        commands
    }

    #[test]
    fn every_tool_of_fslens_own_commands_has_a_group_of_its_own_choosing() {
        let commands: Vec<String> = ext::commands::ALL.iter().map(|command| (*command).to_owned()).collect();
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
                "find",
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
                "brand_new",
                "symbol_at_word",
                "navigate",
                "activate_tools"
            ]
        );
    }

    #[test]
    fn only_fslens_commands_become_tools() {
        let tools = catalogue(&["fsharp.compile".to_owned(), ext::commands::CHECK.to_owned()]);
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
