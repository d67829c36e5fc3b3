// Navigation items for textDocument/documentSymbol and workspace/symbol.
// FSAC builds these from FCS's parse-tree navigation items, which
// fable-standalone does not expose; this is the double's own line-based
// declaration scanner (namespaces, modules, types, module-level lets, members,
// union cases, record fields). Syntactic only, like FSAC's (no typecheck).
import { codeOnly } from './lexer.mjs';

export const SymbolKind = { Module: 2, Namespace: 3, Class: 5, Method: 6, Property: 7, Field: 8, Function: 12, Variable: 13, EnumMember: 22 };

const ACCESS = '(?:(?:private|internal|public)\\s+)?';
const NAME = '(``[^`]+``|[A-Za-z_][\\w\']*)';

/** Declarations of one file, flat, in source order: [{name, kind, containerName, range}]. */
export function navigationItems(text) {
  const lines = codeOnly(text).split('\n');
  const items = [];
  const stack = []; // {indent, kind: 'module'|'type', name, bodyIndent, representationDone}
  let pendingBody = null;
  let recordDepth = 0;
  // What the last `type` or `let` at each indentation was, so that `and` continues the right
  // kind of group: `type A … and B` declares a type, `let rec f … and g` a function (also
  // inside a function body, where it declares nothing navigable).
  const groupAt = new Map();
  const container = () => stack.length ? stack[stack.length - 1] : null;
  const push = (name, kind, line, col) => {
    const clean = name.replace(/^``|``$/g, '');
    items.push({
      name: clean, kind, containerName: container()?.name ?? '',
      range: { start: { line, character: col }, end: { line, character: col + name.length } },
    });
  };
  lines.forEach((raw, line) => {
    const trimmed = raw.trim();
    if (!trimmed) return;
    const indent = raw.length - raw.trimStart().length;
    if (pendingBody) { pendingBody.bodyIndent = indent > pendingBody.indent ? indent : undefined; pendingBody = null; }
    while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
    let m;
    if ((m = new RegExp(`^(\\s*)namespace\\s+(?:rec\\s+)?([\\w.]+)`).exec(raw))) {
      stack.length = 0;
      push(m[2], SymbolKind.Namespace, line, raw.indexOf(m[2], m[1].length + 9));
      stack.push({ indent: -1, kind: 'module', name: m[2], bodyIndent: 0 });
      return;
    }
    if ((m = new RegExp(`^(\\s*)module\\s+${ACCESS}(?:rec\\s+)?([\\w.]+)\\s*(=)?`).exec(raw))) {
      const col = raw.indexOf(m[2], m[1].length + 6);
      push(m[2], SymbolKind.Module, line, col);
      const entry = { indent: m[3] ? indent : -1, kind: 'module', name: m[2], bodyIndent: m[3] ? undefined : 0 };
      stack.push(entry);
      if (m[3]) pendingBody = entry;
      return;
    }
    const startsGroup = /^\s*(type|let|and)\b/.exec(raw)?.[1];
    const group = startsGroup === 'and' ? groupAt.get(indent) : startsGroup;
    if (startsGroup && startsGroup !== 'and') groupAt.set(indent, startsGroup);
    if (group === 'type' && (m = new RegExp(`^(\\s*)(?:type|and)\\s+(?:\\[<[^\\]]*>\\]\\s*)?${ACCESS}${NAME}`).exec(raw))) {
      const col = raw.indexOf(m[2], m[1].length + 3);
      push(m[2], SymbolKind.Class, line, col);
      const entry = { indent, kind: 'type', name: m[2].replace(/^``|``$/g, ''), bodyIndent: undefined, representationDone: false };
      stack.push(entry);
      pendingBody = entry;
      recordDepth = 0;
      if (/=\s*(private\s+|internal\s+)?\{/.test(raw)) recordDepth = 1;
      if (recordDepth) scanFields(raw.slice(raw.indexOf('{') + 1), raw.indexOf('{') + 1, line);
      if (recordDepth && raw.includes('}')) recordDepth = 0;
      else scanInlineCases(raw, line, col + m[2].length);
      return;
    }
    const c = container();
    // A type's representation (its union cases, record fields) comes first in its body;
    // the first member, interface, `with`, `let` or `do` ends it, so a `| Case _ ->` in a
    // member's match is a pattern, not a declaration.
    if (c?.kind === 'type' && indent === c.bodyIndent && !recordDepth
      && /^(?:static\s+|abstract\s+|override\s+|default\s+|member\b|interface\b|inherit\b|new\b|val\b|with\b|let\b|do\b|end\b)/.test(trimmed)) {
      c.representationDone = true;
    }
    if (c?.kind === 'type') {
      if (recordDepth || /^(private\s+|internal\s+)?\{/.test(trimmed)) {
        const start = recordDepth ? 0 : raw.indexOf('{') + 1;
        recordDepth = 1;
        scanFields(raw.slice(start), start, line);
        if (raw.includes('}')) recordDepth = 0;
        return;
      }
      if (!c.representationDone && indent === c.bodyIndent && (m = /^(\s*)\|\s*(?:\[<[^\]]*>\]\s*)?([A-Z]\w*)/.exec(raw))) {
        push(m[2], SymbolKind.EnumMember, line, raw.indexOf(m[2], m[1].length + 1));
        return;
      }
      if ((m = /^(\s*)\|/.exec(raw))) return; // a pattern of a match inside the type's members
      if ((m = new RegExp(`^(\\s*)(?:static\\s+)?(?:member|override|default|abstract(?:\\s+member)?)\\s+(?:val\\s+)?${ACCESS}(?:[\\w_]+\\.)?${NAME}(\\s*\\()?`).exec(raw))) {
        push(m[2], m[3] ? SymbolKind.Method : SymbolKind.Property, line, raw.lastIndexOf(m[2], raw.indexOf(m[2], m[1].length) + m[2].length));
        return;
      }
      if ((m = new RegExp(`^(\\s*)val\\s+(?:mutable\\s+)?${ACCESS}${NAME}`).exec(raw))) { push(m[2], SymbolKind.Field, line, raw.indexOf(m[2], m[1].length + 4)); return; }
    }
    if (c?.kind === 'module' && indent === c.bodyIndent && (startsGroup === 'let' || group === 'let')
      && (m = new RegExp(`^(\\s*)(?:let|and)\\s+(?:(?:rec|inline|mutable)\\s+)*${ACCESS}(?:(?:inline|mutable)\\s+)*${NAME}(.*)`).exec(raw))) {
      const isFunction = /^\s*[^=:\s]/.test(m[3]) && !/^\s*[:=]/.test(m[3]);
      push(m[2], isFunction ? SymbolKind.Function : SymbolKind.Variable, line, raw.indexOf(m[2], m[1].length + 4));
    }
  });
  return items;

  /** Union cases written on the type's own line: `type Color = Red | Green`. */
  function scanInlineCases(raw, line, afterName) {
    const eq = raw.indexOf('=', afterName);
    if (eq < 0) return;
    const rest = raw.slice(eq + 1);
    if (!/^\s*(?:\|\s*)?[A-Z]\w*(?:\s+of\b[^|]*)?\s*\|/.test(rest) && !/^\s*\|\s*[A-Z]/.test(rest)) return;
    for (const cs of rest.matchAll(/(?:^|\|)\s*([A-Z]\w*)/dg)) push(cs[1], SymbolKind.EnumMember, line, eq + 1 + cs.indices[1][0]);
  }

  function scanFields(segment, offset, line) {
    for (const f of segment.matchAll(/(?:^|;|\s)(?:mutable\s+)?([A-Za-z_]\w*)\s*:/dg)) {
      push(f[1], SymbolKind.Field, line, offset + f.indices[1][0]);
    }
  }
}

/** FSAC's workspace/symbol query: case-sensitive prefix; `A.B.Foo` → container "A.B" (§5.8). */
export function matchesQuery(item, query) {
  if (!query) return false;
  const parts = query.split('.');
  const last = parts.pop();
  if (!item.name.startsWith(last)) return false;
  return parts.length === 0 || item.containerName === parts.join('.');
}
