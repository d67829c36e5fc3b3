//! The answer of `fslens.check`, as structs: what the check covered ([`Coverage`]), what it
//! found ([`Findings`]) and, for a what-if, the baseline and the delta. docs/commands.md
//! describes each member.

use std::time::Instant;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::Scope;
use super::arguments::{SeverityFloor, SnippetPosition, Speed};
use crate::commands::blocking::BlockingReason;
pub use crate::commands::configurations::ProjectConfiguration;

/// A check's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckAnswer {
    #[serde(flatten)]
    pub coverage: Coverage,
    #[serde(flatten)]
    pub findings: Findings,
    /// What-if: the same scope before the edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineSummary>,
    /// What-if: which diagnostics the edits introduced, resolved or left alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<Delta>,
    /// Which source a `clean` or `errors` verdict rests on (absent when `unknown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_source: Option<VerdictSource>,
    /// Says, for an `errors` verdict resting on FSAC alone, what that means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_note: Option<String>,
    /// `confirm: "build"`: what the build said and how it reconciles with FSAC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<super::confirm::Confirmation>,
    pub elapsed_ms: u64,
}

/// What a verdict rests on: FSAC's per-file check (the compiler service checking each file
/// in its project's context, which can disagree with the build), or the build itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VerdictSource {
    #[serde(rename = "fsac-per-file-check")]
    FsacPerFileCheck,
    #[serde(rename = "build")]
    Build,
}

/// What the check covers, known before anything is analysed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub scope: Scope,
    pub speed: Speed,
    pub severity: SeverityFloor,
    pub via: Via,
    pub expected_files: Vec<String>,
    /// Project scope: the projects that reference it were not analysed.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub project_scope: Option<ProjectScopeNote>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIfSummary>,
    /// What fslens's own reading of the projects in scope says cannot build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_errors: Option<Vec<BlockingReason>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_generation: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet_position: Option<SnippetPosition>,
    /// Snippet scope: the project the snippet was placed in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The configuration FSAC loaded each project in scope in (as FSAC said when it loaded it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configurations: Option<Vec<ProjectConfiguration>>,
    /// Says what the loaded configurations leave unchecked, when they leave anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration_note: Option<String>,
}

/// Where a check's diagnostics come from: FSAC's analysis of each file (with `confirm:
/// "build"`, the build's errors are reconciled with them in `confirmation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Via {
    Fsac,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectScopeNote {
    pub downstream_projects_checked: bool,
    pub recommended_scope: String,
    pub coverage_note: String,
}

impl Default for ProjectScopeNote {
    fn default() -> Self {
        ProjectScopeNote {
            downstream_projects_checked: false,
            recommended_scope: "workspace".to_owned(),
            coverage_note: "scope=project checks one project; projects that reference it were not analysed. \
                            Use scope=workspace for a verdict that includes them."
                .to_owned(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Clean,
    Errors,
    Unknown,
}

impl Verdict {
    /// As on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Errors => "errors",
            Verdict::Unknown => "unknown",
        }
    }
}

/// Where a diagnostic's range starts, when it reads as an LSP range (FSAC's ranges always do).
pub fn range_start(range: &Value) -> Option<crate::documents::Position> {
    crate::documents::Range::deserialize(range).ok().map(|range| range.start)
}

/// What the check found.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Findings {
    pub verdict: Verdict,
    pub complete: bool,
    #[serde(flatten)]
    pub counts: Counts,
    pub below_severity_floor_count: usize,
    pub diagnostics: Vec<ReportedDiagnostic>,
    pub diagnostics_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics_note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_files: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_files: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_project: Option<Vec<ProjectRow>>,
    /// When unknown: `blockingReason.message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When unknown: `{errorKind, message, …}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<BlockingReason>,
}

impl Findings {
    /// No verdict: nothing was found because nothing could be proven; `reason` says why.
    pub fn unknown(reason: BlockingReason) -> Self {
        Findings {
            verdict: Verdict::Unknown,
            complete: false,
            counts: Counts::default(),
            below_severity_floor_count: 0,
            diagnostics: Vec::new(),
            diagnostics_truncated: false,
            diagnostics_note: None,
            files: None,
            missing_files: None,
            stale_files: None,
            per_project: None,
            reason: Some(reason.message.clone()),
            blocking_reason: Some(reason),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub error_count: usize,
    pub warning_count: usize,
    /// Information, hint and hidden.
    pub info_count: usize,
    pub total_diagnostics: usize,
}

impl Counts {
    pub fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.error_count += 1,
            Severity::Warning => self.warning_count += 1,
            Severity::Information | Severity::Hint => self.info_count += 1,
        }
        self.total_diagnostics += 1;
    }
}

