// Ionide mode end to end (issue 20 item 4): the packaged fslens .vsix and a stand-in Ionide
// (tests/vscode-e2e/stand-in-ionide, id Ionide.Ionide-fsharp, which starts FSAC exactly as
// Ionide's source does) installed in code-server, with a stand-in real dotnet
// (tests/stand-in-dotnet: it runs the FSAC double for fsautocomplete.dll and records every
// other command line). The workspace's own FSharp.dotnetRoot names the stand-in real dotnet's
// directory, and no dotnet is on PATH, so only that setting leads to it. Driven through
// headless Chromium like drive.mjs; every step writes a screenshot and fails unless the
// workbench (and the processes) show what they should:
//
//   the prompt before anything of fslens starts; sharing; one FSAC, behind fslens, started with
//   Ionide's arguments; the stand-in Ionide's hover through fslens; F#: Check sees an unsaved
//   type error typed in the editor; `fslens status` joins the same session; Make Internal
//   Visible's edit lands in the buffer through Ionide's client; F#: Type Hierarchy's peek is fed
//   through the joined session and F#: Rename with Preview's edit lands in the buffer through
//   Ionide's client too; the stand-in Ionide's build
//   reaches the real dotnet with the same arguments and exit code; a reload with the shim's
//   link dangling (as after an update) resumes sharing, repaired; the undo restores the setting.
//
// scripts/test-editors.sh runs it. Environment: CODE_SERVER, PLAYWRIGHT_CORE, CHROMIUM,
// FSLENS_VSIX (the platform .vsix, fslens inside), FSLENS_STAND_IN_IONIDE_VSIX (the stand-in
// Ionide, packaged), FSLENS_E2E_OUT (emptied first).

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import {
  assert,
  exitWith,
  hostEnvironment,
  installExtension,
  log,
  quietSettings,
  READY_TIMEOUT_MS,
  repository,
  required,
  runInBrowser,
  startCodeServer,
  STEP_TIMEOUT_MS,
} from "./workbench.mjs";

const script = "drive-ionide.mjs";
const codeServer = required("CODE_SERVER", script);
const chromiumPath = required("CHROMIUM", script);
const playwrightCore = required("PLAYWRIGHT_CORE", script);
const vsix = path.resolve(required("FSLENS_VSIX", script));
const standInIonide = path.resolve(required("FSLENS_STAND_IN_IONIDE_VSIX", script));
const out = path.resolve(required("FSLENS_E2E_OUT", script));

const workspace = path.join(out, "workspace");
const userData = path.join(out, "user-data");
const extensions = path.join(out, "extensions");
const standInDotnet = path.join(repository, "tests/stand-in-dotnet");
/** The FSAC double, and the real `dotnet` that runs it (found before PATH loses it below). */
const DOUBLE = path.join(repository, "tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll");
const realDotnet = spawnSync("sh", ["-c", "command -v dotnet"], { encoding: "utf8" }).stdout.trim();
if (!realDotnet) throw new Error("the real dotnet is not on PATH: the FSAC double runs on it");
const standInLog = path.join(out, "stand-in-dotnet.jsonl");
/** The stand-in real dotnet's exit code for anything but --version. */
const BUILD_EXIT_CODE = 17;
/** Ionide's FSharp.fsac.dotnetArgs in this test: host options before the dll. */
const DOTNET_ARGS = ["--roll-forward", "LatestMajor"];

function prepareDirectories() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  fs.cpSync(path.join(repository, "fixtures/shipping"), workspace, { recursive: true });
  // The user's previous setting, in this workspace: Ionide's dotnet is the stand-in.
  fs.mkdirSync(path.join(workspace, ".vscode"));
  writeJson(path.join(workspace, ".vscode/settings.json"), { "FSharp.dotnetRoot": standInDotnet });
  const settings = {
    ...quietSettings(),
    "FSharp.fsac.dotnetArgs": DOTNET_ARGS,
    // After the undo fslens runs its own client again, with this FSAC.
    "fslens.fsac.command": `${realDotnet} ${DOUBLE}`,
  };
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  writeJson(path.join(userData, "User/settings.json"), settings);
}

