// textDocument/signatureHelp as FSAC answers it (SignatureHelp.getSignatureHelpFor and the
// handler in AdaptiveFSharpLspServer.fs). FSAC looks at the character before the caret (or
// the trigger character): a space after anything but `,` `(` `<` means a curried function
// application `f a b` — one signature, one parameter per curried group, the active one the
// argument under or after the caret, else the next one to write; anything else means a
// parenthesised argument list `M(a, b)` — every overload of the method, the active parameter
// counted by commas, the active signature the first overload with that many parameters.
// The application's shape comes from the text (applications.mjs); the function, its
// overloads, parameters and documentation from the compiler's tooltips.
import { ResponseError } from 'vscode-languageserver/node';
import { resolveAt, lineOf } from './resolve.mjs';
import { lineStarts, offsetToPosition } from './lexer.mjs';
import { applicationEndingAt, argumentListAround } from './applications.mjs';
import {
  describeSignature, curriedGroups, isParenthesisedFunction, parameterOf, tupleElements, dotnetParameters,
} from './typeText.mjs';

// FSAC's handler maps its string errors to InternalError (Common.fs `ofStringErr`).
const INTERNAL_ERROR = -32603;
const PIPELINE_ARGUMENTS = { '|>': 1, '||>': 2, '|||>': 3 };

/** What the compiler says of the identifier ending at `end` of `line0`: resolveAt's answer, when it has a signature. */
async function symbolEndingAt(ws, ctx, line0, end) {
  const r = await resolveAt(ws, ctx.project, ctx.file, { line: line0, character: end });
  return r?.tip.signature ? r : null;
}

/** FSAC's SignatureInformation for one signature. */
function signatureInformation(tip, parameters) {
  return {
    label: tip.signature,
    documentation: { kind: 'markdown', value: tip.docs.join('\n') },
    parameters,
  };
}

/** `[<Optional; DefaultParameterValue(null)>] x: obj` → `x: obj = null` (TipFormatter.cleanParameterDisplay). */
function cleanParameterDisplay(display) {
  const attribute = /\[<[^\]]*>\]/.exec(display);
  if (!attribute) return display;
  const value = /DefaultParameterValue\(([^)]*)\)/.exec(attribute[0]);
  return display.slice(attribute.index + attribute[0].length).trimStart() + (value ? ` = ${value[1]}` : '');
}

// ---- curried function application ----------------------------------------------------------

/** FSAC's parameter per curried group: `name`/type, or `(a, b)`/`(int * string)` for a tupled group. */
function curriedParameter(group) {
  const elements = tupleElements(group).map(parameterOf);
  if (elements.length === 1) return { label: elements[0].name, ...(elements[0].type ? { documentation: elements[0].type } : {}) };
  if (elements.length === 0) return { label: '', documentation: group.trim() };
  return { label: `(${elements.map((e) => e.name).join(', ')})`, documentation: `(${elements.map((e) => e.type).join(' * ')})` };
}

async function functionApplication(ws, ctx, caret, previousEnd) {
  const text = ws.text(ctx.file);
  const lineText = lineOf(text, previousEnd.line);
  const application = applicationEndingAt(lineText, previousEnd.character);
  if (!application || application.head.kind !== 'ident' || application.head.indexed) return null;
  const symbol = await symbolEndingAt(ws, ctx, previousEnd.line, application.head.end);
  if (!symbol) return null;
  // FSAC: a function or method (not a property or operator) with curried parameter groups.
  const described = describeSignature(symbol.tip.signature);
  if (described.kind !== 'value' || /^\(/.test(described.name) || isParenthesisedFunction(described.type)) return null;
  const { groups } = curriedGroups(described.type);
  if (groups.length === 0) return null;
  const args = application.args.map((a) => ({ start: a.start, end: a.end }));
  if (groups.length < args.length) return null;
  const applied = PIPELINE_ARGUMENTS[application.before] ?? 0;
  // Positions on the application's line; FCS ranges contain both ends.
  const at = caret.line === previousEnd.line ? caret.character : null;
  let index = at === null ? -1 : args.findIndex((a) => a.start <= at && at <= a.end);
  if (index < 0 && at !== null) index = args.findIndex((a) => a.start >= at);
  if (index < 0) {
    if (groups.length - applied > args.length) index = args.length;
    else return null;
  }
  return {
    signatures: [signatureInformation(symbol.tip, groups.map(curriedParameter))],
    activeParameter: index,
  };
}

// ---- parenthesised argument list --------------------------------------------------------------

/** Parameters of one overload as the compiler prints it, or null when it takes none. */
function methodParameters(signature) {
  const dotnet = dotnetParameters(signature);
  let elements;
  if (dotnet) elements = dotnet;
  else {
    const described = describeSignature(signature);
    if (!['value', 'constructor', 'unionCase'].includes(described.kind)) return null;
    const { groups } = curriedGroups(described.type ?? '');
    elements = groups.length ? tupleElements(groups[0]) : [];
  }
  const parameters = elements.map((e) => {
    const p = parameterOf(e.replace(/^(?:\[<[^\]]*>\]\s*)+/, ''));
    return { label: p.name, documentation: cleanParameterDisplay(e.trim()) };
  });
  return parameters.length ? parameters : null;
}

