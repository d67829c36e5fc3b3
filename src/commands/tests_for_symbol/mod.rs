//! `fslens.testsForSymbol`: the tests of the workspace's test projects that reach a symbol.
//! The symbol's sites come from find's typed API ([`find::all_sites`]); the sites in test
//! projects are mapped to the test around them from the syntax tree ([`enclosing`]); a site
//! in a function of a test project that is no test (a helper) is followed once, through find
//! again, to the tests that use the helper. Reach beyond one helper is not followed and the
//! answer says so.

pub mod projects;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::deadline::Deadline;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::find::answer::{Completeness, ProjectStatus, Via};
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments, FindTimeoutMs, check_name};
use crate::commands::find::rows::{SiteKind, SiteRow};
use crate::commands::find::{self, AllSites};
use crate::commands::params::{Bounded, CommandArguments, Coordinate};
use crate::commands::{CommandContext, CommandError};
use crate::syntax::enclosing::{self, Enclosing, EnclosingFunction, FoundTest, TestAttribute};
use crate::syntax::parse::FsharpParsers;
use crate::workspace::{Project, WorkspaceModel};
use projects::TestProjectRule;

crate::commands::arguments::symbol_position_arguments! {
    cli: all();
    /// The arguments of `fslens.testsForSymbol` and the flags of `fslens tests-for-symbol` (the
    /// query is positional).
    #[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TestsForSymbolArguments {
        /// The symbol by name, as find takes it: a name, `Type.Member` or a fully qualified name.
        /// Give it, or `path` + `line` + `word` (or `character`).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub query: Option<String>,
        /// The symbol by position: its file, relative to the workspace root or absolute inside it.
        path?,
        /// Only this test project (an `.fsproj` path or project name); default every test project.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[arg(long)]
        pub project_path: Option<String>,
        /// At most this many helpers (functions of test projects that are no test) are followed to
        /// the tests that use them; default 20, 0 follows none.
        #[serde(default)]
        #[arg(long, default_value_t)]
        pub max_intermediate: Bounded<0, 200, 20>,
        /// One deadline for every find the answer runs, in milliseconds.
        #[serde(default)]
        #[arg(long, default_value_t)]
        pub timeout_ms: FindTimeoutMs,
    }
}

impl CommandArguments for TestsForSymbolArguments {
    fn validate(&self) -> Result<(), CommandError> {
        for (name, value) in [("query", &self.query), ("word", &self.word), ("projectPath", &self.project_path)] {
            if let Some(value) = value {
                check_name(name, value)?;
            }
        }
        match (&self.query, &self.path) {
            (Some(_), Some(_)) => {
                Err(CommandError::invalid_argument("path", "give the symbol by query or by path + line, not both"))
            }
            (None, None) => Err(CommandError::invalid_argument(
                "query",
                "required: the symbol's name, or path + line + word (or character)",
            )),
            (Some(_), None) => match self.first_position_member() {
                Some(given) => {
                    Err(CommandError::invalid_argument(given, "only a symbol given by path takes a position"))
                }
                None => Ok(()),
            },
            (None, Some(_)) => self.validate_position(),
        }
    }
}

/// The test framework a test belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Framework {
    Xunit,
    Nunit,
    Expecto,
    Fscheck,
}

/// `reach: "direct"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direct {
    Direct,
}

/// How a test reaches the symbol: `"direct"` (a site in the test), or `{via, path, line}`
/// (the test uses the helper `via`, declared at `path`:`line`, which holds a site).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reach {
    Direct(Direct),
    Via { via: String, path: String, line: u32 },
}

/// One test that reaches the symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestRow {
    /// The test's name: the function's (without double backticks) or Expecto's string.
    pub name: String,
    /// The name VSTest (attributed tests) or Expecto (its lists' names and the test's, joined
    /// with `.`) gives the test; absent when it cannot be derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fully_qualified_name: Option<String>,
    pub framework: Framework,
    /// The test project (path relative to the workspace root).
    pub project: String,
    pub path: String,
    /// 0-based line of the test's name (of the `testCase` expression for Expecto).
    pub line: u32,
    pub reach: Reach,
}

