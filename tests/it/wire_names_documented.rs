//! docs/commands.md is the command contract: every command identifier, every `errorKind` and
//! every `restoreState` fslens can send must be documented there, so a new one cannot ship
//! undocumented.

use std::path::Path;

fn commands_doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md")).expect("docs/commands.md")
}

/// True when `text` names `name` as a wire value: in backticks or in double quotes, so that
/// an error kind that is also an English word (`timeout`, `incomplete`) is not found in prose.
fn mentions(text: &str, name: &str) -> bool {
    text.contains(&format!("`{name}`")) || text.contains(&format!("\"{name}\""))
}

/// The names of `names` that docs/commands.md never mentions.
fn undocumented(names: &[&'static str]) -> Vec<&'static str> {
    let doc = commands_doc();
    names.iter().copied().filter(|name| !mentions(&doc, name)).collect()
}

#[test]
fn every_error_kind_is_documented() {
    let missing = undocumented(fslens::lsp::ext::error_kinds::ALL);
    assert!(missing.is_empty(), "errorKind values docs/commands.md never names: {missing:?}");
}

#[test]
fn every_restore_state_is_documented() {
    let missing = undocumented(fslens::lsp::ext::restore_states::ALL);
    assert!(missing.is_empty(), "restoreState values docs/commands.md never names: {missing:?}");
}

#[test]
fn every_command_is_documented() {
    let missing = undocumented(fslens::lsp::ext::commands::ALL);
    assert!(missing.is_empty(), "commands docs/commands.md never names: {missing:?}");
}

#[test]
fn only_a_quoted_name_is_a_mention() {
    assert!(mentions("`timeout` or `find_timeout`", "timeout"));
    assert!(mentions(r#"errorKind: "find_timeout""#, "find_timeout"));
    assert!(!mentions("`find_timeout`", "timeout"));
    assert!(!mentions("the sweep timed out: timeout", "timeout"));
    assert!(!mentions("`fslens.findAll`", "fslens.find"));
}
