//! `fslens.testsForSymbol`: the tests of the workspace's test projects that reach a symbol.
//! The symbol's sites come from find's typed API ([`find::all_sites`]); the walk of
//! [`reach`] maps each site to the test or function around it (in library code as in test
//! helpers) and follows each function through find again, transitively up to `maxDepth`
//! levels; each test carries its chain. A chain the depth cut makes the answer partial.
pub mod projects;
pub mod reach;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::Instant;

use crate::deadline::Deadline;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::find::answer::{Completeness, ProjectStatus, Via};
use crate::commands::find::arguments::{FindArguments, FindKind, FindOwnArguments, FindTimeoutMs, check_name};
use crate::commands::find::rows::SiteKind;
use crate::commands::find::{self, AllSites};
use crate::commands::params::{Bounded, CommandArguments};
use crate::commands::{CommandContext, CommandError};
use crate::workspace::WorkspaceModel;
use projects::TestProjectRule;
use reach::{Bounds, Step, TestProject, Walk};

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
        /// At most this many functions (library code or test helpers, no tests) are followed to
        /// the tests that use them; default 20, 0 follows none.
        #[serde(default)]
        #[arg(long, default_value_t)]
        pub max_intermediate: Bounded<0, 200, 20>,
        /// How many levels of functions are followed from the symbol to the tests: 1 follows
        /// the functions holding a site of it, 0 none; default 3.
        #[serde(default)]
        #[arg(long, default_value_t)]
        pub max_depth: Bounded<0, 10, 3>,
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
    Mstest,
}

/// `reach: "direct"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direct {
    Direct,
}

/// How a test reaches the symbol: `"direct"` (a site in the test), or `{via, path, line}`
/// (the test uses the function `via`, declared at `path`:`line`, which holds a site of the
/// symbol or reaches it through further functions: `chain` has every step).
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
    /// The reason: the declarations from the symbol (or changed declaration) to the test, the
    /// test last, each with its file and 0-based line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<Step>,
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

/// A function met on the way to the tests: a declaration (library code or a test helper) that
/// is no test and holds a site of the symbol or of a function nearer to it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelperRow {
    pub name: String,
    pub project: String,
    pub path: String,
    /// 0-based line of its name.
    pub line: u32,
    /// Its level: 1 for a function holding a site of the symbol, 2 for one using such a function…
    #[serde(default)]
    pub depth: u32,
    /// Whether its uses were looked up.
    pub followed: bool,
    /// find's completeness for the helper (when followed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completeness: Option<Completeness>,
    /// Why it was not followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Functions (no tests) that use the helper and were not followed (kept for older
    /// answers; the walk follows them, or names them in `cutByDepth`).
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
    /// The depth covered: how many levels of functions the walk would follow (`maxDepth`).
    #[serde(default)]
    pub depth: u32,
    /// Functions the depth limit left unfollowed (their chains were cut).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_by_depth: Vec<String>,
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
    /// How many levels of functions were followed (the deepest chain's intermediates).
    pub indirect_depth: u32,
    pub indirect_note: String,
    /// The helpers found (followed or not).
    pub helpers: Vec<HelperRow>,
    /// Functions the `maxIntermediate` bound or the deadline cut, or whose find failed.
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

    let start = start_step(&found, arguments.query.as_deref());
    let start_at = start_position(&found, &root);

    let overlay = context.editor_buffers().await?;
    let bounds = Bounds {
        max_depth: arguments.max_depth.get() as u32,
        max_functions: arguments.max_intermediate.as_usize(),
        deadline,
    };
    let mut walk = Walk::new(&root, &model, &test_projects, overlay, bounds, context.clone());
    walk.walk_from(start, start_at, &found).await?;
    let (project_rows, projects_not_searched) = test_project_rows(&test_projects, &found, &walk.tests);
    let missing = what_is_missing(&found, &walk, &projects_not_searched);
    let complete = missing.is_empty();
    let notes = answer_notes(&found, &test_projects, &project_rows);
    let run_tests_arguments = run_tests_arguments(&test_projects, &project_rows);
    let total_tests = project_rows.iter().map(|row| row.tests.len()).sum();
    let max_depth = bounds.max_depth;
    Ok(TestsForSymbolAnswer {
        tool: "testsForSymbol".to_owned(),
        query: arguments.query,
        symbol,
        via: found.via,
        complete,
        completeness: CompletenessReport {
            find: found.completeness,
            helpers_incomplete: walk.incomplete,
            depth: max_depth,
            cut_by_depth: walk.cut_by_depth,
            projects_not_searched,
            missing,
        },
        total_tests,
        test_projects: project_rows,
        indirect_depth: walk.levels,
        indirect_note: format!(
            "functions around the sites (library code and test helpers) are followed through find to the tests \
             using them, up to {max_depth} level(s); each test's chain names every step"
        ),
        helpers: walk.functions,
        helpers_not_followed: walk.not_followed,
        sites_outside_tests: walk.outside,
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

/// The symbol as the first step of every chain: its definition site (or its first site).
fn start_step(found: &AllSites, query: Option<&str>) -> Step {
    let site = found.rows.iter().find(|site| site.kind == SiteKind::Definition).or_else(|| found.rows.first());
    let name = site
        .and_then(|site| site.symbol_full_name.as_deref())
        .and_then(|full| full.rsplit('.').next())
        .or(query)
        .unwrap_or("the symbol")
        .to_owned();
    Step {
        name,
        path: site.map(|site| site.file.clone()).unwrap_or_default(),
        line: site.map_or(0, |site| site.range.start.line),
    }
}

/// Where the symbol is declared (its definition site), so a recursive use is not followed.
fn start_position(found: &AllSites, root: &Path) -> Option<(std::path::PathBuf, u32)> {
    found
        .rows
        .iter()
        .find(|site| site.kind == SiteKind::Definition)
        .map(|site| (root.join(&site.file), site.range.start.line))
}

/// Step 4: one row per test project with its tests and whether find searched it; the
/// projects it did not search, with why.
fn test_project_rows(
    test_projects: &[TestProject<'_>],
    found: &AllSites,
    tests: &reach::Tests,
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
fn what_is_missing(found: &AllSites, walk: &Walk<'_>, projects_not_searched: &[String]) -> Vec<String> {
    let mut missing = Vec::new();
    if found.completeness != Completeness::Complete {
        let why = match found.via {
            Via::Syntax => "FSAC is not ready: the syntax layer matched the sites by name",
            _ => "find's answer for the symbol is not complete",
        };
        missing.push(format!("{why} (find completeness {})", found.completeness.as_str()));
    }
    if !walk.incomplete.is_empty() {
        missing.push(format!("find's answer for functions on the way is not complete: {}", walk.incomplete.join(", ")));
    }
    if !walk.not_followed.is_empty() {
        missing.push(format!(
            "{} function(s) were not followed: {}",
            walk.not_followed.len(),
            walk.not_followed.join(", ")
        ));
    }
    if !walk.cut_by_depth.is_empty() {
        missing.push(format!(
            "the depth limit cut {} chain(s) at: {}",
            walk.cut_by_depth.len(),
            walk.cut_by_depth.join(", ")
        ));
    }
    if !projects_not_searched.is_empty() {
        missing.push(format!("test projects not searched: {}", projects_not_searched.join(", ")));
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

/// The test projects of the workspace (only the one `projectPath` names, when given).
fn test_projects_of<'a>(
    model: &'a WorkspaceModel,
    project_path: Option<&str>,
) -> Result<Vec<TestProject<'a>>, CommandError> {
    let all = reach::test_projects(model);
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
