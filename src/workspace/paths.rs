//! Path helpers for the project model: MSBuild-style path normalisation, the directory walk
//! that skips build output, and MSBuild wildcard matching (`*`, `?`, `**`).

use std::path::{Component, Path, PathBuf};

/// Directories never walked into.
pub const SKIPPED_DIRECTORIES: &[&str] = &["bin", "obj", "node_modules", ".git"];

/// True for F# source extensions (`.fs`, `.fsx`, `.fsscript`, `.fsi`; any case). The syntax
/// layer's grammar choice (`syntax::GrammarKind::for_path`) reads this list.
pub fn is_fsharp_source(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| ["fs", "fsx", "fsscript", "fsi"].contains(&extension.to_ascii_lowercase().as_str()))
}

/// Resolves an MSBuild path (either separator) against `base` and removes `.`/`..` lexically.
pub fn resolve_msbuild_path(base: &Path, written: &str) -> PathBuf {
    let unified = written.trim().replace('\\', "/");
    let joined = if Path::new(&unified).is_absolute() { PathBuf::from(&unified) } else { base.join(&unified) };
    normalize_lexically(&joined)
}

/// Removes `.` and `..` components without touching the file system.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut result = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !result.pop() {
                    result.push("..");
                }
            }
            other => result.push(other.as_os_str()),
        }
    }
    result
}

/// Every file below `root` (not following symlinked directories), skipping
/// [`SKIPPED_DIRECTORIES`], sorted. Unreadable directories are skipped.
pub fn walk_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if file_type.is_dir() {
                let name = entry.file_name();
                let skip =
                    SKIPPED_DIRECTORIES.iter().any(|skipped| name.to_string_lossy().eq_ignore_ascii_case(skipped));
                if !skip {
                    pending.push(path);
                }
            } else if file_type.is_file() || (file_type.is_symlink() && path.is_file()) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// True when `written` contains an MSBuild wildcard.
pub fn has_wildcard(written: &str) -> bool {
    written.contains('*') || written.contains('?')
}

/// Expands an MSBuild wildcard relative to `base`, in sorted path order.
pub fn expand_wildcard(base: &Path, written: &str) -> Vec<PathBuf> {
    let unified = written.trim().replace('\\', "/");
    let segments: Vec<&str> = unified.split('/').filter(|segment| !segment.is_empty()).collect();
    let literal_count = segments.iter().take_while(|segment| !has_wildcard(segment)).count();
    let mut walk_root = if Path::new(&unified).is_absolute() { PathBuf::from("/") } else { base.to_path_buf() };
    for segment in &segments[..literal_count] {
        walk_root.push(segment);
    }
    let walk_root = normalize_lexically(&walk_root);
    let pattern = &segments[literal_count..];
    if pattern.is_empty() {
        return vec![walk_root];
    }
    walk_files(&walk_root)
        .into_iter()
        .filter(|file| {
            let Ok(relative) = file.strip_prefix(&walk_root) else {
                return false;
            };
            let parts: Vec<String> =
                relative.components().map(|component| component.as_os_str().to_string_lossy().into_owned()).collect();
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            segments_match(pattern, &parts)
        })
        .collect()
}

/// True when `path` (absolute) matches the MSBuild pattern `written` relative to `base`.
pub fn path_matches(base: &Path, written: &str, path: &Path) -> bool {
    let unified = written.trim().replace('\\', "/");
    if !has_wildcard(&unified) {
        return resolve_msbuild_path(base, &unified) == path;
    }
    let absolute = if Path::new(&unified).is_absolute() { PathBuf::from(&unified) } else { base.join(&unified) };
    let absolute = absolute.to_string_lossy().replace('\\', "/");
    let pattern: Vec<&str> = absolute.split('/').filter(|segment| !segment.is_empty()).collect();
    let pattern = normalize_pattern(&pattern);
    let path_text = path.to_string_lossy().replace('\\', "/");
    let parts: Vec<&str> = path_text.split('/').filter(|segment| !segment.is_empty()).collect();
    let pattern: Vec<&str> = pattern.iter().map(String::as_str).collect();
    segments_match(&pattern, &parts)
}

fn normalize_pattern(segments: &[&str]) -> Vec<String> {
    let mut result: Vec<String> = Vec::new();
    for segment in segments {
        match *segment {
            "." => {}
            ".." => {
                result.pop();
            }
            other => result.push(other.to_owned()),
        }
    }
    result
}

/// Matches path segments against pattern segments, where `**` spans any number of segments.
fn segments_match(pattern: &[&str], parts: &[&str]) -> bool {
    // Iterative dynamic programming keeps pathological patterns polynomial.
    let mut reachable = vec![false; parts.len() + 1];
    reachable[0] = true;
    for segment in pattern {
        let mut next = vec![false; parts.len() + 1];
        if *segment == "**" {
            let mut any = false;
            for index in 0..=parts.len() {
                any |= reachable[index];
                next[index] = any;
            }
        } else {
            for index in 0..parts.len() {
                if reachable[index] && segment_matches(segment, parts[index]) {
                    next[index + 1] = true;
                }
            }
        }
        reachable = next;
    }
    reachable[parts.len()]
}

/// `*` and `?` within one segment; case-insensitive like MSBuild on Windows and macOS.
fn segment_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let text: Vec<char> = text.to_lowercase().chars().collect();
    let mut reachable = vec![false; text.len() + 1];
    reachable[0] = true;
    for character in &pattern {
        let mut next = vec![false; text.len() + 1];
        match character {
            '*' => {
                let mut any = false;
                for index in 0..=text.len() {
                    any |= reachable[index];
                    next[index] = any;
                }
            }
            _ => {
                for index in 0..text.len() {
                    if reachable[index] && (*character == '?' || *character == text[index]) {
                        next[index + 1] = true;
                    }
                }
            }
        }
        reachable = next;
    }
    reachable[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_segments() {
        assert!(segments_match(&["**", "*.fs"], &["a", "b", "c.fs"]));
        assert!(segments_match(&["**", "*.fs"], &["c.fs"]));
        assert!(!segments_match(&["*.fs"], &["a", "c.fs"]));
        assert!(segments_match(&["src", "**", "Gen?.fs"], &["src", "x", "Gen1.fs"]));
        assert!(!segments_match(&["src", "*.fsi"], &["src", "a.fs"]));
    }

    #[test]
    fn lexical_normalisation() {
        assert_eq!(resolve_msbuild_path(Path::new("/w/p"), "..\\shared\\A.fs"), PathBuf::from("/w/shared/A.fs"));
        assert_eq!(resolve_msbuild_path(Path::new("/w/p"), "./A.fs"), PathBuf::from("/w/p/A.fs"));
    }
}
