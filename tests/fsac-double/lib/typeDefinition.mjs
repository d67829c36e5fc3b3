// textDocument/typeDefinition as FSAC answers it (ParseAndCheckResults.TryFindTypeDeclaration):
// the declaration of the symbol's type. FSAC takes the symbol's FCS type by kind — a field's
// type, a constructor's declaring type, a value's or function's full type, a union case's
// union, a parameter's type, an entity itself — and its type definition; function, tuple and
// anonymous-record types and type parameters have none ("No type information …"). Here the
// compiler's tooltip says which kind of symbol it is and prints its type; the type's name is
// then resolved by the compiler in the position's own scope (typeProbe.mjs).
import { ResponseError } from 'vscode-languageserver/node';
import { resolveAt, toLspRange } from './resolve.mjs';
import { describeSignature, curriedGroups, isFunctionType, namedType } from './typeText.mjs';
import { resolveTypeName } from './typeProbe.mjs';

// FSAC's handler maps its string errors to InternalError (Common.fs `ofStringErr`).
const INTERNAL_ERROR = -32603;
const NO_TYPE_INFORMATION = 'No type information for the symbol at this location';

/** The printed type whose definition FSAC looks up for a symbol of this kind, or null. */
function typeLookedUp(symbol) {
  switch (symbol.kind) {
    case 'unionCase': // FSharpUnionCase.ReturnType: the union
    case 'constructor': // the constructor's DeclaringEntity: the type it constructs
      return curriedGroups(symbol.type).result;
    case 'field':
    case 'property':
    case 'parameter':
    case 'value':
      return isFunctionType(symbol.type) ? null : symbol.type;
    default:
      return null;
  }
}

/** A Location for the declaration {file, range} in FSAC's shape. */
const locationOf = (ws, decl) => ({ uri: ws.uriFor(decl.file), range: toLspRange(decl.range) });

/**
 * The symbol as the compiler prints it at its declaration, with the scope that printing is
 * relative to; FCS's field and value types are the declared ones (`'T` for a generic field,
 * where a use prints the instantiation). Null when the declaration is not in the sources.
 */
async function declaredSymbol(ws, ctx, decl, kind) {
  const project = ws.projectFor(decl.file) ?? ctx.project;
  const position = { line: decl.range.StartLine - 1, character: decl.range.StartColumn };
  const there = await resolveAt(ws, project, decl.file, position);
  const symbol = there?.tip.signature ? describeSignature(there.tip.signature) : null;
  return symbol?.kind === kind ? { symbol, ctx: { file: decl.file, project }, line0: position.line } : null;
}

export async function typeDefinition(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r) throw new ResponseError(INTERNAL_ERROR, 'Cannot find ident at this location');
  if (!r.tip.signature) throw new ResponseError(INTERNAL_ERROR, 'Cannot find symbol at this location');
  const used = describeSignature(r.tip.signature);
  // An entity (type, module, exception) is its own type definition.
  if (used.kind === 'entity') return r.decl ? locationOf(ws, r.decl) : null;
  const at = (r.decl && await declaredSymbol(ws, ctx, r.decl, used.kind)) ?? { symbol: used, ctx, line0: position.line };
  const type = typeLookedUp(at.symbol);
  const named = type && namedType(type);
  if (!named) throw new ResponseError(INTERNAL_ERROR, NO_TYPE_INFORMATION);
  const decl = await resolveTypeName(ws, at.ctx, at.line0, named);
  // FSAC decompiles or fetches the source of a type declared in an assembly; the double has
  // neither, so such a type gets `null`, as its definition does.
  return decl ? locationOf(ws, decl) : null;
}
