//! The workspace-wide syntax index: parses files on worker threads (std threads, both cores),
//! reads unsaved buffers from an [`Overlay`] before the disk, consults the on-disk cache, and
//! keeps one compact [`FileIndex`] per file (never a tree).
//!
//! [`SyntaxIndex`] is `Sync`: a caller builds or refreshes it from a blocking thread while
//! command handlers query it concurrently. Queries take names as text and answer with paths
//! and ranges; nothing here knows about LSP.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use dashmap::DashMap;
use sha2::{Digest, Sha256};

use crate::syntax::cache::{CacheSetting, DiskCache};
use crate::syntax::extract::extract_file_index;
use crate::syntax::model::{
    Declaration, FieldSite, FileHealth, FileIndex, GrammarKind, HealthStatus, Interner, LocalFileIndex, NameId,
    Position,
};
use crate::syntax::names;
use crate::syntax::parse::{DeadlinePolicy, FsharpParsers, ParseFailure};
use crate::syntax::snapshot;

/// Unsaved editor buffers by absolute path; they win over the files on disk.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    texts: HashMap<PathBuf, Arc<str>>,
}

impl Overlay {
    pub fn new() -> Self {
        Overlay::default()
    }

    pub fn insert(&mut self, path: impl Into<PathBuf>, text: impl Into<Arc<str>>) {
        self.texts.insert(path.into(), text.into());
    }

    pub fn get(&self, path: &Path) -> Option<&Arc<str>> {
        self.texts.get(path)
    }

    /// The current text of `path`: its buffer here, else the disk (`source_files::current_text`).
    pub fn current_text(&self, path: &Path) -> std::io::Result<String> {
        crate::source_files::current_text(self.get(path).map(|text| &**text), path)
    }

    /// [`Overlay::current_text`] with invalid UTF-8 on disk replaced.
    pub fn current_text_lossy(&self, path: &Path) -> std::io::Result<String> {
        crate::source_files::current_text_lossy(self.get(path).map(|text| &**text), path)
    }

    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.texts.keys()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

/// How to build the index.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    /// Worker threads; 0 means one per available core.
    pub threads: usize,
    pub cache: CacheSetting,
    pub deadline: DeadlinePolicy,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions { threads: 0, cache: CacheSetting::from_environment(), deadline: DeadlinePolicy::default() }
    }
}

impl IndexOptions {
    pub fn without_cache() -> Self {
        IndexOptions { cache: CacheSetting::Disabled, ..IndexOptions::default() }
    }

    /// How many worker threads `jobs` pieces of work get.
    pub fn worker_count(&self, jobs: usize) -> usize {
        let available = std::thread::available_parallelism().map(|count| count.get()).unwrap_or(1);
        let wanted = if self.threads == 0 { available } else { self.threads };
        wanted.clamp(1, jobs.max(1))
    }
}

/// The order in which workers take `paths` from their shared queue. With several workers,
/// largest first: parse time grows with size, so a big file taken last would leave the other
/// workers idle while it finishes. Sizes come from the overlay, the file's entry in `files`
/// (its size when last indexed), or its metadata (a `stat`, cheap next to a parse); an
/// unreadable file counts as empty and is reported when its turn comes. With one worker the order does not matter and no `stat` is made.
fn largest_first(paths: &[PathBuf], overlay: &Overlay, workers: usize, files: &IndexedFiles) -> Vec<usize> {
    let mut order: Vec<usize> = (0..paths.len()).collect();
    if workers > 1 {
        let sizes: Vec<u64> = paths
            .iter()
            .map(|path| match overlay.get(path) {
                Some(text) => text.len() as u64,
                // An indexed file's last size is as good for ordering, and costs no `stat`.
                None => match files.get(path) {
                    Some(file) => u64::from(file.index.bytes),
                    None => std::fs::metadata(path).map_or(0, |metadata| metadata.len()),
                },
            })
            .collect();
        // Stable: equal sizes keep the caller's order.
        order.sort_by_key(|slot| std::cmp::Reverse(sizes[*slot]));
    }
    order
}

type IndexedFiles = DashMap<PathBuf, Arc<IndexedFile>>;

