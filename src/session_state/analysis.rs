//! What FSAC has said about each document's analysis: the diagnostics it last published and
//! the last version it reported analysed.
//!
//! FSAC 0.83 publishes diagnostics without a `version`; the order on the wire is what ties
//! them to a version: typecheck → `publishDiagnostics` → `fsharp/documentAnalyzed {uri,
//! version}` (docs/fsac-protocol.md §5). Every observation gets a sequence number and the
//! FSAC generation it came from, so a reader can tell which publish preceded which analysis
//! and never mixes two FSAC processes.
//!
//! FSAC never sends `fsharp/documentAnalyzed` for a document whose text is empty (zero
//! characters: `AdaptiveServerState.fs` skips the analyzers and the notification when
//! `Source.Length = 0`), though it still parses and type-checks it, sends `fsharp/fileParsed`
//! and publishes the compiler's diagnostics for it. So an empty document counts as analysed
//! once FSAC has reported parsing it and published its diagnostics after fslens last sent its
//! text (`observe_sent`), and those are its diagnostics.

use std::collections::HashMap;

use serde_json::Value;

use crate::uri::canonical_uri;

/// The first version fslens gives a hypothetical text. LSP versions are 32-bit integers, and
/// no editor counts up to a billion edits of one buffer, so a version at or above this is
/// always a what-if's and never matches an editor's version or fslens's own 1.
pub const WHAT_IF_VERSION_BASE: i64 = 1_000_000_000;

/// The last `publishDiagnostics` for one document.
#[derive(Debug, Clone)]
pub struct Published {
    pub diagnostics: Vec<Value>,
    /// The `version` FSAC attached (newer FSAC only).
    pub version: Option<i64>,
    pub generation: u64,
    pub sequence: u64,
}

/// The last `fsharp/documentAnalyzed` for one document.
#[derive(Debug, Clone, Copy)]
pub struct Analyzed {
    pub version: Option<i64>,
    pub generation: u64,
    pub sequence: u64,
}

/// The last `fsharp/fileParsed` for one document.
#[derive(Debug, Clone, Copy)]
pub struct Parsed {
    pub generation: u64,
    pub sequence: u64,
}

/// Diagnostics and analysis records, keyed by canonical URI.
#[derive(Debug, Default)]
pub struct AnalysisStore {
    published: HashMap<String, Published>,
    analyzed: HashMap<String, Analyzed>,
    parsed: HashMap<String, Parsed>,
    /// When the text FSAC now has for a document was sent to it (a sequence number).
    sent: HashMap<String, u64>,
    sequence: u64,
}

impl AnalysisStore {
    /// Records a `textDocument/publishDiagnostics`; returns the canonical URI.
    pub fn observe_publish(&mut self, params: &Value, generation: u64) -> Option<String> {
        let uri = canonical_uri(params.get("uri")?.as_str()?);
        self.sequence += 1;
        let diagnostics = params.get("diagnostics").and_then(Value::as_array).cloned().unwrap_or_default();
        let version = params.get("version").and_then(Value::as_i64);
        self.published.insert(uri.clone(), Published { diagnostics, version, generation, sequence: self.sequence });
        Some(uri)
    }

    /// Records an `fsharp/documentAnalyzed`; returns the canonical URI.
    pub fn observe_analyzed(&mut self, params: &Value, generation: u64) -> Option<String> {
        let uri = canonical_uri(params.pointer("/textDocument/uri")?.as_str()?);
        self.sequence += 1;
        let version = params.pointer("/textDocument/version").and_then(Value::as_i64);
        self.analyzed.insert(uri.clone(), Analyzed { version, generation, sequence: self.sequence });
        Some(uri)
    }

    /// Records an `fsharp/fileParsed`; returns the canonical URI.
    pub fn observe_parsed(&mut self, params: &Value, generation: u64) -> Option<String> {
        let uri = canonical_uri(params.get("content")?.as_str()?);
        self.sequence += 1;
        self.parsed.insert(uri.clone(), Parsed { generation, sequence: self.sequence });
        Some(uri)
    }

    /// Records that a document's text (a `didOpen` or `didChange`) is being sent to FSAC now.
    pub fn observe_sent(&mut self, uri: &str) {
        self.sequence += 1;
        self.sent.insert(canonical_uri(uri), self.sequence);
    }

    pub fn parsed(&self, uri: &str) -> Option<&Parsed> {
        self.parsed.get(&canonical_uri(uri))
    }

    pub fn sent(&self, uri: &str) -> Option<u64> {
        self.sent.get(&canonical_uri(uri)).copied()
    }

    pub fn published(&self, uri: &str) -> Option<&Published> {
        self.published.get(&canonical_uri(uri))
    }

    pub fn analyzed(&self, uri: &str) -> Option<&Analyzed> {
        self.analyzed.get(&canonical_uri(uri))
    }

    pub fn analyzed_count(&self) -> usize {
        self.analyzed.len()
    }

