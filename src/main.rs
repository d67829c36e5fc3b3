//! The `fslens` binary: command-line parsing and wiring only.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::Value;

use fslens::cli::command_line::{CliRequest, OnCommandLine, Runs};
use fslens::cli::contract::exit_codes;
use fslens::commands::params::to_argument_object;
use fslens::commands::registry::Command as Table;
use fslens::failure::Failure;
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

/// The subcommands that are no command of the table (those are added from
/// `commands::registry`, one per row with a `cli`).
#[derive(Subcommand)]
enum Command {
    /// Index the workspace's F# files with the syntax layer and print statistics.
    Index(fslens::cli::index::IndexCliArgs),
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

fn main() -> ExitCode {
    // Started as `dotnet` (Ionide's FSharp.dotnetRoot naming a shim directory), fslens is a
    // stand-in for dotnet before anything else runs (src/shim.rs).
    let mut arguments = std::env::args_os();
    let argv0 = arguments.next().unwrap_or_default();
    let (cli, table) = match fslens::shim::role(&argv0, arguments.collect()) {
        Ok(fslens::shim::ShimRole::NotAShim) => match parse_command_line() {
            Ok(parsed) => parsed,
            Err(code) => return code,
        },
        Ok(fslens::shim::ShimRole::Proxy { fsac_command }) => {
            (Cli::parse_from([OsString::from("fslens"), OsString::from(format!("--fsac={fsac_command}"))]), None)
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
    let json = match &table {
        Some((_, request)) => request.json,
        None => cli.command.as_ref().is_some_and(Command::prints_json),
    };
    let result = runtime.block_on(run(cli, table));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(code) => code,
        Err(error) => report_failure(&Failure::of(&error), json),
    }
}

/// The command line: the global options, and either a subcommand of the command table (built
/// from its rows) with what its flags ask, or one of [`Command`], or none (the proxy).
fn parse_command_line() -> Result<(Cli, Option<(Table, CliRequest)>), ExitCode> {
    let table = fslens::cli::subcommands();
    // The table's commands are listed first, in its order; the others after them.
    let mut command_line = Cli::command();
    for (order, name) in ["index", "navigate", "mcp", "session-path"].into_iter().enumerate() {
        command_line = command_line.mut_subcommand(name, |subcommand| subcommand.display_order(table.len() + order));
    }
    let command_line = command_line.subcommands(table);
    let matches = command_line.try_get_matches().map_err(|error| refused_command_line(&error))?;
    let cli = Cli::from_arg_matches(&matches).map_err(|error| refused_command_line(&error))?;
    let table = match matches.subcommand() {
        Some((name, flags)) => fslens::cli::request(name, flags),
        None => None,
    };
    match table.transpose() {
        Ok(table) => Ok((cli, table)),
        Err(failure) => Err(report_failure(&failure, json_asked())),
    }
}

/// A failed command: the message (and its kind) on stderr, and with `--json` the failure as one
/// JSON object on stdout; the exit code separates a refused request from a failure of fslens
/// (docs/commands.md, "Exit codes").
fn report_failure(failure: &Failure, json: bool) -> ExitCode {
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
    if json_asked() {
        let failure = Failure::usage(error);
        let _ = serde_json::to_string_pretty(&failure.to_json()).map(|text| write_stdout(&format!("{text}\n")));
    }
    ExitCode::from(exit_codes::BAD_INPUT)
}

/// Whether `--json` is on the command line (before any `--`), for a failure found before the
/// flags are read.
fn json_asked() -> bool {
    std::env::args_os().skip(1).take_while(|argument| argument != "--").any(|argument| argument == "--json")
}

impl Command {
    /// Whether the subcommand was asked for JSON (`--json`), so a failure is printed as JSON too.
    fn prints_json(&self) -> bool {
        match self {
            Command::Index(arguments) => arguments.json,
            Command::Navigate(arguments) => arguments.json,
            Command::Mcp(_) | Command::SessionPath => false,
        }
    }
}

async fn run(cli: Cli, table: Option<(Table, CliRequest)>) -> anyhow::Result<ExitCode> {
    let mut config = proxy_config(&cli.session)?;
    if let Some(path) = &cli.trace_messages {
        config.tracer = Tracer::to_file(path).await?;
    }
    let session = &cli.session;
    if let Some((command, request)) = table {
        return match request.runs {
            Runs::InSession => in_session(session, config, command, request).await,
            Runs::InProcess(run) => in_process(session, run, command, request).await,
        };
    }
    let Some(command) = cli.command else {
        config.workspace_root = cli.session.workspace.clone();
        config.share_session = !cli.session.no_share;
        let end = run_proxy(fslens::lsp::stdio::stdin(), fslens::lsp::stdio::stdout(), config).await?;
        return Ok(ExitCode::from(end.exit_code as u8));
    };
    match command {
        Command::SessionPath => session_path_cli(session),
        Command::Mcp(mcp_options) => {
            let workspace = workspace_or_current(session)?;
            let options = session.clone();
            let factory: fslens::mcp::ConfigFactory = std::sync::Arc::new(move || proxy_config(&options));
            fslens::mcp::run_mcp_server(&workspace, factory, mcp_options.all_tools).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Navigate(options) => navigate_cli(session, config, options).await,
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

/// Runs a table command in the workspace's session (see [`ask`] for the wait) and prints its
/// answer: the JSON with `--json`, else the command's text; the exit code is the command's, and
/// one that says FSAC is not running says why on stderr.
async fn in_session(
    session: &SessionOptions,
    config: ProxyConfig,
    command: Table,
    request: CliRequest,
) -> anyhow::Result<ExitCode> {
    let answer = ask(session, config, command.id(), request.argument, request.wait_ms).await?;
    let shown = fslens::cli::shown(command, &answer, request.json);
    write_stdout(&format!("{}\n", shown.text)).context("cannot write to stdout")?;
    let code = shown.exit_code;
    if code == exit_codes::FSAC_NOT_RUNNING {
        let reason = answer.get("reason").and_then(Value::as_str).unwrap_or("FSAC crashed");
        let _ = write_stderr(&format!("fslens: FSAC is not running: {}", reason.replace('\n', " ")));
    }
    Ok(ExitCode::from(code))
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
        .map_err(|error| Failure::invalid_argument("arguments", format!("the navigate arguments: {error}")))?;
    let root = canonical_workspace(session)?;
    config.workspace_root = Some(root.clone());
    let answer = fslens::navigation::run_from_cli(&root, config, arguments).await?;
    print_answer(&answer, options.json, fslens::navigation::render_text)?;
    Ok(ExitCode::SUCCESS)
}

/// `fslens index`: builds the syntax index of the workspace off the runtime's thread.
async fn index_cli(session: &SessionOptions, arguments: fslens::cli::index::IndexCliArgs) -> anyhow::Result<ExitCode> {
    let workspace = workspace_or_current(session)?;
    let json = arguments.json;
    let stats = tokio::task::spawn_blocking(move || fslens::cli::index::run(&arguments, &workspace))
        .await
        .context("the indexing thread failed")??;
    let text = if json {
        serde_json::to_string_pretty(&serde_json::to_value(&stats)?)?
    } else {
        fslens::cli::index::render_text(&stats)
    };
    write_stdout(&format!("{text}\n")).context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// A table command run in the CLI's own process (no session): its function answers from the
/// workspace, the shell's directory and `--fsac`.
async fn in_process(
    session: &SessionOptions,
    run: fslens::cli::command_line::RunInProcess,
    command: Table,
    request: CliRequest,
) -> anyhow::Result<ExitCode> {
    let local = fslens::cli::command_line::Local {
        workspace: workspace_or_current(session)?,
        shell_directory: std::env::current_dir().context("cannot read the current directory")?,
        fsac: session.fsac.clone(),
    };
    let argument = with_shell_paths(session, request.argument)?;
    let answer = run(command, argument, local).await?;
    let shown = fslens::cli::shown(command, &answer, request.json);
    write_stdout(&format!("{}\n", shown.text)).context("cannot write to stdout")?;
    Ok(ExitCode::from(shown.exit_code))
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
                .map_err(|error| Failure::invalid_argument("fsac-memory-limit", format!("{source}: {error}")))?,
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
    .map_err(|message| Failure::invalid_argument("fsac", message))?;
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
    Ok(fslens::cli::command_line::canonical_workspace(&workspace_or_current(session)?)?)
}

fn workspace_or_current(session: &SessionOptions) -> anyhow::Result<PathBuf> {
    match &session.workspace {
        Some(root) => Ok(root.clone()),
        None => std::env::current_dir().context("cannot read the current directory"),
    }
}

/// The command's arguments with the paths typed in the shell resolved as the shell reads them
/// (`cli::paths::resolve_cli_path`: the current directory first, then the workspace).
fn with_shell_paths(session: &SessionOptions, mut argument: Value) -> anyhow::Result<Value> {
    let shell_directory = std::env::current_dir().context("cannot read the current directory")?;
    let workspace = workspace_or_current(session)?;
    fslens::cli::paths::resolve_cli_path_arguments(&mut argument, &shell_directory, &workspace);
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

fn print_answer(answer: &Value, json: bool, render: impl Fn(&Value) -> String) -> anyhow::Result<()> {
    let text = if json { serde_json::to_string_pretty(answer)? } else { render(answer) };
    write_stdout(&format!("{text}\n")).context("cannot write to stdout")
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
