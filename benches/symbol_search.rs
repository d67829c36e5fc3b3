//! `fslens.symbolSearch` latency against `rg -w` (not a test; `cargo bench --bench symbol_search`).
//!
//! Generates the syntax_index bench's corpus (`FSLENS_BENCH_MB`, default 6 MB), builds the
//! syntax index once, then for a set of names — frequent ones and rare ones sampled from the
//! corpus's declarations — times in the same run:
//! * symbolSearch's answer over the built index (ranking, the first page of 20 files with
//!   their best lines read from disk): the first query after the build (which derives the
//!   search tables) separately, then the median of `FSLENS_BENCH_REPEATS` (default 20) runs;
//! * `rg -w -n NAME` over the same tree, spawned as an agent would (median of 5 runs).
//!
//! The ratio rg / symbolSearch per name, and its median, is the figure (goal ≥ 10×).
//! ripgrep is installed when missing: `apt-get install -y ripgrep` when running as root, else
//! the rg half is skipped with the reason printed.

// The report is this program's output.
#![allow(clippy::print_stdout)]

#[path = "support/corpus.rs"]
mod corpus;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fslens::commands::params::parse_arguments;
use fslens::commands::symbols::search::SearchTables;
use fslens::commands::symbols::warmup::ReadyWorkspace;
use fslens::commands::symbols::{SearchArguments, search_answer};
use fslens::syntax::model::DeclarationKind;
use fslens::syntax::{IndexOptions, Overlay, SyntaxIndex};
use serde_json::json;

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn milliseconds(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}

/// `rg` on PATH, installing it with apt-get when root; `Err` says why not.
fn ripgrep() -> Result<(), String> {
    if Command::new("rg").arg("--version").output().is_ok_and(|output| output.status.success()) {
        return Ok(());
    }
    let uid = Command::new("id").arg("-u").output().map_err(|error| format!("cannot run `id -u`: {error}"))?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Err("ripgrep is not installed and this is not root: install it (apt-get install ripgrep)".to_owned());
    }
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "ripgrep"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
    };
    let installed = install().is_ok_and(|status| status.success())
        || (Command::new("apt-get").args(["update", "-qq"]).status().is_ok_and(|status| status.success())
            && install().is_ok_and(|status| status.success()));
    if installed { Ok(()) } else { Err("apt-get install ripgrep failed".to_owned()) }
}

fn time_rg(name: &str, directory: &Path) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..5 {
        let started = Instant::now();
        let output = Command::new("rg").args(["-w", "-n", "--no-messages", name]).arg(directory).output();
        times.push(started.elapsed());
        lines = output.map(|output| output.stdout.iter().filter(|byte| **byte == b'\n').count()).unwrap_or(0);
    }
    (median(times), lines)
}

fn main() {
    let megabytes: f64 = std::env::var("FSLENS_BENCH_MB").ok().and_then(|value| value.parse().ok()).unwrap_or(6.0);
    let repeats: usize = std::env::var("FSLENS_BENCH_REPEATS").ok().and_then(|value| value.parse().ok()).unwrap_or(20);
    let directory = tempfile::tempdir().expect("temporary directory");
    let root = directory.path().canonicalize().expect("canonical root");
    let files = corpus::generate_corpus(&root, megabytes);
    let bytes: u64 = files.iter().filter_map(|path| std::fs::metadata(path).ok()).map(|meta| meta.len()).sum();
    println!("corpus: {} files, {:.1} MB", files.len(), bytes as f64 / 1e6);

    let started = Instant::now();
    let model = fslens::workspace::load_workspace(&root).expect("workspace");
    let index = SyntaxIndex::new(IndexOptions::without_cache());
    let workspace_files = model.files_to_index();
    index.index_paths(&workspace_files, &Overlay::new());
    let build_time = started.elapsed();
    println!("index build (once, 2 threads, no cache): {}", milliseconds(build_time));
    let ready = ReadyWorkspace::new(model, workspace_files, build_time);
    let tables = Mutex::new(SearchTables::new());
    let overlay = Overlay::new();

    // Names: frequent identifiers of the generated code, then rare ones — the first record
    // declared in a few files spread over the corpus.
    let mut names: Vec<String> = ["Capacity", "cache", "Dispose", "items", "Unchecked"].map(str::to_owned).to_vec();
    for &spread in &[3usize, 40, 120, 250, 400] {
        let Some(path) = files.get(spread.min(files.len().saturating_sub(1))) else { continue };
        if let Some(file) = index.file(path)
            && let Some(record) =
                file.index.declarations.iter().find(|declaration| declaration.kind == DeclarationKind::Record)
        {
            names.push(index.name(record.name).to_string());
        }
    }

    let arguments = |name: &str| parse_arguments::<SearchArguments>(json!({ "query": name })).expect("arguments");
    let first_started = Instant::now();
    let first = search_answer(&index, &tables, &ready, &arguments(&names[0]), &overlay).expect("answer");
    println!(
        "first query after the build (derives the search tables): {} ({} files matched)",
        milliseconds(first_started.elapsed()),
        first.total_files
    );

    let rg = ripgrep();
    if let Err(reason) = &rg {
        println!("rg: skipped: {reason}");
    }
    println!("\n| name | files ranked | symbolSearch p50 | rg -w p50 | rg lines | rg / symbolSearch |");
    println!("|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for name in &names {
        let query = arguments(name);
        let mut times = Vec::new();
        let mut matched = json!(null);
        for _ in 0..repeats {
            let started = Instant::now();
            let answer = search_answer(&index, &tables, &ready, &query, &overlay).expect("answer");
            times.push(started.elapsed());
            matched = json!(answer.total_files);
        }
        let ours = median(times);
        let (rg_time, rg_lines, ratio) = match &rg {
            Ok(()) => {
                let (time, lines) = time_rg(name, &root);
                let ratio = time.as_secs_f64() / ours.as_secs_f64().max(1e-9);
                ratios.push(ratio);
                (milliseconds(time), lines.to_string(), format!("{ratio:.1}×"))
            }
            Err(_) => ("-".to_owned(), "-".to_owned(), "-".to_owned()),
        };
        println!("| {name} | {matched} | {} | {rg_time} | {rg_lines} | {ratio} |", milliseconds(ours));
    }
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        println!(
            "\nrg / symbolSearch: median {:.1}×, min {:.1}×, max {:.1}× (goal ≥ 10×)",
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1]
        );
    }
}
