//! The command line: every subcommand's flags, its answer's text and its exit code. The
//! commands answer typed values that say what they mean ([`Outcome`]); this layer, above every
//! other but `main`, decides how a person or a script sees them. [`face`] is an exhaustive
//! `match` over the command table's [`Command`]: a new row does not compile until it says
//! whether the command has a subcommand and how its answer reads.

pub mod affected_tests;
pub mod arguments;
pub mod check;
pub mod command_line;
pub mod contract;
pub mod dead_code;
pub mod diagnostic;
pub mod doctor;
pub mod field_impact;
pub mod find;
pub mod index;
pub mod make_visible;
pub mod outline;
pub mod paths;
pub mod project_inspect;
pub mod referenced;
pub mod rename;
pub mod run_tests;
pub mod signature_drift;
pub mod status;
pub mod symbols;
pub mod tests_for_symbol;
pub mod union_impact;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cli::command_line::{CliRequest, CommandLine, OnCommandLine};
use crate::cli::contract::exit_codes;
use crate::commands;
use crate::commands::outcome::{Answered, Outcome};
use crate::commands::registry::Command;
use crate::failure::Failure;

/// A command's face on the command line.
pub struct Face {
    /// Its subcommand, if it has one (`restart`, `diagnostics` and `typeHierarchy` are reached
    /// by the editor and MCP only).
    pub subcommand: Option<Subcommand>,
    /// Its answer read once from the wire JSON as the command's answer type: its text (printed
    /// without `--json`) and what it means (its exit code).
    pub read: fn(&Value) -> Result<Read, serde_json::Error>,
}

/// A command's answer as the command line reads it.
pub struct Read {
    /// The answer as text.
    pub text: String,
    /// What the answer means.
    pub outcome: Outcome,
}

/// What the command line prints of an answer, and its exit code.
pub struct Shown {
    /// The JSON with `--json`, else the text.
    pub text: String,
    /// The exit code ([`exit_codes`]).
    pub exit_code: u8,
}

/// A subcommand: its name, its help line, and the type its flags come from.
pub struct Subcommand {
    pub name: &'static str,
    pub about: &'static str,
    build: fn(&'static str, &'static str) -> clap::Command,
    request: fn(&clap::ArgMatches) -> Result<CliRequest, Failure>,
}

impl Subcommand {
    /// The subcommand `name`, whose flags are `Line`'s.
    fn of<Line: CommandLine>(name: &'static str, about: &'static str) -> Subcommand {
        Subcommand { name, about, build: command_line::subcommand::<Line>, request: command_line::request_of::<Line> }
    }
}

/// The command line's face of every command of the table.
pub fn face(command: Command) -> Face {
    match command {
        Command::Status => status_face(),
        Command::Restart => restart_face(),
        Command::Doctor => doctor_face(),
        Command::Find => find_face(),
        Command::TestsForSymbol => tests_for_symbol_face(),
        Command::FieldImpact => field_impact_face(),
        Command::Check => check_face(),
        Command::Diagnostics => diagnostics_face(),
        Command::MakeInternalVisible => make_internal_visible_face(),
        Command::Outline => outline_face(),
        Command::ExplainDiagnostic => explain_diagnostic_face(),
        Command::DiagnosticFixes => diagnostic_fixes_face(),
        Command::SuggestOpen => suggest_open_face(),
        Command::ReferencedSymbols => referenced_symbols_face(),
        Command::NugetTypes => nuget_types_face(),
        Command::NugetMembers => nuget_members_face(),
        Command::SymbolSearch => symbol_search_face(),
        Command::ReadSymbol => read_symbol_face(),
        Command::ReadEnclosing => read_enclosing_face(),
        Command::Rename => rename_face(),
        Command::TypeHierarchy => type_hierarchy_face(),
        Command::RunTests => run_tests_face(),
        Command::AffectedTests => crate::cli::affected_tests::face(),
        Command::UnionCaseImpact => union_case_impact_face(),
        Command::SignatureDrift => signature_drift_face(),
        Command::ProjectInspect => project_inspect_face(),
        Command::DeadCode => dead_code_face(),
    }
}

