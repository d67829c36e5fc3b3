//! The sweep: FSAC's `textDocument/references` for each resolved declaration (or at kind
//! position's anchor), under fslens's own request ids, within the sweep deadline. FSAC always
//! includes the declaration and searches every loaded project that can see the declaring file
//! (docs/fsac-protocol.md §6), so each answer covers those projects.
//!
//! Every declaring file is opened in FSAC first (FSAC checks a file when it is opened, so
//! several declarations in one file cost one check; it stays open for the rest of the sweep),
//! then the references requests run side by side, at most [`REFERENCES_IN_FLIGHT`] at a time.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::find::matching::{Declared, range_from_json};
use crate::commands::find::model::answer::ProjectStatus;
use crate::commands::find::model::arguments::FindKind;
use crate::commands::find::model::texts::Texts;
use crate::commands::find::model::work::{FileKey, Work};
use crate::commands::find::phases::declarations::{Anchor, Resolved};
use crate::commands::find::phases::find_run::FindRun;
use crate::lsp::message::error_codes;
use crate::lsp::types::{ReferenceContext, ReferenceParams, TextDocumentPositionParams};
use crate::syntax::model::{DeclarationKind, Position, TextRange};

/// How many `textDocument/references` requests of one sweep FSAC is given at once.
const REFERENCES_IN_FLIGHT: usize = 4;

/// The places one references answer lists.
pub type Locations = Vec<(PathBuf, TextRange)>;

/// One declaration's references: how the request ended and the locations FSAC gave.
pub(super) type SweptDeclaration = (SweepOutcome, Locations);

/// How one references request (one declaration) ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepOutcome {
    Analyzed,
    TimedOut,
    Failed(String),
    Busy(String),
    NotStarted,
}

impl SweepOutcome {
    /// Worse outcomes win when a project depends on several declarations.
    pub fn severity(&self) -> u8 {
        match self {
            SweepOutcome::Analyzed => 0,
            SweepOutcome::NotStarted => 1,
            SweepOutcome::Busy(_) => 2,
            SweepOutcome::TimedOut => 3,
            SweepOutcome::Failed(_) => 4,
        }
    }

    /// The project status this outcome gives.
    pub fn status(&self) -> ProjectStatus {
        match self {
            SweepOutcome::Analyzed => ProjectStatus::Analyzed,
            SweepOutcome::TimedOut => ProjectStatus::TimedOut,
            SweepOutcome::Failed(_) => ProjectStatus::Failed,
            SweepOutcome::Busy(_) => ProjectStatus::Busy,
            SweepOutcome::NotStarted => ProjectStatus::NotStarted,
        }
    }
}

/// What the sweep found.
#[derive(Default)]
pub struct Swept {
    /// Whether references were asked: FSAC is ready and the kind needs them.
    pub asked: bool,
    /// By name: one outcome per resolved declaration, in order.
    pub outcomes: Vec<SweepOutcome>,
    /// By name: one answer per resolved declaration, in order.
    pub answers: Vec<Locations>,
    /// kind position: how the request at the anchor (and at its partners) ended.
    pub anchor_outcome: Option<SweepOutcome>,
    pub anchor_answer: Locations,
    /// The documents fslens opened in FSAC for the sweep: release them once done with FSAC.
    pub acquired: HashSet<String>,
}

impl Swept {
    /// Every answer, the anchor's included.
    pub fn all_answers(&self) -> Vec<&[(PathBuf, TextRange)]> {
        let mut all: Vec<&[(PathBuf, TextRange)]> = self.answers.iter().map(Vec::as_slice).collect();
        all.push(&self.anchor_answer);
        all
    }

    /// Every place FSAC's answers hold, by file and range, once: a declaration is one lookup.
    pub fn answered_places(&self, work: &Work) -> HashSet<(FileKey, TextRange)> {
        self.all_answers().into_iter().flatten().map(|(path, range)| (work.file_key(path), *range)).collect()
    }

