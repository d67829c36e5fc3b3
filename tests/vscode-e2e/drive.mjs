// The VS Code extension's end-to-end test (issue 20): the packaged .vsix installed in a real
// VS Code host (code-server), a copy of fixtures/shipping opened with fslens and the FSAC
// double behind it, and the workbench driven through headless Chromium the way a user drives
// it: the command palette, quick picks, input boxes and the keyboard. Every step writes a
// screenshot to the output directory and fails unless the workbench shows what it should.
// No step may raise an error notification. scripts/test-editors.sh runs it; the environment
// names the parts (scripts/install-vscode-host.sh prints them):
//
//   CODE_SERVER      code-server's entry script (run with this Node)
//   PLAYWRIGHT_CORE  the playwright-core package directory
//   CHROMIUM         the Chromium executable
//   FSLENS_VSIX      the .vsix to install
//   FSLENS_E2E_OUT   where screenshots, logs and the workspace copy go (emptied first)
//   FSLENS_PATH      optional: the fslens.path setting; unset, the .vsix must bring fslens (a
//                    platform package): no fslens is left on PATH and the test checks that the
//                    extension started the binary inside its own folder

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const required = (name) => {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set (see the comment at the top of ${path.basename(fileURLToPath(import.meta.url))})`);
  }
  return value;
};
const codeServer = required("CODE_SERVER");
const chromiumPath = required("CHROMIUM");
const vsix = path.resolve(required("FSLENS_VSIX"));
const out = path.resolve(required("FSLENS_E2E_OUT"));
const { chromium } = createRequire(import.meta.url)(required("PLAYWRIGHT_CORE"));

// The double loads the compiler service first; a cold machine needs a while.
const READY_TIMEOUT_MS = 180_000;
const STEP_TIMEOUT_MS = 90_000;
// The kinds the extension labels sites with (kindLabel in vscode-extension/src/logic/find.ts).
const SITE_KINDS = /^(construction|copy-and-update|mutation|pattern|read|declaration)\b/;

const workspace = path.join(out, "workspace");
const userData = path.join(out, "user-data");
const extensions = path.join(out, "extensions");
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
const log = (text) => console.log(`   [${seconds()}s] ${text}`);

function prepareDirectories() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  fs.cpSync(path.join(repository, "fixtures/shipping"), workspace, { recursive: true });
  const settings = {
    // The web build saves on its own by default; a user's desktop VS Code does not.
    "files.autoSave": "off",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.commandCenter.enabled": false,
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "window.commandCenter": false,
    "editor.minimap.enabled": false,
    "git.enabled": false,
    "git.openRepositoryInParentFolders": "never",
    // Every feature FSAC advertises stays on, so a request the double (or fslens) failed would
    // show vscode-languageclient's error notification and fail the run. Only the completion
    // pop-ups are off: they would take the Enter keys the test types.
    "editor.quickSuggestions": { "other": "off", "comments": "off", "strings": "off" },
    "editor.suggestOnTriggerCharacters": false,
    "fslens.fsac.command": `${process.execPath} ${path.join(repository, "tests/fsac-double/index.mjs")}`,
    ...(process.env.FSLENS_PATH ? { "fslens.path": process.env.FSLENS_PATH } : {}),
  };
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.writeFileSync(path.join(userData, "User/settings.json"), JSON.stringify(settings, null, 2));
}

/** The environment code-server (and so the extension host, fslens and FSAC) runs with. */
function hostEnvironment() {
  const environment = { ...process.env };
  for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"]) {
    environment[name] = path.join(out, "xdg", name.toLowerCase());
    fs.mkdirSync(environment[name], { recursive: true, mode: 0o700 });
  }
  delete environment.FSLENS_FSAC;
  if (!process.env.FSLENS_PATH) {
    // No fslens on PATH: only the binary inside the package can be the one that runs.
    environment.PATH = (environment.PATH ?? "")
      .split(path.delimiter)
      .filter((directory) => directory !== "" && !fs.existsSync(path.join(directory, "fslens")))
      .join(path.delimiter);
  }
  delete environment.VSCODE_IPC_HOOK_CLI;
  return environment;
}

function installExtension(environment) {
  const result = spawnSync(
    process.execPath,
    [codeServer, "--install-extension", vsix, "--extensions-dir", extensions, "--user-data-dir", userData],
    { env: environment, encoding: "utf8", timeout: STEP_TIMEOUT_MS },
  );
  const text = `${result.stdout}${result.stderr}`;
  if (result.status !== 0 || !/successfully installed/.test(text)) {
    throw new Error(`installing ${vsix} failed (exit ${result.status}):\n${text}`);
  }
  log(`installed ${path.basename(vsix)}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startCodeServer(environment) {
  const port = await freePort();
  const logFile = fs.openSync(path.join(out, "code-server.log"), "w");
  const child = spawn(
    process.execPath,
    [
      codeServer,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--user-data-dir",
      userData,
      "--extensions-dir",
      extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
    ],
    { env: environment, stdio: ["ignore", logFile, logFile], detached: true },
  );
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}; see ${path.join(out, "code-server.log")}`);
    }
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (answer.ok) {
        break;
      }
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      throw new Error("code-server did not answer /healthz");
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  log(`code-server up on port ${port} (pid ${child.pid})`);
  return { child, url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}` };
}