function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

/** The workspace's own FSharp.dotnetRoot as VS Code wrote it (comments aside); `undefined`
 * while VS Code is halfway through writing the file (it truncates, then writes), so that a
 * waitFor polling it reads again instead of failing on the empty file. */
function workspaceDotnetRoot() {
  const text = fs.readFileSync(path.join(workspace, ".vscode/settings.json"), "utf8");
  try {
    return JSON.parse(text.replace(/^\s*\/\/.*$/gm, ""))["FSharp.dotnetRoot"];
  } catch (error) {
    if (error instanceof SyntaxError) {
      return undefined;
    }
    throw error;
  }
}

function environmentForHost() {
  const environment = hostEnvironment(out);
  // No dotnet on PATH: the stand-in is reached only through the settings.
  environment.PATH = environment.PATH.split(path.delimiter)
    .filter((directory) => !fs.existsSync(path.join(directory, "dotnet")))
    .join(path.delimiter);
  environment.FSLENS_STAND_IN_LOG = standInLog;
  environment.FSLENS_STAND_IN_NODE = process.execPath;
  environment.FSLENS_STAND_IN_DOTNET = realDotnet;
  environment.FSLENS_STAND_IN_EXIT_CODE = String(BUILD_EXIT_CODE);
  return environment;
}

/** The processes below `root` (from /proc): pid, parent pid, command line words, executable. */
function processesBelow(root) {
  const table = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter((word) => word !== "");
      let exe = "";
      try {
        exe = fs.readlinkSync(`/proc/${name}/exe`);
      } catch {
        // Not ours to read, or gone.
      }
      table.set(Number(name), { pid: Number(name), parent, argv, exe });
    } catch {
      // The process ended while we looked.
    }
  }
  const below = (pid) => {
    for (let seen = 0, current = table.get(pid); current && seen < 64; seen += 1) {
      if (current.parent === root) {
        return true;
      }
      current = table.get(current.parent);
    }
    return false;
  };
  return { processes: [...table.values()].filter((entry) => below(entry.pid)), table };
}

/** The FSAC double processes (`dotnet …/FsacDouble.dll …`) below `root`, each with its
 * parent. (An fslens whose `--fsac` names the double is not one.) */
function fsacProcesses(root) {
  const { processes, table } = processesBelow(root);
  return processes
    .filter((entry) => entry.argv[1]?.endsWith("FsacDouble.dll"))
    .map((entry) => ({ ...entry, parentProcess: table.get(entry.parent) }));
}