    /// How many declarations were asked about, and how many of them were analyzed.
    pub fn declarations_requested_and_swept(&self, resolved: &Resolved) -> (usize, usize) {
        if resolved.anchor.is_some() {
            (1, usize::from(self.anchor_outcome == Some(SweepOutcome::Analyzed)))
        } else {
            let analyzed = self.outcomes.iter().filter(|outcome| **outcome == SweepOutcome::Analyzed).count();
            (resolved.declared.len(), analyzed)
        }
    }

    /// Closes the documents the sweep opened in FSAC.
    pub fn release_documents(&self, context: &CommandContext) {
        for uri in &self.acquired {
            context.release_document(uri);
        }
    }
}

/// Asks FSAC for the references of every resolved declaration (or at the anchor).
pub async fn sweep(find: &FindRun, texts: &mut Texts, resolved: &Resolved) -> Result<Swept, CommandError> {
    let mut swept = Swept { asked: find.fsac.ready && find.kind_mode() != FindKind::Definition, ..Swept::default() };
    if !swept.asked {
        return Ok(swept);
    }
    if let Some(anchor) = &resolved.anchor {
        let partners = &resolved.declared[resolved.declared.len() - resolved.partner_count..];
        let (outcome, locations) = sweep_at_anchor(find, texts, anchor, partners, &mut swept.acquired).await?;
        swept.anchor_outcome = Some(outcome);
        swept.anchor_answer = locations;
    } else {
        let opened = open_declaring_files(find, texts, &resolved.declared, &mut swept.acquired).await;
        let asked_at_a_use = asked_at_a_use(&opened, &resolved.declared);
        for (slot, (outcome, locations)) in references_side_by_side(find, opened).await?.into_iter().enumerate() {
            // An answer at a use that holds no declaration of the case is another symbol's (the
            // occurrence chosen was a union case of the name): it says nothing of this one.
            let locations = if asked_at_a_use.contains(&slot)
                && !holds_a_declaration_of(&resolved.declared, slot, &locations, &find.work)
            {
                tracing::debug!(slot, "references at a use of an active-pattern case hold none of its declarations");
                Vec::new()
            } else if asked_at_a_use.contains(&slot) {
                locations
            } else {
                clips_as_cases(&resolved.declared, slot, locations, &find.work)
            };
            swept.outcomes.push(outcome);
            swept.answers.push(locations);
        }
    }
    Ok(swept)
}

/// kind position: the references at the anchor, and at the signature or implementation
/// paired with the resolved declaration, which count towards the same outcome.
async fn sweep_at_anchor(
    find: &FindRun,
    texts: &mut Texts,
    anchor: &Anchor,
    partners: &[Declared],
    acquired: &mut HashSet<String>,
) -> Result<SweptDeclaration, CommandError> {
    let deadline = find.sweep_deadline;
    let (mut outcome, mut locations) =
        references(&find.context, &anchor.uri, anchor.line, anchor.character, deadline).await?;
    for partner in partners.iter().rev() {
        let (Some(partner_uri), Some((text, _))) = (crate::uri::path_to_uri(&partner.path), texts.text(&partner.path))
        else {
            outcome = SweepOutcome::Failed("the paired declaration's file cannot be read".to_owned());
            continue;
        };
        if !acquired.contains(&partner_uri) && partner_uri != anchor.uri {
            find.context.acquire_document(&partner_uri, text.clone()).await?;
            acquired.insert(partner_uri.clone());
        }
        let start = partner.name_range.start;
        let (partner_outcome, partner_locations) =
            references(&find.context, &partner_uri, start.line, start.character, deadline).await?;
        if partner_outcome.severity() > outcome.severity() {
            outcome = partner_outcome;
        }
        locations.extend(partner_locations);
    }
    Ok((outcome, locations))
}

