//! A property test of the proxy core: random interleavings of requests, cancels and
//! notifications from the editor and a session-socket client, answers and notifications from
//! FSAC, and FSAC deaths. Whatever happens, every request is answered exactly once and each
//! sender's notifications reach FSAC in order.

use crate::support;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use fslens::lsp::codec::write_frame;
use serde_json::{Value, json};
use support::{SharedSession, connect_session_client};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedReceiver;

/// A small deterministic generator (xorshift), so a failing seed can be replayed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

async fn send<W: AsyncWrite + Unpin>(writer: &mut W, value: Value) -> bool {
    write_frame(writer, &serde_json::to_vec(&value).unwrap()).await.is_ok()
}

/// Everything received so far on a channel, without waiting.
fn drain(channel: &mut UnboundedReceiver<Option<Value>>, into: &mut Vec<Value>) -> bool {
    let mut open = true;
    while let Ok(message) = channel.try_recv() {
        match message {
            Some(message) => into.push(message),
            None => open = false,
        }
    }
    open
}

struct Backend {
    incoming: UnboundedReceiver<Option<Value>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    exit: Option<tokio::sync::oneshot::Sender<Option<i32>>>,
    /// Requests received and not answered yet.
    pending: Vec<Value>,
    /// `seq` of the editor's `custom/note` notifications, in arrival order.
    notes: Vec<u64>,
    answered_initialize: bool,
}

impl Backend {
    fn new(backend: support::ScriptedBackend) -> Backend {
        let (incoming, writer, exit) = backend.into_parts();
        Backend { incoming, writer, exit, pending: Vec::new(), notes: Vec::new(), answered_initialize: false }
    }

    async fn pump(&mut self) {
        let mut received = Vec::new();
        drain(&mut self.incoming, &mut received);
        for message in received {
            match (message.get("id"), message["method"].as_str()) {
                (Some(id), Some("initialize")) => {
                    send(&mut self.writer, json!({"jsonrpc": "2.0", "id": id, "result": {"capabilities": {}}})).await;
                    self.answered_initialize = true;
                }
                (Some(_), Some(_)) => self.pending.push(message),
                (None, Some("custom/note")) => self.notes.push(message["params"]["seq"].as_u64().unwrap()),
                (None, Some("$/cancelRequest")) => {
                    let id = message["params"]["id"].clone();
                    if let Some(at) = self.pending.iter().position(|pending| pending["id"] == id) {
                        self.pending.remove(at);
                        send(
                            &mut self.writer,
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "cancelled"}}),
                        )
                        .await;
                    }
                }
                _ => {}
            }
        }
    }

    async fn answer_one(&mut self, random: &mut Random) {
        if self.pending.is_empty() {
            return;
        }
        let request = self.pending.remove(random.below(self.pending.len() as u64) as usize);
        send(&mut self.writer, json!({"jsonrpc": "2.0", "id": request["id"], "result": {"echo": request["method"]}}))
            .await;
    }

    async fn die(mut self) -> Vec<u64> {
        let _ = self.writer.shutdown().await;
        drop(self.writer);
        if let Some(exit) = self.exit.take() {
            let _ = exit.send(Some(3));
        }
        self.notes
    }
}

#[derive(Default)]
struct Requester {
    next_id: i64,
    sent: HashSet<String>,
    answers: HashMap<String, usize>,
    outstanding: Vec<Value>,
    received: Vec<Value>,
    cancelled: usize,
}

impl Requester {
    fn new_id(&mut self, prefix: &str) -> Value {
        self.next_id += 1;
        let id = if self.next_id % 2 == 0 { json!(self.next_id) } else { json!(format!("{prefix}-{}", self.next_id)) };
        self.sent.insert(id.to_string());
        self.outstanding.push(id.clone());
        id
    }

    fn tally(&mut self) {
        for message in self.received.drain(..) {
            if message["error"]["code"] == json!(-32800) {
                self.cancelled += 1;
            }
            if message.get("method").is_none() {
                let id = message["id"].clone();
                *self.answers.entry(id.to_string()).or_default() += 1;
                self.outstanding.retain(|outstanding| *outstanding != id);
            }
        }
    }

    fn check(&self, who: &str, seed: u64) {
        for id in &self.sent {
            let count = self.answers.get(id).copied().unwrap_or(0);
            assert_eq!(count, 1, "seed {seed}: {who} request {id} answered {count} times");
        }
        for id in self.answers.keys() {
            assert!(self.sent.contains(id), "seed {seed}: {who} got an answer to {id}, which it never sent");
        }
    }
}

