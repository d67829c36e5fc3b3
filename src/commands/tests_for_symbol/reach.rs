//! Reach: from a declaration to the tests that run it, as far as the compiler's references
//! tell. The declaration's sites come from find's typed API ([`find::all_sites`], so find's
//! `complete` rules hold for every step); the declaration around each site is
//! [`enclosing`]'s (a test of a test project, or the outermost `let` or member around it, in
//! any project); each such function is followed the same way, transitively, up to `maxDepth`
//! levels, until a test is reached. Every test carries its chain: the declarations from the
//! start to the test, with file and line at each step. `testsForSymbol` and `affectedTests`
//! both walk it.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::commands::find::answer::Completeness;
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments, FindTimeoutMs};
use crate::commands::find::rows::{SiteKind, SiteRow};
use crate::commands::find::{self, AllSites};
use crate::commands::params::Coordinate;
use crate::commands::{CommandContext, CommandError};
use crate::deadline::Deadline;
use crate::syntax::enclosing::{self, Enclosing, FoundTest, TestAttribute};
use crate::syntax::parse::FsharpParsers;
use crate::workspace::{Project, WorkspaceModel};

use super::projects::{self, TestProjectRule};
use super::{Direct, Framework, HelperRow, OutsideSite, Reach, TestRow};

/// One declaration of a reason chain: its name, file (relative to the workspace root) and
/// 0-based line of its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    pub path: String,
    pub line: u32,
}

/// What the workspace says of one test project.
pub struct TestProject<'a> {
    pub project: &'a Project,
    pub display: String,
    pub rule: TestProjectRule,
}

/// The test projects of the workspace, sorted by path.
pub fn test_projects(model: &WorkspaceModel) -> Vec<TestProject<'_>> {
    let mut all: Vec<TestProject> = model
        .projects
        .iter()
        .filter_map(|project| {
            projects::test_project_rule(project).map(|rule| TestProject {
                project,
                display: model.display_path(&project.path),
                rule,
            })
        })
        .collect();
    all.sort_by(|one, other| one.display.cmp(&other.display));
    all
}

/// The tests found so far, one row per test (keyed by project, file, line and name).
pub type Tests = BTreeMap<(String, String, u32, String), TestRow>;

/// The key a test is stored under in [`Tests`].
pub fn test_key(test: &TestRow) -> (String, String, u32, String) {
    (test.project.clone(), test.path.clone(), test.line, test.name.clone())
}

/// A function to follow: where its name is, and the chain that reached it.
#[derive(Clone, Debug)]
struct Pending {
    name: String,
    line: u32,
    character: u32,
    project: String,
    /// The level: 1 for a function holding a site of the start.
    depth: u32,
    /// From the start to this function, inclusive.
    chain: Vec<Step>,
}

/// The bounds of a walk.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// How many levels of functions are followed (0: only tests holding a site of the start).
    pub max_depth: u32,
    /// How many functions are followed in all.
    pub max_functions: usize,
    pub deadline: Deadline,
}

/// A walk from one or more starts to the tests; what it found and what it could not follow.
pub struct Walk<'a> {
    reader: SiteReader<'a>,
    bounds: Bounds,
    context: CommandContext,
    /// Declarations already queued or followed (file, line, name).
    seen: HashSet<(PathBuf, u32, String)>,
    followed_count: usize,
    /// Every test reached, each with its shortest chain.
    pub tests: Tests,
    /// Every function met (followed or not, with why).
    pub functions: Vec<HelperRow>,
    /// Functions not followed for the function bound, the deadline or a failed find.
    pub not_followed: Vec<String>,
    /// Functions whose chain the depth bound cut.
    pub cut_by_depth: Vec<String>,
    /// The finds (of functions) that were not complete.
    pub incomplete: Vec<String>,
    /// Sites in a test project in no test and no function.
    pub outside: Vec<OutsideSite>,
    /// The deepest level of functions followed.
    pub levels: u32,
}

