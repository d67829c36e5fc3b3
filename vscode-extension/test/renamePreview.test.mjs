// fslens.rename previews (recorded on fixtures/rename) as rows: INCOMPLETE and the missed
// sites first, then each file's lines before → after.
import assert from "node:assert/strict";
import { test } from "node:test";
import { logic, recorded, ROOT } from "./helpers.mjs";

const { renameArguments, renamePreview, renameAppliedOutcome } = logic("renamePreview");

test("the preview, then the same rename applied in the editor; an empty name is refused", () => {
  const request = { path: "/w/T.fs", line: 2, character: 4, newName: "Amount" };
  assert.deepEqual(renameArguments(request), { path: "/w/T.fs", line: 2, character: 4, newName: "Amount", apply: false });
  assert.equal(renameArguments(request, "editor").apply, "editor");
  assert.throws(() => renameArguments({ ...request, newName: "  " }), /new name is empty/);
});

test("a complete preview (recorded): apply first, each line before → after, no INCOMPLETE", () => {
  const answer = recorded("rename-complete");
  const preview = renamePreview(answer, ROOT);
  assert.equal(preview.complete, true);
  assert.equal(preview.title, "F#: Rename Total → Amount: 5 edits in 3 files");
  assert.equal(preview.rows[0].kind, "apply");
  assert.ok(!preview.rows.some((row) => row.kind === "incomplete" || row.kind === "missed"));
  const edits = preview.rows.filter((row) => row.kind === "edit");
  assert.equal(edits.length, answer.files.flatMap((file) => file.lines).length);
  const signature = edits.find((row) => row.path === "/workspace/Billing/Types.fsi");
  assert.match(signature.label, /^Billing\/Types\.fsi:\d+ {2}.*Total: decimal/);
  assert.match(signature.detail, /^→ .*Amount: decimal/);
  assert.doesNotMatch(preview.text, /INCOMPLETE/);
});

test("an incomplete preview (recorded): INCOMPLETE and the missed .fsi site before the edits", () => {
  const preview = renamePreview(recorded("rename-incomplete"), ROOT);
  assert.equal(preview.complete, false);
  assert.match(preview.title, /orderTotal → totalOf: 2 edits in 2 files — INCOMPLETE$/);
  const kinds = preview.rows.map((row) => row.kind);
  assert.deepEqual(kinds, ["apply", "incomplete", "missedHeader", "missed", "fileHeader", "edit", "fileHeader", "edit"]);
  assert.match(preview.rows[1].description, /1 site fslens\.find has that FSAC's rename misses/);
  const missed = preview.rows[3];
  assert.equal(missed.label, "MISSED Billing/Types.fsi:7");
  assert.equal(missed.detail, "val orderTotal: order: Order -> decimal");
  assert.equal(missed.path, "/workspace/Billing/Types.fsi");
  assert.deepEqual(missed.range.start, { line: 6, character: 4 });
  assert.equal(preview.rows[5].label, "Billing/Types.fs:7  let orderTotal (order: Order) = order.Total");
  assert.equal(preview.rows[5].detail, "→ let totalOf (order: Order) = order.Total");
  assert.match(preview.text, /INCOMPLETE/);
  assert.match(preview.text, /MISSED Billing\/Types\.fsi:7/);
});

test("the apply answer: applied (complete or not), or refused with the editor's reason", () => {
  const complete = recorded("rename-complete");
  assert.equal(renameAppliedOutcome({ ...complete, applied: { mode: "editor", applied: true } }).level, "info");
  const incomplete = renameAppliedOutcome({ ...recorded("rename-incomplete"), applied: { mode: "editor", applied: true } });
  assert.equal(incomplete.level, "warning");
  assert.match(incomplete.text, /INCOMPLETE: 1 missed site/);
  const refused = renameAppliedOutcome({ ...complete, applied: { mode: "editor", applied: false, failureReason: "no applyEdit" } });
  assert.deepEqual(refused, { level: "error", text: "Rename Total → Amount was not applied: no applyEdit" });
});
