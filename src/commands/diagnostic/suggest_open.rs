//! `fslens.suggestOpen`: for a name the compiler could not resolve (an FS0039 at a position,
//! or just a `name`), which `open` brings it into scope. Two sources, each labelled: FSAC's
//! own "open X" / "Use X.Y" code actions (offered only when FSAC's `ResolveNamespaces` setting
//! is on), and the workspace's declarations from the syntax index — the namespaces and modules
//! that declare the name, with the `open` line to insert and where, qualifying the name when
//! its module is `[<RequireQualifiedAccess>]`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use crate::commands::CommandContext;
use crate::commands::CommandError;
use crate::commands::arguments::{object_of, optional_integer, optional_string, reject_unknown};
use crate::commands::diagnostic::{Location, code_actions, locate, parse_selector, read_text, timeout_of};
use crate::commands::paths::{confine, display_relative};
use crate::documents::{LineIndex, Position};
use crate::syntax::index::{Overlay, SyntaxIndex};
use crate::syntax::model::{Access, DeclarationKind, FileIndex};
use crate::workspace::WorkspaceModel;

/// Titles of FSAC's ResolveNamespaces fixes (shared/fsac-protocol.md §5.7).
fn is_open_fix(title: &str) -> bool {
    title.starts_with("open ") || title.starts_with("Use ")
}

/// The unresolved name in an FS0039 message (`The value or constructor 'x' is not defined.`),
/// else the text the diagnostic's range covers.
pub fn unresolved_name(diagnostic: &Value, text: &str) -> Option<String> {
    let message = diagnostic["message"].as_str().unwrap_or_default();
    if let Some(open) = message.find('\'')
        && let Some(close) = message[open + 1..].find("' is not defined")
    {
        let name = &message[open + 1..open + 1 + close];
        if !name.is_empty() {
            return Some(name.to_owned());
        }
    }
    let lines = LineIndex::new(text);
    let position = |at: &Value| Position {
        line: at["line"].as_u64().unwrap_or(0) as u32,
        character: at["character"].as_u64().unwrap_or(0) as u32,
    };
    let start = lines.offset(text, position(&diagnostic["range"]["start"]));
    let end = lines.offset(text, position(&diagnostic["range"]["end"]));
    text.get(start..end).map(str::trim).filter(|name| !name.is_empty()).map(str::to_owned)
}

/// Where a new top-level `open` goes in `text`: after the last `open` of the file's header, else
/// after its `module`/`namespace` line, else at the top; with the indentation to use and the
/// namespaces already opened there.
pub struct OpenInsertion {
    pub line: u32,
    pub indentation: String,
    pub already_open: HashSet<String>,
}

pub fn open_insertion(text: &str) -> OpenInsertion {
    let mut insertion = OpenInsertion { line: 0, indentation: String::new(), already_open: HashSet::new() };
    let mut seen_header = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indentation = &line[..line.len() - trimmed.len()];
        if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with("[<") {
            continue;
        }
        // A script's `#r`/`#load`/`#I` directives bring what an `open` may need: go below them.
        if trimmed.starts_with('#') {
            if ["#r ", "#load ", "#I ", "#nowarn "].iter().any(|directive| trimmed.starts_with(directive)) {
                insertion.line = number as u32 + 1;
            }
            continue;
        }
        let word = trimmed.split_whitespace().next().unwrap_or_default();
        match word {
            "module" | "namespace" if !seen_header && !trimmed.trim_end().ends_with('=') => {
                seen_header = true;
                insertion.line = number as u32 + 1;
                insertion.indentation = indentation.to_owned();
            }
            "open" => {
                let opened = trimmed.trim_start_matches("open").trim();
                let opened = opened.strip_prefix("type ").unwrap_or(opened).trim();
                insertion.already_open.insert(opened.to_owned());
                insertion.line = number as u32 + 1;
                insertion.indentation = indentation.to_owned();
                seen_header = true;
            }
            _ => break,
        }
    }
    insertion
}