/// One indexed file.
#[derive(Debug)]
pub struct IndexedFile {
    pub path: PathBuf,
    /// True when the text came from the overlay rather than the disk.
    pub from_overlay: bool,
    /// Shared, so that a file whose stamp changed but whose text did not keeps its index
    /// without copying it.
    pub index: Arc<FileIndex>,
    /// For disk text: the file's size and modification time, and when it was read.
    pub disk_stamp: Option<DiskStamp>,
}

/// What a later run compares to skip re-reading (and re-hashing) a file that has not changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiskStamp {
    pub len: u64,
    pub modified: SystemTime,
    pub read_at: SystemTime,
}

impl DiskStamp {
    /// How long before the read a modification must lie for the stamp to be trusted: a write
    /// in the same timestamp tick as the read (coarse file-system clocks) could leave size and
    /// time unchanged, so such a file is read again (git's "racily clean" rule).
    const SETTLED: Duration = Duration::from_secs(2);

    fn of(metadata: &std::fs::Metadata, read_at: SystemTime) -> Option<DiskStamp> {
        Some(DiskStamp { len: metadata.len(), modified: metadata.modified().ok()?, read_at })
    }

    /// True when the file described by `metadata` is, by its stamp, the text read then.
    fn still_matches(&self, metadata: &std::fs::Metadata) -> bool {
        metadata.len() == self.len
            && metadata.modified().ok() == Some(self.modified)
            && self.read_at.duration_since(self.modified).is_ok_and(|settled| settled >= Self::SETTLED)
    }
}

/// What one indexing run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexRunStats {
    pub files: usize,
    pub bytes: u64,
    pub lines: u64,
    pub clean: usize,
    pub degraded: usize,
    pub timed_out: usize,
    pub failed: usize,
    /// Files answered from the on-disk cache.
    pub cache_hits: usize,
    /// Files whose indexed content hash was already current: no work at all.
    pub unchanged: usize,
    /// Files parsed by tree-sitter in this run.
    pub parsed: usize,
    /// Summed over workers: reading and hashing, parsing, extracting, cache reads and writes.
    pub read_time: Duration,
    pub parse_time: Duration,
    pub extract_time: Duration,
    pub cache_time: Duration,
    pub wall_time: Duration,
    pub threads: usize,
    pub cache_write_failures: usize,
    /// Entries the workspace snapshot supplied, its size, and the time to read and write it
    /// (set by [`SyntaxIndex::index_workspace`] only).
    pub snapshot_files: usize,
    pub snapshot_bytes: usize,
    pub snapshot_time: Duration,
}

impl IndexRunStats {
    fn absorb(&mut self, other: &IndexRunStats) {
        self.files += other.files;
        self.bytes += other.bytes;
        self.lines += other.lines;
        self.clean += other.clean;
        self.degraded += other.degraded;
        self.timed_out += other.timed_out;
        self.failed += other.failed;
        self.cache_hits += other.cache_hits;
        self.unchanged += other.unchanged;
        self.parsed += other.parsed;
        self.read_time += other.read_time;
        self.parse_time += other.parse_time;
        self.extract_time += other.extract_time;
        self.cache_time += other.cache_time;
        self.cache_write_failures += other.cache_write_failures;
    }

    /// A file whose index was kept as it was.
    fn count_unchanged(&mut self, index: &FileIndex) {
        self.unchanged += 1;
        self.lines += u64::from(index.lines);
        self.count_health(index.health.status);
    }

    fn count_health(&mut self, status: HealthStatus) {
        match status {
            HealthStatus::Clean => self.clean += 1,
            HealthStatus::Degraded => self.degraded += 1,
            HealthStatus::TimedOut => self.timed_out += 1,
            HealthStatus::Failed => self.failed += 1,
        }
    }
}

/// A declaration found by name.
#[derive(Clone, Debug)]
pub struct DeclarationHit {
    pub path: PathBuf,
    pub declaration: Declaration,
    /// Dotted parent chain and name, `Acme.Core.Point.X`.
    pub full_name: String,
}

