//! Which files can hold a name at all, decided from their bytes before anything is parsed.
//!
//! A find for one name needs the index of only the files whose text contains one of the
//! name's spellings, so a cold find scans the workspace's bytes (both cores, one file at a
//! time, as `rg` does) and parses those files alone; the rest of the index is built later.
//! The scan must never leave out a file that could hold a site: it looks for every spelling
//! the index may store the name under (an operator's characters and its compiled
//! `op_…` name; an identifier's plain text, which its backticked spelling contains), and a
//! file that cannot be read is kept (indexing it records why it failed). A substring of the
//! raw bytes is sound for the text the index reads: dropping a byte-order mark and replacing
//! invalid UTF-8 keep every valid run of the bytes as it was.
//!
//! Case-insensitive matching (`exact: false`, `name.to_lowercase().contains(…)`) is an ASCII
//! case-insensitive scan; the only other characters whose lower case holds an ASCII letter
//! are U+212A KELVIN SIGN (`k`) and U+0130 (`i` and a combining dot), so a file holding
//! either is kept too (a unit test walks every `char` to prove the list complete). A
//! non-ASCII name matched case-insensitively, or an operator matched by substring, keeps
//! every file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use aho_corasick::AhoCorasick;

use crate::syntax::Overlay;
use crate::syntax::names;

/// Non-ASCII characters whose lower case holds an ASCII character, with that character.
const NON_ASCII_LOWERING_TO_ASCII: &[(char, char)] = &[('\u{0130}', 'i'), ('\u{212A}', 'k')];

/// One name to look for, as the user or the index wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WantedName {
    pub name: String,
    /// `false`: case-insensitive substring of the name's last segment.
    pub exact: bool,
}

impl WantedName {
    pub fn exact(name: impl Into<String>) -> WantedName {
        WantedName { name: name.into(), exact: true }
    }

    /// The byte strings one of which a file must contain to hold this name, and whether they
    /// are matched ignoring ASCII case; `None` when no byte scan can decide it.
    fn needles(&self) -> Option<(Vec<String>, bool)> {
        let stored = names::stored_name(&self.name);
        if stored.is_empty() {
            return None;
        }
        if let Some(core) = names::operator_core(&stored) {
            if !self.exact {
                return None;
            }
            let mut needles = vec![core.to_owned()];
            needles.extend(names::compiled_operator_name(core));
            return Some((needles, false));
        }
        let plain = names::without_backticks(&stored).to_owned();
        if plain.is_empty() {
            return None;
        }
        if self.exact {
            return Some((vec![plain], false));
        }
        if !plain.is_ascii() {
            return None;
        }
        let mut needles = vec![plain.clone()];
        for (character, lowered) in NON_ASCII_LOWERING_TO_ASCII {
            if plain.to_ascii_lowercase().contains(*lowered) {
                needles.push(character.to_string());
            }
        }
        Some((needles, true))
    }
}

/// A compiled byte scan for some names (any of them makes a file a candidate).
pub struct NamePrefilter {
    /// One matcher per case rule; empty with `every_file` set.
    matchers: Vec<AhoCorasick>,
    every_file: bool,
}

/// What a scan found.
#[derive(Clone, Debug, Default)]
pub struct Prefiltered {
    /// The files that may hold a name, in the order they were given.
    pub candidates: Vec<PathBuf>,
    pub scanned_files: usize,
    /// Files that could not be read (kept as candidates).
    pub unreadable: usize,
    /// True when no byte scan could decide and every file was kept unread.
    pub kept_every_file: bool,
}

impl NamePrefilter {
    /// A scan for any of `wanted`; a name no scan can decide makes every file a candidate.
    pub fn for_names(wanted: &[WantedName]) -> NamePrefilter {
        let mut exact = Vec::new();
        let mut ignoring_case = Vec::new();
        let mut every_file = wanted.is_empty();
        for name in wanted {
            match name.needles() {
                Some((needles, false)) => exact.extend(needles),
                Some((needles, true)) => ignoring_case.extend(needles),
                None => every_file = true,
            }
        }
        let mut matchers = Vec::new();
        if !every_file {
            for (needles, ascii_case_insensitive) in [(exact, false), (ignoring_case, true)] {
                if needles.is_empty() {
                    continue;
                }
                match AhoCorasick::builder().ascii_case_insensitive(ascii_case_insensitive).build(&needles) {
                    Ok(matcher) => matchers.push(matcher),
                    // Too many or too long needles to compile: scan nothing, keep everything.
                    Err(_) => every_file = true,
                }
            }
        }
        if every_file {
            matchers.clear();
        }
        NamePrefilter { matchers, every_file }
    }

