//! The command table: one row per `workspace/executeCommand` fslens answers, holding every
//! fact about the command — the variant of [`Command`], the wire id's suffix (the id is
//! `fslens.` + suffix, the MCP tool name its snake case), the MCP tool group, whether it only
//! reads, its argument struct (the input schema is generated from it), its answer type, its
//! handler (its answer says what it means:
//! [`Outcome`](crate::commands::outcome::Outcome)) and the MCP tool's description: what the
//! wire and MCP need. The advertised command list (`executeCommandProvider`),
//! `registry::dispatch`, the MCP catalogue and the tool groups read from here; the command
//! line's face of each command (subcommand, flags, text, exit code) is `cli::face`, an
//! exhaustive `match` over [`Command`], so a new row does not compile until the CLI decides.
//!
//! Adding a command is one handler file (a module under `commands/` with its argument struct,
//! its answer type and an `async fn(Arguments, CommandContext) -> Result<Answer, CommandError>`),
//! one row below, its arm in `cli::face`, and its section in docs/commands.md. The table reads
//! the argument object into the struct and writes the answer as JSON; handlers see neither.

use std::sync::LazyLock;

use serde::Serialize;
use serde_json::Value;

use crate::commands::params::{CommandArguments, input_schema};
use crate::commands::{CommandContext, CommandError};
use crate::commands::{
    affected_tests, check, dead_code, diagnostic, diagnostics, doctor, field_impact, find, make_visible, outline,
    project_inspect, referenced, rename, restart, run_tests, signature_drift, status, symbols, tests_for_symbol,
    type_hierarchy, union_impact,
};

/// Declares [`Command`] and everything the table says about each command, from one list of rows.
macro_rules! commands {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            id: $suffix:literal,
            group: $group:ident,
            read_only: $read_only:literal,
            arguments: $arguments:ty,
            answer: $answer:ty,
            handler: $handler:path,
            description: $description:expr,
        },
    )*) => {
        /// Every command fslens answers, one per row of the table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Command {
            $($(#[$doc])* $variant,)*
        }

        /// How many commands the table has.
        const COUNT: usize = [$(Command::$variant),*].len();

        impl Command {
            /// Every command, in the order advertised in `executeCommandProvider`.
            pub const ALL: [Command; COUNT] = [$(Command::$variant),*];

            /// The `workspace/executeCommand` identifier: `fslens.` and the row's suffix.
            pub const fn id(self) -> &'static str {
                match self {
                    $(Command::$variant => concat!("fslens.", $suffix),)*
                }
            }

            /// The MCP tool group the command's tool is listed in.
            pub const fn group(self) -> ToolGroup {
                match self {
                    $(Command::$variant => ToolGroup::$group,)*
                }
            }

            /// Whether the command only reads: it changes no file, no buffer and no process (an
            /// `apply` argument makes the others change something).
            pub const fn read_only(self) -> bool {
                match self {
                    $(Command::$variant => $read_only,)*
                }
            }

            /// What the MCP tool does and when to prefer it, for an agent (at most
            /// `mcp::tools::MAX_DESCRIPTION_CHARS`).
            pub const fn description(self) -> &'static str {
                match self {
                    $(Command::$variant => $description,)*
                }
            }

            /// The MCP tool's input schema, generated from the command's argument struct.
            pub fn input_schema(self) -> Value {
                match self {
                    $(Command::$variant => input_schema::<$arguments>(),)*
                }
            }

            /// Runs the command: reads its argument object into the argument struct (errors name
            /// the argument), runs the handler and writes its answer as JSON, once.
            pub async fn run(self, argument: Value, context: CommandContext) -> Result<Value, CommandError> {
                match self {
                    $(Command::$variant => {
                        let arguments = <$arguments as CommandArguments>::from_argument(argument)?;
                        let answer: $answer = $handler(arguments, context).await?;
                        to_wire(&answer)
                    })*
                }
            }
        }

    };
}

