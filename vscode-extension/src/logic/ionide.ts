// Ionide mode: one FsAutoComplete for Ionide, fslens's commands and agents. Ionide starts FSAC
// as `<FSharp.dotnetRoot>/dotnet [FSharp.fsac.dotnetArgs] <fsautocomplete.dll> [args]`; with the
// user's consent the extension points the workspace's `FSharp.dotnetRoot` at a shim directory
// of its own whose `dotnet` is the fslens binary, which then runs Ionide's FSAC behind the fslens
// proxy and passes every other dotnet command to the real dotnet (src/shim.rs in fslens). The
// real dotnet is the one the user's previous `FSharp.dotnetRoot` named (written next to the
// shim), else the first on PATH that is not the shim. These are the pure parts: paths, the
// setting's values, the prompt's text (no `vscode` import, so Node's test runner tests them).

import { createHash } from "crypto";
import * as path from "path";

/** Ionide's extension id (VS Code compares ids without regard to case). */
export const IONIDE_EXTENSION_ID = "Ionide.Ionide-fsharp";
/** The setting section and key Ionide reads its dotnet from. */
export const DOTNET_ROOT_SECTION = "FSharp";
export const DOTNET_ROOT_KEY = "dotnetRoot";
/** Ionide's command that stops and starts its language client (it reads the setting again). */
export const RESTART_IONIDE_COMMAND = "fsharp.restartLanguageService";
/** The file next to the shim naming the real dotnet (fslens's shim::REAL_DOTNET_FILE). */
export const REAL_DOTNET_FILE = "fslens-real-dotnet";
/** The workspace-state key holding the setting's value from before sharing. */
export const SAVED_SETTING_KEY = "fslens.ionide.previousDotnetRoot";
/** The workspace-state key saying the user declined sharing for this workspace. */
export const DECLINED_KEY = "fslens.ionide.declined";

export const SHARE = "Share Ionide's FSAC";
export const NOT_NOW = "Not now";
export const NEVER = "Never for this workspace";

/** The values of `FSharp.dotnetRoot` per scope, as `WorkspaceConfiguration.inspect` gives them. */
export interface InspectedSetting {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** What sharing replaced, to put back: the workspace's own value (absent: none was set). */
export interface SavedSetting {
  workspaceValue?: string;
}

/** The shim directory for a workspace folder: one per folder, so one folder's previous
 * `dotnetRoot` never chooses another's dotnet. */
export function shimDirectory(globalStorage: string, workspaceFolder: string): string {
  const digest = createHash("sha256").update(path.resolve(workspaceFolder)).digest("hex").slice(0, 16);
  return path.join(globalStorage, "ionide-shim", digest);
}

/** The shim program inside a shim directory: the name Ionide appends to `dotnetRoot`. */
export function shimProgram(directory: string): string {
  return path.join(directory, "dotnet");
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** Whether two directory paths name the same place (trailing separators ignored). */
export function samePath(a: string, b: string): boolean {
  const normal = (p: string) => path.resolve(p).replace(/[\\/]+$/, "");
  return normal(a) === normal(b);
}

/** The value Ionide uses: the most specific scope that sets one. */
export function effectiveDotnetRoot(inspected: InspectedSetting | undefined): string | undefined {
  return text(inspected?.workspaceFolderValue) ?? text(inspected?.workspaceValue) ?? text(inspected?.globalValue);
}

/** Whether Ionide's dotnet is this workspace's shim now. */
export function isSharing(inspected: InspectedSetting | undefined, shim: string): boolean {
  const effective = effectiveDotnetRoot(inspected);
  return effective !== undefined && samePath(effective, shim);
}

export interface SharePlan {
  shimDirectory: string;
  /** The real dotnet the shim runs: the previous `dotnetRoot`'s, else none (PATH's). */
  realDotnet?: string;
  /** What to restore when sharing stops. */
  saved: SavedSetting;
}

/**
 * What sharing does: the previous effective `dotnetRoot` (unless it is the shim already) names
 * the real dotnet, and the workspace's own value is saved for the undo.
 */
export function planSharing(inspected: InspectedSetting | undefined, shim: string): SharePlan {
  const previous = effectiveDotnetRoot(inspected);
  const realRoot = previous !== undefined && !samePath(previous, shim) ? previous : undefined;
  const workspaceValue = text(inspected?.workspaceValue);
  const saved: SavedSetting =
    workspaceValue !== undefined && !samePath(workspaceValue, shim) ? { workspaceValue } : {};
  return { shimDirectory: shim, realDotnet: realRoot !== undefined ? path.resolve(realRoot, "dotnet") : undefined, saved };
}

/** The content of the real-dotnet file for a plan (undefined: no file, PATH's dotnet). */
export function realDotnetFileContent(plan: SharePlan): string | undefined {
  return plan.realDotnet !== undefined ? `${plan.realDotnet}\n` : undefined;
}

/** The prompt offering to share Ionide's FSAC, naming the dotnet that keeps running builds. */
export function consentMessage(plan: SharePlan): string {
  const real = plan.realDotnet ? `${plan.realDotnet} (your FSharp.dotnetRoot)` : "the dotnet on PATH";
  return (
    "Ionide is installed. Let Ionide's FsAutoComplete run through fslens, so Ionide, fslens's commands " +
    "and agents share one FSAC and see the same unsaved buffers? fslens sets this workspace's " +
    `FSharp.dotnetRoot to a dotnet of its own, which starts FSAC behind fslens and passes every other ` +
    `dotnet command (build, test, fsi) to ${real}. Undo: "fslens: Stop sharing Ionide's FSAC".`
  );
}

/** The workspace value to write back when sharing stops (undefined removes the setting). */
export function restoredValue(saved: SavedSetting | undefined): string | undefined {
  return saved?.workspaceValue;
}
