//! Proxy overhead benchmark (not a test): the same backend reached directly and through the
//! `fslens` binary, in the same run.
//!
//! Measures the round trip of small requests (p50/p99) and the throughput of 5 KB
//! notifications, and a baseline pipe round trip through `cat` (one write, one read back).
//! Reports: added p50 latency in units of that pipe round trip (goal ≤ 1) and proxied
//! throughput as a fraction of direct (goal ≥ 0.5).
//!
//! Run: `cargo bench --bench proxy_throughput` (release build of fslens, Node for the backend).

use std::process::Stdio;
use std::time::{Duration, Instant};

use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame, write_frame_unflushed};
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const ROUND_TRIPS: usize = 3000;
const NOTIFICATIONS: usize = 20_000;

struct Connection {
    child: Child,
    stdin: ChildStdin,
    stdout: FrameReader<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Connection {
    fn spawn(program: &str, args: &[&str]) -> Connection {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {program}: {error}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = FrameReader::new(BufReader::new(child.stdout.take().unwrap()), FrameLimits::default());
        Connection { child, stdin, stdout, next_id: 1 }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let body =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        write_frame(&mut self.stdin, &body).await.unwrap();
        loop {
            let body = self.stdout.read_frame().await.unwrap().expect("backend closed");
            let message: Value = serde_json::from_slice(&body).unwrap();
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
        }
    }

    async fn finish(mut self) {
        let _ = self.request("shutdown", Value::Null).await;
        let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": "exit"})).unwrap();
        let _ = write_frame(&mut self.stdin, &body).await;
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * fraction).round() as usize]
}

/// One timed request on `connection`.
async fn one_round_trip(connection: &mut Connection, index: usize) -> Duration {
    let started = Instant::now();
    connection.request("bench/ping", json!({"n": index})).await;
    started.elapsed()
}

/// One frame written to `cat` and read back: a pipe round trip through another process.
async fn one_pipe_round_trip(cat: &mut Connection) -> Duration {
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"bench/ping","params":{"n":1}}"#;
    let started = Instant::now();
    write_frame(&mut cat.stdin, body).await.unwrap();
    cat.stdout.read_frame().await.unwrap().unwrap();
    started.elapsed()
}

async fn notification_throughput(connection: &mut Connection) -> f64 {
    let payload = "x".repeat(5 * 1024 - 80);
    let started = Instant::now();
    for index in 0..NOTIFICATIONS {
        let body = serde_json::to_vec(
            &json!({"jsonrpc": "2.0", "method": "bench/notify", "params": {"n": index, "data": payload}}),
        )
        .unwrap();
        write_frame_unflushed(&mut connection.stdin, &body).await.unwrap();
    }
    connection.stdin.flush().await.unwrap();
    // The answer to a request sent after the burst proves every notification was read.
    connection.request("bench/ping", json!({})).await;
    NOTIFICATIONS as f64 / started.elapsed().as_secs_f64()
}

async fn initialize(connection: &mut Connection) {
    connection.request("initialize", json!({"capabilities": {}})).await;
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let backend = format!("{}/tests/support/echo-backend.mjs", env!("CARGO_MANIFEST_DIR"));
        let fslens = env!("CARGO_BIN_EXE_fslens");
        let fsac_flag = format!("node {backend}");
        let workspace = std::env::temp_dir();

        let mut cat = Connection::spawn("cat", &[]);
        let mut direct = Connection::spawn("node", &[&backend]);
        initialize(&mut direct).await;
        let mut proxied = Connection::spawn(fslens, &["--fsac", &fsac_flag, "--workspace", workspace.to_str().unwrap()]);
        initialize(&mut proxied).await;

        // Interleave the three paths in small batches so that machine noise hits all alike.
        let (mut pipe_samples, mut direct_samples, mut proxy_samples) = (Vec::new(), Vec::new(), Vec::new());
        for batch in 0..(ROUND_TRIPS / 100 + 2) {
            for index in 0..100 {
                let pipe = one_pipe_round_trip(&mut cat).await;
                let direct_sample = one_round_trip(&mut direct, index).await;
                let proxy_sample = one_round_trip(&mut proxied, index).await;
                if batch >= 2 {
                    pipe_samples.push(pipe);
                    direct_samples.push(direct_sample);
                    proxy_samples.push(proxy_sample);
                }
            }
        }
        let _ = cat.child.kill().await;
        let pipe = percentile(&mut pipe_samples, 0.5);
        let (direct_p50, direct_p99) = (percentile(&mut direct_samples, 0.5), percentile(&mut direct_samples, 0.99));
        let (proxy_p50, proxy_p99) = (percentile(&mut proxy_samples, 0.5), percentile(&mut proxy_samples, 0.99));

        let mut direct_rates = Vec::new();
        let mut proxy_rates = Vec::new();
        for _ in 0..3 {
            direct_rates.push(notification_throughput(&mut direct).await);
            proxy_rates.push(notification_throughput(&mut proxied).await);
        }
        let best = |rates: &[f64]| rates.iter().cloned().fold(0.0, f64::max);
        let (direct_rate, proxy_rate) = (best(&direct_rates), best(&proxy_rates));
        direct.finish().await;
        proxied.finish().await;

        let added = proxy_p50.saturating_sub(direct_p50);
        let micros = |duration: Duration| duration.as_secs_f64() * 1e6;
        let report = format!(
            "proxy_throughput ({ROUND_TRIPS} interleaved round trips per path; best of 3 bursts of {NOTIFICATIONS} notifications of 5 KB)\n\
             pipe round trip (cat) p50: {:.1} µs\n\
             direct  p50 {:.1} µs  p99 {:.1} µs  notifications {:.0}/s\n\
             proxied p50 {:.1} µs  p99 {:.1} µs  notifications {:.0}/s\n\
             added p50 latency: {:.1} µs = {:.2} pipe round trips (goal ≤ 1)\n\
             proxied throughput: {:.2} of direct (goal ≥ 0.5)\n",
            micros(pipe),
            micros(direct_p50),
            micros(direct_p99),
            direct_rate,
            micros(proxy_p50),
            micros(proxy_p99),
            proxy_rate,
            micros(added),
            added.as_secs_f64() / pipe.as_secs_f64(),
            proxy_rate / direct_rate,
        );
        use std::io::Write;
        let _ = std::io::stdout().write_all(report.as_bytes());
    });
}