/// Whether the attribute lists just above (or at the start of) a module declaration hold
/// `RequireQualifiedAccess`, read from the text the syntax index points at.
fn requires_qualified_access(text: &str, declaration_line: u32, name_line: u32) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let mut first = declaration_line as usize;
    while first > 0 && lines.get(first - 1).is_some_and(|line| line.trim_start().starts_with("[<")) {
        first -= 1;
    }
    (first..=name_line as usize).filter_map(|line| lines.get(line)).any(|line| line.contains("RequireQualifiedAccess"))
}

/// The kinds a bare name can refer to once its container is opened.
fn referable(kind: DeclarationKind) -> bool {
    !matches!(
        kind,
        DeclarationKind::Namespace
            | DeclarationKind::RecordField
            | DeclarationKind::UnionField
            | DeclarationKind::EnumCase
            | DeclarationKind::Member
            | DeclarationKind::AbstractMember
            | DeclarationKind::Override
            | DeclarationKind::Constructor
            | DeclarationKind::AutoProperty
    )
}

/// One workspace declaration of the name, turned into an `open` (and a qualification when a
/// `[<RequireQualifiedAccess>]` module stands in the way).
struct SyntaxCandidate {
    path: PathBuf,
    full_name: String,
    kind: &'static str,
    line: u32,
    open: Option<String>,
    qualifier: Vec<String>,
}

fn syntax_candidates(index: &SyntaxIndex, name: &str, texts: &Overlay) -> (Vec<SyntaxCandidate>, usize) {
    let Some(id) = index.interner().lookup(name) else { return (Vec::new(), 0) };
    let mut found = Vec::new();
    let mut private = 0;
    for path in index.paths() {
        let Some(file) = index.file(&path) else { continue };
        let file_index: &FileIndex = &file.index;
        let text = read_text(texts, &path).unwrap_or_default();
        for (slot, declaration) in file_index.declarations.iter().enumerate() {
            if declaration.name != id || !referable(declaration.kind) {
                continue;
            }
            if declaration.access == Access::Private {
                private += 1;
                continue;
            }
            // The containers (namespaces and modules), outermost first; a union case's type
            // is not one (its cases are in scope wherever the union's container is opened).
            let chain = file_index.declaration_chain(slot);
            let containers: Vec<usize> = chain[..chain.len().saturating_sub(1)]
                .iter()
                .copied()
                .filter(|&slot| {
                    matches!(file_index.declarations[slot].kind, DeclarationKind::Namespace | DeclarationKind::Module)
                })
                .collect();
            if chain.len() > 1 && containers.len() + 1 != chain.len() && declaration.kind != DeclarationKind::UnionCase
            {
                continue; // nested in a type: not reachable by a bare name
            }
            let mut opened: Vec<String> =
                containers.iter().map(|&slot| index.name(file_index.declarations[slot].name).to_string()).collect();
            let mut qualifier = Vec::new();
            for &slot in containers.iter().rev() {
                let container = &file_index.declarations[slot];
                let rqa = container.kind == DeclarationKind::Module
                    && requires_qualified_access(&text, container.range.start.line, container.name_start.line);
                if !rqa {
                    break;
                }
                qualifier.insert(0, opened.pop().unwrap_or_default());
            }
            found.push(SyntaxCandidate {
                path: path.clone(),
                full_name: index.full_name(file_index, slot),
                kind: declaration.kind.as_str(),
                line: declaration.name_start.line,
                open: if opened.is_empty() { None } else { Some(opened.join(".")) },
                qualifier,
            });
        }
    }
    (found, private)
}

/// Whether code in `from` can see declarations of `declared_in` by compile order and project
/// references: `before`, `later` (same project, later file), `referenced`, `not_referenced`.
fn visibility(model: &WorkspaceModel, from: &Path, declared_in: &Path) -> &'static str {
    let Some(project) = model.projects_compiling(from).into_iter().next() else { return "unknown" };
    let position = |path: &Path| project.compile_items.iter().position(|item| item.path == path);
    if let (Some(from_at), Some(declared_at)) = (position(from), position(declared_in)) {
        return if declared_at <= from_at { "before" } else { "later" };
    }
    let mut seen = HashSet::new();
    let mut stack = project.project_references.clone();
    while let Some(reference) = stack.pop() {
        if !seen.insert(reference.clone()) {
            continue;
        }
        if let Some(referenced) = model.project(&reference) {
            if referenced.compiles(declared_in) {
                return "referenced";
            }
            stack.extend(referenced.project_references.iter().cloned());
        }
    }
    "not_referenced"
}