const indentOf = (line) => line.length - line.trimStart().length;

/**
 * The overloads of a method declared in the sources: every member of the same name in the
 * declaring type's block whose tooltip names the same member, in declaration order. A method
 * of a referenced assembly gives only the overload the compiler resolved at the call.
 */
async function overloadsOf(ws, ctx, symbol) {
  const described = describeSignature(symbol.tip.signature);
  if (!symbol.decl || described.kind !== 'value' || !/\bmember\b/.test(described.keywords ?? '')) return [symbol.tip];
  const declFile = symbol.decl.file;
  const lines = ws.text(declFile).split('\n');
  const declLine = symbol.decl.range.StartLine - 1;
  let typeLine = declLine - 1;
  while (typeLine >= 0 && !(/^\s*(?:type|and)\b/.test(lines[typeLine]) && indentOf(lines[typeLine]) < indentOf(lines[declLine]))) typeLine--;
  if (typeLine < 0) return [symbol.tip];
  const memberName = new RegExp(`^\\s*(?:static\\s+)?(?:member|override|default)\\s+(?:[\\w']+\\.)?(${symbol.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})\\b`);
  const project = ws.projectFor(declFile) ?? ctx.project;
  const found = [];
  for (let i = typeLine + 1; i < lines.length; i++) {
    if (lines[i].trim() && indentOf(lines[i]) <= indentOf(lines[typeLine])) break;
    const m = memberName.exec(lines[i]);
    if (!m) continue;
    const there = await resolveAt(ws, project, declFile, { line: i, character: m.index + m[0].length - 1 });
    const sibling = there?.tip.signature && describeSignature(there.tip.signature);
    if (sibling?.name === described.name && !found.some((t) => t.signature === there.tip.signature)) found.push(there.tip);
  }
  return found.length ? found : [symbol.tip];
}

async function methodCall(ws, ctx, caret, triggerCharacter) {
  const text = ws.text(ctx.file);
  const starts = lineStarts(text);
  const caretOffset = starts[caret.line] + caret.character;
  const list = argumentListAround(text, caretOffset);
  if (!list) return null;
  // A trigger character pops the help up only at the list's own `(` or one of its commas.
  if (['(', ',', '<'].includes(triggerCharacter)) {
    const structural = [list.open, ...list.commas];
    if (triggerCharacter === '<' || !structural.includes(caretOffset - 1)) return null;
  }
  const name = offsetToPosition(starts, list.name);
  const symbol = await symbolEndingAt(ws, ctx, name.line, name.character);
  if (!symbol) return null;
  const overloads = [];
  for (const tip of await overloadsOf(ws, ctx, symbol)) {
    const parameters = methodParameters(tip.signature);
    if (parameters) overloads.push(signatureInformation(tip, parameters));
  }
  if (overloads.length === 0) return null;
  const activeParameter = list.commas.length;
  const activeSignature = overloads.findIndex((o) => o.parameters.length >= activeParameter + 1);
  return { signatures: overloads, ...(activeSignature >= 0 ? { activeSignature } : {}), activeParameter };
}

// ---- the request ----------------------------------------------------------------------------------

/** The character before offset `at` of `text` and where it is, skipping nothing. */
const charBefore = (text, at) => (at > 0 ? text[at - 1] : undefined);

export async function signatureHelp(ws, ctx, position, context) {
  const text = ws.text(ctx.file);
  const starts = lineStarts(text);
  const caretOffset = (starts[position.line] ?? text.length) + position.character;
  // FSAC: the previous non-blank character, looking back from two characters before the caret.
  let previous = caretOffset - 2;
  while (previous >= 0 && /\s/.test(text[previous])) previous--;
  if (previous < 0) throw new ResponseError(INTERNAL_ERROR, "Couldn't find previous non-whitespace char");
  const trigger = typeof context?.triggerCharacter === 'string' ? context.triggerCharacter : undefined;
  const charAtCaret = trigger ?? (position.character > 0 ? charBefore(text, caretOffset) : undefined);
  if (charAtCaret === undefined) throw new ResponseError(INTERNAL_ERROR, "Couldn't find a trigger char");
  const previousChar = text[previous];
  if (charAtCaret === ' ' && ![',', '(', '<'].includes(previousChar)) {
    return functionApplication(ws, ctx, position, offsetToPosition(starts, previous + 1));
  }
  return methodCall(ws, ctx, position, trigger);
}
