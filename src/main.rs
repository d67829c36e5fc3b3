//! The `fslens` binary: command-line parsing and wiring only.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use fslens::cli_contract::{CliFailure, exit_codes};
use fslens::commands::params::{OnCommandLine, to_argument_object};
use fslens::proxy::backend::{BackendLauncher, FSAC_ENVIRONMENT_VARIABLE, ProcessLauncher, resolve_fsac_command};
use fslens::proxy::trace::Tracer;
use fslens::proxy::{ProxyConfig, run_proxy};
use fslens::session_client::{CommandRequest, run_command};

/// A language-server proxy for F#: forwards LSP between the editor and FsAutoComplete and
/// adds workspace-wide commands. Without a subcommand it speaks LSP on stdin/stdout.
#[derive(Parser)]
#[command(name = "fslens", version)]
struct Cli {
    #[command(flatten)]
    session: SessionOptions,
    /// Write logs to this file instead of stderr.
    #[arg(long, global = true)]
    log_file: Option<PathBuf>,
    /// Log filter (e.g. `info`, `fslens=debug`); default `warn`, or `RUST_LOG`.
    #[arg(long, global = true)]
    log_level: Option<String>,
    /// Write a JSON-lines transcript of every message to this file.
    #[arg(long, global = true)]
    trace_messages: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Args, Clone)]
struct SessionOptions {
    /// The FSAC command line (split like a shell would, never run through one). Default:
    /// $FSLENS_FSAC, else `fsautocomplete` on PATH, else `dotnet fsautocomplete`.
    #[arg(long, global = true)]
    fsac: Option<String>,
    /// The workspace root. Default: the editor's rootUri (proxy) or the current directory.
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Do not serve the session socket that lets MCP and CLI clients join this session.
    #[arg(long, global = true)]
    no_share: bool,
    /// First delay before restarting a crashed FSAC, in milliseconds (doubles per crash).
    #[arg(long, global = true, default_value_t = 1000)]
    restart_backoff_ms: u64,
    /// Longest delay between restarts, in milliseconds.
    #[arg(long, global = true, default_value_t = 30_000)]
    max_restart_backoff_ms: u64,
    /// Crashes within three minutes that are still restarted; one more stops restarting.
    #[arg(long, global = true, default_value_t = 5)]
    crash_loop_limit: usize,
    /// FSAC silent this long with requests pending marks the session unresponsive (ms).
    #[arg(long, global = true, default_value_t = 30_000)]
    unresponsive_after_ms: u64,
    /// Restart FSAC (a planned restart, not a crash) once its resident memory exceeds SIZE:
    /// `4GiB`, `3000MB`, or a share of physical memory like `60%`. Default:
    /// $FSLENS_FSAC_MEMORY_LIMIT, else no limit (memory is still sampled and reported).
    #[arg(long, global = true, value_name = "SIZE")]
    fsac_memory_limit: Option<String>,
    /// How often FSAC's resident memory is sampled, in milliseconds.
    #[arg(long, global = true, default_value_t = 5_000)]
    fsac_memory_sample_ms: u64,
    /// How long a planned restart waits for pending editor requests before it answers them
    /// with `fsac_restarting` and restarts anyway, in milliseconds.
    #[arg(long, global = true, default_value_t = 10_000)]
    fsac_memory_restart_grace_ms: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Start a headless session (or join a running one) and print its status.
    Status(OnCommandLine<fslens::commands::status::StatusArguments>),
    /// Outline a file, a project or a public API from the syntax layer (in a session, so
    /// the editor's unsaved buffers count when one is running).
    Outline(OnCommandLine<fslens::commands::outline::OutlineArguments>),
    /// Type-check and print a verdict (clean | errors | unknown) that says what it covers.
    Check(CheckOptions),
    /// Every site of a record field with its kind and type, grouped for planning a change.
    FieldImpact(FieldImpactOptions),
    /// Make a private declaration internal: prints the edit (nothing is written to disk).
    MakeVisible(OnCommandLine<fslens::commands::make_visible::MakeVisibleArguments>),
    /// Find every site of a symbol across every project, with proof of coverage.
    Find(OnCommandLine<fslens::commands::find::FindArguments>),
    /// Rename the symbol at --path/--line: a preview cross-checked against find (nothing is
    /// written unless --apply disk).
    Rename(fslens::commands::rename::RenameCommandLine),
    /// Explain the compiler diagnostic at --path/--line: message, context, meaning, fixes.
    ExplainDiagnostic(OnCommandLine<fslens::commands::diagnostic::arguments::ExplainArguments>),
    /// FSAC's fixes for the diagnostic at --path/--line, previewed (nothing is written).
    DiagnosticFixes(OnCommandLine<fslens::commands::diagnostic::arguments::FixesArguments>),
    /// Which `open` brings NAME (or the FS0039 at --path/--line) into scope.
    SuggestOpen(OnCommandLine<fslens::commands::diagnostic::arguments::SuggestOpenArguments>),
    /// Index the workspace's F# files with the syntax layer and print statistics.
    Index(fslens::commands::index::IndexCliArgs),
    /// Search the referenced assemblies' types by name substring (read from their metadata).
    ReferencedSymbols(OnCommandLine<fslens::commands::referenced::ReferencedSymbolsArguments>),
    /// List the types of one package or referenced assembly (exact package id or assembly name).
    NugetTypes(OnCommandLine<fslens::commands::referenced::NugetTypesArguments>),
    /// List the members of one type of a package or referenced assembly, with signatures.
    NugetMembers(OnCommandLine<fslens::commands::referenced::NugetMembersArguments>),
    /// Rank files for identifiers from the syntax index (BM25, declarations first, tests demoted).
    SymbolSearch(OnCommandLine<fslens::commands::symbols::SearchArguments>),
    /// Print one declaration's source by name (all candidates when the name is ambiguous).
    ReadSymbol(OnCommandLine<fslens::commands::symbols::read::ReadSymbolArguments>),
    /// Print the smallest declaration enclosing a path and 0-based line.
    ReadEnclosing(OnCommandLine<fslens::commands::symbols::read::ReadEnclosingArguments>),
    /// One LSP navigation at a position through the session's FSAC: definition, references,
    /// hover, typeDefinition, implementation, signatureHelp, incomingCalls, outgoingCalls,
    /// typeHierarchy (computed by fslens), documentSymbol, workspaceSymbol, codeActions
    /// (previewed; one applied through the editor with --apply editor).
    Navigate(OnCommandLine<fslens::navigation::navigate::NavigateArguments>),
    /// Serve MCP on stdin/stdout for coding agents: joins the workspace's running session (the
    /// editor's warm FSAC) or starts one that later clients join.
    Mcp(McpOptions),
    /// Print the path of the session socket that serves --workspace (or the current
    /// directory), for clients that join a running session (the VS Code extension in Ionide
    /// mode). Prints the path whether or not a session is running.
    SessionPath,
}