/// Runs one seed; returns how many FSAC deaths and cancelled answers it produced.
async fn run_seed(seed: u64) -> (usize, usize) {
    let mut random = Random(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let SharedSession { session, mut editor_in, mut editor_out, mut backends, socket, directories: _directories } =
        SharedSession::start();

    let mut editor = Requester::default();
    let initialize = editor.new_id("e");
    send(
        &mut editor_out,
        json!({"jsonrpc": "2.0", "id": initialize, "method": "initialize", "params": {"capabilities": {}}}),
    )
    .await;
    let mut backend = Backend::new(backends.recv().await.unwrap());
    loop {
        backend.pump().await;
        drain(&mut editor_in, &mut editor.received);
        editor.tally();
        if editor.outstanding.is_empty() {
            break;
        }
        tokio::task::yield_now().await;
    }
    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})).await;

    let (mut client_in, mut client_out) = connect_session_client(&socket).await;
    let mut client = Requester::default();

    let mut note_seq = 0u64;
    let mut generations_notes: Vec<Vec<u64>> = Vec::new();
    for _ in 0..250 {
        match random.below(100) {
            0..=24 => {
                let id = editor.new_id("e");
                send(&mut editor_out, json!({"jsonrpc": "2.0", "id": id, "method": "custom/request", "params": {}}))
                    .await;
            }
            25..=34 => {
                if let Some(id) =
                    editor.outstanding.get(random.below(editor.outstanding.len().max(1) as u64) as usize).cloned()
                {
                    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}))
                        .await;
                }
            }
            35..=49 => {
                note_seq += 1;
                send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "custom/note", "params": {"seq": note_seq}}))
                    .await;
            }
            50..=59 => {
                let id = client.new_id("c");
                let (method, params) = if random.below(2) == 0 {
                    ("textDocument/hover", json!({"position": {"line": 0, "character": 0}}))
                } else {
                    ("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{}]}))
                };
                send(&mut client_out, json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
            }
            60..=64 => {
                if let Some(id) =
                    client.outstanding.get(random.below(client.outstanding.len().max(1) as u64) as usize).cloned()
                {
                    send(&mut client_out, json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}))
                        .await;
                }
            }
            65..=94 => {
                backend.pump().await;
                backend.answer_one(&mut random).await;
            }
            _ => {
                // FSAC dies; the supervisor starts the next one.
                backend.pump().await;
                generations_notes.push(backend.die().await);
                backend =
                    Backend::new(tokio::time::timeout(Duration::from_secs(5), backends.recv()).await.unwrap().unwrap());
            }
        }
        tokio::task::yield_now().await;
        drain(&mut editor_in, &mut editor.received);
        editor.tally();
        drain(&mut client_in, &mut client.received);
        client.tally();
    }

    // Quiesce: FSAC answers everything still pending until every request has its answer.
    for round in 0.. {
        backend.pump().await;
        while !backend.pending.is_empty() {
            backend.answer_one(&mut random).await;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
        drain(&mut editor_in, &mut editor.received);
        editor.tally();
        drain(&mut client_in, &mut client.received);
        client.tally();
        if editor.outstanding.is_empty() && client.outstanding.is_empty() {
            break;
        }
        assert!(
            round < 2000,
            "seed {seed}: still waiting for editor {:?} and client {:?}",
            editor.outstanding,
            client.outstanding
        );
    }
    generations_notes.push(std::mem::take(&mut backend.notes));
    for (generation, notes) in generations_notes.iter().enumerate() {
        assert!(
            notes.windows(2).all(|pair| pair[0] < pair[1]),
            "seed {seed}: notes out of order in FSAC generation {generation}: {notes:?}"
        );
    }
    editor.check("editor", seed);
    client.check("client", seed);
    let cancelled = editor.cancelled + client.cancelled;

    let shutdown = editor.new_id("e");
    send(&mut editor_out, json!({"jsonrpc": "2.0", "id": shutdown, "method": "shutdown"})).await;
    loop {
        backend.pump().await;
        if let Some(at) = backend.pending.iter().position(|pending| pending["method"] == "shutdown") {
            let request = backend.pending.remove(at);
            send(&mut backend.writer, json!({"jsonrpc": "2.0", "id": request["id"], "result": null})).await;
        }
        drain(&mut editor_in, &mut editor.received);
        editor.tally();
        if editor.outstanding.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "exit"})).await;
    backend.pump().await;
    backend.die().await;
    let end = tokio::time::timeout(Duration::from_secs(5), session).await.unwrap().unwrap().unwrap();
    assert_eq!(end.exit_code, 0);
    (generations_notes.len() - 1, cancelled)
}

#[tokio::test]
async fn every_request_is_answered_once_and_notifications_keep_their_order() {
    let (mut deaths, mut cancelled) = (0, 0);
    for seed in 1..=25 {
        let (seed_deaths, seed_cancelled) = run_seed(seed).await;
        deaths += seed_deaths;
        cancelled += seed_cancelled;
    }
    // The interleavings must actually have contained the hard cases.
    assert!(deaths >= 25, "only {deaths} FSAC deaths");
    assert!(cancelled >= 25, "only {cancelled} cancelled answers");
}
