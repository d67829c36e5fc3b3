// The VS Code extension's end-to-end test of "fslens: Tests of the symbol under the cursor":
// the packaged .vsix in code-server on a copy of fixtures/editors, built first with the real
// `dotnet build` (FSAC builds nothing), fslens with the FSAC double behind it, driven through
// headless Chromium as a user would: the cursor on `needle`, the command from the palette, the
// quick pick of its two tests (a screenshot), Enter to run them, the notification with the
// totals, Go to Failure (the editor at the failing frame's line) and the failure in the Problems
// view. Then "fslens: Tests affected by my changes" on an unsaved edit of `needle`: the quick
// pick of the same two tests with their reason chains, Enter, the same totals and the failure
// as a problem. scripts/test-editors.sh runs it with the environment drive.mjs takes (CODE_SERVER,
// PLAYWRIGHT_CORE, CHROMIUM, FSLENS_VSIX, FSLENS_E2E_OUT).

import { execFileSync } from "node:child_process";
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

const codeServer = required("CODE_SERVER", "drive-tests.mjs");
const chromiumPath = required("CHROMIUM", "drive-tests.mjs");
const playwrightCore = required("PLAYWRIGHT_CORE", "drive-tests.mjs");
const vsix = path.resolve(required("FSLENS_VSIX", "drive-tests.mjs"));
const out = path.resolve(required("FSLENS_E2E_OUT", "drive-tests.mjs"));

const workspace = path.join(out, "workspace");
const userData = path.join(out, "user-data");
const extensions = path.join(out, "extensions");
const TEST_PROJECT = "tests/Gauges.Xunit/Gauges.Xunit.fsproj";
const TESTS_FILE = "tests/Gauges.Xunit/DialTests.fs";

function prepare() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  fs.cpSync(path.join(repository, "fixtures/editors"), workspace, { recursive: true });
  execFileSync("dotnet", ["build", "--nologo", "-v", "quiet", TEST_PROJECT], { cwd: workspace, stdio: "pipe" });
  const settings = {
    ...quietSettings(),
    "fslens.fsac.command": `dotnet ${path.join(repository, "tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll")}`,
  };
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.writeFileSync(path.join(userData, "User/settings.json"), JSON.stringify(settings, null, 2));
}

/** The 1-based line of the fixture file holding `needle`. */
function lineOf(relative, needle) {
  return fs.readFileSync(path.join(workspace, relative), "utf8").split("\n").findIndex((line) => line.includes(needle)) + 1;
}

