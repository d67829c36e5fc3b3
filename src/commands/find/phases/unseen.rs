//! Unseen uses: an occurrence of a declared name that no site covers, in a file that can use
//! the declaration (it comes at or after the declaring file in a project compiling both, or
//! its project references one that does), may be a use FSAC's references missed: the syntax
//! index sees it, the compiler's references answer does not hold it. Before a find may say
//! complete, each such occurrence is resolved: FSAC's `textDocument/definition` at it, within
//! the find's deadline. A definition at one of the resolved declarations makes the occurrence
//! a site (`crossCheck.missedByBackend` names it, role `use`); a definition elsewhere (another
//! symbol of the name, or none) rules it out, and FSAC's references at it rule out every other
//! occurrence of that other symbol with no definition of their own (a type variable `'ok`, or
//! an occurrence another module qualifies, `Result.ok` for a module's `ok`, is ruled out from
//! the text first, see [`qualified`]); an occurrence whose definition could not be had
//! in time, or that the bound of [`REQUESTS_AT_MOST`] requests left unasked, keeps the
//! answer from being complete and is named (`crossCheck.unseenOccurrences`).

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::commands::CommandError;
use crate::commands::find::matching::{Declared, range_from_json};
use crate::commands::find::model::answer::{UnresolvedOccurrence, UnseenOccurrences};
use crate::commands::find::model::arguments::FindKind;
use crate::commands::find::model::rows::{Site, sort_and_deduplicate};
use crate::commands::find::model::texts::{Texts, resolve_display};
use crate::commands::find::model::work::FileKey;
use crate::commands::find::phases::classify;
use crate::commands::find::phases::declarations::Resolved;
use crate::commands::find::phases::find_run::FindRun;
use crate::commands::find::phases::narrowing::CompileOrder;
use crate::commands::find::phases::qualified;
use crate::commands::find::phases::sweep::{self, SweepOutcome, Swept};
use crate::commands::find::phases::target::Placement;
use crate::commands::find::phases::type_errors::{Formed, FormedFile, SegmentBounds, analysable_files, covers};
use crate::deadline::Deadline;
use crate::lsp::message::error_codes;
use crate::lsp::types::TextDocumentPositionParams;
use crate::syntax::model::{Position, TextRange};

/// At most this many requests per find, definitions and references together: past it the
/// occurrences left are named as not asked, and the answer is not complete.
pub const REQUESTS_AT_MOST: usize = 64;

/// At most this many unresolved occurrences are listed (`unresolvedTotal` counts them all).
const LISTED_AT_MOST: usize = 50;

/// How many definition requests run side by side.
const DEFINITIONS_IN_FLIGHT: usize = 4;

pub(super) use crate::commands::find::phases::qualified::Occurrence;

/// A use FSAC's references missed: the occurrence, and the slot in `declared` of the
/// declaration its definition is.
#[derive(Clone, Debug)]
pub struct MissedUse {
    pub path: PathBuf,
    pub range: TextRange,
    pub slot: usize,
}

/// What resolving the occurrences no site covers established.
#[derive(Default)]
pub struct Unseen {
    /// Whether any occurrence was looked at (the answer then carries `unresolvedOccurrences`).
    pub looked: bool,
    /// The uses the definitions proved: sites FSAC's references missed.
    pub missed: Vec<MissedUse>,
    /// How many occurrences resolved to another symbol (or to nothing).
    pub elsewhere: usize,
    /// How many definition requests were sent.
    pub asked: usize,
    /// How many references requests were sent at occurrences resolved elsewhere.
    pub references_asked: usize,
    /// How many occurrences a references answer of another symbol ruled out (counted in
    /// `elsewhere` too) with no definition of their own.
    pub by_references: usize,
    /// How many occurrences the text shows to be another symbol's (a type variable `'ok`,
    /// `Result.ok` for a module's `ok`), ruled out with no request (counted in `elsewhere` too).
    pub by_text: usize,
    /// The occurrences that could not be resolved, each with its reason.
    unresolved: Vec<(Occurrence, String)>,
    /// How many occurrences the bound left unasked.
    pub not_asked: usize,
    /// Requests the find sent before (the slot rows' definitions): counted in the bound.
    spent_before: usize,
}