/// An identifier occurrence found by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OccurrenceHit {
    pub path: PathBuf,
    pub position: Position,
    /// How many UTF-16 units the occurrence covers (its spelling's [`names::site_length`]:
    /// backticks included, an operator's parentheses not).
    pub length: u32,
}

/// A field site found by field name.
#[derive(Clone, Debug)]
pub struct FieldSiteHit {
    pub path: PathBuf,
    pub site: FieldSite,
    /// False when the file is degraded as a whole (root is ERROR) or the site itself is uncertain.
    pub certain: bool,
}

/// The workspace's syntax index.
pub struct SyntaxIndex {
    options: IndexOptions,
    cache: Option<DiskCache>,
    interner: Interner,
    files: IndexedFiles,
    // Change counter (symbolSearch caches tables derived from the index by it).
    generation: std::sync::atomic::AtomicU64,
    snapshot: Mutex<SnapshotState>,
}

/// This index's dealings with its workspace snapshot.
#[derive(Default)]
struct SnapshotState {
    /// A load was made (whether or not there was a snapshot): later builds do not load again.
    loaded: bool,
    /// What the load did, until the build that follows it reports it.
    unreported: Option<SnapshotLoad>,
    /// The generation the snapshot on disk last matched (after a load or a save).
    generation: Option<u64>,
}

/// What loading a workspace snapshot did (see [`crate::syntax::snapshot`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotLoad {
    /// Entries put in the index (each still checked against its file's stamp when indexed).
    pub files: usize,
    pub bytes: usize,
    pub time: Duration,
}

impl SyntaxIndex {
    pub fn new(options: IndexOptions) -> Self {
        let cache = DiskCache::open(&options.cache);
        SyntaxIndex {
            options,
            cache,
            interner: Interner::new(),
            files: DashMap::new(),
            generation: std::sync::atomic::AtomicU64::new(0),
            snapshot: Mutex::default(),
        }
    }

    /// Indexes every file of the workspace at `root` (`files`, as the project model lists
    /// them) and forgets indexed files that are not among them: a full build (the CLI's
    /// `index`, the session's background index). The first build of `root` in this index
    /// starts from the workspace snapshot; a build that changed the index writes it again.
    /// A file indexed from an editor buffer is left as it is unless `overlay` holds it (the
    /// caller re-checks buffers before answering).
    pub fn index_workspace(&self, root: &Path, files: &[PathBuf], overlay: &Overlay) -> IndexRunStats {
        self.load_snapshot(root);
        let load = self.snapshot_state().unreported.take().unwrap_or_default();
        let to_index: Vec<PathBuf> = files
            .iter()
            .filter(|path| overlay.get(path).is_some() || !self.file(path).is_some_and(|file| file.from_overlay))
            .cloned()
            .collect();
        let mut stats = self.index_paths(&to_index, overlay);
        let wanted: std::collections::HashSet<&PathBuf> = files.iter().collect();
        let gone: Vec<PathBuf> =
            self.files.iter().map(|entry| entry.key().clone()).filter(|path| !wanted.contains(path)).collect();
        for path in gone {
            self.remove_path(&path);
        }
        stats.snapshot_files = load.files;
        stats.snapshot_bytes = load.bytes;
        stats.snapshot_time = load.time;
        tracing::debug!(
            "indexed {} files of {}: snapshot {} entries in {:?}, then {:?} ({} parsed, {} unchanged)",
            files.len(),
            root.display(),
            load.files,
            load.time,
            stats.wall_time,
            stats.parsed,
            stats.unchanged
        );
        if self.snapshot_state().generation != Some(self.generation()) && self.cache.is_some() {
            let saving = Instant::now();
            match self.save_snapshot(root, files) {
                Ok(bytes) => stats.snapshot_bytes = bytes,
                Err(_) => stats.cache_write_failures += 1,
            }
            stats.snapshot_time += saving.elapsed();
        }
        stats
    }