/** Records every notification the workbench shows, with its severity, as it appears. */
function recordNotifications() {
  const seen = [];
  window.__fslensNotifications = seen;
  const record = (element) => {
    if (element.__fslensSeen) {
      return;
    }
    element.__fslensSeen = true;
    const icon = element.querySelector(".notification-list-item-icon");
    const severity = icon?.className.match(/codicon-(error|warning|info)/)?.[1] ?? "unknown";
    const message = element.querySelector(".notification-list-item-message")?.textContent ?? element.textContent;
    seen.push({ severity, message });
  };
  new MutationObserver(() => {
    for (const element of document.querySelectorAll(".notification-list-item")) {
      record(element);
    }
  }).observe(document, { childList: true, subtree: true });
}

class Driver {
  constructor(page) {
    this.page = page;
    this.step = 0;
    /** Error notifications a step asked for (the verdict on a type error), not failures. */
    this.expectedErrors = [];
  }

  async screenshot(name) {
    this.step += 1;
    // Notifications slide in and progress notifications fade out: let them settle.
    await this.page.waitForTimeout(600);
    const file = path.join(out, `${String(this.step).padStart(2, "0")}-${name}.png`);
    await this.page.screenshot({ path: file });
    log(`screenshot ${path.basename(file)}`);
    return file;
  }

  /** Fails the run when any notification so far was an error. */
  async assertNoErrorNotification(when) {
    const seen = await this.page.evaluate(() => window.__fslensNotifications ?? []);
    const errors = seen.filter(
      (notification) =>
        notification.severity === "error" && !this.expectedErrors.some((pattern) => pattern.test(notification.message)),
    );
    if (errors.length > 0) {
      throw new Error(`error notification ${when}: ${errors.map((error) => error.message).join(" | ")}`);
    }
    return seen;
  }

  async notificationsSoFar() {
    return this.page.evaluate(() => window.__fslensNotifications ?? []);
  }

