//! The main loop's bookkeeping for what-if checks (`fslens.check` with `edits`).
//!
//! While a what-if runs, FSAC sees hypothetical texts of some documents at versions fslens
//! owns (from [`WHAT_IF_VERSION_BASE`] up, far above any editor's version). This module keeps
//! which documents those are and who holds them, the editor's document notifications for them
//! that wait until the restore, and, after the restore, which documents still need FSAC's
//! first analysis of the restored text before the editor hears about them again. It makes no
//! decision about the wire itself: the main loop asks it and sends.

use std::collections::HashMap;

use crate::lsp::message::Message;
use crate::uri::canonical_uri;

/// The first version fslens gives a hypothetical text (declared in `session_state::analysis`,
/// which reads it too).
pub use crate::session_state::analysis::WHAT_IF_VERSION_BASE;

/// An editor notification held for a document: its method and the message.
pub type Held = (String, Message);

/// One document FSAC sees a hypothetical text of.
#[derive(Debug, Clone)]
pub struct OverlaidDocument<Owner> {
    /// The URI as fslens sent it to FSAC (the editor's spelling when the editor has it open).
    pub uri: String,
    pub owner: Owner,
    pub version: i64,
    /// The editor had the document open when the what-if began (restore reopens its buffer).
    pub editor_open: bool,
}

/// Every what-if's documents, the editor notifications held for them, and the quarantine
/// of restored documents.
#[derive(Debug)]
pub struct WhatIfState<Owner> {
    overlaid: HashMap<String, OverlaidDocument<Owner>>,
    /// Editor `didOpen`/`didChange`/`didClose`/`didSave` for an overlaid document, in arrival
    /// order, applied right after its restore.
    held: HashMap<String, Vec<Held>>,
    /// Restored documents whose FSAC notifications still describe the hypothetical text. The
    /// value is the last `publishDiagnostics` seen since the last analysis of a hypothetical
    /// version; it is handed to the editor when FSAC reports analysing a real version.
    quarantine: HashMap<String, Option<Message>>,
    next_version: i64,
}

impl<Owner> Default for WhatIfState<Owner> {
    fn default() -> Self {
        WhatIfState {
            overlaid: HashMap::new(),
            held: HashMap::new(),
            quarantine: HashMap::new(),
            next_version: WHAT_IF_VERSION_BASE,
        }
    }
}

/// What the main loop does with an FSAC notification about a document.
#[derive(Debug)]
pub enum Routing {
    /// Forward it to the editor as usual.
    Forward,
    /// The editor must not hear it (it is about a hypothetical text).
    Swallow,
    /// Forward this held `publishDiagnostics` first, then the notification itself.
    ForwardAfter(Message),
}

impl<Owner: Clone + PartialEq> WhatIfState<Owner> {
    pub fn is_overlaid(&self, uri: &str) -> bool {
        self.overlaid.contains_key(&canonical_uri(uri))
    }

    pub fn overlaid(&self, uri: &str) -> Option<&OverlaidDocument<Owner>> {
        self.overlaid.get(&canonical_uri(uri))
    }

    pub fn overlaid_count(&self) -> usize {
        self.overlaid.len()
    }

    /// Records a document FSAC is about to be shown a hypothetical text of; returns its version.
    pub fn overlay(&mut self, uri: &str, owner: Owner, editor_open: bool) -> i64 {
        let version = self.next_version;
        self.next_version = if self.next_version >= i64::from(i32::MAX) { WHAT_IF_VERSION_BASE } else { version + 1 };
        let key = canonical_uri(uri);
        self.quarantine.remove(&key);
        self.overlaid.insert(key, OverlaidDocument { uri: uri.to_owned(), owner, version, editor_open });
        version
    }

    /// Takes every document `owner` overlaid, sorted by URI, with the editor notifications held
    /// for each; the documents enter the quarantine until FSAC analyses a real version.
    pub fn take_documents_of(&mut self, owner: &Owner) -> Vec<(OverlaidDocument<Owner>, Vec<Held>)> {
        let keys: Vec<String> =
            self.overlaid.iter().filter(|(_, document)| &document.owner == owner).map(|(key, _)| key.clone()).collect();
        let mut taken: Vec<_> = keys
            .into_iter()
            .filter_map(|key| {
                let document = self.overlaid.remove(&key)?;
                let held = self.held.remove(&key).unwrap_or_default();
                self.quarantine.insert(key, None);
                Some((document, held))
            })
            .collect();
        taken.sort_by(|a, b| a.0.uri.cmp(&b.0.uri));
        taken
    }

    /// Ends the quarantine of a restored document whose text FSAC will report no analysis of
    /// (an empty text gets a publish but no `fsharp/documentAnalyzed`); its next publish goes
    /// to the editor as usual.
    pub fn lift_quarantine(&mut self, uri: &str) {
        self.quarantine.remove(&canonical_uri(uri));
    }