pub async fn suggest_open(argument: Value, mut context: CommandContext) -> Result<Value, CommandError> {
    let started = Instant::now();
    let object = object_of(&argument)?;
    reject_unknown(
        object,
        &["name", "path", "line", "character", "code", "index", "diagnostic", "maxResults", "timeoutMs"],
    )?;
    let timeout = timeout_of(object)?;
    let max_results = optional_integer(object, "maxResults", 1, 200)?.unwrap_or(20) as usize;
    let written_name = optional_string(object, "name")?;
    if written_name.as_deref().is_some_and(|name| name.trim().is_empty()) {
        return Err(CommandError::invalid_argument("name", "is empty"));
    }
    // With a name, `path` alone only says where the `open` would go.
    let positioned = ["line", "diagnostic"].iter().any(|key| object.get(*key).is_some_and(|value| !value.is_null()));
    if written_name.is_none() && !positioned && object.get("path").is_none_or(Value::is_null) {
        return Err(CommandError::invalid_argument("name", "give the unresolved name, or path + line of its FS0039"));
    }
    let mut selector = if written_name.is_some() && !positioned { None } else { parse_selector(object, false)? };
    if let Some(selector) = selector.as_mut()
        && selector.code.is_none()
    {
        selector.code = Some(39);
    }
    let root = context.workspace_root()?.to_path_buf();
    let deadline = tokio::time::Instant::now() + timeout;

    // The FSAC arm: the diagnostic at the position, and FSAC's open/Use fixes for it.
    let mut fsac = json!({ "asked": false });
    let mut suggestions = Vec::new();
    let mut diagnostic_name = None;
    let mut diagnostic_range = None;
    let mut diagnostic_line = None;
    let mut diagnostic_description = Value::Null;
    if let Some(selector) = &selector {
        match locate(&mut context, selector, timeout).await? {
            Location::Found(located) => {
                diagnostic_name = unresolved_name(&located.diagnostic, &located.text);
                diagnostic_range = Some(located.diagnostic["range"].clone());
                diagnostic_line = located.diagnostic["range"]["start"]["line"].as_u64();
                diagnostic_description = super::describe_diagnostic(&located.file(), &located.diagnostic);
                let actions = code_actions(&context, &located, deadline).await;
                located.release(&context);
                let overlay = context.editor_buffers().await?;
                match actions? {
                    Ok(actions) => {
                        let offered: Vec<&Value> =
                            actions.iter().filter(|action| action["title"].as_str().is_some_and(is_open_fix)).collect();
                        fsac = json!({ "asked": true, "codeActions": actions.len(), "openFixes": offered.len() });
                        if offered.is_empty() {
                            fsac["note"] = json!(
                                "FSAC offered no \"open X\" / \"Use X.Y\" fix; it offers them only with its ResolveNamespaces setting on"
                            );
                        }
                        for action in offered {
                            let mut described = super::fixes::describe_action(action, &root, &overlay);
                            described["via"] = json!("fsac");
                            suggestions.push(described);
                        }
                    }
                    Err(why) => fsac = json!({ "asked": true, "complete": false, "reason": why }),
                }
            }
            Location::Unknown(reason) => {
                fsac =
                    json!({ "asked": true, "complete": false, "reason": reason["message"], "blockingReason": reason });
            }
        }
    }
    let name = match (&written_name, &diagnostic_name) {
        (Some(name), _) => name.trim().to_owned(),
        (None, Some(name)) => name.clone(),
        (None, None) => {
            let mut answer = json!({
                "status": "unknown",
                "via": "fsac",
                "fsac": fsac,
                "reason": "the unresolved name is not known: FSAC gave no diagnostic to read it from; pass `name`",
                "elapsedMs": started.elapsed().as_millis() as u64,
            });
            if let Some(reason) = answer["fsac"].get("blockingReason").cloned() {
                answer["blockingReason"] = reason;
            }
            return Ok(answer);
        }
    };
    // `Text.shout` is looked up by its last segment; the written qualifier must then match.
    let (written_qualifier, last_segment) = match name.rsplit_once('.') {
        Some((qualifier, last)) => (Some(qualifier.to_owned()), last.to_owned()),
        None => (None, name.clone()),
    };

    // The syntax arm: declarations in the workspace.
    let model = crate::commands::load_workspace_model(&root).await?;
    let overlay = context.editor_buffers().await?;
    let index = context.syntax_index();
    let target = match &selector {
        Some(selector) => Some(confine(&root, &selector.path, "path")?),
        None => match optional_string(object, "path")? {
            Some(path) => Some(confine(&root, &path, "path")?),
            None => None,
        },
    };
    let (candidates, private_skipped) = {
        let (index, overlay, files, last_segment) =
            (index.clone(), overlay.clone(), model.files_to_index(), last_segment.clone());
        crate::commands::run_blocking(move || {
            index.index_paths(&files, &overlay);
            Ok(syntax_candidates(&index, &last_segment, &overlay))
        })
        .await?
    };
    let target_text = match &target {
        Some(path) => Some(
            read_text(&overlay, path)
                .map_err(|message| CommandError::InvalidPath { path: display_relative(&root, path), message })?,
        ),
        None => None,
    };
    let insertion = target_text.as_deref().map(open_insertion);
    let target_uri = target.as_deref().and_then(crate::uri::path_to_uri);
    let mut later_in_compile_order = 0usize;
    let mut not_referenced = 0usize;
    let mut seen = HashSet::new();
    for candidate in candidates {
        if let Some(written) = &written_qualifier {
            let container = candidate.full_name.rsplit_once('.').map(|(container, _)| container).unwrap_or_default();
            if !(container == written || container.ends_with(&format!(".{written}"))) {
                continue;
            }
        }
        let visible = match &target {
            // Further down the same file: declared after its use, so no `open` helps.
            Some(target)
                if *target == candidate.path
                    && diagnostic_line.is_some_and(|line| u64::from(candidate.line) > line) =>
            {
                "later"
            }
            Some(target) => visibility(&model, target, &candidate.path),
            None => "unknown",
        };
        match visible {
            "later" => {
                later_in_compile_order += 1;
                continue;
            }
            "not_referenced" => {
                not_referenced += 1;
                continue;
            }
            _ => {}
        }
        let qualified = if candidate.qualifier.is_empty() {
            last_segment.clone()
        } else {
            format!("{}.{last_segment}", candidate.qualifier.join("."))
        };
        if !seen.insert((candidate.open.clone(), qualified.clone())) {
            continue;
        }
        let mut suggestion = json!({
            "via": "syntax",
            "open": candidate.open,
            "openLine": candidate.open.as_ref().map(|open| format!("open {open}")),
            "useAs": qualified,
            "requireQualifiedAccess": !candidate.qualifier.is_empty(),
            "declaration": {
                "fullName": candidate.full_name,
                "kind": candidate.kind,
                "file": display_relative(&root, &candidate.path),
                "line": candidate.line,
            },
            "visibility": visible,
        });
        if let (Some(insertion), Some(uri)) = (&insertion, &target_uri) {
            let mut edits = Vec::new();
            let already = candidate.open.as_ref().is_some_and(|open| insertion.already_open.contains(open));
            suggestion["alreadyOpen"] = json!(already);
            if let Some(open) = candidate.open.as_ref().filter(|_| !already) {
                let at = json!({ "line": insertion.line, "character": 0 });
                suggestion["insertAt"] = at.clone();
                edits.push(json!({
                    "range": { "start": at, "end": at },
                    "newText": format!("{}open {open}\n", insertion.indentation),
                }));
            }
            if let Some(range) = diagnostic_range.as_ref().filter(|_| qualified != name) {
                edits.push(json!({ "range": range, "newText": qualified }));
            }
            if !edits.is_empty() {
                let mut changes = serde_json::Map::new();
                changes.insert(uri.clone(), json!(edits));
                let edit = json!({ "changes": changes });
                suggestion["preview"] = super::preview_edit(&edit, &root, &overlay);
                suggestion["workspaceEdit"] = edit;
            }
        }
        suggestions.push(suggestion);
    }
    let total = suggestions.len();
    let page =
        crate::commands::budget::paginate(&suggestions, 0, max_results, crate::commands::budget::RESPONSE_CHAR_BUDGET);
    let (truncated, truncated_by_budget) = (page.truncated, page.truncated_by_budget);
    let suggestions = page.entries;
    let via = match (suggestions.iter().any(|s| s["via"] == "fsac"), suggestions.iter().any(|s| s["via"] == "syntax")) {
        (true, true) => "fsac+syntax",
        (true, false) => "fsac",
        _ => "syntax",
    };
    // Nothing found is only certain when FSAC was asked and answered: the syntax arm sees the
    // workspace's own declarations, not referenced packages or the framework.
    let fsac_answered = fsac["asked"] == json!(true) && fsac["complete"] != json!(false);
    let mut answer = json!({
        "status": if total == 0 { "not_found" } else { "ok" },
        "certain": total > 0 || fsac_answered,
        "name": name,
        "via": via,
        "suggestions": suggestions,
        "totalSuggestions": total,
        "truncated": truncated,
        "truncatedByBudget": truncated_by_budget,
        "suggestionsOmitted": total - suggestions.len(),
        "omitted": {
            "privateDeclarations": private_skipped,
            "laterInCompileOrder": later_in_compile_order,
            "inUnreferencedProjects": not_referenced,
        },
        "fsac": fsac,
        "syntax": {
            "indexedFiles": index.file_count(),
            "coverage": "declarations in the workspace's own F# files; referenced packages and the framework are not searched",
        },
        "writtenToDisk": false,
        "elapsedMs": started.elapsed().as_millis() as u64,
    });
    if !diagnostic_description.is_null() {
        answer["diagnostic"] = diagnostic_description;
    }
    if let Some(path) = &target {
        answer["file"] = json!(display_relative(&root, path));
    }
    Ok(answer)
}

