//! `fslens find` on large generated workspaces, against a plain byte scan of the same files
//! (not a test; `cargo bench --bench find_scale`).
//!
//! For each size in `FSLENS_SCALE_PROJECTS` (comma-separated project counts, default `25`;
//! the sizes measured in docs/syntax.md are 25, 50, 100 and 500, 500 being ≈ 10,000 files, 28 MB, 940 k lines)
//! it writes the workspace of `support/scale_workspace.rs` to a temporary directory and runs
//! the real release `fslens` binary as a child, with `--fsac` pointing at a program that does
//! not exist so the syntax layer answers (as it does before FSAC has loaded), for:
//! * `index --stats`, cold (an empty cache directory) and warm (the same directory again);
//! * `find stampParcel` (one site per file), `find Parcel.Weight` (every file, five field-site
//!   shapes), a rare qualified name cold (an empty cache) and warm, `read-symbol` of a rare
//!   name cold and warm, `symbol-search` warm;
//! * `rg -w` of the same bare name over the same tree, in the same run (an in-process
//!   substring scan of the files when rg is not installed).
//!
//! * then, on a second workspace of the same size (`support/common_names_workspace.rs`: every
//!   module declares the same records and functions), `find summaryR0` (declared in every
//!   module), `find R0.Count` (a field of a record declared in every module), a qualified field
//!   (`Proj0005.M003.R0.Count`), and a qualified function whose last segment every file holds
//!   (`Proj0250.M010.bumpR3` at 500 projects) cold (an empty cache) and warm.
//!
//! Each row gives wall time, peak RSS (GNU time's `%M` of the child), what the answer said
//! (sites, rows returned, status) and the ratio to the byte scan. Ratios, never assertions.
//! Every child runs under `prlimit --as` of `FSLENS_SCALE_MEMORY_MB` (default 4096), so a
//! runaway find fails with an allocation error instead of taking the shared machine down.
//! `FSLENS_SCALE_SKIP` (comma-separated row names, e.g. `field`) leaves rows out;
//! `FSLENS_SCALE_BINARY` times another fslens binary (an earlier build, for before/after);
//! `FSLENS_SCALE_KEEP=DIR` leaves each workspace in `DIR/<projects>` (the common-names one in
//! `DIR/common-<projects>`) for profiling by hand; `FSLENS_SCALE_SHAPES` (default
//! `parcel,common`) picks the workspaces.

// The report is this program's output.
#![allow(clippy::print_stdout)]

#[path = "support/common_names_workspace.rs"]
mod common_names_workspace;
#[path = "support/scale_workspace.rs"]
mod scale_workspace;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

struct Run {
    elapsed: Duration,
    peak_rss_kb: Option<u64>,
    summary: String,
}

fn environment_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_owned())
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

fn has_program(program: &str, argument: &str) -> bool {
    Command::new(program).arg(argument).output().is_ok_and(|output| output.status.success())
}

/// Runs the fslens binary with `arguments` under the memory cap, timed, with its peak RSS.
fn run_fslens(binary: &Path, workspace: &Path, cache: &Path, arguments: &[&str], memory_mb: u64) -> Run {
    let rss_file = tempfile::NamedTempFile::new().expect("rss file");
    let use_time = Path::new("/usr/bin/time").exists();
    let use_prlimit = has_program("prlimit", "--version");
    let mut command = if use_time {
        let mut command = Command::new("/usr/bin/time");
        command.args(["-f", "%M", "-o"]).arg(rss_file.path());
        command
    } else {
        Command::new("env")
    };
    if use_prlimit {
        command.arg("prlimit").arg(format!("--as={}", memory_mb * 1024 * 1024)).arg("--");
    }
    command
        .arg(binary)
        .args(arguments)
        .arg("--workspace")
        .arg(workspace)
        .args(["--no-share", "--fsac", "/nonexistent/fsautocomplete-for-the-benchmark"])
        .env("FSLENS_CACHE_DIR", cache)
        .env_remove("FSLENS_FSAC");
    let started = Instant::now();
    let output = command.output().expect("run fslens");
    let elapsed = started.elapsed();
    let peak_rss_kb = std::fs::read_to_string(rss_file.path())
        .ok()
        .and_then(|text| text.lines().rev().find_map(|line| line.trim().parse::<u64>().ok()));
    let summary = if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("");
        format!("failed ({}): {}", output.status, last.chars().take(120).collect::<String>())
    } else {
        summarise(&String::from_utf8_lossy(&output.stdout))
    };
    Run { elapsed, peak_rss_kb, summary }
}

