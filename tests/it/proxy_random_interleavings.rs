//! Randomised property tests of the proxy core in memory, with proptest (and its shrinking):
//! random interleavings of editor requests, notifications, edits and cancels, session-client
//! requests, cancels and disconnects, FSAC answers (in any order, late, duplicated, after a
//! cancel), FSAC-to-editor requests, and FSAC crashes with their restarts. After every run:
//!
//! - every request of the editor and of each session client is answered exactly once, and the
//!   answer is the one for that peer (FSAC's echo names who asked);
//! - the editor's notifications reach each FSAC generation in the order they were sent;
//! - every request FSAC sent to the editor is answered back to it at most once, and only with
//!   the editor's own answer;
//! - the document mirror and the last FSAC's view agree: every document open in the editor is
//!   open in FSAC at the editor's latest version and text, and no other is;
//! - nothing meant for one client reaches another.
//!
//! CI runs `PROPTEST_CASES` cases (default 64); docs/testing.md gives the long-run command.

use crate::support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use fslens::lsp::codec::write_frame;
use proptest::prelude::*;
use serde_json::{Value, json};
use support::{ScriptedBackend, SharedSession, connect_session_client};
use tokio::io::{AsyncWrite, AsyncWriteExt, DuplexStream, WriteHalf};
use tokio::sync::mpsc::UnboundedReceiver;

/// One step of an interleaving. Indices pick among what is outstanding at that moment.
#[derive(Debug, Clone)]
enum Action {
    EditorRequest,
    EditorCancel(usize),
    EditorNote,
    EditorEdit(usize),
    EditorOpenOrClose(usize),
    EditorAnswersFsac(usize),
    ClientRequest(usize),
    ClientCancel(usize),
    ClientDisconnects(usize),
    FsacAnswers(usize),
    FsacAnswersTwice(usize),
    FsacAnswersLate(usize),
    FsacAsksEditor,
    FsacCrashes,
    Settle,
}

fn action() -> impl Strategy<Value = Action> {
    let index = || 0..64usize;
    prop_oneof![
        6 => Just(Action::EditorRequest),
        2 => index().prop_map(Action::EditorCancel),
        3 => Just(Action::EditorNote),
        3 => index().prop_map(Action::EditorEdit),
        1 => index().prop_map(Action::EditorOpenOrClose),
        2 => index().prop_map(Action::EditorAnswersFsac),
        4 => index().prop_map(Action::ClientRequest),
        2 => index().prop_map(Action::ClientCancel),
        1 => index().prop_map(Action::ClientDisconnects),
        8 => index().prop_map(Action::FsacAnswers),
        1 => index().prop_map(Action::FsacAnswersTwice),
        1 => index().prop_map(Action::FsacAnswersLate),
        1 => Just(Action::FsacAsksEditor),
        1 => Just(Action::FsacCrashes),
        2 => Just(Action::Settle),
    ]
}

const DOCUMENTS: [&str; 3] = ["file:///w/A.fs", "file:///w/B%20c.fs", "file:///w/C.fsi"];

async fn send<W: AsyncWrite + Unpin>(writer: &mut W, value: Value) {
    let _ = write_frame(writer, &serde_json::to_vec(&value).unwrap()).await;
}

fn drain(channel: &mut UnboundedReceiver<Option<Value>>, into: &mut Vec<Value>) {
    while let Ok(Some(message)) = channel.try_recv() {
        into.push(message);
    }
}

/// The scripted FSAC of one generation and what it saw.
struct Fsac {
    incoming: UnboundedReceiver<Option<Value>>,
    writer: WriteHalf<DuplexStream>,
    exit: Option<tokio::sync::oneshot::Sender<Option<i32>>>,
    pending: Vec<Value>,
    answered: Vec<Value>,
    notes: Vec<u64>,
    /// uri → (version, text), from didOpen/didChange/didClose.
    documents: BTreeMap<String, (i64, String)>,
    /// The requests this FSAC sent the editor: id → the token only that request carries.
    asked_editor: HashMap<String, String>,
    generation: usize,
    answers_from_editor: HashMap<String, usize>,
    next_ask: u64,
}

