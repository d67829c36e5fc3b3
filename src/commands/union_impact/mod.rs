//! `fslens.unionCaseImpact`: what adding, removing or changing one case of a union breaks,
//! before anything is touched. The union is located by find's typed API ([`find::all_sites`],
//! kind `definition` for a name, `position` for a place); the exact edit is computed from the
//! syntax tree of its declaration ([`declaration`]); the compiler's verdict on that edit comes
//! from check's what-if ([`check::check`] with typed `edits`), whose `delta.introduced` lists the
//! diagnostics the edit adds (FS0025 for every `match` that becomes incomplete, FS0039 for every
//! use of a removed case, FS0001/FS0019/FS0727 for a use that no longer fits the fields). Each
//! introduced diagnostic is mapped to its project and the function around it. For `remove`
//! and `change`, find lists the case's construction and pattern sites; for `add`, the matches
//! over the union that already have a catch-all arm (`_`) are listed as `wildcardMatches`:
//! they compile, but route the new case to that arm without a word from the compiler.
//!
//! Disk and the editor are never touched: the what-if shows FSAC the edited text at versions
//! fslens owns and restores FSAC's view before answering (see `check::what_if`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::deadline::Deadline;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::check::answer::{CheckAnswer, Severity, Verdict};
use crate::commands::check::edits::{ListChange, ListEdit, WhatIfEdits};
use crate::commands::check::{self, CheckArguments, CheckScope, SeverityFloor, Speed};
use crate::commands::find::answer::{Completeness, Via as FindVia};
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments, FindTimeoutMs, check_name};
use crate::commands::find::rows::{SiteKind, SiteRow, SiteVia};
use crate::commands::find::{self, AllSites};
use crate::commands::params::CommandArguments;
use crate::commands::paths::display_relative;
use crate::commands::paths::{ParsedFile, ParsedFiles};
use crate::commands::{CommandContext, CommandError};
use crate::documents::{LineIndex, Position, Range};
use crate::syntax::enclosing::{self, Enclosing, FoundTest};
use crate::syntax::union_declaration as declaration;
use crate::workspace::WorkspaceModel;
use declaration::{ByteEdit, PlannedChange, UnionDeclaration, UseKind};

/// At most this many impacts, sites and wildcard matches are listed each (the counts cover all).
pub const MAX_LISTED: usize = 200;

crate::commands::arguments::symbol_position_arguments! {
    cli: all();
    /// The arguments of `fslens.unionCaseImpact` and the flags of `fslens union-case-impact` (the
    /// union is positional).
    #[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct UnionCaseImpactArguments {
        /// The union by name: `Shape`, `Geometry.Shape` or fully qualified (a suffix of its full
        /// name). Give it, or `path` + `line` + `word` (or `character`) on the union's name, one of
        /// its cases, or a use of either.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub union: Option<String>,
        /// The union by position: a file, relative to the workspace root or absolute inside it.
        /// The symbol there may be the union's name, one of its cases, or a use of either.
        path?,
        /// The hypothetical change: `add` a case, `remove` one, or `change` one's fields.
        #[arg(long, value_enum)]
        pub change: CaseChange,
        /// The case added, removed or changed (for `add`, one the union does not have yet).
        #[arg(long)]
        pub case: String,
        /// `add` and `change`: the case's fields as written after `of` (`float * float`,
        /// `radius: float`); absent for a case with no fields.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub fields: Option<String>,
        /// `add`: the case after which the new one goes; default after the last case.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub after: Option<String>,
        /// One deadline for the finds and the what-if check, in milliseconds.
        #[serde(default)]
        #[arg(long, default_value_t)]
        pub timeout_ms: FindTimeoutMs,
    }
}

/// The change to the union.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum CaseChange {
    /// a new case (`case`, `fields`, `after`)
    Add,
    /// an existing case removed
    Remove,
    /// an existing case given new `fields`
    Change,
}

