// What the VS Code end-to-end drivers share (drive.mjs: the extension on its own;
// drive-ionide.mjs: Ionide mode with a stand-in Ionide): the user settings of a quiet
// workbench, the host's environment, installing a .vsix, starting code-server, recording
// notifications, and the Driver that works the workbench through headless Chromium the way a
// user does (the command palette with F1, quick picks, input boxes, the keyboard), writing a
// numbered screenshot per step.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The environment variable `name`, which the driver `script` needs. */
export function required(name, script) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set (see the comment at the top of ${script})`);
  }
  return value;
}

// The double loads the compiler service first; a cold machine needs a while.
export const READY_TIMEOUT_MS = 180_000;
export const STEP_TIMEOUT_MS = 90_000;
// The kinds the extension labels sites with (kindLabel in vscode-extension/src/logic/find.ts).
const SITE_KINDS = /^(construction|copy-and-update|mutation|pattern|read|declaration)\b/;

const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
export const log = (text) => console.log(`   [${seconds()}s] ${text}`);

/** The user settings both drivers start from: a quiet workbench that never saves by itself. */
export function quietSettings() {
  return {
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
  };
}

/**
 * The environment code-server (and so the extension host, fslens and FSAC) runs with: XDG
 * directories of its own under `out`, no FSLENS_FSAC, and, unless `keepFslensOnPath`, no
 * fslens on PATH (only the binary inside the package can be the one that runs).
 */
export function hostEnvironment(out, { keepFslensOnPath = false } = {}) {
  const environment = { ...process.env };
  for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"]) {
    environment[name] = path.join(out, "xdg", name.toLowerCase());
    fs.mkdirSync(environment[name], { recursive: true, mode: 0o700 });
  }
  // The session socket lives in XDG_RUNTIME_DIR, and a Unix socket path must stay under ~108
  // bytes: a directory under a deep checkout's target/ would not fit, so it is a short
  // private one under the system's temporary directory.
  environment.XDG_RUNTIME_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "fslens-e2e-"));
  fs.chmodSync(environment.XDG_RUNTIME_DIR, 0o700);
  delete environment.FSLENS_FSAC;
  if (!keepFslensOnPath) {
    environment.PATH = (environment.PATH ?? "")
      .split(path.delimiter)
      .filter((directory) => directory !== "" && !fs.existsSync(path.join(directory, "fslens")))
      .join(path.delimiter);
  }
  delete environment.VSCODE_IPC_HOOK_CLI;
  return environment;
}

export function installExtension(codeServer, vsix, environment, { extensions, userData }) {
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

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function startCodeServer(codeServer, environment, { out, userData, extensions, workspace }) {
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
export function recordNotifications() {
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

export class Driver {
  constructor(page, out) {
    this.page = page;
    this.out = out;
    this.step = 0;
    /** Error notifications a step asked for (the verdict on a type error), not failures. */
    this.expectedErrors = [];
  }

  async screenshot(name) {
    this.step += 1;
    // Notifications slide in and progress notifications fade out: let them settle.
    await this.page.waitForTimeout(600);
    const file = path.join(this.out, `${String(this.step).padStart(2, "0")}-${name}.png`);
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

  /**
   * F#: Type Hierarchy on `type Shipment` (fixtures/shipping's Types.fs): VS Code's type
   * hierarchy peek, fed by the extension's provider, names the prepared item and shows no
   * subtypes (a record has none). Returns the peek's text.
   */
  async typeHierarchyOfShipment() {
    const page = this.page;
    await this.openFile("src/Shipping.Domain/Types.fs");
    await this.goToLine(10, "type Sh".length);
    await this.waitForEditorText(/type Shipment =/);
    await this.runCommand("F#: Type Hierarchy");
    const hierarchy = page.locator(".peekview-widget", { hasText: "Shipment" }).first();
    await hierarchy.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    let text = "";
    while (!/No subtypes of 'Shipment'/.test((text = (await hierarchy.innerText()).replace(/\s+/g, " ")))) {
      assert(Date.now() < deadline, `the type hierarchy peek shows: ${text}`);
      await page.waitForTimeout(200);
    }
    await this.screenshot("type-hierarchy");
    await page.keyboard.press("Escape");
    return text;
  }

  /**
   * F#: Rename with Preview of the local `direct` in fixtures/shipping's Program.fs to
   * `straight`: the name prefilled, the preview (a document and a quick pick, Apply first, each
   * line before → after), then Apply: the buffer changes, the disk does not; reverted after.
   * Screenshots `<prefix>-preview` and `<prefix>-applied-in-buffer`; returns the preview's rows.
   */
  async renameDirectWithPreview(onDisk, prefix) {
    const page = this.page;
    const program = "src/Shipping.App/Program.fs";
    const original = onDisk(program);
    await this.openFile(program);
    const line = original.split("\n").findIndex((text) => text.includes("let direct: Shipment")) + 1;
    await this.goToLine(line, "    let di".length);
    await this.runCommand("F#: Rename with Preview");
    const nameInput = this.quickInput();
    await nameInput.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while ((await nameInput.inputValue()) !== "direct") {
      assert(Date.now() < deadline, `the new name is not prefilled with the word: ${await nameInput.inputValue()}`);
      await page.waitForTimeout(100);
    }
    await nameInput.fill("straight");
    await page.keyboard.press("Enter");
    const rows = await this.quickPickLabels();
    assert(/Apply: rename direct → straight/.test(rows[0] ?? ""), `the preview does not offer Apply first: ${rows}`);
    assert(rows.some((row) => /Program\.fs:\d+ +let direct: Shipment/.test(row)), `the preview shows no line before: ${rows}`);
    assert(rows.some((row) => /→ let straight: Shipment/.test(row)), `the preview shows no line after: ${rows}`);
    await page.locator(".tabs-container .tab", { hasText: "Rename Preview" }).first().waitFor({ timeout: STEP_TIMEOUT_MS });
    await this.screenshot(`${prefix}-preview`);
    await this.pick("Apply: rename");
    await this.waitForNotification(/Renamed direct → straight/);
    await this.waitForEditorText(/let straight: Shipment/);
    await page.locator(".tabs-container .tab.active.dirty", { hasText: "Program.fs" }).waitFor({ timeout: STEP_TIMEOUT_MS });
    assert(onDisk(program) === original, "the rename wrote Program.fs to disk");
    await this.screenshot(`${prefix}-applied-in-buffer`);
    await this.runCommand("File: Revert File");
    // Program.fs's tab only: the Rename Preview beside it is the active tab of the other group.
    await page
      .locator(".tabs-container .tab.active:not(.dirty)", { hasText: "Program.fs" })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    await this.runCommand("View: Close Editors in Other Groups");
    return rows.join(" | ").slice(0, 300);
  }

  async quickPickLabels() {
    await this.page.locator(".quick-input-widget .monaco-list-row").first().waitFor({ timeout: STEP_TIMEOUT_MS });
    // Visible ones only: a row reused from an earlier quick pick keeps its hidden detail line.
    return this.page.locator(".quick-input-widget .monaco-list-row .label-name:visible").allTextContents();
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

export function assert(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}


/**
 * Opens `url` in headless Chromium and runs `scenario(driver)`; a failure leaves a last
 * screenshot. code-server (`child`) is stopped by its process group at the end.
 */
export async function runInBrowser({ chromiumPath, playwrightCore, out, url, child }, scenario) {
  const { chromium } = createRequire(import.meta.url)(playwrightCore);
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
    driver = new Driver(page, out);
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

/** Ends the driver process: 0 when `run` resolves, else 1 with the error and where to look. */
export function exitWith(run, out) {
  run.then(
    () => process.exit(0),
    (error) => {
      console.error(`vscode e2e failed: ${error.stack ?? error}`);
      console.error(`screenshots and code-server.log are in ${out}`);
      process.exit(1);
    },
  );
}