    /// True when `bytes` may hold one of the names.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        self.every_file || self.matchers.iter().any(|matcher| matcher.is_match(bytes))
    }

    /// The files of `paths` that may hold one of the names (the overlay's text wins over the
    /// disk), scanned on up to `workers` threads.
    pub fn candidates(&self, paths: &[PathBuf], overlay: &Overlay, workers: usize) -> Prefiltered {
        self.candidates_holding(paths, overlay, workers, &[]).0
    }

    /// [`NamePrefilter::candidates`], and for each candidate which of `needles` (up to 64
    /// plain byte strings, bit `n` for `needles[n]`, as [`needles_held`] gives them) its bytes
    /// hold, found in the same read of each file: a qualified find learns which files write
    /// its qualifier without reading the files holding its name a second time. A file that
    /// cannot be read holds every needle; when no scan can decide the names, every file is
    /// kept and read once for the needles alone.
    pub fn candidates_holding(
        &self,
        paths: &[PathBuf],
        overlay: &Overlay,
        workers: usize,
        needles: &[String],
    ) -> (Prefiltered, Vec<u64>) {
        if self.every_file {
            let masks =
                if needles.is_empty() { vec![0; paths.len()] } else { needles_held(paths, overlay, needles, workers) };
            return (
                Prefiltered { candidates: paths.to_vec(), kept_every_file: true, ..Prefiltered::default() },
                masks,
            );
        }
        let held = NeedleMask::new(needles);
        let next = AtomicUsize::new(0);
        let totals = Mutex::new(ScanTotals::default());
        let work = || {
            let mut mine = ScanTotals::default();
            loop {
                let slot = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = paths.get(slot) else { break };
                if let Some(mask) = self.file_may_hold(path, overlay, &held, &mut mine) {
                    mine.kept.push((slot, mask));
                }
            }
            totals.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).absorb(mine);
        };
        let workers = workers.clamp(1, paths.len().max(1));
        std::thread::scope(|scope| {
            for worker in 1..workers {
                let _ = std::thread::Builder::new().name(format!("prefilter_task_{worker}")).spawn_scoped(scope, work);
            }
            work();
        });
        let mut totals = totals.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        totals.kept.sort_unstable();
        let candidates = totals.kept.iter().map(|(slot, _)| paths[*slot].clone()).collect();
        let masks = totals.kept.iter().map(|(_, mask)| *mask).collect();
        let (scanned_files, unreadable) = (totals.files, totals.unreadable);
        (Prefiltered { candidates, scanned_files, unreadable, kept_every_file: false }, masks)
    }

    /// Reads one file (the overlay's text first) and says whether it may hold a name, with
    /// the needles its bytes hold when it may; a file that cannot be read may, and holds every
    /// needle.
    fn file_may_hold(&self, path: &Path, overlay: &Overlay, held: &NeedleMask, totals: &mut ScanTotals) -> Option<u64> {
        totals.files += 1;
        let judge = |bytes: &[u8]| self.matches(bytes).then(|| held.of(bytes));
        if let Some(text) = overlay.get(path) {
            return judge(text.as_bytes());
        }
        match crate::source_files::read_regular_file(path) {
            Ok(content) => judge(&content),
            Err(_) => {
                totals.unreadable += 1;
                Some(held.every)
            }
        }
    }
}

/// Which of up to 64 plain byte strings some bytes hold (bit `n` for `needles[n]`).
struct NeedleMask {
    /// `None`: no needles (every mask is 0), or too many or unbuildable (every mask is full).
    matcher: Option<AhoCorasick>,
    every: u64,
}

impl NeedleMask {
    fn new(needles: &[String]) -> NeedleMask {
        let every = if needles.len() >= 64 { u64::MAX } else { (1u64 << needles.len()) - 1 };
        let matcher =
            if needles.is_empty() || needles.len() > 64 { None } else { AhoCorasick::builder().build(needles).ok() };
        NeedleMask { matcher, every }
    }