/// The MCP input schema generated from this command's argument struct; `None` until its
/// arguments are a typed struct (mcp/tools.rs keeps a hand-written schema until then).
pub fn input_schema() -> Option<serde_json::Value> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_comes_from_the_message_even_with_a_quote_in_it() {
        let diagnostic = json!({"message": "The value or constructor 'lenght'' is not defined. Maybe you want one of the following:\n   length'"});
        assert_eq!(unresolved_name(&diagnostic, "").as_deref(), Some("lenght'"));
        let ranged = json!({"message": "odd", "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}}});
        assert_eq!(unresolved_name(&ranged, "let shout = 1").as_deref(), Some("shout"));
    }

    #[test]
    fn opens_go_after_the_header_and_its_opens() {
        let text = "module Fixes.Program\n\nopen System\nopen System.IO\n\nlet x = 1\n";
        let insertion = open_insertion(text);
        assert_eq!(insertion.line, 4);
        assert!(insertion.already_open.contains("System.IO"));
        let bare = open_insertion("namespace Acme\n\ntype T = int\n");
        assert_eq!(bare.line, 1);
        assert_eq!(open_insertion("let x = 1\n").line, 0);
        assert_eq!(
            open_insertion("#r \"nuget: X\"\n#load \"A.fs\"\n\nlet x = 1\n").line,
            2,
            "below a script's directives"
        );
    }

    #[test]
    fn require_qualified_access_is_read_above_the_module() {
        let text = "namespace N\n\n[<RequireQualifiedAccess>]\nmodule Numbers =\n    let f x = x\n";
        assert!(requires_qualified_access(text, 3, 3));
        assert!(requires_qualified_access(text, 2, 3));
        assert!(!requires_qualified_access("namespace N\nmodule Text =\n  let f = 1\n", 1, 1));
    }
}
