//! The documentation stands alone: everything docs/ and the `//!` comments point to is in the
//! repository, and docs/architecture.md's code map names every module under src/.
//!
//! What counts as a reference, in `docs/*.md`, `README.md` and the `//!` lines of `src/`,
//! `tests/it/` and `benches/` (a word is a run of letters, digits and `_ . / - *`, a trailing
//! full stop dropped; a word with `*` is a glob and is skipped):
//!
//! - a word whose first segment is a directory of the repository (`src/`, `docs/`, `tests/`,
//!   `fixtures/`, `benches/`, `scripts/`, `editors/`), also after `./`: it must exist
//!   from the repository root. A path of another repository is written after that repository's
//!   name (`FSharpPlus/src/…`), so it is not one of ours;
//! - a word starting with `../`: it must exist from the file's directory, inside the repository;
//! - a word whose first segment is `shared` (the notes of the machine fslens was developed on,
//!   which a clone does not have): always refused;
//! - any other word with a `/` that ends in `.rs`: a module path, which must be the end of a
//!   path under src/ (`commands/context.rs`), or exist from the file's directory or the root;
//! - a word ending in `.md` (a file name, not an extension alone): it must exist from the
//!   file's directory, the root or docs/;
//! - the target of a Markdown link, unless it is a URL, an anchor or a rustdoc path (`::`): it
//!   must exist from the file's directory, inside the repository;
//! - the word "issue" or a `#` followed by a number: an entry of a tracker the reader has no
//!   access to; the text must say the thing itself.
//!
//! URLs are not references to the repository and are left out.

use std::path::{Component, Path, PathBuf};

/// The first segments that make a word a path of this repository.
const REPOSITORY_DIRECTORIES: &[&str] = &["src", "docs", "tests", "fixtures", "benches", "scripts", "editors"];

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `path` with `.` and `..` resolved lexically; `None` when it climbs above its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// Whether `relative` (to the repository root) names something inside it that exists.
fn exists_inside(relative: &Path) -> bool {
    normalize(relative).is_some_and(|inside| repository().join(inside).exists())
}

/// `text` without its URLs (`https://…` up to a space, `)` or `>`).
fn without_urls(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("://") {
        let scheme_start =
            rest[..start].rfind(|character: char| !character.is_ascii_alphabetic()).map_or(0, |at| at + 1);
        kept.push_str(&rest[..scheme_start]);
        let after = &rest[start..];
        let end = after.find(|character: char| character.is_whitespace() || character == ')' || character == '>');
        rest = end.map_or("", |end| &after[end..]);
    }
    kept.push_str(rest);
    kept
}

/// The words of `text` that may be paths: runs of ASCII letters, digits and `_ . / - *`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|character: char| !(character.is_ascii_alphanumeric() || "_./-*".contains(character)))
        .map(|word| word.trim_end_matches('.'))
        .filter(|word| !word.is_empty() && !word.contains('*'))
}