fn status_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::status::StatusArguments>>(
            "status",
            "Start a headless session (or join a running one) and print its status",
        )),
        read: |answer| read_as::<commands::status::StatusAnswer>(answer, crate::cli::status::render_text),
    }
}

fn restart_face() -> Face {
    Face { subcommand: None, read: |answer| read_as::<serde_json::Value>(answer, indented_json) }
}

fn doctor_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::doctor::DoctorArguments>>(
            "doctor",
            "Check what keeps fslens or FSAC from serving the workspace (SDK, global.json, FSAC, restore, paket, central packages, session socket, a second FSAC), each with its fix",
        )),
        read: |answer| read_as::<commands::doctor::DoctorAnswer>(answer, crate::cli::doctor::render_text),
    }
}

fn find_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::find::FindArguments>>(
            "find",
            "Find every site of a symbol across every project, with proof of coverage",
        )),
        read: |answer| read_as::<commands::find::answer::FindAnswer>(answer, crate::cli::find::render_text),
    }
}

fn tests_for_symbol_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::tests_for_symbol::TestsForSymbolArguments>>(
            "tests-for-symbol",
            "List the tests of the test projects that reach a symbol (directly or through one helper)",
        )),
        read: |answer| {
            read_as::<commands::tests_for_symbol::TestsForSymbolAnswer>(
                answer,
                crate::cli::tests_for_symbol::render_text,
            )
        },
    }
}

fn field_impact_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<arguments::FieldImpactCommandLine>(
            "field-impact",
            "Every site of a record field with its kind and type, grouped for planning a change",
        )),
        read: |answer| {
            read_as::<commands::field_impact::FieldImpactAnswer>(answer, crate::cli::field_impact::render_text)
        },
    }
}

fn check_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<arguments::CheckCommandLine>(
            "check",
            "Type-check and print a verdict (clean | errors | unknown) that says what it covers",
        )),
        read: |answer| read_as::<commands::check::answer::CheckAnswer>(answer, crate::cli::check::render_text),
    }
}

fn diagnostics_face() -> Face {
    Face { subcommand: None, read: |answer| read_as::<commands::diagnostics::DiagnosticsAnswer>(answer, indented_json) }
}

fn make_internal_visible_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::make_visible::MakeVisibleArguments>>(
            "make-visible",
            "Make a private declaration internal: prints the edit (nothing is written to disk)",
        )),
        read: |answer| {
            read_as::<commands::make_visible::MakeVisibleAnswer>(answer, crate::cli::make_visible::render_text)
        },
    }
}

fn outline_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::outline::OutlineArguments>>(
            "outline",
            "Outline a file, a project or a public API from the syntax layer (in a session, so the editor's unsaved buffers count when one is running)",
        )),
        read: |answer| read_as::<commands::outline::OutlineAnswer>(answer, crate::cli::outline::render_text),
    }
}

fn explain_diagnostic_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::diagnostic::arguments::ExplainArguments>>(
            "explain-diagnostic",
            "Explain the compiler diagnostic at --path/--line: message, context, meaning, fixes",
        )),
        read: |answer| read_as::<commands::diagnostic::explain::ExplainAnswer>(answer, crate::cli::diagnostic::explain),
    }
}

fn diagnostic_fixes_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::diagnostic::arguments::FixesArguments>>(
            "diagnostic-fixes",
            "FSAC's fixes for the diagnostic at --path/--line, previewed (nothing is written)",
        )),
        read: |answer| read_as::<commands::diagnostic::fixes::FixesAnswer>(answer, crate::cli::diagnostic::fixes),
    }
}

