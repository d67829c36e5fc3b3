//! The fixtures' `//>` reference markers (fixtures/README.md): the expected sites of each
//! marked symbol, read from the F# sources so that tests never take expectations from the
//! backend they test.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One expected site.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Marker {
    pub file: PathBuf,
    /// 0-based line of the site (the nearest non-marker line above the marker).
    pub line: u32,
    /// 0-based UTF-16 column where the site starts (the fixtures are ASCII).
    pub character: u32,
    pub length: u32,
    pub kind: String,
    pub symbol: String,
}

/// Every marker in the `.fs`/`.fsx`/`.fsi` files under `root`, sorted.
pub fn read_markers(root: &Path) -> Vec<Marker> {
    let mut markers: Vec<Marker> =
        source_files(root, &["fs", "fsx", "fsi"]).iter().flat_map(|path| markers_in_file(path)).collect();
    markers.sort();
    markers
}

/// Every file under `root` (at any depth) whose extension is one of `extensions`.
pub fn source_files(root: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(directory) = stack.pop() {
        for entry in std::fs::read_dir(&directory).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|extension| extensions.contains(&extension.to_str().unwrap_or(""))) {
                files.push(path);
            }
        }
    }
    files
}

fn markers_in_file(path: &Path) -> Vec<Marker> {
    // Columns count in the text editors and FSAC see, which has no byte-order mark.
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut markers = Vec::new();
    let mut site_line: Option<u32> = None;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if !trimmed.starts_with("//>") {
            site_line = Some(number as u32);
            continue;
        }
        let prefix = line.len() - trimmed.len() + 3;
        let rest = &line[prefix..];
        let spaces = rest.len() - rest.trim_start().len();
        let rest = rest.trim_start();
        let carets = rest.chars().take_while(|&c| c == '^').count();
        let mut words = rest[carets..].split_whitespace();
        let (Some(kind), Some(symbol)) = (words.next(), words.next()) else {
            panic!("malformed marker at {}:{}: {line}", path.display(), number + 1);
        };
        markers.push(Marker {
            file: path.to_path_buf(),
            line: site_line.expect("a marker needs a site line above it"),
            character: (prefix + spaces) as u32,
            length: carets as u32,
            kind: kind.to_owned(),
            symbol: symbol.to_owned(),
        });
    }
    markers
}

/// The markers of one symbol.
pub fn markers_of<'a>(markers: &'a [Marker], symbol: &str) -> Vec<&'a Marker> {
    markers.iter().filter(|marker| marker.symbol == symbol).collect()
}