async function scenario(driver) {
  const { page } = driver;
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.openFile("src/Gauges/Dial.fs");
  log(`status bar: ${await driver.waitForStatusBar(/F# ready/, READY_TIMEOUT_MS)}`);
  await driver.assertNoErrorNotification("at start-up");

  // The cursor on `needle` in its declaration, then the command from the palette.
  await driver.goToLine(lineOf("src/Gauges/Dial.fs", "let needle"), "let ".length + 2);
  await driver.runCommand("fslens: Tests of the symbol under the cursor");
  const title = page.locator(".quick-input-widget .quick-input-title");
  await title.filter({ hasText: "2 test(s) reach Gauges.Dial.needle (via fsac; complete)" }).waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.quickPickLabels();
  // Each row's first label is the test's name (the detail line is a label of its own).
  const labels = (
    await page
      .locator(".quick-input-widget .monaco-list-row:visible")
      .evaluateAll((rows) => rows.map((row) => row.querySelector(".label-name")?.textContent ?? ""))
  ).sort();
  assert(
    JSON.stringify(labels) === JSON.stringify(["needle doubles the reading", "needle of one points at three"]),
    `the quick pick shows these tests: ${labels}`,
  );
  await driver.screenshot("tests-quick-pick");
  log(`tests quick pick: ${await title.innerText()}: ${labels.join(", ")}`);

  // Enter runs the checked tests (both start checked); one fails on purpose.
  driver.expectedErrors = [/^fslens: Tests: 1 passed, 1 failed/];
  await page.keyboard.press("Enter");
  const totals = await driver.waitForNotification(/^fslens: Tests: \d+ passed, \d+ failed/, READY_TIMEOUT_MS);
  assert(totals.message === "fslens: Tests: 1 passed, 1 failed, 0 skipped, 0 other", `the run's totals: ${totals.message}`);
  await driver.screenshot("tests-run-totals");
  log(`tests run: ${totals.message}`);

  // Go to Failure: the editor at the failing frame's line; the failure is in the Problems view.
  await page.locator(".notification-list-item .monaco-button", { hasText: "Go to Failure" }).first().click();
  await page.locator(".tabs-container .tab.active", { hasText: path.basename(TESTS_FILE) }).waitFor({ timeout: STEP_TIMEOUT_MS });
  const frame = lineOf(TESTS_FILE, "Assert.Equal(3, pointed)");
  await page
    .locator(".statusbar-item", { hasText: new RegExp(`Ln ${frame}, Col 1\\b`) })
    .first()
    .waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.runCommand("View: Focus Problems (Errors, Warnings, Infos)");
  const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "needle of one points at three" }).first();
  await problem.waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.screenshot("tests-failure-at-frame");
  log(`tests failure: line ${frame} of ${TESTS_FILE}; problem: ${(await problem.innerText()).replace(/\s+/g, " ").slice(0, 160)}`);
  await driver.assertNoErrorNotification("during the run");

  // fslens: Tests affected by my changes, on an unsaved edit of needle's body: the quick pick
  // of its two tests, each with the reason (the chain from needle) as its detail; Enter runs
  // them (the build on disk: one fails on purpose) and the failure is a problem again, with its reason.
  await driver.clearNotifications();
  await driver.openFile("src/Gauges/Dial.fs");
  const needleLine = lineOf("src/Gauges/Dial.fs", "let needle");
  await driver.goToLine(needleLine, "let needle reading = reading * 2".length + 1);
  await page.keyboard.type(" + 0");
  await page.locator(".tabs-container .tab.active.dirty", { hasText: "Dial.fs" }).waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.runCommand("fslens: Tests affected by my changes");
  await driver.pick("My changes");
  await title
    .filter({ hasText: "2 test(s) reached by the change (unsaved buffers; complete)" })
    .waitFor({ timeout: READY_TIMEOUT_MS });
  const affected = (
    await page
      .locator(".quick-input-widget .monaco-list-row:visible")
      .evaluateAll((rows) => rows.map((row) => row.querySelector(".label-name")?.textContent ?? ""))
  ).sort();
  assert(
    JSON.stringify(affected) === JSON.stringify(["needle doubles the reading", "needle of one points at three"]),
    `the affected tests quick pick shows these tests: ${affected}`,
  );
  const reason = `body changed: needle (src/Gauges/Dial.fs:${needleLine}) → needle of one points at three (${TESTS_FILE}:${lineOf(TESTS_FILE, "``needle of one points at three``")})`;
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: reason }).first().waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.screenshot("affected-tests-quick-pick");
  log(`affected tests quick pick: ${await title.innerText()}: ${reason}`);
  await page.keyboard.press("Enter");
  const affectedTotals = await driver.waitForNotification(/^fslens: Tests: \d+ passed, \d+ failed/, READY_TIMEOUT_MS);
  assert(
    affectedTotals.message === "fslens: Tests: 1 passed, 1 failed, 0 skipped, 0 other",
    `the affected tests' run totals: ${affectedTotals.message}`,
  );
  await driver.runCommand("View: Focus Problems (Errors, Warnings, Infos)");
  // The problem carries the reason its test was selected.
  await page
    .locator(".markers-panel .monaco-list-row", { hasText: `(selected because ${reason})` })
    .first()
    .waitFor({ timeout: STEP_TIMEOUT_MS });
  await driver.screenshot("affected-tests-run");
  log(`affected tests run: ${affectedTotals.message}`);
  await driver.assertNoErrorNotification("during the affected tests' run");
}

async function main() {
  prepare();
  const environment = hostEnvironment(out, { keepFslensOnPath: false });
  installExtension(codeServer, vsix, environment, { extensions, userData });
  const { child, url } = await startCodeServer(codeServer, environment, { out, userData, extensions, workspace });
  await runInBrowser({ chromiumPath, playwrightCore, out, url, child }, scenario);
}

exitWith(main(), out);
