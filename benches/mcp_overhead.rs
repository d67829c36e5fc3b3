//! MCP bridge overhead benchmark (not a test): a trivial tool call (`status`) through
//! `fslens mcp` and the session socket, against the same command (`fslens.status`) sent to the
//! proxy directly by its editor, in the same run.
//!
//! Three paths to one proxy process (`fslens` in front of the echo backend, which answers at
//! once): the editor on stdio (the baseline), a session client on the Unix socket, and an MCP
//! client talking to an `fslens mcp` process that joined the session. Calls are interleaved in
//! batches so machine noise hits all paths alike. Reports p50/p99 per path, the latency the
//! bridge adds (p50 goal ≤ 0.3 ms) and the bridge/direct ratio.
//!
//! Run: `cargo bench --bench mcp_overhead` (release build of fslens, Node for the backend).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const CALLS_PER_PATH: usize = 2000;
const BATCH: usize = 50;
const WARM_UP_BATCHES: usize = 2;

/// A JSON-RPC peer with Content-Length framing: the proxy's editor pipe or its socket.
struct LspConnection<R, W> {
    reader: FrameReader<BufReader<R>>,
    writer: W,
    next_id: i64,
}

impl<R: tokio::io::AsyncRead + Unpin, W: tokio::io::AsyncWrite + Unpin> LspConnection<R, W> {
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let body =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        write_frame(&mut self.writer, &body).await.unwrap();
        loop {
            let body = self.reader.read_frame().await.unwrap().expect("the session closed");
            let message: Value = serde_json::from_slice(&body).unwrap();
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
        }
    }

    async fn notify(&mut self, method: &str, params: Value) {
        let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method, "params": params})).unwrap();
        write_frame(&mut self.writer, &body).await.unwrap();
    }
}

/// An MCP client over newline-delimited JSON (the stdio transport), enough to call tools.
struct McpConnection {
    child: Child,
    stdin: ChildStdin,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl McpConnection {
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        loop {
            let line = self.stdout.next_line().await.unwrap().expect("fslens mcp closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
        }
    }

    async fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).await.unwrap();
        self.stdin.flush().await.unwrap();
    }
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * fraction).round() as usize]
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(run());
}

