//! fslens is a language-server proxy for F#.
//!
//! It sits between an editor and FsAutoComplete (FSAC), forwards ordinary LSP traffic
//! untouched and answers its own `workspace/executeCommand` commands. The modules are listed
//! in reading order: the wire (`lsp`), the mirror of the editor's buffers (`documents`), the
//! project model (`workspace`), the tree-sitter layer (`syntax`), the routing core (`proxy`)
//! and the command handlers (`commands`).

pub mod cli;
pub mod columns;
pub mod commands;
pub mod deadline;
pub mod documents;
pub mod failure;
pub mod lsp;
pub mod mcp;
pub mod metadata;
pub mod navigation;
pub mod proxy;
pub mod session;
pub mod session_client;
pub mod session_state;
pub mod shim;
pub mod source_files;
pub mod syntax;
pub mod uri;
pub mod workspace;
