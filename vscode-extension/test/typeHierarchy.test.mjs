// fslens.typeHierarchy answers (recorded on fixtures/implementations) as type hierarchy items.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { logic, recorded, repository } from "./helpers.mjs";

const { typeHierarchyArguments, typeItem, supertypeItems, subtypeItems, urisToRead } = logic("typeHierarchy");

/** The recorded workspace is /workspace: its files are the fixture's. */
const linesOf = (uri) => {
  const prefix = "file:///workspace/";
  if (!uri.startsWith(prefix)) return undefined;
  return readFileSync(join(repository, "fixtures/implementations", uri.slice(prefix.length)), "utf8").split("\n");
};
const at = (line, character) => ({ line, character });
const span = (line, start, end) => ({ start: at(line, start), end: at(line, end) });

test("arguments at the cursor, with a deadline only when given", () => {
  assert.deepEqual(typeHierarchyArguments({ path: "/w/S.fs", line: 2, character: 5 }), { path: "/w/S.fs", line: 2, character: 5 });
  assert.deepEqual(typeHierarchyArguments({ path: "/w/S.fs", line: 2, character: 5, timeoutMs: 1000 }).timeoutMs, 1000);
});

test("the interface (recorded): its item, and its subtypes in two projects at their own names", () => {
  const answer = recorded("type-hierarchy-interface");
  const item = typeItem(answer);
  assert.deepEqual(
    { name: item.name, uri: item.uri, selectionRange: item.selectionRange, expandable: item.expandable },
    { name: "IShape", uri: "file:///workspace/Shapes/Shapes.fs", selectionRange: span(2, 5, 11), expandable: true },
  );
  assert.deepEqual(supertypeItems(answer, linesOf), []);
  const subtypes = subtypeItems(answer, linesOf).map((s) => [s.name, s.kind, s.uri.replace("file:///workspace/", ""), s.selectionRange.start.line, s.expandable]);
  assert.deepEqual(subtypes.sort(), [
    ["Circle", "class", "Plugins/Plugins.fs", 4, true],
    ["Square", "class", "Shapes/Shapes.fs", 9, true],
    ["{ new … } in unitShape", "object", "Plugins/Plugins.fs", 10, false],
  ]);
  // A type is selected at its own name, where fslens answers its own hierarchy.
  const square = subtypeItems(answer, linesOf).find((s) => s.name === "Square");
  assert.deepEqual(square.selectionRange, span(9, 5, 11));
  assert.deepEqual(urisToRead(answer).sort(), ["file:///workspace/Plugins/Plugins.fs", "file:///workspace/Shapes/Shapes.fs"]);
});

test("the class (recorded): its supertype at the interface's declaration, named from the inherit line", () => {
  const answer = recorded("type-hierarchy-class");
  assert.equal(typeItem(answer).name, "Square");
  const [supertype, ...rest] = supertypeItems(answer, linesOf);
  assert.equal(rest.length, 0);
  assert.equal(supertype.name, "IShape");
  assert.equal(supertype.uri, "file:///workspace/Shapes/Shapes.fs");
  assert.deepEqual(supertype.selectionRange, span(2, 5, 11), "the declaration, not the `interface IShape with` line");
  assert.equal(supertype.expandable, true);
  assert.deepEqual(subtypeItems(answer, linesOf), []);
});

test("without the files' text or a declaration: rows at their own place, not expandable", () => {
  const answer = {
    type: { name: "T", uri: "file:///a.fs", range: span(0, 5, 6) },
    supertypes: [{ uri: "file:///a.fs", range: span(1, 14, 20) }],
    subtypes: [{ uri: "file:///b.fs", range: span(3, 14, 15), kind: "type" }],
  };
  const none = () => undefined;
  const [supertype] = supertypeItems(answer, none);
  assert.equal(supertype.expandable, false);
  assert.match(supertype.detail, /no source declaration/);
  const [subtype] = subtypeItems(answer, none);
  assert.deepEqual([subtype.name, subtype.expandable, subtype.selectionRange], ["(a subtype)", false, span(3, 14, 15)]);
  assert.equal(typeItem({}), undefined);
});