impl Fsac {
    fn new(backend: ScriptedBackend, generation: usize) -> Fsac {
        let (incoming, writer, exit) = backend.into_parts();
        Fsac {
            incoming,
            writer,
            exit,
            pending: Vec::new(),
            answered: Vec::new(),
            notes: Vec::new(),
            documents: BTreeMap::new(),
            asked_editor: HashMap::new(),
            generation,
            answers_from_editor: HashMap::new(),
            next_ask: 0,
        }
    }

    async fn pump(&mut self) {
        let mut received = Vec::new();
        drain(&mut self.incoming, &mut received);
        for message in received {
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            let params = &message["params"];
            match (message.get("id"), method.as_str()) {
                (Some(id), "initialize") => {
                    send(&mut self.writer, json!({"jsonrpc": "2.0", "id": id, "result": {"capabilities": {}}})).await;
                }
                (Some(id), "") => {
                    let id = id.as_str().unwrap_or_default().to_owned();
                    let token = self
                        .asked_editor
                        .get(&id)
                        .unwrap_or_else(|| panic!("FSAC got an answer to {id}, which it never asked"));
                    assert_eq!(message["result"]["answeredBy"], json!("editor"), "{message}");
                    assert_eq!(
                        message["result"]["token"],
                        json!(token),
                        "FSAC {} got the answer to another request {id}",
                        self.generation
                    );
                    *self.answers_from_editor.entry(id.clone()).or_default() += 1;
                }
                (Some(_), _) => self.pending.push(message),
                (None, "custom/note") => self.notes.push(params["seq"].as_u64().unwrap()),
                (None, "textDocument/didOpen") => {
                    let document = &params["textDocument"];
                    let uri = document["uri"].as_str().unwrap().to_owned();
                    assert!(!self.documents.contains_key(&uri), "{uri} opened twice in one FSAC");
                    let text = document["text"].as_str().unwrap().to_owned();
                    self.documents.insert(uri, (document["version"].as_i64().unwrap(), text));
                }
                (None, "textDocument/didChange") => {
                    let uri = params["textDocument"]["uri"].as_str().unwrap();
                    let version = params["textDocument"]["version"].as_i64().unwrap();
                    let entry = self.documents.get_mut(uri).unwrap_or_else(|| panic!("didChange of unopened {uri}"));
                    assert!(version > entry.0, "{uri}: version {version} after {}", entry.0);
                    *entry = (version, params["contentChanges"][0]["text"].as_str().unwrap().to_owned());
                }
                (None, "textDocument/didClose") => {
                    let uri = params["textDocument"]["uri"].as_str().unwrap();
                    assert!(self.documents.remove(uri).is_some(), "didClose of unopened {uri}");
                }
                (None, "$/cancelRequest") => {
                    let id = params["id"].clone();
                    if let Some(at) = self.pending.iter().position(|pending| pending["id"] == id) {
                        let request = self.pending.remove(at);
                        self.answer_with(&request, json!({"error": {"code": -32800, "message": "cancelled"}})).await;
                    }
                }
                _ => {}
            }
        }
    }

    async fn answer_with(&mut self, request: &Value, outcome: Value) {
        let mut answer = json!({"jsonrpc": "2.0", "id": request["id"]});
        for (key, value) in outcome.as_object().unwrap() {
            answer[key] = value.clone();
        }
        send(&mut self.writer, answer).await;
        self.answered.push(request.clone());
    }

    async fn answer(&mut self, index: usize, twice: bool) {
        if self.pending.is_empty() {
            return;
        }
        let request = self.pending.remove(index % self.pending.len());
        let echo = json!({"result": {"echo": request["method"], "from": request["params"]["from"]}});
        self.answer_with(&request, echo.clone()).await;
        if twice {
            self.answer_with(&request, echo).await;
        }
    }

    /// Answers again a request answered (or cancelled) before: fslens must drop it.
    async fn answer_late(&mut self, index: usize) {
        if let Some(request) = self.answered.get(index % self.answered.len().max(1)).cloned() {
            let echo = json!({"result": {"echo": request["method"], "from": request["params"]["from"]}});
            self.answer_with(&request, echo).await;
        }
    }