impl CommandArguments for UnionCaseImpactArguments {
    fn validate(&self) -> Result<(), CommandError> {
        for (name, value) in [("union", &self.union), ("word", &self.word), ("fields", &self.fields)] {
            if let Some(value) = value {
                check_name(name, value)?;
            }
        }
        match (&self.union, &self.path) {
            (Some(_), Some(_)) => {
                return Err(CommandError::invalid_argument(
                    "path",
                    "give the union by name or by path + line, not both",
                ));
            }
            (None, None) => {
                return Err(CommandError::invalid_argument(
                    "union",
                    "required: the union's name, or path + line + word (or character)",
                ));
            }
            (Some(_), None) => {
                if let Some(given) = self.first_position_member() {
                    return Err(CommandError::invalid_argument(given, "only a union given by path takes a position"));
                }
            }
            (None, Some(_)) => self.validate_position()?,
        }
        if !declaration::is_case_name(self.case.trim()) {
            return Err(CommandError::invalid_argument(
                "case",
                format!("{:?} is no union case name: an identifier starting with an upper-case letter", self.case),
            ));
        }
        if let Some(after) = &self.after {
            if self.change != CaseChange::Add {
                return Err(CommandError::invalid_argument("after", "only `add` places a case"));
            }
            if !declaration::is_case_name(after.trim()) {
                return Err(CommandError::invalid_argument("after", format!("{after:?} is no union case name")));
            }
        }
        match (self.change, &self.fields) {
            (CaseChange::Remove, Some(_)) => Err(CommandError::invalid_argument("fields", "`remove` takes no fields")),
            (_, Some(fields)) => declaration::fields_text(fields)
                .map(|_| ())
                .map_err(|refusal| CommandError::invalid_argument(refusal.argument, refusal.message)),
            _ => Ok(()),
        }
    }
}

impl UnionCaseImpactArguments {
    /// The change as the syntax layer takes it (arguments already validated).
    fn planned_change(&self) -> PlannedChange {
        let case = self.case.trim().to_owned();
        let fields = self.fields.as_deref().and_then(|fields| declaration::fields_text(fields).ok());
        match self.change {
            CaseChange::Add => {
                PlannedChange::Add { case, fields, after: self.after.as_deref().map(str::trim).map(str::to_owned) }
            }
            CaseChange::Remove => PlannedChange::Remove { case },
            CaseChange::Change => PlannedChange::Change { case, fields },
        }
    }
}

/// What an introduced diagnostic means for the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ImpactKind {
    /// FS0025: a `match` or `function` no longer covers every case; it needs an arm.
    IncompleteMatch,
    /// FS0039: a use of a case that no longer exists.
    UnknownCase,
    /// Anything else the edit introduced (FS0001, FS0019, FS0727: a use that no longer fits
    /// the case's fields; or a diagnostic of another kind).
    Other,
}

impl ImpactKind {
    fn of_code(code: Option<u32>) -> ImpactKind {
        match code {
            Some(25) => ImpactKind::IncompleteMatch,
            Some(39) => ImpactKind::UnknownCase,
            _ => ImpactKind::Other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ImpactKind::IncompleteMatch => "incompleteMatch",
            ImpactKind::UnknownCase => "unknownCase",
            ImpactKind::Other => "other",
        }
    }
}

/// One diagnostic the hypothetical edit introduces, at its site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Impact {
    pub kind: ImpactKind,
    /// The compiler's code, `FS0025`.
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// Workspace-relative path.
    pub file: String,
    /// 0-based line and UTF-16 character in the file as it is now (before the edit; for the
    /// union's own file, mapped back through the edit).
    pub line: u32,
    pub character: u32,
    /// The projects compiling the file.
    pub projects: Vec<String>,
    /// The outermost function or member around the site, from the syntax tree; absent at
    /// module level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// A use of the removed or changed case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseSite {
    pub kind: UseKind,
    pub file: String,
    pub line: u32,
    pub character: u32,
    pub projects: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Who found the site: `fsac` (the compiler resolved it) or `syntax` (by name only).
    pub via: SiteVia,
    /// The line as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text: Option<String>,
}

/// A `match` over the union with a catch-all arm: it compiles with the new case, which it
/// silently routes to that arm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WildcardMatch {
    pub file: String,
    /// 0-based line of the `match` (or `function`) keyword.
    pub line: u32,
    /// 0-based line of the catch-all arm's pattern.
    pub catch_all_line: u32,
    pub projects: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The cases whose patterns led here.
    pub cases_matched: Vec<String>,
}

