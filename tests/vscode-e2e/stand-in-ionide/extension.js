// The stand-in Ionide (see README.md): FsAutoComplete started as ionide-vscode-fsharp starts
// it, so that fslens's Ionide mode is tested against Ionide's own launch. Each step names the
// Ionide source it follows. Plain JavaScript: nothing to build.

const childProcess = require("child_process");
const fs = require("fs");
const path = require("path");
const vscode = require("vscode");
const { LanguageClient, RevealOutputChannelOn, CloseAction, ErrorAction } = require("vscode-languageclient/node");

let client;
let output;
let storagePath;

/** Configuration.tryGet (src/Core/Utils.fs): an empty string is no value. */
function tryGet(key) {
  const value = vscode.workspace.getConfiguration().get(key);
  return value === "" || value === undefined || value === null ? undefined : value;
}

function get(key, fallback) {
  return vscode.workspace.getConfiguration().get(key, fallback);
}

/** Environment.tryGetTool: `which dotnet`. */
function whichDotnet() {
  return new Promise((resolve) =>
    childProcess.execFile("which", ["dotnet"], (error, stdout) => resolve(stdout.trim() !== "" ? stdout.trim() : undefined)),
  );
}

/** LanguageService.tryFindDotnet: FSharp.dotnetRoot/dotnet when set (and existing), else PATH's. */
async function tryFindDotnet() {
  const dotnetRoot = tryGet("FSharp.dotnetRoot");
  if (dotnetRoot !== undefined) {
    const dotnetFullPath = path.join(dotnetRoot, process.platform === "win32" ? "dotnet.exe" : "dotnet");
    if (fs.existsSync(dotnetFullPath)) {
      return dotnetFullPath;
    }
    throw new Error(`Could not find \`dotnet\` in the \`dotnetRoot\` directory: ${dotnetFullPath}`);
  }
  const found = await whichDotnet();
  if (!found) {
    throw new Error("Could not find `dotnet` in the path.");
  }
  return found;
}

/** LanguageService.sdkVersion: `<dotnet> --version` (Process.exec). */
async function sdkVersion() {
  const dotnet = await tryFindDotnet();
  const stdout = await new Promise((resolve, reject) =>
    childProcess.execFile(dotnet, ["--version"], (error, out) => (error ? reject(error) : resolve(out))),
  );
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-(.+))?/.exec(stdout.trim());
  if (!match) {
    throw new Error(`unable to parse version string '${stdout.trim()}'`);
  }
  return { raw: stdout.trim(), major: Number(match[1]), minor: Number(match[2]), prerelease: match[4] };
}

/** getOptions/spawnNetCore (src/Core/LanguageService.fs): the FSAC executable. */
async function fsacExecutable(context) {
  const sdk = await sdkVersion();
  const sdkTfm = `net${sdk.major}.0`;
  // fsacPathForTfm with no FSharp.fsac.netCoreDllPath: <extension>/bin/<tfm>/fsautocomplete.dll,
  // the TFM this package has (net8.0) standing for the probe.
  const userPath = get("FSharp.fsac.netCoreDllPath", "");
  const fsacTfm = "net8.0";
  const fsacPath = userPath !== "" ? userPath : path.join(context.extensionPath, "bin", fsacTfm, "fsautocomplete.dll");
  const userDotnetArgs = get("FSharp.fsac.dotnetArgs", []);
  const hasUserRollForward = userDotnetArgs.includes("--roll-forward");
  const hasUserFxVersion = userDotnetArgs.includes("--fx-version");
  const environment = [];
  if (!(hasUserFxVersion || hasUserRollForward) && sdkTfm !== fsacTfm) {
    environment.push(["DOTNET_ROLL_FORWARD", "LatestMajor"]);
  }
  if (sdk.prerelease) {
    environment.push(["DOTNET_ROLL_FORWARD_TO_PRERELEASE", 1]);
  }
  // The GC variables, as for an SDK 8 (no DATAS; heap count 2, no affinity).
  const useDatas = sdk.major >= 9;
  if (useDatas) {
    environment.push(["DOTNET_GCDynamicAdaptationMode", 1]);
  } else {
    environment.push(["DOTNET_GCNoAffinitize", sdk.major === 8 || !useDatas ? 1 : 0]);
    if (sdk.major === 8) {
      environment.push(["DOTNET_GCHeapCount", (2).toString(16).toUpperCase()]);
    }
  }
  environment.push(["DOTNET_GCConserveMemory", 0]);
  environment.push(["DOTNET_GCServer", get("FSharp.fsac.gc.server", true) ? 1 : 0]);
  const args = [
    ...userDotnetArgs,
    fsacPath,
    ...(storagePath ? ["--state-directory", storagePath] : []),
    ...get("FSharp.fsac.fsacArgs", []),
  ];
  const env = { ...process.env, ...Object.fromEntries(environment.map(([name, value]) => [name, String(value)])) };
  return { command: await tryFindDotnet(), args, options: { env } };
}