fn suggest_open_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::diagnostic::arguments::SuggestOpenArguments>>(
            "suggest-open",
            "Which `open` brings NAME (or the FS0039 at --path/--line) into scope",
        )),
        read: |answer| {
            read_as::<commands::diagnostic::suggest_open::SuggestOpenAnswer>(
                answer,
                crate::cli::diagnostic::suggest_open,
            )
        },
    }
}

fn referenced_symbols_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::referenced::ReferencedSymbolsArguments>>(
            "referenced-symbols",
            "Search the referenced assemblies' types by name substring (read from their metadata)",
        )),
        read: |answer| {
            read_as::<commands::referenced::ReferencedSymbolsAnswer>(answer, crate::cli::referenced::symbols_text)
        },
    }
}

fn nuget_types_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::referenced::NugetTypesArguments>>(
            "nuget-types",
            "List the types of one package or referenced assembly (exact package id or assembly name)",
        )),
        read: |answer| read_as::<commands::referenced::NugetTypesAnswer>(answer, crate::cli::referenced::types_text),
    }
}

fn nuget_members_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::referenced::NugetMembersArguments>>(
            "nuget-members",
            "List the members of one type of a package or referenced assembly, with signatures",
        )),
        read: |answer| {
            read_as::<commands::referenced::NugetMembersAnswer>(answer, crate::cli::referenced::members_text)
        },
    }
}

fn symbol_search_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::symbols::SearchArguments>>(
            "symbol-search",
            "Rank files for identifiers from the syntax index (BM25, declarations first, tests demoted)",
        )),
        read: |answer| read_as::<commands::symbols::SymbolSearchAnswer>(answer, crate::cli::symbols::search_text),
    }
}

fn read_symbol_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::symbols::read::ReadSymbolArguments>>(
            "read-symbol",
            "Print one declaration's source by name (all candidates when the name is ambiguous)",
        )),
        read: |answer| {
            read_as::<commands::symbols::read::ReadSymbolAnswer>(answer, crate::cli::symbols::read_symbol_text)
        },
    }
}

fn read_enclosing_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::symbols::read::ReadEnclosingArguments>>(
            "read-enclosing",
            "Print the smallest declaration enclosing a path and 0-based line",
        )),
        read: |answer| {
            read_as::<commands::symbols::read::ReadEnclosingAnswer>(answer, crate::cli::symbols::read_enclosing_text)
        },
    }
}

fn rename_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<arguments::RenameCommandLine>(
            "rename",
            "Rename the symbol at --path/--line: a preview cross-checked against find (nothing is written unless --apply disk)",
        )),
        read: |answer| read_as::<commands::rename::RenameAnswer>(answer, crate::cli::rename::render_text),
    }
}

fn type_hierarchy_face() -> Face {
    Face {
        subcommand: None,
        read: |answer| read_as::<commands::type_hierarchy::TypeHierarchyAnswer>(answer, indented_json),
    }
}

fn run_tests_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::run_tests::RunTestsArguments>>(
            "run-tests",
            "Run tests through FSAC's test explorer (VSTest over the built assemblies) and print each result",
        )),
        read: |answer| read_as::<commands::run_tests::RunTestsAnswer>(answer, crate::cli::run_tests::render_text),
    }
}

fn union_case_impact_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::union_impact::UnionCaseImpactArguments>>(
            "union-case-impact",
            "What adding, removing or changing a union case breaks: every match and use, checked by the compiler without touching anything",
        )),
        read: |answer| {
            read_as::<commands::union_impact::UnionCaseImpactAnswer>(answer, crate::cli::union_impact::render_text)
        },
    }
}

fn signature_drift_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::signature_drift::SignatureDriftArguments>>(
            "signature-drift",
            "Compare each .fsi with its .fs: what the signature hides, what it declares that the implementation lacks, with fixes (nothing is written)",
        )),
        read: |answer| {
            read_as::<commands::signature_drift::SignatureDriftAnswer>(answer, crate::cli::signature_drift::render_text)
        },
    }
}