/// What is wrong with the references of `text`, written in `file` (relative to the root).
fn reference_problems(file: &Path, text: &str, source_files: &[String]) -> Vec<String> {
    let directory = file.parent().unwrap_or(Path::new(""));
    let mut problems = Vec::new();
    let mut refuse = |reference: &str, why: &str| problems.push(format!("{}: `{reference}` {why}", file.display()));
    let plain = without_urls(text);
    for word in words(&plain) {
        let word_from_root = word.strip_prefix("./").unwrap_or(word);
        let first = word_from_root.split('/').next().unwrap_or_default();
        if word.starts_with("../") {
            if !exists_inside(&directory.join(word)) {
                refuse(word, "is not a path inside the repository");
            }
        } else if first == "shared" && word_from_root.contains('/') {
            refuse(word, "points outside the repository (to notes a clone does not have)");
        } else if REPOSITORY_DIRECTORIES.contains(&first) && word_from_root.contains('/') {
            if !exists_inside(Path::new(word_from_root)) {
                refuse(word, "does not exist in the repository");
            }
        } else if word.ends_with(".rs") && word.contains('/') {
            let tail = format!("/{word}");
            let found = source_files.iter().any(|source| source.ends_with(&tail))
                || exists_inside(&directory.join(word))
                || exists_inside(Path::new(word));
            if !found {
                refuse(word, "names no module under src/ and no file beside this one");
            }
        } else if word.ends_with(".md")
            && !word.starts_with('.')
            && ![directory, Path::new(""), Path::new("docs")].iter().any(|base| exists_inside(&base.join(word)))
        {
            refuse(word, "is not a document of the repository");
        }
    }
    let mut rest = text;
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        let external = target.contains("://") || target.starts_with("mailto:") || target.starts_with('#');
        if !external && !target.contains("::") && !target.contains(char::is_whitespace) {
            let path = target.split('#').next().unwrap_or_default();
            if !exists_inside(&directory.join(path)) {
                refuse(target, "is a link to nothing in the repository");
            }
        }
    }
    problems.extend(tracker_numbers(text).into_iter().map(|number| {
        format!("{}: `{number}` names a tracker entry a reader cannot see: say the thing itself", file.display())
    }));
    problems
}

/// "issue 12", "Issues 5", "issue #7" and "#31" in `text`.
fn tracker_numbers(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut found = Vec::new();
    let digits_at = |at: usize| bytes[at..].iter().take_while(|byte| byte.is_ascii_digit()).count();
    let mut covered = Vec::new();
    for (at, _) in lower.match_indices("issue") {
        let mut after = at + "issue".len();
        if bytes.get(after) == Some(&b's') {
            after += 1;
        }
        if bytes.get(after) != Some(&b' ') {
            continue;
        }
        after += 1;
        if bytes.get(after) == Some(&b'#') {
            after += 1;
        }
        let count = digits_at(after.min(bytes.len()));
        if count > 0 {
            found.push(text[at..after + count].to_owned());
            covered.push(after.saturating_sub(1));
        }
    }
    for (at, _) in lower.match_indices('#') {
        let before = at.checked_sub(1).map(|before| bytes[before]);
        if covered.contains(&at)
            || before.is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'&')
        {
            continue;
        }
        let count = digits_at(at + 1);
        let after = bytes.get(at + 1 + count);
        if count >= 2 && !after.is_some_and(|byte| byte.is_ascii_alphanumeric() || *byte == b'_') {
            found.push(text[at..at + 1 + count].to_owned());
        }
    }
    found
}

/// The `//!` lines of a Rust file, without their marker.
fn inner_doc_comment(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    text.lines().filter_map(|line| line.trim_start().strip_prefix("//!")).collect::<Vec<_>>().join("\n")
}

fn relative(path: &Path) -> PathBuf {
    path.strip_prefix(repository()).unwrap_or(path).to_path_buf()
}