#[derive(Args)]
struct McpOptions {
    /// List every tool from the start, for MCP hosts that ignore `tools/list_changed` (by
    /// default situational tools wait until `activate_tools` or a first call asks for them).
    #[arg(long)]
    all_tools: bool,
}

/// `fslens check`: the command's arguments as flags, with the what-if's edits read from a file.
#[derive(Args)]
struct CheckOptions {
    #[command(flatten)]
    arguments: fslens::commands::check::CheckArguments,
    /// What-if: a JSON file (`-`: standard input) holding the hypothetical edits (a
    /// WorkspaceEdit, or a list of {path, range, newText} / {path, text}); nothing is written.
    #[arg(long)]
    edits: Option<String>,
    /// Print the JSON answer instead of a readable summary.
    #[arg(long)]
    json: bool,
}

/// The `--edits` file (`-`: standard input): the `edits` value of a what-if check.
fn read_what_if_edits(source: &str) -> anyhow::Result<fslens::commands::check::edits::WhatIfEdits> {
    let text = if source == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read the edits from standard input")?
    } else {
        std::fs::read_to_string(source).map_err(|error| {
            CliFailure::invalid_path(source, format!("cannot read the edits file {source}: {error}"))
        })?
    };
    let edits: Value = serde_json::from_str(&text).map_err(|error| {
        CliFailure::invalid_argument("edits", format!("the edits in {source} are not JSON: {error}"))
    })?;
    serde_path_to_error::deserialize(edits).map_err(|error| {
        anyhow::Error::new(CliFailure::invalid_argument(
            "edits",
            format!("the edits in {source} are not a what-if's edits: at {}: {}", error.path(), error.inner()),
        ))
    })
}

#[derive(Args)]
struct FieldImpactOptions {
    /// The field: `Name`, `Type.Name` or a fully qualified name.
    field: String,
    /// Which projects are swept and which sites are kept (default auto).
    #[arg(long, value_enum)]
    scope: Option<fslens::commands::find::FindScope>,
    /// A project (.fsproj) or solution to sweep.
    #[arg(long)]
    project_path: Option<String>,
    /// At most this many sites per page.
    #[arg(long)]
    max_results: Option<fslens::commands::find::arguments::MaxResults>,
    /// Continue from a previous answer's nextCursor.
    #[arg(long)]
    cursor: Option<String>,
    /// The deadline (also for FSAC to load), in milliseconds.
    #[arg(long, default_value_t = Default::default())]
    timeout_ms: fslens::commands::find::arguments::FindTimeoutMs,
    /// Print the JSON answer instead of a table.
    #[arg(long)]
    json: bool,
}

impl FieldImpactOptions {
    /// The `fslens.fieldImpact` arguments these flags stand for (every field named).
    fn field_impact_arguments(&self) -> fslens::commands::field_impact::FieldImpactArguments {
        fslens::commands::field_impact::FieldImpactArguments {
            field: Some(self.field.clone()),
            query: None,
            kind: fslens::commands::field_impact::FieldImpactKind::Field,
            include_site_types: true,
            scope: self.scope.unwrap_or_default(),
            project_path: self.project_path.clone(),
            path: None,
            line: None,
            word: None,
            occurrence: None,
            character: None,
            exact: true,
            context_lines: Default::default(),
            max_results: self.max_results.unwrap_or_default(),
            response_char_budget: None,
            cursor: self.cursor.clone(),
            timeout_ms: self.timeout_ms,
            include_declaration: true,
            include_info: false,
        }
    }
}