fn project_inspect_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::project_inspect::ProjectInspectArguments>>(
            "project-inspect",
            "The project model FSAC loaded (compile order, references, framework, defines) and how it differs from the project files",
        )),
        read: |answer| {
            read_as::<commands::project_inspect::ProjectInspectAnswer>(answer, crate::cli::project_inspect::render_text)
        },
    }
}

fn dead_code_face() -> Face {
    Face {
        subcommand: Some(Subcommand::of::<OnCommandLine<commands::dead_code::DeadCodeArguments>>(
            "dead-code",
            "List private and internal declarations nothing in the workspace uses (public too with --include-public)",
        )),
        read: |answer| read_as::<commands::dead_code::DeadCodeAnswer>(answer, crate::cli::dead_code::render_text),
    }
}

/// The command-line subcommands, one per command that has one, in the table's order.
pub fn subcommands() -> Vec<clap::Command> {
    Command::ALL
        .into_iter()
        .filter_map(|command| face(command).subcommand)
        .enumerate()
        .map(|(order, subcommand)| (subcommand.build)(subcommand.name, subcommand.about).display_order(order))
        .collect()
}

/// The command a subcommand runs and what its flags ask; `None` for a subcommand that is no
/// command of the table (`mcp`, `navigate`, `index`, `session-path`).
pub fn request(name: &str, matches: &clap::ArgMatches) -> Option<Result<(Command, CliRequest), Failure>> {
    Command::ALL.into_iter().find_map(|command| {
        let subcommand = face(command).subcommand.filter(|subcommand| subcommand.name == name)?;
        Some((subcommand.request)(matches).map(|request| (command, request)))
    })
}

/// The answer as the command line shows it, read once as the command's answer type: the JSON
/// with `json`, else its text, and its exit code ([`exit_codes`]). An answer that does not read
/// as the command's answer type is shown as JSON (with why, as text) and is a failure.
pub fn shown(command: Command, answer: &Value, json: bool) -> Shown {
    let read = (face(command).read)(answer);
    let text = match (&read, json) {
        (_, true) => serde_json::to_string_pretty(answer)
            .unwrap_or_else(|error| format!("(the answer could not be written: {error})")),
        (Ok(read), false) => read.text.clone(),
        (Err(error), false) => format!("(the answer could not be read for text: {error})\n{answer:#}"),
    };
    let exit_code = match read {
        Ok(read) => exit_code_of(read.outcome),
        Err(_) => exit_codes::FAILED,
    };
    Shown { text, exit_code }
}

/// The answer as the command line prints it without `--json` ([`shown`]).
pub fn render_text(command: Command, answer: &Value) -> String {
    shown(command, answer, false).text
}

/// The command line's exit code for the answer ([`shown`]).
pub fn exit_code(command: Command, answer: &Value) -> u8 {
    shown(command, answer, true).exit_code
}

/// The exit code an [`Outcome`] gives.
pub fn exit_code_of(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Definite => exit_codes::SUCCESS,
        Outcome::Errors => exit_codes::CHECK_ERRORS,
        Outcome::NotDefinite => exit_codes::NOT_DEFINITE,
        Outcome::BackendDown => exit_codes::FSAC_NOT_RUNNING,
    }
}

/// The answer read as `Answer`: its text and what it means.
fn read_as<Answer: DeserializeOwned + Answered>(
    answer: &Value,
    render: fn(&Answer) -> String,
) -> Result<Read, serde_json::Error> {
    let typed = Answer::deserialize(answer)?;
    Ok(Read { text: render(&typed), outcome: typed.outcome() })
}

/// The text of a command with no rendering of its own (nothing on the command line runs it):
/// its JSON, indented.
fn indented_json<Answer: serde::Serialize>(answer: &Answer) -> String {
    serde_json::to_string_pretty(answer).unwrap_or_else(|error| format!("(the answer could not be written: {error})"))
}

/// The exit code of a typed answer.
pub fn exit_code_of_answer<Answer: Answered>(answer: &Answer) -> u8 {
    exit_code_of(answer.outcome())
}
