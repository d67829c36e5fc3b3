//! Every name fslens puts on the wire, spelled once: command identifiers, notification
//! methods and the prefix of proxy-originated request ids.
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
