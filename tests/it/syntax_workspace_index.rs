//! Workspace-index tests: the on-disk cache (hit on the second run, only changed files
//! re-parsed, corrupt entries ignored), unsaved buffers winning over disk, the parse deadline,
//! and name queries across files.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fslens::syntax::cache::CacheSetting;
use fslens::syntax::{
    DeadlinePolicy, FieldSiteKind, FsharpParsers, GrammarKind, HealthStatus, IndexOptions, Overlay, ParseFailure,
    SyntaxIndex,
};

fn write(root: &Path, relative: &str, text: &str) -> PathBuf {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    path
}

fn options_with_cache(cache: &Path) -> IndexOptions {
    IndexOptions {
        threads: 2,
        cache: CacheSetting::Directory(cache.to_path_buf()),
        deadline: DeadlinePolicy::default(),
    }
}

fn sample_files(root: &Path) -> Vec<PathBuf> {
    vec![
        write(root, "A.fs", "module A\ntype R = { X: int; Y: int }\nlet make () = { X = 1; Y = 2 }\n"),
        write(root, "B.fs", "module B\nlet bump (r: A.R) = { r with X = r.X + 1 }\n"),
        write(root, "C.fsi", "module C\nval hidden: int\n"),
    ]
}

#[test]
fn second_run_hits_the_cache_and_only_changed_files_are_parsed() {
    let workspace = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let files = sample_files(workspace.path());

    let cold = SyntaxIndex::new(options_with_cache(cache.path()));
    let first = cold.index_paths(&files, &Overlay::new());
    assert_eq!((first.parsed, first.cache_hits, first.files), (3, 0, 3));
    assert_eq!(first.cache_write_failures, 0);

    let warm = SyntaxIndex::new(options_with_cache(cache.path()));
    let second = warm.index_paths(&files, &Overlay::new());
    assert_eq!((second.parsed, second.cache_hits), (0, 3));
    // The cached index answers exactly like the parsed one.
    for file in &files {
        assert_eq!(
            cold.file(file).expect("indexed").index.declarations.len(),
            warm.file(file).expect("indexed").index.declarations.len()
        );
    }
    assert_eq!(warm.find_field_sites("X").len(), cold.find_field_sites("X").len());

    write(workspace.path(), "B.fs", "module B\nlet bump (r: A.R) = { r with Y = r.Y + 1 }\n");
    let after_edit = SyntaxIndex::new(options_with_cache(cache.path()));
    let third = after_edit.index_paths(&files, &Overlay::new());
    assert_eq!((third.parsed, third.cache_hits), (1, 2));

    // Re-indexing unchanged files in the same index does no work at all.
    let again = after_edit.index_paths(&files, &Overlay::new());
    assert_eq!((again.parsed, again.cache_hits, again.unchanged), (0, 0, 3));
}

/// Sets `path`'s modification time.
fn set_modified(path: &Path, modified: std::time::SystemTime) {
    let file = std::fs::File::options().write(true).open(path).expect("open");
    file.set_modified(modified).expect("set mtime");
}

/// The declared names of `path` in `index`.
fn declared(index: &SyntaxIndex, path: &Path) -> Vec<String> {
    let file = index.file(path).expect("indexed");
    file.index.declarations.iter().map(|declaration| index.name(declaration.name).to_string()).collect()
}

/// A workspace with one file `<module_name>.fs` (`module <module_name>` / `let alpha = 1`) last
/// modified an hour ago, indexed once without a cache; returns the workspace (keep it alive),
/// the file, its modification time and the index.
fn indexed_settled_file(module_name: &str) -> (tempfile::TempDir, PathBuf, std::time::SystemTime, SyntaxIndex) {
    let workspace = tempfile::tempdir().expect("temp dir");
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    let file = write(workspace.path(), &format!("{module_name}.fs"), &format!("module {module_name}\nlet alpha = 1\n"));
    set_modified(&file, old);
    let index = SyntaxIndex::new(IndexOptions { threads: 1, cache: CacheSetting::Disabled, ..IndexOptions::default() });
    index.index_paths(std::slice::from_ref(&file), &Overlay::new());
    (workspace, file, old, index)
}

