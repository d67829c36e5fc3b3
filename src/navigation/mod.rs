//! Navigation through a session: LSP requests at a position (definition, references, hover,
//! calls, the type hierarchy, code actions, …) and `symbol_at_word`, asked through the session
//! client by `fslens navigate` and by the MCP bridge's `navigate` and `symbol_at_word` tools.
//!
//! `navigate` holds the typed arguments and the [`Navigator`] that runs an operation,
//! `symbol_at_word` the word-addressed hover and definition, `code_actions` the previewed and
//! applied code actions, and `locations` what makes FSAC's answers readable (a word found on a
//! line, workspace-relative files and each location's line text).

pub mod code_actions;
pub mod locations;
pub mod navigate;
pub mod symbol_at_word;

pub use navigate::{NavigateArguments, Navigator, render_text, run_from_cli};
pub use symbol_at_word::SymbolAtWordArguments;