impl Unseen {
    /// The requests sent, definitions and references: what [`REQUESTS_AT_MOST`] bounds.
    fn requests(&self) -> usize {
        self.spent_before + self.asked + self.references_asked
    }

    /// Every occurrence resolved: nothing here keeps the answer from being complete.
    pub fn all_resolved(&self) -> bool {
        self.unresolved.is_empty()
    }

    /// `crossCheck.unseenOccurrences`, when any occurrence was looked at.
    pub fn summary(&self, display: &dyn Fn(&Path) -> String) -> Option<UnseenOccurrences> {
        self.looked.then(|| UnseenOccurrences {
            definitions_asked: self.asked,
            definitions_at_most: REQUESTS_AT_MOST,
            references_asked: self.references_asked,
            resolved_by_references: self.by_references,
            resolved_by_text: self.by_text,
            resolved_to_symbol: self.missed.len(),
            resolved_elsewhere: self.elsewhere,
            unresolved_total: self.unresolved.len(),
            unresolved: listed(&self.unresolved, display),
        })
    }

    /// `crossCheck.missedByBackend`'s rows of the uses found here.
    pub fn missed_rows(&self, resolved: &Resolved, display: &dyn Fn(&Path) -> String) -> Vec<Value> {
        self.missed
            .iter()
            .map(|missed| {
                json!({
                    "symbolFullName": resolved.declared[missed.slot].symbol_full_name(),
                    "file": display(&missed.path),
                    "range": missed.range.to_json(),
                    "role": "use",
                    "resolvedBy": "fsac-definition",
                })
            })
            .collect()
    }

    /// The notes: the uses found, and what could not be resolved.
    pub fn notes(&self, display: &dyn Fn(&Path) -> String) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.missed.is_empty() {
            notes.push(format!(
                "FSAC's references miss {} use(s) the syntax index sees, which FSAC's definition at each resolves to \
                 the declaration: they are rows, and listed in crossCheck.missedByBackend (role use)",
                self.missed.len()
            ));
        }
        if !self.unresolved.is_empty() {
            let places = first_places(&self.unresolved, display);
            notes.push(format!(
                "{} occurrence(s) of the name that no site covers, in files that can use the symbol, could not be \
                 resolved ({}; listed in crossCheck.unseenOccurrences.unresolved): each may be a use FSAC's references \
                 missed, so the answer is not complete",
                self.unresolved.len(),
                places.join(", ")
            ));
        }
        if self.not_asked > 0 {
            notes.push(format!(
                "at most {REQUESTS_AT_MOST} requests (FSAC's definition at an occurrence no site covers, its \
                 references at one that is another symbol's) are sent per find: {} occurrence(s) were not asked",
                self.not_asked
            ));
        }
        notes
    }
}

