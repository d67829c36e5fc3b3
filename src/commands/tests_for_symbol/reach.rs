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
use crate::commands::paths::{ParsedFile, ParsedFiles};
use crate::commands::{CommandContext, CommandError};
use crate::deadline::Deadline;
use crate::syntax::enclosing::{self, Enclosing, EnclosingFunction, FoundTest, TestAttribute};
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
    /// The blocks of each builder type this walk followed (by file and line of the type's name),
    /// kept for every start of the walk.
    builders: HashMap<(PathBuf, u32), BuilderBlocks>,
    /// find's answer at each declaration asked (file as shown, line, column).
    finds: HashMap<(String, u32, u32), AllSites>,
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
            reader: SiteReader { root, model, test_projects, files: ParsedFiles::new(overlay) },
            bounds,
            context,
            seen: HashSet::new(),
            builders: HashMap::new(),
            finds: HashMap::new(),
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
        self.followed_count = 0;
        if let Some((path, line)) = &start_at {
            self.seen.insert((path.clone(), *line, start.name.clone()));
        }
        let mut queue = VecDeque::new();
        let mut chain = vec![start];
        if start_at.is_some() {
            self.follow_builder(&mut chain, 0, &mut queue).await?;
        } else {
            self.note_implicit_calls(&chain[0].name, None);
        }
        let sites = self.use_positions(&found.rows);
        self.place(&sites, &chain, 0, &mut queue);
        self.follow(queue).await
    }

    /// Walks from `start` whose uses are at `positions` (found by other means than find: a
    /// removed declaration's name), as [`Walk::walk_from`] does.
    pub async fn walk_from_positions(&mut self, start: Step, positions: &[Position]) -> Result<(), CommandError> {
        self.seen.clear();
        self.followed_count = 0;
        let mut queue = VecDeque::new();
        self.place(positions, &[start], 0, &mut queue);
        self.follow(queue).await
    }

    /// Follows each queued function (through find) to the tests and functions using it.
    async fn follow(&mut self, mut queue: VecDeque<Pending>) -> Result<(), CommandError> {
        while let Some(mut pending) = queue.pop_front() {
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
            } else if let Some(reason) = self.bound_reached() {
                self.not_followed.push(named.clone());
                Some(reason)
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
            self.levels = self.levels.max(pending.depth);
            self.functions.push(row);
            self.follow_builder(&mut pending.chain, pending.depth, &mut queue).await?;
            let sites = self.use_positions(&uses.rows);
            self.place(&sites, &pending.chain, pending.depth, &mut queue);
        }
        Ok(())
    }

    /// Why no further function may be followed (`maxIntermediate` or the deadline), if so.
    fn bound_reached(&self) -> Option<String> {
        if self.followed_count >= self.bounds.max_functions {
            Some(format!("maxIntermediate = {} functions were followed", self.bounds.max_functions))
        } else if self.bounds.deadline.passed() {
            Some("the deadline passed".to_owned())
        } else {
            None
        }
    }

    /// A builder method (the last step of `chain`, at level `depth`) is called by the `{ … }`
    /// blocks of its builder that hold the construct it stands for (`TryWith` by a block with
    /// `try`, `Using` by one with `use`, `Delay` or `Run` by every block), without a use the
    /// compiler reports: those blocks are placed as its uses, and the step is renamed to say so.
    /// The blocks are found once per builder ([`Walk::builder_blocks`]). A builder not followed
    /// completely (no type found, a partial or failed find) makes the walk partial, naming the
    /// method.
    async fn follow_builder(
        &mut self,
        chain: &mut [Step],
        depth: u32,
        queue: &mut VecDeque<Pending>,
    ) -> Result<(), CommandError> {
        let Some(method) = chain.last() else { return Ok(()) };
        if !called_implicitly(&method.name) {
            return Ok(());
        }
        let (name, declared_in) = (method.name.clone(), method.path.clone());
        let path = self.reader.root.join(&declared_in);
        let Some(builder) = self.reader.builder_at(&path, method.line, &name) else {
            self.note_implicit_calls(&name, Some("no type around it was found to follow"));
            return Ok(());
        };
        let key = (path, builder.line);
        let blocks = match self.builders.get(&key) {
            Some(blocks) => blocks.clone(),
            None => {
                let blocks = self.builder_blocks(&builder, &declared_in).await?;
                self.builders.insert(key, blocks.clone());
                blocks
            }
        };
        for instance in &blocks.instance_keys {
            self.seen.insert(instance.clone());
        }
        if let Some(why) = &blocks.incomplete {
            self.note_implicit_calls(&name, Some(why));
        }
        if !blocks.uses.iter().any(|(_, block)| block.is_some()) {
            // No `{ … }` block of the type in the workspace: no call its methods' finds missed.
            return Ok(());
        }
        let calling: Vec<Position> = blocks
            .uses
            .iter()
            .filter(|(_, block)| block.as_deref().is_none_or(|text| block_may_call(&name, text)))
            .map(|(position, _)| position.clone())
            .collect();
        if let Some(step) = chain.last_mut()
            && !blocks.instances.is_empty()
        {
            step.name = builder_step_name(&name, &builder.name, &blocks.instances);
        }
        self.place(&calling, chain, depth, queue);
        Ok(())
    }

    /// The blocks of `builder` (declared in `path`, relative): find's sites of the type, the
    /// functions holding them (its instances: `let flow = FlowBuilder()`), and each instance's
    /// uses, with the text of the block each opens. A use that opens no block on the line of the
    /// value holding it makes that value an instance too (`let asyncSeq = AsyncSeq.asyncSeq`);
    /// another (the builder passed on) is kept as a use every method may be called through.
    /// Each instance's find counts towards `maxIntermediate`.
    async fn builder_blocks(&mut self, builder: &BuilderType, path: &str) -> Result<BuilderBlocks, CommandError> {
        let mut blocks = BuilderBlocks::default();
        let found = match self.sites_at(path, builder.line, builder.character).await {
            Ok(found) => found,
            Err(CommandError::Cancelled) => return Err(CommandError::Cancelled),
            Err(error) => {
                blocks.incomplete = Some(format!("find failed at its builder {}: {error}", builder.name));
                return Ok(blocks);
            }
        };
        if found.completeness != Completeness::Complete {
            self.incomplete.push(format!("{} ({})", builder.name, found.completeness.as_str()));
            blocks.incomplete = Some(format!("the find of its builder {} was not complete", builder.name));
        }
        let mut instances: VecDeque<(String, EnclosingFunction)> = VecDeque::new();
        let mut known: HashSet<(String, u32)> = HashSet::new();
        for site in self.use_positions(&found.rows) {
            if let Some((_, Enclosing::Function(function))) =
                self.reader.enclosing_at(&site.path, site.line, site.character)
                && known.insert((site.display.clone(), function.line))
            {
                instances.push_back((site.display, function));
            }
        }
        while let Some((display, instance)) = instances.pop_front() {
            blocks.instance_keys.push((self.reader.root.join(&display), instance.line, instance.name.clone()));
            if !blocks.instances.contains(&instance.name) {
                blocks.instances.push(instance.name.clone());
            }
            if let Some(reason) = self.bound_reached() {
                blocks.incomplete = Some(format!("its instance {} was not followed: {reason}", instance.name));
                continue;
            }
            self.followed_count += 1;
            let uses = match self.sites_at(&display, instance.line, instance.character).await {
                Ok(uses) => uses,
                Err(CommandError::Cancelled) => return Err(CommandError::Cancelled),
                Err(error) => {
                    blocks.incomplete = Some(format!("find failed at its instance {}: {error}", instance.name));
                    continue;
                }
            };
            if uses.completeness != Completeness::Complete {
                self.incomplete.push(format!("{} ({})", instance.name, uses.completeness.as_str()));
                blocks.incomplete = Some(format!("the find of its instance {} was not complete", instance.name));
            }
            for position in self.use_positions(&uses.rows) {
                let block = self.reader.block_at(&position.path, position.line, position.character);
                if block.is_none()
                    && let Some((_, Enclosing::Function(alias))) =
                        self.reader.enclosing_at(&position.path, position.line, position.character)
                    && alias.line == position.line
                    && self.reader.is_alias(&position.path, position.line, &instance.name)
                {
                    if known.insert((position.display.clone(), alias.line)) {
                        instances.push_back((position.display.clone(), alias));
                    }
                    continue;
                }
                blocks.uses.push((position, block));
            }
        }
        Ok(blocks)
    }

    /// A builder method whose builder was not followed completely makes the walk partial: find's
    /// sites are the compiler's uses, which the calls of `{ … }` blocks are not.
    fn note_implicit_calls(&mut self, name: &str, why: Option<&str>) {
        if called_implicitly(name) {
            let why = why.map(|why| format!("; {why}")).unwrap_or_default();
            self.incomplete.push(format!(
                "{name} (a computation-expression builder method: its calls from `{{ … }}` blocks are not uses the compiler reports{why})"
            ));
        }
    }

    /// find's sites of the declaration whose name is at `path` (relative), `line`, `character`;
    /// asked once per walk (a function reached from several starts is found once).
    pub async fn sites_at(&mut self, path: &str, line: u32, character: u32) -> Result<AllSites, CommandError> {
        let key = (path.to_owned(), line, character);
        if let Some(found) = self.finds.get(&key) {
            return Ok(found.clone());
        }
        let found = self.find_at(path, line, character).await?;
        self.finds.insert(key, found.clone());
        Ok(found)
    }

    async fn find_at(&self, path: &str, line: u32, character: u32) -> Result<AllSites, CommandError> {
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

/// The step of a builder method followed through its builder: `TryWith (builder method of
/// FlowBuilder, called by flow { } blocks with `try`)`, `Delay (…, called by every flow { } block)`.
fn builder_step_name(method: &str, builder: &str, instances: &[String]) -> String {
    let blocks: Vec<String> = instances.iter().map(|instance| format!("{instance} {{ }}")).collect();
    let blocks = blocks.join(" or ");
    match constructs_calling(method) {
        Some(constructs) => {
            let constructs: Vec<String> = constructs.iter().map(|construct| format!("`{construct}`")).collect();
            format!(
                "{method} (builder method of {builder}, called by {blocks} blocks with {})",
                constructs.join(" or ")
            )
        }
        None => format!("{method} (builder method of {builder}, called by every {blocks} block)"),
    }
}

/// Whether `line` declares a value whose whole body is `instance` (qualified or not).
fn is_alias_line(line: &str, instance: &str) -> bool {
    let Some((head, body)) = line.split_once('=') else { return false };
    let body = body.split("//").next().unwrap_or(body).trim();
    let name = body.rsplit('.').next().unwrap_or(body).trim_matches('`');
    head.trim_start().starts_with("let ")
        && name == instance
        && body.chars().all(|character| character.is_alphanumeric() || matches!(character, '_' | '.' | '`' | '\''))
}

/// A builder's blocks as a walk found them: its instances' names, each use of an instance
/// with the text of the `{ … }` block it opens (`None`: no block, a use in a test), and why
/// the list may lack some.
#[derive(Clone, Debug, Default)]
struct BuilderBlocks {
    instances: Vec<String>,
    /// Each instance as [`Walk::seen`] keys it: a walk never follows an instance as a
    /// function (that would place every block).
    instance_keys: Vec<(PathBuf, u32, String)>,
    uses: Vec<(Position, Option<String>)>,
    incomplete: Option<String>,
}

/// The constructs a computation expression translates into a call of the builder method
/// `method` (`try` into `TryWith`, `let!` into `Bind`); `None` for a method every block may
/// call (`Delay`, `Run`, `Combine`, `Zero`, `Yield` for implicit yields, `Source`).
fn constructs_calling(method: &str) -> Option<&'static [&'static str]> {
    Some(match method {
        "TryWith" | "TryFinally" => &["try"],
        "Using" => &["use"],
        "For" => &["for"],
        "While" => &["while"],
        "YieldFrom" => &["yield!"],
        "ReturnFrom" => &["return!"],
        "Return" => &["return"],
        "Bind" | "Bind2" | "BindReturn" | "MergeSources" => &["let!", "do!", "use!", "match!", "and!"],
        _ => return None,
    })
}

