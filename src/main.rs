//! The `fslens` binary: wiring only.
fn main() {}
