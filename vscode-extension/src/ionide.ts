// Ionide mode, the VS Code side: the consent prompt, pointing the workspace's FSharp.dotnetRoot
// at the shim (a `dotnet` link to the fslens binary in the extension's global storage) and
// back, restarting Ionide's language service, and joining the session Ionide's fslens serves,
// so the extension's commands run there. The pure parts are in ./logic/ionide and
// ./logic/session.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";

import {
  consentMessage,
  DECLINED_KEY,
  DOTNET_ROOT_KEY,
  DOTNET_ROOT_SECTION,
  InspectedSetting,
  IONIDE_EXTENSION_ID,
  isSharing,
  NEVER,
  NOT_NOW,
  planSharing,
  REAL_DOTNET_FILE,
  realDotnetFileContent,
  RESTART_IONIDE_COMMAND,
  restoredValue,
  SAVED_SETTING_KEY,
  SavedSetting,
  SHARE,
  shimDirectory,
  shimProgram,
} from "./logic/ionide";
import { SessionConnection, sessionSocketPath, SessionStatusNotification } from "./logic/session";
import { StatusLike } from "./logic/status";

/** How often the extension tries to join Ionide's session while none serves the workspace. */
const JOIN_RETRY_MS = 1000;

export interface IonideHost {
  output: vscode.OutputChannel;
  /** The fslens binary the shim links to (absolute), or undefined when there is none. */
  fslensBinary(): string | undefined;
  /** Shows a status (merged by the host) from the joined session: `full` replaces what was shown. */
  onStatus(status: StatusLike, full: boolean): void;
  /** A mark taken as a `fslens.status` request goes out, for `onStatusAnswer`. */
  statusRequested(): number;
  /** Shows the answer to a `fslens.status` request sent at `mark`, under any newer notification. */
  onStatusAnswer(mark: number, status: StatusLike): void;
}

export function ionideInstalled(): boolean {
  return vscode.extensions.getExtension(IONIDE_EXTENSION_ID) !== undefined;
}

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function inspectDotnetRoot(): InspectedSetting | undefined {
  return vscode.workspace.getConfiguration(DOTNET_ROOT_SECTION).inspect<string>(DOTNET_ROOT_KEY);
}

/** The shim directory of the open workspace folder. */
export function currentShimDirectory(context: vscode.ExtensionContext): string | undefined {
  const folder = workspaceFolder();
  return folder ? shimDirectory(context.globalStorageUri.fsPath, folder) : undefined;
}

/** Whether Ionide's dotnet is this workspace's shim. */
export function sharingNow(context: vscode.ExtensionContext): boolean {
  const shim = currentShimDirectory(context);
  return shim !== undefined && isSharing(inspectDotnetRoot(), shim);
}

export function declined(context: vscode.ExtensionContext): boolean {
  return context.workspaceState.get<boolean>(DECLINED_KEY) === true;
}

/** Asks whether to share; resolves to the answer (undefined when dismissed). */
export async function askToShare(context: vscode.ExtensionContext): Promise<"share" | "notNow" | "never"> {
  const shim = currentShimDirectory(context);
  if (!shim) {
    return "notNow";
  }
  const answer = await vscode.window.showInformationMessage(
    consentMessage(planSharing(inspectDotnetRoot(), shim)),
    SHARE,
    NOT_NOW,
    NEVER,
  );
  if (answer === SHARE) {
    return "share";
  }
  if (answer === NEVER) {
    await context.workspaceState.update(DECLINED_KEY, true);
    return "never";
  }
  return "notNow";
}

/** Makes the shim: the `dotnet` link to the fslens binary and the real-dotnet file. */
export function writeShim(directory: string, fslens: string, realDotnetFile: string | undefined) {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const program = shimProgram(directory);
  fs.rmSync(program, { force: true });
  fs.symlinkSync(fslens, program);
  const file = path.join(directory, REAL_DOTNET_FILE);
  if (realDotnetFile !== undefined) {
    fs.writeFileSync(file, realDotnetFile, { mode: 0o600 });
  } else {
    fs.rmSync(file, { force: true });
  }
}

/**
 * Points the shim's `dotnet` link at `fslens` again when it names another file (the binary moves
 * when the extension is updated). Returns whether the old link was dangling: Ionide then could
 * not start FSAC through it and needs a restart.
 */
export function renewShimLink(directory: string, fslens: string): boolean {
  const program = shimProgram(directory);
  let target: string | undefined;
  try {
    target = fs.readlinkSync(program);
  } catch {
    target = undefined;
  }
  if (target === fslens) {
    return false;
  }
  const dangling = !fs.existsSync(program);
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  fs.rmSync(program, { force: true });
  fs.symlinkSync(fslens, program);
  return dangling;
}

/** At start-up in Ionide mode: the link renewed, and Ionide restarted when it could not start. */
export async function renewSharing(context: vscode.ExtensionContext, host: IonideHost) {
  const shim = currentShimDirectory(context);
  const fslens = host.fslensBinary();
  if (!shim || !fslens) {
    return;
  }
  if (renewShimLink(shim, fslens)) {
    host.output.appendLine(`the shim's dotnet link was dangling; it names ${fslens} now`);
    await restartIonide(host.output);
  }
}

/**
 * Stops and starts Ionide's language client, so it reads FSharp.dotnetRoot again. Running the
 * command activates Ionide first when it is not active yet (VS Code activates an extension on
 * its contributed commands). False when Ionide cannot be asked.
 */
