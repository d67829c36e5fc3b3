//! Every name fslens puts on the wire, spelled once: `errorKind` values, notification methods
//! and the prefix of proxy-originated request ids. Command identifiers are rows of the command
//! table (`commands::registry`).

/// `data.errorKind` values (and check's `blockingReason.errorKind`): the stable names clients
/// branch on. docs/commands.md documents each one (tests/it/wire_names_documented.rs holds it to that).
pub mod error_kinds {
    /// Declares each kind as a constant and lists them all in `ALL`, from one list.
    macro_rules! error_kinds {
        ($($(#[$doc:meta])* $name:ident = $value:literal,)*) => {
            $($(#[$doc])* pub const $name: &str = $value;)*
            /// Every kind above.
            pub const ALL: &[&str] = &[$($name),*];
        };
    }

    error_kinds! {
        /// A command argument is missing, mistyped, out of range or unknown (`data.argument` names it).
        INVALID_ARGUMENT = "invalid_argument",
        /// A path is outside the workspace, not a regular file, or of the wrong kind.
        INVALID_PATH = "invalid_path",
        /// The request was cancelled (`$/cancelRequest`, or an MCP client's cancel).
        CANCELLED = "cancelled",
        /// The deadline passed first.
        TIMEOUT = "timeout",
        /// No FSAC is running, or it cannot answer in its state.
        FSAC_UNAVAILABLE = "fsac_unavailable",
        /// A fault in fslens itself.
        INTERNAL_ERROR = "internal_error",
        /// FSAC could not be started or did not answer `initialize`.
        FSAC_STARTUP_FAILED = "fsac_startup_failed",
        /// FSAC exited with the request pending.
        FSAC_EXITED = "fsac_exited",
        /// FSAC exited and restarted while the work ran, so analyses from before do not count.
        FSAC_RESTARTED = "fsac_restarted",
        /// fslens is restarting FSAC on purpose (a planned restart, e.g. past its memory limit)
        /// and answered the pending request rather than keep it waiting.
        FSAC_RESTARTING = "fsac_restarting",
        /// FSAC's .NET host found no SDK matching `global.json`.
        SDK_NOT_FOUND = "sdk_not_found",
        /// Find's deadline passed before the sweep finished (a typed result, not an error).
        FIND_TIMEOUT = "find_timeout",
        /// One find site alone is larger than the response budget.
        FIND_SITE_EXCEEDS_RESPONSE_BUDGET = "find_site_exceeds_response_budget",
        /// A find cursor that cannot be decoded or is out of range.
        FIND_CURSOR_INVALID = "find_cursor_invalid",
        /// A find cursor from another query.
        FIND_CURSOR_QUERY_MISMATCH = "find_cursor_query_mismatch",
        /// A find cursor from before the files changed.
        FIND_CURSOR_STALE = "find_cursor_stale",
        /// A find cursor that could not be checked against the files.
        FIND_CURSOR_VALIDATION_INCOMPLETE = "find_cursor_validation_incomplete",
        /// No diagnostic at the position a diagnostic tool was given.
        NO_DIAGNOSTIC_AT_POSITION = "no_diagnostic_at_position",
        /// No project to read referenced assemblies from.
        NO_PROJECT = "no_project",
        /// The workspace has no F# project at all: `status` (`noProjects`), `find` (outcome
        /// `indeterminate`, never `not_found`) and `check` (verdict `unknown`) say so, with
        /// where they looked.
        NO_PROJECTS = "no_projects",
        /// The MCP bridge's session ended.
        SESSION_CLOSED = "session_closed",
        /// The MCP bridge could not reach or start a session.
        SESSION_UNAVAILABLE = "session_unavailable",
        /// The session answered an error that names no kind.
        SESSION_ERROR = "session_error",
        /// Check's blocking reason: a project needs `dotnet restore`.
        PROJECT_NOT_RESTORED = "project_not_restored",
        /// Check's blocking reason: FSAC failed to load a project.
        PROJECT_FAILURE = "project_failure",
        /// A project file that is not well-formed XML (MSBuild cannot load it).
        PROJECT_FILE_MALFORMED = "project_file_malformed",
        /// A project's `Compile` item names a file that does not exist (the build fails).
        COMPILE_ITEM_MISSING = "compile_item_missing",
        /// Check's blocking reason: the file belongs to no loaded project.
        FILE_NOT_IN_PROJECT = "file_not_in_project",
        /// Check's blocking reason: no source file is in scope.
        NOTHING_IN_SCOPE = "nothing_in_scope",
        /// Check's blocking reason: the files in scope are compiled only in a configuration
        /// FSAC did not load (another target framework).
        NOT_IN_LOADED_CONFIGURATION = "not_in_loaded_configuration",
        /// A rename (or navigation) position on no symbol: a keyword, a string, a comment, or
        /// nothing the compiler can rename (`data.reason` says which).
        NO_SYMBOL_AT_POSITION = "no_symbol_at_position",
        /// `fslens.rename` with `apply: "disk"`: a file changed since the preview (its hash
        /// differs from `expectedHashes`) or is unsaved in the editor; nothing was written.
        RENAME_FILES_CHANGED = "rename_files_changed",
        /// `fslens.rename`: the backend's edit set cannot be applied as it stands (two edits of one
        /// file overlap, or one lies outside its file); it is refused before any preview, what-if
        /// or write, and nothing is written (`data.reason`, `data.file`, `data.edits`).
        RENAME_EDITS_INVALID = "rename_edits_invalid",
        /// Check's blocking reason: with speed fast, a file has no current analysis.
        INCOMPLETE = "incomplete",
        /// `fslens.runTests`' blocking reason: FSAC's test run failed (VSTest or the SDK could
        /// not be found or started; the message is FSAC's) or its answer could not be read.
        TEST_RUN_FAILED = "test_run_failed",
    }
}

/// The `restoreState` of the metadata commands (`referencedSymbols`, `nugetTypes`,
/// `nugetMembers`): whether the project's restore output (`obj/project.assets.json`) is there.
pub mod restore_states {
    /// The restore output was read: the package graph is the one the build uses.
    pub const RESTORED: &str = "restored";
    /// No (readable) restore output: the project was never restored, so its package graph
    /// (FSharp.Core included) is not known and no answer is complete.
    pub const NOT_RESTORED: &str = "not_restored";

    pub const ALL: &[&str] = &[RESTORED, NOT_RESTORED];
}

/// Notifications fslens sends to its clients.
pub mod notifications {
    /// Readiness changed; params are `{state, reason, unresponsive, generation}`, the first
    /// fields of what `fslens.status` returns (ask it for the rest).
    pub const STATUS: &str = "fslens/status";
}

/// Why fslens restarted FSAC on purpose: `reason` of the `fslens/status` notification that
/// announces a planned restart, and of `fsac.lastPlannedRestart` in `fslens.status`.
pub mod restart_reasons {
    /// FSAC's resident memory crossed `--fsac-memory-limit`.
    pub const MEMORY_LIMIT: &str = "memory_limit";
}

/// Requests fslens sends to FSAC.
pub mod backend_requests {
    /// A method FSAC does not register: its prompt `-32601` answer proves that FSAC's
    /// JSON-RPC loop is alive without costing FSAC any work.
    pub const PING: &str = "fslens/ping";
    /// FSAC's test explorer run (docs/fsac-protocol.md §9), which `fslens.runTests` sends.
    pub const RUN_TESTS: &str = "test/runTests";
}

/// FSAC's requests to its client that fslens itself may answer.
pub mod fsac_requests {
    /// FSAC asks whether a debugger attached to a test host (`attachDebugger: true` runs); a
    /// session without an editor answers `false` at once, so the run goes on without one.
    pub const PROCESS_WAITING_FOR_DEBUGGER: &str = "test/processWaitingForDebugger";
}

/// The `clientInfo.name` of the sessions fslens's own clients start (the CLI and the MCP
/// bridge are then the session's editor): such a session has no person at an editor, so
/// nothing can attach a debugger.
pub mod headless_clients {
    pub const CLI: &str = "fslens-cli";
    pub const MCP: &str = "fslens-mcp";

    pub const ALL: [&str; 2] = [CLI, MCP];
}

/// The LSP requests a session client may send; they are routed to FSAC under proxy ids.
/// All of them only read.
pub const SESSION_READ_ONLY_METHODS: &[&str] = &[
    "textDocument/definition",
    "textDocument/typeDefinition",
    "textDocument/references",
    "textDocument/hover",
    "textDocument/documentSymbol",
    "textDocument/codeAction",
    "textDocument/signatureHelp",
    "textDocument/implementation",
    "textDocument/prepareCallHierarchy",
    "callHierarchy/incomingCalls",
    "callHierarchy/outgoingCalls",
    "workspace/symbol",
    "fsharp/signature",
];

/// The one request a session client may send that reaches the editor: an edit, relayed as one
/// `workspace/applyEdit` when the editor declared `workspace.applyEdit` (the user can undo
/// it), else answered `{applied: false, failureReason}` by the session. `navigate`
/// `codeActions` with `apply: "editor"` sends it.
pub const SESSION_APPLY_EDIT: &str = "workspace/applyEdit";

/// The prefix of request ids that fslens itself originates, towards FSAC or the editor.
/// Editor and FSAC ids are forwarded unchanged, so these ids never collide with theirs unless
/// a peer uses this very prefix.
pub const PROXY_ID_PREFIX: &str = "fslens:";