/// The declarations' files, opened in FSAC: a slot per declaration (already decided when the
/// file cannot be opened or the deadline passed) and the requests still to send.
struct Opened {
    swept: Vec<Option<SweptDeclaration>>,
    requests: VecDeque<(usize, String, Position)>,
}

/// Opens every declaring file in FSAC (once each) before any references request is sent.
async fn open_declaring_files(
    find: &FindRun,
    texts: &mut Texts,
    declared: &[Declared],
    acquired: &mut HashSet<String>,
) -> Opened {
    let mut opened = Opened { swept: vec![None; declared.len()], requests: VecDeque::new() };
    for (slot, declaration) in declared.iter().enumerate() {
        if tokio::time::Instant::now() >= find.sweep_deadline {
            opened.swept[slot] = Some((SweepOutcome::NotStarted, Vec::new()));
            continue;
        }
        let Some(uri) = crate::uri::path_to_uri(&declaration.path) else {
            opened.swept[slot] = Some((SweepOutcome::Failed("no URI for the declaring file".to_owned()), Vec::new()));
            continue;
        };
        let Some((text, _)) = texts.text(&declaration.path) else {
            let reason = "the declaring file cannot be read".to_owned();
            opened.swept[slot] = Some((SweepOutcome::Failed(reason), Vec::new()));
            continue;
        };
        if !acquired.contains(&uri) {
            if let Err(error) = find.context.acquire_document(&uri, text.clone()).await {
                opened.swept[slot] = Some((SweepOutcome::Failed(error.to_string()), Vec::new()));
                continue;
            }
            acquired.insert(uri.clone());
        }
        let from = declaration.name_range.end;
        let in_own_file = match declaration.kind {
            Some(DeclarationKind::ActivePatternCase) => {
                active_pattern_case_use(text, &declaration.path, declaration, from)
            }
            _ => None,
        };
        let asked = match (declaration.kind, in_own_file) {
            (_, Some(position)) => (uri, position),
            (Some(DeclarationKind::ActivePatternCase), None) => {
                match case_use_in_partner(find, texts, declared, slot, acquired).await {
                    Some(place) => place,
                    None => case_use_in_other_files(find, texts, declaration, acquired)
                        .await
                        .unwrap_or((uri, declaration.name_range.start)),
                }
            }
            _ => (uri, declaration.name_range.start),
        };
        opened.requests.push_back((slot, asked.0, asked.1));
    }
    opened
}

/// The slots whose references are asked at a use of the declaration's name, not at the
/// declaration (an active-pattern case: FSAC reads the banana clip as the whole pattern).
fn asked_at_a_use(opened: &Opened, declared: &[Declared]) -> HashSet<usize> {
    (opened.requests.iter())
        .filter(|(slot, uri, start)| {
            let declaration = &declared[*slot];
            *start != declaration.name_range.start
                || crate::uri::path_to_uri(&declaration.path).as_deref() != Some(uri.as_str())
        })
        .map(|(slot, _, _)| *slot)
        .collect()
}

/// Whether two declarations are one case as the compiler sees it: of one kind and one qualified
/// name (a signature's and its implementation's, or the same place twice).
fn same_case(declaration: &Declared, wanted: &Declared) -> bool {
    declaration.kind == wanted.kind && declaration.qualified_key() == wanted.qualified_key()
}

/// Whether `locations` (a references answer) hold a declaration of the case `declared[slot]`
/// names: its own, or one of the same qualified name (its signature or implementation).
fn holds_a_declaration_of(declared: &[Declared], slot: usize, locations: &Locations, work: &Work) -> bool {
    let wanted = &declared[slot];
    let places: HashSet<(FileKey, TextRange)> =
        locations.iter().map(|(path, range)| (work.file_key(path), *range)).collect();
    declared.iter().any(|declaration| {
        same_case(declaration, wanted) && places.contains(&(work.file_key(&declaration.path), declaration.name_range))
    })
}

