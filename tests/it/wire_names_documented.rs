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
    let missing = undocumented(&fslens::commands::registry::Command::ids().collect::<Vec<_>>());
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

/// The argument names docs/commands.md gives `command` a row for: the backticked names in the
/// first column of every `| name | … |` table in the sections whose heading names the command
/// (with their subsections, except a subsection whose heading names another command but not
/// this one: a section shared by several commands keeps each one's own arguments apart).
fn documented_arguments(doc: &str, command: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    let mut inside: Option<usize> = None;
    let mut other_command: Option<usize> = None;
    let mut in_argument_table = false;
    for line in doc.lines() {
        if line.starts_with('#') {
            let level = line.chars().take_while(|c| *c == '#').count();
            if inside.is_some_and(|own| level <= own) {
                inside = None;
            }
            if other_command.is_some_and(|other| level <= other) {
                other_command = None;
            }
            if inside.is_none() && mentions(line, command) {
                inside = Some(level);
            } else if inside.is_some()
                && other_command.is_none()
                && !mentions(line, command)
                && line.contains("`fslens.")
            {
                other_command = Some(level);
            }
            in_argument_table = false;
            continue;
        }
        if inside.is_none() || other_command.is_some() {
            continue;
        }
        if !line.starts_with('|') {
            in_argument_table = false;
            continue;
        }
        let first_cell = line.trim_start_matches('|').split('|').next().unwrap_or_default().trim();
        if first_cell == "name" {
            in_argument_table = true;
            continue;
        }
        if in_argument_table && !first_cell.starts_with("---") {
            for (index, part) in first_cell.split('`').enumerate() {
                if index % 2 == 1 && !part.is_empty() {
                    names.insert(part.to_owned());
                }
            }
        }
    }
    names
}

#[test]
fn every_typed_command_documents_exactly_its_schema_arguments() {
    let doc = commands_doc();
    let mut disagreements = Vec::new();
    for command in fslens::commands::registry::Command::ALL {
        let schema = command.input_schema();
        let generated: std::collections::BTreeSet<String> =
            schema["properties"].as_object().map(|properties| properties.keys().cloned().collect()).unwrap_or_default();
        let documented = documented_arguments(&doc, command.id());
        if generated != documented {
            let undocumented: Vec<_> = generated.difference(&documented).collect();
            let not_in_schema: Vec<_> = documented.difference(&generated).collect();
            disagreements.push(format!(
                "{}: in the schema but not the docs {undocumented:?}; in the docs but not the schema {not_in_schema:?}",
                command.id()
            ));
        }
    }
    assert!(disagreements.is_empty(), "docs/commands.md argument tables disagree:\n{}", disagreements.join("\n"));
}

#[test]
fn the_argument_table_reader_reads_first_cells_of_name_tables_only() {
    let doc = "## `fslens.a`\n\n| name | type |\n|---|---|\n| `x` or `y` | integer |\n\n| field | meaning |\n|---|---|\n| `result` | no |\n\n### More on `fslens.a`\n\n| name | type |\n|---|---|\n| `z` | string |\n\n## `fslens.b`\n\n| name | type |\n|---|---|\n| `w` | |\n";
    let names: Vec<String> = documented_arguments(doc, "fslens.a").into_iter().collect();
    assert_eq!(names, ["x", "y", "z"]);
}

#[test]
fn a_shared_section_gives_each_command_the_shared_rows_and_its_own() {
    let doc = "## `fslens.a`, `fslens.b`\n\n| name | type |\n|---|---|\n| `shared` | |\n\n### `fslens.a`\n\n| name | type |\n|---|---|\n| `onlyA` | |\n\n#### Details\n\n| name | type |\n|---|---|\n| `alsoA` | |\n\n### `fslens.b`\n\n| name | type |\n|---|---|\n| `onlyB` | |\n\n## `fslens.c`\n\n| name | type |\n|---|---|\n| `c` | |\n";
    let of = |command: &str| documented_arguments(doc, command).into_iter().collect::<Vec<String>>();
    assert_eq!(of("fslens.a"), ["alsoA", "onlyA", "shared"]);
    assert_eq!(of("fslens.b"), ["onlyB", "shared"]);
    assert_eq!(of("fslens.c"), ["c"]);
}
