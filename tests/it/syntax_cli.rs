//! The CLI entry points the binary wires up: `fslens index --stats` and the outline flags'
//! mapping onto `fslens.outline` arguments, plus their plain-text renderings.

use std::path::{Path, PathBuf};

use clap::Parser;
use fslens::cli::index::{IndexCliArgs, render_text, run};
use fslens::commands::index::IndexStats;
use fslens::commands::outline::OutlineArguments;

/// `fslens index`'s statistics as the wire JSON `--json` prints.
fn run_cli(arguments: &IndexCliArgs, workspace: &Path) -> anyhow::Result<serde_json::Value> {
    Ok(serde_json::to_value(run(arguments, workspace)?)?)
}

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax-workspace")
}

/// The binary takes `--workspace` as a session option shared by every subcommand.
#[derive(Parser)]
struct IndexCommand {
    #[arg(long)]
    workspace: PathBuf,
    #[command(flatten)]
    arguments: IndexCliArgs,
}

#[derive(Parser)]
struct OutlineCommand {
    #[arg(long)]
    workspace: PathBuf,
    #[command(flatten)]
    arguments: OutlineArguments,
}

#[test]
fn index_stats_over_the_fixture() {
    let root = fixture_root();
    let command =
        IndexCommand::parse_from(["fslens", "--workspace", root.to_str().expect("utf-8"), "--stats", "--no-cache"]);
    let stats = run_cli(&command.arguments, &command.workspace).expect("stats");
    assert_eq!(stats["via"], "syntax");
    assert_eq!(stats["files"], 10);
    assert_eq!(stats["projects"], 2);
    assert_eq!(stats["orphanFiles"], 3);
    assert_eq!(stats["clean"], 10);
    assert_eq!(stats["cacheHits"], 0);
    assert!(stats["cacheDirectory"].is_null());
    assert!(stats["memory"]["indexHeapBytes"].as_u64().expect("bytes") > 0);
    let text = render_text(&serde_json::from_value::<IndexStats>(stats).expect("the stats read back"));
    assert!(text.contains("10 files") && text.contains("10 clean"), "{text}");
}

#[test]
fn index_stats_use_the_given_cache_directory() {
    let cache = tempfile::tempdir().expect("temp dir");
    let root = fixture_root();
    let arguments = [
        "fslens",
        "--workspace",
        root.to_str().expect("utf-8"),
        "--cache-dir",
        cache.path().to_str().expect("utf-8"),
        "--threads",
        "1",
    ];
    let (first, second) = (IndexCommand::parse_from(arguments), IndexCommand::parse_from(arguments));
    let first = run_cli(&first.arguments, &first.workspace).expect("stats");
    let second = run_cli(&second.arguments, &second.workspace).expect("stats");
    let counts = |stats: &serde_json::Value| {
        (stats["parsed"].as_u64(), stats["cacheHits"].as_u64(), stats["snapshot"]["files"].as_u64())
    };
    // The first run parses and writes the workspace snapshot; the second starts from it (the
    // fixture's files are settled), so it neither parses nor looks up a per-file entry.
    assert_eq!(counts(&first), (Some(10), Some(0), Some(0)));
    assert_eq!(counts(&second), (Some(0), Some(0), Some(10)));
    assert!(second["snapshot"]["bytes"].as_u64().is_some_and(|bytes| bytes > 0));
    // Without the snapshot, the per-file cache answers every file.
    for entry in std::fs::read_dir(cache.path()).expect("cache directory").flatten() {
        let _ = std::fs::remove_dir_all(entry.path().join("workspaces"));
    }
    let third = IndexCommand::parse_from(arguments);
    let third = run_cli(&third.arguments, &third.workspace).expect("stats");
    assert_eq!(counts(&third), (Some(0), Some(10), Some(0)));
}

#[test]
fn missing_workspace_is_an_error_with_context() {
    let command = IndexCommand::parse_from(["fslens", "--workspace", "/no/such/workspace"]);
    let error = run_cli(&command.arguments, &command.workspace).expect_err("fails");
    assert!(format!("{error:#}").contains("/no/such/workspace"));
}

#[test]
fn outline_flags_map_onto_command_arguments() {
    let command = OutlineCommand::parse_from([
        "fslens",
        "--workspace",
        "/w",
        "--path",
        "src/A.fs",
        "--full",
        "--max-results",
        "5",
        "--namespace-filter",
        "Acme",
        "--view",
        "public-api",
        "--include-internal",
    ]);
    assert_eq!(
        fslens::commands::params::to_argument_object(&command.arguments),
        serde_json::json!({
            "path": "src/A.fs",
            "view": "publicApi",
            "summaryOnly": false,
            "maxResults": 5,
            "namespaceFilter": "Acme",
            "includeInternal": true,
        })
    );
}