/// An active-pattern case with no use anywhere is asked at its own banana clip, and FSAC
/// answers for the whole pattern: its declaration is the clip (`|BS|` of FSharpx.Collections'
/// `let (|BS|)(x: ByteString)`, a single-case pattern nothing matches on). A location that
/// holds the name of a declaration of the case asked about (its own, or its signature's or
/// implementation's), on that line, is that declaration's place; the others are kept as FSAC
/// gave them. Nothing changes for any other declaration.
fn clips_as_cases(declared: &[Declared], slot: usize, locations: Locations, work: &Work) -> Locations {
    let wanted = &declared[slot];
    if wanted.kind != Some(DeclarationKind::ActivePatternCase) {
        return locations;
    }
    let cases: Vec<&Declared> = (declared.iter()).filter(|declaration| same_case(declaration, wanted)).collect();
    (locations.into_iter())
        .map(|(path, range)| {
            let inside = cases.iter().find(|case| {
                let name = case.name_range;
                range.start.line == range.end.line
                    && name.start.line == range.start.line
                    && range.start <= name.start
                    && name.end <= range.end
                    && work.file_key(&case.path) == work.file_key(&path)
            });
            match inside {
                Some(case) => (path, case.name_range),
                None => (path, range),
            }
        })
        .collect()
}

/// A use of the case `declared[slot]` in the file of its partner (the implementation paired
/// with a signature's case, or the other way round: a declaration of the same qualified name in
/// another file), after the partner's declaration, opened in FSAC: the use the compiler links
/// to both, so the two share one request, rather than the first occurrence of the name in some
/// other file, which may be another symbol's (a union case `Nil` beside a pattern's `Nil`).
async fn case_use_in_partner(
    find: &FindRun,
    texts: &mut Texts,
    declared: &[Declared],
    slot: usize,
    acquired: &mut HashSet<String>,
) -> Option<(String, Position)> {
    let wanted = &declared[slot];
    let partner = declared
        .iter()
        .find(|declaration| same_case(declaration, wanted) && !find.work.same_file(&declaration.path, &wanted.path))?;
    let (text, _) = texts.text(&partner.path)?;
    let position = active_pattern_case_use(text, &partner.path, partner, partner.name_range.end)?;
    let uri = crate::uri::path_to_uri(&partner.path)?;
    if !acquired.contains(&uri) {
        find.context.acquire_document(&uri, text.clone()).await.ok()?;
        acquired.insert(uri.clone());
    }
    Some((uri, position))
}

/// A use of an active-pattern case in another file the find reads (the syntax index's
/// occurrences of its name there), opened in FSAC; `None` when there is none.
async fn case_use_in_other_files(
    find: &FindRun,
    texts: &mut Texts,
    declaration: &Declared,
    acquired: &mut HashSet<String>,
) -> Option<(String, Position)> {
    let name = declaration.full_name.rsplit('.').next()?;
    let hits = find.index.find_occurrences_in(name, find.files());
    let text_of = |path: &std::path::Path| texts.text(path).map(|(text, _)| text.clone());
    let (path, text, at) =
        crate::commands::find::matching::active_patterns::case_use_elsewhere(hits, &declaration.path, name, text_of)?;
    let uri = crate::uri::path_to_uri(&path)?;
    if !acquired.contains(&uri) {
        find.context.acquire_document(&uri, text).await.ok()?;
        acquired.insert(uri.clone());
    }
    Some((uri, Position { line: at.line, character: at.character }))
}

/// Where FSAC is asked for an active-pattern case's references: a use of the case from `start`
/// (after the declaration in its own file, the top of another), since FSAC reads the banana
/// clip at the declaration as the whole pattern ([`crate::commands::find::matching::active_patterns`]). The
/// answer must still hold the declaration, or the cross-check makes the find partial.
fn active_pattern_case_use(
    text: &str,
    path: &std::path::Path,
    declaration: &Declared,
    start: Position,
) -> Option<Position> {
    let name = declaration.full_name.rsplit('.').next()?;
    let from = crate::documents::Position { line: start.line, character: start.character };
    let found = crate::commands::find::matching::active_patterns::case_use_after(text, path, name, from)?;
    Some(Position { line: found.line, character: found.character })
}