#[test]
fn unchanged_disk_files_are_not_read_again_unless_their_stamp_is_too_recent_to_trust() {
    let (workspace, settled, old, index) = indexed_settled_file("Settled");
    assert_eq!(declared(&index, &settled), ["Settled", "alpha"]);

    // Same size, same modification time: the stamp says unchanged, so the file is not read
    // (the index still has the old text, which is how we know).
    std::fs::write(&settled, "module Settled\nlet gamma = 1\n").expect("write");
    set_modified(&settled, old);
    let skipped = index.index_paths(std::slice::from_ref(&settled), &Overlay::new());
    assert_eq!((skipped.unchanged, skipped.parsed), (1, 0));
    assert_eq!(declared(&index, &settled), ["Settled", "alpha"]);

    // A new modification time: read, hashed and parsed again.
    set_modified(&settled, old + Duration::from_secs(60));
    let reread = index.index_paths(std::slice::from_ref(&settled), &Overlay::new());
    assert_eq!((reread.unchanged, reread.parsed), (0, 1));
    assert_eq!(declared(&index, &settled), ["Settled", "gamma"]);

    // A file read right after it was written has a stamp too recent to trust: a same-size
    // write in the same clock tick must still be seen.
    let fresh = write(workspace.path(), "Fresh.fs", "module Fresh\nlet alpha = 1\n");
    let written_at = std::fs::metadata(&fresh).expect("stat").modified().expect("mtime");
    index.index_paths(std::slice::from_ref(&fresh), &Overlay::new());
    std::fs::write(&fresh, "module Fresh\nlet gamma = 1\n").expect("write");
    set_modified(&fresh, written_at);
    let racy = index.index_paths(std::slice::from_ref(&fresh), &Overlay::new());
    assert_eq!(racy.parsed, 1);
    assert_eq!(declared(&index, &fresh), ["Fresh", "gamma"]);
}

#[test]
fn a_touched_file_with_the_same_text_keeps_its_index_and_takes_the_new_stamp() {
    let (_workspace, touched, old, index) = indexed_settled_file("Touched");
    let before = index.file(&touched).expect("indexed");

    // `touch`: a new modification time, the same text. The file is read and hashed, found
    // unchanged, and its index is kept as it is, shared rather than copied.
    set_modified(&touched, old + Duration::from_secs(60));
    let touched_run = index.index_paths(std::slice::from_ref(&touched), &Overlay::new());
    assert_eq!((touched_run.unchanged, touched_run.parsed), (1, 0));
    let after = index.file(&touched).expect("indexed");
    assert!(std::sync::Arc::ptr_eq(&before.index, &after.index), "the index was copied, not shared");
    assert_ne!(before.disk_stamp, after.disk_stamp, "the new stamp was not recorded");

    // The stamp recorded is the new one: a same-size write that keeps it is not read.
    std::fs::write(&touched, "module Touched\nlet gamma = 1\n").expect("write");
    set_modified(&touched, old + Duration::from_secs(60));
    index.index_paths(std::slice::from_ref(&touched), &Overlay::new());
    assert_eq!(declared(&index, &touched), ["Touched", "alpha"]);
}

#[test]
fn corrupt_cache_entries_are_misses() {
    let workspace = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let files = sample_files(workspace.path());
    SyntaxIndex::new(options_with_cache(cache.path())).index_paths(&files, &Overlay::new());
    let mut corrupted = 0;
    let mut pending = vec![cache.path().to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).expect("read dir").flatten() {
            if entry.path().is_dir() {
                pending.push(entry.path());
            } else {
                std::fs::write(entry.path(), b"{ not json").expect("corrupt");
                corrupted += 1;
            }
        }
    }
    assert_eq!(corrupted, 3);
    let stats = SyntaxIndex::new(options_with_cache(cache.path())).index_paths(&files, &Overlay::new());
    assert_eq!((stats.parsed, stats.cache_hits, stats.failed), (3, 0, 0));
}

#[test]
fn unsaved_buffers_win_over_disk_and_are_not_cached() {
    let workspace = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    let files = sample_files(workspace.path());
    let index = SyntaxIndex::new(options_with_cache(cache.path()));
    let mut overlay = Overlay::new();
    overlay.insert(files[1].clone(), "module B\nlet unsavedOnly = { X = 5; Y = 6 }\n");
    let stats = index.index_paths(&files, &overlay);
    assert_eq!(stats.parsed, 3);
    let file_b = index.file(&files[1]).expect("indexed");
    assert!(file_b.from_overlay);
    let names: Vec<String> = index.find_declarations("unsavedOnly").iter().map(|hit| hit.full_name.clone()).collect();
    assert_eq!(names, ["B.unsavedOnly"]);
    assert!(index.find_declarations("bump").is_empty());

    // Only the two disk files were written to the cache.
    let warm = SyntaxIndex::new(options_with_cache(cache.path()));
    let second = warm.index_paths(&files, &overlay);
    assert_eq!((second.parsed, second.cache_hits), (1, 2));

    // Closing the buffer (empty overlay) goes back to the disk text.
    index.refresh_path(&files[1], &Overlay::new());
    assert_eq!(index.find_declarations("bump").len(), 1);
    assert!(index.find_declarations("unsavedOnly").is_empty());
}

