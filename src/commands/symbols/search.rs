//! The ranking behind `fslens.symbolSearch`: BM25 over identifier occurrence counts from the
//! syntax index, a bonus for files that declare a matching name, and priors that demote test,
//! generated and vendored files.
//!
//! [`SearchTables`] are derived from a [`SyntaxIndex`] and cached by its generation: a word
//! table over every interned name (for matching query terms) and, per file, its identifier
//! counts, inverted into postings `name → (file, count)`. A query then touches only the
//! postings of the names its terms match, which is what makes it fast on a large workspace.
//! When the index changes, only the files whose entries changed are counted again.
//!
//! Scoring, per file: for each term, the term frequency is the weighted sum of the counts of
//! the names it matches (exact 1.0, case-insensitive 0.8, by words 0.4); BM25 (k1 = 1.2,
//! b = 0.75, document length = identifier occurrences in the file) gives the term's part.
//! A file declaring a name that matches a term exactly or case-insensitively gets that term's
//! highest possible BM25 part again, so for one term it ranks above every file that only uses
//! the name. The sum is multiplied by the priors (test 0.5, generated 0.3, vendored 0.3). Ties
//! are broken by path, so the order is stable.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::commands::symbols::terms::{MatchKind, QueryTerm, match_name, split_words};
use crate::syntax::SyntaxIndex;
use crate::syntax::index::IndexedFile;
use crate::syntax::model::{FastHashMap, NameId};

const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// Why a file is demoted, with the factor its score is multiplied by; spelled in lower case
/// in `results[].priors`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Prior {
    Test,
    Generated,
    Vendored,
}

impl Prior {
    pub fn factor(self) -> f64 {
        match self {
            Prior::Test => 0.5,
            Prior::Generated | Prior::Vendored => 0.3,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Prior::Test => "test",
            Prior::Generated => "generated",
            Prior::Vendored => "vendored",
        }
    }
}

/// The priors a workspace-relative path (with `/` separators) earns by its name alone.
pub fn path_priors(relative: &str) -> Vec<Prior> {
    let components: Vec<&str> = relative.split('/').filter(|component| !component.is_empty()).collect();
    let (directories, file_name) = match components.split_last() {
        Some((file_name, directories)) => (directories, *file_name),
        None => (&[][..], ""),
    };
    let lower_file = file_name.to_ascii_lowercase();
    let stem = file_name.split('.').next().unwrap_or(file_name);
    let mut priors = Vec::new();
    let test_directory = directories.iter().any(|directory| {
        let lower = directory.to_ascii_lowercase();
        lower == "test"
            || lower == "tests"
            || split_words(directory).iter().any(|word| word == "tests" || word == "test")
    });
    let test_file = stem.ends_with("Tests") || stem.ends_with("Test") || lower_file.ends_with("tests.fs");
    if test_directory || test_file {
        priors.push(Prior::Test);
    }
    let generated_directory = directories.iter().any(|directory| directory.eq_ignore_ascii_case("obj"));
    let generated_file = lower_file.ends_with(".g.fs")
        || lower_file.ends_with(".g.i.fs")
        || lower_file.ends_with(".designer.fs")
        || lower_file.contains("assemblyinfo");
    if generated_directory || generated_file {
        priors.push(Prior::Generated);
    }
    const VENDORED: &[&str] = &["paket-files", "vendor", "external", "node_modules", "third_party", "thirdparty"];
    if directories.iter().any(|directory| VENDORED.iter().any(|vendored| directory.eq_ignore_ascii_case(vendored))) {
        priors.push(Prior::Vendored);
    }
    priors
}

/// Per-file counts derived from one index entry.
struct FileCounts {
    file: Arc<IndexedFile>,
    /// Identifier occurrences in the file (BM25's document length).
    total: u32,
    /// `(name, occurrences)`, by name.
    counts: Vec<(NameId, u32)>,
    /// The file's priors, computed at its first ranking (its path and its index's generated-header flag).
    priors: std::sync::OnceLock<Vec<Prior>>,
}

/// Tables derived from a [`SyntaxIndex`]; see the module documentation.
#[derive(Default)]
pub struct SearchTables {
    generation: Option<u64>,
    names: NameTables,
    counted: FileTables,
}

/// What ranking reads per file: counts, postings, declarations.
#[derive(Default)]
struct FileTables {
    /// By slot: the indexed files.
    files: Vec<FileCounts>,
    /// Name → `(slot, occurrences)` of the files using it.
    postings: ByName<(u32, u32)>,
    /// Declared name → the files (slots) declaring it.
    declared: ByName<u32>,
    average_length: f64,
}