    /// Every published document, for the session's diagnostics view.
    pub fn all_published(&self) -> impl Iterator<Item = (&String, &Published)> {
        self.published.iter()
    }
}

/// A snapshot of one document's analysis, as a command sees it.
#[derive(Debug, Clone)]
pub struct AnalysisSnapshot {
    pub uri: String,
    /// The version FSAC knows the document at: the editor's, or the one fslens opened it with.
    pub expected_version: Option<i64>,
    pub open_in_editor: bool,
    pub published: Option<Published>,
    pub analyzed: Option<Analyzed>,
    pub parsed: Option<Parsed>,
    /// When FSAC was sent the text it has now (see [`AnalysisStore::observe_sent`]).
    pub sent_sequence: Option<u64>,
    /// True when the text FSAC has is empty, so no `fsharp/documentAnalyzed` will come.
    pub text_is_empty: bool,
    /// The FSAC generation now running (0: none).
    pub generation: u64,
}

impl AnalysisSnapshot {
    /// Whether FSAC reported analysing exactly the expected version in the running generation,
    /// and the diagnostics that analysis published (an analysis with no publish before it has
    /// none). `None` while the analysis is still outstanding. An empty document, for which
    /// FSAC sends no `documentAnalyzed`, is analysed once FSAC parsed it and published its
    /// diagnostics after its text was sent.
    pub fn current_diagnostics(&self) -> Option<Vec<Value>> {
        if self.generation == 0 {
            return None;
        }
        self.diagnostics_of_analysis().or_else(|| self.diagnostics_of_empty_text())
    }

    fn diagnostics_of_empty_text(&self) -> Option<Vec<Value>> {
        if !self.text_is_empty {
            return None;
        }
        let sent = self.sent_sequence?;
        let parsed = self.parsed?;
        let published = self.published.as_ref()?;
        let current = |generation: u64, sequence: u64| generation == self.generation && sequence > sent;
        if !current(parsed.generation, parsed.sequence) || !current(published.generation, published.sequence) {
            return None;
        }
        if published.version.is_some() && published.version != self.expected_version {
            return None;
        }
        Some(published.diagnostics.clone())
    }

    /// A document the editor does not have open: the diagnostics FSAC last published for it in
    /// the running generation, unless they are a what-if's (published for, or last analysed at,
    /// a version of a hypothetical text: after the restore they say nothing of the real one).
    pub fn last_published_of_real_text(&self) -> Option<Vec<Value>> {
        let published = self.published.as_ref()?;
        let hypothetical = |version: Option<i64>| version.is_some_and(|version| version >= WHAT_IF_VERSION_BASE);
        let usable = !self.open_in_editor
            && published.generation == self.generation
            && !hypothetical(published.version)
            && !self.analyzed.is_some_and(|analyzed| hypothetical(analyzed.version));
        usable.then(|| published.diagnostics.clone())
    }