impl<'a> Walk<'a> {
    pub fn new(
        root: &'a Path,
        model: &'a WorkspaceModel,
        test_projects: &'a [TestProject<'a>],
        overlay: crate::syntax::index::Overlay,
        bounds: Bounds,
        context: CommandContext,
    ) -> Walk<'a> {
        Walk {
            reader: SiteReader {
                root,
                model,
                test_projects,
                overlay,
                parsers: FsharpParsers::new(),
                files: HashMap::new(),
            },
            bounds,
            context,
            seen: HashSet::new(),
            followed_count: 0,
            tests: Tests::new(),
            functions: Vec::new(),
            not_followed: Vec::new(),
            cut_by_depth: Vec::new(),
            incomplete: Vec::new(),
            outside: Vec::new(),
            levels: 0,
        }
    }

    /// Adds a test reached with `chain` (from the start to the test, inclusive).
    pub fn add_test(&mut self, test: FoundTest, project: usize, path: &str, chain: Vec<Step>) {
        let project = &self.reader.test_projects[project];
        let row = test_row(test, project, path, chain);
        self.tests.entry(test_key(&row)).or_insert(row);
    }

    /// Walks from `start` (a declaration at `start_at`: file, line, name), whose sites are
    /// `found`, to the tests; each function met is followed breadth first, so each test keeps
    /// its shortest chain.
    pub async fn walk_from(
        &mut self,
        start: Step,
        start_at: Option<(PathBuf, u32)>,
        found: &AllSites,
    ) -> Result<(), CommandError> {
        self.seen.clear();
        if let Some((path, line)) = &start_at {
            self.seen.insert((path.clone(), *line, start.name.clone()));
        }
        self.note_implicit_calls(&start.name);
        let mut queue = VecDeque::new();
        let sites = self.use_positions(&found.rows);
        self.place(&sites, &[start], 0, &mut queue);
        self.follow(queue).await
    }

    /// Walks from `start` whose uses are at `positions` (found by other means than find: a
    /// removed declaration's name), as [`Walk::walk_from`] does.
    pub async fn walk_from_positions(&mut self, start: Step, positions: &[Position]) -> Result<(), CommandError> {
        self.seen.clear();
        let mut queue = VecDeque::new();
        self.place(positions, &[start], 0, &mut queue);
        self.follow(queue).await
    }

    /// Follows each queued function (through find) to the tests and functions using it.
    async fn follow(&mut self, mut queue: VecDeque<Pending>) -> Result<(), CommandError> {
        while let Some(pending) = queue.pop_front() {
            let display = pending.chain.last().map(|step| step.path.clone()).unwrap_or_default();
            let mut row = HelperRow {
                name: pending.name.clone(),
                project: pending.project.clone(),
                path: display.clone(),
                line: pending.line,
                depth: pending.depth,
                followed: false,
                completeness: None,
                reason: None,
                used_by_functions_not_followed: Vec::new(),
            };
            let named = format!("{} ({}:{})", pending.name, display, pending.line);
            let cut = if pending.depth > self.bounds.max_depth {
                self.cut_by_depth.push(named.clone());
                Some(format!("maxDepth = {} levels of functions were followed", self.bounds.max_depth))
            } else if self.followed_count >= self.bounds.max_functions {
                self.not_followed.push(named.clone());
                Some(format!("maxIntermediate = {} functions were followed", self.bounds.max_functions))
            } else if self.bounds.deadline.passed() {
                self.not_followed.push(named.clone());
                Some("the deadline passed".to_owned())
            } else {
                None
            };
            if let Some(reason) = cut {
                row.reason = Some(reason);
                self.functions.push(row);
                continue;
            }
            self.followed_count += 1;
            let uses = match self.sites_at(&display, pending.line, pending.character).await {
                Ok(uses) => uses,
                Err(CommandError::Cancelled) => return Err(CommandError::Cancelled),
                Err(error) => {
                    self.not_followed.push(named);
                    row.reason = Some(format!("find failed at its name: {error}"));
                    self.functions.push(row);
                    continue;
                }
            };
            row.followed = true;
            row.completeness = Some(uses.completeness);
            if uses.completeness != Completeness::Complete {
                self.incomplete.push(format!("{} ({})", pending.name, uses.completeness.as_str()));
            }
            self.note_implicit_calls(&pending.name);
            self.levels = self.levels.max(pending.depth);
            self.functions.push(row);
            let sites = self.use_positions(&uses.rows);
            self.place(&sites, &pending.chain, pending.depth, &mut queue);
        }
        Ok(())
    }

    /// A builder method that computation expressions call without naming it makes the walk
    /// partial: find's sites are the compiler's uses, which those calls are not.
    fn note_implicit_calls(&mut self, name: &str) {
        if called_implicitly(name) {
            self.incomplete.push(format!(
                "{name} (a computation-expression builder method: its calls from `{{ … }}` blocks are not uses the compiler reports)"
            ));
        }
    }

    /// find's sites of the declaration whose name is at `path` (relative), `line`, `character`.
    pub async fn sites_at(&self, path: &str, line: u32, character: u32) -> Result<AllSites, CommandError> {
        let own = FindOwnArguments { kind: FindKind::Position, ..FindOwnArguments::default() };
        let mut arguments = FindArguments::new(own);
        arguments.path = Some(path.to_owned());
        arguments.line = Some(Coordinate::clamped(u64::from(line)));
        arguments.character = Some(Coordinate::clamped(u64::from(character)));
        arguments.timeout_ms = FindTimeoutMs::clamped(self.bounds.deadline.remaining_ms());
        find::all_sites(arguments, self.context.clone()).await
    }

    /// The positions of `rows` that are uses (not declarations), to be placed in their functions.
    fn use_positions(&self, rows: &[SiteRow]) -> Vec<Position> {
        rows.iter()
            .filter(|site| is_use(site))
            .map(|site| Position {
                path: self.reader.root.join(&site.file),
                display: site.file.clone(),
                line: site.range.start.line,
                character: site.range.start.character,
            })
            .collect()
    }

    /// Each use by what encloses it: a test (reached with `chain` and the test), a function
    /// (queued one level deeper), or neither.
    fn place(&mut self, sites: &[Position], chain: &[Step], depth: u32, queue: &mut VecDeque<Pending>) {
        for site in sites {
            let Some((project, enclosing)) = self.reader.enclosing_at(&site.path, site.line, site.character) else {
                continue;
            };
            match (enclosing, project) {
                (Enclosing::Test(test), Some(project)) => {
                    let mut chain = chain.to_vec();
                    chain.push(test_step(&test, &site.display));
                    self.add_test(test, project, &site.display, chain);
                }
                (Enclosing::Test(_), None) => {}
                (Enclosing::Function(function), _) => {
                    let seen = (site.path.clone(), function.line, function.name.clone());
                    if !self.seen.insert(seen) {
                        continue;
                    }
                    let project = self.reader.project_display(&site.path);
                    let mut chain = chain.to_vec();
                    chain.push(Step { name: function.name.clone(), path: site.display.clone(), line: function.line });
                    queue.push_back(Pending {
                        name: function.name,
                        line: function.line,
                        character: function.character,
                        project,
                        depth: depth + 1,
                        chain,
                    });
                }
                (Enclosing::Nothing, Some(_)) => self.outside.push(outside_site(site, "in no test and no function")),
                (Enclosing::Unparsed(why), Some(_)) => {
                    self.outside.push(outside_site(site, &format!("the file did not parse: {why}")))
                }
                (Enclosing::Nothing | Enclosing::Unparsed(_), None) => {}
            }
        }
    }

    /// The tests declared (or, for Expecto, started) on lines `first..=last` of a file, with
    /// the index of the test project compiling it.
    pub fn tests_on_lines(&mut self, path: &Path, first: u32, last: u32) -> Vec<(usize, FoundTest)> {
        let compiling = self.reader.model.projects_compiling(path);
        let Some(project) = self
            .reader
            .test_projects
            .iter()
            .position(|test| compiling.iter().any(|project| project.path == test.project.path))
        else {
            return Vec::new();
        };
        let Some((text, _)) = self.reader.parsed(path) else { return Vec::new() };
        let candidates: Vec<(u32, u32)> =
            test_candidates(text).into_iter().filter(|(line, _)| (first..=last).contains(line)).collect();
        let mut found: Vec<(usize, FoundTest)> = Vec::new();
        for (line, character) in candidates {
            if let Some((_, Enclosing::Test(test))) = self.reader.enclosing_at(path, line, character)
                && !found.iter().any(|(_, known)| known == &test)
            {
                found.push((project, test));
            }
        }
        found
    }

    /// Every whole-word occurrence of `name` in the files the workspace's projects compile
    /// (current text): where a removed declaration was used, by name.
    pub fn word_occurrences(&mut self, name: &str) -> Vec<Position> {
        let mut files: Vec<PathBuf> = self
            .reader
            .model
            .projects
            .iter()
            .flat_map(|project| project.compile_items.iter().map(|item| item.path.clone()))
            .collect();
        files.sort();
        files.dedup();
        let mut positions = Vec::new();
        for path in files {
            let display = self.reader.model.display_path(&path);
            let Some((text, _)) = self.reader.parsed(&path) else { continue };
            for (line_number, line) in text.split('\n').enumerate() {
                for character in crate::syntax::words::whole_word_columns(line, name) {
                    positions.push(Position {
                        path: path.clone(),
                        display: display.clone(),
                        line: line_number as u32,
                        character,
                    });
                }
            }
        }
        positions
    }

    /// Every test of the test project `index` (each its own one-step chain): what running the
    /// whole project would run.
    pub fn every_test_of(&mut self, index: usize) -> Vec<TestRow> {
        let project = &self.reader.test_projects[index];
        let mut tests = Tests::new();
        for item in &project.project.compile_items {
            let display = self.reader.model.display_path(&item.path);
            for test in self.reader.tests_in(&item.path) {
                let chain = vec![test_step(&test, &display)];
                let row = test_row(test, project, &display, chain);
                tests.entry(test_key(&row)).or_insert(row);
            }
        }
        tests.into_values().collect()
    }

    /// The test projects the walk knows.
    pub fn test_projects(&self) -> &'a [TestProject<'a>] {
        self.reader.test_projects
    }
}

