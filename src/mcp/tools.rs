//! The MCP tool catalogue: names, descriptions (each at most 400 characters, saying when to
//! prefer the tool over text search) and input schemas, built from the fslens commands the
//! session advertises — so a command added to the session later (say `fslens.find`) gets its
//! tool without a new bridge — plus the two tools the bridge composes from LSP requests.
//!
//! Tool arguments use the command contract's names (docs/commands.md), so a tool's argument
//! object is the command's argument object; the schemas here are the documented surface and
//! the session remains the judge of each value.

use serde_json::{Map, Value, json};

use crate::commands::budget::{MIN_PAGE_CHAR_BUDGET, RESPONSE_CHAR_BUDGET, RESPONSE_HARD_CEILING};
use crate::commands::find::arguments::MIN_RESPONSE_CHAR_BUDGET;
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
        input_schema: object_schema(
            json!({
                "path": path_property("The file, relative to the workspace root or absolute inside it."),
                "line": { "type": "integer", "minimum": 0, "description": "0-based line of the word." },
                "word": { "type": "string", "minLength": 1, "description": "The identifier to look up (whole word)." },
                "occurrence": { "type": "integer", "minimum": 1, "default": 1, "description": "Which occurrence of the word on the line." },
                "timeoutMs": timeout_property(30_000),
            }),
            &["path", "line", "word"],
        ),
        action: ToolAction::SymbolAtWord,
        read_only: true,
    });
    tools.push(ToolDefinition {
        name: "navigate".into(),
        description: "LSP navigation through the shared FSAC at path + line + character or word: definition, \
                      references, hover, typeDefinition, implementation, signatureHelp, incomingCalls/outgoingCalls \
                      (call sites, paged), documentSymbol; workspaceSymbol by query. Prefer over text search for \
                      compiler-resolved answers at one position; use find for sweeps with coverage."
            .into(),
        input_schema: crate::commands::params::input_schema::<crate::mcp::navigate::NavigateArguments>(),
        action: ToolAction::Navigate,
        read_only: true,
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
        input_schema: object_schema(
            json!({
                "groups": {
                    "type": "array",
                    "items": { "type": "string", "enum": ToolGroup::ACTIVATABLE.iter().map(|group| group.as_str()).collect::<Vec<_>>() },
                    "description": "Groups to activate; omit to list the groups and what is active.",
                },
                "tools": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "Or name tools; their groups are activated.",
                },
            }),
            &[],
        ),
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
        input_schema: command.input_schema().unwrap_or_else(|| hand_written_schema(command)),
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
    }
}

