import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { applyEdits, logic, recorded, repository } from "./helpers.mjs";

const { makeVisibleArguments, exposeChoices, textEdits, makeVisibleOutcome, ONLY_INTERNAL } = logic("makeVisible");
const { projectNames } = logic("status");
const { describeError } = logic("common");

const visibility = readFileSync(join(repository, "fixtures/shipping/src/Shipping.Domain/Visibility.fs"), "utf8");
const domainProject = readFileSync(join(repository, "fixtures/shipping/src/Shipping.Domain/Shipping.Domain.fsproj"), "utf8");

test("arguments at the cursor, with and without a project to expose to", () => {
  assert.deepEqual(makeVisibleArguments({ path: "/w/V.fs", line: 16, character: 13 }), { path: "/w/V.fs", line: 16, character: 13 });
  assert.deepEqual(makeVisibleArguments({ path: "/w/V.fs", line: 1, character: 2, exposeTo: "Tests", apply: true }), {
    path: "/w/V.fs",
    line: 1,
    character: 2,
    exposeTo: "Tests",
    apply: true,
  });
});

test("the expose-to pick: none first, test projects before the others (recorded status)", () => {
  const choices = exposeChoices(projectNames(recorded("status-ready")));
  assert.deepEqual(
    choices.map((c) => [c.label, c.exposeTo]),
    [
      [ONLY_INTERNAL, undefined],
      ["Shipping.Tests", "Shipping.Tests"],
      ["Shipping.App", "Shipping.App"],
      ["Shipping.Domain", "Shipping.Domain"],
    ],
  );
});

test("a private type (recorded): one edit that turns the line internal", () => {
  const result = recorded("make-visible-ok");
  const edits = textEdits(result.edits);
  assert.equal(edits.length, 1);
  assert.equal(edits[0].uri, "file:///workspace/src/Shipping.Domain/Visibility.fs");
  const after = applyEdits(visibility, edits);
  assert.equal(after.split("\n")[16], "type internal Hidden = { Code: int }");
  assert.equal(after.split("\n")[16], result.appliedPreview);
  assert.equal(after.replace("type internal Hidden", "type private Hidden"), visibility, "nothing else changed");
  assert.deepEqual(makeVisibleOutcome(result), {
    level: "info",
    text: "Shipping.Domain.Hidden is internal now",
    applyLocally: true,
  });
});

test("with exposeTo (recorded): the member edit and InternalsVisibleTo in the project", () => {
  const result = recorded("make-visible-expose");
  const edits = textEdits(result.edits);
  const byUri = {};
  for (const e of edits) (byUri[e.uri] ??= []).push(e);
  const member = applyEdits(visibility, byUri["file:///workspace/src/Shipping.Domain/Visibility.fs"]);
  assert.equal(member.split("\n")[25], "    member internal this.Check() = balance >= 0");
  const project = applyEdits(domainProject, byUri["file:///workspace/src/Shipping.Domain/Shipping.Domain.fsproj"]);
  assert.match(project, /<InternalsVisibleTo Include="Shipping\.Tests" \/>/);
  assert.ok(project.trimEnd().endsWith("</Project>"));
  const outcome = makeVisibleOutcome(result);
  assert.equal(outcome.level, "info");
  assert.match(outcome.text, /Shipping\.Domain\.Account\.Check is internal now \(adds InternalsVisibleTo "Shipping\.Tests"/);
});

test("a comment (recorded): no_action with the reason, nothing to apply", () => {
  const result = recorded("make-visible-no-action");
  assert.deepEqual(textEdits(result.edits), []);
  const outcome = makeVisibleOutcome(result);
  assert.equal(outcome.level, "warning");
  assert.equal(outcome.applyLocally, false);
  assert.match(outcome.text, /no declaration at this position/);
});

test("applied by fslens through workspace/applyEdit, or refused by the editor", () => {
  const ok = recorded("make-visible-ok");
  assert.equal(makeVisibleOutcome({ ...ok, applied: { applied: true } }).applyLocally, false);
  const refused = makeVisibleOutcome({ ...ok, applied: { applied: false, failureReason: "read-only" } });
  assert.equal(refused.level, "warning");
  assert.match(refused.text, /read-only/);
});

test("a missing argument (recorded JSON-RPC error) is described with its errorKind", () => {
  const { error } = recorded("make-visible-invalid-argument");
  assert.equal(describeError(error), "invalid argument `line`: required [invalid_argument]");
  assert.equal(describeError({ message: "no", data: { errorKind: "fsac_unavailable", state: "crashed" } }), "no (FsAutoComplete is not available: crashed)");
  assert.equal(describeError({ message: "x", data: { errorKind: "cancelled" } }), "cancelled");
  assert.equal(describeError(new Error("plain")), "plain");
});

test("documentChanges edits are read too", () => {
  const edits = textEdits({
    documentChanges: [{ textDocument: { uri: "file:///a.fs", version: 3 }, edits: [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 7 } }, newText: "internal" }] }],
  });
  assert.deepEqual(edits, [{ uri: "file:///a.fs", range: { start: { line: 1, character: 0 }, end: { line: 1, character: 7 } }, newText: "internal" }]);
});