/// The edit the answer assumed, to apply later as it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HypotheticalEdit {
    pub file: String,
    /// 0-based lines, UTF-16 characters, end exclusive (LSP's).
    pub range: Range,
    pub new_text: String,
}

/// Where each part of the answer came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sources {
    /// The union's declaration: find (`fsac` or `syntax`).
    pub union: FindVia,
    /// The edit: `syntax` (the tree of the declaration).
    pub edit: Source,
    /// `impacts`: `fsacWhatIf` (check's what-if: FSAC type-checks the edited text).
    pub impacts: Source,
    /// `sites` and `wildcardMatches`: `findAndSyntax` (find's sites, `fsac`/`syntax` per row,
    /// told apart by the syntax tree).
    pub sites: Source,
}

/// Where a part of the answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// The tree-sitter F# syntax tree.
    Syntax,
    /// check's what-if: FSAC's diagnostics of the edited text, less the baseline's.
    FsacWhatIf,
    /// find's sites, each told apart (construction, pattern, match) by the syntax tree.
    FindAndSyntax,
}

/// How much the answer covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImpactCoverage {
    /// The projects that compile the union's file or reference one that does, transitively.
    pub projects_that_see_the_union: Vec<String>,
    /// Those the what-if analysed completely.
    pub projects_checked: Vec<String>,
    /// The what-if's verdict with the edit, and without it.
    pub verdict: Verdict,
    pub baseline_verdict: Option<Verdict>,
    /// Both passes complete and neither list of diagnostics cut (check's `delta.complete`).
    pub delta_complete: bool,
    /// find's completeness over the sites (`null` when no find of sites ran).
    pub find: Option<Completeness>,
    /// Always false: nothing is written.
    pub disk_written: bool,
    /// FSAC's view restored after the what-if.
    pub restored: Option<bool>,
}

/// The answer of `fslens.unionCaseImpact`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnionCaseImpactAnswer {
    /// The union's full name.
    pub union: String,
    /// Where it is declared: workspace-relative file and 0-based line of its name.
    pub declared_in: String,
    pub declared_line: u32,
    /// Its cases before the change.
    pub cases: Vec<String>,
    pub change: CaseChange,
    pub case: String,
    pub edit: HypotheticalEdit,
    /// Every diagnostic the edit introduces (beyond the baseline), at its site.
    pub impacts: Vec<Impact>,
    pub impact_count: usize,
    /// `remove`/`change`: every use of the case, construction or pattern.
    pub sites: Vec<CaseSite>,
    pub site_count: usize,
    /// `add`: the matches over the union whose catch-all arm takes the new case silently.
    pub wildcard_matches: Vec<WildcardMatch>,
    pub wildcard_match_count: usize,
    /// True only when the what-if covered every project that sees the union, its delta is
    /// complete and every find was complete.
    pub complete: bool,
    pub coverage: ImpactCoverage,
    pub via: Sources,
    /// What the answer does not rule out.
    pub limits: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub elapsed_ms: u64,
}

const LIMITS: [&str; 3] = [
    "A catch-all arm (`_`, or a lower-case name) makes a match compile whatever cases the union has: such matches \
     appear in wildcardMatches (for add), never in impacts.",
    "Code the loaded configuration does not compile (an inactive #if branch, another target framework) is not \
     checked.",
    "Reflection, serialization formats and code outside the workspace that match on the union's cases are not seen.",
];

