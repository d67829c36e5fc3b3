//! Fuzzes the arguments of every MCP tool, through the real MCP bridge (rmcp) in memory, in
//! front of a session it starts itself (no FSAC, a small workspace).
//!
//! The input chooses a tool from the bridge's own `tools/list` and builds its arguments:
//! biased towards the tool's schema (its property names, values of the declared types and
//! values of the wrong ones), or the raw input when it is a JSON object. For every input:
//! nothing panics (a panic in any task aborts the process), the call is answered exactly once
//! within the fuzzer's timeout, and a failed call (`isError`) carries
//! `{"error": {"errorKind": …}}` with a kind fslens documents (`error_kinds::ALL`).
#![no_main]

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use fslens::lsp::ext::error_kinds;
use fslens::mcp::{BridgeServer, ConfigFactory};
use fslens::proxy::ProxyConfig;
use libfuzzer_sys::fuzz_target;
use rmcp::ServiceExt;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

const STRINGS: &[&str] = &[
    "Program.fs", "../outside.fs", "/etc/passwd", "A.fsproj", "A", "x", "Program", "*.fs", "", "core", "find", "ready",
];

fn scalar(u: &mut Unstructured<'_>, declared: Option<&str>) -> arbitrary::Result<Value> {
    // Mostly the declared type; sometimes any type at all.
    let declared = if u.ratio(1, 4)? { None } else { declared };
    Ok(match declared {
        Some("string") => {
            if bool::arbitrary(u)? { json!(STRINGS[u.choose_index(STRINGS.len())?]) } else { json!(String::arbitrary(u)?) }
        }
        Some("integer") => json!(u.int_in_range(-3i64..=5000)?),
        Some("number") => json!(f64::arbitrary(u)?),
        Some("boolean") => json!(bool::arbitrary(u)?),
        Some("array") => json!([json!(STRINGS[u.choose_index(STRINGS.len())?]), json!(i64::arbitrary(u)?)]),
        _ => match u.int_in_range(0..=5)? {
            0 => Value::Null,
            1 => json!(bool::arbitrary(u)?),
            2 => json!(i64::arbitrary(u)?),
            3 => json!(String::arbitrary(u)?),
            4 => json!([String::arbitrary(u)?]),
            _ => json!({ String::arbitrary(u)?: i64::arbitrary(u)? }),
        },
    })
}

struct Bridge {
    runtime: tokio::runtime::Runtime,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    next_id: i64,
    /// Every tool's name and input schema, as listed.
    tools: Vec<(String, Value)>,
    _scratch: tempfile::TempDir,
}

impl Bridge {
    fn start() -> Bridge {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("workspace");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("Program.fs"), "module Program\nlet x = 1\n").unwrap();
        std::fs::write(
            root.join("A.fsproj"),
            "<Project Sdk=\"Microsoft.NET.Sdk\"><ItemGroup><Compile Include=\"Program.fs\" /></ItemGroup></Project>",
        )
        .unwrap();
        let runtime_directory = scratch.path().join("runtime");
        std::fs::create_dir(&runtime_directory).unwrap();
        let root = root.canonicalize().unwrap();
        let factory: ConfigFactory = Arc::new(move || {
            let mut config = ProxyConfig::new(None, "no FSAC (fuzzing)");
            config.session_directory = Some(runtime_directory.join("fslens"));
            Ok(config)
        });
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        let (client_read, client_write) = tokio::io::split(client_side);
        let server = BridgeServer::new(root, factory, None, true);
        runtime.spawn(async move {
            if let Ok(running) = server.serve((server_read, server_write)).await {
                let _ = running.waiting().await;
            }
        });
        let mut bridge = Bridge {
            runtime,
            lines: BufReader::new(client_read).lines(),
            writer: client_write,
            next_id: 0,
            tools: Vec::new(),
            _scratch: scratch,
        };
        let initialize = bridge.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}),
        );
        assert!(initialize.get("result").is_some(), "{initialize}");
        bridge.notify("notifications/initialized");
        let listed = bridge.request("tools/list", json!({}));
        for tool in listed["result"]["tools"].as_array().expect("tools") {
            bridge.tools.push((tool["name"].as_str().unwrap().to_owned(), tool["inputSchema"].clone()));
        }
        assert!(!bridge.tools.is_empty());
        bridge
    }

    fn notify(&mut self, method: &str) {
        let line = format!("{}\n", json!({"jsonrpc": "2.0", "method": method}));
        let writer = &mut self.writer;
        self.runtime.block_on(async move { writer.write_all(line.as_bytes()).await.unwrap() });
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let line = format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let (lines, writer) = (&mut self.lines, &mut self.writer);
        self.runtime.block_on(async move {
            writer.write_all(line.as_bytes()).await.unwrap();
            loop {
                let line = tokio::time::timeout(Duration::from_secs(8), lines.next_line())
                    .await
                    .unwrap_or_else(|_| panic!("no answer to {method} within 8 s"))
                    .expect("read")
                    .expect("the bridge ended");
                let message: Value = serde_json::from_str(&line).unwrap();
                if message.get("method").is_none() {
                    assert_eq!(message["id"], json!(id), "an answer to another request: {message}");
                    return message;
                }
            }
        })
    }
}

fn bridge() -> &'static Mutex<Bridge> {
    static BRIDGE: OnceLock<Mutex<Bridge>> = OnceLock::new();
    BRIDGE.get_or_init(|| Mutex::new(Bridge::start()))
}

fuzz_target!(|data: &[u8]| {
    let mut bridge = bridge().lock().unwrap();
    let mut u = Unstructured::new(data);
    let Ok(index) = u.choose_index(bridge.tools.len()) else { return };
    let (name, schema) = bridge.tools[index].clone();
    let arguments = if u.ratio(1, 10).unwrap_or(false) {
        match serde_json::from_slice::<Value>(u.take_rest()) {
            Ok(Value::Object(raw)) => raw,
            _ => return,
        }
    } else {
        let mut arguments = Map::new();
        let properties = schema["properties"].as_object().cloned().unwrap_or_default();
        for (property, definition) in &properties {
            if !u.ratio(2, 3).unwrap_or(false) {
                continue;
            }
            let declared = definition["type"].as_str();
            let Ok(mut member) = scalar(&mut u, declared) else { break };
            if property == "timeoutMs" && member.as_i64().is_some_and(|ms| ms > 2000) {
                member = json!(2000); // long waits find nothing; the fuzzer would call them hangs
            }
            arguments.insert(property.clone(), member);
        }
        if u.ratio(1, 6).unwrap_or(false)
            && let (Ok(extra), Ok(member)) = (String::arbitrary(&mut u), scalar(&mut u, None))
        {
            arguments.insert(extra, member);
        }
        arguments
    };
    let answer = bridge.request("tools/call", json!({"name": name, "arguments": arguments}));
    let Some(result) = answer.get("result") else {
        assert!(answer.get("error").is_some(), "{name}: neither result nor error: {answer}");
        return;
    };
    if result["isError"] == json!(true) {
        let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{name}: no text in {answer}"));
        let body = text.lines().nth(1).unwrap_or_else(|| panic!("{name}: no error object in {text}"));
        let error: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("{name}: unreadable error {body}"));
        let kind = error["error"]["errorKind"].as_str().unwrap_or_else(|| panic!("{name}: untyped error {text}"));
        assert!(error_kinds::ALL.contains(&kind), "{name}: undocumented error kind {kind}");
    }
});
