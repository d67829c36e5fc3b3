//! Every name fslens puts on the wire, spelled once: command identifiers, `errorKind` values,
//! notification methods and the prefix of proxy-originated request ids.
//!
//! FSAC registers no commands of its own and emits `fsharp.*` command ids for the client, so
//! ours use the distinct `fslens.` prefix (shared/fsac-protocol.md §5.13).

/// `workspace/executeCommand` identifiers answered by fslens.
pub mod commands {
    /// What every fslens command identifier starts with (each constant below spells it out,
    /// and a unit test holds them to it).
    pub const PREFIX: &str = "fslens.";

    pub const STATUS: &str = "fslens.status";
    pub const CHECK: &str = "fslens.check";
    pub const FIELD_IMPACT: &str = "fslens.fieldImpact";
    pub const DIAGNOSTICS: &str = "fslens.diagnostics";
    pub const MAKE_INTERNAL_VISIBLE: &str = "fslens.makeInternalVisible";
    pub const OUTLINE: &str = "fslens.outline";
    pub const RESTART: &str = "fslens.restart";
    pub const FIND: &str = "fslens.find";
    // The diagnostic tools (issue #11).
    pub const EXPLAIN_DIAGNOSTIC: &str = "fslens.explainDiagnostic";
    pub const DIAGNOSTIC_FIXES: &str = "fslens.diagnosticFixes";
    pub const SUGGEST_OPEN: &str = "fslens.suggestOpen";
    // Referenced-assembly metadata (commands/referenced.rs).
    pub const REFERENCED_SYMBOLS: &str = "fslens.referencedSymbols";
    pub const NUGET_TYPES: &str = "fslens.nugetTypes";
    pub const NUGET_MEMBERS: &str = "fslens.nugetMembers";
    // Syntax-layer discovery tools (symbols module).
    pub const SYMBOL_SEARCH: &str = "fslens.symbolSearch";
    pub const READ_SYMBOL: &str = "fslens.readSymbol";
    pub const READ_ENCLOSING: &str = "fslens.readEnclosing";

    /// Every command fslens answers, in the order advertised in `executeCommandProvider`.
    pub const ALL: &[&str] = &[
        STATUS,
        RESTART,
        FIND,
        FIELD_IMPACT,
        CHECK,
        DIAGNOSTICS,
        MAKE_INTERNAL_VISIBLE,
        OUTLINE,
        EXPLAIN_DIAGNOSTIC,
        DIAGNOSTIC_FIXES,
        SUGGEST_OPEN,
        REFERENCED_SYMBOLS,
        NUGET_TYPES,
        NUGET_MEMBERS,
        SYMBOL_SEARCH,
        READ_SYMBOL,
        READ_ENCLOSING,
    ];
}