/// Resolves the occurrences of the declared names that no site and no FSAC location covers,
/// in the files of the segment that can use a declaration: each one's FSAC definition, until
/// the find's deadline. An occurrence that resolves to another symbol (or to none FSAC has
/// source for) is followed by FSAC's references at it: every occurrence that answer holds is
/// that other symbol's too, and needs no definition of its own (a common name, `Length`, is
/// a few requests, not one per occurrence). The uses found are added to `sites`. `spent`
/// requests were sent before (settling slot rows), within the same bound.
pub async fn resolve(
    find: &FindRun,
    texts: &mut Texts,
    placement: &Placement,
    resolved: &Resolved,
    swept: &Swept,
    sites: &mut Vec<Site>,
    (segment, spent): (&SegmentBounds<'_>, usize),
) -> Result<Unseen, CommandError> {
    let mut unseen = Unseen { spent_before: spent, ..Unseen::default() };
    if !find.fsac.ready || !swept.asked || find.kind_mode() == FindKind::Definition || resolved.declared.is_empty() {
        return Ok(unseen);
    }
    let occurrences = uncovered_occurrences(find, placement, resolved, swept, sites, segment);
    if occurrences.is_empty() {
        return Ok(unseen);
    }
    unseen.looked = true;
    let (occurrences, by_text) = qualified::rule_out_by_text(find, texts, resolved, occurrences);
    unseen.by_text = by_text;
    unseen.elsewhere += by_text;
    let mut round = Round {
        find,
        resolved,
        ours: places_of_this_symbol(find, resolved, swept, sites),
        queue: occurrences.into(),
        others: HashMap::new(),
        acquired: Vec::new(),
    };
    let walked = round.walk(texts, &mut unseen).await;
    for uri in &round.acquired {
        find.context.release_document(uri);
    }
    walked?;
    let bound_reached = unseen.requests() >= REQUESTS_AT_MOST;
    for occurrence in round.queue {
        let reason = if bound_reached {
            unseen.not_asked += 1;
            format!("not asked: at most {REQUESTS_AT_MOST} requests (definitions and references) are sent per find")
        } else {
            "not sent: the deadline passed first".to_owned()
        };
        unseen.unresolved.push((occurrence, reason));
    }
    if !unseen.missed.is_empty() {
        let found = unseen.missed.iter().map(|missed| (missed.path.as_path(), missed.range, missed.slot));
        sites.extend(classify::missed_use_sites(find, placement, resolved, found));
        sort_and_deduplicate(sites);
    }
    Ok(unseen)
}

/// The places (file, range) that are this symbol's: its declarations' names, and every
/// location FSAC's references for it answered. A references answer at another occurrence that
/// holds one of them is not another symbol's alone (an abstract slot's uses hold its
/// implementations), so it rules nothing out.
fn places_of_this_symbol(
    find: &FindRun,
    resolved: &Resolved,
    swept: &Swept,
    sites: &[Site],
) -> HashSet<(FileKey, TextRange)> {
    let declared = resolved.declared.iter().map(|declared| (find.work.file_key(&declared.path), declared.name_range));
    let answered = swept.all_answers().into_iter().flatten().map(|(path, range)| (find.work.file_key(path), *range));
    let rows = sites.iter().map(|site| (find.work.file_key(&resolve_display(&find.root, &site.file)), site.range));
    declared.chain(answered).chain(rows).collect()
}

/// The resolution's state: the occurrences still to resolve, in order, and the documents
/// opened in FSAC for it (released when it ends).
struct Round<'a> {
    find: &'a FindRun,
    resolved: &'a Resolved,
    ours: HashSet<(FileKey, TextRange)>,
    queue: VecDeque<Occurrence>,
    /// Per file, the ranges the references answers of other symbols held.
    others: HashMap<FileKey, Vec<TextRange>>,
    acquired: Vec<String>,
}