/// Every path in docs/, README.md and the `//!` comments exists in the repository, and none
/// points outside it or to a tracker entry.
#[test]
fn every_path_in_the_docs_and_module_comments_exists_in_the_repository() {
    let root = repository();
    let source_files: Vec<String> = crate::support::files_under(&root.join("src"), "rs")
        .iter()
        .map(|path| relative(path).display().to_string())
        .collect();
    let mut problems = Vec::new();
    let mut documents = crate::support::files_under(&root.join("docs"), "md");
    documents.retain(|path| path.parent() == Some(root.join("docs").as_path()));
    documents.push(root.join("README.md"));
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        problems.extend(reference_problems(&relative(&document), &text, &source_files));
    }
    for directory in ["src", "tests/it", "benches"] {
        for file in crate::support::files_under(&root.join(directory), "rs") {
            problems.extend(reference_problems(&relative(&file), &inner_doc_comment(&file), &source_files));
        }
    }
    assert!(
        problems.is_empty(),
        "{} reference(s) a clone of fslens cannot follow:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The rules above, on made-up text: what is refused and what is not.
#[test]
fn the_reference_rules_refuse_what_a_clone_cannot_follow() {
    let source_files = vec!["src/commands/context.rs".to_owned()];
    let file = Path::new("docs/example.md");
    let refused = |text: &str| reference_problems(file, text, &source_files);
    assert!(refused("see docs/architecture.md, `src/lsp/codec.rs::FrameReader`, tests/it/main.rs:12.").is_empty());
    assert!(refused("`commands/context.rs`, [the map](architecture.md#ionide-mode), README.md").is_empty());
    assert!(refused("FSharpPlus/src/FSharpPlus/Operators.fs, `src/**/*.fs`, ./scripts/test.sh").is_empty());
    assert!(refused("[`Message`](crate::lsp::message::Message), <https://example.org/a.md>, #if DEBUG").is_empty());
    assert_eq!(refused("docs/missing.md").len(), 1);
    assert_eq!(refused("shared/fsac-protocol.md §5.7").len(), 1);
    assert_eq!(refused("../shared/DESIGN.md").len(), 1);
    assert_eq!(refused("DESIGN.md §3").len(), 1);
    assert!(!refused("[notes](../../notes.md)").is_empty());
    assert_eq!(refused("`proxy/gone.rs`").len(), 1);
    assert_eq!(
        tracker_numbers("(issue 19), Issues 5 and 7, issue #33, #31, &#39; a#12 #1"),
        ["issue 19", "Issues 5", "issue #33", "#31"]
    );
}

/// The code map of docs/architecture.md: the rows of the table under its first heading.
fn code_map_rows() -> Vec<(Vec<String>, String)> {
    let text = std::fs::read_to_string(repository().join("docs/architecture.md")).unwrap();
    let map = text.split("\n## ").next().unwrap_or_default();
    map.lines()
        .filter(|line| line.starts_with('|') && !line.starts_with("|---") && !line.starts_with("| module"))
        .map(|line| {
            let first_cell = line.split('|').nth(1).unwrap_or_default();
            (backticked(first_cell), line.to_owned())
        })
        .collect()
}

/// The backticked spans of `text`.
fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// Every module under src/ (a `.rs` file other than `lib.rs` and `mod.rs`, or a directory) is
/// named in the code map: by its path from src/ (`proxy/backend.rs`, `session_client/`), or by
/// its own name (`editor.rs`, `find/`) in the row of the directory module that holds it.
#[test]
fn the_architecture_map_names_every_module() {
    let source = repository().join("src");
    let rows = code_map_rows();
    let everywhere: Vec<String> = rows.iter().flat_map(|(_, row)| backticked(row)).collect();
    let mut modules = Vec::new();
    let mut stack = vec![source.clone()];
    while let Some(directory) = stack.pop() {
        for entry in std::fs::read_dir(&directory).unwrap().flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let parent = path.parent().unwrap().strip_prefix(&source).unwrap().display().to_string();
            if path.is_dir() {
                stack.push(path.clone());
                modules.push((parent, format!("{name}/")));
            } else if name.ends_with(".rs") && name != "lib.rs" && name != "mod.rs" {
                modules.push((parent, name));
            }
        }
    }
    modules.sort();
    let mut unnamed = Vec::new();
    for (parent, name) in &modules {
        let full = if parent.is_empty() { name.clone() } else { format!("{parent}/{name}") };
        let by_path = everywhere.contains(&full);
        let by_name = !parent.is_empty()
            && rows.iter().any(|(first_cell, row)| {
                first_cell.iter().any(|named| *named == format!("{parent}/")) && backticked(row).contains(name)
            });
        if !by_path && !by_name {
            unnamed.push(format!("src/{full}"));
        }
    }
    assert!(unnamed.is_empty(), "modules the code map of docs/architecture.md does not name:\n{}", unnamed.join("\n"));
}