    async fn ask_editor(&mut self) {
        self.next_ask += 1;
        // Like FSAC, every generation numbers its requests from 1.
        let id = format!("fsac-ask-{}", self.next_ask);
        let token = format!("generation {} request {}", self.generation, self.next_ask);
        self.asked_editor.insert(id.clone(), token.clone());
        send(
            &mut self.writer,
            json!({"jsonrpc": "2.0", "id": id, "method": "window/workDoneProgress/create", "params": {"token": token}}),
        )
        .await;
    }

    async fn die(mut self) -> Vec<u64> {
        let _ = self.writer.shutdown().await;
        if let Some(exit) = self.exit.take() {
            let _ = exit.send(Some(3));
        }
        self.check_editor_answers();
        self.notes
    }

    fn check_editor_answers(&self) {
        for (id, count) in &self.answers_from_editor {
            assert_eq!(*count, 1, "FSAC's request {id} was answered {count} times");
        }
    }
}

/// A peer that sends requests and counts the answers it gets.
struct Asker {
    who: String,
    next_id: i64,
    sent: HashSet<String>,
    answers: HashMap<String, usize>,
    outstanding: Vec<Value>,
    received: Vec<Value>,
}

impl Asker {
    fn new(who: &str) -> Asker {
        Asker {
            who: who.to_owned(),
            next_id: 0,
            sent: HashSet::new(),
            answers: HashMap::new(),
            outstanding: Vec::new(),
            received: Vec::new(),
        }
    }

    /// Numbers and strings alternate, and numbers overlap between peers on purpose: an answer
    /// routed to the wrong peer would be counted there.
    fn new_id(&mut self) -> Value {
        self.next_id += 1;
        let id =
            if self.next_id % 2 == 0 { json!(self.next_id) } else { json!(format!("{}-{}", self.who, self.next_id)) };
        self.sent.insert(id.to_string());
        self.outstanding.push(id.clone());
        id
    }

    fn tally(&mut self) -> Vec<Value> {
        let mut requests_from_fsac = Vec::new();
        for message in std::mem::take(&mut self.received) {
            if message.get("method").is_some() {
                if message.get("id").is_some() {
                    requests_from_fsac.push(message);
                }
                continue;
            }
            let id = message["id"].clone();
            assert!(
                self.sent.contains(&id.to_string()),
                "{} got an answer to {id}, which it never sent: {message}",
                self.who
            );
            if let Some(from) = message["result"]["from"].as_str() {
                assert_eq!(from, self.who, "{} got an answer meant for {from}: {message}", self.who);
            }
            *self.answers.entry(id.to_string()).or_default() += 1;
            self.outstanding.retain(|outstanding| *outstanding != id);
        }
        requests_from_fsac
    }

    fn check(&self) {
        for id in &self.sent {
            let count = self.answers.get(id).copied().unwrap_or(0);
            assert_eq!(count, 1, "{}'s request {id} was answered {count} times", self.who);
        }
    }
}

struct Client {
    asker: Asker,
    incoming: UnboundedReceiver<Option<Value>>,
    writer: tokio::net::unix::OwnedWriteHalf,
}

async fn connect_client(socket: &std::path::Path, number: usize) -> Client {
    let (incoming, writer) = connect_session_client(socket).await;
    Client { asker: Asker::new(&format!("client{number}")), incoming, writer }
}

/// Everything one run observed, for the case counts in the report.
#[derive(Debug, Default)]
struct Observed {
    crashes: usize,
    cancelled_answers: usize,
}