impl Round<'_> {
    /// Rounds of at most [`DEFINITIONS_IN_FLIGHT`] definitions (one per file), each followed by the
    /// references at the occurrences they resolved elsewhere, until nothing is left to
    /// resolve, the bound of [`REQUESTS_AT_MOST`] requests is reached or the deadline passes.
    async fn walk(&mut self, texts: &mut Texts, unseen: &mut Unseen) -> Result<(), CommandError> {
        let deadline = Deadline::at(self.find.sweep_deadline.into_std());
        while !self.queue.is_empty() && unseen.requests() < REQUESTS_AT_MOST && !deadline.passed() {
            let room = REQUESTS_AT_MOST - unseen.requests();
            let asked = self.next_round(room.min(DEFINITIONS_IN_FLIGHT));
            let (definitions, sent) = definitions(self.find, texts, &asked, &mut self.acquired).await?;
            unseen.asked += sent;
            let mut elsewhere = Vec::new();
            for (occurrence, definition) in asked.into_iter().zip(definitions) {
                match definition {
                    Definition::At(path, range) => match declaration_slot(self.find, self.resolved, &path, range) {
                        Some(slot) => {
                            unseen.missed.push(MissedUse { path: occurrence.path, range: occurrence.range, slot });
                        }
                        None => elsewhere.push(occurrence),
                    },
                    Definition::Nothing => elsewhere.push(occurrence),
                    Definition::Unknown(reason) => unseen.unresolved.push((occurrence, reason)),
                }
            }
            unseen.elsewhere += elsewhere.len();
            for occurrence in &elsewhere {
                if self.queue.is_empty() || unseen.requests() >= REQUESTS_AT_MOST || deadline.passed() {
                    break;
                }
                // One of this round's occurrences an earlier answer held: that symbol's uses
                // are ruled out already.
                if !self.held_by_others(occurrence) {
                    self.rule_out_by_references(occurrence, unseen).await?;
                }
            }
        }
        Ok(())
    }

    /// The next round's occurrences, at most `limit`, in order, one per file: the occurrences
    /// of one file are most often one symbol's, which one references answer rules out, so
    /// definitions spread over files waste fewer requests.
    fn next_round(&mut self, limit: usize) -> Vec<Occurrence> {
        let mut round: Vec<Occurrence> = Vec::new();
        let mut rest = VecDeque::with_capacity(self.queue.len());
        for occurrence in self.queue.drain(..) {
            if round.len() < limit && !round.iter().any(|taken| taken.path == occurrence.path) {
                round.push(occurrence);
            } else {
                rest.push_back(occurrence);
            }
        }
        self.queue = rest;
        round
    }

    /// Whether a references answer of another symbol held the occurrence.
    fn held_by_others(&self, occurrence: &Occurrence) -> bool {
        self.others.get(&self.find.work.file_key(&occurrence.path)).is_some_and(|ranges| {
            ranges.iter().any(|range| range.start <= occurrence.range.start && occurrence.range.end <= range.end)
        })
    }

    /// FSAC's references at an occurrence that resolved to another symbol: every occurrence
    /// still queued that the answer holds is that symbol's too, resolved elsewhere. An answer
    /// that holds a place of this symbol rules nothing out.
    async fn rule_out_by_references(
        &mut self,
        occurrence: &Occurrence,
        unseen: &mut Unseen,
    ) -> Result<(), CommandError> {
        let Some(uri) = crate::uri::path_to_uri(&occurrence.path) else { return Ok(()) };
        let start = occurrence.range.start;
        unseen.references_asked += 1;
        let (outcome, locations) =
            sweep::references(&self.find.context, &uri, start.line, start.character, self.find.sweep_deadline).await?;
        if !matches!(outcome, SweepOutcome::Analyzed) {
            return Ok(());
        }
        let work = &self.find.work;
        let keyed: Vec<(FileKey, TextRange)> =
            locations.iter().map(|(path, range)| (work.file_key(path), *range)).collect();
        if keyed.iter().any(|place| self.ours.contains(place)) {
            return Ok(());
        }
        for (file, range) in keyed {
            self.others.entry(file).or_default().push(range);
        }
        let before = self.queue.len();
        let mut queue = std::mem::take(&mut self.queue);
        queue.retain(|queued| !self.held_by_others(queued));
        self.queue = queue;
        let ruled_out = before - self.queue.len();
        unseen.elsewhere += ruled_out;
        unseen.by_references += ruled_out;
        Ok(())
    }
}

/// The occurrences of a declared name no site and no FSAC location covers, in the files this
/// find read that can use a declaration of that name, sorted by file and place. Only files
/// FSAC can analyse count (compiled by a requested project it loaded), inside the segment; a
/// declaration of the name (this symbol's or another's) is no use.
fn uncovered_occurrences(
    find: &FindRun,
    placement: &Placement,
    resolved: &Resolved,
    swept: &Swept,
    sites: &[Site],
    segment: &SegmentBounds<'_>,
) -> Vec<Occurrence> {
    let formed = Formed { placement, resolved, swept, sites, segment: *segment };
    let names: BTreeSet<&str> = resolved.declared.iter().map(Declared::name).collect();
    let declaration_places: HashSet<(PathBuf, TextRange)> = names
        .iter()
        .flat_map(|name| find.index.find_declarations_in(name, find.files()))
        .map(|hit| (hit.path.clone(), hit.declaration.name_range()))
        .collect();
    let order = CompileOrder::new(&find.model, &find.overlay);
    let mut occurrences = Vec::new();
    for FormedFile { path, covered, .. } in analysable_files(find, &formed) {
        let paths = [path.to_path_buf()];
        for name in &names {
            let declared_here: Vec<&Declared> =
                resolved.declared.iter().filter(|declaration| declaration.name() == *name).collect();
            if !declared_here.iter().any(|declaration| order.can_see(path, &declaration.path)) {
                continue;
            }
            for hit in find.index.find_occurrences_in(name, &paths) {
                let end = Position { line: hit.position.line, character: hit.position.character + hit.length };
                let range = TextRange { start: hit.position, end };
                if covers(&covered, hit.position) || declaration_places.contains(&(hit.path.clone(), range)) {
                    continue;
                }
                occurrences.push(Occurrence { path: path.to_path_buf(), range });
            }
        }
    }
    occurrences.sort_by(|left, right| (&left.path, left.range.start).cmp(&(&right.path, right.range.start)));
    occurrences.dedup_by(|later, earlier| later.path == earlier.path && later.range == earlier.range);
    occurrences
}

