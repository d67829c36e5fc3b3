//! The parts of the diagnostic tools' answers they share, declared once: the `unknown` answer
//! ([`Blocked`]) with check's typed [`BlockingReason`], a diagnostic as the tools show it
//! ([`DiagnosticSummary`], and [`ExplainedDiagnostic`] with its lines), the analysis it comes
//! from, and a code action with its edits previewed ([`DescribedFix`]). Each answer derives
//! `Deserialize` too, so the CLI and the tests read it typed. docs/commands.md describes each
//! member.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::lsp::types::{DiagnosticRelatedInformation, NumberOrString, Range, TextEdit, WorkspaceEdit};

/// `status: "unknown"`, the one status of an answer that knows nothing.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum UnknownStatus {
    Unknown,
}

/// `status: "ok"`.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OkStatus {
    Ok,
}

/// Who answered: FSAC, the syntax index, or both (`suggestOpen`'s listed suggestions).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    Fsac,
    Syntax,
    #[serde(rename = "fsac+syntax")]
    FsacAndSyntax,
}

pub use crate::commands::blocking::BlockingReason;

/// The `unknown` answer of a diagnostic tool: FSAC could not say what is at the position.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Blocked {
    pub status: UnknownStatus,
    /// `blockingReason.message`.
    pub reason: String,
    pub blocking_reason: Box<BlockingReason>,
    pub via: Via,
    pub elapsed_ms: u64,
}

/// A diagnostic's severity, readable (check's: one spelling for every command).
pub use crate::commands::check::answer::Severity;

/// A diagnostic as the tools show it: FSAC's members with the readable code and severity.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct DiagnosticSummary {
    pub file: String,
    /// `FS0039` for compiler codes, FSAC's code otherwise; `null` without one.
    pub code: Option<NumberOrString>,
    pub severity: Severity,
    pub message: String,
    pub range: Range,
    pub source: Option<String>,
}

/// `explainDiagnostic`'s diagnostic: the summary with its line, the lines around it, the
/// related information and FSAC's original.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExplainedDiagnostic {
    #[serde(flatten)]
    pub summary: DiagnosticSummary,
    pub line_text: String,
    pub context_lines: Vec<ContextLine>,
    pub related_information: Vec<RelatedInformation>,
    /// The diagnostic exactly as FSAC published it.
    pub published: Value,
}

/// One line of a file: 0-based number and text.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ContextLine {
    pub line: usize,
    pub text: String,
}

/// A related location with the workspace-relative file and the line it points at, when its
/// URI is a file.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RelatedInformation {
    #[serde(flatten)]
    pub related: DiagnosticRelatedInformation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text: Option<String>,
}

/// `analysis`: the content the diagnostic was found at.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub open_in_editor: bool,
    pub session_generation: u64,
    /// Open buffers only: the editor's version (the inner `None` is a `null` version).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub version: Option<Option<i64>>,
}

/// A member that is there, `null` or not: `Some(None)` for `null` (serde's own `Option` reads
/// `null` as absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Where the diagnostic was found among those matching the selector.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Matched {
    pub matched_count: usize,
    pub index: usize,
    pub analysis: Analysis,
}

/// One code action as the tools show it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DescribedFix {
    pub title: String,
    pub kind: Option<String>,
    /// Each text edit with the text it replaces and the lines it leaves; `null` without an edit.
    pub preview: Option<EditPreviews>,
    /// FSAC's edit, to apply as is.
    pub workspace_edit: Option<WorkspaceEdit>,
    pub command: Option<Value>,
}

/// A `WorkspaceEdit` previewed: each text edit, and how many resource operations it holds
/// that are not.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EditPreviews {
    pub edits: Vec<EditPreview>,
    pub resource_operations_not_previewed: usize,
}

/// One text edit previewed, or a file whose text could not be read to preview its edits.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum EditPreview {
    Previewed(PreviewedEdit),
    Unreadable(UnreadableFile),
}

/// A text edit with the text it replaces and the line(s) it leaves.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PreviewedEdit {
    pub file: String,
    pub range: Range,
    pub old_text: String,
    pub new_text: String,
    pub lines_before: Vec<String>,
    pub lines_after: Vec<String>,
}