/// What query terms are matched against: every interned name's words, and the names by lower
/// case and by word. Names are interned for good, so these only grow.
#[derive(Default)]
struct NameTables {
    /// By name id.
    name_words: Vec<Box<[String]>>,
    by_lowercase: HashMap<String, Vec<NameId>>,
    by_word: HashMap<String, Vec<NameId>>,
}

impl NameTables {
    /// Adds the names interned since the last call.
    fn cover_new_names(&mut self, interner: &crate::syntax::Interner) {
        let names = interner.names();
        for (id, name) in names.iter().enumerate().skip(self.name_words.len()) {
            let id = NameId(id as u32);
            let words = split_words(name);
            for word in &words {
                let entry = self.by_word.entry(word.clone()).or_default();
                if entry.last() != Some(&id) {
                    entry.push(id);
                }
            }
            self.by_lowercase.entry(name.to_lowercase()).or_default().push(id);
            self.name_words.push(words.into_boxed_slice());
        }
    }
}

/// Lists by name id, stored flat: the list of name `n` is `items[starts[n]..starts[n + 1]]`.
/// Name ids are dense (the interner numbers them from 0), so this needs no hashing, and it is
/// built in two passes over its pairs (count, then place).
struct ByName<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for ByName<T> {
    fn default() -> Self {
        ByName { starts: Vec::new(), items: Vec::new() }
    }
}

impl<T: Copy + Default> ByName<T> {
    /// From `pairs()` (called twice, yielding the same pairs), for names below `names`.
    fn build<I: Iterator<Item = (NameId, T)>>(names: usize, pairs: impl Fn() -> I) -> ByName<T> {
        let mut starts = vec![0u32; names + 1];
        for (name, _) in pairs() {
            if let Some(count) = starts.get_mut(name.0 as usize + 1) {
                *count += 1;
            }
        }
        for slot in 1..starts.len() {
            starts[slot] += starts[slot - 1];
        }
        let mut items = vec![T::default(); starts.last().copied().unwrap_or(0) as usize];
        let mut next = starts.clone();
        for (name, item) in pairs() {
            if let Some(place) = next.get_mut(name.0 as usize) {
                items[*place as usize] = item;
                *place += 1;
            }
        }
        ByName { starts, items }
    }

    fn get(&self, name: NameId) -> &[T] {
        let slot = name.0 as usize;
        match (self.starts.get(slot), self.starts.get(slot + 1)) {
            (Some(start), Some(end)) => &self.items[*start as usize..*end as usize],
            _ => &[],
        }
    }
}

impl SearchTables {
    pub fn new() -> Self {
        SearchTables::default()
    }

    /// The index generation these tables reflect.
    pub fn generation(&self) -> Option<u64> {
        self.generation
    }

    pub fn file_count(&self) -> usize {
        self.counted.files.len()
    }

    /// Brings the tables up to date with `index`; a no-op while its generation is unchanged.
    pub fn refresh(&mut self, index: &SyntaxIndex) {
        let generation = index.generation();
        if self.generation == Some(generation) {
            return;
        }
        // The name tables grow on a thread of their own while the files are counted.
        let (names, counted) = (&mut self.names, &mut self.counted);
        let spawned = std::thread::scope(|scope| {
            let covering = std::thread::Builder::new()
                .name("search_names_task".to_owned())
                .spawn_scoped(scope, || names.cover_new_names(index.interner()));
            counted.count_files(index);
            covering.is_ok()
        });
        if !spawned {
            self.names.cover_new_names(index.interner());
        }
        self.generation = Some(generation);
    }
}

impl FileTables {
    /// The per-file counts, postings, declarations and average length of `index`'s files.
    fn count_files(&mut self, index: &SyntaxIndex) {
        // Slots follow the index's own order: ranking breaks ties by path, not by slot.
        let mut previous: FastHashMap<PathBuf, FileCounts> =
            std::mem::take(&mut self.files).into_iter().map(|counted| (counted.file.path.clone(), counted)).collect();
        self.files = index
            .indexed_files()
            .into_iter()
            .map(|file| {
                let reused = previous.remove(&file.path).filter(|counted| Arc::ptr_eq(&counted.file, &file));
                reused.unwrap_or_else(|| count_file(file))
            })
            .collect();
        let names = index.interner().len();
        let files = &self.files;
        self.postings = ByName::build(names, || {
            files.iter().enumerate().flat_map(|(slot, counted)| {
                counted.counts.iter().map(move |&(name, count)| (name, (slot as u32, count)))
            })
        });
        // A file declaring a name twice is listed once.
        self.declared = ByName::build(names, || {
            files.iter().enumerate().flat_map(|(slot, counted)| {
                let mut declared: Vec<NameId> =
                    counted.file.index.declarations.iter().map(|declaration| declaration.name).collect();
                declared.sort_unstable();
                declared.dedup();
                declared.into_iter().map(move |name| (name, slot as u32))
            })
        });
        let total_length: f64 = self.files.iter().map(|counted| f64::from(counted.total)).sum();
        self.average_length =
            if self.files.is_empty() { 1.0 } else { (total_length / self.files.len() as f64).max(1.0) };
    }
}