    fn snapshot_state(&self) -> std::sync::MutexGuard<'_, SnapshotState> {
        self.snapshot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts the snapshot of `root` in the index, once per index (a later call does nothing),
    /// leaving paths it already holds as they are. [`SyntaxIndex::index_workspace`] calls it;
    /// a caller may call it first, beside reading the project model, to overlap the two.
    pub fn load_snapshot(&self, root: &Path) {
        let mut state = self.snapshot_state();
        if state.loaded {
            return;
        }
        state.loaded = true;
        let started = Instant::now();
        let Some(loaded) = self.cache.as_ref().and_then(|cache| snapshot::load(cache.directory(), root)) else {
            state.unreported = Some(SnapshotLoad { time: started.elapsed(), ..SnapshotLoad::default() });
            return;
        };
        let fresh = self.interner.is_empty();
        let ids = self.interner.intern_all(&loaded.names);
        // Into an empty interner the snapshot's numbering is the interner's: nothing to renumber.
        let identity = fresh && ids.iter().enumerate().all(|(slot, id)| id.0 as usize == slot);
        let mut files = 0;
        for entry in loaded.files {
            // An entry another thread indexed meanwhile (a command's candidate file, an editor
            // buffer) is as new as the snapshot's or newer: it stays.
            let dashmap::Entry::Vacant(slot) = self.files.entry(entry.path.clone()) else { continue };
            let mut index = entry.index;
            if !identity {
                index.renumber_names(|local| ids.get(local.0 as usize).copied().unwrap_or(NameId(0)));
            }
            slot.insert(Arc::new(IndexedFile {
                path: entry.path,
                from_overlay: false,
                index: Arc::new(index),
                disk_stamp: Some(entry.stamp),
            }));
            files += 1;
        }
        if files > 0 {
            self.bump_generation();
        }
        state.generation = Some(self.generation());
        state.unreported = Some(SnapshotLoad { files, bytes: loaded.bytes, time: started.elapsed() });
    }

    /// Writes the snapshot of `root` with those of `files` indexed from disk (editor buffers
    /// and files that timed out are left out); returns its size in bytes.
    pub fn save_snapshot(&self, root: &Path, files: &[PathBuf]) -> anyhow::Result<usize> {
        let cache = self.cache.as_ref().context("the index cache is disabled")?;
        let generation = self.generation();
        let kept: Vec<Arc<IndexedFile>> = files
            .iter()
            .filter_map(|path| self.file(path))
            .filter(|file| {
                !file.from_overlay && file.disk_stamp.is_some() && file.index.health.status != HealthStatus::TimedOut
            })
            .collect();
        // Taken after the files: names are only ever added, so every id they hold is in it.
        let names = self.interner.names();
        let files: Vec<snapshot::SnapshotFileRef<'_>> = kept
            .iter()
            .filter_map(|file| {
                Some(snapshot::SnapshotFileRef {
                    path: file.path.to_str()?,
                    stamp: file.disk_stamp?,
                    index: &file.index,
                })
            })
            .collect();
        let bytes = snapshot::store(cache.directory(), root, &names, &files)?;
        self.snapshot_state().generation = Some(generation);
        Ok(bytes)
    }

