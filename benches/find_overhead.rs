//! What `fslens.find` costs beyond FSAC's own `textDocument/references` work.
//!
//! Runs the real `fslens` binary in front of the FSAC double on the shipping fixture, warms
//! both up, then times each find from the client's side. The double's transcript
//! (`FSAC_DOUBLE_TRANSCRIPT`, millisecond stamps when a message arrives and when its answer
//! is written) gives, in the same run, the time FSAC spent answering the find's own
//! `textDocument/references` requests and its other requests (`workspace/symbol`,
//! `textDocument/definition`), each as the union of the requests' [arrival, answer]
//! intervals, since a find keeps several references in flight. The proxy's share is the
//! rest: resolution, document acquisition, the syntax index, classification, rows, hashing,
//! the page planner and the transport. Ratio = proxy time / FSAC references time; the goal is at most 10 %.
//!
//! Run: `cargo bench --bench find_overhead` (set `FIND_BENCH_RUNS` to change the repetitions).

#[path = "../tests/it/support/double.rs"]
mod double;

use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

use fslens::commands::registry::Command;
use serde_json::{Value, json};

fn read_transcript(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// How long FSAC was busy with the proxy-originated requests among `entries`, in ms: the
/// length of the union of their [arrival, answer] intervals, for `textDocument/references`
/// alone and for every method. A union, not a sum: the find keeps several references in
/// flight at once, and summing overlapping intervals would count the same FSAC time twice.
struct FsacBusy {
    references: f64,
    all: f64,
}

fn union_length(mut intervals: Vec<(f64, f64)>) -> f64 {
    intervals.sort_by(|left, right| left.0.total_cmp(&right.0));
    let mut total = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (start, end) in intervals {
        match current {
            Some((open_start, open_end)) if start <= open_end => current = Some((open_start, open_end.max(end))),
            Some((open_start, open_end)) => {
                total += open_end - open_start;
                current = Some((start, end));
            }
            None => current = Some((start, end)),
        }
    }
    total + current.map_or(0.0, |(start, end)| end - start)
}

fn fsac_busy(entries: &[Value]) -> FsacBusy {
    let mut arrived: HashMap<String, (String, f64)> = HashMap::new();
    let mut references = Vec::new();
    let mut all = Vec::new();
    for entry in entries {
        let message = &entry["message"];
        let Some(id) = message["id"].as_str().filter(|id| id.starts_with("fslens:")) else { continue };
        let time = entry["time"].as_f64().unwrap_or(0.0);
        if entry["dir"] == "in" {
            if let Some(method) = message["method"].as_str() {
                arrived.insert(id.to_owned(), (method.to_owned(), time));
            }
        } else if let Some((method, started)) = arrived.remove(id) {
            if method == "textDocument/references" {
                references.push((started, time));
            }
            all.push((started, time));
        }
    }
    FsacBusy { references: union_length(references), all: union_length(all) }
}

fn main() {
    let runs: usize = std::env::var("FIND_BENCH_RUNS").ok().and_then(|runs| runs.parse().ok()).unwrap_or(8);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async move {
        let workspace = double::fixture_copy("shipping");
        let sockets = tempfile::tempdir().unwrap();
        let transcript = sockets.path().join("transcript.jsonl");
        let transcript_text = transcript.display().to_string();
        let mut editor = double::Editor::start(
            workspace.path(),
            sockets.path(),
            &double::double_command(),
            &[("FSAC_DOUBLE_TRANSCRIPT", transcript_text.as_str())],
        )
        .await;
        let status = editor.execute(Command::Status, json!({"waitUntil": "ready", "timeoutMs": 120000})).await;
        assert_eq!(status["result"]["state"], json!("ready"), "{status}");

        let queries = [
            json!({"query": "Shipment.Weight", "maxResults": 1000}),
            json!({"query": "Weight", "maxResults": 1000}),
            json!({"kind": "field", "field": "Name", "maxResults": 1000}),
            json!({"query": "Shipping.Clock.stamp"}),
        ];
        // Warm-up: the compiler, the syntax index and every project's check.
        for query in &queries {
            let answer = editor.execute(Command::Find, query.clone()).await;
            assert!(answer.get("result").is_some(), "{answer}");
        }
        let mut lines = vec![format!(
            "{:<48} {:>8} {:>14} {:>11} {:>9} {:>7} {:>9} {:>7}",
            "query", "wall ms", "fsac refs ms", "fsac other", "proxy ms", "ratio", "p50 proxy", "p50 ratio"
        )];
        let (mut total_wall, mut total_references, mut total_other) = (0.0, 0.0, 0.0);
        let (mut median_proxy_total, mut median_references_total) = (0.0, 0.0);
        for query in &queries {
            let (mut wall, mut references, mut other) = (0.0, 0.0, 0.0);
            let mut proxy_per_run: Vec<f64> = Vec::new();
            let mut references_per_run: Vec<f64> = Vec::new();
            for _ in 0..runs {
                let before = read_transcript(&transcript).len();
                let started = Instant::now();
                let answer = editor.execute(Command::Find, query.clone()).await;
                let run_wall = started.elapsed().as_secs_f64() * 1000.0;
                assert_eq!(answer["result"]["coverage"]["complete"], json!(true), "{answer}");
                // Let the transcript catch up with the last answer written.
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                let entries = read_transcript(&transcript);
                let busy = fsac_busy(&entries[before.min(entries.len())..]);
                let run_references = busy.references;
                let run_other = busy.all - busy.references;
                proxy_per_run.push(run_wall - run_references - run_other);
                references_per_run.push(run_references);
                wall += run_wall;
                references += run_references;
                other += run_other;
            }
            let runs = runs as f64;
            let proxy = (wall - references - other) / runs;
            let median_of = |mut values: Vec<f64>| {
                values.sort_by(f64::total_cmp);
                values.get(values.len() / 2).copied().unwrap_or(0.0)
            };
            let median = median_of(proxy_per_run);
            let median_references = median_of(references_per_run);
            median_proxy_total += median;
            median_references_total += median_references;
            lines.push(format!(
                "{:<48} {:>8.1} {:>14.1} {:>11.1} {:>9.1} {:>6.1}% {:>9.1} {:>6.1}%",
                query.to_string().chars().take(48).collect::<String>(),
                wall / runs,
                references / runs,
                other / runs,
                proxy,
                100.0 * proxy / (references / runs).max(0.001),
                median,
                100.0 * median / median_references.max(0.001)
            ));
            total_wall += wall;
            total_references += references;
            total_other += other;
        }
        let proxy = total_wall - total_references - total_other;
        lines.push(format!(
            "all: wall {:.0} ms, FSAC references {:.0} ms, FSAC other {:.0} ms, proxy {:.0} ms \
             → proxy / FSAC references = {:.1} % (goal ≤ 10 %); proxy / wall = {:.1} %",
            total_wall,
            total_references,
            total_other,
            proxy,
            100.0 * proxy / total_references.max(0.001),
            100.0 * proxy / total_wall.max(0.001)
        ));
        lines.push(format!(
            "medians: proxy {:.1} ms / FSAC references {:.1} ms = {:.1} % (robust to load spikes on a shared machine)",
            median_proxy_total,
            median_references_total,
            100.0 * median_proxy_total / median_references_total.max(0.001)
        ));
        lines.push(format!("({runs} runs per query after one warm-up each; transcript stamps are whole ms)"));
        let mut stdout = std::io::stdout().lock();
        for line in lines {
            let _ = writeln!(stdout, "{line}");
        }
        editor.stop().await;
    });
}