  /** Waits until a notification whose text matches appears (and returns its text). */
  async waitForNotification(pattern, timeout = STEP_TIMEOUT_MS) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const match = (await this.notificationsSoFar()).find((notification) => pattern.test(notification.message));
      if (match) {
        return match;
      }
      if (Date.now() > deadline) {
        const seen = (await this.notificationsSoFar()).map((notification) => notification.message);
        throw new Error(`no notification matching ${pattern}; seen: ${JSON.stringify(seen)}`);
      }
      await this.page.waitForTimeout(200);
    }
  }

  /** Clears the notifications (after failing on any error among them) for the next step. */
  async clearNotifications() {
    await this.assertNoErrorNotification(`before step ${this.step + 1}`);
    await this.runCommand("Notifications: Clear All Notifications");
    await this.page.evaluate(() => {
      window.__fslensNotifications.length = 0;
    });
  }

  quickInput() {
    return this.page.locator(".quick-input-widget input.input");
  }

  /** Opens the palette with F1 (Ctrl+P does not reach a headless workbench) and a prefix. */
  async palette(prefix, text) {
    await this.page.keyboard.press("Escape");
    await this.page.keyboard.press("F1");
    const input = this.quickInput();
    await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    await input.fill(`${prefix}${text}`);
  }

  async runCommand(title) {
    await this.palette(">", title);
    const row = this.page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first();
    await row.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    await this.page.keyboard.press("Enter");
  }

  async openFile(relative) {
    await this.palette("", relative);
    const row = this.page
      .locator(".quick-input-widget .monaco-list-row", { hasText: path.basename(relative) })
      .first();
    await row.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    await this.page.keyboard.press("Enter");
    await this.page
      .locator(".tabs-container .tab.active", { hasText: path.basename(relative) })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    await this.page.locator(".editor-instance .monaco-editor .view-lines").first().waitFor();
  }

  async focusEditor() {
    await this.runCommand("View: Focus Active Editor Group");
  }

  async goToLine(line, column) {
    await this.palette(":", `${line}:${column}`);
    await this.page.keyboard.press("Enter");
  }

  /** Picks a quick pick row as a user at the keyboard does: types its label, then Enter. */
  async pick(label) {
    await this.page.locator(".quick-input-widget .monaco-list-row").first().waitFor({ timeout: STEP_TIMEOUT_MS });
    await this.quickInput().fill(label);
    const first = this.page.locator(".quick-input-widget .monaco-list-row.focused .label-name").first();
    await first.filter({ hasText: label }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await this.page.keyboard.press("Enter");
  }

  async quickPickLabels() {
    await this.page.locator(".quick-input-widget .monaco-list-row").first().waitFor({ timeout: STEP_TIMEOUT_MS });
    return this.page.locator(".quick-input-widget .monaco-list-row .label-name").allTextContents();
  }

  /** The text of the active editor's rendered lines (what the user sees of the buffer). */
  async visibleEditorText() {
    const text = await this.page.locator(".editor-instance .monaco-editor .view-lines").first().innerText();
    return text.replace(/\u00a0/g, " ");
  }

  async waitForEditorText(pattern) {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      const text = await this.visibleEditorText();
      if (pattern.test(text)) {
        return text;
      }
      if (Date.now() > deadline) {
        throw new Error(`the editor never showed ${pattern}; it shows:\n${text}`);
      }
      await this.page.waitForTimeout(200);
    }
  }

  async statusBarText() {
    return (await this.page.locator(".statusbar").innerText()).replace(/\s+/g, " ");
  }

  async waitForStatusBar(pattern, timeout) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const text = await this.statusBarText();
      if (pattern.test(text)) {
        return text;
      }
      if (Date.now() > deadline) {
        throw new Error(`the status bar never showed ${pattern}; it shows: ${text}`);
      }
      await this.page.waitForTimeout(250);
    }
  }

  /**
   * Waits for the fslens Sites view to show a result: its message and its count of site rows,
   * each labelled with its kind (and type). Returns the rows and the kinds seen.
   */
  async sitesView(message, count, accept = () => true) {
    const pane = this.page.locator(".pane", { has: this.page.locator(".pane-header", { hasText: "fslens Sites" }) });
    await pane.waitFor({ timeout: STEP_TIMEOUT_MS });
    // The folders section above it takes the room the sites need: collapse it once.
    const folders = this.page.locator(".pane-header.expanded", { hasText: "workspace" });
    if ((await folders.count()) > 0) {
      await folders.first().click();
    }
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      const shown = (await pane.innerText()).replace(/\s+/g, " ");
      const rows = await pane.locator(".monaco-list-row").evaluateAll((elements) =>
        elements.map((element) => ({
          label: element.querySelector(".label-name")?.textContent ?? "",
          description: (element.querySelector(".label-description")?.textContent ?? "").replace(/\u00a0/g, " "),
        })),
      );
      const sites = rows.filter((row) => SITE_KINDS.test(row.label));
      if (message.test(shown) && sites.length === count && accept(sites)) {
        const kinds = [...new Set(sites.map((row) => row.label.match(SITE_KINDS)[1]))].sort();
        return { rows: sites, kinds };
      }
      if (Date.now() > deadline) {
        throw new Error(`the fslens Sites view never showed ${message} with ${count} sites and their kinds: ${shown}\n${JSON.stringify(rows)}`);
      }
      await this.page.waitForTimeout(200);
    }
  }

  /** Runs F#: Check at a scope and returns the verdict notification's text. */
  async check(scope, verdict) {
    await this.clearNotifications();
    await this.runCommand("F#: Check");
    await this.pick(scope);
    return (await this.waitForNotification(new RegExp(`^F# check \\(${scope.toLowerCase()}\\): ${verdict}`))).message;
  }
}

