//! `fslens index --workspace DIR --stats`: builds the syntax index of a whole workspace and
//! reports what it took — files, bytes, lines, clean/degraded counts, parse and index time,
//! cache hits and the memory the index holds. For users checking a workspace and for the
//! benchmarks.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// What `fslens index --stats` reports: the workspace model's size, what indexing it took and
/// the memory the index holds. Serialized once at the CLI's edge ([`run_cli`]); the text
/// rendering reads it back typed.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct IndexStats {
    /// Always `syntax`.
    pub via: String,
    pub root: String,
    pub projects: usize,
    pub solutions: usize,
    pub orphan_files: usize,
    pub files: usize,
    pub bytes: u64,
    pub lines: u64,
    pub clean: usize,
    pub degraded: usize,
    pub timed_out: usize,
    pub failed: usize,
    pub parsed: usize,
    pub cache_hits: usize,
    pub cache_write_failures: usize,
    /// `null` when the cache is disabled.
    pub cache_directory: Option<String>,
    pub snapshot: SnapshotStats,
    pub threads: usize,
    pub time_ms: IndexTimes,
    pub memory: MemoryStats,
}

/// `snapshot`: the entries the workspace snapshot supplied and its size.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct SnapshotStats {
    pub files: usize,
    pub bytes: usize,
}

/// `timeMs`: milliseconds, to a tenth; read, parse, index and cache are summed over threads.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct IndexTimes {
    pub workspace_model: f64,
    pub wall: f64,
    pub read_and_hash: f64,
    pub parse: f64,
    pub index: f64,
    pub cache: f64,
    pub snapshot: f64,
}

/// `memory`: the index's own estimate of what it holds.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct MemoryStats {
    pub index_heap_bytes: usize,
    pub bytes_per_line: f64,
    pub interned_names: usize,
    pub note: String,
}

/// Indexes every F# file of the workspace under `root` and reports statistics.
pub fn index_stats(root: &Path, options: IndexOptions, overlay: &Overlay) -> anyhow::Result<IndexStats> {
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
    Ok(IndexStats {
        via: "syntax".to_owned(),
        root: model.root.display().to_string(),
        projects: model.projects.len(),
        solutions: model.solutions.len(),
        orphan_files: model.orphan_files.len(),
        files: stats.files,
        bytes: stats.bytes,
        lines: stats.lines,
        clean: stats.clean,
        degraded: stats.degraded,
        timed_out: stats.timed_out,
        failed: stats.failed,
        parsed: stats.parsed,
        cache_hits: stats.cache_hits,
        cache_write_failures: stats.cache_write_failures,
        cache_directory: index.cache_directory().map(|path| path.display().to_string()),
        snapshot: SnapshotStats { files: stats.snapshot_files, bytes: stats.snapshot_bytes },
        threads: stats.threads,
        time_ms: IndexTimes {
            workspace_model: milliseconds(model_time),
            wall: milliseconds(stats.wall_time),
            read_and_hash: milliseconds(stats.read_time),
            parse: milliseconds(stats.parse_time),
            index: milliseconds(stats.extract_time),
            cache: milliseconds(stats.cache_time),
            snapshot: milliseconds(stats.snapshot_time),
        },
        memory: MemoryStats {
            index_heap_bytes: heap_bytes,
            bytes_per_line: if stats.lines == 0 {
                0.0
            } else {
                ((heap_bytes as f64 / stats.lines as f64) * 10.0).round() / 10.0
            },
            interned_names: index.interner().len(),
            note: "estimated from the index's own allocations (capacities), not the process's resident set".to_owned(),
        },
    })
}

/// Runs `fslens index` and writes its statistics as JSON (the CLI's edge); print the JSON with
/// `--json`, else [`render_text`] of it.
pub fn run_cli(arguments: &IndexCliArgs, workspace: &Path) -> anyhow::Result<Value> {
    let cache = if arguments.no_cache {
        CacheSetting::Disabled
    } else if let Some(directory) = &arguments.cache_dir {
        CacheSetting::Directory(directory.clone())
    } else {
        CacheSetting::from_environment()
    };
    let options = IndexOptions { threads: arguments.threads.unwrap_or(0), cache, ..IndexOptions::default() };
    Ok(serde_json::to_value(index_stats(workspace, options, &Overlay::new())?)?)
}

/// Plain-text rendering of [`run_cli`]'s answer, read back as [`IndexStats`].
pub fn render_text(stats: &Value) -> String {
    match IndexStats::deserialize(stats) {
        Ok(stats) => render_stats(&stats),
        Err(error) => format!("(the statistics could not be read for text: {error})\n{stats:#}"),
    }
}

/// Plain-text rendering of [`IndexStats`].
pub fn render_stats(stats: &IndexStats) -> String {
    let time = &stats.time_ms;
    format!(
        "workspace {}\n  {} projects, {} solutions, {} orphan files\n  {} files, {} bytes, {} lines: {} clean, {} degraded, {} timed out, {} failed\n  parsed {}, cache hits {} ({})\n  time: wall {:.1} ms on {} threads; summed over threads: read+hash {:.1} ms, parse {:.1} ms, index {:.1} ms, cache {:.1} ms; workspace model {:.1} ms\n  memory: index ~{} bytes ({} bytes/line), {} interned names\n",
        stats.root,
        stats.projects,
        stats.solutions,
        stats.orphan_files,
        stats.files,
        stats.bytes,
        stats.lines,
        stats.clean,
        stats.degraded,
        stats.timed_out,
        stats.failed,
        stats.parsed,
        stats.cache_hits,
        stats.cache_directory.as_deref().unwrap_or("cache disabled"),
        time.wall,
        stats.threads,
        time.read_and_hash,
        time.parse,
        time.index,
        time.cache,
        time.workspace_model,
        stats.memory.index_heap_bytes,
        stats.memory.bytes_per_line,
        stats.memory.interned_names,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_read_back_as_sent() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax-workspace");
        let options = IndexOptions { threads: 1, cache: CacheSetting::Disabled, ..IndexOptions::default() };
        let sent = serde_json::to_value(index_stats(&fixture, options, &Overlay::new()).expect("stats")).unwrap();
        let read = IndexStats::deserialize(&sent).expect("the stats read back");
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        assert_eq!(sent["timeMs"].as_object().map(|times| times.len()), Some(7), "{sent}");
        assert!(render_text(&sent).contains("10 files"), "{}", render_text(&sent));
    }
}
