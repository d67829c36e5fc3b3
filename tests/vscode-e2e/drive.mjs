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

const codeServer = required("CODE_SERVER", "drive.mjs");
const chromiumPath = required("CHROMIUM", "drive.mjs");
const playwrightCore = required("PLAYWRIGHT_CORE", "drive.mjs");
const vsix = path.resolve(required("FSLENS_VSIX", "drive.mjs"));
const out = path.resolve(required("FSLENS_E2E_OUT", "drive.mjs"));

const workspace = path.join(out, "workspace");
const userData = path.join(out, "user-data");
const extensions = path.join(out, "extensions");

function prepareDirectories() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  fs.cpSync(path.join(repository, "fixtures/shipping"), workspace, { recursive: true });
  const settings = {
    ...quietSettings(),
    "fslens.fsac.command": `dotnet ${path.join(repository, "tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll")}`,
    ...(process.env.FSLENS_PATH ? { "fslens.path": process.env.FSLENS_PATH } : {}),
  };
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.writeFileSync(path.join(userData, "User/settings.json"), JSON.stringify(settings, null, 2));
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

  // 6. F#: Type Hierarchy on a record type: VS Code's own type hierarchy peek, fed by the
  // extension's provider (fslens.typeHierarchy), shows the type.
  await driver.clearNotifications();
  log(`type hierarchy: ${await driver.typeHierarchyOfShipment()}`);

  // 7. F#: Rename with Preview of a local: the preview (a read-only document and a quick pick,
  // Apply first, each line before → after), then Apply: the buffer changes, the disk does not.
  log(`rename preview: ${await driver.renameDirectWithPreview(onDisk, "rename")}`);

  // 8. Make Internal Visible on `type private Hidden`, exposing it to the test project.
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

  // 9. Show Status: the status in detail in the fslens output channel.
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
  const environment = hostEnvironment(out, { keepFslensOnPath: Boolean(process.env.FSLENS_PATH) });
  installExtension(codeServer, vsix, environment, { extensions, userData });
  const { child, url } = await startCodeServer(codeServer, environment, { out, userData, extensions, workspace });
  await runInBrowser({ chromiumPath, playwrightCore, out, url, child }, scenario);
}

exitWith(main(), out);