/// The diagnostics listed (filtered by the floor, at most [`super::MAX_DIAGNOSTICS`]), the
/// counts over all of them, and how many the floor left out.
#[derive(Debug, Default)]
pub struct Tally {
    pub counts: Counts,
    pub listed: Vec<ReportedDiagnostic>,
    pub below_floor: usize,
}

impl Tally {
    pub fn add(&mut self, file: &str, diagnostic: &Value, floor: SeverityFloor) {
        let severity = Severity::of(diagnostic);
        self.counts.add(severity);
        if floor.admits(severity) {
            self.listed.push(ReportedDiagnostic::of(file, diagnostic));
        } else {
            self.below_floor += 1;
        }
    }

    /// The listed diagnostics, cut at the cap, and whether they were.
    pub fn listed_within_cap(mut self) -> (Vec<ReportedDiagnostic>, bool) {
        let truncated = self.listed.len() > super::MAX_DIAGNOSTICS;
        self.listed.truncate(super::MAX_DIAGNOSTICS);
        (self.listed, truncated)
    }
}

/// A diagnostic's severity, spelled on the wire as its lower-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error = 1,
    Warning = 2,
    Information = 3,
    Hint = 4,
}

impl Severity {
    pub fn of(diagnostic: &Value) -> Severity {
        match diagnostic.get("severity").and_then(Value::as_u64) {
            Some(1) => Severity::Error,
            Some(2) => Severity::Warning,
            Some(3) => Severity::Information,
            // FSAC leaves the severity out for hidden diagnostics.
            _ => Severity::Hint,
        }
    }

    /// From a typed LSP diagnostic's severity; FSAC leaves it out for hidden diagnostics, which
    /// read as hints.
    pub fn of_lsp(severity: Option<crate::lsp::types::DiagnosticSeverity>) -> Severity {
        use crate::lsp::types::DiagnosticSeverity;
        match severity {
            Some(DiagnosticSeverity::Error) => Severity::Error,
            Some(DiagnosticSeverity::Warning) => Severity::Warning,
            Some(DiagnosticSeverity::Information) => Severity::Information,
            Some(DiagnosticSeverity::Hint) | None => Severity::Hint,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

impl SeverityFloor {
    /// Whether a diagnostic of `severity` is listed under this floor.
    pub fn admits(self, severity: Severity) -> bool {
        let floor = match self {
            SeverityFloor::Error => Severity::Error,
            SeverityFloor::Warning => Severity::Warning,
            SeverityFloor::Information => Severity::Information,
            SeverityFloor::Hint | SeverityFloor::All => Severity::Hint,
        };
        severity <= floor
    }
}

/// One listed diagnostic: FSAC's fields with the readable severity and the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportedDiagnostic {
    pub file: String,
    pub range: Value,
    pub severity: Severity,
    pub code: Value,
    pub source: Value,
    pub message: Value,
    /// `confirm: "build"`, errors only: whether the build reported the same error (code, file
    /// and line).
    #[serde(rename = "confirmedByBuild", skip_serializing_if = "Option::is_none")]
    pub confirmed_by_build: Option<bool>,
}

impl ReportedDiagnostic {
    pub fn of(file: &str, diagnostic: &Value) -> Self {
        let member = |name: &str| diagnostic.get(name).cloned().unwrap_or(Value::Null);
        ReportedDiagnostic {
            file: file.to_owned(),
            range: member("range"),
            severity: Severity::of(diagnostic),
            code: member("code"),
            source: member("source"),
            message: member("message"),
            confirmed_by_build: None,
        }
    }
}

/// One expected file and what the verdict covers of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    pub file: String,
    #[serde(flatten)]
    pub status: FileStatus,
    /// What-if: the file was checked with its edited text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum FileStatus {
    Analysed(Analysed),
    Missing { why: String },
    Stale { analysed_version: Option<i64>, current_version: Option<i64> },
}

/// An analysed file: a project's file with its counts and the content analysed, or a
/// snippet's script with the SHA-256 of the snippet's text. Both are `status: "analysed"` on
/// the wire; the members tell them apart.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum Analysed {
    File {
        error_count: usize,
        warning_count: usize,
        #[serde(flatten)]
        stamp: Stamp,
    },
    Snippet {
        content_sha256: String,
    },
}