impl SearchTables {
    /// The names `term` matches, with how.
    pub fn matching_names(&self, index: &SyntaxIndex, term: &QueryTerm) -> Vec<(NameId, MatchKind)> {
        let mut matched: BTreeMap<NameId, MatchKind> = BTreeMap::new();
        let mut consider = |id: NameId| {
            let name = index.name(id);
            let words = self.names.name_words.get(id.0 as usize).map(|words| &words[..]).unwrap_or(&[]);
            if let Some(kind) = match_name(term, &name, words) {
                let slot = matched.entry(id).or_insert(kind);
                *slot = (*slot).max(kind);
            }
        };
        for &id in self.names.by_lowercase.get(&term.text.to_lowercase()).into_iter().flatten() {
            consider(id);
        }
        // Candidates by words: the names holding the term's rarest word.
        let rarest = term.words.iter().filter_map(|word| self.names.by_word.get(word)).min_by_key(|names| names.len());
        if term.words.iter().all(|word| self.names.by_word.contains_key(word)) {
            for &id in rarest.into_iter().flatten() {
                consider(id);
            }
        }
        matched.into_iter().collect()
    }
}

fn count_file(file: Arc<IndexedFile>) -> FileCounts {
    let counts = file.index.occurrences.counts();
    let total = counts.iter().map(|(_, count)| count).sum();
    FileCounts { file, total, counts, priors: std::sync::OnceLock::new() }
}

/// One name that contributed to a term in a file.
#[derive(Clone, Debug, PartialEq)]
pub struct NameCount {
    pub name: NameId,
    pub kind: MatchKind,
    pub count: u32,
}

/// What one term contributed to a file.
#[derive(Clone, Debug, PartialEq)]
pub struct TermInFile {
    pub term: usize,
    pub frequency: f64,
    pub occurrences: u32,
    pub names: Vec<NameCount>,
}

/// One ranked file.
#[derive(Clone, Debug)]
pub struct RankedFile {
    pub path: PathBuf,
    pub file: Arc<IndexedFile>,
    pub score: f64,
    pub bm25: f64,
    pub declaration_bonus: f64,
    pub priors: Vec<Prior>,
    pub terms: Vec<TermInFile>,
}

impl RankedFile {
    /// Declarations (slots in the file's list) whose name matches a term, in text order.
    pub fn matching_declarations(&self) -> Vec<usize> {
        self.file
            .index
            .declarations
            .iter()
            .enumerate()
            .filter(|(_, declaration)| {
                self.terms.iter().any(|hit| hit.names.iter().any(|name| name.name == declaration.name))
            })
            .map(|(slot, _)| slot)
            .collect()
    }
}