    /// FSAC went away: nothing is overlaid or quarantined any more (the next FSAC only ever
    /// sees the editor's texts); returns the held editor notifications, in arrival order per
    /// document, for the mirror.
    pub fn abandon(&mut self) -> Vec<Held> {
        self.overlaid.clear();
        self.quarantine.clear();
        let mut held: Vec<_> = self.held.drain().collect();
        held.sort_by(|a, b| a.0.cmp(&b.0));
        held.into_iter().flat_map(|(_, messages)| messages).collect()
    }

    /// Holds an editor document notification for an overlaid document. Returns it back when
    /// the document is not overlaid.
    pub fn hold(&mut self, uri: &str, method: &str, message: Message) -> Option<Message> {
        let key = canonical_uri(uri);
        if !self.overlaid.contains_key(&key) {
            return Some(message);
        }
        self.held.entry(key).or_default().push((method.to_owned(), message));
        None
    }

    /// How to route FSAC's `method` notification about `uri` (canonical). `analyzed_version`
    /// is the version of an `fsharp/documentAnalyzed`.
    pub fn route(&mut self, uri: &str, method: &str, analyzed_version: Option<i64>, message: &Message) -> Routing {
        if self.overlaid.contains_key(uri) {
            return Routing::Swallow;
        }
        let Some(held) = self.quarantine.get_mut(uri) else { return Routing::Forward };
        match method {
            "textDocument/publishDiagnostics" => {
                *held = Some(message.clone());
                Routing::Swallow
            }
            "fsharp/documentAnalyzed" => match analyzed_version {
                Some(version) if version >= WHAT_IF_VERSION_BASE => {
                    *held = None;
                    Routing::Swallow
                }
                _ => match self.quarantine.remove(uri).flatten() {
                    Some(publish) => Routing::ForwardAfter(publish),
                    None => Routing::Forward,
                },
            },
            // `fsharp/fileParsed` carries no content, and the restored text is parsed too.
            _ => Routing::Forward,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn publish(message: &str) -> Message {
        Message::notification(
            "textDocument/publishDiagnostics",
            json!({"uri": "file:///w/A.fs", "diagnostics": [{"message": message}]}),
        )
    }

    fn swallowed(routing: Routing) -> bool {
        matches!(routing, Routing::Swallow)
    }

    #[test]
    fn restored_documents_release_only_the_publish_of_a_real_version() {
        let mut state = WhatIfState::<u32>::default();
        let uri = "file:///w/A.fs";
        let version = state.overlay(uri, 7, true);
        assert!(version >= WHAT_IF_VERSION_BASE);
        assert!(swallowed(state.route(uri, "textDocument/publishDiagnostics", None, &publish("hypothetical"))));
        let change = Message::notification("textDocument/didChange", json!({}));
        assert!(state.hold(uri, "textDocument/didChange", change).is_none());
        let taken = state.take_documents_of(&7);
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].1.len(), 1, "the held change comes back with its document");
        // A late publish and analysis of the hypothetical version stay away from the editor.
        assert!(swallowed(state.route(uri, "textDocument/publishDiagnostics", None, &publish("late"))));
        assert!(swallowed(state.route(uri, "fsharp/documentAnalyzed", Some(version), &publish("x"))));
        // The restored text's publish is handed over with its analysis.
        assert!(swallowed(state.route(uri, "textDocument/publishDiagnostics", None, &publish("real"))));
        match state.route(uri, "fsharp/documentAnalyzed", Some(3), &publish("x")) {
            Routing::ForwardAfter(held) => assert_eq!(held.bytes(), publish("real").bytes()),
            other => panic!("expected the held publish, got {other:?}"),
        }
        let next = state.route(uri, "textDocument/publishDiagnostics", None, &publish("next"));
        assert!(matches!(next, Routing::Forward));
    }

    #[test]
    fn a_lifted_quarantine_forwards_the_next_publish() {
        let mut state = WhatIfState::<u32>::default();
        let uri = "file:///w/A.fs";
        state.overlay(uri, 1, true);
        state.take_documents_of(&1);
        assert!(swallowed(state.route(uri, "textDocument/publishDiagnostics", None, &publish("late"))));
        state.lift_quarantine(uri);
        let next = state.route(uri, "textDocument/publishDiagnostics", None, &publish("empty text"));
        assert!(matches!(next, Routing::Forward));
    }

    #[test]
    fn other_owners_and_documents_are_untouched() {
        let mut state = WhatIfState::<u32>::default();
        state.overlay("file:///w/A.fs", 1, false);
        assert!(state.take_documents_of(&2).is_empty());
        let message = Message::notification("textDocument/didChange", json!({}));
        assert!(state.hold("file:///w/B.fs", "textDocument/didChange", message).is_some());
        assert!(state.abandon().is_empty());
        assert!(!state.is_overlaid("file:///w/A.fs"));
    }
}