/// The wire JSON of a typed answer; an answer that cannot be written is an internal error.
fn to_wire<Answer: Serialize>(answer: &Answer) -> Result<Value, CommandError> {
    serde_json::to_value(answer)
        .map_err(|error| CommandError::Internal(format!("the answer could not be written: {error}")))
}

commands! {
    Status {
        id: "status",
        group: Core,
        read_only: true,
        arguments: status::StatusArguments,
        answer: status::StatusAnswer,
        handler: status::status,
        description:
        "Readiness of the shared F# session: whether FSAC runs (lsp), the projects are loaded \
         (projectOptions) and the symbol index is warm (symbolIndex), a hint when not, FSAC's pid and whether \
         this bridge joined the editor's session. Call it first and when answers look incomplete; prefer it \
         over guessing from text search whether semantic answers can be trusted yet.",
    },
    Restart {
        id: "restart",
        group: Session,
        read_only: false,
        arguments: restart::RestartArguments,
        answer: Value,
        handler: restart::restart,
        description:
        "Restarts the shared FSAC process (the editor's too) and replays the open buffers into it. Use only when \
         status says FSAC crashed or is unresponsive; ordinary answers never need it.",
    },
    Doctor {
        id: "doctor",
        group: Session,
        read_only: true,
        arguments: doctor::DoctorArguments,
        answer: doctor::DoctorAnswer,
        handler: doctor::doctor,
        description:
        "What keeps fslens or FSAC from serving this workspace, one check each with the fix a user types: the .NET \
         SDK and global.json pin, FSAC, each project's restore, paket's restore targets, central packages, the \
         session socket, a second FSAC. Prefer it over guessing when status says FSAC is not running or a \
         project does not load.",
    },
    Find {
        id: "find",
        group: Core,
        read_only: true,
        arguments: find::FindArguments,
        answer: find::answer::FindAnswer,
        handler: find::find_answer,
        description:
        "Every definition and reference of an F# symbol across all projects, resolved by the compiler in the \
         editor's live session (unsaved edits included); record-field sites classified (construction, \
         copy-update, mutation, pattern, read). Prefer over grep whenever you need a symbol's uses: same-named \
         symbols, strings and comments are not hits, and incomplete coverage is said.",
    },
    TestsForSymbol {
        id: "testsForSymbol",
        group: Tests,
        read_only: true,
        arguments: tests_for_symbol::TestsForSymbolArguments,
        answer: tests_for_symbol::TestsForSymbolAnswer,
        handler: tests_for_symbol::tests_for_symbol,
        description:
        "The tests (xUnit, NUnit, MSTest, Expecto, FsCheck) in the workspace's test projects that reach a symbol, by \
         name or position: find's compiler-resolved sites mapped to the enclosing test, and through the functions \
         calling it (library code and helpers, to maxDepth) with each test's chain; says what it did not follow \
         and gives runTests arguments. Prefer over grepping test files for a name.",
    },
    FieldImpact {
        id: "fieldImpact",
        group: Core,
        read_only: true,
        arguments: field_impact::FieldImpactArguments,
        answer: field_impact::FieldImpactAnswer,
        handler: field_impact::field_impact_answer,
        description:
        "Plans a record-field change: every construction, copy-and-update, mutation, pattern and read of a field \
         across all projects, each with the field's type at that site as the compiler resolves it. Prefer over \
         text search when changing a field's type or name: same-named fields of other records and unrelated \
         uses are told apart.",
    },
    Check {
        id: "check",
        group: Core,
        read_only: true,
        arguments: check::CheckArguments,
        answer: check::answer::CheckAnswer,
        handler: check::check,
        description:
        "Type-checks a file, project, workspace or snippet with the F# compiler and returns one verdict \
         (clean | errors | unknown) that says which files and versions it covers, the editor's unsaved buffers \
         included. Prefer over building or reading code to guess whether an edit compiles: `clean` is only \
         said when every file in scope was analysed. With `edits`, checks a planned change before writing it.",
    },
    Diagnostics {
        id: "diagnostics",
        group: Diagnostics,
        read_only: true,
        arguments: diagnostics::DiagnosticsArguments,
        answer: diagnostics::DiagnosticsAnswer,
        handler: diagnostics::diagnostics,
        description:
        "What FSAC has reported in this session: per file, errors and warnings with freshness (current = \
         analysed at the content it has now, stale, unverified), the editor's unsaved buffers included. Cheap: \
         never starts an analysis. Prefer over building to see known errors; a file absent here is not known \
         to be clean: use check for a verdict.",
    },
    MakeInternalVisible {
        id: "makeInternalVisible",
        group: Edits,
        read_only: false,
        arguments: make_visible::MakeVisibleArguments,
        answer: make_visible::MakeVisibleAnswer,
        handler: make_visible::make_internal_visible,
        description:
        "Turns a `private` declaration into `internal` with a one-token edit found in the syntax tree (never in \
         strings or comments) and returns the WorkspaceEdit and a preview; writes nothing (apply: true asks the \
         editor, exposeTo adds InternalsVisibleTo). Prefer over a text replace of `private`, which hits the \
         wrong token on lines with strings, comments or several bindings.",
    },
    Outline {
        id: "outline",
        group: Navigation,
        read_only: true,
        arguments: outline::OutlineArguments,
        answer: outline::OutlineAnswer,
        handler: outline::outline,
        description:
        "Outline of a file, a project or its public API from the syntax tree: modules, types, members and \
         signatures, the editor's unsaved buffers included; paged. Prefer over reading whole files or grepping \
         for let/type/member when you need to know what a file or project declares.",
    },
    ExplainDiagnostic {
        id: "explainDiagnostic",
        group: Diagnostics,
        read_only: true,
        arguments: diagnostic::arguments::ExplainArguments,
        answer: diagnostic::explain::ExplainAnswer,
        handler: diagnostic::explain::explain_diagnostic,
        description:
        "Explains one compiler diagnostic at path + line (+ code, character): FSAC's exact message, code, \
         severity and range, the line with context, what the code usually means and which fixes FSAC offers. \
         The file is analysed first if needed. Prefer over guessing from the message text or re-running a build.",
    },
    DiagnosticFixes {
        id: "diagnosticFixes",
        group: Diagnostics,
        read_only: false,
        arguments: diagnostic::arguments::FixesArguments,
        answer: diagnostic::fixes::FixesAnswer,
        handler: diagnostic::fixes::diagnostic_fixes,
        description:
        "FSAC's code actions for one diagnostic at path + line (+ code): each fix's title, kind, edits previewed \
         (old text, new text, resulting lines) and the WorkspaceEdit. Writes nothing; apply: true (with \
         fixIndex) asks the editor. Prefer over hand-editing when the compiler already knows the fix.",
    },
    SuggestOpen {
        id: "suggestOpen",
        group: Diagnostics,
        read_only: true,
        arguments: diagnostic::arguments::SuggestOpenArguments,
        answer: diagnostic::suggest_open::SuggestOpenAnswer,
        handler: diagnostic::suggest_open::suggest_open,
        description:
        "Which `open` brings an unresolved name into scope: give `name`, or path + line of its FS0039. Answers \
         FSAC's open/Use fixes and the workspace's own modules declaring it (RequireQualifiedAccess respected), \
         each with the edit and its source. Prefer over grepping for the declaration and guessing the namespace.",
    },
    ReferencedSymbols {
        id: "referencedSymbols",
        group: Assemblies,
        read_only: true,
        arguments: referenced::ReferencedSymbolsArguments,
        answer: referenced::ReferencedSymbolsAnswer,
        handler: referenced::referenced_symbols,
        description:
        "Searches the types of the project's referenced assemblies (NuGet packages, framework when a \
         targeting pack is installed) by name substring, read from their metadata; each hit names its \
         assembly and package. Prefer over grepping the packages folder or guessing namespaces; the answer \
         lists references it could not read.",
    },
    NugetTypes {
        id: "nugetTypes",
        group: Assemblies,
        read_only: true,
        arguments: referenced::NugetTypesArguments,
        answer: referenced::NugetTypesAnswer,
        handler: referenced::nuget_types,
        description:
        "Lists every type of one referenced package or assembly: packageId is a NuGet package id or an \
         assembly simple name (exact, case-insensitive, never a prefix). A miss says why (hint) and offers \
         candidatePackages. Prefer over decompiling or web search to learn what a package exposes.",
    },
    NugetMembers {
        id: "nugetMembers",
        group: Assemblies,
        read_only: true,
        arguments: referenced::NugetMembersArguments,
        answer: referenced::NugetMembersAnswer,
        handler: referenced::nuget_members,
        description:
        "Lists the members of one type of a referenced package or assembly with signatures, accessibility \
         (from metadata), static/abstract and obsolete flags. typeName is the display name, full name or a \
         dotted tail. Prefer over guessing an API from memory; use nuget_types first to find type names.",
    },
    SymbolSearch {
        id: "symbolSearch",
        group: Core,
        read_only: true,
        arguments: symbols::SearchArguments,
        answer: symbols::SymbolSearchAnswer,
        handler: symbols::symbol_search,
        description:
        "Ranks files for identifiers in milliseconds from the syntax index (BM25; declaring files first; tests, \
         generated and vendored code demoted): per file the matched names with counts, declaring symbols, best \
         lines and projects. Works before FSAC is ready. Prefer over grep to find which files matter for a name; \
         available:false means the index builds: retry after retryAfterMs.",
    },
    ReadSymbol {
        id: "readSymbol",
        group: Core,
        read_only: true,
        arguments: symbols::read::ReadSymbolArguments,
        answer: symbols::read::ReadSymbolAnswer,
        handler: symbols::read::read_symbol,
        description:
        "One declaration's verbatim source by name (`weigh`, `Shipment.weigh`, fully qualified), from the editor's \
         unsaved buffer when open, with its range and parent chain. Several matches are all listed with path and \
         line to pick one, never guessed. Prefer over reading whole files when you need one type or function.",
    },
    ReadEnclosing {
        id: "readEnclosing",
        group: Core,
        read_only: true,
        arguments: symbols::read::ReadEnclosingArguments,
        answer: symbols::read::ReadEnclosingAnswer,
        handler: symbols::read::read_enclosing,
        description:
        "Maps a path and 0-based line (from grep, diagnostics or locations) to the smallest enclosing declaration's \
         verbatim source and its parent chain, from the syntax tree only. Over maxLines, onOversize says: error \
         (metadata only), slice (aroundLine lines around the line) or outline (its parts with read arguments). \
         Prefer over reading a file around a line.",
    },
    Rename {
        id: "rename",
        group: Edits,
        read_only: false,
        arguments: rename::RenameArguments,
        answer: rename::RenameAnswer,
        handler: rename::rename,
        description:
        "Renames the symbol at path + line + word: FSAC's rename edits grouped by file with each line before and \
         after, cross-checked against find over every project (missedSites; complete only when nothing is \
         missed). Writes nothing unless apply is \"disk\" (with the preview's fileHashes). Prefer over a text \
         replace, which hits same-named fields of other types and strings.",
    },
    TypeHierarchy {
        id: "typeHierarchy",
        group: Navigation,
        read_only: true,
        arguments: type_hierarchy::TypeHierarchyArguments,
        answer: type_hierarchy::TypeHierarchyAnswer,
        handler: type_hierarchy::type_hierarchy,
        description:
        "The type hierarchy FSAC lacks, at a type's name or a use of it: its supertypes (inherit, interface \
         lines, each resolved by FSAC) and subtypes (every class, record, union or object expression in the \
         workspace implementing or inheriting it, each confirmed by FSAC's definition). Prefer over grepping \
         for `interface X`: same-named types are told apart.",
    },
    RunTests {
        id: "runTests",
        group: Tests,
        read_only: false,
        arguments: run_tests::RunTestsArguments,
        answer: run_tests::RunTestsAnswer,
        handler: run_tests::run_tests,
        description:
        "Runs tests (all, by fully qualified name, or a VSTest filter) in the editor's F# session through \
         FSAC/VSTest: typed per-test outcome, duration, message and the failing frame's path + line. Prefer \
         over `dotnet test` in a shell to read results. Builds nothing: staleAssemblies names test projects \
         whose assembly is older than the code (build them first).",
    },
    AffectedTests {
        id: "affectedTests",
        group: Tests,
        read_only: false,
        arguments: affected_tests::AffectedTestsArguments,
        answer: affected_tests::AffectedTestsAnswer,
        handler: affected_tests::affected_tests,
        description:
        "The tests a change reaches (git since a revision, given files, or unsaved buffers): changed declarations \
         from syntax trees, walked through the compiler's references (library code and helpers) to tests, each \
         with its reason chain; says what it could not follow and the fallback tests; run: true runs them. \
         Prefer over running every test after an edit.",
    },
    UnionCaseImpact {
        id: "unionCaseImpact",
        group: Edits,
        read_only: true,
        arguments: union_impact::UnionCaseImpactArguments,
        answer: union_impact::UnionCaseImpactAnswer,
        handler: union_impact::union_case_impact,
        description:
        "Plans a union-case add/remove/change before editing: the compiler checks the hypothetical edit (nothing \
         written, editor untouched) and lists every match it makes incomplete (FS0025) and every use it breaks, \
         with function and project, plus the case's sites or the `_` matches a new case slips into, and the exact \
         edit. Prefer over grepping for the case's name.",
    },
    SignatureDrift {
        id: "signatureDrift",
        group: Navigation,
        read_only: true,
        arguments: signature_drift::SignatureDriftArguments,
        answer: signature_drift::SignatureDriftAnswer,
        handler: signature_drift::signature_drift,
        description:
        "For each signature/implementation pair (X.fsi before X.fs): public values, types and modules the .fs has \
         and the .fsi hides, and .fsi items the .fs lacks (a build error), each with a previewed edit (val types \
         from FSAC). Writes nothing. Prefer over diffing the two files by eye.",
    },
    ProjectInspect {
        id: "projectInspect",
        group: Navigation,
        read_only: true,
        arguments: project_inspect::ProjectInspectArguments,
        answer: project_inspect::ProjectInspectAnswer,
        handler: project_inspect::project_inspect,
        description:
        "Per project, the model FSAC loaded: compile order, project and package references, the target framework \
         it chose, configuration, defines, output type, test project, restore state; and each difference from \
         fslens's reading of the .fsproj (file, order, reference). Prefer over reading .fsproj files to learn \
         what the compiler sees.",
    },
    DeadCode {
        id: "deadCode",
        group: Diagnostics,
        read_only: true,
        arguments: dead_code::DeadCodeArguments,
        answer: dead_code::DeadCodeAnswer,
        handler: dead_code::dead_code,
        description:
        "Private and internal declarations (public with includePublic) that nothing in the workspace uses: \
         FSAC's references over every project, the syntax index for names never written elsewhere. Says what \
         kept each other one alive (attributes, .fsi, overrides, nameof, strings) and what it could not rule \
         out (InternalsVisibleTo outside). Prefer over grepping each name.",
    },
}

