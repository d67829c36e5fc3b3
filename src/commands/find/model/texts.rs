//! The file texts a find quotes, read once (the editor's buffer first, else the disk), and the
//! path of a row's `file`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::commands::find::model::rows::SourceLines;
use crate::syntax::Overlay;

/// The file texts the answer quotes, read once: the editor's buffer first, else the disk.
pub struct Texts {
    pub overlay: Overlay,
    pub cache: HashMap<PathBuf, Option<(String, SourceLines)>>,
}

impl Texts {
    pub fn new(overlay: Overlay) -> Self {
        Texts { overlay, cache: HashMap::new() }
    }

    pub fn text(&mut self, path: &Path) -> Option<&(String, SourceLines)> {
        let overlay = &self.overlay;
        self.cache
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = overlay.current_text_lossy(path).ok()?;
                let lines = SourceLines::new(&text);
                Some((text, lines))
            })
            .as_ref()
    }

    /// Drops a file's cached text (it is read again if asked for later).
    pub fn forget(&mut self, path: &Path) {
        self.cache.remove(path);
    }
}

/// The absolute path of a row's `file` (workspace-relative unless outside the root).
pub fn resolve_display(root: &Path, file: &str) -> PathBuf {
    let path = Path::new(file);
    if path.is_absolute() { path.to_path_buf() } else { crate::workspace::paths::normalize_lexically(&root.join(path)) }
}