/// Whether a block whose text is `block` may call the builder method `method`: one of the
/// constructs calling it is in the text (nested blocks and comments included, so never too few).
fn block_may_call(method: &str, block: &str) -> bool {
    constructs_calling(method).is_none_or(|constructs| constructs.iter().any(|construct| has_word(block, construct)))
}

/// Whether `word` is in `text` as a whole word; a word ending in `!` (`let!`) only with it,
/// another also when `!` follows (`use` in `use!`).
fn has_word(text: &str, word: &str) -> bool {
    let is_word_character = |character: char| character.is_alphanumeric() || character == '_' || character == '\'';
    let (stem, bang) = match word.strip_suffix('!') {
        Some(stem) => (stem, true),
        None => (word, false),
    };
    text.match_indices(stem).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let next = text[at + stem.len()..].chars().next();
        before.is_none_or(|character| !is_word_character(character))
            && match next {
                Some('!') => true,
                Some(character) => !bang && !is_word_character(character),
                None => !bang,
            }
    })
}

/// The type a builder method is declared in (or extends): its name and where the name is
/// (0-based line, UTF-16 column).
#[derive(Clone, Debug, PartialEq, Eq)]
struct BuilderType {
    name: String,
    line: u32,
    character: u32,
}

/// The type around the member `name` declared on 0-based `line` of `text` (a type's own
/// member or one of a `type B with` extension); `None` when `name` is no member there.
fn builder_of(tree: &tree_sitter::Tree, text: &str, line: u32, name: &str) -> Option<BuilderType> {
    let bytes = text.as_bytes();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if (node.start_position().row as u32) > line || (node.end_position().row as u32) < line {
            continue;
        }
        if node.kind() == "identifier"
            && node.start_position().row as u32 == line
            && node.utf8_text(bytes).ok().map(|text| text.trim_matches('`')) == Some(name)
            && let Some(found) = type_around_member(node, text)
        {
            return Some(found);
        }
        let mut cursor = node.walk();
        let children: Vec<tree_sitter::Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The type whose member declares `identifier` (the member's name): the first declaration
/// above it must be a member, and the type the first node above that with a `type_name`.
fn type_around_member(identifier: tree_sitter::Node, text: &str) -> Option<BuilderType> {
    let mut node = identifier.parent();
    let mut in_member = false;
    while let Some(current) = node {
        match current.kind() {
            "member_defn" => in_member = true,
            "function_or_value_defn" if !in_member => return None,
            _ if in_member => {
                let mut cursor = current.walk();
                if let Some(type_name) = current.named_children(&mut cursor).find(|child| child.kind() == "type_name") {
                    let mut name = type_name.child_by_field_name("type_name")?;
                    while name.kind() == "long_identifier" {
                        let last = u32::try_from(name.named_child_count().checked_sub(1)?).ok()?;
                        name = name.named_child(last)?;
                    }
                    let position = name.start_position();
                    let line_start = name.start_byte() - position.column;
                    return Some(BuilderType {
                        name: name.utf8_text(text.as_bytes()).ok()?.trim_matches('`').to_owned(),
                        line: position.row as u32,
                        character: text[line_start..name.start_byte()].encode_utf16().count() as u32,
                    });
                }
            }
            _ => {}
        }
        node = current.parent();
    }
    None
}

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
    files: ParsedFiles,
}

impl<'a> SiteReader<'a> {
    /// The file's text and tree, read (editor buffers first) and parsed once.
    fn parsed(&mut self, path: &Path) -> Option<&ParsedFile> {
        self.files.parsed(path)
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

    /// The text of the `{ … }` block the use at `line`, `character` of `path` opens, if it opens one.
    fn block_at(&mut self, path: &Path, line: u32, character: u32) -> Option<String> {
        let (text, tree) = self.parsed(path)?;
        enclosing::builder_block_at(tree.as_ref().ok()?, text, line, character).map(str::to_owned)
    }

    /// Whether 0-based `line` of `path` declares a value that is `instance` under another
    /// name: `let guarded = flow`, `let asyncSeq = AsyncSeq.asyncSeq` (nothing else after `=`).
    fn is_alias(&mut self, path: &Path, line: u32, instance: &str) -> bool {
        let Some((text, _)) = self.parsed(path) else { return false };
        let Some(line) = text.split('\n').nth(line as usize) else { return false };
        is_alias_line(line, instance)
    }

    /// The builder type declaring the member `name` on 0-based `line` of `path`.
    fn builder_at(&mut self, path: &Path, line: u32, name: &str) -> Option<BuilderType> {
        let (text, tree) = self.parsed(path)?;
        builder_of(tree.as_ref().ok()?, text, line, name)
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
    use crate::syntax::parse::FsharpParsers;

    #[test]
    fn builder_methods_are_called_implicitly_and_module_functions_are_not() {
        // FSharp.Control.AsyncSeq: `asyncSeq { try … with … }` calls the builder's `TryWith`,
        // which calls the module's `tryWith`; find sees no use of `TryWith` in the block.
        assert!(called_implicitly("TryWith") && called_implicitly("TryFinally") && called_implicitly("Bind"));
        assert!(!called_implicitly("tryWith") && !called_implicitly("total"));
    }

    fn builder(text: &str, line: u32, name: &str) -> Option<BuilderType> {
        let tree = enclosing::parse(&mut FsharpParsers::new(), text).unwrap();
        builder_of(&tree, text, line, name)
    }

    #[test]
    fn a_builder_method_is_found_in_its_type_or_in_an_extension_of_it() {
        let own = "module Flows.Flow\n\ntype FlowBuilder() =\n    member _.Return(value: 'T) = ofValue value\n    member _.TryWith(body, handler) = tryWith body handler\n\nlet flow = FlowBuilder()\n";
        let expected = BuilderType { name: "FlowBuilder".to_owned(), line: 2, character: 5 };
        assert_eq!(builder(own, 4, "TryWith"), Some(expected));
        // FSharp.Control.AsyncSeq adds `TryWith` in an extension inside a module.
        let extension = "module AsyncSeq =\n  type AsyncSeqBuilder with\n\n    member x.TryWith (body: AsyncSeq<_>, handler: (exn -> AsyncSeq<_>)) =\n      tryWith body handler\n";
        let expected = BuilderType { name: "AsyncSeqBuilder".to_owned(), line: 1, character: 7 };
        assert_eq!(builder(extension, 3, "TryWith"), Some(expected));
        // A module function of a builder method's name, or a name on another line, is none.
        assert_eq!(builder("module M\n\nlet Bind x = x\n", 2, "Bind"), None);
        assert_eq!(builder(own, 3, "TryWith"), None);
    }

    #[test]
    fn a_builder_step_names_the_builder_its_blocks_and_the_construct_calling_it() {
        let one = builder_step_name("TryWith", "FlowBuilder", &["flow".to_owned()]);
        assert_eq!(one, "TryWith (builder method of FlowBuilder, called by flow { } blocks with `try`)");
        let two = builder_step_name("Delay", "B", &["flow".to_owned(), "lazyFlow".to_owned()]);
        assert_eq!(two, "Delay (builder method of B, called by every flow { } or lazyFlow { } block)");
    }

    #[test]
    fn a_block_calls_the_methods_of_the_constructs_in_it() {
        let block = "{\n    use! r = acquire ()\n    try\n        yield! items r\n    finally ()\n}";
        for method in ["TryWith", "TryFinally", "Using", "Bind", "YieldFrom", "Delay", "Run", "Zero"] {
            assert!(block_may_call(method, block), "{method}");
        }
        for method in ["For", "While", "Return", "ReturnFrom"] {
            assert!(!block_may_call(method, block), "{method}");
        }
        // Whole words only: `retry` and `user` hold no `try` and no `use`; `let` is no `let!`.
        let plain = "{ let retry = user.Name in yield retry }";
        assert!(!block_may_call("TryWith", plain) && !block_may_call("Using", plain) && !block_may_call("Bind", plain));
        assert!(block_may_call("Return", "{ return 1 }") && !block_may_call("ReturnFrom", "{ return 1 }"));
    }

    #[test]
    fn an_alias_is_a_value_whose_whole_body_is_the_instance() {
        assert!(is_alias_line("let guarded = flow", "flow"));
        assert!(is_alias_line("  let asyncSeq = AsyncSeq.asyncSeq // the module's", "asyncSeq"));
        // A block the grammar could not read is no alias, nor a use inside an expression.
        assert!(!is_alias_line("    let actual = asyncSeq {", "asyncSeq"));
        assert!(!is_alias_line("let run = execute flow", "flow"));
        assert!(!is_alias_line("member _.Flow = flow", "flow"));
    }

    #[test]
    fn a_use_opening_a_block_is_told_from_a_plain_use() {
        let text = "module M\nlet f xs = asyncSeq {\n    try\n        yield! xs\n    with _ -> ()\n  }\nlet g () = asyncSeq.Zero()\nlet h = (make ()) { return 1 }\n";
        let tree = enclosing::parse(&mut FsharpParsers::new(), text).unwrap();
        let block = enclosing::builder_block_at(&tree, text, 1, 13).expect("asyncSeq opens a block");
        assert!(block.starts_with("try") && block.contains("yield! xs"), "{block}");
        assert_eq!(enclosing::builder_block_at(&tree, text, 6, 11), None);
        assert_eq!(enclosing::builder_block_at(&tree, text, 7, 10), Some("return 1"));
    }

    #[test]
    fn test_candidates_are_declared_names_and_expecto_calls() {
        let text = "let tests =\n    testList \"a\" [\n        Expecto.testCase \"b\" <| fun () -> ()\n    ]\n[<Fact>]\nlet ``x y`` () = ()\n    member _.Run () = ()\n";
        assert_eq!(test_candidates(text), vec![(0, 4), (1, 4), (2, 8), (5, 4), (6, 11)]);
    }
}
