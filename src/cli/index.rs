//! `fslens index`: its flags, the index options they ask for, and its statistics as text.

use std::path::{Path, PathBuf};

use crate::commands::index::{IndexStats, index_stats};
use crate::syntax::cache::CacheSetting;
use crate::syntax::{IndexOptions, Overlay};

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

impl IndexCliArgs {
    /// The index options the flags ask for: the worker threads and the cache (none with
    /// `--no-cache`, `--cache-dir`, else the environment's).
    fn options(&self) -> IndexOptions {
        let cache = if self.no_cache {
            CacheSetting::Disabled
        } else if let Some(directory) = &self.cache_dir {
            CacheSetting::Directory(directory.clone())
        } else {
            CacheSetting::from_environment()
        };
        IndexOptions { threads: self.threads.unwrap_or(0), cache, ..IndexOptions::default() }
    }
}

/// Indexes the workspace under `workspace` as the flags ask and answers its statistics.
pub fn run(arguments: &IndexCliArgs, workspace: &Path) -> anyhow::Result<IndexStats> {
    index_stats(workspace, arguments.options(), &Overlay::new())
}

/// `fslens index`'s statistics as text.
pub fn render_text(stats: &IndexStats) -> String {
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