impl Command {
    pub fn from_id(id: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|command| command.id() == id)
    }

    /// The MCP tool's name: the id's suffix in snake case (`fslens.fieldImpact` →
    /// `field_impact`), derived once.
    pub fn tool_name(self) -> &'static str {
        static NAMES: LazyLock<[String; COUNT]> =
            LazyLock::new(|| Command::ALL.map(|command| snake_case(&command.id()[PREFIX.len()..])));
        &NAMES[self as usize]
    }

    pub fn from_tool_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|command| command.tool_name() == name)
    }

    /// Every command's id, in the advertised order.
    pub fn ids() -> impl Iterator<Item = &'static str> {
        Command::ALL.into_iter().map(Command::id)
    }
}

/// What every fslens command identifier starts with (the table's `id` is the part after it).
/// FSAC registers no commands of its own and emits `fsharp.*` command ids for the client, so
/// ours use the distinct `fslens.` prefix.
pub const PREFIX: &str = "fslens.";

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

/// A set of MCP tools that is listed or not as one (mcp/groups.rs says how).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolGroup {
    /// Always listed.
    Core,
    /// Compiler-resolved navigation at a position and file/project outlines.
    Navigation,
    /// What the session has reported, what a diagnostic means and how FSAC would fix it.
    Diagnostics,
    /// Which tests a symbol or a change reaches, and running them.
    Tests,
    /// Types and members of the assemblies the projects reference (NuGet and framework).
    Assemblies,
    /// Edits to declarations (visibility, names).
    Edits,
    /// Session control.
    Session,
}