/// The content an analysis covers: the editor's `version` of an open file, or the SHA-256 of
/// the text fslens opened a closed one with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stamp {
    pub open_in_editor: bool,
    /// Open files only; the inner `None` is a `null` version.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub version: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_sha256: Option<String>,
}

/// A member that may be absent (`None`) or `null` (`Some(None)`): read present members as `Some`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// Workspace scope: one project's share of the files.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRow {
    pub project: String,
    pub files: usize,
    pub files_analysed: usize,
    pub error_count: usize,
    pub warning_count: usize,
    pub complete: bool,
}

/// What-if: what the answer says about the edits, whatever the verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfSummary {
    pub files: Vec<TouchedFileSummary>,
    pub disk_written: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// True once FSAC's view was restored (absent when FSAC was never shown the edits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restored: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedFileSummary {
    pub file: String,
    pub source: TextSource,
    pub editor_version: Option<i64>,
    pub edit_count: usize,
    pub content_sha256: String,
}

/// Where a what-if read a touched file's text before editing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TextSource {
    /// The editor's buffer (the file is open).
    Editor,
    Disk,
}

/// What-if: the baseline pass in short.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BaselineSummary {
    pub verdict: Verdict,
    pub complete: bool,
    #[serde(flatten)]
    pub counts: Counts,
    pub diagnostics: Vec<ReportedDiagnostic>,
    pub diagnostics_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocking_reason: Option<BlockingReason>,
}

impl BaselineSummary {
    pub fn of(baseline: &Findings) -> Self {
        BaselineSummary {
            verdict: baseline.verdict,
            complete: baseline.complete,
            counts: baseline.counts,
            diagnostics: baseline.diagnostics.clone(),
            diagnostics_truncated: baseline.diagnostics_truncated,
            blocking_reason: baseline.blocking_reason.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Delta {
    pub introduced: Vec<DeltaEntry>,
    pub resolved: Vec<DeltaEntry>,
    pub unchanged: Vec<DeltaEntry>,
    /// Both passes were complete and neither list was cut.
    pub complete: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeltaEntry {
    pub file: String,
    /// In the edited text; `null` for a resolved diagnostic whose range an edit replaced.
    pub range: Value,
    pub severity: Severity,
    pub code: Value,
    pub message: Value,
    /// Resolved only: the range in the text before the edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_before_edit: Option<Value>,
}

impl DeltaEntry {
    pub fn start(&self) -> Option<crate::documents::Position> {
        range_start(&self.range)
    }

    pub fn of(diagnostic: &ReportedDiagnostic) -> Self {
        DeltaEntry {
            file: diagnostic.file.clone(),
            range: diagnostic.range.clone(),
            severity: diagnostic.severity,
            code: diagnostic.code.clone(),
            message: diagnostic.message.clone(),
            range_before_edit: None,
        }
    }
}

impl CheckAnswer {
    /// The answer `unknown` for `reason`, with what the check would have covered.
    pub fn unknown(coverage: Coverage, reason: BlockingReason, started: Instant) -> Self {
        CheckAnswer::finished(coverage, Findings::unknown(reason), started)
    }

    pub fn finished(coverage: Coverage, findings: Findings, started: Instant) -> Self {
        let mut answer = CheckAnswer {
            coverage,
            findings,
            baseline: None,
            delta: None,
            verdict_source: None,
            verdict_note: None,
            confirmation: None,
            elapsed_ms: started.elapsed().as_millis() as u64,
        };
        answer.rest_on_fsac();
        answer
    }

    /// The verdict as FSAC's per-file check gives it: `verdictSource` for `clean` and
    /// `errors`, and for `errors` the note that the build may disagree.
    pub fn rest_on_fsac(&mut self) {
        let decided = self.findings.verdict != Verdict::Unknown;
        self.verdict_source = decided.then_some(VerdictSource::FsacPerFileCheck);
        self.verdict_note = (self.findings.verdict == Verdict::Errors).then(|| {
            "the errors are FSAC's per-file check (the compiler service checking each file in its \
             project), which can disagree with the build; confirm=build has the compiler confirm them"
                .to_owned()
        });
    }
}

/// Clean is definite, errors are errors, unknown is not definite.
impl crate::commands::outcome::Answered for CheckAnswer {
    fn outcome(&self) -> crate::commands::outcome::Outcome {
        match self.findings.verdict {
            Verdict::Clean => crate::commands::outcome::Outcome::Definite,
            Verdict::Errors => crate::commands::outcome::Outcome::Errors,
            Verdict::Unknown => crate::commands::outcome::Outcome::NotDefinite,
        }
    }
}
