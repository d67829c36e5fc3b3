//! The `workspace/executeCommand` handlers that fslens answers itself, one module each.