/// What FSAC's definition at an occurrence said.
pub(super) enum Definition {
    /// A source location: the file and the range.
    At(PathBuf, TextRange),
    /// No definition (`null`, an empty list, a place that is no file).
    Nothing,
    /// No answer to judge by: why.
    Unknown(String),
}

/// FSAC's definition at each occurrence, in order, at most [`DEFINITIONS_IN_FLIGHT`] at once,
/// each file opened in FSAC for it (once: `acquired` names the documents opened, which the
/// caller releases), until the find's deadline; and how many requests were sent.
pub(super) async fn definitions(
    find: &FindRun,
    texts: &mut Texts,
    occurrences: &[Occurrence],
    acquired: &mut Vec<String>,
) -> Result<(Vec<Definition>, usize), CommandError> {
    let deadline = Deadline::at(find.sweep_deadline.into_std());
    let mut results: Vec<Option<Definition>> = occurrences.iter().map(|_| None).collect();
    let mut requests = Vec::new();
    for (slot, occurrence) in occurrences.iter().enumerate() {
        if deadline.passed() {
            results[slot] = Some(Definition::Unknown("not sent: the deadline passed first".to_owned()));
            continue;
        }
        let (Some(uri), Some((text, _))) = (crate::uri::path_to_uri(&occurrence.path), texts.text(&occurrence.path))
        else {
            results[slot] = Some(Definition::Unknown("not sent: the file cannot be read".to_owned()));
            continue;
        };
        if !acquired.contains(&uri) {
            if let Err(error) = find.context.acquire_document(&uri, text.clone()).await {
                results[slot] = Some(Definition::Unknown(format!("not sent: the file cannot be opened ({error})")));
                continue;
            }
            acquired.push(uri.clone());
        }
        requests.push((
            slot,
            TextDocumentPositionParams::at(&uri, occurrence.range.start.line, occurrence.range.start.character),
        ));
    }
    let sent = side_by_side(find, requests, &mut results).await?;
    let results = results
        .into_iter()
        .map(|result| result.unwrap_or_else(|| Definition::Unknown("not sent: the deadline passed first".to_owned())))
        .collect();
    Ok((results, sent))
}

/// Sends the definition requests, at most [`DEFINITIONS_IN_FLIGHT`] at a time, each answer
/// into its slot; how many were sent.
async fn side_by_side(
    find: &FindRun,
    requests: Vec<(usize, TextDocumentPositionParams)>,
    results: &mut [Option<Definition>],
) -> Result<usize, CommandError> {
    let mut sent = 0;
    let deadline = find.sweep_deadline;
    let mut requests = requests.into_iter();
    // Dropping the set (an error, or the command cancelled) aborts what still runs.
    let mut running = tokio::task::JoinSet::new();
    loop {
        while running.len() < DEFINITIONS_IN_FLIGHT
            && let Some((slot, params)) = requests.next()
        {
            if tokio::time::Instant::now() >= deadline {
                results[slot] = Some(Definition::Unknown("not sent: the deadline passed first".to_owned()));
                continue;
            }
            let context = find.context.clone();
            sent += 1;
            running.spawn(async move {
                (slot, context.backend_request("textDocument/definition", &params, deadline).await)
            });
        }
        match running.join_next().await {
            None => return Ok(sent),
            Some(Ok((slot, answer))) => results[slot] = Some(definition_of(answer)?),
            Some(Err(error)) => {
                return Err(CommandError::Internal(format!("a definition request failed: {error}")));
            }
        }
    }
}