    /// A counter that changes whenever a file's entry is added, replaced or removed: tables
    /// derived from the index stay valid while it does not change.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn bump_generation(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub fn options(&self) -> &IndexOptions {
        &self.options
    }

    pub fn cache_directory(&self) -> Option<&Path> {
        self.cache.as_ref().map(DiskCache::directory)
    }

    /// Indexes (or re-indexes) `paths` on worker threads. Files whose content hash is already
    /// indexed are skipped; the overlay's text wins over the disk. Never fails as a whole: a
    /// file that cannot be read or parsed is indexed with a `failed`/`timed-out` health.
    pub fn index_paths(&self, paths: &[PathBuf], overlay: &Overlay) -> IndexRunStats {
        let started = Instant::now();
        let workers = self.options.worker_count(paths.len());
        let order = largest_first(paths, overlay, workers, &self.files);
        let order = &order;
        let next = AtomicUsize::new(0);
        let totals = Mutex::new(IndexRunStats::default());
        let next_job = &next;
        let shared_totals = &totals;
        let work = move || {
            let (next, totals) = (next_job, shared_totals);
            let mut parsers = FsharpParsers::new();
            let mut stats = IndexRunStats::default();
            while let Some(path) = order.get(next.fetch_add(1, Ordering::Relaxed)).and_then(|slot| paths.get(*slot)) {
                self.index_one(path, overlay, &mut parsers, &mut stats);
            }
            totals.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).absorb(&stats);
        };
        // The calling thread is one of the workers: callers run this off their event loop
        // anyway (it blocks), and glibc's main arena recycles tree-sitter's many small
        // allocations more cheaply than a fresh thread arena does (measured: ~10 % of the
        // single-threaded build). A worker that cannot be spawned just leaves its share to
        // the others.
        std::thread::scope(|scope| {
            for worker in 1..workers {
                let _ =
                    std::thread::Builder::new().name(format!("syntax_index_task_{worker}")).spawn_scoped(scope, work);
            }
            work();
        });
        let mut stats = totals.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        stats.threads = workers;
        stats.wall_time = started.elapsed();
        stats
    }

    /// Re-indexes one file, e.g. after an edit; same rules as [`SyntaxIndex::index_paths`].
    pub fn refresh_path(&self, path: &Path, overlay: &Overlay) -> IndexRunStats {
        self.index_paths(&[path.to_path_buf()], overlay)
    }

    /// Forgets a file (deleted from disk, or no longer in the workspace).
    pub fn remove_path(&self, path: &Path) {
        if self.files.remove(path).is_some() {
            self.bump_generation();
        }
    }

    fn index_one(&self, path: &Path, overlay: &Overlay, parsers: &mut FsharpParsers, stats: &mut IndexRunStats) {
        let grammar = GrammarKind::for_path(path).unwrap_or(GrammarKind::Implementation);
        let read_started = Instant::now();
        // A disk file whose size and modification time are those of the text indexed before
        // is not read again: a refresh of an unchanged workspace costs one `stat` per file.
        let overlay_text = overlay.get(path).cloned();
        let mut disk_stamp = None;
        if overlay_text.is_none()
            && let Ok(metadata) = std::fs::metadata(path)
        {
            if let Some(existing) = self.files.get(path)
                && !existing.from_overlay
                && existing.index.grammar == grammar
                && existing.index.health.status != HealthStatus::TimedOut
                && existing.disk_stamp.is_some_and(|stamp| stamp.still_matches(&metadata))
            {
                stats.read_time += read_started.elapsed();
                stats.files += 1;
                stats.bytes += u64::from(existing.index.bytes);
                stats.count_unchanged(&existing.index);
                return;
            }
            disk_stamp = DiskStamp::of(&metadata, SystemTime::now());
        }
        let (text, from_overlay): (Arc<str>, bool) = match overlay_text {
            Some(text) => (text, true),
            None => match crate::source_files::read_regular_file(path) {
                // The same text FSAC gets (no byte-order mark), so positions agree with it.
                Ok(bytes) => (Arc::from(crate::source_files::source_text_lossy(bytes)), false),
                Err(error) => {
                    let health =
                        FileHealth::failed(HealthStatus::Failed, format!("cannot read {}: {error}", path.display()));
                    stats.files += 1;
                    stats.count_health(HealthStatus::Failed);
                    let index = FileIndex::empty(grammar, [0; 32], 0, 0, health);
                    self.files.insert(
                        path.to_path_buf(),
                        Arc::new(IndexedFile {
                            path: path.to_path_buf(),
                            from_overlay: false,
                            index: Arc::new(index),
                            disk_stamp: None,
                        }),
                    );
                    self.bump_generation();
                    return;
                }
            },
        };
        let content_sha256: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        stats.read_time += read_started.elapsed();
        stats.files += 1;
        stats.bytes += text.len() as u64;

        if let Some(existing) = self.files.get(path)
            && existing.index.content_sha256 == content_sha256
            && existing.index.grammar == grammar
            && existing.from_overlay == from_overlay
            && existing.index.health.status != HealthStatus::TimedOut
        {
            stats.count_unchanged(&existing.index);
            if existing.disk_stamp != disk_stamp {
                // Same text, new stamp (touched, or read too soon after a write): keep the
                // index, remember the stamp so the next run can skip the read.
                let index = Arc::clone(&existing.index);
                drop(existing);
                self.files.insert(
                    path.to_path_buf(),
                    Arc::new(IndexedFile { path: path.to_path_buf(), from_overlay, index, disk_stamp }),
                );
            }
            return;
        }

        let cache_started = Instant::now();
        let cached = self.cache.as_ref().and_then(|cache| cache.load(&content_sha256, grammar));
        stats.cache_time += cache_started.elapsed();
        let local = match cached {
            Some(entry) => {
                stats.cache_hits += 1;
                entry
            }
            None => self.parse_and_extract(&text, grammar, content_sha256, from_overlay, parsers, stats),
        };
        let extract_started = Instant::now();
        let index = local.into_global(&self.interner);
        stats.extract_time += extract_started.elapsed();
        stats.lines += u64::from(index.lines);
        stats.count_health(index.health.status);
        self.files.insert(
            path.to_path_buf(),
            Arc::new(IndexedFile { path: path.to_path_buf(), from_overlay, index: Arc::new(index), disk_stamp }),
        );
        self.bump_generation();
    }

    /// A file's index from its text: parsed (within the parse deadline) and extracted, and
    /// stored in the cache when the text is the disk's; a file that does not parse gets an
    /// empty index saying why (its `#if` branches still read from the lines).
    fn parse_and_extract(
        &self,
        text: &str,
        grammar: GrammarKind,
        content_sha256: [u8; 32],
        from_overlay: bool,
        parsers: &mut FsharpParsers,
        stats: &mut IndexRunStats,
    ) -> LocalFileIndex {
        let parse_started = Instant::now();
        let parsed = parsers.parse(text, grammar, self.options.deadline.budget_for(text.len()));
        stats.parse_time += parse_started.elapsed();
        match parsed {
            Ok(tree) => {
                stats.parsed += 1;
                let extract_started = Instant::now();
                let entry = extract_file_index(text, &tree, grammar, content_sha256);
                drop(tree);
                stats.extract_time += extract_started.elapsed();
                // Unsaved buffers are transient (and private); only disk text is cached.
                if let (Some(cache), false) = (&self.cache, from_overlay) {
                    let store_started = Instant::now();
                    if cache.store(&entry).is_err() {
                        stats.cache_write_failures += 1;
                    }
                    stats.cache_time += store_started.elapsed();
                }
                entry
            }
            Err(failure) => {
                let status = match failure {
                    ParseFailure::DeadlineExceeded { .. } => HealthStatus::TimedOut,
                    _ => HealthStatus::Failed,
                };
                let lines = crate::syntax::extract::LineIndex::new(text).line_count();
                let health = FileHealth::failed(status, failure.to_string());
                let mut index = FileIndex::empty(grammar, content_sha256, text.len() as u32, lines, health);
                // The branches are read from the lines, parse or not.
                index.conditionals = crate::syntax::conditionals::scan(text);
                LocalFileIndex { format_version: crate::syntax::model::INDEX_FORMAT_VERSION, names: Vec::new(), index }
            }
        }
    }

    pub fn file(&self, path: &Path) -> Option<Arc<IndexedFile>> {
        self.files.get(path).map(|entry| entry.value().clone())
    }

    /// Every indexed path, sorted.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.files.iter().map(|entry| entry.key().clone()).collect();
        paths.sort();
        paths
    }

    /// Every indexed file, in no particular order.
    pub fn indexed_files(&self) -> Vec<Arc<IndexedFile>> {
        self.files.iter().map(|entry| entry.value().clone()).collect()
    }

    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    pub fn interner(&self) -> &Interner {
        &self.interner
    }

    pub fn name(&self, id: NameId) -> Arc<str> {
        self.interner.resolve(id)
    }

    /// `Outer.Inner.Name` for declaration `index` of `file`.
    pub fn full_name(&self, file: &FileIndex, index: usize) -> String {
        file.declaration_chain(index)
            .into_iter()
            .filter_map(|slot| file.declarations.get(slot))
            .map(|declaration| self.interner.resolve(declaration.name).to_string())
            .collect::<Vec<_>>()
            .join(".")
    }

    /// The interned ids of every spelling of `name` (see [`names::spellings`]), with the
    /// length a site of each covers.
    fn spelling_ids(&self, name: &str) -> Vec<(NameId, u32)> {
        names::spellings(name)
            .iter()
            .filter_map(|spelling| Some((self.interner.lookup(spelling)?, names::site_length(spelling))))
            .collect()
    }

    /// Declarations named `name` (the last segment, in any of its spellings: `value` and
    /// ``` ``value`` ```, `>>=`, `(>>=)` and `op_GreaterGreaterEquals`), in path order.
    pub fn find_declarations(&self, name: &str) -> Vec<DeclarationHit> {
        self.find_declarations_in(name, &self.paths())
    }

    /// [`SyntaxIndex::find_declarations`] in `paths` only (sorted), files not indexed skipped.
    pub fn find_declarations_in(&self, name: &str, paths: &[PathBuf]) -> Vec<DeclarationHit> {
        let ids = self.spelling_ids(name);
        if ids.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for path in paths {
            let Some(file) = self.file(path) else {
                continue;
            };
            for (slot, declaration) in file.index.declarations.iter().enumerate() {
                if ids.iter().any(|(id, _)| *id == declaration.name) {
                    hits.push(DeclarationHit {
                        path: path.clone(),
                        declaration: declaration.clone(),
                        full_name: self.full_name(&file.index, slot),
                    });
                }
            }
        }
        hits
    }

    /// Every occurrence of the identifier `name` in any of its spellings, in path then text
    /// order.
    pub fn find_occurrences(&self, name: &str) -> Vec<OccurrenceHit> {
        self.find_occurrences_in(name, &self.paths())
    }

    /// [`SyntaxIndex::find_occurrences`] in `paths` only (sorted), files not indexed skipped.
    pub fn find_occurrences_in(&self, name: &str, paths: &[PathBuf]) -> Vec<OccurrenceHit> {
        let ids = self.spelling_ids(name);
        if ids.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for path in paths {
            let Some(file) = self.file(path) else {
                continue;
            };
            let start = hits.len();
            for (id, length) in &ids {
                for position in file.index.occurrences.positions_of(*id) {
                    hits.push(OccurrenceHit { path: path.clone(), position, length: *length });
                }
            }
            hits[start..].sort_by_key(|hit| hit.position);
        }
        hits
    }

    /// Every field-site candidate whose field is `field_name`, in path then text order.
    pub fn find_field_sites(&self, field_name: &str) -> Vec<FieldSiteHit> {
        self.find_field_sites_in(field_name, &self.paths())
    }

    /// [`SyntaxIndex::find_field_sites`] in `paths` only (sorted), files not indexed skipped.
    pub fn find_field_sites_in(&self, field_name: &str, paths: &[PathBuf]) -> Vec<FieldSiteHit> {
        let Some(id) = self.interner.lookup(field_name) else {
            return Vec::new();
        };
        let mut hits = Vec::new();
        for path in paths {
            let Some(file) = self.file(path) else {
                continue;
            };
            let file_certain = !file.index.health.root_is_error;
            for site in file.index.field_sites.iter().filter(|site| site.field == id) {
                hits.push(FieldSiteHit {
                    path: path.clone(),
                    site: site.clone(),
                    certain: file_certain && site.certain(),
                });
            }
        }
        hits
    }

    /// Estimated heap bytes held by the index: per-file indexes, paths, map slots, interner.
    pub fn heap_bytes(&self) -> usize {
        let per_file: usize = self
            .files
            .iter()
            .map(|entry| {
                entry.value().index.heap_bytes()
                    + entry.key().as_os_str().len() * 2
                    + std::mem::size_of::<IndexedFile>()
                    + std::mem::size_of::<(PathBuf, Arc<IndexedFile>)>()
            })
            .sum();
        per_file + self.interner.heap_bytes()
    }

    /// Totals over the current contents (not one run).
    pub fn totals(&self) -> IndexRunStats {
        let mut stats = IndexRunStats::default();
        for entry in self.files.iter() {
            let index = &entry.value().index;
            stats.files += 1;
            stats.bytes += u64::from(index.bytes);
            stats.lines += u64::from(index.lines);
            stats.count_health(index.health.status);
        }
        stats
    }
}