fn summarise(stdout: &str) -> String {
    let Ok(answer) = serde_json::from_str::<Value>(stdout) else {
        return stdout.lines().next().unwrap_or("").chars().take(80).collect();
    };
    if answer["tool"] == "find" {
        format!(
            "{} sites, {} rows, {} / {}{}",
            answer["totalSites"],
            answer["returnedSites"],
            answer["outcome"].as_str().unwrap_or("?"),
            answer["status"].as_str().unwrap_or("?"),
            if answer["nextCursor"].is_string() { ", cursor" } else { "" }
        ) + &format!(" (ms: {})", phase_timings(&answer["timingsMs"]))
    } else if answer["tool"] == "readSymbol" {
        format!("{} {}", answer["status"].as_str().unwrap_or("?"), answer["symbol"]["fullName"].as_str().unwrap_or(""))
    } else if let Some(files) = answer.get("totalFiles") {
        format!("{files} files ranked")
    } else if let Some(files) = answer.get("files") {
        format!("{} files indexed, {} bytes/line", files, answer["memory"]["bytesPerLine"])
    } else {
        answer.to_string().chars().take(80).collect()
    }
}

/// `workspace 12, index 300, ...`: where a find's time went, from its `timingsMs`.
fn phase_timings(timings: &Value) -> String {
    timings
        .as_object()
        .into_iter()
        .flatten()
        .map(|(phase, milliseconds)| format!("{} {milliseconds}", phase.trim_end_matches("Ms")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `rg -w NAME` over the tree (median of three), else an in-process substring scan.
fn byte_scan(name: &str, root: &Path, files: &[PathBuf], with_rg: bool) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..3 {
        let started = Instant::now();
        if with_rg {
            let output = Command::new("rg").args(["-w", "-n", "--no-messages", name]).arg(root).output();
            lines = output.map(|output| output.stdout.iter().filter(|byte| **byte == b'\n').count()).unwrap_or(0);
        } else {
            lines = files
                .iter()
                .filter_map(|path| std::fs::read_to_string(path).ok())
                .map(|text| text.lines().filter(|line| line.contains(name)).count())
                .sum();
        }
        times.push(started.elapsed());
    }
    times.sort();
    (times[1], lines)
}

fn megabytes(kilobytes: Option<u64>) -> String {
    kilobytes.map_or("-".to_owned(), |kb| format!("{:.0} MB", kb as f64 / 1024.0))
}

fn main() {
    let sizes: Vec<usize> =
        environment_list("FSLENS_SCALE_PROJECTS", "25").iter().filter_map(|size| size.parse().ok()).collect();
    let skip = environment_list("FSLENS_SCALE_SKIP", "");
    let memory_mb: u64 =
        std::env::var("FSLENS_SCALE_MEMORY_MB").ok().and_then(|value| value.parse().ok()).unwrap_or(4096);
    let binary = std::env::var_os("FSLENS_SCALE_BINARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_fslens")));
    let with_rg = has_program("rg", "--version");
    let scan_name = if with_rg { "rg -w" } else { "substring scan" };
    println!("fslens: {}; byte scan: {scan_name}; memory cap: {memory_mb} MB per child", binary.display());
    let shapes = environment_list("FSLENS_SCALE_SHAPES", "parcel,common");
    let bench = Bench { binary, memory_mb, with_rg, skip };
    for projects in sizes {
        if shapes.iter().any(|shape| shape == "parcel") {
            parcel_rows(&bench, projects);
        }
        if shapes.iter().any(|shape| shape == "common") {
            common_names_rows(&bench, projects);
        }
    }
}

/// What every row of a run shares.
struct Bench {
    binary: PathBuf,
    memory_mb: u64,
    with_rg: bool,
    skip: Vec<String>,
}

impl Bench {
    fn scan_name(&self) -> &'static str {
        if self.with_rg { "rg -w" } else { "substring scan" }
    }

    /// The workspace's root: a temporary directory, or `FSLENS_SCALE_KEEP/<label>`.
    fn root(&self, directory: &tempfile::TempDir, label: &str) -> PathBuf {
        // FSLENS_SCALE_KEEP=DIR writes the workspace to DIR/<label> and leaves it there, to
        // profile one query by hand.
        let kept = std::env::var_os("FSLENS_SCALE_KEEP").map(|keep| PathBuf::from(keep).join(label));
        if let Some(kept) = &kept {
            std::fs::create_dir_all(kept).expect("create the kept workspace directory");
        }
        kept.as_deref().unwrap_or(directory.path()).canonicalize().expect("canonical root")
    }

    /// Runs `rows` (label, cache directory, arguments, the bare name the byte scan looks for)
    /// and prints one table line each.
    fn run_rows(&self, root: &Path, files: &[PathBuf], rows: Vec<(&str, PathBuf, Vec<String>, String)>) {
        let scan_name = self.scan_name();
        println!("| query | fslens | peak RSS | answer | {scan_name} | scan lines | fslens / scan |");
        println!("|---|---|---|---|---|---|---|");
        for (label, cache, arguments, scanned) in rows {
            if self.skip.iter().any(|skipped| skipped == label) {
                println!("| {label} | skipped | | | | | |");
                continue;
            }
            let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
            let run = run_fslens(&self.binary, root, &cache, &arguments, self.memory_mb);
            let (scan_time, scan_lines) = byte_scan(&scanned, root, files, self.with_rg);
            println!(
                "| {label} | {:.3} s | {} | {} | {:.3} s | {scan_lines} | {:.1}× |",
                run.elapsed.as_secs_f64(),
                megabytes(run.peak_rss_kb),
                run.summary,
                scan_time.as_secs_f64(),
                run.elapsed.as_secs_f64() / scan_time.as_secs_f64().max(1e-6)
            );
        }
    }
}