/// One test project: the rule that made it one, whether find searched it, its tests.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestProjectRow {
    pub project: String,
    /// Why it is a test project: `rule` (`isTestProject`, `packageReference` with `package`).
    #[serde(flatten)]
    pub rule: TestProjectRule,
    /// `analyzed`, `timedOut`, … as find's `perProject` says; `notSwept` when find did not
    /// sweep it (it cannot see the symbol's declaration).
    pub searched: String,
    pub tests: Vec<TestRow>,
}

/// A helper: a function of a test project that is no test and holds a site.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelperRow {
    pub name: String,
    pub project: String,
    pub path: String,
    /// 0-based line of its name.
    pub line: u32,
    /// Whether its uses were looked up.
    pub followed: bool,
    /// find's completeness for the helper (when followed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completeness: Option<Completeness>,
    /// Why it was not followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Functions (no tests) that use the helper: a second level, not followed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used_by_functions_not_followed: Vec<String>,
}

/// A site in a test project that is in no test and no function.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutsideSite {
    pub path: String,
    pub line: u32,
    pub character: u32,
    pub reason: String,
}

/// What the answer covers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletenessReport {
    /// find's completeness for the symbol.
    pub find: Completeness,
    /// The followed helpers whose find was not complete.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub helpers_incomplete: Vec<String>,
    /// Test projects find swept but did not analyse (with find's status).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects_not_searched: Vec<String>,
    /// What is missing, in words (empty when complete).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// The arguments a later `fslens.runTests` takes to run these tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunTestsArguments {
    /// The full names of the tests VSTest can select (projects referencing
    /// `Microsoft.NET.Test.Sdk`).
    pub tests: Vec<String>,
    /// The test projects holding the tests.
    pub projects: Vec<String>,
}

/// The answer of `fslens.testsForSymbol`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestsForSymbolAnswer {
    /// Always `testsForSymbol`.
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The symbol's full name, from its definition site when find has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Who resolved the sites: `fsac` (the compiler) or `syntax` (names only).
    pub via: Via,
    /// `true` only when every find was complete and every test project was searched.
    pub complete: bool,
    pub completeness: CompletenessReport,
    /// How many tests reach the symbol.
    pub total_tests: usize,
    /// Every test project, with its tests (grouped by project).
    pub test_projects: Vec<TestProjectRow>,
    /// How many helper levels were followed: 1.
    pub indirect_depth: u32,
    pub indirect_note: String,
    /// The helpers found (followed or not).
    pub helpers: Vec<HelperRow>,
    /// Helpers the `maxIntermediate` bound or the deadline cut, or whose find failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub helpers_not_followed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites_outside_tests: Vec<OutsideSite>,
    /// What `fslens.runTests` takes to run exactly these tests: absent when VSTest can select
    /// none of them by name (passing empty arguments would run every test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_tests_arguments: Option<RunTestsArguments>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub elapsed_ms: u64,
}

/// What the workspace says of one test project.
struct TestProject<'a> {
    project: &'a Project,
    display: String,
    rule: TestProjectRule,
}

/// A helper found at a site, before it is followed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct HelperKey {
    path: PathBuf,
    line: u32,
    character: u32,
    name: String,
    project: String,
}

/// The tests found so far, one row per test (keyed by project, file, line and name).
type Tests = BTreeMap<(String, String, u32, String), TestRow>;

