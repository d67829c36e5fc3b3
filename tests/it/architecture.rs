//! Architecture invariants that can be checked from the source text (docs/architecture.md).

use std::path::{Path, PathBuf};

fn rust_files(directory: &Path) -> Vec<PathBuf> {
    crate::support::files_under(directory, "rs")
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Lines of code outside comments (good enough for `use` and call-site checks).
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .map(|(number, line)| (number + 1, line.trim().to_owned()))
        .filter(|(_, line)| !line.starts_with("//"))
        .collect()
}

#[test]
fn syntax_layer_knows_nothing_of_lsp_tokio_or_the_proxy() {
    // Invariant 1.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root().join("syntax")) {
        for (number, line) in code_lines(&file) {
            if ["crate::lsp", "crate::proxy", "crate::documents", "tokio", "lsp_types"]
                .iter()
                .any(|name| line.contains(name))
            {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "syntax/ must stay pure:\n{}", offenders.join("\n"));
}

#[test]
fn only_the_backend_launcher_starts_programs() {
    // Invariant 8: no value from a peer chooses a program; only the launcher spawns, and it
    // gets its command line from the user's flags or environment. The dotnet shim (shim.rs)
    // runs the real dotnet, named by the user's own setting file or found on PATH, with the
    // arguments it was started with: no peer is connected yet when it does.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root()) {
        if file.ends_with("proxy/backend.rs") || file.ends_with("src/shim.rs") {
            continue;
        }
        for (number, line) in code_lines(&file) {
            if line.contains("Command::new") || line.contains("process::Command") {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "programs started outside proxy/backend.rs:\n{}", offenders.join("\n"));
}

#[test]
fn nothing_but_main_writes_to_stdout() {
    // Invariant 5 (also enforced by the print_stdout lint): the library never prints.
    let mut offenders = Vec::new();
    for file in rust_files(&source_root()) {
        if file.ends_with("main.rs") || file.ends_with("lsp/stdio.rs") {
            continue;
        }
        for (number, line) in code_lines(&file) {
            if line.contains("std::io::stdout") || line.contains("println!") || line.contains("print!(") {
                offenders.push(format!("{}:{number}: {line}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "stdout used outside main.rs:\n{}", offenders.join("\n"));
}

/// The layers of `src/`, bottom first (docs/architecture.md, "Layers"). A top-level module
/// (a file or folder under `src/`; `main.rs` is its own) may import modules of its own layer
/// or below, never one above; modules of one layer must not import each other both ways.
const LAYERS: &[&[&str]] = &[
    &["uri", "source_files", "deadline", "columns"],
    &["documents"],
    &["lsp"],
    &["failure"],
    &["workspace", "metadata", "session"],
    &["syntax"],
    &["session_state"],
    &["commands"],
    &["proxy"],
    &["session_client"],
    &["navigation"],
    &["mcp"],
    &["cli"],
    &["shim"],
    &["main"],
];

/// The layer of a top-level module, if it has one.
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// A file's text with comments, string and character literals blanked and every
/// `#[cfg(test)] mod … { … }` removed; line breaks are kept, so offsets still give lines.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let blank = |slice: &str, out: &mut String| out.extend(slice.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let previous_is_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            blank(&rest[..end], &mut out);
            i += end;
        } else if rest.starts_with("/*") {
            let (mut depth, mut j) = (0, 0);
            while j < rest.len() {
                if rest[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += rest[j..].chars().next().map_or(1, char::len_utf8);
                }
            }
            blank(&rest[..j], &mut out);
            i += j;
        } else if !previous_is_word && (rest.starts_with("r\"") || rest.starts_with("r#")) {
            let hashes = rest[1..].bytes().take_while(|&b| b == b'#').count();
            if rest[1 + hashes..].starts_with('"') {
                let closing = format!("\"{}", "#".repeat(hashes));
                let body_start = 2 + hashes;
                let end = rest[body_start..].find(&closing).map_or(rest.len(), |at| body_start + at + closing.len());
                blank(&rest[..end], &mut out);
                i += end;
            } else {
                out.push('r');
                i += 1;
            }
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&rest[..end], &mut out);
            i += end;
        } else if let Some(after_quote) = rest.strip_prefix('\'') {
            // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            let literal_end = if let Some(escaped) = after_quote.strip_prefix('\\') {
                escaped.find('\'').map(|at| at + 3)
            } else {
                after_quote.chars().next().filter(|&c| c != '\'').and_then(|c| {
                    let after = 1 + c.len_utf8();
                    rest[after..].starts_with('\'').then_some(after + 1)
                })
            };
            match literal_end {
                Some(end) => {
                    blank(&rest[..end], &mut out);
                    i += end;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    // Unit tests may reach anywhere; they are not part of the layering.
    while let Some(start) = out.find("#[cfg(test)]") {
        let Some(open) = out[start..].find('{').map(|at| start + at) else { break };
        let mut depth = 0;
        let mut end = out.len();
        for (offset, c) in out[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + offset + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked: String = out[start..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        out.replace_range(start..end, &blanked);
    }
    out
}

/// `a::{b, c::{d, e as f}}` as its paths: `a::b`, `a::c::d`, `a::c::e`.
fn use_tree_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(prefix: &[String], text: &str, paths: &mut Vec<Vec<String>>) {
        let (mut depth, mut start) = (0, 0);
        let mut parts = Vec::new();
        for (at, c) in text.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&text[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        parts.push(&text[start..]);
        for part in parts.into_iter().map(str::trim).filter(|part| !part.is_empty()) {
            let mut path = prefix.to_vec();
            if let Some(open) = part.find('{') {
                path.extend(part[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
                walk(&path, &part[open + 1..part.rfind('}').unwrap_or(part.len())], paths);
            } else {
                let name = part.split(" as ").next().unwrap_or(part);
                path.extend(
                    name.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "self").map(str::to_owned),
                );
                paths.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&[], tree, &mut paths);
    paths
}

/// One import of a top-level module by a file of another: where, from which module, to which.
struct Import {
    site: String,
    from: String,
    to: String,
}

/// Every import between top-level modules under `source_root`: `use crate::…` (grouped trees
/// too), `crate::x::y` paths written inline, `super::` paths that leave a top-level module, and
/// `main.rs`'s `fslens::…`; outside comments, literals and `#[cfg(test)]` modules.
fn imports_between_top_level_modules(source_root: &Path) -> Vec<Import> {
    let mut imports = Vec::new();
    for file in rust_files(source_root) {
        let relative = file.strip_prefix(source_root).unwrap();
        let mut module_path: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module_path.last().is_some_and(|last| last == "mod") {
            module_path.pop();
        }
        let from = module_path[0].clone();
        if from == "lib" {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let line_at = |offset: usize| code[..offset].matches('\n').count() + 1;
        let absolute = |path: &[String]| -> Option<Vec<String>> {
            match path.first().map(String::as_str) {
                Some("crate" | "$crate") => Some(path[1..].to_vec()),
                Some("fslens") if from == "main" => Some(path[1..].to_vec()),
                Some("super") => {
                    let ups = path.iter().take_while(|segment| *segment == "super").count();
                    let base = &module_path[..module_path.len().saturating_sub(ups)];
                    Some(base.iter().chain(&path[ups..]).cloned().collect())
                }
                _ => None,
            }
        };
        let mut found: Vec<(usize, Vec<String>)> = Vec::new();
        let mut use_spans = Vec::new();
        let mut search = 0;
        while let Some(at) = code[search..].find("use ").map(|at| search + at) {
            search = at + 4;
            let boundary =
                at == 0 || !code.as_bytes()[at - 1].is_ascii_alphanumeric() && code.as_bytes()[at - 1] != b'_';
            let Some(end) = code[at..].find(';').map(|end| at + end) else { break };
            if !boundary {
                continue;
            }
            use_spans.push(at..end);
            for path in use_tree_paths(&code[at + 4..end]) {
                if let Some(path) = absolute(&path) {
                    found.push((line_at(at), path));
                }
            }
        }
        for prefix in ["crate::", "super::", "fslens::"] {
            let mut search = 0;
            while let Some(at) = code[search..].find(prefix).map(|at| search + at) {
                search = at + prefix.len();
                let before = code[..at].chars().last();
                let starts_path = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    || (before == Some('$') && prefix == "crate::");
                if !starts_path || use_spans.iter().any(|span| span.contains(&at)) {
                    continue;
                }
                let end = code[at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(code.len(), |end| at + end);
                let path: Vec<String> =
                    code[at..end].split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
                if let Some(path) = absolute(&path) {
                    found.push((line_at(at), path));
                }
            }
        }
        for (line, path) in found {
            let Some(to) = path.first() else { continue };
            let is_module = source_root.join(format!("{to}.rs")).is_file() || source_root.join(to).is_dir();
            if is_module && *to != from && to != "lib" {
                imports.push(Import {
                    site: format!("src/{}:{line}", relative.display()),
                    from: from.clone(),
                    to: to.clone(),
                });
            }
        }
    }
    imports
}

/// What breaks the layering: imports from a lower layer to a higher one, imports between
/// modules that import each other (directly or around a circle), and modules in no layer.
fn layering_offences(source_root: &Path) -> Vec<String> {
    let imports = imports_between_top_level_modules(source_root);
    let mut offences = Vec::new();
    let modules: std::collections::BTreeSet<&str> =
        imports.iter().flat_map(|import| [import.from.as_str(), import.to.as_str()]).collect();
    for module in &modules {
        if layer_of(module).is_none() {
            offences.push(format!("src/{module}: in no layer (add it to LAYERS here and to docs/architecture.md)"));
        }
    }
    for import in &imports {
        if let (Some(from), Some(to)) = (layer_of(&import.from), layer_of(&import.to))
            && from < to
        {
            offences.push(format!(
                "{}: upward import: {} (layer {from}) imports {} (layer {to})",
                import.site, import.from, import.to
            ));
        }
    }
    let edges: std::collections::BTreeSet<(&str, &str)> =
        imports.iter().map(|import| (import.from.as_str(), import.to.as_str())).collect();
    let reaches = |start: &str, goal: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![start];
        while let Some(module) = stack.pop() {
            if module == goal {
                return true;
            }
            if seen.insert(module) {
                stack.extend(edges.iter().filter(|(from, _)| *from == module).map(|(_, to)| *to));
            }
        }
        false
    };
    for import in &imports {
        if reaches(&import.to, &import.from) {
            offences.push(format!(
                "{}: circle: {} imports {}, which imports {} back (directly or around a circle)",
                import.site, import.from, import.to, import.from
            ));
        }
    }
    offences
}

#[test]
fn layers_only_point_down() {
    // Invariant 2b (docs/architecture.md, "Layers"): every import between top-level modules of
    // src/ goes down the layer order, and no two top-level modules import each other. This
    // also keeps the commands out of the proxy: proxy is above commands.
    let offences = layering_offences(&source_root());
    assert!(offences.is_empty(), "the layering of src/ is broken:\n{}", offences.join("\n"));
}

#[test]
fn the_layer_check_reads_grouped_uses_inline_paths_and_super() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    std::fs::create_dir_all(root.join("commands")).unwrap();
    std::fs::create_dir_all(root.join("proxy")).unwrap();
    std::fs::write(root.join("uri.rs"), "// crate::proxy in a comment\nconst A: &str = \"crate::proxy\";\n").unwrap();
    std::fs::write(
        root.join("commands/mod.rs"),
        "use crate::{lsp, proxy::{main_loop::Event, ProxyConfig}};\n#[cfg(test)]\nmod tests { use crate::mcp; }\n",
    )
    .unwrap();
    std::fs::write(root.join("commands/status.rs"), "fn f() { super::super::proxy::run(); }\n").unwrap();
    std::fs::write(root.join("proxy/mod.rs"), "fn g() -> crate::commands::Command { todo!() }\n").unwrap();
    std::fs::write(root.join("lsp.rs"), "").unwrap();
    std::fs::write(root.join("mcp.rs"), "").unwrap();
    let offences = layering_offences(root);
    let upward: Vec<&String> = offences.iter().filter(|offence| offence.contains("upward")).collect();
    let sites: Vec<&str> = upward.iter().map(|offence| offence.split(": upward").next().unwrap()).collect();
    assert_eq!(sites, ["src/commands/mod.rs:1", "src/commands/mod.rs:1", "src/commands/status.rs:1"], "{offences:#?}");
    assert!(upward[0].contains("commands (layer 7) imports proxy (layer 8)"), "{offences:#?}");
    assert!(offences.iter().any(|offence| offence.starts_with("src/proxy/mod.rs:1: circle: proxy imports commands")));
    assert!(!offences.iter().any(|offence| offence.contains("uri") || offence.contains("mcp")), "{offences:#?}");
}