    fn diagnostics_of_analysis(&self) -> Option<Vec<Value>> {
        let analyzed = self.analyzed?;
        if analyzed.generation != self.generation || self.generation == 0 {
            return None;
        }
        if analyzed.version.is_some() && analyzed.version != self.expected_version {
            return None;
        }
        // An analysis reported before FSAC was sent the text it has now is of another text,
        // even at the same version number (fslens's own copy of a file at version 1, then the
        // editor's buffer of it at version 1).
        if self.sent_sequence.is_some_and(|sent| analyzed.sequence < sent) {
            return None;
        }
        match &self.published {
            Some(published) if published.generation == self.generation => {
                if published.version.is_some() && published.version != self.expected_version {
                    return None;
                }
                Some(published.diagnostics.clone())
            }
            _ => Some(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot(store: &AnalysisStore, uri: &str, expected: i64, generation: u64) -> AnalysisSnapshot {
        AnalysisSnapshot {
            uri: uri.to_owned(),
            expected_version: Some(expected),
            open_in_editor: true,
            published: store.published(uri).cloned(),
            analyzed: store.analyzed(uri).copied(),
            parsed: store.parsed(uri).copied(),
            sent_sequence: store.sent(uri),
            text_is_empty: false,
            generation,
        }
    }

    #[test]
    fn an_empty_document_is_analysed_once_parsed_and_published_after_its_text_was_sent() {
        let mut store = AnalysisStore::default();
        let uri = "file:///w/Empty.fs";
        let empty = |store: &AnalysisStore| AnalysisSnapshot { text_is_empty: true, ..snapshot(store, uri, 1, 1) };
        // A parse and a publish from before the text was sent say nothing about it.
        store.observe_parsed(&json!({"content": uri}), 1);
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "old"}]}), 1);
        store.observe_sent(uri);
        assert_eq!(empty(&store).current_diagnostics(), None);
        store.observe_parsed(&json!({"content": uri}), 1);
        assert_eq!(empty(&store).current_diagnostics(), None, "parsed, but its diagnostics are not published yet");
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "FS0988"}]}), 1);
        assert_eq!(empty(&store).current_diagnostics(), Some(vec![json!({"message": "FS0988"})]));
        // A document with text waits for `documentAnalyzed`, whatever was parsed.
        assert_eq!(snapshot(&store, uri, 1, 1).current_diagnostics(), None);
        // Another FSAC process has parsed nothing of it.
        assert_eq!(AnalysisSnapshot { generation: 2, ..empty(&store) }.current_diagnostics(), None);
    }

    #[test]
    fn a_closed_files_last_publish_counts_unless_a_what_if_made_it() {
        let mut store = AnalysisStore::default();
        let uri = "file:///w/Render.fs";
        let closed = |store: &AnalysisStore| AnalysisSnapshot { open_in_editor: false, ..snapshot(store, uri, 1, 1) };
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "real"}]}), 1);
        assert_eq!(closed(&store).last_published_of_real_text(), Some(vec![json!({"message": "real"})]));
        // A what-if showed FSAC a hypothetical text (a version from WHAT_IF_VERSION_BASE up) and
        // FSAC analysed it: after the restore, until FSAC publishes again, nothing is known.
        let hypothetical = WHAT_IF_VERSION_BASE + 3;
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "FS0025"}]}), 1);
        store.observe_analyzed(&json!({"textDocument": {"uri": uri, "version": hypothetical}}), 1);
        assert_eq!(closed(&store).last_published_of_real_text(), None);
        store.observe_publish(&json!({"uri": uri, "version": hypothetical, "diagnostics": []}), 1);
        assert_eq!(closed(&store).last_published_of_real_text(), None);
        // FSAC's analysis of the restored text (no version: FSAC read it from disk) counts again.
        store.observe_analyzed(&json!({"textDocument": {"uri": uri, "version": null}}), 1);
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "real again"}]}), 1);
        assert_eq!(closed(&store).last_published_of_real_text(), Some(vec![json!({"message": "real again"})]));
        // An open document's diagnostics are its current analysis's, not its last publish.
        assert_eq!(snapshot(&store, uri, 1, 1).last_published_of_real_text(), None);
    }

    #[test]
    fn diagnostics_count_only_once_the_expected_version_was_analysed() {
        let mut store = AnalysisStore::default();
        let uri = "file:///w/A.fs";
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "old"}]}), 1);
        store.observe_analyzed(&json!({"textDocument": {"uri": uri, "version": 1}}), 1);
        assert_eq!(snapshot(&store, uri, 2, 1).current_diagnostics(), None, "version 2 not analysed yet");
        store.observe_publish(&json!({"uri": uri, "diagnostics": []}), 1);
        store.observe_analyzed(&json!({"textDocument": {"uri": "file:///w/%41.fs", "version": 2}}), 1);
        assert_eq!(snapshot(&store, uri, 2, 1).current_diagnostics(), Some(vec![]));
        // A restarted FSAC (generation 2) has analysed nothing yet.
        assert_eq!(snapshot(&store, uri, 2, 2).current_diagnostics(), None);
    }

    #[test]
    fn an_analysis_from_before_the_current_text_was_sent_does_not_count_even_at_the_same_version() {
        let mut store = AnalysisStore::default();
        let uri = "file:///w/Shared.fs";
        // fslens opens the disk text at version 1 and FSAC analyses it.
        store.observe_sent(uri);
        store.observe_publish(&json!({"uri": uri, "diagnostics": []}), 1);
        store.observe_analyzed(&json!({"textDocument": {"uri": uri, "version": 1}}), 1);
        assert_eq!(snapshot(&store, uri, 1, 1).current_diagnostics(), Some(vec![]));
        // The editor opens its own (different) buffer of it, also at version 1.
        store.observe_sent(uri);
        assert_eq!(
            snapshot(&store, uri, 1, 1).current_diagnostics(),
            None,
            "the disk text's analysis is not the buffer's"
        );
        store.observe_publish(&json!({"uri": uri, "diagnostics": [{"message": "FS0001"}]}), 1);
        store.observe_analyzed(&json!({"textDocument": {"uri": uri, "version": 1}}), 1);
        assert_eq!(snapshot(&store, uri, 1, 1).current_diagnostics(), Some(vec![json!({"message": "FS0001"})]));
    }

    #[test]
    fn versioned_publishes_must_match_too() {
        let mut store = AnalysisStore::default();
        let uri = "file:///w/B.fs";
        store.observe_publish(&json!({"uri": uri, "version": 3, "diagnostics": [1]}), 1);
        store.observe_analyzed(&json!({"textDocument": {"uri": uri, "version": 4}}), 1);
        assert_eq!(snapshot(&store, uri, 4, 1).current_diagnostics(), None);
        store.observe_publish(&json!({"uri": uri, "version": 4, "diagnostics": [2]}), 1);
        assert_eq!(snapshot(&store, uri, 4, 1).current_diagnostics(), Some(vec![json!(2)]));
        assert!(store.observe_publish(&json!({"diagnostics": []}), 1).is_none());
    }
}
