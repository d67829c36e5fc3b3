//! docs/commands.md is the command contract: every command identifier and every `errorKind`
//! fslens can send must be documented there, so a new one cannot ship undocumented.

use std::path::Path;

fn commands_doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md")).expect("docs/commands.md")
}

/// True when `name` stands in `text` as a whole word (not inside a longer identifier).
fn mentions(text: &str, name: &str) -> bool {
    let is_word = |character: char| character.is_ascii_alphanumeric() || character == '_' || character == '.';
    text.match_indices(name).any(|(start, _)| {
        let before = text[..start].chars().next_back();
        let after = text[start + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
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
fn every_command_is_documented() {
    let missing = undocumented(fslens::lsp::ext::commands::ALL);
    assert!(missing.is_empty(), "commands docs/commands.md never names: {missing:?}");
}

#[test]
fn a_word_inside_a_longer_name_is_not_a_mention() {
    assert!(mentions("`timeout` or `find_timeout`", "timeout"));
    assert!(!mentions("`find_timeout`", "timeout"));
    assert!(!mentions("`fslens.findAll`", "fslens.find"));
}
