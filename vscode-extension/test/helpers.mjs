// Loads recorded fslens answers (test/recorded, written by tests/it/editors_recordings.rs) and
// the compiled logic modules (out/logic, built by `tsc`).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const ROOT = "/workspace";
export const repository = join(here, "..", "..");

export function logic(name) {
  return require(join(here, "..", "out", "logic", name + ".js"));
}

export function recorded(name) {
  return JSON.parse(readFileSync(join(here, "recorded", name + ".json"), "utf8"));
}

export function hasRecorded(name) {
  return existsSync(join(here, "recorded", name + ".json"));
}

export function contract(name) {
  return JSON.parse(readFileSync(join(here, "contract", name + ".json"), "utf8"));
}

/** Applies LSP text edits (UTF-16 positions; non-overlapping) to a text. */
export function applyEdits(text, edits) {
  const lines = text.split("\n");
  const offset = (position) => {
    let at = 0;
    for (let line = 0; line < position.line; line++) {
      at += lines[line].length + 1;
    }
    return at + position.character;
  };
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const edit of sorted) {
    text = text.slice(0, offset(edit.range.start)) + edit.newText + text.slice(offset(edit.range.end));
  }
  return text;
}