function assert(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

async function scenario(driver) {
  const { page } = driver;
  const onDisk = (relative) => fs.readFileSync(path.join(workspace, relative), "utf8");
  const originalProgram = onDisk("src/Shipping.App/Program.fs");
  const originalVisibility = onDisk("src/Shipping.Domain/Visibility.fs");
  const originalProject = onDisk("src/Shipping.Domain/Shipping.Domain.fsproj");

  // 1. The extension activates on the workspace's .fsproj files and the status bar reaches ready.
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.openFile("src/Shipping.App/Program.fs");
  const ready = await driver.waitForStatusBar(/F# ready/, READY_TIMEOUT_MS);
  log(`status bar: ${ready}`);
  await driver.screenshot("activated-status-ready");
  await driver.assertNoErrorNotification("at start-up");

  // 2. F#: Check, file and workspace, with the verdict in a notification.
  const fileClean = await driver.check("File", "clean");
  await driver.screenshot("check-file-clean");
  const workspaceClean = await driver.check("Workspace", "clean");
  assert(/\d+ files? checked/.test(workspaceClean), `the workspace verdict names no file count: ${workspaceClean}`);
  await driver.screenshot("check-workspace-clean");
  log(`verdicts: ${fileClean} / ${workspaceClean}`);

  // 3. A type error typed into the editor (never saved) is checked as errors, then fixed.
  await driver.goToLine(1, 1);
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("let typedByTheTest: int = 4.5", { delay: 5 });
  await driver.waitForEditorText(/let typedByTheTest: int = 4\.5/);
  await driver.runCommand("View: Focus Problems (Errors, Warnings, Infos)");
  await driver.focusEditor();
  // The verdict on an error is an error notification by design; nothing else may be one.
  driver.expectedErrors = [/^F# check \(file\): 1 error, 0 warnings$/];
  const errors = await driver.check("File", "1 error, 0 warnings");
  await page.locator(".tabs-container .tab.active.dirty").waitFor({ timeout: STEP_TIMEOUT_MS });
  assert(onDisk("src/Shipping.App/Program.fs") === originalProgram, "the unsaved edit reached the disk");
  await page
    .locator(".markers-panel .monaco-list-row", { hasText: "fslens check" })
    .first()
    .waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.screenshot("check-unsaved-type-error");
  log(`verdict on the unsaved error: ${errors}`);
  await driver.goToLine(2, 1);
  await page.keyboard.press("Shift+End");
  await page.keyboard.type("let typedByTheTest: int = 45", { delay: 5 });
  await driver.waitForEditorText(/let typedByTheTest: int = 45/);
  const fixed = await driver.check("File", "clean");
  driver.expectedErrors = [];
  assert(onDisk("src/Shipping.App/Program.fs") === originalProgram, "the unsaved fix reached the disk");
  await driver.screenshot("check-unsaved-fix-clean");
  log(`verdict after the fix: ${fixed}`);
  await driver.runCommand("File: Revert File");
  await page.locator(".tabs-container .tab.active:not(.dirty)").waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.runCommand("View: Hide Panel");

  // 4. Find All Sites for a record field: every site in the fslens Sites view, with its kind.
  await driver.clearNotifications();
  await driver.runCommand("F#: Find All Sites");
  await driver.quickInput().fill("Shipment.Weight");
  await page.keyboard.press("Enter");
  const found = await driver.sitesView(/Find All Sites Shipment\.Weight: 17 sites/, 17);
  assert(found.kinds.length === 6, `find shows these kinds: ${found.kinds}`);
  await driver.screenshot("find-all-sites");
  log(`find: ${found.rows.length} sites, kinds ${found.kinds.join(", ")}`);

  // 5. Field Impact for the same field: the kind and the field's type at every site.
  await driver.runCommand("F#: Field Impact");
  await driver.quickInput().fill("Shipment.Weight");
  await page.keyboard.press("Enter");
  const typedFloat = (rows) => rows.filter((row) => row.label.endsWith(": float"));
  const impact = await driver.sitesView(/Field Impact Shipment\.Weight: 17 sites/, 17, (rows) => typedFloat(rows).length > 0);
  const typed = typedFloat(impact.rows);
  assert(typed.length === 16, `field impact shows the type float at ${typed.length} of 17 sites (the declaration has none)`);
  assert(impact.kinds.length === 6, `field impact shows these kinds: ${impact.kinds}`);
  await driver.screenshot("field-impact");
  log(`field impact: ${impact.rows.length} sites, ${typed.length} typed float, kinds ${impact.kinds.join(", ")}`);

  // 6. Make Internal Visible on `type private Hidden`, exposing it to the test project.
  await driver.clearNotifications();
  await driver.openFile("src/Shipping.Domain/Visibility.fs");
  const hiddenLine = originalVisibility.split("\n").findIndex((line) => line.startsWith("type private Hidden")) + 1;
  await driver.goToLine(hiddenLine, "type private ".length + 2);
  await driver.runCommand("F#: Make Internal Visible");
  const choices = await driver.quickPickLabels();
  log(`expose choices: ${choices.join(", ")}`);
  await driver.screenshot("make-visible-choices");
  // The project list comes from the status the extension cached at start-up, while FSAC was
  // still loading; the ready notification must have refreshed it.
  assert(
    choices[0] === "Only make it internal" && choices[1] === "Shipping.Tests" && choices.includes("Shipping.App"),
    `the expose-to choices are not "Only make it internal", then the test project, then the rest: ${choices}`,
  );
  await driver.pick("Shipping.Tests");
  await driver.waitForNotification(/Shipping\.Domain\.Hidden is internal now/);
  await driver.waitForEditorText(/type internal Hidden/);
  await page.locator(".tabs-container .tab.active.dirty").waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.screenshot("make-visible-edit-in-buffer");
  await driver.openFile("src/Shipping.Domain/Shipping.Domain.fsproj");
  await driver.waitForEditorText(/<InternalsVisibleTo Include="Shipping\.Tests" \/>/);
  await page.locator(".tabs-container .tab.active.dirty").waitFor({ timeout: STEP_TIMEOUT_MS });
  assert(onDisk("src/Shipping.Domain/Visibility.fs") === originalVisibility, "make-visible wrote Visibility.fs to disk");
  assert(onDisk("src/Shipping.Domain/Shipping.Domain.fsproj") === originalProject, "make-visible wrote the .fsproj");
  await driver.screenshot("make-visible-internals-visible-to-in-buffer");

  // 7. Show Status: the status in detail in the fslens output channel.
  await driver.runCommand("F#: Show fslens Status");
  const outputLines = page.locator(".panel .monaco-editor .view-lines").first();
  await outputLines.waitFor({ timeout: STEP_TIMEOUT_MS });
  const outputText = async () => (await outputLines.innerText()).replace(/\u00a0/g, " ");
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!/fslens: ready — workspace loaded: 3 project\(s\), 0 with errors/.test(await outputText())) {
    assert(Date.now() < deadline, `the fslens output never showed the ready status: ${await outputText()}`);
    await page.waitForTimeout(250);
  }
  await driver.screenshot("show-status");

  if (!process.env.FSLENS_PATH) {
    // The extension's log names the fslens it started: the one in the installed package.
    const installed = fs.readdirSync(extensions).find((name) => fs.existsSync(path.join(extensions, name, "bin/fslens")));
    assert(installed, `no installed extension folder in ${extensions} has bin/fslens`);
    const logs = fs
      .readdirSync(path.join(userData, "logs"), { recursive: true })
      .filter((name) => name.endsWith("fslens.log"))
      .map((name) => path.join(userData, "logs", name));
    const started = logs.map((file) => fs.readFileSync(file, "utf8")).join("\n").match(/^starting: (\S+)/m);
    assert(
      started && started[1] === path.join(extensions, installed, "bin/fslens"),
      `the extension did not start its bundled fslens: ${started?.[1] ?? `no "starting:" line in ${logs}`}`,
    );
    log(`fslens ran from the package: ${started[1]}`);
  }

  const seen = await driver.assertNoErrorNotification("during the run");
  log(`notifications in the last steps: ${seen.map((notification) => `${notification.severity}: ${notification.message}`).join(" | ")}`);
}

async function main() {
  prepareDirectories();
  const environment = hostEnvironment();
  installExtension(environment);
  const { child, url } = await startCodeServer(environment);
  let browser;
  let driver;
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addInitScript(recordNotifications);
    const page = await context.newPage();
    driver = new Driver(page);
    await page.goto(url);
    await scenario(driver);
    log("all steps passed");
  } catch (error) {
    if (driver) {
      await driver.screenshot("failure").catch(() => undefined);
    }
    throw error;
  } finally {
    await browser?.close().catch(() => undefined);
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`vscode e2e failed: ${error.stack ?? error}`);
    console.error(`screenshots and code-server.log are in ${out}`);
    process.exit(1);
  },
);