/// One definition answer judged.
fn definition_of(
    answer: Result<Result<Value, crate::lsp::message::ResponseError>, CommandError>,
) -> Result<Definition, CommandError> {
    Ok(match answer {
        Ok(Ok(value)) => {
            let location = if value.is_array() { &value[0] } else { &value };
            let uri = location["uri"].as_str().or(location["targetUri"].as_str());
            let range =
                range_from_json(&location["range"]).or_else(|| range_from_json(&location["targetSelectionRange"]));
            match (uri.and_then(crate::uri::uri_to_path), range) {
                (Some(path), Some(range)) => Definition::At(path, range),
                _ => Definition::Nothing,
            }
        }
        Ok(Err(error))
            if matches!(
                error.code,
                error_codes::REQUEST_CANCELLED | error_codes::CONTENT_MODIFIED | error_codes::SERVER_CANCELLED
            ) =>
        {
            Definition::Unknown(format!("FSAC did not answer its definition (busy: {})", error.message))
        }
        Ok(Err(error)) => Definition::Unknown(format!("FSAC's definition failed: {}", error.message)),
        Err(CommandError::Timeout) => {
            Definition::Unknown("FSAC did not answer its definition before the deadline".to_owned())
        }
        Err(CommandError::Unavailable(reason)) => Definition::Unknown(format!("FSAC is unavailable: {reason}")),
        Err(error) => return Err(error),
    })
}

/// The slot of the resolved declaration a definition is: in its file, at its name (the
/// definition's range holds the name's start, or the name's range holds the definition's).
pub(super) fn declaration_slot(find: &FindRun, resolved: &Resolved, path: &Path, range: TextRange) -> Option<usize> {
    let holds = |outer: &TextRange, position: Position| outer.start <= position && position <= outer.end;
    resolved.declared.iter().position(|declaration| {
        find.work.compared(1);
        find.work.same_file(&declaration.path, path)
            && (holds(&range, declaration.name_range.start) || holds(&declaration.name_range, range.start))
    })
}

/// The first `LISTED_AT_MOST` of `unresolved` as an answer lists them (0-based positions,
/// with why each was not settled).
pub(super) fn listed(
    unresolved: &[(Occurrence, String)],
    display: &dyn Fn(&Path) -> String,
) -> Vec<UnresolvedOccurrence> {
    unresolved
        .iter()
        .take(LISTED_AT_MOST)
        .map(|(occurrence, reason)| UnresolvedOccurrence {
            file: display(&occurrence.path),
            line: occurrence.range.start.line,
            character: occurrence.range.start.character,
            reason: reason.clone(),
        })
        .collect()
}

/// The first five of `unresolved` as `file:line:column` (1-based), and how many more: what a
/// note names of the occurrences it could not settle.
pub(super) fn first_places(unresolved: &[(Occurrence, String)], display: &dyn Fn(&Path) -> String) -> Vec<String> {
    let mut places: Vec<String> = unresolved
        .iter()
        .take(5)
        .map(|(occurrence, _)| {
            format!(
                "{}:{}:{}",
                display(&occurrence.path),
                occurrence.range.start.line + 1,
                occurrence.range.start.character + 1
            )
        })
        .collect();
    if unresolved.len() > 5 {
        places.push(format!("… {} more", unresolved.len() - 5));
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::message::ResponseError;

    fn judged(answer: Result<Result<Value, ResponseError>, CommandError>) -> String {
        match definition_of(answer) {
            Ok(Definition::At(path, range)) => format!("at {} {range:?}", path.display()),
            Ok(Definition::Nothing) => "nothing".to_owned(),
            Ok(Definition::Unknown(reason)) => format!("unknown: {reason}"),
            Err(error) => format!("error: {error}"),
        }
    }

    #[test]
    fn a_definition_is_a_place_nothing_or_unknown() {
        let range = json!({"start": {"line": 4, "character": 22}, "end": {"line": 4, "character": 26}});
        let location = json!({"uri": "file:///w/Worker.fs", "range": range});
        let link = json!([{"targetUri": "file:///w/Worker.fs", "targetSelectionRange": range}]);
        for answer in [location, link] {
            assert!(judged(Ok(Ok(answer.clone()))).starts_with("at /w/Worker.fs"), "{answer}");
        }
        assert_eq!(judged(Ok(Ok(Value::Null))), "nothing");
        assert_eq!(judged(Ok(Ok(json!([])))), "nothing");
        assert_eq!(
            judged(Err(CommandError::Timeout)),
            "unknown: FSAC did not answer its definition before the deadline"
        );
        let failed = ResponseError { code: -32603, message: "No check results".to_owned(), data: None };
        assert_eq!(judged(Ok(Err(failed))), "unknown: FSAC's definition failed: No check results");
        assert!(judged(Err(CommandError::Internal("x".to_owned()))).starts_with("error"));
    }
}