impl ToolGroup {
    /// Every group that can be activated, in the order `activate_tools` lists them.
    pub const ACTIVATABLE: [ToolGroup; 6] = [
        ToolGroup::Navigation,
        ToolGroup::Diagnostics,
        ToolGroup::Tests,
        ToolGroup::Assemblies,
        ToolGroup::Edits,
        ToolGroup::Session,
    ];

    /// The group's name on the wire (`activate_tools` arguments and answers).
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolGroup::Core => "core",
            ToolGroup::Navigation => "navigation",
            ToolGroup::Diagnostics => "diagnostics",
            ToolGroup::Tests => "tests",
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
            ToolGroup::Navigation => {
                "compiler answers at one position (definition, references, hover), outlines, signature drift and the \
                 project model FSAC loaded"
            }
            ToolGroup::Diagnostics => {
                "known diagnostics per file, what one means, FSAC's fixes for it, the `open` an unresolved name needs, \
                 declarations nothing uses"
            }
            ToolGroup::Tests => {
                "which tests reach a symbol or a change (unsaved buffers, files, or git since a revision), each with \
                 its reason chain, and running them with per-test results and the failing frame"
            }
            ToolGroup::Assemblies => "types and members of referenced NuGet and framework assemblies",
            ToolGroup::Edits => {
                "code edits: renaming a symbol everywhere, exposing a private declaration (private → internal), \
                 what a union-case change would break before making it"
            }
            ToolGroup::Session => {
                "restarting FSAC when status says it crashed or hangs, and what keeps the workspace from loading (doctor)"
            }
        }
    }
}

