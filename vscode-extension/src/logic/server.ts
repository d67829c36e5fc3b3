// How the extension starts fslens: pure functions of the settings (no `vscode` import, so
// Node's test runner can test them).

import * as fs from "fs";
import * as path from "path";

export interface ServerSettings {
  /** The fslens executable (the `fslens.path` setting); empty: the bundled one, else PATH's. */
  path?: string;
  /** The fslens binary inside a platform .vsix (`bin/fslens`), when this package has one. */
  bundledPath?: string;
  /** The FsAutoComplete command line passed as `--fsac`; empty lets fslens find it. */
  fsacCommand?: string;
  /** Extra FsAutoComplete arguments, appended to the FSAC command. */
  fsacArgs?: string[];
  /** Extra fslens arguments. */
  args?: string[];
  /** fslens's log filter (`--log-level`): its log goes to the "fslens" output channel. */
  logLevel?: string;
  /** FSAC's memory limit (`--fsac-memory-limit`: `4GiB`, `3000MB`, `60%`); empty: none. */
  fsacMemoryLimit?: string;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

const SAFE_WORD = /^[\w@%+=:,./-]+$/;

/** Quotes a word for fslens's POSIX-shell-like splitting of `--fsac` (no shell runs it). */
export function shellQuote(word: string): string {
  if (word !== "" && SAFE_WORD.test(word)) {
    return word;
  }
  return "'" + word.replace(/'/g, "'\\''") + "'";
}

/** The fslens command line for the settings. */
export function serverCommand(settings: ServerSettings): ServerCommand {
  const command =
    settings.path && settings.path.trim() !== "" ? settings.path.trim() : settings.bundledPath || "fslens";
  const args: string[] = [];
  const extra = (settings.fsacArgs ?? []).filter((arg) => typeof arg === "string");
  let fsac = settings.fsacCommand?.trim() ?? "";
  if (extra.length > 0) {
    // Extra arguments need a command to follow: FSAC's own name when none is configured.
    fsac = [fsac !== "" ? fsac : "fsautocomplete", ...extra.map(shellQuote)].join(" ");
  }
  if (fsac !== "") {
    args.push("--fsac", fsac);
  }
  if (settings.logLevel && settings.logLevel.trim() !== "") {
    args.push("--log-level", settings.logLevel.trim());
  }
  if (settings.fsacMemoryLimit && settings.fsacMemoryLimit.trim() !== "") {
    args.push("--fsac-memory-limit", settings.fsacMemoryLimit.trim());
  }
  args.push(...(settings.args ?? []));
  return { command, args };
}

/** Where a platform .vsix keeps its fslens binary, relative to the extension's folder. */
export function bundledBinary(platform: string): string {
  return platform === "win32" ? "bin/fslens.exe" : "bin/fslens";
}

/**
 * The absolute path of the fslens the extension would start (for Ionide mode's `dotnet` link):
 * `fslens.path` as written when it has a directory part, else found on `PATH`; empty
 * `fslens.path`: the bundled binary, else `fslens` on `PATH`. Undefined when none exists.
 */
export function resolveServerBinary(settings: ServerSettings, pathVariable: string | undefined): string | undefined {
  const { command } = serverCommand(settings);
  if (command.includes("/") || command.includes("\\")) {
    return fs.existsSync(command) ? path.resolve(command) : undefined;
  }
  for (const directory of (pathVariable ?? "").split(path.delimiter)) {
    if (directory === "") {
      continue;
    }
    const candidate = path.join(directory, command);
    try {
      if (fs.statSync(candidate).isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return path.resolve(candidate);
      }
    } catch {
      // Not here.
    }
  }
  return undefined;
}
