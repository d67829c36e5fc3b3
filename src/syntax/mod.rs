//! The tree-sitter-fsharp layer: parsing under a deadline, outlines, field-site
//! classification and the per-file index. Pure functions: no LSP, tokio or proxy types.