/// A found test as one step of a chain.
/// The methods a computation expression calls without naming them (`let!` calls `Bind`,
/// `try … with` `TryWith`, `use` `Using`, …): the compiler reports no symbol use there.
const BUILDER_METHODS: &[&str] = &[
    "Bind",
    "Bind2",
    "BindReturn",
    "Combine",
    "Delay",
    "For",
    "MergeSources",
    "Return",
    "ReturnFrom",
    "Run",
    "Source",
    "TryFinally",
    "TryWith",
    "Using",
    "While",
    "Yield",
    "YieldFrom",
    "Zero",
];

/// Whether a member of this name may be called by a computation expression without its name.
pub fn called_implicitly(name: &str) -> bool {
    BUILDER_METHODS.contains(&name)
}

fn test_step(test: &FoundTest, path: &str) -> Step {
    match test {
        FoundTest::Attributed { name, line, .. } | FoundTest::Expecto { name, line, .. } => {
            Step { name: name.clone(), path: path.to_owned(), line: *line }
        }
    }
}

/// A site that uses the declaration (not its declaration).
fn is_use(site: &SiteRow) -> bool {
    !matches!(site.kind, SiteKind::Definition | SiteKind::Signature)
}

fn outside_site(site: &Position, reason: &str) -> OutsideSite {
    OutsideSite { path: site.display.clone(), line: site.line, character: site.character, reason: reason.to_owned() }
}

