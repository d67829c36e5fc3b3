//! Fuzzes the argument objects of fslens's own commands, as agents and session clients send
//! them, through the real proxy core in memory (no FSAC, a small workspace).
//!
//! The input chooses a command and builds a JSON argument biased towards the argument names and
//! values the commands read (and sometimes the raw input is the argument when it is JSON). Each
//! goes out as `workspace/executeCommand`. For every input: nothing panics (a panic in any task
//! aborts the process), the request is answered exactly once within the fuzzer's timeout, and an
//! error answer carries a `data.errorKind` that fslens documents (`error_kinds::ALL`), with
//! `data.argument` naming a string when the kind is `invalid_argument`.
#![no_main]

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use fslens::commands::registry::Command;
use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use fslens::lsp::ext::error_kinds;
use fslens::proxy::{ProxyConfig, run_proxy};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use tokio::io::{BufReader, DuplexStream, ReadHalf, WriteHalf};

const NAMES: &[&str] = &[
    "path", "paths", "scope", "snippet", "snippetPosition", "fileGlob", "speed", "severity", "projectPath", "timeoutMs",
    "waitUntil", "probe", "query", "symbol", "line", "character", "column", "cursor", "maxResults", "pageBudget",
    "answerBudget", "kinds", "name", "word", "occurrence", "apply", "fixIndex", "package", "assembly", "type", "member",
    "project", "includeTests", "public", "code", "depth",
];
const STRINGS: &[&str] = &[
    "Program.fs", "src/A.fs", "../outside.fs", "/etc/passwd", "A.fsproj", "Shipping", "*.fs", "**", "file", "project",
    "workspace", "snippet", "auto", "fast", "trusted", "error", "all", "ready", "start", "end", "Weight", "", "let x = 1",
];

/// A JSON value that often uses the names and values the commands read.
fn value(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let top = if depth == 0 { 6 } else { 8 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => json!(i64::arbitrary(u)?),
        3 => json!(u.int_in_range(0..=200u64)?),
        4 => json!(f64::arbitrary(u)?),
        5 => Value::String(String::arbitrary(u)?),
        6 => Value::String(STRINGS[u.choose_index(STRINGS.len())?].to_owned()),
        7 => Value::Array((0..u.int_in_range(0..=3)?).map(|_| value(u, depth - 1)).collect::<arbitrary::Result<_>>()?),
        _ => Value::Object(object(u, depth - 1)?),
    })
}

fn object(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Map<String, Value>> {
    let mut map = Map::new();
    for _ in 0..u.int_in_range(0..=5)? {
        let name = if u.ratio(1, 8)? { String::arbitrary(u)? } else { NAMES[u.choose_index(NAMES.len())?].to_owned() };
        let mut member = value(u, depth)?;
        // Long waits make no finding; the fuzzer's timeout would call them hangs.
        if name == "timeoutMs" && member.as_u64().is_some_and(|ms| ms > 2000) {
            member = json!(2000);
        }
        map.insert(name, member);
    }
    Ok(map)
}

struct Session {
    runtime: tokio::runtime::Runtime,
    reader: FrameReader<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    next_id: i64,
    _workspace: tempfile::TempDir,
}

impl Session {
    fn start() -> Session {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        std::fs::write(workspace.path().join("Program.fs"), "module Program\nlet x = 1\n").unwrap();
        std::fs::write(
            workspace.path().join("A.fsproj"),
            "<Project Sdk=\"Microsoft.NET.Sdk\"><ItemGroup><Compile Include=\"Program.fs\" /></ItemGroup></Project>",
        )
        .unwrap();
        let (editor_side, proxy_side) = tokio::io::duplex(1 << 20);
        let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
        let (editor_read, editor_write) = tokio::io::split(editor_side);
        let mut config = ProxyConfig::new(None, "no FSAC (fuzzing)");
        config.workspace_root = Some(workspace.path().to_owned());
        let _guard = runtime.enter();
        runtime.spawn(run_proxy(proxy_read, proxy_write, config));
        drop(_guard);
        let mut session = Session {
            runtime,
            reader: FrameReader::new(BufReader::new(editor_read), FrameLimits::default()),
            writer: editor_write,
            next_id: 0,
            _workspace: workspace,
        };
        let answer = session.request("initialize", json!({"capabilities": {}}));
        assert!(answer.get("result").is_some(), "{answer}");
        session
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        let (reader, writer) = (&mut self.reader, &mut self.writer);
        self.runtime.block_on(async move {
            write_frame(writer, &body).await.unwrap();
            loop {
                let frame = tokio::time::timeout(Duration::from_secs(8), reader.read_frame())
                    .await
                    .unwrap_or_else(|_| panic!("no answer to {method} within 8 s"))
                    .expect("a frame")
                    .expect("the session ended");
                let message: Value = serde_json::from_slice(&frame).unwrap();
                if message.get("method").is_none() {
                    assert_eq!(message["id"], json!(id), "an answer to another request: {message}");
                    return message;
                }
            }
        })
    }
}

fn session() -> &'static Mutex<Session> {
    static SESSION: OnceLock<Mutex<Session>> = OnceLock::new();
    SESSION.get_or_init(|| Mutex::new(Session::start()))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(index) = u.choose_index(Command::ALL.len()) else { return };
    let command = Command::ALL[index].id();
    if command == Command::Restart.id() {
        return; // no FSAC to restart; and it takes no arguments
    }
    let arguments = match u.int_in_range(0..=9u8) {
        Ok(0) => match serde_json::from_slice::<Value>(u.take_rest()) {
            Ok(raw) => raw,
            Err(_) => return,
        },
        Ok(1) => match value(&mut u, 3) {
            Ok(value) => json!([value, value]),
            Err(_) => return,
        },
        _ => match object(&mut u, 3) {
            Ok(argument) => json!([Value::Object(argument)]),
            Err(_) => return,
        },
    };
    let mut session = session().lock().unwrap();
    let answer = session.request("workspace/executeCommand", json!({"command": command, "arguments": arguments}));
    if let Some(error) = answer.get("error") {
        let kind = error["data"]["errorKind"].as_str().unwrap_or_else(|| panic!("{command}: an untyped error {answer}"));
        assert!(error_kinds::ALL.contains(&kind), "{command}: undocumented kind {kind}");
        if kind == error_kinds::INVALID_ARGUMENT {
            assert!(error["data"]["argument"].is_string(), "{command}: invalid_argument names no argument: {answer}");
        }
    } else {
        assert!(answer.get("result").is_some(), "{command}: neither result nor error: {answer}");
    }
});