/// The rows on the workspace of `support/common_names_workspace.rs`.
fn common_names_rows(bench: &Bench, projects: usize) {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = bench.root(&directory, &format!("common-{projects}"));
    let workspace = common_names_workspace::generate(&root, projects);
    println!(
        "\n## {projects} projects, common names: {} files, {:.1} MB, {} lines\n",
        workspace.files.len(),
        workspace.bytes as f64 / 1e6,
        workspace.lines
    );
    let warm_cache = root.join(".bench-cache-warm");
    let fresh_cache = |label: &str| root.join(format!(".bench-cache-{label}"));
    let qualified_field = common_names_workspace::qualified_field(5.min(projects - 1), 3);
    let qualified = common_names_workspace::qualified_function(projects / 2, 10);
    let find = |query: &str| vec!["find".to_owned(), query.to_owned(), "--json".to_owned()];
    let rows: Vec<(&str, PathBuf, Vec<String>, String)> = vec![
        (
            "common-index-cold",
            warm_cache.clone(),
            vec!["index".into(), "--stats".into(), "--json".into()],
            "Count".into(),
        ),
        (
            "common-function",
            warm_cache.clone(),
            find(common_names_workspace::COMMON_FUNCTION),
            common_names_workspace::COMMON_FUNCTION.into(),
        ),
        ("common-field", warm_cache.clone(), find(common_names_workspace::COMMON_FIELD), "Count".into()),
        ("common-qualified-field", warm_cache.clone(), find(&qualified_field), "Count".into()),
        ("common-qualified-cold", fresh_cache("qualified"), find(&qualified), "bumpR3".into()),
        ("common-qualified-warm", warm_cache.clone(), find(&qualified), "bumpR3".into()),
    ];
    bench.run_rows(&root, &workspace.files, rows);
}

/// The rows on the workspace of `support/scale_workspace.rs`.
fn parcel_rows(bench: &Bench, projects: usize) {
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = bench.root(&directory, &projects.to_string());
    let workspace = scale_workspace::generate(&root, projects);
    println!(
        "\n## {projects} projects: {} files, {:.1} MB, {} lines\n",
        workspace.files.len(),
        workspace.bytes as f64 / 1e6,
        workspace.lines
    );
    let warm_cache = root.join(".bench-cache-warm");
    let rare = scale_workspace::rare_qualified_name(projects / 2, 7);
    let rare_bare = rare.rsplit('.').next().unwrap_or(&rare).to_owned();
    let rare_other = scale_workspace::rare_qualified_name(projects / 3, 11);
    let rare_other_bare = rare_other.rsplit('.').next().unwrap_or(&rare_other).to_owned();
    let field_bare = scale_workspace::FIELD_QUERY.rsplit('.').next().unwrap_or("").to_owned();
    let fresh_cache = |label: &str| root.join(format!(".bench-cache-{label}"));
    let rows: Vec<(&str, PathBuf, Vec<String>, String)> = vec![
        ("index-cold", warm_cache.clone(), vec!["index".into(), "--stats".into(), "--json".into()], "Parcel".into()),
        ("index-warm", warm_cache.clone(), vec!["index".into(), "--stats".into(), "--json".into()], "Parcel".into()),
        (
            "frequent",
            warm_cache.clone(),
            vec!["find".into(), scale_workspace::FREQUENT_NAME.into(), "--json".into()],
            scale_workspace::FREQUENT_NAME.into(),
        ),
        (
            "field",
            warm_cache.clone(),
            vec!["find".into(), scale_workspace::FIELD_QUERY.into(), "--json".into()],
            field_bare.clone(),
        ),
        ("rare-cold", fresh_cache("rare"), vec!["find".into(), rare.clone(), "--json".into()], rare_bare.clone()),
        (
            "rare-warm",
            warm_cache.clone(),
            vec!["find".into(), rare_other.clone(), "--json".into()],
            rare_other_bare.clone(),
        ),
        (
            "read-symbol-cold",
            fresh_cache("read"),
            vec!["read-symbol".into(), rare_other_bare.clone(), "--json".into()],
            rare_other_bare.clone(),
        ),
        (
            "read-symbol-warm",
            warm_cache.clone(),
            vec!["read-symbol".into(), rare_bare.clone(), "--json".into()],
            rare_bare.clone(),
        ),
        (
            "symbol-search-warm",
            warm_cache.clone(),
            vec!["symbol-search".into(), rare_bare.clone(), "--json".into()],
            rare_bare.clone(),
        ),
    ];
    bench.run_rows(&root, &workspace.files, rows);
}