/** createClient: a LanguageClient "FSharp" for F# files and untitled buffers. */
function createClient(executable) {
  const fileDeletedWatcher = vscode.workspace.createFileSystemWatcher("**/*.{fs,fsx}", true, true, false);
  let restarts = 0;
  const clientOptions = {
    documentSelector: [
      { language: "fsharp", scheme: "file" },
      { language: "fsharp", scheme: "untitled" },
    ],
    synchronize: { configurationSection: "FSharp", fileEvents: [fileDeletedWatcher] },
    errorHandler: {
      closed: () => ({ action: (restarts += 1) < 5 ? CloseAction.Restart : CloseAction.DoNotRestart }),
      error: (_error, _message, count) => ({ action: count < 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
    },
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: { AutomaticWorkspaceInit: false },
    markdown: { isTrusted: true, supportHtml: true },
    outputChannel: output,
  };
  return new LanguageClient("FSharp", "F#", { run: executable, debug: executable }, clientOptions, false);
}

/** The project paths of a solution's items (Project.foldFsproj). */
function solutionProjects(items) {
  return items.flatMap((item) =>
    item.Kind.Kind === "folder" ? solutionProjects(item.Kind.Data.Items ?? []) : item.Kind.Kind === "msbuildFormat" ? [item.Name] : [],
  );
}

/** Project.initWorkspace: fsharp/workspacePeek, the solution (else the directory), workspaceLoad. */
async function initWorkspace() {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!root || !client) {
    return;
  }
  const answer = await client.sendRequest("fsharp/workspacePeek", {
    Directory: root,
    Deep: get("FSharp.workspaceModePeekDeepLevel", 4),
    ExcludedDirs: get("FSharp.excludeProjectDirectories", []),
  });
  const found = JSON.parse(answer.content).Data.Found;
  // Ionide sorts solutions by project count and asks when there are several; the stand-in
  // takes the largest.
  const solutions = found
    .filter((entry) => entry.Type === "solution")
    .sort((a, b) => solutionProjects(b.Data.Items).length - solutionProjects(a.Data.Items).length);
  const chosen = solutions[0] ?? found.find((entry) => entry.Type === "directory");
  const projects = chosen.Type === "solution" ? solutionProjects(chosen.Data.Items) : chosen.Data.Fsprojs;
  output.appendLine(`workspaceLoad: ${projects.join(", ")}`);
  await client.sendRequest("fsharp/workspaceLoad", { TextDocuments: projects.map((project) => ({ Uri: project })) });
}

async function start(context) {
  const executable = await fsacExecutable(context);
  output.appendLine(`F# language server: ${executable.command} ${executable.args.join(" ")}`);
  client = createClient(executable);
  await client.start();
  await initWorkspace();
}

/** LanguageService.stop. Ionide waits vscode-languageclient's default 2 s for FSAC's answer to
 * `shutdown`; the FSAC double checks files on its one thread and may be busy for longer, so the
 * stand-in waits up to 30 s (a real FSAC answers at once). */
async function stop() {
  if (client) {
    const stopping = client;
    client = undefined;
    await stopping.stop(30_000);
  }
}

/** MSBuild.invokeMSBuild: `<dotnet> msbuild <project> /t:Build`, its exit code reported. */
async function buildProject() {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const project = path.join(root, "src", "Shipping.App", "Shipping.App.fsproj");
  const dotnet = await tryFindDotnet();
  // As with FSharp.msbuildAutoshow: the build's output in view.
  output.show(true);
  output.appendLine(`invoking msbuild from ${dotnet} on ${project} for target Build`);
  const code = await new Promise((resolve) => {
    const child = childProcess.spawn(dotnet, ["msbuild", project, "/t:Build"]);
    child.stdout.on("data", (chunk) => output.append(chunk.toString()));
    child.stderr.on("data", (chunk) => output.append(chunk.toString()));
    child.on("exit", (exitCode, signal) => resolve(exitCode ?? signal));
  });
  const message = code === 0 ? "MSBuild completed successfully" : `MSBuild failed with code ${code}`;
  void vscode.window.showWarningMessage(`Stand-in Ionide: ${message}`);
}

async function activate(context) {
  output = vscode.window.createOutputChannel("F# (stand-in Ionide)");
  storagePath = context.storageUri?.fsPath;
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("fsharp.restartLanguageService", async () => {
      output.appendLine("Restarting F# language service");
      await stop();
      await start(context);
    }),
    vscode.commands.registerCommand("standInIonide.buildProject", buildProject),
  );
  try {
    await start(context);
  } catch (error) {
    output.appendLine(`Error starting F# language server: ${error.stack ?? error}`);
  }
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