/// A site: its file (absolute and as shown) and 0-based line and UTF-16 column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub path: PathBuf,
    pub display: String,
    pub line: u32,
    pub character: u32,
}

/// Reads and parses the files of sites, once each.
struct SiteReader<'a> {
    root: &'a Path,
    model: &'a WorkspaceModel,
    test_projects: &'a [TestProject<'a>],
    overlay: crate::syntax::index::Overlay,
    parsers: FsharpParsers,
    /// Each file's text and tree (or why it has none); `None` for a file that cannot be read.
    files: HashMap<PathBuf, Option<ParsedFile>>,
}

/// A file's text and its syntax tree, or why it has none.
type ParsedFile = (String, Result<tree_sitter::Tree, String>);

impl<'a> SiteReader<'a> {
    /// The file's text and tree, read (editor buffers first) and parsed once.
    fn parsed(&mut self, path: &Path) -> Option<&ParsedFile> {
        let (overlay, parsers) = (&self.overlay, &mut self.parsers);
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = crate::commands::paths::current_text(overlay, path).ok()?;
                let tree = enclosing::parse(parsers, &text);
                Some((text, tree))
            })
            .as_ref()
    }

    /// The index of the test project compiling `path` (if one does) and what encloses the
    /// position; `None` for a file no project compiles or that cannot be read.
    fn enclosing_at(&mut self, path: &Path, line: u32, character: u32) -> Option<(Option<usize>, Enclosing)> {
        let compiling = self.model.projects_compiling(path);
        if compiling.is_empty() {
            return None;
        }
        let project = self
            .test_projects
            .iter()
            .position(|test| compiling.iter().any(|project| project.path == test.project.path));
        let (text, tree) = self.parsed(path)?;
        let found = match tree {
            Ok(tree) => enclosing::enclosing_in(tree, text, line, character),
            Err(why) => Enclosing::Unparsed(why.clone()),
        };
        Some((project, found))
    }

    /// The project compiling `path`, as shown (the first, when several do).
    fn project_display(&self, path: &Path) -> String {
        self.model
            .projects_compiling(path)
            .first()
            .map(|project| self.model.display_path(&project.path))
            .unwrap_or_default()
    }

    /// Every test in a file: the tests around each declared name and each Expecto test call.
    fn tests_in(&mut self, path: &Path) -> Vec<FoundTest> {
        let Some((text, Ok(tree))) = self.parsed(path) else { return Vec::new() };
        let mut found: Vec<FoundTest> = Vec::new();
        for (line, character) in test_candidates(text) {
            if let Enclosing::Test(test) = enclosing::enclosing_in(tree, text, line, character)
                && !found.contains(&test)
            {
                found.push(test);
            }
        }
        found
    }
}

