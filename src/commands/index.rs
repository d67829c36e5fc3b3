//! `fslens index --workspace DIR --stats`: builds the syntax index of a whole workspace and
//! reports what it took — files, bytes, lines, clean/degraded counts, parse and index time,
//! cache hits and the memory the index holds. For users checking a workspace and for the
//! benchmarks.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::syntax::{IndexOptions, Overlay, SyntaxIndex};
use crate::workspace::load_workspace;

/// What `fslens index --stats` reports: the workspace model's size, what indexing it took and
/// the memory the index holds. The command line prints it as JSON or as text
/// (`cli::index`).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::cache::CacheSetting;

    #[test]
    fn stats_read_back_as_sent() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax-workspace");
        let options = IndexOptions { threads: 1, cache: CacheSetting::Disabled, ..IndexOptions::default() };
        let sent = serde_json::to_value(index_stats(&fixture, options, &Overlay::new()).expect("stats")).unwrap();
        let read = IndexStats::deserialize(&sent).expect("the stats read back");
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        assert_eq!(sent["timeMs"].as_object().map(|times| times.len()), Some(7), "{sent}");
        let text = crate::cli::index::render_text(&read);
        assert!(text.contains("10 files"), "{text}");
    }
}