/// The schema of a command that still parses its arguments by hand.
fn hand_written_schema(command: Command) -> Value {
    match command {
        Command::Status => object_schema(
            json!({
                "waitUntil": { "type": "string", "enum": ["ready"], "description": "Answer once the workspace is loaded (or cannot be)." },
                "timeoutMs": timeout_property(60_000),
                "probe": { "type": "boolean", "description": "Also check that FSAC answers at once." },
            }),
            &[],
        ),
        Command::Check => object_schema(
            json!({
                "scope": { "type": "string", "enum": ["auto", "file", "project", "workspace", "snippet"], "default": "auto" },
                "path": path_property("A file to check (scope file)."),
                "snippet": { "type": "string", "description": "Source text checked as a script (scope snippet)." },
                "snippetPosition": { "type": "string", "enum": ["end", "start"], "default": "end" },
                "fileGlob": { "type": "string", "description": "Keep only files whose workspace-relative path matches (*, **, ?)." },
                "speed": { "type": "string", "enum": ["trusted", "fast"], "default": "trusted" },
                "severity": { "type": "string", "enum": ["error", "warning", "information", "hint", "all"], "default": "error" },
                "projectPath": path_property(".fsproj path or project name (scope project, or where a snippet goes)."),
                "timeoutMs": timeout_property(60_000),
                "edits": {
                    "description": "What-if: check these edits without writing them (the editor sees nothing; FSAC's \
                                    view is restored before the answer). A WorkspaceEdit (changes or documentChanges), \
                                    or a list of {path, range, newText} (0-based line, UTF-16 character) or {path, text}. \
                                    The answer adds baseline and delta (introduced, resolved, unchanged).",
                    "oneOf": [
                        { "type": "object" },
                        { "type": "array", "items": { "type": "object", "properties": {
                            "path": { "type": "string" },
                            "range": { "type": "object" },
                            "newText": { "type": "string" },
                            "text": { "type": "string" },
                        }, "required": ["path"] } },
                    ],
                },
            }),
            &[],
        ),
        Command::Find => object_schema(
            json!({
                "query": { "type": "string", "description": "Symbol name, qualified or dotted (Account.Balance)." },
                "kind": { "type": "string", "enum": ["auto", "symbol", "members", "field", "definition", "position"], "default": "auto" },
                "scope": { "type": "string", "enum": ["auto", "workspace", "project", "file"], "default": "auto" },
                "exact": { "type": "boolean", "default": true },
                "member": { "type": "string" },
                "field": { "type": "string" },
                "path": path_property("kind=position (or scope=file): the file."),
                "line": { "type": "integer", "minimum": 0, "description": "kind=position: 0-based line." },
                "word": { "type": "string", "description": "kind=position: the word on the line." },
                "occurrence": { "type": "integer", "minimum": 1 },
                "character": { "type": "integer", "minimum": 0, "description": "kind=position: 0-based UTF-16 column." },
                "contextLines": { "type": "integer", "minimum": 0, "maximum": 8, "default": 0 },
                "includeDeclaration": { "type": "boolean", "default": true },
                "includeInfo": { "type": "boolean", "default": false },
                "includeSiteTypes": { "type": "boolean", "default": false },
                "projectPath": path_property(".fsproj, .sln/.slnx or project name to sweep."),
                "maxResults": page_size_property(80, 1000),
                "timeoutMs": timeout_property(120_000),
                "cursor": cursor_property(),
                "responseCharBudget": answer_budget_property(),
            }),
            &[],
        ),
        Command::FieldImpact => object_schema(
            json!({
                "field": { "type": "string", "description": "The field: `Weight`, `Shipment.Weight` or fully qualified; a qualified name picks the record." },
                "exact": { "type": "boolean", "default": true },
                "includeDeclaration": { "type": "boolean", "default": true },
                "scope": { "type": "string", "enum": ["auto", "workspace", "project", "file"], "default": "auto" },
                "path": path_property("Restrict to a file, or anchor a position."),
                "projectPath": path_property(".fsproj, .sln/.slnx or project name to sweep."),
                "contextLines": { "type": "integer", "minimum": 0, "maximum": 8 },
                "maxResults": page_size_property(80, 1000),
                "timeoutMs": timeout_property(120_000),
                "cursor": cursor_property(),
                "responseCharBudget": answer_budget_property(),
            }),
            &["field"],
        ),
        Command::MakeInternalVisible => object_schema(
            json!({
                "path": path_property("The file with the declaration."),
                "line": { "type": "integer", "minimum": 0, "description": "0-based line of the declaration." },
                "word": { "type": "string", "description": "The declared name on the line." },
                "character": { "type": "integer", "minimum": 0, "description": "0-based UTF-16 column, instead of word." },
                "occurrence": { "type": "integer", "minimum": 1, "default": 1 },
                "apply": { "type": "boolean", "description": "Send the edit to the editor as workspace/applyEdit." },
                "exposeTo": { "type": "string", "description": "Project name to add InternalsVisibleTo for." },
            }),
            &["path", "line"],
        ),
        Command::Rename => object_schema(
            json!({
                "symbol": { "type": "string", "description": "A qualified name (Module.Type.member) instead of path + line." },
                "path": path_property("The file with a use or the declaration of the symbol."),
                "line": { "type": "integer", "minimum": 0, "description": "0-based line." },
                "word": { "type": "string", "description": "The symbol's name on the line." },
                "character": { "type": "integer", "minimum": 0, "description": "0-based UTF-16 column, instead of word." },
                "occurrence": { "type": "integer", "minimum": 1, "default": 1 },
                "newName": { "type": "string", "description": "The new name; backticks are added when it needs them." },
                "apply": { "enum": [false, "editor", "disk"], "default": false, "description": "false: preview; editor: one workspace/applyEdit; disk: write all files or none." },
                "expectedHashes": { "type": "object", "description": "The preview's fileHashes; required with apply disk." },
                "maxLines": { "type": "integer", "minimum": 1, "maximum": 2000, "default": 200 },
                "verify": { "type": "boolean", "default": false, "description": "Also answer the compiler's verdict on the renamed code (a what-if check of the edit; nothing is written) as verification." },
                "timeoutMs": timeout_property(120_000),
            }),
            &["newName"],
        ),
        Command::Outline => object_schema(
            json!({
                "view": { "type": "string", "enum": ["file", "project", "publicApi"], "description": "Default: file with path, else project." },
                "path": path_property("The file (view file)."),
                "project": path_property("Project path or name (views project and publicApi)."),
                "summaryOnly": { "type": "boolean", "default": true },
                "maxResults": { "type": "integer", "minimum": 1, "maximum": 1000 },
                "cursor": cursor_property(),
                "namespaceFilter": { "type": "string" },
                "includeInternal": { "type": "boolean" },
                "responseCharBudget": page_budget_property(),
            }),
            &[],
        ),
        Command::SymbolSearch => object_schema(
            json!({
                "query": { "type": "string", "description": "Identifiers separated by spaces; dotted names split. Matches exact, any case, or by camelCase words (Shipment finds ShipmentId)." },
                "maxResults": page_size_property(20, 200),
                "linesPerFile": { "type": "integer", "minimum": 0, "maximum": 10, "default": 3 },
                "cursor": cursor_property(),
                "waitForIndexMs": { "type": "integer", "minimum": 0, "maximum": 600000, "default": 0, "description": "Wait this long for the first index build instead of answering available:false." },
                "responseCharBudget": page_budget_property(),
            }),
            &["query"],
        ),
        Command::ReadSymbol => object_schema(
            json!({
                "name": { "type": "string", "description": "Declared name, plain or dotted (a suffix of the full name)." },
                "path": path_property("Only declarations in this file."),
                "line": { "type": "integer", "minimum": 0, "description": "0-based line of the declaration, to pick among candidates." },
                "kinds": kinds_property(),
                "maxLines": { "type": "integer", "minimum": 1, "maximum": 20000, "default": 400 },
                "waitForIndexMs": { "type": "integer", "minimum": 0, "maximum": 600000, "default": 0 },
            }),
            &["name"],
        ),
        Command::ReadEnclosing => object_schema(
            json!({
                "path": path_property("The file."),
                "line": { "type": "integer", "minimum": 0, "description": "0-based line." },
                "character": { "type": "integer", "minimum": 0, "description": "0-based UTF-16 column (optional)." },
                "kinds": kinds_property(),
                "maxLines": { "type": "integer", "minimum": 1, "maximum": 20000, "default": 200 },
                "onOversize": { "type": "string", "enum": ["error", "slice", "outline"], "default": "error" },
                "aroundLine": { "type": "integer", "minimum": 1, "maximum": 20000, "description": "Slice size; default maxLines when given, else 80." },
            }),
            &["path", "line"],
        ),
        Command::Diagnostics => object_schema(
            json!({
                "path": path_property("Only this file."),
                "maxResults": { "type": "integer", "minimum": 1, "maximum": 1000 },
            }),
            &[],
        ),
        Command::ExplainDiagnostic => diagnostic_schema(json!({})),
        Command::DiagnosticFixes => diagnostic_schema(json!({
            "apply": { "type": "boolean", "description": "Send one fix to the editor as workspace/applyEdit." },
            "fixIndex": { "type": "integer", "minimum": 0, "description": "Which fix to apply (0-based); needed when there are several." },
        })),
        Command::SuggestOpen => diagnostic_schema(json!({
            "name": { "type": "string", "description": "The unresolved name (optionally qualified, Text.shout)." },
            "maxResults": page_size_property(20, 200),
        })),
        Command::Restart => object_schema(json!({}), &[]),
        Command::ReferencedSymbols => object_schema(
            json!({
                "query": { "type": "string", "minLength": 1, "description": "Substring of a type's name or full name (case-insensitive)." },
                "projectPath": path_property(".fsproj path or project name; default: the first project."),
                "includeNonPublic": { "type": "boolean", "default": false },
                "maxResults": page_size_property(200, 1000),
                "cursor": cursor_property(),
                "responseCharBudget": page_budget_property(),
            }),
            &["query"],
        ),
        Command::NugetTypes => object_schema(
            json!({
                "packageId": { "type": "string", "minLength": 1, "description": "Package id or assembly simple name." },
                "projectPath": path_property(".fsproj path or project name; default: the first project."),
                "includeNonPublic": { "type": "boolean", "default": false },
                "maxResults": page_size_property(500, 2000),
                "cursor": cursor_property(),
                "responseCharBudget": page_budget_property(),
            }),
            &["packageId"],
        ),
        Command::NugetMembers => object_schema(
            json!({
                "packageId": { "type": "string", "minLength": 1, "description": "Package id or assembly simple name." },
                "typeName": { "type": "string", "minLength": 1, "description": "Display name, full name or dotted tail." },
                "projectPath": path_property(".fsproj path or project name; default: the first project."),
                "includeNonPublic": { "type": "boolean", "default": false },
                "maxResults": page_size_property(500, 2000),
                "cursor": cursor_property(),
                "responseCharBudget": page_budget_property(),
            }),
            &["packageId", "typeName"],
        ),
    }
}