/// `data.errorKind` values (and check's `blockingReason.errorKind`): the stable names clients
/// branch on. docs/commands.md documents each one (a unit test holds it to that).
pub mod error_kinds {
    /// A command argument is missing, mistyped, out of range or unknown (`data.argument` names it).
    pub const INVALID_ARGUMENT: &str = "invalid_argument";
    /// A path is outside the workspace, not a regular file, or of the wrong kind.
    pub const INVALID_PATH: &str = "invalid_path";
    /// The request was cancelled (`$/cancelRequest`, or an MCP client's cancel).
    pub const CANCELLED: &str = "cancelled";
    /// The deadline passed first.
    pub const TIMEOUT: &str = "timeout";
    /// No FSAC is running, or it cannot answer in its state.
    pub const FSAC_UNAVAILABLE: &str = "fsac_unavailable";
    /// A fault in fslens itself.
    pub const INTERNAL_ERROR: &str = "internal_error";
    /// FSAC could not be started or did not answer `initialize`.
    pub const FSAC_STARTUP_FAILED: &str = "fsac_startup_failed";
    /// FSAC exited with the request pending.
    pub const FSAC_EXITED: &str = "fsac_exited";
    /// FSAC exited and restarted while the work ran, so analyses from before do not count.
    pub const FSAC_RESTARTED: &str = "fsac_restarted";
    /// FSAC's .NET host found no SDK matching `global.json`.
    pub const SDK_NOT_FOUND: &str = "sdk_not_found";
    /// Find's deadline passed before the sweep finished (a typed result, not an error).
    pub const FIND_TIMEOUT: &str = "find_timeout";
    /// One find site alone is larger than the response budget.
    pub const FIND_SITE_EXCEEDS_RESPONSE_BUDGET: &str = "find_site_exceeds_response_budget";
    /// A find cursor that cannot be decoded or is out of range.
    pub const FIND_CURSOR_INVALID: &str = "find_cursor_invalid";
    /// A find cursor from another query.
    pub const FIND_CURSOR_QUERY_MISMATCH: &str = "find_cursor_query_mismatch";
    /// A find cursor from before the files changed.
    pub const FIND_CURSOR_STALE: &str = "find_cursor_stale";
    /// A find cursor that could not be checked against the files.
    pub const FIND_CURSOR_VALIDATION_INCOMPLETE: &str = "find_cursor_validation_incomplete";
    /// No diagnostic at the position a diagnostic tool was given.
    pub const NO_DIAGNOSTIC_AT_POSITION: &str = "no_diagnostic_at_position";
    /// No project to read referenced assemblies from.
    pub const NO_PROJECT: &str = "no_project";
    /// The MCP bridge's session ended.
    pub const SESSION_CLOSED: &str = "session_closed";
    /// The MCP bridge could not reach or start a session.
    pub const SESSION_UNAVAILABLE: &str = "session_unavailable";
    /// The session answered an error that names no kind.
    pub const SESSION_ERROR: &str = "session_error";
    /// Check's blocking reason: a project needs `dotnet restore`.
    pub const PROJECT_NOT_RESTORED: &str = "project_not_restored";
    /// Check's blocking reason: FSAC failed to load a project.
    pub const PROJECT_FAILURE: &str = "project_failure";
    /// Check's blocking reason: the file belongs to no loaded project.
    pub const FILE_NOT_IN_PROJECT: &str = "file_not_in_project";
    /// Check's blocking reason: no source file is in scope.
    pub const NOTHING_IN_SCOPE: &str = "nothing_in_scope";
    /// Check's blocking reason: with speed fast, a file has no current analysis.
    pub const INCOMPLETE: &str = "incomplete";

    /// Every kind above.
    pub const ALL: &[&str] = &[
        INVALID_ARGUMENT,
        INVALID_PATH,
        CANCELLED,
        TIMEOUT,
        FSAC_UNAVAILABLE,
        INTERNAL_ERROR,
        FSAC_STARTUP_FAILED,
        FSAC_EXITED,
        FSAC_RESTARTED,
        SDK_NOT_FOUND,
        FIND_TIMEOUT,
        FIND_SITE_EXCEEDS_RESPONSE_BUDGET,
        FIND_CURSOR_INVALID,
        FIND_CURSOR_QUERY_MISMATCH,
        FIND_CURSOR_STALE,
        FIND_CURSOR_VALIDATION_INCOMPLETE,
        NO_DIAGNOSTIC_AT_POSITION,
        NO_PROJECT,
        SESSION_CLOSED,
        SESSION_UNAVAILABLE,
        SESSION_ERROR,
        PROJECT_NOT_RESTORED,
        PROJECT_FAILURE,
        FILE_NOT_IN_PROJECT,
        NOTHING_IN_SCOPE,
        INCOMPLETE,
    ];
}

/// Notifications fslens sends to its clients.
pub mod notifications {
    /// Readiness changed; params are `{state, reason, unresponsive, generation}`, the first
    /// fields of what `fslens.status` returns (ask it for the rest).
    pub const STATUS: &str = "fslens/status";
}

/// Requests fslens sends to FSAC.
pub mod backend_requests {
    /// A method FSAC does not register: its prompt `-32601` answer proves that FSAC's
    /// JSON-RPC loop is alive without costing FSAC any work.
    pub const PING: &str = "fslens/ping";
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
    "workspace/symbol",
    "fsharp/signature",
];

/// The prefix of request ids that fslens itself originates, towards FSAC or the editor.
/// Editor and FSAC ids are forwarded unchanged, so these ids never collide with theirs unless
/// a peer uses this very prefix.
pub const PROXY_ID_PREFIX: &str = "fslens:";

#[cfg(test)]
mod tests {
    use super::commands;

    #[test]
    fn every_command_carries_the_prefix_once_and_is_listed_once() {
        for command in commands::ALL {
            assert!(command.starts_with(commands::PREFIX), "{command}");
            assert!(!command[commands::PREFIX.len()..].contains('.'), "{command}");
            assert_eq!(commands::ALL.iter().filter(|other| *other == command).count(), 1, "{command}");
        }
    }
}
