import assert from "node:assert/strict";
import { test } from "node:test";
import { logic, recorded } from "./helpers.mjs";

const { statusPresentation, mergeStatus, projectNames, needsFullStatus } = logic("status");
const { exposeChoices } = logic("makeVisible");

test("ready (recorded fslens.status with waitUntil ready)", () => {
  const status = recorded("status-ready");
  const shown = statusPresentation(status);
  assert.equal(shown.label, "ready");
  assert.equal(shown.text, "$(check) F# ready");
  assert.equal(shown.severity, "ok");
  assert.match(shown.tooltip, /workspace loaded: 3 project\(s\)/);
  assert.match(shown.tooltip, /Workspace: \/workspace/);
  assert.match(shown.tooltip, /Projects loaded: 3/);
});

test("no FSAC: syntax only (recorded `fslens status --json` with nothing on PATH)", () => {
  const shown = statusPresentation(recorded("status-absent"));
  assert.equal(shown.label, "syntax only");
  assert.equal(shown.severity, "warning");
  assert.match(shown.tooltip, /no FSAC found/);
  assert.match(shown.tooltip, /fslens\.fsac\.command/);
});

test("crashed (recorded status with an FSAC that exits at once)", () => {
  const shown = statusPresentation(recorded("status-crashed"));
  assert.equal(shown.label, "crashed");
  assert.equal(shown.text, "$(error) F# crashed");
  assert.equal(shown.severity, "error");
  assert.match(shown.tooltip, /exited before answering initialize/);
});

test("the recorded fslens/status notifications drive the item: starting, loading …, ready", () => {
  let status;
  const labels = [];
  for (const notification of recorded("status-notifications")) {
    assert.equal(notification.method, "fslens/status");
    status = mergeStatus(status, notification.params);
    labels.push(statusPresentation(status).label);
  }
  assert.equal(labels[0], "starting");
  assert.ok(labels.includes("loading"), labels.join(","));
  assert.equal(labels.at(-1), "ready");
  // A notification keeps what the last full answer knew (projects, root).
  const merged = mergeStatus(recorded("status-ready"), { state: "loading", reason: "FSAC is loading 1 project(s)", unresponsive: true });
  assert.equal(merged.workspaceRoot, "/workspace");
  assert.equal(statusPresentation(merged).label, "loading (unresponsive)");
  assert.equal(statusPresentation(merged).severity, "warning");
});

test("not started, unknown state", () => {
  assert.equal(statusPresentation(undefined).label, "not started");
  assert.equal(statusPresentation({ state: "weird" }).label, "weird");
});

test("project names for the expose-to pick come from the loaded projects", () => {
  assert.deepEqual(projectNames(recorded("status-ready")), ["Shipping.App", "Shipping.Domain", "Shipping.Tests"]);
  assert.deepEqual(projectNames(undefined), []);
});

test("the project list read while loading is refreshed by the notification that says ready", () => {
  // The extension asks fslens.status right after start-up, while FSAC is still loading.
  let status = { state: "loading", reason: "FSAC is loading the workspace", projectsLoaded: [], workspaceRoot: "/workspace" };
  assert.deepEqual(exposeChoices(projectNames(status)).map((choice) => choice.label), ["Only make it internal"]);
  for (const notification of recorded("status-notifications")) {
    status = mergeStatus(status, notification.params);
  }
  assert.equal(status.state, "ready");
  assert.deepEqual(
    exposeChoices(projectNames(status)).map((choice) => choice.label),
    ["Only make it internal", "Shipping.Tests", "Shipping.App", "Shipping.Domain"],
  );
  assert.equal(needsFullStatus(recorded("status-notifications").at(-1).params), false);
});

test("an fslens whose ready notification has no project list gets a full status asked", () => {
  assert.equal(needsFullStatus({ state: "ready", reason: "workspace loaded", generation: 1 }), true);
  assert.equal(needsFullStatus({ state: "loading", generation: 1 }), false);
});