/// The ranked files for `terms`, best first, ties by path. `relative` maps a path to the
/// workspace-relative form the path priors look at.
pub fn rank(
    tables: &SearchTables,
    index: &SyntaxIndex,
    terms: &[QueryTerm],
    relative: &dyn Fn(&Path) -> String,
) -> Vec<RankedFile> {
    let file_count = tables.counted.files.len() as f64;
    let mut per_file: HashMap<u32, Vec<TermInFile>> = HashMap::new();
    let mut term_weights: Vec<f64> = Vec::with_capacity(terms.len());
    // Per term, the files declaring a name that matches it exactly or case-insensitively.
    let mut declaring_slots: Vec<std::collections::HashSet<u32>> = Vec::with_capacity(terms.len());
    for (term_number, term) in terms.iter().enumerate() {
        let matched = tables.matching_names(index, term);
        declaring_slots.push(
            matched
                .iter()
                .filter(|(_, kind)| *kind != MatchKind::Words)
                .flat_map(|(name, _)| tables.counted.declared.get(*name).iter().copied())
                .collect(),
        );
        let mut in_files: HashMap<u32, TermInFile> = HashMap::new();
        for (name, kind) in &matched {
            for &(slot, count) in tables.counted.postings.get(*name) {
                let entry = in_files.entry(slot).or_insert_with(|| TermInFile {
                    term: term_number,
                    frequency: 0.0,
                    occurrences: 0,
                    names: Vec::new(),
                });
                entry.frequency += kind.weight() * f64::from(count);
                entry.occurrences += count;
                entry.names.push(NameCount { name: *name, kind: *kind, count });
            }
        }
        let document_frequency = in_files.len() as f64;
        let idf = (1.0 + (file_count - document_frequency + 0.5) / (document_frequency + 0.5)).ln();
        term_weights.push(idf);
        for (slot, mut hit) in in_files {
            hit.names.sort_by(|left, right| right.kind.cmp(&left.kind).then(right.count.cmp(&left.count)));
            per_file.entry(slot).or_default().push(hit);
        }
    }
    let mut ranked: Vec<RankedFile> = Vec::with_capacity(per_file.len());
    for (slot, mut hits) in per_file {
        let Some(counted) = tables.counted.files.get(slot as usize) else { continue };
        let path = &counted.file.path;
        hits.sort_by_key(|hit| hit.term);
        let length = f64::from(counted.total.max(1));
        let normaliser = BM25_K1 * (1.0 - BM25_B + BM25_B * length / tables.counted.average_length);
        let mut bm25 = 0.0;
        for hit in &hits {
            let idf = term_weights[hit.term];
            bm25 += idf * hit.frequency * (BM25_K1 + 1.0) / (hit.frequency + normaliser);
        }
        let mut declaration_bonus = 0.0;
        for (term_number, declaring) in declaring_slots.iter().enumerate() {
            if declaring.contains(&slot) {
                declaration_bonus += term_weights[term_number] * (BM25_K1 + 1.0);
            }
        }
        let priors = counted
            .priors
            .get_or_init(|| {
                let mut priors = path_priors(&relative(path));
                if counted.file.index.generated_header && !priors.contains(&Prior::Generated) {
                    priors.push(Prior::Generated);
                }
                priors
            })
            .clone();
        let factor: f64 = priors.iter().map(|prior| prior.factor()).product();
        ranked.push(RankedFile {
            path: path.clone(),
            file: counted.file.clone(),
            score: (bm25 + declaration_bonus) * factor,
            bm25,
            declaration_bonus,
            priors,
            terms: hits,
        });
    }
    ranked.sort_by(|left, right| right.score.total_cmp(&left.score).then_with(|| left.path.cmp(&right.path)));
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::symbols::terms::parse_query;
    use crate::syntax::extract::has_generated_header;
    use crate::syntax::{IndexOptions, Overlay};

    /// Indexes `files` (relative path, text) under a temporary root and ranks `query`.
    fn ranked_paths(files: &[(&str, &str)], query: &str) -> Vec<(String, Vec<&'static str>)> {
        let root = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (relative, text) in files {
            let path = root.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            paths.push(path);
        }
        let index = SyntaxIndex::new(IndexOptions::without_cache());
        index.index_paths(&paths, &Overlay::new());
        let mut tables = SearchTables::new();
        tables.refresh(&index);
        let relative =
            |path: &Path| path.strip_prefix(root.path()).unwrap_or(path).to_string_lossy().replace('\\', "/");
        rank(&tables, &index, &parse_query(query).unwrap(), &relative)
            .into_iter()
            .map(|file| (relative(&file.path), file.priors.iter().map(|prior| prior.as_str()).collect()))
            .collect()
    }

    const DECLARES: &str = "module Domain\n\ntype Shipment = { Id: int }\n";
    const USES: &str =
        "module Uses\n\nlet a (s: Shipment) = s\nlet b (s: Shipment) = s\nlet c (s: Shipment) = [s; s]\n";

    #[test]
    fn a_declaring_file_ranks_above_files_that_use_the_name_more() {
        let ranked = ranked_paths(&[("src/Uses.fs", USES), ("src/Domain.fs", DECLARES)], "Shipment");
        let order: Vec<&str> = ranked.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(order, ["src/Domain.fs", "src/Uses.fs"]);
    }

    #[test]
    fn test_generated_and_vendored_files_are_demoted() {
        let ranked = ranked_paths(
            &[
                ("tests/Shipping.Tests/ShipmentTests.fs", USES),
                ("src/obj/Debug/Uses.fs", USES),
                ("paket-files/lib/Uses.fs", USES),
                ("src/Gen.fs", &format!("// <auto-generated />\n{USES}")),
                ("src/Uses.fs", USES),
            ],
            "Shipment",
        );
        assert_eq!(ranked[0], ("src/Uses.fs".to_owned(), vec![]));
        assert_eq!(ranked[1], ("tests/Shipping.Tests/ShipmentTests.fs".to_owned(), vec!["test"]));
        let rest: Vec<(String, Vec<&str>)> = ranked[2..].to_vec();
        assert_eq!(
            rest,
            [
                ("paket-files/lib/Uses.fs".to_owned(), vec!["vendored"]),
                ("src/Gen.fs".to_owned(), vec!["generated"]),
                ("src/obj/Debug/Uses.fs".to_owned(), vec!["generated"]),
            ],
            "equal scores fall back to path order"
        );
    }

    #[test]
    fn ties_are_broken_by_path_and_the_order_is_stable() {
        let files = [("b/Same.fs", USES), ("a/Same.fs", USES), ("c/Same.fs", USES)];
        let first = ranked_paths(&files, "Shipment");
        assert_eq!(
            first.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(),
            ["a/Same.fs", "b/Same.fs", "c/Same.fs"]
        );
        assert_eq!(first, ranked_paths(&files, "Shipment"));
    }

    #[test]
    fn names_matched_by_words_count_less_than_the_name_itself() {
        let by_words = "module W\n\nlet a = ShipmentId 1\nlet b = ShipmentId 2\n";
        let exact = "module E\n\nlet a (x: Shipment) = x\nlet b (x: Shipment) = x\n";
        let ranked =
            ranked_paths(&[("W.fs", by_words), ("E.fs", exact), ("None.fs", "module N\nlet z = 1\n")], "Shipment");
        assert_eq!(ranked.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(), ["E.fs", "W.fs"]);
    }

    #[test]
    fn tables_follow_the_index_generation_edits_and_removals() {
        let root = tempfile::tempdir().unwrap();
        let (first, second) = (root.path().join("A.fs"), root.path().join("B.fs"));
        std::fs::write(&first, DECLARES).unwrap();
        std::fs::write(&second, USES).unwrap();
        let index = SyntaxIndex::new(IndexOptions::without_cache());
        index.index_paths(&[first.clone(), second.clone()], &Overlay::new());
        let generation = index.generation();
        index.index_paths(&[first.clone(), second.clone()], &Overlay::new());
        assert_eq!(index.generation(), generation, "unchanged files leave the generation alone");
        let mut tables = SearchTables::new();
        tables.refresh(&index);
        let query = parse_query("Consignment").unwrap();
        let ranked = |tables: &SearchTables| -> Vec<PathBuf> {
            rank(tables, &index, &query, &|path: &Path| path.display().to_string())
                .into_iter()
                .map(|file| file.path)
                .collect()
        };
        assert!(ranked(&tables).is_empty());
        // An unsaved edit: the generation moves and the tables count the new text.
        let mut overlay = Overlay::new();
        overlay.insert(second.clone(), format!("{USES}\nlet d (c: Consignment) = c\n"));
        index.refresh_path(&second, &overlay);
        assert_ne!(index.generation(), generation);
        tables.refresh(&index);
        assert_eq!(ranked(&tables), std::slice::from_ref(&second));
        index.remove_path(&second);
        tables.refresh(&index);
        assert!(ranked(&tables).is_empty());
        assert_eq!(tables.file_count(), 1);
    }

    #[test]
    fn path_priors() {
        let names = |path: &str| super::path_priors(path).iter().map(|prior| prior.as_str()).collect::<Vec<_>>();
        assert_eq!(names("tests/A.fs"), ["test"]);
        assert_eq!(names("src/Shipping.Tests/A.fs"), ["test"]);
        assert_eq!(names("src/UnitTests/A.fs"), ["test"]);
        assert_eq!(names("src/ShipmentTests.fs"), ["test"]);
        assert!(names("src/Contest.fs").is_empty() && names("src/Latest/A.fs").is_empty());
        assert_eq!(names("src/obj/x/A.fs"), ["generated"]);
        assert_eq!(names("src/Parser.g.fs"), ["generated"]);
        assert_eq!(names("src/AssemblyInfo.fs"), ["generated"]);
        assert_eq!(names("vendor/x/A.fs"), ["vendored"]);
        assert_eq!(names("external/A.fs"), ["vendored"]);
        assert!(has_generated_header("//------\n// <auto-generated>\n"));
        assert!(!has_generated_header("module A\n"));
    }
}