/// `fslens.unionCaseImpact`.
pub async fn union_case_impact(
    arguments: UnionCaseImpactArguments,
    context: CommandContext,
) -> Result<UnionCaseImpactAnswer, CommandError> {
    let started = Instant::now();
    let deadline = Deadline::after(started, arguments.timeout_ms.as_duration_ms());
    let root = context.workspace_root()?.to_path_buf();
    let model = crate::commands::load_workspace_model(&root).await?;
    let overlay = context.editor_buffers().await?;
    let mut files = Files { root: &root, model: &model, parsed: ParsedFiles::new(overlay) };
    let mut notes = Vec::new();

    // The union: find's declaration, read from the syntax tree.
    let located = locate_union(&arguments, &context, &mut files, deadline).await?;
    let Located { path, union, full_name, via: union_via } = located;
    let text = files.text(&path)?;
    let change = arguments.planned_change();
    let edit = declaration::edit_for(&union, &text, &change)
        .map_err(|refusal| CommandError::invalid_argument(refusal.argument, refusal.message))?;
    let file = display_relative(&root, &path);
    let lines = LineIndex::new(&text);
    let range = Range { start: lines.position(&text, edit.start), end: lines.position(&text, edit.end) };
    let hypothetical = HypotheticalEdit { file: file.clone(), range, new_text: edit.new_text.clone() };

    // The uses of the case (remove, change) or the matches a new case slips through (add), looked
    // up in the code as it is, before the what-if.
    let find_completeness: Option<Completeness>;
    let mut sites = Vec::new();
    let mut wildcard_matches = Vec::new();
    match &change {
        PlannedChange::Remove { case } | PlannedChange::Change { case, .. } => {
            let found = find_case(&full_name, case, &context, deadline).await?;
            find_completeness = Some(found.completeness);
            notes.extend(found.notes.iter().cloned());
            sites = case_sites(&found, &mut files);
        }
        PlannedChange::Add { .. } => {
            let (completeness, matches) =
                wildcard_matches_of(&union, &full_name, &context, &mut files, deadline, &mut notes).await?;
            find_completeness = Some(completeness);
            wildcard_matches = matches;
        }
    }

    // The compiler's verdict on the edit.
    let verdict = what_if_of(&file, range, &edit.new_text, deadline, &context).await?;
    let edited_text = format!("{}{}{}", &text[..edit.start], edit.new_text, &text[edit.end..]);
    let impacts = impacts_of(&verdict, &path, &edit, &edited_text, &mut files);

    let (coverage, complete) = coverage_of(&model, &path, &root, &verdict, find_completeness, &mut notes);
    let (impact_count, site_count, wildcard_match_count) = (impacts.len(), sites.len(), wildcard_matches.len());
    let mut impacts = impacts;
    for (list, count, name) in [
        (impacts.len() > MAX_LISTED, impact_count, "impacts"),
        (sites.len() > MAX_LISTED, site_count, "sites"),
        (wildcard_matches.len() > MAX_LISTED, wildcard_match_count, "wildcardMatches"),
    ] {
        if list {
            notes.push(format!("{name} lists the first {MAX_LISTED} of {count}"));
        }
    }
    impacts.truncate(MAX_LISTED);
    sites.truncate(MAX_LISTED);
    wildcard_matches.truncate(MAX_LISTED);
    let declared = lines.position(&text, union.name_start);
    Ok(UnionCaseImpactAnswer {
        union: full_name,
        declared_in: file,
        declared_line: declared.line,
        cases: union.cases.iter().map(|case| case.name.clone()).collect(),
        change: arguments.change,
        case: arguments.case.trim().to_owned(),
        edit: hypothetical,
        impacts,
        impact_count,
        sites,
        site_count,
        wildcard_matches,
        wildcard_match_count,
        complete,
        coverage,
        via: Sources {
            union: union_via,
            edit: Source::Syntax,
            impacts: Source::FsacWhatIf,
            sites: Source::FindAndSyntax,
        },
        limits: LIMITS.iter().map(|limit| (*limit).to_owned()).collect(),
        notes,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}

/// add: the matches a new case would slip through (the catch-all arms among the patterns of
/// the union's cases), each with the cases it matches; and how complete find's lookups were.
async fn wildcard_matches_of(
    union: &UnionDeclaration,
    full_name: &str,
    context: &CommandContext,
    files: &mut Files<'_>,
    deadline: Deadline,
    notes: &mut Vec<String>,
) -> Result<(Completeness, Vec<WildcardMatch>), CommandError> {
    let mut matches: BTreeMap<(String, usize), (WildcardMatch, BTreeSet<String>)> = BTreeMap::new();
    let mut completeness = Completeness::Complete;
    for case in &union.cases {
        if deadline.passed() {
            completeness = Completeness::Partial;
            notes.push(format!("the deadline passed before the patterns of {} were looked up", case.name));
            continue;
        }
        let found = find_case(full_name, &case.name, context, deadline).await?;
        if found.completeness != Completeness::Complete {
            completeness = found.completeness;
        }
        for site in found.rows.iter().filter(|site| !site.kind.is_declaration()) {
            if let Some((key, found_match)) = files.wildcard_match(site) {
                let entry = matches.entry(key).or_insert((found_match, BTreeSet::new()));
                entry.1.insert(case.name.clone());
            }
        }
    }
    let wildcard_matches = matches
        .into_values()
        .map(|(mut found, cases)| {
            found.cases_matched = cases.into_iter().collect();
            found
        })
        .collect();
    Ok((completeness, wildcard_matches))
}

/// The compiler's verdict on the edit: a what-if check of the workspace with the edit applied.
async fn what_if_of(
    file: &str,
    range: Range,
    new_text: &str,
    deadline: Deadline,
    context: &CommandContext,
) -> Result<CheckAnswer, CommandError> {
    let what_if = CheckArguments {
        scope: CheckScope::Workspace,
        speed: Speed::Trusted,
        severity: SeverityFloor::Warning,
        timeout_ms: crate::commands::params::TimeoutMs::clamped(deadline.remaining_ms()),
        edits: Some(WhatIfEdits::List(vec![ListEdit {
            path: file.to_owned(),
            change: ListChange::Range { range, new_text: new_text.to_owned() },
        }])),
        ..CheckArguments::default()
    };
    check::check(what_if, context.clone()).await
}

/// Coverage: every project that sees the union analysed, the delta whole, every find whole;
/// and whether all of it holds (what does not is said in `notes`).
fn coverage_of(
    model: &WorkspaceModel,
    path: &Path,
    root: &Path,
    verdict: &CheckAnswer,
    find_completeness: Option<Completeness>,
    notes: &mut Vec<String>,
) -> (ImpactCoverage, bool) {
    let seeing = projects_seeing(model, path, root);
    let checked_projects: Vec<String> = verdict
        .findings
        .per_project
        .iter()
        .flatten()
        .filter(|row| row.complete)
        .map(|row| row.project.clone())
        .collect();
    let delta_complete = verdict.delta.as_ref().is_some_and(|delta| delta.complete);
    let all_seen = seeing.iter().all(|project| checked_projects.contains(project));
    if !all_seen {
        let missing: Vec<&str> =
            seeing.iter().filter(|project| !checked_projects.contains(project)).map(String::as_str).collect();
        notes.push(format!("the what-if did not analyse every file of: {}", missing.join(", ")));
    }
    if let Some(reason) = &verdict.findings.blocking_reason {
        notes.push(format!("the what-if has no verdict: {}", reason.message));
    }
    if !delta_complete {
        notes.push(
            "the what-if's delta is not complete (a pass was incomplete or listed more than 50 diagnostics), so \
             impacts may miss some"
                .to_owned(),
        );
    }
    let complete = verdict.findings.verdict != Verdict::Unknown
        && verdict.findings.complete
        && delta_complete
        && all_seen
        && find_completeness.is_none_or(|completeness| completeness == Completeness::Complete);
    let coverage = ImpactCoverage {
        projects_that_see_the_union: seeing,
        projects_checked: checked_projects,
        verdict: verdict.findings.verdict,
        baseline_verdict: verdict.baseline.as_ref().map(|baseline| baseline.verdict),
        delta_complete,
        find: find_completeness,
        disk_written: verdict.coverage.what_if.as_ref().is_some_and(|summary| summary.disk_written),
        restored: verdict.coverage.what_if.as_ref().and_then(|summary| summary.restored),
    };
    (coverage, complete)
}

/// The union found: its file, its declaration, its full name and who resolved it.
struct Located {
    path: PathBuf,
    union: UnionDeclaration,
    full_name: String,
    via: FindVia,
}

/// Finds the union's declaration (by name: find kind `definition`; by position: the symbol
/// there) and reads it from the syntax tree; refuses a name that names no union or several.
async fn locate_union(
    arguments: &UnionCaseImpactArguments,
    context: &CommandContext,
    files: &mut Files<'_>,
    deadline: Deadline,
) -> Result<Located, CommandError> {
    let own = match &arguments.union {
        Some(union) => {
            FindOwnArguments { query: Some(union.trim().to_owned()), kind: FindKind::Definition, ..Default::default() }
        }
        None => FindOwnArguments { kind: FindKind::Position, ..Default::default() },
    };
    let mut find_arguments = FindArguments::new(own);
    find_arguments.path = arguments.path.clone();
    find_arguments.line = arguments.line;
    find_arguments.character = arguments.character;
    find_arguments.word = arguments.word.clone();
    find_arguments.occurrence = arguments.occurrence;
    find_arguments.timeout_ms = FindTimeoutMs::clamped(deadline.remaining_ms());
    let found = find::all_sites(find_arguments, context.clone()).await?;
    let mut unions: Vec<Located> = Vec::new();
    for site in found.rows.iter().filter(|site| site.kind == SiteKind::Definition) {
        let path = files.root.join(&site.file);
        let Some((text, Ok(tree))) = files.parsed(&path) else { continue };
        let offset = LineIndex::new(text)
            .offset(text, Position { line: site.range.start.line, character: site.range.start.character });
        let Some(union) = declaration::union_at(tree, text, offset) else { continue };
        if unions.iter().any(|known| known.path == path && known.union.name_start == union.name_start) {
            continue;
        }
        // The full name of the union: the definition row's symbol, less a case's name.
        let symbol = site.symbol_full_name.clone().unwrap_or_else(|| union.name.clone());
        let full_name = if symbol.ends_with(&format!(".{}", union.name)) || symbol == union.name {
            symbol
        } else {
            symbol.rsplit_once('.').map_or(union.name.clone(), |(owner, _)| owner.to_owned())
        };
        unions.push(Located { path, union, full_name, via: found.via });
    }
    let asked = arguments.union.as_deref().map(str::trim);
    let argument = if asked.is_some() { "union" } else { "path" };
    match unions.len() {
        1 => Ok(unions.remove(0)),
        0 => Err(CommandError::invalid_argument(
            argument,
            match asked {
                Some(name) => format!(
                    "no union named {name:?} in the workspace (find: {} declaration(s) by that name, {})",
                    found.declarations,
                    found.completeness.as_str()
                ),
                None => "the symbol there is no union, no case of one and no use of either".to_owned(),
            },
        )),
        _ => Err(CommandError::invalid_argument(
            argument,
            format!(
                "{} unions match: {}; qualify the name",
                unions.len(),
                unions.iter().map(|union| union.full_name.as_str()).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// Every site of one case of the union (find kind `symbol`, by its qualified name).
async fn find_case(
    union: &str,
    case: &str,
    context: &CommandContext,
    deadline: Deadline,
) -> Result<AllSites, CommandError> {
    let own = FindOwnArguments { query: Some(format!("{union}.{case}")), kind: FindKind::Symbol, ..Default::default() };
    let mut arguments = FindArguments::new(own);
    arguments.timeout_ms = FindTimeoutMs::clamped(deadline.remaining_ms());
    find::all_sites(arguments, context.clone()).await
}

/// The projects that compile `path` or reference one that does, transitively.
fn projects_seeing(model: &WorkspaceModel, path: &Path, root: &Path) -> Vec<String> {
    let mut seeing: BTreeSet<PathBuf> =
        model.projects_compiling(path).into_iter().map(|project| project.path.clone()).collect();
    loop {
        let before = seeing.len();
        for project in &model.projects {
            if project.project_references.iter().any(|reference| seeing.contains(reference)) {
                seeing.insert(project.path.clone());
            }
        }
        if seeing.len() == before {
            break;
        }
    }
    seeing.iter().map(|project| display_relative(root, project)).collect()
}

/// The diagnostics the what-if introduced, each at its site in the text as it is now.
fn impacts_of(
    verdict: &CheckAnswer,
    edited_path: &Path,
    edit: &ByteEdit,
    edited_text: &str,
    files: &mut Files<'_>,
) -> Vec<Impact> {
    let Some(delta) = &verdict.delta else { return Vec::new() };
    let mut impacts = Vec::new();
    for introduced in &delta.introduced {
        let Some(start) = introduced.start() else { continue };
        let path = files.root.join(&introduced.file);
        let code = code_number(&introduced.code);
        let (line, character, function) = if path == edited_path {
            // Where the site is in the edited text, and where it is in the text as it is now.
            let edited_lines = LineIndex::new(edited_text);
            let offset = edited_lines.offset(edited_text, start);
            let function = enclosing::enclosing(&mut files.parsed.parsers, edited_text, start.line, start.character);
            let before = map_back(offset, edit);
            let text = files.text(&path).unwrap_or_default();
            let position = LineIndex::new(&text).position(&text, before);
            (position.line, position.character, function_name(&function))
        } else {
            let function = files.enclosing(&path, start.line, start.character);
            (start.line, start.character, function)
        };
        impacts.push(Impact {
            kind: ImpactKind::of_code(code),
            code: code.map_or_else(|| introduced.code.to_string(), |code| format!("FS{code:04}")),
            severity: introduced.severity,
            message: introduced.message.as_str().map_or_else(|| introduced.message.to_string(), str::to_owned),
            file: introduced.file.clone(),
            line,
            character,
            projects: files.projects_of(&path),
            function,
        });
    }
    impacts
}

/// A diagnostic's code as a number: FSAC sends `25` or `"FS0025"`.
fn code_number(code: &serde_json::Value) -> Option<u32> {
    match code {
        serde_json::Value::Number(number) => number.as_u64().and_then(|number| u32::try_from(number).ok()),
        serde_json::Value::String(text) => text.trim_start_matches("FS").parse().ok(),
        _ => None,
    }
}

/// An offset of the edited text mapped to the text before the edit (inside the inserted
/// text: the edit's start).
fn map_back(offset: usize, edit: &ByteEdit) -> usize {
    let inserted_end = edit.start + edit.new_text.len();
    if offset < edit.start {
        offset
    } else if offset < inserted_end {
        edit.start
    } else {
        offset - inserted_end + edit.end
    }
}

fn function_name(enclosing: &Enclosing) -> Option<String> {
    match enclosing {
        Enclosing::Function(function) => Some(function.name.clone()),
        Enclosing::Test(FoundTest::Attributed { name, .. } | FoundTest::Expecto { name, .. }) => Some(name.clone()),
        Enclosing::Nothing | Enclosing::Unparsed(_) => None,
    }
}

/// The sites of the case, told apart by the syntax tree.
fn case_sites(found: &AllSites, files: &mut Files<'_>) -> Vec<CaseSite> {
    let mut sites = Vec::new();
    for site in found.rows.iter().filter(|site| !site.kind.is_declaration()) {
        let path = files.root.join(&site.file);
        let (line, character) = (site.range.start.line, site.range.start.character);
        let kind = match files.parsed(&path) {
            Some((text, Ok(tree))) => {
                let offset = LineIndex::new(text).offset(text, Position { line, character });
                declaration::use_kind(tree, offset)
            }
            _ => UseKind::Other,
        };
        sites.push(CaseSite {
            kind,
            file: site.file.clone(),
            line,
            character,
            projects: files.projects_of(&path),
            function: files.enclosing(&path, line, character),
            via: site.via,
            line_text: site.line_text.clone(),
        });
    }
    sites
}

/// The workspace's files as the command reads them: the editor's buffer when open, else disk,
/// each parsed once.
struct Files<'a> {
    root: &'a Path,
    model: &'a WorkspaceModel,
    parsed: ParsedFiles,
}

impl Files<'_> {
    fn parsed(&mut self, path: &Path) -> Option<&ParsedFile> {
        self.parsed.parsed(path)
    }

    fn text(&mut self, path: &Path) -> Result<String, CommandError> {
        match self.parsed(path) {
            Some((text, _)) => Ok(text.clone()),
            None => crate::commands::paths::current_text(&self.parsed.overlay, path),
        }
    }

    fn enclosing(&mut self, path: &Path, line: u32, character: u32) -> Option<String> {
        let (text, tree) = self.parsed(path)?;
        let tree = tree.as_ref().ok()?;
        function_name(&enclosing::enclosing_in(tree, text, line, character))
    }

    fn projects_of(&self, path: &Path) -> Vec<String> {
        self.model.projects_compiling(path).iter().map(|project| display_relative(self.root, &project.path)).collect()
    }

    /// The match around a pattern site when it has a catch-all arm, keyed by file and offset.
    fn wildcard_match(&mut self, site: &SiteRow) -> Option<((String, usize), WildcardMatch)> {
        let path = self.root.join(&site.file);
        let (line, character) = (site.range.start.line, site.range.start.character);
        let (text, tree) = self.parsed(&path)?;
        let tree = tree.as_ref().ok()?;
        let lines = LineIndex::new(text);
        let offset = lines.offset(text, Position { line, character });
        let found = declaration::enclosing_match(tree, text, offset)?;
        let catch_all = found.catch_all_arm?;
        let at = lines.position(text, found.start);
        let catch_all_line = lines.position(text, catch_all).line;
        let function = self.enclosing(&path, at.line, at.character);
        Some((
            (site.file.clone(), found.start),
            WildcardMatch {
                file: site.file.clone(),
                line: at.line,
                catch_all_line,
                projects: self.projects_of(&path),
                function,
                cases_matched: Vec::new(),
            },
        ))
    }
}

/// Definite for a complete answer, not definite when something was not covered.
impl crate::commands::outcome::Answered for UnionCaseImpactAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        crate::commands::outcome::definite_if(self.complete)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::commands::params::parse_arguments;

    fn blamed(argument: Value) -> String {
        let error = parse_arguments::<UnionCaseImpactArguments>(argument.clone()).expect_err("must be refused");
        assert_eq!(error.kind(), "invalid_argument", "{argument}: {error}");
        error.data()["argument"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn each_bad_argument_is_named() {
        let add = |extra: Value| {
            let mut argument = json!({"union": "Shape", "change": "add", "case": "Triangle"});
            argument.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            argument
        };
        assert!(parse_arguments::<UnionCaseImpactArguments>(add(json!({"fields": "float * float"}))).is_ok());
        assert_eq!(blamed(json!({"change": "add", "case": "Triangle"})), "union");
        assert_eq!(blamed(json!({"union": "Shape", "case": "Triangle"})), "change");
        assert_eq!(blamed(json!({"union": "Shape", "change": "grow", "case": "Triangle"})), "change");
        assert_eq!(blamed(json!({"union": "Shape", "change": "add"})), "case");
        assert_eq!(blamed(add(json!({"case": "triangle"}))), "case");
        assert_eq!(blamed(add(json!({"case": "Tri angle"}))), "case");
        assert_eq!(blamed(add(json!({"fields": "int | B"}))), "fields");
        assert_eq!(blamed(add(json!({"fields": ""}))), "fields");
        assert_eq!(blamed(add(json!({"after": "lower"}))), "after");
        assert_eq!(blamed(json!({"union": "Shape", "change": "remove", "case": "Square", "fields": "int"})), "fields");
        assert_eq!(blamed(json!({"union": "Shape", "change": "remove", "case": "Square", "after": "Circle"})), "after");
        assert_eq!(blamed(add(json!({"path": "A.fs"}))), "path");
        assert_eq!(blamed(add(json!({"line": 3}))), "line");
        assert_eq!(blamed(json!({"path": "A.fs", "word": "Shape", "change": "add", "case": "T"})), "line");
        assert_eq!(blamed(json!({"path": "A.fs", "line": 2, "change": "add", "case": "T"})), "character");
        assert_eq!(blamed(add(json!({"unionName": "Shape"}))), "unionName");
    }

    #[test]
    fn the_schema_names_every_argument_with_a_description() {
        let schema = crate::commands::params::input_schema::<UnionCaseImpactArguments>();
        assert_eq!(schema["properties"]["change"]["enum"], json!(["add", "remove", "change"]), "{schema}");
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["change", "case"]);
        for (name, property) in schema["properties"].as_object().unwrap() {
            assert!(property["description"].as_str().is_some_and(|text| !text.is_empty()), "{name}");
        }
    }

    #[test]
    fn codes_kinds_and_offsets() {
        assert_eq!(code_number(&json!(25)), Some(25));
        assert_eq!(code_number(&json!("FS0039")), Some(39));
        assert_eq!(ImpactKind::of_code(Some(25)), ImpactKind::IncompleteMatch);
        assert_eq!(ImpactKind::of_code(Some(39)), ImpactKind::UnknownCase);
        assert_eq!(ImpactKind::of_code(Some(1)), ImpactKind::Other);
        let insert = ByteEdit { start: 10, end: 10, new_text: "abc".to_owned() };
        assert_eq!((map_back(5, &insert), map_back(11, &insert), map_back(20, &insert)), (5, 10, 17));
        let remove = ByteEdit { start: 10, end: 20, new_text: String::new() };
        assert_eq!((map_back(9, &remove), map_back(10, &remove), map_back(12, &remove)), (9, 20, 22));
    }
}
