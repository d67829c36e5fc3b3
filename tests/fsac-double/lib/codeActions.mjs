// textDocument/codeAction: two of FSAC's diagnostic-triggered fixes, computed
// from the diagnostics the client echoes in `context.diagnostics` and from the
// compiler (shared/fsac-protocol.md §5.7; FSAC src/FsAutoComplete/CodeFixes/
// MakeDeclarationMutable.fs and ReplaceWithSuggestion.fs):
//
// - "Make declaration 'mutable'" (kind "refactor", FSAC's FixKind.Refactor):
//   diagnostics whose code, as a string, is "27". The compiler's declaration
//   location of the identifier at the diagnostic's start must be in the same
//   file; `mutable ` is inserted there.
// - "Replace with '<suggestion>'" (kind "quickfix"): diagnostics whose message
//   contains "Maybe you want one of the following:"; one action per suggestion
//   line of the message, replacing the diagnostic's range.
//
// Like FSAC, fixes run in that order over all echoed diagnostics (ReplaceWithSuggestion
// comes before MakeDeclarationMutable in FSAC's codefix array), and no action
// at all answers `null`.
import fs from 'node:fs';
import { compiler } from './compiler.mjs';
import { identifierAt } from './lexer.mjs';
import { lineOf, declaringFile } from './resolve.mjs';
import { pathOf } from './workspace.mjs';

const SUGGESTIONS_INTRO = 'Maybe you want one of the following:';

/** FCS's PrettyNaming.NormalizeIdentifierBackticks, for the names the compiler suggests. */
const KEYWORDS = new Set(('abstract and as assert base begin class default delegate do done downcast downto elif else end '
  + 'exception extern false finally fixed for fun function global if in inherit inline interface internal lazy let match '
  + 'member module mutable namespace new not null of open or override private public rec return select sig static struct '
  + 'then to true try type upcast use val void when while with yield const').split(' '));
function normalizeBackticks(name) {
  const bare = name.startsWith('``') && name.endsWith('``') && name.length > 4 ? name.slice(2, -2) : name;
  const plain = /^[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_'\u00C0-\uFFFF]*$/.test(bare) && !KEYWORDS.has(bare);
  return plain ? bare : `\`\`${bare}\`\``;
}

function replaceWithSuggestion(diag) {
  if (typeof diag.message !== 'string' || !diag.message.includes(SUGGESTIONS_INTRO)) return [];
  return diag.message.split(/[\n\u001b]/).slice(1)
    .map((s) => s.trim())
    // This FCS version ends the list with a blank line FCS 43.10 does not write;
    // FSAC would offer "Replace with ''" for it, the double skips blank entries.
    .filter((s) => s !== '')
    .map((s) => normalizeBackticks(s))
    .map((s) => ({ title: `Replace with '${s}'`, kind: 'quickfix', diagnostic: diag, edits: [{ range: diag.range, newText: s }] }));
}

/** Is the text before a declaration a `let`/`and` binding head (so `mutable` may go there)? */
const BINDING_HEAD = /(?:^|[\s(;])(?:let|and)(?:\s+(?:rec|inline|private|internal|public))*\s+$/;

async function makeDeclarationMutable(ws, file, diag) {
  if (String(diag.code) !== '27') return [];
  const project = ws.projectFor(file);
  if (!project || !diag.range?.start) return [];
  const text = ws.text(file);
  const lineText = lineOf(text, diag.range.start.line);
  const ident = identifierAt(lineText, diag.range.start.character);
  if (!ident) return [];
  const fcs = await compiler();
  const results = await ws.check(project, file);
  const decl = fcs.declarationAt(results, diag.range.start.line + 1, ident.end, lineText);
  if (!decl) return [];
  const declFile = await declaringFile(ws, project, decl, ident.name, () => fcs.tooltipAt(results, diag.range.start.line + 1, ident.end, lineText), file);
  if (declFile !== file) return [];
  // FSAC declines curried parameters (IsPositionContainedInACurriedParameter);
  // the double only offers the fix for `let`/`and` bindings (see README).
  const before = lineOf(text, decl.StartLine - 1).slice(0, decl.StartColumn);
  if (!BINDING_HEAD.test(before)) return [];
  const at = { line: decl.StartLine - 1, character: decl.StartColumn };
  return [{ title: "Make declaration 'mutable'", kind: 'refactor', diagnostic: diag, edits: [{ range: { start: at, end: at }, newText: 'mutable ' }] }];
}

/** The code actions FSAC would answer, or null when there are none. */
export async function codeActions(ws, params, clientCaps) {
  const uri = params.textDocument.uri;
  const file = pathOf(uri);
  const diags = params.context?.diagnostics ?? [];
  const fixes = [];
  for (const d of diags) fixes.push(...replaceWithSuggestion(d));
  for (const d of diags) fixes.push(...await makeDeclarationMutable(ws, file, d));
  if (fixes.length === 0) return null;
  const doc = ws.documents.get(file);
  // Version as FSAC's GetOpenFileOrRead: the open version, 0 for a file read from disk.
  // (omitted when neither: FSAC's serializer drops the None).
  const version = doc ? doc.version : fs.existsSync(file) ? 0 : undefined;
  const documentChanges = clientCaps?.workspace?.workspaceEdit?.documentChanges === true;
  return fixes.map((f) => ({
    title: f.title,
    kind: f.kind,
    diagnostics: [f.diagnostic],
    edit: documentChanges
      ? { documentChanges: [{ textDocument: version === undefined ? { uri } : { uri, version }, edits: f.edits }] }
      : { changes: { [uri]: f.edits } },
  }));
}
