//! `fslens index --workspace DIR --stats`: builds the syntax index of a whole workspace and
//! reports what it took — files, bytes, lines, clean/degraded counts, parse and index time,
//! cache hits and the memory the index holds. For users checking a workspace and for the
//! benchmarks.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use crate::syntax::cache::CacheSetting;
use crate::syntax::{IndexOptions, Overlay, SyntaxIndex};
use crate::workspace::load_workspace;

/// `fslens index` on the command line.
#[derive(Clone, Debug, clap::Args)]
pub struct IndexCliArgs {
    /// Report statistics (the only mode today; accepted for forward compatibility).
    #[arg(long)]
    pub stats: bool,
    /// Print JSON instead of plain text.
    #[arg(long)]
    pub json: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Do not read or write the on-disk cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Cache directory (default: FSLENS_CACHE_DIR, else $XDG_CACHE_HOME/fslens, else ~/.cache/fslens).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

/// Indexes every F# file of the workspace under `root` and reports statistics as JSON.
pub fn index_stats(root: &Path, options: IndexOptions, overlay: &Overlay) -> anyhow::Result<Value> {
    let index = SyntaxIndex::new(options);
    // The snapshot loads while the project model is read.
    let (model, model_time) = std::thread::scope(|scope| {
        let _ = std::thread::Builder::new().name("snapshot_load_task".to_owned()).spawn_scoped(scope, || {
            index.load_snapshot(root);
        });
        let model_started = Instant::now();
        let model = load_workspace(root);
        (model, model_started.elapsed())
    });
    let model = model?;
    let files = model.files_to_index();
    let stats = index.index_workspace(&model.root, &files, overlay);
    let heap_bytes = index.heap_bytes();
    let milliseconds = |duration: std::time::Duration| (duration.as_secs_f64() * 1000.0 * 10.0).round() / 10.0;
    Ok(json!({
        "via": "syntax",
        "root": model.root.display().to_string(),
        "projects": model.projects.len(),
        "solutions": model.solutions.len(),
        "orphanFiles": model.orphan_files.len(),
        "files": stats.files,
        "bytes": stats.bytes,
        "lines": stats.lines,
        "clean": stats.clean,
        "degraded": stats.degraded,
        "timedOut": stats.timed_out,
        "failed": stats.failed,
        "parsed": stats.parsed,
        "cacheHits": stats.cache_hits,
        "cacheWriteFailures": stats.cache_write_failures,
        "cacheDirectory": index.cache_directory().map(|path| path.display().to_string()),
        "snapshot": { "files": stats.snapshot_files, "bytes": stats.snapshot_bytes },
        "threads": stats.threads,
        "timeMs": {
            "workspaceModel": milliseconds(model_time),
            "wall": milliseconds(stats.wall_time),
            "readAndHash": milliseconds(stats.read_time),
            "parse": milliseconds(stats.parse_time),
            "index": milliseconds(stats.extract_time),
            "cache": milliseconds(stats.cache_time),
            "snapshot": milliseconds(stats.snapshot_time),
        },
        "memory": {
            "indexHeapBytes": heap_bytes,
            "bytesPerLine": if stats.lines == 0 { 0.0 } else { ((heap_bytes as f64 / stats.lines as f64) * 10.0).round() / 10.0 },
            "internedNames": index.interner().len(),
            "note": "estimated from the index's own allocations (capacities), not the process's resident set",
        },
    }))
}

/// Runs `fslens index`; print the JSON with `--json`, else [`render_text`] of it.
pub fn run_cli(arguments: &IndexCliArgs, workspace: &Path) -> anyhow::Result<Value> {
    let cache = if arguments.no_cache {
        CacheSetting::Disabled
    } else if let Some(directory) = &arguments.cache_dir {
        CacheSetting::Directory(directory.clone())
    } else {
        CacheSetting::from_environment()
    };
    let options = IndexOptions { threads: arguments.threads.unwrap_or(0), cache, ..IndexOptions::default() };
    index_stats(workspace, options, &Overlay::new())
}

/// Plain-text rendering of [`index_stats`]'s answer.
pub fn render_text(stats: &Value) -> String {
    let number = |key: &str| stats[key].as_u64().unwrap_or(0);
    let time = |key: &str| stats["timeMs"][key].as_f64().unwrap_or(0.0);
    format!(
        "workspace {}\n  {} projects, {} solutions, {} orphan files\n  {} files, {} bytes, {} lines: {} clean, {} degraded, {} timed out, {} failed\n  parsed {}, cache hits {} ({})\n  time: wall {:.1} ms on {} threads; summed over threads: read+hash {:.1} ms, parse {:.1} ms, index {:.1} ms, cache {:.1} ms; workspace model {:.1} ms\n  memory: index ~{} bytes ({} bytes/line), {} interned names\n",
        stats["root"].as_str().unwrap_or(""),
        number("projects"),
        number("solutions"),
        number("orphanFiles"),
        number("files"),
        number("bytes"),
        number("lines"),
        number("clean"),
        number("degraded"),
        number("timedOut"),
        number("failed"),
        number("parsed"),
        number("cacheHits"),
        stats["cacheDirectory"].as_str().unwrap_or("cache disabled"),
        time("wall"),
        number("threads"),
        time("readAndHash"),
        time("parse"),
        time("index"),
        time("cache"),
        time("workspaceModel"),
        stats["memory"]["indexHeapBytes"].as_u64().unwrap_or(0),
        stats["memory"]["bytesPerLine"].as_f64().unwrap_or(0.0),
        stats["memory"]["internedNames"].as_u64().unwrap_or(0),
    )
}