/// `fslens.testsForSymbol`.
pub async fn tests_for_symbol(
    arguments: TestsForSymbolArguments,
    context: CommandContext,
) -> Result<TestsForSymbolAnswer, CommandError> {
    let started = Instant::now();
    let deadline = Deadline::after(started, arguments.timeout_ms.as_duration_ms());
    let root = context.workspace_root()?.to_path_buf();
    let model = crate::commands::load_workspace_model(&root).await?;
    let test_projects = test_projects_of(&model, arguments.project_path.as_deref())?;
    let found = sites_of_the_symbol(&arguments, deadline, &context).await?;
    let symbol = found
        .rows
        .iter()
        .find(|site| site.kind == SiteKind::Definition)
        .or_else(|| found.rows.first())
        .and_then(|site| site.symbol_full_name.clone());

    let overlay = context.editor_buffers().await?;
    let mut reader = SiteReader {
        root: &root,
        model: &model,
        test_projects: &test_projects,
        overlay,
        parsers: FsharpParsers::new(),
        files: HashMap::new(),
    };
    let (mut tests, helper_keys, outside) = direct_uses(&mut reader, &found);
    let followed = follow_helpers(&mut reader, &helper_keys, &mut tests, &arguments, deadline, &context).await?;
    let (project_rows, projects_not_searched) = test_project_rows(&test_projects, &found, &tests);
    let missing = what_is_missing(&found, &followed, &projects_not_searched);
    let complete = missing.is_empty();
    let notes = answer_notes(&found, &test_projects, &project_rows);
    let run_tests_arguments = run_tests_arguments(&test_projects, &project_rows);
    let total_tests = project_rows.iter().map(|row| row.tests.len()).sum();
    let FollowedHelpers { helpers, not_followed: helpers_not_followed, incomplete: helpers_incomplete } = followed;
    Ok(TestsForSymbolAnswer {
        tool: "testsForSymbol".to_owned(),
        query: arguments.query,
        symbol,
        via: found.via,
        complete,
        completeness: CompletenessReport {
            find: found.completeness,
            helpers_incomplete,
            projects_not_searched,
            missing,
        },
        total_tests,
        test_projects: project_rows,
        indirect_depth: 1,
        indirect_note: "a helper (a function of a test project that is no test) is followed once to the tests using \
                        it; reach through more than one intermediate function is not followed"
            .to_owned(),
        helpers,
        helpers_not_followed,
        sites_outside_tests: outside,
        run_tests_arguments,
        notes,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// Step 1: find's sites of the symbol asked about (by query, or at the position); a query
/// that names no declaration is an invalid argument.
async fn sites_of_the_symbol(
    arguments: &TestsForSymbolArguments,
    deadline: Deadline,
    context: &CommandContext,
) -> Result<AllSites, CommandError> {
    let own = match &arguments.query {
        Some(query) => FindOwnArguments { query: Some(query.clone()), ..FindOwnArguments::default() },
        None => FindOwnArguments { kind: FindKind::Position, ..FindOwnArguments::default() },
    };
    let mut find_arguments = FindArguments::new(own);
    find_arguments.path = arguments.path.clone();
    find_arguments.line = arguments.line;
    find_arguments.character = arguments.character;
    find_arguments.word = arguments.word.clone();
    find_arguments.occurrence = arguments.occurrence;
    find_arguments.timeout_ms = FindTimeoutMs::clamped(deadline.remaining_ms());
    let found = find::all_sites(find_arguments, context.clone()).await?;
    if arguments.query.is_some() && found.rows.is_empty() && found.declarations == 0 {
        return Err(CommandError::invalid_argument(
            "query",
            format!(
                "no declaration named {:?} in the workspace (find's answer is {})",
                arguments.query.as_deref().unwrap_or_default(),
                found.completeness.as_str()
            ),
        ));
    }
    Ok(found)
}

/// Step 2: each use of the symbol by what encloses it: a test (reached directly), a helper
/// function of a test project (followed next), or neither (listed outside the tests).
fn direct_uses(reader: &mut SiteReader<'_>, found: &AllSites) -> (Tests, Vec<HelperKey>, Vec<OutsideSite>) {
    let mut tests = Tests::new();
    let mut helper_keys: Vec<HelperKey> = Vec::new();
    let mut outside = Vec::new();
    for site in found.rows.iter().filter(|site| is_use(site)) {
        let Some((project, path, enclosing)) = reader.enclosing(site) else { continue };
        match enclosing {
            Enclosing::Test(test) => {
                let row = test_row(test, project, &site.file, Reach::Direct(Direct::Direct));
                tests.entry(test_key(&row)).or_insert(row);
            }
            Enclosing::Function(EnclosingFunction { name, line, character }) => {
                let key = HelperKey { path, line, character, name, project: project.display.clone() };
                if !helper_keys.contains(&key) {
                    helper_keys.push(key);
                }
            }
            Enclosing::Nothing => outside.push(outside_site(site, "in no test and no function")),
            Enclosing::Unparsed(why) => outside.push(outside_site(site, &format!("the file did not parse: {why}"))),
        }
    }
    (tests, helper_keys, outside)
}

/// The helpers, each followed once (or said why not), with what the following left out.
struct FollowedHelpers {
    helpers: Vec<HelperRow>,
    not_followed: Vec<String>,
    incomplete: Vec<String>,
}

/// Step 3: each helper followed once to the tests that use it (at most `maxIntermediate`, and
/// not past the deadline); the tests it reaches join `tests`.
async fn follow_helpers(
    reader: &mut SiteReader<'_>,
    helper_keys: &[HelperKey],
    tests: &mut Tests,
    arguments: &TestsForSymbolArguments,
    deadline: Deadline,
    context: &CommandContext,
) -> Result<FollowedHelpers, CommandError> {
    let mut followed = FollowedHelpers { helpers: Vec::new(), not_followed: Vec::new(), incomplete: Vec::new() };
    let bound = arguments.max_intermediate.as_usize();
    for (index, key) in helper_keys.iter().enumerate() {
        let display_path = reader.model.display_path(&key.path);
        let mut row = HelperRow {
            name: key.name.clone(),
            project: key.project.clone(),
            path: display_path.clone(),
            line: key.line,
            followed: false,
            completeness: None,
            reason: None,
            used_by_functions_not_followed: Vec::new(),
        };
        let cut = if index >= bound {
            Some(format!("maxIntermediate = {bound} helpers were followed"))
        } else if deadline.passed() {
            Some("the deadline passed".to_owned())
        } else {
            None
        };
        if let Some(reason) = cut {
            followed.not_followed.push(format!("{} ({}:{})", key.name, display_path, key.line));
            row.reason = Some(reason);
            followed.helpers.push(row);
            continue;
        }
        let own = FindOwnArguments { kind: FindKind::Position, ..FindOwnArguments::default() };
        let mut helper_find = FindArguments::new(own);
        helper_find.path = Some(display_path.clone());
        helper_find.line = Some(Coordinate::clamped(u64::from(key.line)));
        helper_find.character = Some(Coordinate::clamped(u64::from(key.character)));
        helper_find.timeout_ms = FindTimeoutMs::clamped(deadline.remaining_ms());
        let uses: AllSites = match find::all_sites(helper_find, context.clone()).await {
            Ok(uses) => uses,
            Err(CommandError::Cancelled) => return Err(CommandError::Cancelled),
            Err(error) => {
                followed.not_followed.push(format!("{} ({}:{})", key.name, display_path, key.line));
                row.reason = Some(format!("find failed at its name: {error}"));
                followed.helpers.push(row);
                continue;
            }
        };
        row.followed = true;
        row.completeness = Some(uses.completeness);
        if uses.completeness != Completeness::Complete {
            followed.incomplete.push(format!("{} ({})", key.name, uses.completeness.as_str()));
        }
        let reach = Reach::Via { via: key.name.clone(), path: display_path.clone(), line: key.line };
        add_uses_of_helper(reader, key, &uses, &reach, tests, &mut row);
        followed.helpers.push(row);
    }
    Ok(followed)
}

/// The uses of one helper: tests join `tests` (reached through it), other functions are named
/// on its row as not followed (a second level).
fn add_uses_of_helper(
    reader: &mut SiteReader<'_>,
    key: &HelperKey,
    uses: &AllSites,
    reach: &Reach,
    tests: &mut Tests,
    row: &mut HelperRow,
) {
    for site in uses.rows.iter().filter(|site| is_use(site)) {
        let Some((project, _, enclosing)) = reader.enclosing(site) else { continue };
        match enclosing {
            Enclosing::Test(test) => {
                let test = test_row(test, project, &site.file, reach.clone());
                tests.entry(test_key(&test)).or_insert(test);
            }
            Enclosing::Function(function) => {
                let own_body = function.line == key.line && function.name == key.name;
                let named = format!("{} ({}:{})", function.name, site.file, function.line);
                if !own_body && !row.used_by_functions_not_followed.contains(&named) {
                    row.used_by_functions_not_followed.push(named);
                }
            }
            Enclosing::Nothing | Enclosing::Unparsed(_) => {}
        }
    }
}

/// Step 4: one row per test project with its tests and whether find searched it; the
/// projects it did not search, with why.
fn test_project_rows(
    test_projects: &[TestProject<'_>],
    found: &AllSites,
    tests: &Tests,
) -> (Vec<TestProjectRow>, Vec<String>) {
    let status_of: HashMap<&str, ProjectStatus> =
        found.per_project.iter().map(|row| (row.project.as_str(), row.status)).collect();
    let mut projects_not_searched = Vec::new();
    let mut project_rows: Vec<TestProjectRow> = Vec::new();
    for project in test_projects {
        let searched = match status_of.get(project.display.as_str()) {
            Some(ProjectStatus::Analyzed) => "analyzed".to_owned(),
            Some(status) => {
                projects_not_searched.push(format!("{} ({})", project.display, status.as_str()));
                status.as_str().to_owned()
            }
            None => "notSwept".to_owned(),
        };
        let tests_here: Vec<TestRow> = tests.values().filter(|test| test.project == project.display).cloned().collect();
        project_rows.push(TestProjectRow {
            project: project.display.clone(),
            rule: project.rule.clone(),
            searched,
            tests: tests_here,
        });
    }
    (project_rows, projects_not_searched)
}

/// Step 5: why the list of tests may be missing some (empty when it is complete).
fn what_is_missing(found: &AllSites, followed: &FollowedHelpers, projects_not_searched: &[String]) -> Vec<String> {
    let mut missing = Vec::new();
    if found.completeness != Completeness::Complete {
        let why = match found.via {
            Via::Syntax => "FSAC is not ready: the syntax layer matched the sites by name",
            _ => "find's answer for the symbol is not complete",
        };
        missing.push(format!("{why} (find completeness {})", found.completeness.as_str()));
    }
    if !followed.incomplete.is_empty() {
        missing.push(format!("find's answer for helpers is not complete: {}", followed.incomplete.join(", ")));
    }
    if !followed.not_followed.is_empty() {
        missing.push(format!("{} helper(s) were not followed", followed.not_followed.len()));
    }
    if !projects_not_searched.is_empty() {
        missing.push(format!("test projects not searched: {}", projects_not_searched.join(", ")));
    }
    if followed.helpers.iter().any(|helper| !helper.used_by_functions_not_followed.is_empty()) {
        missing.push("some helpers are used by other functions (a second level), which is not followed".to_owned());
    }
    missing
}

/// Step 6: find's notes, and what the answer's reader should know about the test projects.
fn answer_notes(found: &AllSites, test_projects: &[TestProject<'_>], project_rows: &[TestProjectRow]) -> Vec<String> {
    let mut notes = found.notes.clone();
    if test_projects.is_empty() {
        notes.push(
            "no test project in the workspace (none references Microsoft.NET.Test.Sdk, xunit, NUnit, Expecto or \
             FsCheck.Xunit/NUnit, nor sets IsTestProject)"
                .to_owned(),
        );
    }
    let vstest_less: Vec<&str> = project_rows
        .iter()
        .filter(|row| !row.tests.is_empty())
        .filter(|row| {
            test_projects
                .iter()
                .any(|project| project.display == row.project && !projects::runs_under_vstest(project.project))
        })
        .map(|row| row.project.as_str())
        .collect();
    if !vstest_less.is_empty() {
        notes.push(format!(
            "{} reference(s) no Microsoft.NET.Test.Sdk: VSTest cannot select their tests by name, so \
             runTestsArguments lists only the project",
            vstest_less.join(", ")
        ));
    }
    notes
}

/// A site that uses the symbol (not its declaration).
fn is_use(site: &SiteRow) -> bool {
    !matches!(site.kind, SiteKind::Definition | SiteKind::Signature)
}

/// The test projects of the workspace (only the one `projectPath` names, when given).
fn test_projects_of<'a>(
    model: &'a WorkspaceModel,
    project_path: Option<&str>,
) -> Result<Vec<TestProject<'a>>, CommandError> {
    let all: Vec<TestProject> = model
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
    let mut all = all;
    all.sort_by(|one, other| one.display.cmp(&other.display));
    let Some(wanted) = project_path else { return Ok(all) };
    let wanted_path = model.root.join(wanted);
    let chosen: Vec<TestProject> = all
        .into_iter()
        .filter(|test| {
            test.project.name == wanted
                || test.display == wanted.trim_start_matches("./")
                || test.project.path == Path::new(wanted)
                || test.project.path == wanted_path
        })
        .collect();
    if chosen.is_empty() {
        return Err(CommandError::invalid_argument(
            "projectPath",
            format!("{wanted:?} names no test project of the workspace"),
        ));
    }
    Ok(chosen)
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
    /// The test project compiling the site's file, the file's path and what encloses the site;
    /// `None` for a site in no test project (or in a file that cannot be read).
    fn enclosing(&mut self, site: &SiteRow) -> Option<(&'a TestProject<'a>, PathBuf, Enclosing)> {
        let path = self.root.join(&site.file);
        let compiling = self.model.projects_compiling(&path);
        let project =
            self.test_projects.iter().find(|test| compiling.iter().any(|project| project.path == test.project.path))?;
        let (overlay, parsers) = (&self.overlay, &mut self.parsers);
        let (text, tree) = self
            .files
            .entry(path.clone())
            .or_insert_with(|| {
                let text = crate::commands::paths::current_text(overlay, &path).ok()?;
                let tree = enclosing::parse(parsers, &text);
                Some((text, tree))
            })
            .as_ref()?;
        let (line, character) = (site.range.start.line, site.range.start.character);
        let found = match tree {
            Ok(tree) => enclosing::enclosing_in(tree, text, line, character),
            Err(why) => Enclosing::Unparsed(why.clone()),
        };
        Some((project, path, found))
    }
}

fn outside_site(site: &SiteRow, reason: &str) -> OutsideSite {
    OutsideSite {
        path: site.file.clone(),
        line: site.range.start.line,
        character: site.range.start.character,
        reason: reason.to_owned(),
    }
}

/// A found test as an answer row.
fn test_row(test: FoundTest, project: &TestProject, path: &str, reach: Reach) -> TestRow {
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
            };
            TestRow {
                fully_qualified_name: enclosing::fully_qualified_name(&containers, &name),
                name,
                framework,
                project: project.display.clone(),
                path: path.to_owned(),
                line,
                reach,
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
            }
        }
    }
}

fn test_key(test: &TestRow) -> (String, String, u32, String) {
    (test.project.clone(), test.path.clone(), test.line, test.name.clone())
}

/// The tests VSTest can select by full name, and the projects holding tests.
fn run_tests_arguments(test_projects: &[TestProject], rows: &[TestProjectRow]) -> Option<RunTestsArguments> {
    let mut tests = BTreeSet::new();
    let mut projects = Vec::new();
    for row in rows.iter().filter(|row| !row.tests.is_empty()) {
        let vstest = test_projects
            .iter()
            .any(|project| project.display == row.project && projects::runs_under_vstest(project.project));
        let names: Vec<String> = row.tests.iter().filter_map(|test| test.fully_qualified_name.clone()).collect();
        if vstest && !names.is_empty() {
            projects.push(row.project.clone());
            tests.extend(names);
        }
    }
    (!tests.is_empty()).then(|| RunTestsArguments { tests: tests.into_iter().collect(), projects })
}

/// The tests reaching a symbol are a definite answer (coverage is said in its fields).
impl crate::commands::outcome::Answered for TestsForSymbolAnswer {}