/// Positions where a test may start: the name after each `let` and `member`, and each word
/// starting with `test`/`ptest`/`ftest` (Expecto's calls), as 0-based line and UTF-16 column.
fn test_candidates(text: &str) -> Vec<(u32, u32)> {
    let mut positions = Vec::new();
    for (line_number, line) in text.split('\n').enumerate() {
        let mut previous_word = "";
        let mut units = 0u32;
        let mut word_start: Option<(usize, u32)> = None;
        let mut words: Vec<(&str, u32)> = Vec::new();
        for (offset, character) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
            let part_of_word = character.is_alphanumeric() || character == '_' || character == '`' || character == '.';
            match (part_of_word, word_start) {
                (true, None) => word_start = Some((offset, units)),
                (false, Some((start, start_units))) => {
                    words.push((&line[start..offset], start_units));
                    word_start = None;
                }
                _ => {}
            }
            units += character.len_utf16() as u32;
        }
        for (word, column) in words {
            let bare = word.rsplit('.').next().unwrap_or(word);
            let after_keyword = matches!(previous_word, "let" | "member" | "rec" | "inline" | "private" | "internal");
            if after_keyword || bare.starts_with("test") || bare.starts_with("ptest") || bare.starts_with("ftest") {
                positions.push((line_number as u32, column));
            }
            previous_word = word;
        }
    }
    positions
}

/// A found test as an answer row, with its chain.
pub fn test_row(test: FoundTest, project: &TestProject, path: &str, chain: Vec<Step>) -> TestRow {
    let reach = match chain.len() {
        0..=2 => Reach::Direct(Direct::Direct),
        length => {
            let via = &chain[length - 2];
            Reach::Via { via: via.name.clone(), path: via.path.clone(), line: via.line }
        }
    };
    match test {
        FoundTest::Attributed { attribute, name, containers, line } => {
            let framework = match attribute {
                TestAttribute::Fact => Framework::Xunit,
                TestAttribute::Theory
                    if projects::references(project.project, "NUnit")
                        && !project
                            .project
                            .package_references
                            .iter()
                            .any(|reference| reference.name.to_ascii_lowercase().starts_with("xunit")) =>
                {
                    Framework::Nunit
                }
                TestAttribute::Theory => Framework::Xunit,
                TestAttribute::Test => Framework::Nunit,
                TestAttribute::Property => Framework::Fscheck,
                TestAttribute::TestMethod => Framework::Mstest,
            };
            TestRow {
                fully_qualified_name: enclosing::fully_qualified_name(&containers, &name),
                name,
                framework,
                project: project.display.clone(),
                path: path.to_owned(),
                line,
                reach,
                chain,
            }
        }
        FoundTest::Expecto { name, lists, line } => {
            let mut full = lists;
            full.push(name.clone());
            TestRow {
                name,
                fully_qualified_name: Some(full.join(".")),
                framework: Framework::Expecto,
                project: project.display.clone(),
                path: path.to_owned(),
                line,
                reach,
                chain,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_methods_are_called_implicitly_and_module_functions_are_not() {
        // FSharp.Control.AsyncSeq: `asyncSeq { try … with … }` calls the builder's `TryWith`,
        // which calls the module's `tryWith`; find sees no use of `TryWith` in the block.
        assert!(called_implicitly("TryWith") && called_implicitly("TryFinally") && called_implicitly("Bind"));
        assert!(!called_implicitly("tryWith") && !called_implicitly("total"));
    }

    #[test]
    fn test_candidates_are_declared_names_and_expecto_calls() {
        let text = "let tests =\n    testList \"a\" [\n        Expecto.testCase \"b\" <| fun () -> ()\n    ]\n[<Fact>]\nlet ``x y`` () = ()\n    member _.Run () = ()\n";
        assert_eq!(test_candidates(text), vec![(0, 4), (1, 4), (2, 8), (5, 4), (6, 11)]);
    }
}