async fn run() {
    let fslens = env!("CARGO_BIN_EXE_fslens");
    let backend = format!("node {}/tests/support/echo-backend.mjs", env!("CARGO_MANIFEST_DIR"));
    let workspace = tempfile::tempdir().unwrap();
    let runtime_directory = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();

    // The editor's proxy, serving the session socket.
    let mut proxy = Command::new(fslens)
        .args(["--fsac", &backend, "--workspace"])
        .arg(&root)
        .env("XDG_RUNTIME_DIR", runtime_directory.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("cannot start fslens");
    let mut editor = LspConnection {
        reader: FrameReader::new(BufReader::new(proxy.stdout.take().unwrap()), FrameLimits::default()),
        writer: proxy.stdin.take().unwrap(),
        next_id: 1,
    };
    let root_uri = fslens::uri::path_to_uri(&root).unwrap();
    editor.request("initialize", json!({"processId": null, "rootUri": root_uri, "capabilities": {}})).await;
    editor.notify("initialized", json!({})).await;

    // A session client on the socket.
    let socket = fslens::session::socket_path(&runtime_directory.path().join("fslens"), &root);
    let stream = fslens::session::server::connect(&socket).await.unwrap().expect("the proxy serves no socket");
    let (socket_reader, socket_writer) = stream.into_split();
    let mut socket_client = LspConnection {
        reader: FrameReader::new(BufReader::new(socket_reader), FrameLimits::default()),
        writer: socket_writer,
        next_id: 1,
    };
    socket_client.request("initialize", json!({"capabilities": {}})).await;

    // An MCP client of `fslens mcp`, which joins the same session.
    let mut bridge = start_bridge(fslens, &backend, &root, runtime_directory.path()).await;

    let status = json!({"command": "fslens.status", "arguments": [{}]});
    let tool_call = json!({"name": "status", "arguments": {}});
    let (mut direct, mut socket_samples, mut bridged) = (Vec::new(), Vec::new(), Vec::new());
    let mut paired_added = Vec::new();
    for batch in 0..(CALLS_PER_PATH / BATCH + WARM_UP_BATCHES) {
        for _ in 0..BATCH {
            let started = Instant::now();
            let answer = editor.request("workspace/executeCommand", status.clone()).await;
            let direct_sample = started.elapsed();
            assert!(answer.get("result").is_some(), "{answer}");

            let started = Instant::now();
            let answer = socket_client.request("workspace/executeCommand", status.clone()).await;
            let socket_sample = started.elapsed();
            assert!(answer.get("result").is_some(), "{answer}");

            let started = Instant::now();
            let answer = bridge.request("tools/call", tool_call.clone()).await;
            let bridge_sample = started.elapsed();
            assert_eq!(answer["result"]["isError"], json!(false), "{answer}");

            if batch >= WARM_UP_BATCHES {
                direct.push(direct_sample);
                socket_samples.push(socket_sample);
                bridged.push(bridge_sample);
                paired_added.push(bridge_sample.saturating_sub(direct_sample));
            }
        }
    }

    drop(bridge.stdin);
    let _ = tokio::time::timeout(Duration::from_secs(5), bridge.child.wait()).await;
    editor.request("shutdown", Value::Null).await;
    editor.notify("exit", Value::Null).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), proxy.wait()).await;

    let (direct_p50, direct_p99) = (percentile(&mut direct, 0.5), percentile(&mut direct, 0.99));
    let (socket_p50, socket_p99) = (percentile(&mut socket_samples, 0.5), percentile(&mut socket_samples, 0.99));
    let (bridge_p50, bridge_p99) = (percentile(&mut bridged, 0.5), percentile(&mut bridged, 0.99));
    let (paired_p50, paired_p99) = (percentile(&mut paired_added, 0.5), percentile(&mut paired_added, 0.99));
    let report = format!(
        "mcp_overhead ({CALLS_PER_PATH} interleaved calls per path; fslens.status vs the MCP status tool)\n\
         direct (editor stdio)    p50 {:.1} µs  p99 {:.1} µs\n\
         session socket           p50 {:.1} µs  p99 {:.1} µs\n\
         MCP bridge + socket      p50 {:.1} µs  p99 {:.1} µs\n\
         added by the bridge: p50 {:.1} µs (goal ≤ 300 µs), p99 {:.1} µs; per call paired: p50 {:.1} µs, p99 {:.1} µs\n\
         ratio bridge/direct: p50 {:.2}, p99 {:.2}\n",
        micros(direct_p50),
        micros(direct_p99),
        micros(socket_p50),
        micros(socket_p99),
        micros(bridge_p50),
        micros(bridge_p99),
        micros(bridge_p50.saturating_sub(direct_p50)),
        micros(bridge_p99.saturating_sub(direct_p99)),
        micros(paired_p50),
        micros(paired_p99),
        bridge_p50.as_secs_f64() / direct_p50.as_secs_f64(),
        bridge_p99.as_secs_f64() / direct_p99.as_secs_f64(),
    );
    let _ = std::io::Write::write_all(&mut std::io::stdout(), report.as_bytes());
}

async fn start_bridge(fslens: &str, backend: &str, root: &Path, runtime_directory: &Path) -> McpConnection {
    let mut child = Command::new(fslens)
        .args(["mcp", "--fsac", backend, "--workspace"])
        .arg(root)
        .env("XDG_RUNTIME_DIR", runtime_directory)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("cannot start fslens mcp");
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut bridge = McpConnection { child, stdin, stdout, next_id: 1 };
    let initialize = bridge
        .request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mcp_overhead", "version": "0"},
            }),
        )
        .await;
    assert!(initialize.get("result").is_some(), "{initialize}");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let first = bridge.request("tools/call", json!({"name": "status", "arguments": {}})).await;
    let text = first["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("\"bridge\":\"joined\""), "the bridge must join the proxy's session: {first}");
    bridge
}