/// The edits of a file that could not be read, as they came.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct UnreadableFile {
    pub file: String,
    pub error: String,
    pub edits: Vec<TextEdit>,
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;
    use serde_json::json;

    use super::*;
    use crate::cli::diagnostic as render;
    use crate::commands::diagnostic::explain::ExplainAnswer;
    use crate::commands::diagnostic::fixes::FixesAnswer;
    use crate::commands::diagnostic::suggest_open::SuggestOpenAnswer;

    /// `sent` read as `T` and written again is `sent`; the read value is returned.
    fn reads_back<T: DeserializeOwned + Serialize>(sent: Value) -> T {
        let read: T = serde_json::from_value(sent.clone()).unwrap_or_else(|error| panic!("{error}: {sent}"));
        assert_eq!(serde_json::to_value(&read).unwrap(), sent);
        read
    }

    fn range(line: u32, start: u32, end: u32) -> Value {
        json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": end}})
    }

    fn blocked() -> Value {
        json!({
            "status": "unknown",
            "reason": "FSAC could not load src/App.fsproj",
            "blockingReason": {"errorKind": "project_not_restored", "message": "FSAC could not load src/App.fsproj", "project": "src/App.fsproj", "fsacErrorCode": 100, "remedy": "run `dotnet restore src/App.fsproj`"},
            "via": "fsac",
            "elapsedMs": 4,
        })
    }

    fn summary() -> Value {
        json!({"file": "src/Program.fs", "code": "FS0039", "severity": "error", "message": "The value or constructor 'shout' is not defined.", "range": range(2, 15, 20), "source": "F# Compiler"})
    }

    #[test]
    fn explain_answers_read_back_to_the_value_sent() {
        let mut diagnostic = summary();
        diagnostic["lineText"] = json!("let greeting = shout \"hi\"");
        diagnostic["contextLines"] =
            json!([{"line": 1, "text": ""}, {"line": 2, "text": "let greeting = shout \"hi\""}]);
        diagnostic["relatedInformation"] = json!([
            {"location": {"uri": "file:///w/src/Tools.fs", "range": range(3, 8, 13)}, "message": "declared here", "file": "src/Tools.fs", "lineText": "    let shout x = x"},
            {"location": {"uri": "untitled:1", "range": range(0, 0, 1)}, "message": "elsewhere"},
        ]);
        diagnostic["published"] =
            json!({"range": range(2, 15, 20), "code": "39", "data": {"opaque": [1]}, "message": "m"});
        let sent = json!({
            "status": "ok",
            "via": "fsac",
            "diagnostic": diagnostic,
            "meaning": {"known": true, "code": "FS0039", "title": "name not defined", "meaning": "m", "usualFixes": "u", "via": "curated"},
            "fixes": {"count": 2, "titles": ["open Acme", "Replace with 'show'"], "via": "fsac", "complete": true},
            "matchedCount": 2,
            "index": 1,
            "analysis": {"openInEditor": true, "sessionGeneration": 1, "version": null},
            "note": "n",
            "elapsedMs": 12,
        });
        let read: ExplainAnswer = reads_back(sent);
        let text = render::explain(&read);
        assert!(text.starts_with("src/Program.fs:3:16: error FS0039: The value"), "{text}");
        assert!(text.contains("\ndiagnostic 2 of 2 at this position"), "{text}");
        assert!(
            text.contains("related: src/Tools.fs:4:9: declared here\nrelated: untitled:1:1:1: elsewhere"),
            "{text}"
        );
        assert!(text.contains("    3 | let greeting"), "{text}");
        assert!(
            text.ends_with("FSAC fixes: open Acme; Replace with 'show' (diagnostic-fixes previews them)"),
            "{text}"
        );
        assert_eq!(crate::cli::exit_code_of_answer(&read), 0);

        let mut unknown_meaning = sent_without_fixes();
        unknown_meaning["analysis"] = json!({"openInEditor": false, "sessionGeneration": 3});
        let read: ExplainAnswer = reads_back(unknown_meaning);
        assert!(render::explain(&read).ends_with("FSAC's fixes are unknown: FSAC did not answer"));

        let read: ExplainAnswer = reads_back(blocked());
        assert!(matches!(read, ExplainAnswer::Unknown(_)));
        assert_eq!(
            render::explain(&read),
            "unknown (project_not_restored): FSAC could not load src/App.fsproj\nremedy: run `dotnet restore src/App.fsproj`"
        );
        assert_eq!(crate::cli::exit_code_of_answer(&read), 2);
    }

    fn sent_without_fixes() -> Value {
        let mut diagnostic = summary();
        diagnostic["code"] = json!(9999);
        diagnostic["source"] = Value::Null;
        diagnostic["lineText"] = json!("x");
        diagnostic["contextLines"] = json!([]);
        diagnostic["relatedInformation"] = json!([]);
        diagnostic["published"] = json!({});
        json!({
            "status": "ok",
            "via": "fsac",
            "diagnostic": diagnostic,
            "meaning": {"known": false, "code": "FS9999", "meaning": "fslens has no summary", "via": "curated"},
            "fixes": {"count": null, "titles": [], "via": "fsac", "complete": false, "reason": "FSAC did not answer"},
            "matchedCount": 1,
            "index": 0,
            "analysis": {},
            "note": "n",
            "elapsedMs": 12,
        })
    }

    #[test]
    fn fixes_answers_read_back_to_the_value_sent() {
        let edit = json!({"documentChanges": [
            {"textDocument": {"uri": "file:///w/src/Program.fs", "version": 0}, "edits": [{"range": range(2, 4, 4), "newText": "mutable "}]},
            {"kind": "create", "uri": "file:///w/src/New.fs"},
        ]});
        let sent = json!({
            "status": "ok",
            "via": "fsac",
            "diagnostic": summary(),
            "matchedCount": 1,
            "index": 0,
            "analysis": {"openInEditor": false, "sessionGeneration": 2},
            "writtenToDisk": false,
            "fixCount": 3,
            "applied": {"fixIndex": 0, "applied": false, "failureReason": null},
            "truncated": true,
            "truncatedByBudget": false,
            "fixesOmitted": 1,
            "fixes": [
                {"title": "Make it mutable", "kind": "quickfix", "preview": {"edits": [
                    {"file": "src/Program.fs", "range": range(2, 4, 4), "oldText": "", "newText": "mutable ", "linesBefore": ["    total <- 1"], "linesAfter": ["    mutable total <- 1"]},
                    {"file": "src/Gone.fs", "error": "cannot read it: gone", "edits": [{"range": range(0, 0, 0), "newText": "x"}]},
                ], "resourceOperationsNotPreviewed": 1}, "workspaceEdit": edit, "command": null},
                {"title": "Run a command", "kind": null, "preview": null, "workspaceEdit": null, "command": {"title": "t", "command": "fsharp.x"}},
            ],
            "elapsedMs": 7,
        });
        let read: FixesAnswer = reads_back(sent);
        let text = render::fixes(&read);
        assert!(text.contains("[0] Make it mutable (quickfix)\n    -     total <- 1\n    +     mutable total <- 1\n    (1 file operation(s)"), "{text}");
        assert!(text.contains("[1] Run a command (null)"), "{text}");
        assert!(
            text.ends_with("… 1 more fix(es) not shown (cut by the cap of 50)\nnothing was written to disk"),
            "{text}"
        );
        assert_eq!(crate::cli::exit_code_of_answer(&read), 0);

        let none = json!({
            "status": "no_fixes", "via": "fsac", "diagnostic": summary(), "matchedCount": 1, "index": 0,
            "analysis": {"openInEditor": true, "sessionGeneration": 2, "version": 4}, "writtenToDisk": false,
            "fixCount": 0, "note": "FSAC offers no code action", "truncated": false, "truncatedByBudget": false,
            "fixesOmitted": 0, "fixes": [], "elapsedMs": 7,
        });
        let read: FixesAnswer = reads_back(none);
        assert!(render::fixes(&read).contains("\nno fixes offered (FSAC offers no code action)\n"));
        assert_eq!(crate::cli::exit_code_of_answer(&read), 2);

        let not_answered = json!({
            "status": "unknown", "via": "fsac", "diagnostic": summary(), "matchedCount": 1, "index": 0,
            "analysis": {"openInEditor": false, "sessionGeneration": 2}, "writtenToDisk": false,
            "reason": "FSAC did not answer codeAction before the deadline", "fixes": [], "elapsedMs": 7,
        });
        let read: FixesAnswer = reads_back(not_answered);
        assert!(matches!(read, FixesAnswer::NotAnswered(_)));
        assert_eq!(render::fixes(&read), "unknown: FSAC did not answer codeAction before the deadline");
        let read: FixesAnswer = reads_back(blocked());
        assert!(matches!(read, FixesAnswer::Unknown(_)));
        assert_eq!(crate::cli::exit_code_of_answer(&read), 2);
    }

    #[test]
    fn suggest_open_answers_read_back_to_the_value_sent() {
        let open_edit = json!({"changes": {"file:///w/Program.fs": [{"range": range(1, 0, 0), "newText": "open Acme.Tools.Text\n"}]}});
        let sent = json!({
            "status": "ok",
            "certain": true,
            "name": "shout",
            "via": "fsac+syntax",
            "suggestions": [
                {"via": "fsac", "title": "open Acme.Tools.Text", "kind": "quickfix", "preview": {"edits": [], "resourceOperationsNotPreviewed": 0}, "workspaceEdit": open_edit, "command": null},
                {"via": "syntax", "open": "Acme.Tools.Text", "openLine": "open Acme.Tools.Text", "useAs": "shout", "requireQualifiedAccess": false,
                 "declaration": {"fullName": "Acme.Tools.Text.shout", "kind": "let", "file": "Tools.fs", "line": 3}, "visibility": "before",
                 "alreadyOpen": false, "insertAt": {"line": 1, "character": 0}, "preview": {"edits": [], "resourceOperationsNotPreviewed": 0}, "workspaceEdit": open_edit},
                {"via": "syntax", "open": null, "openLine": null, "useAs": "Numbers.shout", "requireQualifiedAccess": true,
                 "declaration": {"fullName": "Numbers.shout", "kind": "let", "file": "N.fs", "line": 0}, "visibility": "unknown"},
            ],
            "totalSuggestions": 4,
            "truncated": true,
            "truncatedByBudget": true,
            "suggestionsOmitted": 1,
            "omitted": {"privateDeclarations": 2, "laterInCompileOrder": 1, "inUnreferencedProjects": 0},
            "fsac": {"asked": true, "codeActions": 3, "openFixes": 1},
            "syntax": {"indexedFiles": 2, "coverage": "the workspace"},
            "writtenToDisk": false,
            "elapsedMs": 9,
            "diagnostic": summary(),
            "file": "Program.fs",
        });
        let read: SuggestOpenAnswer = reads_back(sent);
        assert_eq!(
            render::suggest_open(&read),
            "4 suggestion(s) for shout\n  open Acme.Tools.Text  via fsac\n  open Acme.Tools.Text  (then shout)  via syntax  [Acme.Tools.Text.shout]\n  use Numbers.shout  via syntax  [Numbers.shout]\n… 1 more suggestion(s) not shown (cut by the response budget)\nleft out (cannot be what the name means): 2 privateDeclarations, 1 laterInCompileOrder\nsearched: the workspace"
        );
        assert_eq!(crate::cli::exit_code_of_answer(&read), 0);

        let not_found = json!({
            "status": "not_found", "certain": false, "name": "clampTo", "via": "syntax", "suggestions": [],
            "totalSuggestions": 0, "truncated": false, "truncatedByBudget": false, "suggestionsOmitted": 0,
            "omitted": {"privateDeclarations": 0, "laterInCompileOrder": 0, "inUnreferencedProjects": 0},
            "fsac": {"asked": true, "complete": false, "reason": "FSAC is not available: gone"},
            "syntax": {"indexedFiles": 2, "coverage": "c"}, "writtenToDisk": false, "elapsedMs": 1,
        });
        let read: SuggestOpenAnswer = reads_back(not_found);
        assert_eq!(crate::cli::exit_code_of_answer(&read), 2);

        let unknown = json!({
            "status": "unknown", "via": "fsac",
            "fsac": {"asked": true, "complete": false, "reason": "r", "blockingReason": {"errorKind": "timeout", "message": "r", "state": "loading"}},
            "reason": "the unresolved name is not known", "elapsedMs": 3,
            "blockingReason": {"errorKind": "timeout", "message": "r", "state": "loading"},
        });
        let read: SuggestOpenAnswer = reads_back(unknown);
        assert_eq!(render::suggest_open(&read), "unknown (timeout): the unresolved name is not known");
        assert_eq!(crate::cli::exit_code_of_answer(&read), 2);
    }
}
