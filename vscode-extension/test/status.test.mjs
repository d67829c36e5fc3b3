import assert from "node:assert/strict";
import { test } from "node:test";
import { logic, recorded } from "./helpers.mjs";

const { statusPresentation, mergeStatus, projectNames, needsFullStatus, StatusTracker } = logic("status");
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

test("an answer to fslens.status never hides a notification that arrived after the request went out", () => {
  const tracker = new StatusTracker();
  tracker.reset({ state: "starting", reason: "fslens is starting" });
  // The request goes out while FSAC loads; fslens answers "loading", but the "ready"
  // notification it sent afterwards is handled before the answer's continuation runs.
  const sent = tracker.requested();
  tracker.notified({ state: "ready", reason: null, projectsLoaded: ["/w/A.fsproj"] });
  tracker.answered(sent, { state: "loading", reason: "FSAC is loading 1 project(s)", workspaceRoot: "/w", projectsLoaded: [] });
  assert.equal(statusPresentation(tracker.current).label, "ready");
  assert.deepEqual(tracker.current.projectsLoaded, ["/w/A.fsproj"]);
  assert.equal(tracker.current.workspaceRoot, "/w", "what only the answer knew is kept");
  // An answer to a request sent after the last notification is the newest word.
  const later = tracker.requested();
  tracker.answered(later, { state: "loading", reason: "FSAC restarted" });
  assert.equal(statusPresentation(tracker.current).label, "loading");
  // An answer from before a fresh start (a stopped client) is dropped.
  const old = tracker.requested();
  tracker.reset({ state: "starting", reason: "fslens is starting" });
  tracker.answered(old, { state: "ready" });
  assert.equal(statusPresentation(tracker.current).label, "starting");
});