async fn run(actions: Vec<Action>) -> Observed {
    let SharedSession { session, mut editor_in, mut editor_out, mut backends, socket, directories: _directories } =
        SharedSession::start();
    let mut editor = Asker::new("editor");
    let mut observed = Observed::default();

    let initialize = editor.new_id();
    send(
        &mut editor_out,
        json!({"jsonrpc": "2.0", "id": initialize, "method": "initialize", "params": {"capabilities": {}}}),
    )
    .await;
    let mut generation = 1;
    let mut fsac = Fsac::new(backends.recv().await.unwrap(), generation);
    while !editor.outstanding.is_empty() {
        fsac.pump().await;
        tokio::task::yield_now().await;
        drain(&mut editor_in, &mut editor.received);
        editor.tally();
    }
    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})).await;
    let mut clients = vec![connect_client(&socket, 0).await];
    let mut finished_clients: Vec<Asker> = Vec::new();

    // The editor's documents: uri → (version, text) while open.
    let mut open: BTreeMap<String, (i64, String)> = BTreeMap::new();
    let mut versions: HashMap<String, i64> = HashMap::new();
    let mut note = 0u64;
    let mut notes_per_generation: Vec<Vec<u64>> = Vec::new();
    let mut asked_by_fsac: Vec<Value> = Vec::new();

    for action in actions {
        match action {
            Action::EditorRequest => {
                let id = editor.new_id();
                send(
                    &mut editor_out,
                    json!({"jsonrpc": "2.0", "id": id, "method": "custom/request", "params": {"from": "editor"}}),
                )
                .await;
            }
            Action::EditorCancel(index) => {
                if let Some(id) = editor.outstanding.get(index % editor.outstanding.len().max(1)).cloned() {
                    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}))
                        .await;
                }
            }
            Action::EditorNote => {
                note += 1;
                send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "custom/note", "params": {"seq": note}}))
                    .await;
            }
            Action::EditorEdit(index) => {
                let uri = DOCUMENTS[index % DOCUMENTS.len()];
                if let Some((version, _)) = open.get(uri).cloned() {
                    let text = format!("module M\n// {uri} at {}\n", version + 1);
                    open.insert(uri.to_owned(), (version + 1, text.clone()));
                    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version + 1}, "contentChanges": [{"text": text}]}})).await;
                }
            }
            Action::EditorOpenOrClose(index) => {
                let uri = DOCUMENTS[index % DOCUMENTS.len()];
                if open.remove(uri).is_some() {
                    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})).await;
                } else {
                    // Editors start a reopened document's versions where they like; here, higher.
                    let version = versions.get(uri).copied().unwrap_or(0) + 1;
                    let text = format!("module M\n// {uri} opened at {version}\n");
                    open.insert(uri.to_owned(), (version, text.clone()));
                    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "fsharp", "version": version, "text": text}}})).await;
                }
            }
            Action::EditorAnswersFsac(index) => {
                if !asked_by_fsac.is_empty() {
                    let request = asked_by_fsac.remove(index % asked_by_fsac.len());
                    send(
                        &mut editor_out,
                        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"answeredBy": "editor", "token": request["params"]["token"]}}),
                    )
                    .await;
                }
            }
            Action::ClientRequest(index) => {
                let count = clients.len();
                let client = &mut clients[index % count];
                let id = client.asker.new_id();
                let from = client.asker.who.clone();
                let (method, params) = if index % 3 == 0 {
                    ("workspace/executeCommand", json!({"command": "fslens.status", "arguments": [{}]}))
                } else {
                    ("textDocument/hover", json!({"position": {"line": 0, "character": 0}, "from": from}))
                };
                send(&mut client.writer, json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
            }
            Action::ClientCancel(index) => {
                let count = clients.len();
                let client = &mut clients[index % count];
                if let Some(id) = client.asker.outstanding.get(index % client.asker.outstanding.len().max(1)).cloned() {
                    send(
                        &mut client.writer,
                        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}),
                    )
                    .await;
                }
            }
            Action::ClientDisconnects(index) => {
                // The client goes away with whatever it had outstanding (nobody is left to
                // answer); a new one joins.
                let mut gone = clients.remove(index % clients.len());
                let _ = gone.writer.shutdown().await;
                drain_client(&mut gone);
                gone.asker.tally();
                for id in std::mem::take(&mut gone.asker.outstanding) {
                    gone.asker.sent.remove(&id.to_string());
                }
                finished_clients.push(gone.asker);
                clients.push(connect_client(&socket, clients.len() + finished_clients.len()).await);
            }
            Action::FsacAnswers(index) => {
                fsac.pump().await;
                fsac.answer(index, false).await;
            }
            Action::FsacAnswersTwice(index) => {
                fsac.pump().await;
                fsac.answer(index, true).await;
            }
            Action::FsacAnswersLate(index) => {
                fsac.pump().await;
                fsac.answer_late(index).await;
            }
            Action::FsacAsksEditor => fsac.ask_editor().await,
            Action::FsacCrashes => {
                fsac.pump().await;
                notes_per_generation.push(fsac.die().await);
                observed.crashes += 1;
                // Requests FSAC made of the editor die with it; the editor may still answer.
                generation += 1;
                let next = tokio::time::timeout(Duration::from_secs(5), backends.recv()).await.unwrap().unwrap();
                fsac = Fsac::new(next, generation);
            }
            Action::Settle => {
                for _ in 0..5 {
                    tokio::task::yield_now().await;
                }
                fsac.pump().await;
            }
        }
        for (uri, (version, _)) in &open {
            versions.insert(uri.clone(), *version);
        }
        tokio::task::yield_now().await;
        drain(&mut editor_in, &mut editor.received);
        asked_by_fsac.extend(editor.tally());
        for client in &mut clients {
            drain_client(client);
            assert!(client.asker.tally().is_empty(), "FSAC's request to the editor reached {}", client.asker.who);
        }
    }

    // Quiesce: FSAC answers everything, the editor answers FSAC, until every request has its answer.
    for round in 0.. {
        fsac.pump().await;
        while !fsac.pending.is_empty() {
            fsac.answer(0, false).await;
        }
        for request in asked_by_fsac.drain(..) {
            send(&mut editor_out, json!({"jsonrpc": "2.0", "id": request["id"], "result": {"answeredBy": "editor", "token": request["params"]["token"]}}))
                .await;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
        drain(&mut editor_in, &mut editor.received);
        asked_by_fsac.extend(editor.tally());
        let mut clients_done = true;
        for client in &mut clients {
            drain_client(client);
            client.asker.tally();
            clients_done &= client.asker.outstanding.is_empty();
        }
        if editor.outstanding.is_empty() && clients_done && asked_by_fsac.is_empty() && round > 3 {
            break;
        }
        assert!(round < 3000, "still waiting: editor {:?}", editor.outstanding);
    }
    fsac.pump().await;

    // The mirror and FSAC agree on every document.
    assert_eq!(fsac.documents, open, "FSAC's documents differ from the editor's");
    notes_per_generation.push(fsac.notes.clone());
    for (generation, notes) in notes_per_generation.iter().enumerate() {
        assert!(
            notes.windows(2).all(|pair| pair[0] < pair[1]),
            "notes out of order in FSAC generation {generation}: {notes:?}"
        );
    }
    fsac.check_editor_answers();
    editor.check();
    for client in &clients {
        client.asker.check();
    }
    for asker in &finished_clients {
        asker.check();
    }
    observed.cancelled_answers = editor.answers.len();

    let shutdown = editor.new_id();
    send(&mut editor_out, json!({"jsonrpc": "2.0", "id": shutdown, "method": "shutdown"})).await;
    while !editor.outstanding.is_empty() {
        fsac.pump().await;
        if let Some(at) = fsac.pending.iter().position(|pending| pending["method"] == "shutdown") {
            let request = fsac.pending.remove(at);
            send(&mut fsac.writer, json!({"jsonrpc": "2.0", "id": request["id"], "result": null})).await;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
        drain(&mut editor_in, &mut editor.received);
        editor.tally();
    }
    send(&mut editor_out, json!({"jsonrpc": "2.0", "method": "exit"})).await;
    fsac.pump().await;
    fsac.die().await;
    let end = tokio::time::timeout(Duration::from_secs(5), session).await.unwrap().unwrap().unwrap();
    assert_eq!(end.exit_code, 0);
    observed
}

fn drain_client(client: &mut Client) {
    drain(&mut client.incoming, &mut client.asker.received);
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(64)
}

proptest! {
    // Failures are not persisted next to the test: a run writes nothing into the repository
    // (a failure prints its minimal input, which becomes a fixed test).
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_shrink_iters: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_interleavings_keep_every_property(actions in proptest::collection::vec(action(), 1..160)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(run(actions));
    }
}