async function restartIonide(output: vscode.OutputChannel): Promise<boolean> {
  if (!vscode.extensions.getExtension(IONIDE_EXTENSION_ID)) {
    return false;
  }
  try {
    output.appendLine(`running ${RESTART_IONIDE_COMMAND}`);
    await vscode.commands.executeCommand(RESTART_IONIDE_COMMAND);
    return true;
  } catch (error) {
    output.appendLine(`${RESTART_IONIDE_COMMAND} failed: ${(error as Error).message ?? String(error)}`);
    return false;
  }
}

/**
 * Shares Ionide's FSAC: the shim is written, the workspace's FSharp.dotnetRoot set to it (its
 * previous value saved for the undo), and Ionide restarted. Returns false when it cannot.
 */
export async function startSharing(context: vscode.ExtensionContext, host: IonideHost): Promise<boolean> {
  const shim = currentShimDirectory(context);
  const fslens = host.fslensBinary();
  if (!shim || !fslens) {
    void vscode.window.showErrorMessage(
      !shim
        ? "fslens: sharing Ionide's FSAC needs an open folder"
        : "fslens: no fslens binary to act as Ionide's dotnet (install the .vsix for your platform or set fslens.path)",
    );
    return false;
  }
  const plan = planSharing(inspectDotnetRoot(), shim);
  writeShim(shim, fslens, realDotnetFileContent(plan));
  await context.workspaceState.update(SAVED_SETTING_KEY, plan.saved);
  await context.workspaceState.update(DECLINED_KEY, undefined);
  await vscode.workspace
    .getConfiguration(DOTNET_ROOT_SECTION)
    .update(DOTNET_ROOT_KEY, shim, vscode.ConfigurationTarget.Workspace);
  host.output.appendLine(
    `sharing Ionide's FSAC: FSharp.dotnetRoot = ${shim} (dotnet → ${fslens}; real dotnet: ${plan.realDotnet ?? "PATH's"})`,
  );
  if (!(await restartIonide(host.output))) {
    void vscode.window.showWarningMessage("fslens: reload the window so that Ionide starts its FSAC through fslens");
  }
  return true;
}

/** Stops sharing: the workspace's FSharp.dotnetRoot is what it was before, Ionide restarted. */
export async function stopSharing(context: vscode.ExtensionContext, host: IonideHost) {
  const saved = context.workspaceState.get<SavedSetting>(SAVED_SETTING_KEY);
  await vscode.workspace
    .getConfiguration(DOTNET_ROOT_SECTION)
    .update(DOTNET_ROOT_KEY, restoredValue(saved), vscode.ConfigurationTarget.Workspace);
  await context.workspaceState.update(SAVED_SETTING_KEY, undefined);
  // Not asked again at the next start: "fslens: Share Ionide's FSAC" shares again.
  await context.workspaceState.update(DECLINED_KEY, true);
  host.output.appendLine(`stopped sharing Ionide's FSAC: FSharp.dotnetRoot = ${restoredValue(saved) ?? "(not set here)"}`);
  if (!(await restartIonide(host.output))) {
    void vscode.window.showWarningMessage("fslens: reload the window so that Ionide starts its own FSAC again");
  }
}

/**
 * The extension's connection to the session Ionide's fslens serves: joined when it appears,
 * joined again when it ends (Ionide restarts its client), until stopped.
 */
export class IonideSession {
  private connection: SessionConnection | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private socketPath: string | undefined;
  private lastFailure = "";

  constructor(
    private readonly host: IonideHost,
    private readonly workspace: string,
  ) {}

  start() {
    this.stopped = false;
    this.host.onStatus({ state: "starting", reason: "waiting for Ionide to start FSAC through fslens" }, true);
    void this.join();
  }

  get joined(): boolean {
    return this.connection?.isOpen === true;
  }

  private async join() {
    if (this.stopped) {
      return;
    }
    try {
      const fslens = this.host.fslensBinary();
      if (!fslens) {
        throw new Error("no fslens binary (install the .vsix for your platform or set fslens.path)");
      }
      this.socketPath ??= await sessionSocketPath(fslens, this.workspace);
      const connection = await SessionConnection.open(this.socketPath, this.workspace, (status) =>
        this.host.onStatus(status as StatusLike, false),
      );
      if (this.stopped) {
        connection.dispose();
        return;
      }
      this.connection = connection;
      this.lastFailure = "";
      this.host.output.appendLine(`joined Ionide's fslens session at ${this.socketPath}`);
      connection.onClose(() => {
        this.connection = undefined;
        if (!this.stopped) {
          this.host.output.appendLine("Ionide's fslens session ended; waiting for the next one");
          this.host.onStatus({ state: "starting", reason: "waiting for Ionide to start FSAC through fslens" }, true);
          this.retry();
        }
      });
      const mark = this.host.statusRequested();
      this.host.onStatusAnswer(mark, await connection.execute<StatusLike>("fslens.status", {}));
    } catch (error) {
      const text = (error as Error).message ?? String(error);
      if (text !== this.lastFailure) {
        // ENOENT / ECONNREFUSED until Ionide's fslens serves the socket: said once, not every second.
        this.host.output.appendLine(`not joined yet: ${text}`);
        this.lastFailure = text;
      }
      this.retry();
    }
  }

  private retry() {
    if (!this.stopped && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.join();
      }, JOIN_RETRY_MS);
    }
  }

  execute<T>(command: string, argument: Record<string, unknown>, token?: vscode.CancellationToken): Promise<T> {
    if (!this.connection?.isOpen) {
      return Promise.reject(
        new Error("Ionide's fslens session is not running yet (Ionide starts it with its FSAC; see the fslens output)"),
      );
    }
    return this.connection.execute<T>(command, argument, token);
  }

  stop() {
    this.stopped = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.connection?.dispose();
    this.connection = undefined;
  }

  dispose() {
    this.stop();
  }
}

export type { SessionStatusNotification };