/// Sends the references requests, at most [`REFERENCES_IN_FLIGHT`] at once; one result per
/// declaration, in order (`notStarted` for those the deadline left out). Declarations asked at
/// one place (a signature and its implementation's active-pattern case, both asked at the
/// same use) share one request and its answer.
async fn references_side_by_side(find: &FindRun, opened: Opened) -> Result<Vec<SweptDeclaration>, CommandError> {
    let Opened { mut swept, requests } = opened;
    let mut places: VecDeque<(String, Position)> = VecDeque::new();
    let mut slots_at: HashMap<(String, Position), Vec<usize>> = HashMap::new();
    for (slot, uri, start) in requests {
        let place = (uri, start);
        let slots = slots_at.entry(place.clone()).or_default();
        if slots.is_empty() {
            places.push_back(place);
        }
        slots.push(slot);
    }
    let deadline = find.sweep_deadline;
    // Dropping the set (an error, or the command cancelled) aborts what still runs.
    let mut running = tokio::task::JoinSet::new();
    loop {
        while running.len() < REFERENCES_IN_FLIGHT
            && let Some(place) = places.pop_front()
        {
            if tokio::time::Instant::now() >= deadline {
                for &slot in &slots_at[&place] {
                    swept[slot] = Some((SweepOutcome::NotStarted, Vec::new()));
                }
                continue;
            }
            let context = find.context.clone();
            running.spawn(async move {
                let (uri, start) = &place;
                let result = references(&context, uri, start.line, start.character, deadline).await;
                (place, result)
            });
        }
        match running.join_next().await {
            None => break,
            Some(Ok((place, result))) => {
                let result = result?;
                for &slot in &slots_at[&place] {
                    swept[slot] = Some(result.clone());
                }
            }
            Some(Err(error)) => {
                return Err(CommandError::Internal(format!("a references request failed: {error}")));
            }
        }
    }
    Ok(swept.into_iter().map(|result| result.unwrap_or((SweepOutcome::NotStarted, Vec::new()))).collect())
}

/// One references request at a position, its outcome and its locations (also asked by
/// [`super::unseen`] at an occurrence that resolves to another symbol).
pub(super) async fn references(
    context: &CommandContext,
    uri: &str,
    line: u32,
    character: u32,
    deadline: tokio::time::Instant,
) -> Result<SweptDeclaration, CommandError> {
    let params = ReferenceParams {
        position: TextDocumentPositionParams::at(uri, line, character),
        context: ReferenceContext { include_declaration: true },
    };
    match context.backend_request("textDocument/references", &params, deadline).await {
        Ok(Ok(answer)) => {
            let locations = answer
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|location| {
                    let path = crate::uri::uri_to_path(location["uri"].as_str()?)?;
                    Some((path, range_from_json(&location["range"])?))
                })
                .collect();
            Ok((SweepOutcome::Analyzed, locations))
        }
        // FSAC cancelled it itself (content modified, server busy): worth a retry.
        Ok(Err(error))
            if matches!(
                error.code,
                error_codes::REQUEST_CANCELLED | error_codes::CONTENT_MODIFIED | error_codes::SERVER_CANCELLED
            ) =>
        {
            Ok((SweepOutcome::Busy(error.message), Vec::new()))
        }
        Ok(Err(error)) => Ok((SweepOutcome::Failed(error.message), Vec::new())),
        Err(CommandError::Timeout) => Ok((SweepOutcome::TimedOut, Vec::new())),
        Err(CommandError::Unavailable(reason)) => Ok((SweepOutcome::Failed(reason), Vec::new())),
        Err(error) => Err(error),
    }
}