async function waitFor(what, check, timeout = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await check();
    if (last.ok) {
      return last.value;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: ${last.why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function records() {
  if (!fs.existsSync(standInLog)) {
    return [];
  }
  return fs.readFileSync(standInLog, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** The text of the extension host's output channel logs whose file name ends with `suffix`. */
function outputLog(suffix) {
  return fs
    .readdirSync(path.join(userData, "logs"), { recursive: true })
    .filter((name) => name.endsWith(suffix))
    .map((name) => fs.readFileSync(path.join(userData, "logs", name), "utf8"))
    .join("\n");
}

function installedFslens() {
  const folder = fs.readdirSync(extensions).find((name) => fs.existsSync(path.join(extensions, name, "bin/fslens")));
  assert(folder, `no installed extension folder in ${extensions} has bin/fslens`);
  return path.join(extensions, folder, "bin/fslens");
}

async function scenario(driver, codeServerPid, environment) {
  const { page } = driver;
  const onDisk = (relative) => fs.readFileSync(path.join(workspace, relative), "utf8");
  const fslens = installedFslens();

  // 1. The stand-in Ionide starts its FSAC directly; fslens asks before it starts anything.
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.openFile("src/Shipping.App/Program.fs");
  await driver.waitForNotification(/^Ionide is installed\. Let Ionide's FsAutoComplete run through fslens/);
  const direct = await waitFor("the stand-in Ionide's own FSAC", () => {
    const fsac = fsacProcesses(codeServerPid);
    return fsac.length === 1
      ? { ok: true, value: fsac[0] }
      : { ok: false, why: `FSAC processes: ${JSON.stringify(fsac.map((entry) => entry.argv))}` };
  });
  const fslensBefore = processesBelow(codeServerPid).processes.filter((entry) => entry.exe === fs.realpathSync(fslens));
  assert(fslensBefore.length === 0, `fslens runs before the user chose: ${JSON.stringify(fslensBefore.map((e) => e.argv))}`);
  assert(direct.parentProcess?.exe !== fs.realpathSync(fslens), "Ionide's first FSAC is not behind fslens");
  await driver.screenshot("ionide-prompt-before-sharing");
  await driver.assertNoErrorNotification("at start-up");
  log(`before sharing: one FSAC (pid ${direct.pid}) started by the stand-in Ionide directly; no fslens running`);

  // 2. The user shares: the setting names the shim, Ionide restarts through it, fslens joins.
  await page
    .locator(".notification-list-item", { hasText: "Ionide is installed" })
    .locator(".monaco-button", { hasText: "Share Ionide's FSAC" })
    .click();
  const ready = await driver.waitForStatusBar(/F# ready · Ionide/, READY_TIMEOUT_MS);
  log(`status bar: ${ready}`);
  const shim = workspaceDotnetRoot();
  assert(
    shim.startsWith(path.join(userData, "User/globalStorage/fslens.fslens/ionide-shim/")),
    `the workspace's FSharp.dotnetRoot is not the shim directory: ${shim}`,
  );
  assert(fs.realpathSync(path.join(shim, "dotnet")) === fs.realpathSync(fslens), "the shim's dotnet is not the bundled fslens");
  const realDotnet = fs.readFileSync(path.join(shim, "fslens-real-dotnet"), "utf8").trim();
  assert(realDotnet === path.join(standInDotnet, "dotnet"), `the shim's real dotnet is ${realDotnet}`);
  const shared = await waitFor("one FSAC, behind fslens", () => {
    const fsac = fsacProcesses(codeServerPid);
    const behind = fsac.filter((entry) => entry.parentProcess?.exe === fs.realpathSync(fslens));
    return fsac.length === 1 && behind.length === 1
      ? { ok: true, value: behind[0] }
      : { ok: false, why: JSON.stringify(fsac.map((entry) => [entry.pid, entry.argv, entry.parentProcess?.argv])) };
  });
  // fslens was started as Ionide starts dotnet, and started FSAC with the same arguments.
  const ionideArguments = shared.parentProcess.argv.slice(1);
  assert(shared.parentProcess.argv[0] === path.join(shim, "dotnet"), `fslens's argv[0]: ${shared.parentProcess.argv[0]}`);
  assert(
    JSON.stringify(ionideArguments.slice(0, 2)) === JSON.stringify(DOTNET_ARGS) &&
      ionideArguments[2].endsWith("/bin/net8.0/fsautocomplete.dll") &&
      ionideArguments[3] === "--state-directory",
    `Ionide's FSAC arguments: ${JSON.stringify(ionideArguments)}`,
  );
  assert(
    JSON.stringify(shared.argv.slice(-ionideArguments.length)) === JSON.stringify(ionideArguments),
    `FSAC's arguments ${JSON.stringify(shared.argv)} are not Ionide's ${JSON.stringify(ionideArguments)}`,
  );
  const gcServer = fs.readFileSync(`/proc/${shared.pid}/environ`, "utf8").split("\0").includes("DOTNET_GCServer=1");
  assert(gcServer, "Ionide's environment (DOTNET_GCServer=1) did not reach FSAC");
  await driver.screenshot("shared-status-ready-one-fsac");
  await driver.openFile(".vscode/settings.json");
  await driver.waitForEditorText(/"FSharp\.dotnetRoot": ".*ionide-shim\/[0-9a-f]{16}"/);
  await driver.screenshot("shared-setting-names-the-shim");
  await driver.openFile("src/Shipping.App/Program.fs");
  log(`shared: one FSAC (pid ${shared.pid}) behind fslens (pid ${shared.parent}) started as ${path.join(shim, "dotnet")} ${ionideArguments.join(" ")}`);

  // 3. The stand-in Ionide's hover, answered through fslens.
  await driver.focusEditor();
  await driver.goToLine(7, 15);
  await driver.runCommand("Show or Focus Hover");
  const hover = page.locator(".monaco-hover:not(.hidden) .monaco-hover-content").first();
  await hover.waitFor({ timeout: STEP_TIMEOUT_MS });
  const hoverText = await waitFor("the hover", async () => {
    const text = (await hover.innerText()).replace(/\s+/g, " ");
    return /create/.test(text) && /Shipment/.test(text) ? { ok: true, value: text } : { ok: false, why: text };
  });
  await driver.screenshot("hover-through-fslens");
  log(`hover: ${hoverText.slice(0, 120)}`);
  await page.keyboard.press("Escape");

  // 4. F#: Check (in the joined session) sees a type error typed into Ionide's editor, unsaved.
  const originalProgram = onDisk("src/Shipping.App/Program.fs");
  await driver.goToLine(1, 1);
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("let typedByTheTest: int = 4.5", { delay: 5 });
  await driver.waitForEditorText(/let typedByTheTest: int = 4\.5/);
  driver.expectedErrors = [/^F# check \(file\): 1 error, 0 warnings$/];
  const errors = await driver.check("File", "1 error, 0 warnings");
  await page.locator(".tabs-container .tab.active.dirty").waitFor({ timeout: STEP_TIMEOUT_MS });
  assert(onDisk("src/Shipping.App/Program.fs") === originalProgram, "the unsaved edit reached the disk");
  await driver.screenshot("check-sees-unsaved-type-error");
  await driver.goToLine(2, 1);
  await page.keyboard.press("Shift+End");
  await page.keyboard.type("let typedByTheTest: int = 45", { delay: 5 });
  await driver.waitForEditorText(/let typedByTheTest: int = 45/);
  const fixed = await driver.check("File", "clean");
  driver.expectedErrors = [];
  await driver.screenshot("check-sees-unsaved-fix");
  log(`verdicts on Ionide's unsaved buffer: ${errors} / ${fixed}`);
  await driver.runCommand("File: Revert File");
  await page.locator(".tabs-container .tab.active:not(.dirty)").waitFor({ timeout: STEP_TIMEOUT_MS });

  // 5. The CLI joins the same session (as `fslens mcp` does): the same FSAC.
  const joined = spawnSync(fslens, ["status", "--json", "--workspace", workspace], {
    env: environment,
    encoding: "utf8",
    timeout: STEP_TIMEOUT_MS,
  });
  assert(joined.status === 0, `fslens status failed: ${joined.stderr}`);
  const status = JSON.parse(joined.stdout);
  assert(status.fsac.pid === shared.pid, `fslens status sees FSAC pid ${status.fsac.pid}, not ${shared.pid}`);
  assert(status.session.clients >= 2, `session clients: ${status.session.clients} (the extension and this CLI)`);
  assert(fsacProcesses(codeServerPid).length === 1, "a second FSAC started");
  log(`fslens status joined: state ${status.state}, FSAC pid ${status.fsac.pid}, ${status.session.clients} session clients`);

  // 6. Make Internal Visible: fslens sends the edit to Ionide's client, which puts it in the buffer.
  await driver.clearNotifications();
  const originalVisibility = onDisk("src/Shipping.Domain/Visibility.fs");
  await driver.openFile("src/Shipping.Domain/Visibility.fs");
  const hiddenLine = originalVisibility.split("\n").findIndex((line) => line.startsWith("type private Hidden")) + 1;
  await driver.goToLine(hiddenLine, "type private ".length + 2);
  await driver.runCommand("F#: Make Internal Visible");
  await driver.pick("Only make it internal");
  await driver.waitForNotification(/Shipping\.Domain\.Hidden is internal now/);
  await driver.waitForEditorText(/type internal Hidden/);
  await page.locator(".tabs-container .tab.active.dirty").waitFor({ timeout: STEP_TIMEOUT_MS });
  assert(onDisk("src/Shipping.Domain/Visibility.fs") === originalVisibility, "make-visible wrote Visibility.fs to disk");
  await driver.screenshot("make-visible-applied-by-ionides-client");
  await driver.runCommand("File: Revert File");
  await page.locator(".tabs-container .tab.active:not(.dirty)").waitFor({ timeout: STEP_TIMEOUT_MS });

  // 6b. F#: Type Hierarchy and F#: Rename with Preview in the joined session: the provider asks
  // fslens.typeHierarchy there, and the rename's edit goes to Ionide's client (applyEdit).
  await driver.clearNotifications();
  log(`type hierarchy in Ionide mode: ${await driver.typeHierarchyOfShipment()}`);
  log(`rename preview in Ionide mode: ${await driver.renameDirectWithPreview(onDisk, "rename-in-ionide-mode")}`);

  // 7. The stand-in Ionide's build goes through the shim to the real dotnet, unchanged.
  await driver.clearNotifications();
  const recordsBefore = records().length;
  await driver.runCommand("F#: Build Project (stand-in Ionide)");
  const built = await driver.waitForNotification(/^Stand-in Ionide: MSBuild/);
  assert(built.message === `Stand-in Ionide: MSBuild failed with code ${BUILD_EXIT_CODE}`, built.message);
  const build = records().slice(recordsBefore);
  const project = path.join(workspace, "src/Shipping.App/Shipping.App.fsproj");
  assert(
    build.length === 1 && JSON.stringify(build[0].argv) === JSON.stringify(["msbuild", project, "/t:Build"]),
    `the real dotnet saw: ${JSON.stringify(build)}`,
  );
  assert(build[0].exitCode === BUILD_EXIT_CODE, `exit code ${build[0].exitCode}`);
  assert(
    outputLog("stand-in Ionide).log").includes(`invoking msbuild from ${path.join(shim, "dotnet")} on ${project}`),
    "the stand-in Ionide did not build with the shim as its dotnet",
  );
  const versions = records().filter((record) => JSON.stringify(record.argv) === '["--version"]').length;
  // The stand-in Ionide's output shows the shim as its dotnet and the real dotnet's own output.
  const panel = page.locator(".panel .monaco-editor .view-lines").first();
  await waitFor("the build's output", async () => {
    const text = (await panel.innerText().catch(() => "")).replace(/\u00a0/g, " ");
    return /stand-in dotnet: \["msbuild"/.test(text) ? { ok: true } : { ok: false, why: text };
  });
  await driver.screenshot("build-through-the-shim");
  await driver.runCommand("View: Hide Panel");
  log(`build: ${shim}/dotnet msbuild … reached the real dotnet as ${JSON.stringify(build[0].argv)}, exit ${build[0].exitCode}; ${versions} --version calls recorded`);

  // 8. A reload after an update of fslens (the old version's binary gone, so the link dangles):
  //    sharing resumes without a prompt, the link names the installed binary again, one FSAC.
  const program = path.join(shim, "dotnet");
  fs.rmSync(program);
  fs.symlinkSync(path.join(extensions, "fslens.fslens-0.0.9/bin/fslens"), program);
  await page.reload();
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.waitForStatusBar(/F# ready · Ionide/, READY_TIMEOUT_MS);
  assert(fs.readlinkSync(program) === fslens, `the shim's link names ${fs.readlinkSync(program)}`);
  const resumed = await waitFor("one FSAC behind fslens after the reload", () => {
    const fsac = fsacProcesses(codeServerPid);
    const behind = fsac.filter((entry) => entry.parentProcess?.exe === fs.realpathSync(fslens));
    return fsac.length === 1 && behind.length === 1 && behind[0].pid !== shared.pid
      ? { ok: true, value: behind[0] }
      : { ok: false, why: JSON.stringify(fsac.map((entry) => [entry.pid, entry.parentProcess?.argv])) };
  });
  const prompted = (await driver.notificationsSoFar()).filter((notification) => /Ionide is installed/.test(notification.message));
  assert(prompted.length === 0, "fslens asked again after the reload");
  await driver.screenshot("reload-resumes-sharing");
  log(`reload: sharing resumed without a prompt, the link repaired, one FSAC (pid ${resumed.pid}) behind fslens`);

  // 9. Undo: the previous setting is back, Ionide's FSAC runs directly again.
  await driver.clearNotifications();
  await driver.runCommand("fslens: Stop sharing Ionide's FSAC");
  await waitFor("the workspace's FSharp.dotnetRoot restored", () =>
    workspaceDotnetRoot() === standInDotnet ? { ok: true } : { ok: false, why: String(workspaceDotnetRoot()) },
  );
  const afterUndo = await waitFor("Ionide's FSAC started directly again", () => {
    const fsac = fsacProcesses(codeServerPid);
    const ionide = fsac.filter((entry) => entry.parentProcess?.exe !== fs.realpathSync(fslens));
    return ionide.length === 1 && !fsac.some((entry) => entry.pid === resumed.pid)
      ? { ok: true, value: fsac }
      : { ok: false, why: JSON.stringify(fsac.map((entry) => [entry.pid, entry.parentProcess?.argv])) };
  });
  // fslens's own client again (as before sharing, "Not now"), with its own FSAC.
  await driver.waitForStatusBar(/F# ready(?! · Ionide)/, READY_TIMEOUT_MS);
  const both = await waitFor("Ionide's FSAC and fslens's own", () => {
    const fsac = fsacProcesses(codeServerPid);
    const behind = fsac.filter((entry) => entry.parentProcess?.exe === fs.realpathSync(fslens));
    return fsac.length === 2 && behind.length === 1 && fsac.some((entry) => entry.pid === afterUndo[0].pid)
      ? { ok: true, value: fsac }
      : { ok: false, why: JSON.stringify(fsac.map((entry) => [entry.pid, entry.argv, entry.parentProcess?.argv])) };
  });
  await driver.openFile(".vscode/settings.json");
  await driver.waitForEditorText(/"FSharp\.dotnetRoot": ".*stand-in-dotnet"/);
  await driver.screenshot("undo-restores-the-setting");
  log(`undo: FSharp.dotnetRoot = ${workspaceDotnetRoot()}; FSAC processes now: Ionide's direct one (pid ${afterUndo[0].pid}) and fslens's own (pid ${both.find((entry) => entry.pid !== afterUndo[0].pid).pid})`);

  const seen = await driver.assertNoErrorNotification("during the run");
  log(`notifications in the last steps: ${seen.map((notification) => `${notification.severity}: ${notification.message}`).join(" | ")}`);
}

async function main() {
  prepareDirectories();
  const environment = environmentForHost();
  installExtension(codeServer, vsix, environment, { extensions, userData });
  installExtension(codeServer, standInIonide, environment, { extensions, userData });
  const { child, url } = await startCodeServer(codeServer, environment, { out, userData, extensions, workspace });
  try {
    await runInBrowser({ chromiumPath, playwrightCore, out, url, child }, (driver) =>
      scenario(driver, child.pid, environment),
    );
  } catch (error) {
    // What fslens said last (its output channel: the extension's lines and fslens's stderr),
    // so that a failure on a CI machine can be read from the CI log alone.
    const lines = (() => {
      try {
        return outputLog("fslens.log").split("\n");
      } catch {
        return [];
      }
    })();
    console.error(`the fslens output channel's last lines:\n${lines.slice(-40).join("\n")}`);
    throw error;
  }
}

exitWith(main(), out);