/// The position arguments of the diagnostic tools, plus `extra`.
fn diagnostic_schema(extra: Value) -> Value {
    let mut properties = json!({
        "path": path_property("The file with the diagnostic (required unless `diagnostic`)."),
        "line": { "type": "integer", "minimum": 0, "description": "0-based line of the diagnostic (required unless `diagnostic`)." },
        "character": { "type": "integer", "minimum": 0, "description": "0-based UTF-16 column inside its range." },
        "code": { "type": ["string", "integer"], "description": "Only a diagnostic with this code: FS0039, 39." },
        "index": { "type": "integer", "minimum": 0, "description": "Among several matches, which one (0-based)." },
        "diagnostic": { "type": "object", "description": "Instead of path/line: one diagnostic of a check answer, as is." },
        "timeoutMs": timeout_property(60_000),
    });
    if let (Some(properties), Value::Object(extra)) = (properties.as_object_mut(), extra) {
        properties.extend(extra);
    }
    // `path` + `line`, or a `diagnostic` from check (or for suggest_open a bare `name`): no one
    // member is always required, so none is listed; the session names what is missing.
    object_schema(properties, &[])
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    Value::Object(schema)
}

fn path_property(description: &str) -> Value {
    json!({
        "type": "string",
        "description": format!("{description} Relative to the workspace root or absolute inside it; paths outside are refused."),
    })
}