fn main() -> ExitCode {
    // Started as `dotnet` (Ionide's FSharp.dotnetRoot naming a shim directory), fslens is a
    // stand-in for dotnet before anything else runs (src/shim.rs).
    let mut arguments = std::env::args_os();
    let argv0 = arguments.next().unwrap_or_default();
    let cli = match fslens::shim::role(&argv0, arguments.collect()) {
        Ok(fslens::shim::ShimRole::NotAShim) => match Cli::try_parse() {
            Ok(cli) => cli,
            Err(error) => return refused_command_line(&error),
        },
        Ok(fslens::shim::ShimRole::Proxy { fsac_command }) => {
            Cli::parse_from([OsString::from("fslens"), OsString::from(format!("--fsac={fsac_command}"))])
        }
        Ok(fslens::shim::ShimRole::RealDotnet { program, arguments }) => {
            let error = fslens::shim::exec_real_dotnet(&program, &arguments);
            let _ =
                write_stderr(&format!("fslens (as dotnet): cannot run the real dotnet {}: {error}", program.display()));
            return ExitCode::from(if error.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 });
        }
        Err(error) => {
            let _ = write_stderr(&format!("fslens (as dotnet): {error}"));
            return ExitCode::from(error.exit_code());
        }
    };
    if let Err(error) = init_logging(&cli) {
        // An unreadable --log-level or a log file that cannot be opened: the command line's fault.
        let _ = write_stderr(&format!("fslens: {error:#}"));
        return ExitCode::from(exit_codes::BAD_INPUT);
    }
    // One thread routes every message: hand-offs between reader, main loop and writer tasks
    // stay on that thread instead of waking another core per frame (benches/proxy_throughput).
    // CPU-heavy work (parsing, indexing) runs on blocking threads of its own.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = write_stderr(&format!("fslens: cannot start the async runtime: {error}"));
            return ExitCode::from(exit_codes::FAILED);
        }
    };
    let json = cli.command.as_ref().is_some_and(Command::prints_json);
    let result = runtime.block_on(run(cli));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(code) => code,
        Err(error) => report_failure(&CliFailure::of(&error), json),
    }
}

/// A failed command: the message (and its kind) on stderr, and with `--json` the failure as one
/// JSON object on stdout; the exit code separates a refused request from a failure of fslens
/// (docs/commands.md, "Exit codes").
fn report_failure(failure: &CliFailure, json: bool) -> ExitCode {
    if json {
        let _ = serde_json::to_string_pretty(&failure.to_json()).map(|text| write_stdout(&format!("{text}\n")));
    }
    let _ = write_stderr(&format!("fslens: {} ({})", failure.message.replace('\n', " "), failure.error_kind));
    ExitCode::from(failure.exit_code())
}

