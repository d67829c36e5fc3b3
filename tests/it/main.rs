//! The integration tests: one test binary whose modules are the test files of tests/it/
//! (the layout of ruff's and rust-analyzer's slow tests). One binary links the library once
//! instead of once per file, and `cargo test --test it NAME` picks tests by module path
//! (`cargo test --test it proxy_core::`). The shared harness is [`support`]; the helper
//! programs the tests start (echo backend, kill wrapper) stay in tests/support/, the FSAC
//! double in tests/fsac-double-dotnet/, the MCP and metadata scripts in tests/mcp/ and tests/metadata/.
//!
//! A new test file is a new `mod` line here; [`every_test_file_is_a_module`] fails for a file
//! in tests/it/ that is not one, since cargo would otherwise never compile it, and
//! [`no_test_file_is_a_binary_of_its_own`] for a `.rs` file directly under tests/, which cargo
//! would build as a separate binary.

mod active_patterns;
mod affected_tests;
mod architecture;
mod check_confirm;
mod check_races;
mod check_referee;
mod check_what_if;
mod check_with_double;
mod cli_contract;
mod cli_navigate;
mod cli_paths;
mod cli_text;
mod dead_code;
mod diagnostic_tools;
mod diagnostic_tools_scripted;
mod disk_text;
mod docs_stand_alone;
mod doctor;
mod dotnet_shim;
mod editor_harness;
mod editors_emacs;
mod editors_neovim;
mod editors_recordings;
mod error_region_declarations;
mod field_impact;
mod find_concurrency;
mod find_failed_project;
mod find_inactive_code;
mod find_names;
mod find_oracle;
mod find_prefilter;
mod find_qualified_narrowing;
mod find_scale;
mod find_slots;
mod find_symbols;
mod find_type_errors;
mod find_unseen_uses;
mod find_with_double;
mod fsac_reloads;
mod index_completeness;
mod make_visible;
mod mcp_bridge;
mod mcp_diagnostic_tools;
mod mcp_symbol_tools;
mod metadata_against_srm;
mod partial_pages;
mod process_proxy;
mod project_inspect;
mod proxy_core;
mod proxy_properties;
mod proxy_random_interleavings;
mod proxy_resilience;
mod proxy_with_double;
mod real_fsac;
mod referenced_assemblies;
mod rename;
mod resilience_kills;
mod run_tests;
mod session_socket;
mod signature_drift;
mod source_files;
mod support;
mod symbol_tools;
mod syntax_cli;
mod syntax_error_regions;
mod syntax_index;
mod syntax_outline;
mod syntax_snapshot;
mod syntax_workspace_index;
mod tests_for_symbol;
mod type_hierarchy;
mod union_impact;
mod union_patterns;
mod wire_names_documented;
mod workspace_model;

/// Every `tests/it/NAME.rs` is declared as `mod NAME;` in this file.
#[test]
fn every_test_file_is_a_module() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(directory.join("main.rs")).expect("read tests/it/main.rs");
    let declared: Vec<&str> = main.lines().filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';')).collect();
    let mut undeclared = Vec::new();
    for entry in std::fs::read_dir(&directory).expect("read tests/it") {
        let path = entry.expect("entry of tests/it").path();
        let Some(name) = path.file_stem().and_then(|stem| stem.to_str()) else { continue };
        if path.extension().is_some_and(|extension| extension == "rs") && name != "main" && !declared.contains(&name) {
            undeclared.push(path.display().to_string());
        }
    }
    assert!(
        undeclared.is_empty(),
        "test files not declared in tests/it/main.rs (never compiled):\n{}",
        undeclared.join("\n")
    );
}

/// No `tests/NAME.rs` outside tests/it/: cargo would link each as a test binary of its own.
#[test]
fn no_test_file_is_a_binary_of_its_own() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut binaries = Vec::new();
    for entry in std::fs::read_dir(&directory).expect("read tests") {
        let path = entry.expect("entry of tests").path();
        if path.is_file() && path.extension().is_some_and(|extension| extension == "rs") {
            binaries.push(path.display().to_string());
        }
    }
    assert!(binaries.is_empty(), "move these into tests/it/ as modules:\n{}", binaries.join("\n"));
}