fn kinds_property() -> Value {
    json!({
        "type": "array",
        "items": { "type": "string" },
        "description": "Declaration kinds to consider: type (every type kind), module, record, union, class, interface, member, let, val, union-case, record-field, …",
    })
}

fn cursor_property() -> Value {
    json!({ "type": "string", "description": "nextCursor of the previous page." })
}

fn page_size_property(default: u64, maximum: u64) -> Value {
    json!({ "type": "integer", "minimum": 1, "maximum": maximum, "default": default })
}

/// The entry budget of a page the bridge sizes to fit its 40 KiB output. A tool whose schema
/// has it gets [`BRIDGE_PAGE_BUDGET`] when the caller sets none (`server.rs`).
pub const PAGE_BUDGET_ARGUMENT: &str = "responseCharBudget";

/// Characters a paged tool may spend on one page when the caller sets no budget: the page then
/// fits the 40 KiB output with room for the envelope, so the bridge never has to cut entries
/// that `nextCursor` would skip.
pub const BRIDGE_PAGE_BUDGET: u64 = 30_000;

/// `responseCharBudget` of a paged tool: UTF-16 units of its entries per page, bounded as the
/// commands bound it (`commands::budget`).
fn page_budget_property() -> Value {
    budget_property(MIN_PAGE_CHAR_BUDGET, RESPONSE_CHAR_BUDGET as u64, "of entries per page")
}

/// `responseCharBudget` of `find`/`field_impact`: the whole answer, which the bridge sizes to
/// fit its 40 KiB output (so a page is planned once, not re-run with fewer rows); bounds as
/// `find`'s.
fn answer_budget_property() -> Value {
    budget_property(MIN_RESPONSE_CHAR_BUDGET, RESPONSE_HARD_CEILING as u64, "the whole answer may take")
}

fn budget_property(minimum: u64, maximum: u64, what: &str) -> Value {
    json!({
        "type": "integer",
        "minimum": minimum,
        "maximum": maximum,
        "description": format!("UTF-16 units {what} (default {BRIDGE_PAGE_BUDGET} here)."),
    })
}

fn timeout_property(default: u64) -> Value {
    json!({ "type": "integer", "minimum": 0, "maximum": crate::commands::arguments::MAX_TIMEOUT_MS, "default": default, "description": "One deadline for the whole request, in milliseconds." })
}

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
