//! The tree-sitter-fsharp layer: parsing under a deadline, the per-file index (declarations,
//! field-site candidates, access-modifier spans, identifier occurrences, parse health), the
//! on-disk cache and the workspace-wide index built on worker threads.
//!
//! Pure functions and std threads only: nothing here imports LSP, tokio or proxy types
//! (docs/architecture.md, invariant 1). Every answer built from this layer is labelled
//! `via: "syntax"` by its caller.

pub mod cache;
pub mod conditionals;
pub mod describe;
pub mod enclosing;
pub mod extract;
pub mod index;
pub mod inline_il;
pub mod model;
pub mod names;
pub mod parse;
pub mod prefilter;
pub mod recover;
pub mod snapshot;
pub mod tokens;
pub mod trailing_comments;
pub mod union_declaration;
pub mod words;

pub use extract::{LineIndex, extract_file_index, render_signature};
pub use index::{IndexOptions, IndexRunStats, Overlay, SyntaxIndex};
pub use model::*;
pub use parse::{DeadlinePolicy, FsharpParsers, GRAMMAR_VERSION, ParseFailure};