/// A command line clap refused. `--help` and `--version` are answers (exit 0); anything else is
/// bad input, printed as clap prints it, and with `--json` on the line also as one JSON object.
fn refused_command_line(error: &clap::Error) -> ExitCode {
    if !error.use_stderr() {
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let _ = error.print();
    let json = std::env::args_os().skip(1).take_while(|argument| argument != "--").any(|argument| argument == "--json");
    if json {
        let failure = CliFailure::usage(error);
        let _ = serde_json::to_string_pretty(&failure.to_json()).map(|text| write_stdout(&format!("{text}\n")));
    }
    ExitCode::from(exit_codes::BAD_INPUT)
}

impl Command {
    /// Whether the subcommand was asked for JSON (`--json`), so a failure is printed as JSON too.
    fn prints_json(&self) -> bool {
        match self {
            Command::Status(options) => options.json,
            Command::Outline(arguments) => arguments.json,
            Command::Check(options) => options.json,
            Command::FieldImpact(options) => options.json,
            Command::MakeVisible(options) => options.json,
            Command::Find(arguments) => arguments.json,
            Command::Rename(arguments) => arguments.json,
            Command::ExplainDiagnostic(options) => options.json,
            Command::DiagnosticFixes(options) => options.json,
            Command::SuggestOpen(options) => options.json,
            Command::Index(arguments) => arguments.json,
            Command::ReferencedSymbols(arguments) => arguments.json,
            Command::NugetTypes(arguments) => arguments.json,
            Command::NugetMembers(arguments) => arguments.json,
            Command::SymbolSearch(arguments) => arguments.json,
            Command::ReadSymbol(arguments) => arguments.json,
            Command::ReadEnclosing(arguments) => arguments.json,
            Command::Navigate(arguments) => arguments.json,
            Command::Mcp(_) | Command::SessionPath => false,
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut config = proxy_config(&cli.session)?;
    if let Some(path) = &cli.trace_messages {
        config.tracer = Tracer::to_file(path).await?;
    }
    let Some(command) = cli.command else {
        config.workspace_root = cli.session.workspace.clone();
        config.share_session = !cli.session.no_share;
        let end = run_proxy(fslens::lsp::stdio::stdin(), fslens::lsp::stdio::stdout(), config).await?;
        return Ok(ExitCode::from(end.exit_code as u8));
    };
    let session = &cli.session;
    match command {
        Command::Status(options) => status_cli(session, config, options).await,
        Command::Outline(arguments) => {
            let argument = to_argument_object(&arguments.arguments);
            let json = arguments.json;
            let answer =
                ask(session, config, fslens::commands::registry::Command::Outline.id(), argument, None).await?;
            print_answer(&answer, json, fslens::commands::outline::render_text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(options) => {
            let mut arguments = options.arguments;
            arguments.edits = options.edits.as_deref().map(read_what_if_edits).transpose()?;
            let wait = Some(arguments.timeout_ms.get());
            let argument = to_argument_object(&arguments);
            let answer = ask(session, config, fslens::commands::registry::Command::Check.id(), argument, wait).await?;
            print_answer(&answer, options.json, render_check)?;
            // A script can branch on the exit code: 0 clean, 1 errors, 2 unknown (a refused
            // request or a failure of fslens has codes of its own: `exit_codes`).
            Ok(match answer["verdict"].as_str() {
                Some("clean") => ExitCode::from(exit_codes::SUCCESS),
                Some("errors") => ExitCode::from(exit_codes::CHECK_ERRORS),
                _ => ExitCode::from(exit_codes::NOT_DEFINITE),
            })
        }
        Command::FieldImpact(options) => {
            let argument = to_argument_object(&options.field_impact_arguments());
            let wait = Some(options.timeout_ms.get());
            let answer =
                ask(session, config, fslens::commands::registry::Command::FieldImpact.id(), argument, wait).await?;
            print_answer(&answer, options.json, fslens::commands::field_impact::render_text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::MakeVisible(options) => {
            let argument = to_argument_object(&options.arguments);
            let answer =
                ask(session, config, fslens::commands::registry::Command::MakeInternalVisible.id(), argument, None)
                    .await?;
            print_answer(&answer, options.json, render_make_visible)?;
            Ok(exit_code_of_status(&answer))
        }
        Command::SessionPath => session_path_cli(session),
        Command::Mcp(mcp_options) => {
            let workspace = workspace_or_current(session)?;
            let options = session.clone();
            let factory: fslens::mcp::ConfigFactory = std::sync::Arc::new(move || proxy_config(&options));
            fslens::mcp::run_mcp_server(&workspace, factory, mcp_options.all_tools).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Navigate(options) => navigate_cli(session, config, options).await,
        Command::Find(arguments) => {
            let argument = to_argument_object(&arguments.arguments);
            let wait = Some(arguments.arguments.timeout_ms.get());
            let answer = ask(session, config, fslens::commands::registry::Command::Find.id(), argument, wait).await?;
            print_answer(&answer, arguments.json, fslens::commands::find::render_text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Rename(arguments) => {
            let rename =
                arguments.arguments().map_err(|message| CliFailure::invalid_argument("expectedHashes", message))?;
            let wait = Some(rename.timeout_ms.get());
            let argument = to_argument_object(&rename);
            let answer = ask(session, config, fslens::commands::registry::Command::Rename.id(), argument, wait).await?;
            print_answer(&answer, arguments.json, fslens::commands::rename::render_text)?;
            Ok(if answer["complete"] == json!(true) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(exit_codes::NOT_DEFINITE)
            })
        }
        Command::ExplainDiagnostic(options) => {
            let argument = to_argument_object(&options.arguments);
            let wait = Some(options.arguments.timeout_ms.get());
            let answer =
                ask(session, config, fslens::commands::registry::Command::ExplainDiagnostic.id(), argument, wait)
                    .await?;
            print_answer(&answer, options.json, fslens::commands::diagnostic::render::explain)?;
            Ok(exit_code_of_status(&answer))
        }
        Command::DiagnosticFixes(options) => {
            let argument = to_argument_object(&options.arguments);
            let wait = Some(options.arguments.timeout_ms.get());
            let answer =
                ask(session, config, fslens::commands::registry::Command::DiagnosticFixes.id(), argument, wait).await?;
            print_answer(&answer, options.json, fslens::commands::diagnostic::render::fixes)?;
            Ok(exit_code_of_status(&answer))
        }
        Command::SuggestOpen(options) => {
            let argument = to_argument_object(&options.arguments);
            // With only a name the syntax arm answers: no waiting for FSAC.
            let wait = options.arguments.line.is_some().then_some(options.arguments.timeout_ms.get());
            let answer =
                ask(session, config, fslens::commands::registry::Command::SuggestOpen.id(), argument, wait).await?;
            print_answer(&answer, options.json, fslens::commands::diagnostic::render::suggest_open)?;
            Ok(exit_code_of_status(&answer))
        }
        Command::ReferencedSymbols(arguments) => {
            use fslens::commands::referenced::Tool;
            run_referenced(session, Tool::ReferencedSymbols, to_argument_object(&arguments.arguments), arguments.json)
                .await
        }
        Command::NugetTypes(arguments) => {
            use fslens::commands::referenced::Tool;
            run_referenced(session, Tool::NugetTypes, to_argument_object(&arguments.arguments), arguments.json).await
        }
        Command::NugetMembers(arguments) => {
            use fslens::commands::referenced::Tool;
            run_referenced(session, Tool::NugetMembers, to_argument_object(&arguments.arguments), arguments.json).await
        }
        // Syntax-layer discovery tools (commands/symbols).
        Command::SymbolSearch(arguments) => {
            let answer = ask(
                session,
                config,
                fslens::commands::registry::Command::SymbolSearch.id(),
                to_argument_object(&arguments.arguments),
                None,
            )
            .await?;
            print_answer(&answer, arguments.json, fslens::commands::symbols::cli::render_search)?;
            Ok(if answer["available"] == json!(false) {
                ExitCode::from(exit_codes::NOT_DEFINITE)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::ReadSymbol(arguments) => {
            let answer = ask(
                session,
                config,
                fslens::commands::registry::Command::ReadSymbol.id(),
                fslens::commands::symbols::cli::read_symbol_arguments(&arguments.arguments),
                None,
            )
            .await?;
            print_answer(&answer, arguments.json, fslens::commands::symbols::cli::render_read)?;
            Ok(ExitCode::from(fslens::commands::symbols::cli::read_exit_code(&answer)))
        }
        Command::ReadEnclosing(arguments) => {
            let answer = ask(
                session,
                config,
                fslens::commands::registry::Command::ReadEnclosing.id(),
                to_argument_object(&arguments.arguments),
                None,
            )
            .await?;
            print_answer(&answer, arguments.json, fslens::commands::symbols::cli::render_read)?;
            Ok(ExitCode::from(fslens::commands::symbols::cli::read_exit_code(&answer)))
        }
        Command::Index(arguments) => index_cli(session, arguments).await,
    }
}

/// Runs `command` with `argument` in the workspace's session: with `wait` (milliseconds) it
/// first waits that long for FSAC to load the workspace; without, the syntax layer answers.
async fn ask(
    session: &SessionOptions,
    config: ProxyConfig,
    command: &str,
    argument: Value,
    wait: Option<u64>,
) -> anyhow::Result<Value> {
    match wait {
        Some(timeout_ms) => headless(session, config, command, argument, timeout_ms).await,
        None => headless_without_wait(session, config, command, argument).await,
    }
}

/// 0 when the answer's `status` is `ok`, else 2.
fn exit_code_of_status(answer: &Value) -> ExitCode {
    if answer["status"] == "ok" { ExitCode::SUCCESS } else { ExitCode::from(exit_codes::NOT_DEFINITE) }
}

/// `fslens status`: waits for readiness up to the timeout; exit 3 when FSAC crashed.
async fn status_cli(
    session: &SessionOptions,
    config: ProxyConfig,
    options: OnCommandLine<fslens::commands::status::StatusArguments>,
) -> anyhow::Result<ExitCode> {
    let wait = options.arguments.timeout_ms.get();
    let argument = to_argument_object(&options.arguments);
    let answer = headless(session, config, fslens::commands::registry::Command::Status.id(), argument, wait).await?;
    print_answer(&answer, options.json, render_status)?;
    if answer["state"] == "crashed" {
        let reason = answer["reason"].as_str().unwrap_or("FSAC crashed");
        let _ = write_stderr(&format!("fslens: FSAC is not running: {}", reason.replace('\n', " ")));
        return Ok(ExitCode::from(exit_codes::FSAC_NOT_RUNNING));
    }
    Ok(ExitCode::SUCCESS)
}

/// `fslens session-path`: the socket the workspace's session serves (or would serve).
fn session_path_cli(session: &SessionOptions) -> anyhow::Result<ExitCode> {
    let root = canonical_workspace(session)?;
    let directory = fslens::session::runtime_directory(std::env::var_os("XDG_RUNTIME_DIR").as_deref());
    let socket = fslens::session::socket_path(&directory, &root);
    write_stdout(&format!("{}\n", socket.display())).context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// `fslens navigate OPERATION`: the MCP `navigate` tool's operations through the session.
async fn navigate_cli(
    session: &SessionOptions,
    mut config: ProxyConfig,
    options: OnCommandLine<fslens::navigation::navigate::NavigateArguments>,
) -> anyhow::Result<ExitCode> {
    let argument = with_shell_paths(session, to_argument_object(&options.arguments))?;
    let arguments = serde_json::from_value(argument)
        .map_err(|error| CliFailure::invalid_argument("arguments", format!("the navigate arguments: {error}")))?;
    let root = canonical_workspace(session)?;
    config.workspace_root = Some(root.clone());
    let answer = fslens::navigation::run_from_cli(&root, config, arguments).await?;
    print_answer(&answer, options.json, fslens::navigation::render_text)?;
    Ok(ExitCode::SUCCESS)
}

/// `fslens index`: builds the syntax index of the workspace off the runtime's thread.
async fn index_cli(
    session: &SessionOptions,
    arguments: fslens::commands::index::IndexCliArgs,
) -> anyhow::Result<ExitCode> {
    let workspace = workspace_or_current(session)?;
    let (answer, json) = tokio::task::spawn_blocking(move || {
        fslens::commands::index::run_cli(&arguments, &workspace).map(|answer| (answer, arguments.json))
    })
    .await
    .context("the indexing thread failed")??;
    print_answer(&answer, json, fslens::commands::index::render_text)?;
    Ok(ExitCode::SUCCESS)
}

/// The referenced-assembly subcommands read files only: no session, no FSAC. Exit code 2
/// when the package or type did not resolve (the answer's hint says why).
async fn run_referenced(
    session: &SessionOptions,
    tool: fslens::commands::referenced::Tool,
    argument: Value,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let workspace = workspace_or_current(session)?;
    let argument = with_shell_paths(session, argument)?;
    let answer =
        tokio::task::spawn_blocking(move || fslens::commands::referenced::run_cli(tool, &argument, &workspace))
            .await
            .context("the metadata reading thread failed")??;
    print_answer(&answer, json, fslens::commands::referenced::render_text)?;
    let missed = answer.get("matchedAssemblies").and_then(Value::as_array).is_some_and(Vec::is_empty)
        || answer.get("matchedTypes").and_then(Value::as_array).is_some_and(Vec::is_empty);
    Ok(if missed { ExitCode::from(exit_codes::NOT_DEFINITE) } else { ExitCode::SUCCESS })
}

fn proxy_config(session: &SessionOptions) -> anyhow::Result<ProxyConfig> {
    let mut config = proxy_config_for_fsac(session)?;
    config.restart_policy = fslens::proxy::supervisor::RestartPolicy {
        initial_backoff: Duration::from_millis(session.restart_backoff_ms),
        max_backoff: Duration::from_millis(session.max_restart_backoff_ms.max(session.restart_backoff_ms)),
        max_crashes_in_window: session.crash_loop_limit,
        ..Default::default()
    };
    config.unresponsive_after = Duration::from_millis(session.unresponsive_after_ms);
    config.memory_guard = memory_guard_config(session)?;
    // Test hook (docs/testing.md): only tests set it, for the fslens processes they start.
    config.client_read_gate = std::env::var_os(fslens::proxy::main_loop::CLIENT_READ_GATE_VARIABLE).map(PathBuf::from);
    Ok(config)
}

/// The memory guard's settings: the limit from the flag, else the environment variable; a
/// limit that cannot be read stops fslens at start-up with an error naming where it came from.
fn memory_guard_config(session: &SessionOptions) -> anyhow::Result<fslens::proxy::memory::MemoryGuardConfig> {
    use fslens::proxy::memory::{
        MEMORY_LIMIT_ENVIRONMENT_VARIABLE, MEMORY_LIMIT_FLAG, MemoryGuardConfig, physical_memory_bytes,
        resolve_memory_limit,
    };
    let environment = std::env::var(MEMORY_LIMIT_ENVIRONMENT_VARIABLE).ok().filter(|value| !value.trim().is_empty());
    let written = match (&session.fsac_memory_limit, environment) {
        (Some(flag), _) => Some((MEMORY_LIMIT_FLAG, flag.clone())),
        (None, Some(environment)) => Some((MEMORY_LIMIT_ENVIRONMENT_VARIABLE, environment)),
        (None, None) => None,
    };
    let limit = match written {
        Some((source, text)) => Some(
            resolve_memory_limit(&text, physical_memory_bytes())
                .map_err(|error| CliFailure::invalid_argument("fsac-memory-limit", format!("{source}: {error}")))?,
        ),
        None => None,
    };
    Ok(MemoryGuardConfig {
        limit,
        sample_interval: Duration::from_millis(session.fsac_memory_sample_ms.max(10)),
        restart_grace: Duration::from_millis(session.fsac_memory_restart_grace_ms),
    })
}

fn proxy_config_for_fsac(session: &SessionOptions) -> anyhow::Result<ProxyConfig> {
    let resolved = resolve_fsac_command(
        session.fsac.as_deref(),
        std::env::var_os(FSAC_ENVIRONMENT_VARIABLE),
        std::env::var_os("PATH"),
    )
    .map_err(|message| CliFailure::invalid_argument("fsac", message))?;
    let start_directory = std::env::current_dir().context("cannot read the current directory")?;
    Ok(match resolved.map(|command| command.relative_paths_from(&start_directory)) {
        Ok(command) => {
            tracing::info!("FSAC command: {} (from {:?})", command.display(), command.source);
            ProxyConfig::new(Some(Box::new(ProcessLauncher { command }) as Box<dyn BackendLauncher>), "")
        }
        Err(reason) => {
            tracing::info!("{reason}");
            ProxyConfig::new(None, reason)
        }
    })
}

/// The workspace root, canonical; one that does not exist is `invalid_path`.
fn canonical_workspace(session: &SessionOptions) -> anyhow::Result<PathBuf> {
    let workspace = workspace_or_current(session)?;
    workspace.canonicalize().map_err(|error| {
        let written = workspace.display().to_string();
        anyhow::Error::new(CliFailure::invalid_path(&written, format!("workspace {written} does not exist: {error}")))
    })
}

fn workspace_or_current(session: &SessionOptions) -> anyhow::Result<PathBuf> {
    match &session.workspace {
        Some(root) => Ok(root.clone()),
        None => std::env::current_dir().context("cannot read the current directory"),
    }
}

/// The command's arguments with the paths typed in the shell resolved as the shell reads them
/// (`commands::paths::resolve_cli_path`: the current directory first, then the workspace).
fn with_shell_paths(session: &SessionOptions, mut argument: Value) -> anyhow::Result<Value> {
    let shell_directory = std::env::current_dir().context("cannot read the current directory")?;
    let workspace = workspace_or_current(session)?;
    fslens::commands::paths::resolve_cli_path_arguments(&mut argument, &shell_directory, &workspace);
    Ok(argument)
}

/// Runs a command that needs FSAC: waits up to `timeout_ms` for the workspace to load.
async fn headless(
    session: &SessionOptions,
    config: ProxyConfig,
    command: &str,
    argument: Value,
    timeout_ms: u64,
) -> anyhow::Result<Value> {
    let argument = with_shell_paths(session, argument)?;
    let request = CommandRequest {
        workspace_root: workspace_or_current(session)?,
        command: command.to_owned(),
        argument,
        readiness_timeout: Some(Duration::from_millis(timeout_ms)),
    };
    run_command(request, config).await
}

/// Runs a command that the syntax layer answers: no waiting for FSAC.
async fn headless_without_wait(
    session: &SessionOptions,
    config: ProxyConfig,
    command: &str,
    argument: Value,
) -> anyhow::Result<Value> {
    let argument = with_shell_paths(session, argument)?;
    let request = CommandRequest {
        workspace_root: workspace_or_current(session)?,
        command: command.to_owned(),
        argument,
        readiness_timeout: None,
    };
    run_command(request, config).await
}

fn print_answer(answer: &Value, json: bool, render: fn(&Value) -> String) -> anyhow::Result<()> {
    let text = if json { serde_json::to_string_pretty(answer)? } else { render(answer) };
    write_stdout(&format!("{text}\n")).context("cannot write to stdout")
}

fn render_status(status: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![
        format!("state:      {}", text(&status["state"])),
        format!("reason:     {}", text(&status["reason"])),
        format!("workspace:  {}", text(&status["workspaceRoot"])),
        format!("fsac:       {}", text(&status["fsac"]["command"])),
        format!("fsac pid:   {}", text(&status["fsac"]["pid"])),
    ];
    let loaded = status["projectsLoaded"].as_array().map_or(0, Vec::len);
    lines.push(format!("projects:   {loaded} loaded"));
    if let Some(reason) = status["noProjects"]["message"].as_str() {
        lines.push(format!("no_projects: {reason}"));
    }
    for project in status["projectsLoading"].as_array().into_iter().flatten() {
        lines.push(format!("  loading {}", text(project)));
    }
    let wait = &status["wait"];
    if wait["satisfied"] == json!(false) {
        let why = if wait["timedOut"] == json!(true) { "the timeout passed" } else { "waiting could not help" };
        lines.push(format!("not ready after {} ms: {why}", text(&wait["waitedMs"])));
    }
    if status["unresponsive"] == json!(true) {
        lines.push(format!("unresponsive: FSAC silent for {} ms with requests pending", text(&status["silentForMs"])));
    }
    for project in status["projectsLoaded"].as_array().into_iter().flatten() {
        lines.push(format!("  {}", text(project)));
    }
    for error in status["projectErrors"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  error {}: {} ({})",
            text(&error["code"]),
            text(&error["message"]),
            text(&error["project"])
        ));
    }
    lines.join("\n")
}

fn render_check(answer: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    let mut lines = vec![format!(
        "{} ({} scope, {}): {} error(s), {} warning(s), {} file(s) covered, complete: {}",
        text(&answer["verdict"]),
        text(&answer["scope"]),
        text(&answer["speed"]),
        answer["errorCount"],
        answer["warningCount"],
        answer["files"].as_array().map_or(0, Vec::len),
        answer["complete"],
    )];
    if let Some(reason) = answer["reason"].as_str() {
        lines.push(format!("reason: {reason}"));
    }
    if let Some(note) = answer["configurationNote"].as_str() {
        lines.push(format!("configuration: {note}"));
    }
    let blocking = &answer["blockingReason"];
    if let Some(kind) = blocking["errorKind"].as_str() {
        lines.push(format!("blocking: {kind}"));
    }
    if let Some(remedy) = blocking["remedy"].as_str() {
        lines.push(format!("remedy: {remedy}"));
    }
    for remedy in blocking["remedies"].as_array().into_iter().flatten() {
        lines.push(format!("remedy: {}", text(remedy)));
    }
    for (field, label) in [("missingFiles", "not analysed"), ("staleFiles", "analysed at an older version")] {
        let files: Vec<String> = answer[field].as_array().into_iter().flatten().map(text).collect();
        if !files.is_empty() {
            lines.push(format!("{} file(s) {label}: {}", files.len(), files.join(", ")));
        }
    }
    let diagnostics = answer["diagnostics"].as_array().map_or(&[][..], Vec::as_slice);
    for diagnostic in diagnostics {
        lines.push(format!(
            "{}:{}:{}: {} FS{:04}: {}",
            text(&diagnostic["file"]),
            diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
            diagnostic["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
            text(&diagnostic["severity"]),
            diagnostic["code"].as_u64().unwrap_or(0),
            text(&diagnostic["message"]).replace('\n', " "),
        ));
    }
    // What the list leaves out: the cap, the severity floor, project scope's downstream.
    let listable = answer["totalDiagnostics"]
        .as_u64()
        .unwrap_or(0)
        .saturating_sub(answer["belowSeverityFloorCount"].as_u64().unwrap_or(0));
    if answer["diagnosticsTruncated"] == json!(true) {
        lines.push(format!(
            "… {} more diagnostic(s) not listed (at most {} are; narrow with PATH, --file-glob or --project-path)",
            listable.saturating_sub(diagnostics.len() as u64),
            fslens::commands::check::MAX_DIAGNOSTICS
        ));
    }
    for note in [&answer["diagnosticsNote"], &answer["coverageNote"]] {
        if let Some(note) = note.as_str() {
            lines.push(format!("note: {note}"));
        }
    }
    for note in answer["notes"].as_array().into_iter().flatten() {
        lines.push(format!("note: {}", text(note)));
    }
    lines.extend(render_what_if(answer));
    lines.join("\n")
}

/// A what-if's baseline and delta as text lines (none for an ordinary check).
fn render_what_if(answer: &Value) -> Vec<String> {
    if answer.get("whatIf").is_none() {
        return Vec::new();
    }
    let baseline = &answer["baseline"];
    let mut lines = vec![format!(
        "what-if (nothing written; FSAC's view restored: {}): before the edits {} with {} error(s)",
        answer["whatIf"]["restored"],
        baseline["verdict"].as_str().unwrap_or("unknown"),
        baseline["errorCount"],
    )];
    for (kind, label) in [("introduced", "introduced"), ("resolved", "resolved")] {
        for diagnostic in answer["delta"][kind].as_array().into_iter().flatten() {
            lines.push(format!(
                "{label}: {}:{}: FS{:04}: {}",
                diagnostic["file"].as_str().unwrap_or_default(),
                diagnostic["range"]["start"]["line"].as_u64().map_or("?".to_owned(), |line| (line + 1).to_string()),
                diagnostic["code"].as_u64().unwrap_or(0),
                diagnostic["message"].as_str().unwrap_or_default().replace('\n', " "),
            ));
        }
    }
    lines
}

/// `make-visible` as text: the declaration's line before and after, then every other edit of
/// the answer's `WorkspaceEdit` (the `.fsproj`'s `InternalsVisibleTo` with `--expose-to`) as the
/// lines it inserts or replaces, and the notes. Nothing is written to disk.
fn render_make_visible(answer: &Value) -> String {
    let text = |value: &Value| value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string());
    if answer["status"] != json!("ok") {
        return format!("no action: {}", text(&answer["reason"]));
    }
    let declaration_file = answer["declaration"]["file"].as_str().unwrap_or_default();
    let mut lines = vec![
        format!(
            "{} ({}, {declaration_file})",
            text(&answer["declaration"]["fullName"]),
            text(&answer["declaration"]["kind"])
        ),
        format!("- {}", text(&answer["originalLineText"])),
        format!("+ {}", text(&answer["appliedPreview"])),
    ];
    let root = answer["workspaceRoot"].as_str().map(std::path::PathBuf::from);
    for (uri, edits) in answer["edits"]["changes"].as_object().into_iter().flatten() {
        let path = fslens::uri::uri_to_path(uri);
        let shown = path
            .as_ref()
            .map(|path| {
                root.as_ref().and_then(|root| path.strip_prefix(root).ok()).unwrap_or(path).display().to_string()
            })
            .unwrap_or_else(|| uri.clone());
        if shown.ends_with(declaration_file) && !declaration_file.is_empty() {
            continue;
        }
        for edit in edits.as_array().into_iter().flatten() {
            let start = &edit["range"]["start"];
            let end = &edit["range"]["end"];
            let inserts = start == end;
            lines.push(format!(
                "{shown}:{}: {}",
                start["line"].as_u64().unwrap_or(0) + 1,
                if inserts {
                    "insert".to_owned()
                } else {
                    format!("replace up to line {}", end["line"].as_u64().unwrap_or(0) + 1)
                }
            ));
            for added in edit["newText"].as_str().unwrap_or_default().lines() {
                lines.push(format!("+ {added}"));
            }
        }
    }
    for note in answer["notes"].as_array().into_iter().flatten() {
        lines.push(format!("note: {}", text(note)));
    }
    if let Some(applied) = answer["applied"].as_object() {
        lines.push(format!("applied in the editor: {}", applied.get("applied").map(text).unwrap_or_default()));
    } else {
        lines.push("nothing was written to disk".to_owned());
    }
    lines.join("\n")
}

fn init_logging(cli: &Cli) -> anyhow::Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match &cli.log_level {
        Some(level) => EnvFilter::try_new(level).context("invalid --log-level")?,
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false);
    match &cli.log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the log file {}", path.display()))?;
            builder.with_writer(std::sync::Mutex::new(file)).init();
        }
        // Logs never go to stdout: it carries the protocol (invariant 5).
        None => builder.with_writer(std::io::stderr).init(),
    }
    Ok(())
}

fn write_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

fn write_stderr(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr().lock(), "{text}")
}