    fn of(&self, bytes: &[u8]) -> u64 {
        let Some(matcher) = &self.matcher else { return self.every };
        let mut mask = 0u64;
        for found in matcher.find_overlapping_iter(bytes) {
            mask |= 1u64 << found.pattern().as_usize();
            if mask == self.every {
                break;
            }
        }
        mask
    }
}

/// Which of up to 64 plain byte strings each file of `paths` holds (bit `n` for
/// `needles[n]`), read on up to `workers` threads (the overlay's text first). A file that
/// cannot be read holds every one: a narrowing built on this scan can only widen for it.
pub fn needles_held(paths: &[PathBuf], overlay: &Overlay, needles: &[String], workers: usize) -> Vec<u64> {
    let held = NeedleMask::new(needles);
    if held.matcher.is_none() {
        return vec![held.every; paths.len()];
    }
    let masks: Vec<std::sync::atomic::AtomicU64> = paths.iter().map(|_| std::sync::atomic::AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let slot = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = paths.get(slot) else { break };
            let mask = match overlay.get(path) {
                Some(text) => held.of(text.as_bytes()),
                None => crate::source_files::read_regular_file(path).map_or(held.every, |content| held.of(&content)),
            };
            masks[slot].store(mask, Ordering::Relaxed);
        }
    };
    let workers = workers.clamp(1, paths.len().max(1));
    std::thread::scope(|scope| {
        for worker in 1..workers {
            let _ = std::thread::Builder::new().name(format!("prefilter_task_{worker}")).spawn_scoped(scope, work);
        }
        work();
    });
    masks.into_iter().map(std::sync::atomic::AtomicU64::into_inner).collect()
}

/// Scans `paths` for `wanted` and brings the index of the files that may hold one up to date
/// (the overlay's text winning): what a lookup by name needs, without the rest of the index.
pub fn index_files_holding(
    index: &crate::syntax::SyntaxIndex,
    paths: &[PathBuf],
    overlay: &Overlay,
    wanted: &[WantedName],
) -> Prefiltered {
    let found = NamePrefilter::for_names(wanted).candidates(paths, overlay, index.options().worker_count(paths.len()));
    index.index_paths(&found.candidates, overlay);
    found
}

/// One worker's share of a scan.
#[derive(Default)]
struct ScanTotals {
    /// Slots (in the caller's list) of the files kept, with the needles each holds.
    kept: Vec<(usize, u64)>,
    files: usize,
    unreadable: usize,
}