fn large_text(lines: usize) -> String {
    let mut text = String::from("module Big\n");
    for number in 0..lines {
        text.push_str(&format!(
            "let f{number} x = match x with | Some {{ A = a; B = b }} -> a + b + {number} | None -> {number}\n"
        ));
    }
    text
}

#[test]
fn parse_deadline_is_honoured_and_the_parser_recovers() {
    let text = large_text(20_000);
    let mut parsers = FsharpParsers::new();
    let started = Instant::now();
    let result = parsers.parse(&text, GrammarKind::Implementation, Duration::from_millis(5));
    let elapsed = started.elapsed();
    assert!(matches!(result, Err(ParseFailure::DeadlineExceeded { .. })), "{result:?}");
    // DeadlineExceeded already shows the deadline cut the parse; the bound is loose for loaded machines.
    assert!(elapsed < Duration::from_secs(5), "cancelled only after {elapsed:?}");
    // The same parser parses the next file from scratch.
    let tree = parsers
        .parse("module Small\nlet a = 1\n", GrammarKind::Implementation, Duration::from_secs(5))
        .expect("parses");
    assert!(!tree.root_node().has_error());
}

#[test]
fn timed_out_files_are_reported_not_dropped() {
    let workspace = tempfile::tempdir().expect("temp dir");
    let big = write(workspace.path(), "Big.fs", &large_text(20_000));
    let small = write(workspace.path(), "Small.fs", "module Small\nlet a = 1\n");
    let options = IndexOptions {
        threads: 1,
        cache: CacheSetting::Disabled,
        deadline: DeadlinePolicy { base: Duration::from_millis(5), per_megabyte: Duration::ZERO },
    };
    let index = SyntaxIndex::new(options);
    let stats = index.index_paths(&[big.clone(), small.clone()], &Overlay::new());
    assert_eq!(stats.timed_out, 1);
    assert_eq!(stats.clean, 1);
    let big_index = index.file(&big).expect("present");
    assert_eq!(big_index.index.health.status, HealthStatus::TimedOut);
    assert!(big_index.index.health.detail.as_deref().unwrap_or("").contains("deadline"));
    assert_eq!(big_index.index.lines, 20_001);
}

#[test]
fn queries_across_files() {
    let workspace = tempfile::tempdir().expect("temp dir");
    let files = sample_files(workspace.path());
    let index = SyntaxIndex::new(IndexOptions::without_cache());
    index.index_paths(&files, &Overlay::new());

    let declarations: Vec<String> = index.find_declarations("X").iter().map(|hit| hit.full_name.clone()).collect();
    assert_eq!(declarations, ["A.R.X"]);

    let occurrences: Vec<(String, u32, u32)> = index
        .find_occurrences("X")
        .iter()
        .map(|hit| {
            (
                hit.path.file_name().expect("name").to_string_lossy().into_owned(),
                hit.position.line,
                hit.position.character,
            )
        })
        .collect();
    assert_eq!(
        occurrences,
        [
            ("A.fs".to_owned(), 1, 11),
            ("A.fs".to_owned(), 2, 16),
            ("B.fs".to_owned(), 1, 29),
            ("B.fs".to_owned(), 1, 35)
        ]
    );

    let kinds: Vec<(FieldSiteKind, bool)> =
        index.find_field_sites("X").iter().map(|hit| (hit.site.kind, hit.certain)).collect();
    assert_eq!(
        kinds,
        [(FieldSiteKind::Construction, true), (FieldSiteKind::CopyUpdate, true), (FieldSiteKind::Read, false)]
    );
    assert!(index.find_occurrences("NoSuchName").is_empty());
    let totals = index.totals();
    assert_eq!((totals.files, totals.clean), (3, 3));
    assert!(index.heap_bytes() > 0);
}

#[test]
fn unreadable_files_are_failed_entries() {
    let index = SyntaxIndex::new(IndexOptions::without_cache());
    let missing = PathBuf::from("/definitely/not/here/Missing.fs");
    let stats = index.index_paths(std::slice::from_ref(&missing), &Overlay::new());
    assert_eq!(stats.failed, 1);
    assert_eq!(index.file(&missing).expect("entry").index.health.status, HealthStatus::Failed);
}