/// Runs the command `id` with its argument object. An id with the `fslens.` prefix that names
/// no command is an `invalid_argument` on `command` listing the known ids (fslens never
/// forwards such a request: FSAC would answer "Method not found").
pub async fn dispatch(
    id: &str,
    argument: serde_json::Value,
    context: crate::commands::CommandContext,
) -> Result<serde_json::Value, crate::commands::CommandError> {
    let command = Command::from_id(id).ok_or_else(|| unknown_command(id))?;
    // A fault switch for the tests of a panicking command (tests/it/process_proxy.rs): the
    // command this variable names panics before it starts.
    if std::env::var("FSLENS_FAULT_PANIC_IN_COMMAND").is_ok_and(|panicking| panicking == id) {
        panic!("FSLENS_FAULT_PANIC_IN_COMMAND names {id}");
    }
    command.run(argument, context).await
}

/// The error for a `fslens.` id that names no command.
pub fn unknown_command(id: &str) -> crate::commands::CommandError {
    let known: Vec<&str> = Command::ids().collect();
    crate::commands::CommandError::invalid_argument(
        "command",
        format!("unknown fslens command {id:?}; known: {}", known.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_the_prefix_once_and_round_trip_with_tool_names() {
        for command in Command::ALL {
            let id = command.id();
            let suffix = id.strip_prefix(PREFIX).expect("every id has the fslens. prefix");
            assert!(!suffix.contains('.') && !suffix.is_empty(), "{id}");
            assert_eq!(Command::ids().filter(|other| *other == id).count(), 1, "{id} is listed once");
            assert_eq!(Command::from_id(id), Some(command));
            assert_eq!(Command::from_tool_name(command.tool_name()), Some(command));
        }
        assert_eq!(Command::FieldImpact.tool_name(), "field_impact");
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