impl ScanTotals {
    fn absorb(&mut self, other: ScanTotals) {
        self.kept.extend(other.kept);
        self.files += other.files;
        self.unreadable += other.unreadable;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefilter(name: &str, exact: bool) -> NamePrefilter {
        NamePrefilter::for_names(&[WantedName { name: name.to_owned(), exact }])
    }

    #[test]
    fn only_kelvin_and_dotted_capital_i_lower_into_ascii_from_outside_it() {
        let mut found = Vec::new();
        for character in (0..=u32::from(char::MAX)).filter_map(char::from_u32).filter(|character| !character.is_ascii())
        {
            for lowered in character.to_lowercase().filter(char::is_ascii) {
                found.push((character, lowered));
            }
        }
        assert_eq!(found, NON_ASCII_LOWERING_TO_ASCII);
    }

    #[test]
    fn every_spelling_the_index_stores_is_found_in_the_bytes() {
        let weight = prefilter("Weight", true);
        assert!(weight.matches(b"let w = p.Weight"));
        assert!(weight.matches(b"let ``Weight`` = 1"));
        assert!(!weight.matches(b"let w = p.weight"));
        assert!(prefilter("``Weight``", true).matches(b"p.Weight"));
        assert!(prefilter("``my value``", true).matches(b"let ``my value`` = 1"));
        // An operator: its characters, or its compiled name.
        for written in [">>=", "(>>=)", "op_GreaterGreaterEquals"] {
            let bind = prefilter(written, true);
            assert!(bind.matches(b"let x = a >>= f"), "{written}");
            assert!(bind.matches(b"let x = op_GreaterGreaterEquals a f"), "{written}");
            assert!(!bind.matches(b"let x = a >> f"), "{written}");
        }
        // Non-exact: ASCII case ignored, and the two characters lowering into ASCII kept.
        let loose = prefilter("weigh", false);
        assert!(loose.matches(b"p.WEIGHT"));
        assert!(!loose.matches(b"p.Height"));
        assert!(prefilter("kilo", false).matches("let \u{212A}ilo = 1".as_bytes()));
        assert!(prefilter("Id", false).matches("let \u{130}d = 1".as_bytes()));
        assert!(!prefilter("Id", true).matches("let \u{130}d = 1".as_bytes()));
    }

    #[test]
    fn needles_held_are_one_bit_each_and_an_unreadable_file_holds_all() {
        let directory = tempfile::tempdir().unwrap();
        let (first, second) = (directory.path().join("A.fs"), directory.path().join("B.fs"));
        std::fs::write(&first, "module Alpha.Beta\nlet gamma = AlphaBeta").unwrap();
        std::fs::write(&second, "let beta = 1").unwrap();
        let missing = directory.path().join("Missing.fs");
        let needles = ["Alpha".to_owned(), "Beta".to_owned(), "gamma".to_owned(), "delta".to_owned()];
        let masks = needles_held(&[first, second, missing], &Overlay::new(), &needles, 2);
        assert_eq!(masks, [0b0111, 0b0000, 0b1111]);
    }

    #[test]
    fn candidates_holding_give_each_candidates_needles_from_the_same_read() {
        let directory = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = directory.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let paths = vec![
            write("A.fs", "module Alpha.Beta\nlet gamma = 1"),
            write("B.fs", "let beta = 1"),
            write("C.fs", "open Alpha\nlet x = Beta.gamma"),
            directory.path().join("Missing.fs"),
            write("D.fs", "let gamma = Beta"),
        ];
        let mut overlay = Overlay::new();
        overlay.insert(paths[1].clone(), "let y = Alpha.gamma");
        let needles = ["Alpha".to_owned(), "Beta".to_owned()];
        let (found, masks) = prefilter("gamma", true).candidates_holding(&paths, &overlay, 2, &needles);
        assert_eq!(found.candidates, [&paths[0], &paths[1], &paths[2], &paths[3], &paths[4]].map(Clone::clone));
        assert_eq!(masks, [0b11, 0b01, 0b11, 0b11, 0b10]);
        assert_eq!((found.scanned_files, found.unreadable), (5, 1));
        // The same masks as a second read would give, and the same candidates as a plain scan.
        assert_eq!(masks, needles_held(&found.candidates, &overlay, &needles, 2));
        assert_eq!(found.candidates, prefilter("gamma", true).candidates(&paths, &overlay, 2).candidates);
        // No scan can decide: every file kept, each read for the needles alone.
        let (every, masks) = prefilter(">>=", false).candidates_holding(&paths, &overlay, 2, &needles);
        assert!(every.kept_every_file);
        assert_eq!(masks, needles_held(&paths, &overlay, &needles, 2));
    }

    #[test]
    fn what_no_scan_can_decide_keeps_every_file() {
        assert!(prefilter("Größe", false).matches(b"nothing"));
        assert!(prefilter(">>=", false).matches(b"nothing"));
        assert!(NamePrefilter::for_names(&[]).matches(b"nothing"));
        assert!(prefilter("Größe", true).matches("let Größe = 1".as_bytes()));
        assert!(!prefilter("Größe", true).matches(b"let size = 1"));
    }

    #[test]
    fn candidates_keep_order_read_the_overlay_first_and_keep_unreadable_files() {
        let directory = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for slot in 0..40 {
            let path = directory.path().join(format!("F{slot:02}.fs"));
            let text =
                if slot % 7 == 0 { format!("let stamp{slot} = Parcel.Weight\n") } else { "let x = 1\n".to_owned() };
            std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
            paths.push(path);
        }
        let missing = directory.path().join("Missing.fs");
        paths.insert(3, missing.clone());
        let mut overlay = Overlay::new();
        overlay.insert(paths[1].clone(), "let unsaved = p.Weight");
        overlay.insert(paths[0].clone(), "let unsaved = 2");
        let found = prefilter("Weight", true).candidates(&paths, &overlay, 2);
        let names: Vec<String> =
            found.candidates.iter().map(|path| path.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["F01.fs", "Missing.fs", "F07.fs", "F14.fs", "F21.fs", "F28.fs", "F35.fs"]);
        assert_eq!((found.scanned_files, found.unreadable, found.kept_every_file), (41, 1, false));
    }
}
