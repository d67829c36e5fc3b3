// Reading the compiler's printed signatures (a tooltip's first line, normalised by
// tooltip.mjs): what kind of symbol a tooltip describes and its type, the curried groups and
// tuple elements of a function type, the parameters of a .NET method's signature, and the named
// type at the head of a type. Only the compiler's own text is read here; what a name means
// is always asked of the compiler (typeDefinition.mjs, signatureHelp.mjs).

const OPENING = '(<[{';
const CLOSING = ')>]}';

/**
 * `text` split at each top-level `separator` (outside brackets and backticks), parts trimmed.
 * `->` is one token, so its `>` never closes an angle bracket.
 */
export function splitTopLevel(text, separator) {
  const parts = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('``', i)) {
      const close = text.indexOf('``', i + 2);
      if (close > 0) { i = close + 1; continue; }
    }
    if (text.startsWith('->', i)) {
      if (depth === 0 && separator === '->') { parts.push(text.slice(from, i)); from = i + 2; }
      i++;
      continue;
    }
    const c = text[i];
    if (OPENING.includes(c)) depth++;
    else if (CLOSING.includes(c)) depth = Math.max(0, depth - 1);
    else if (depth === 0 && separator !== '->' && text.startsWith(separator, i)) {
      parts.push(text.slice(from, i));
      from = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(text.slice(from));
  return parts.map((p) => p.trim());
}

/** Whether `text` is one bracketed group `( … )` from its first character to its last. */
function wrappedInParentheses(text) {
  if (!text.startsWith('(') || !text.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') { depth--; if (depth === 0 && i < text.length - 1) return false; }
  }
  return true;
}

// Keywords FCS prints before the name of a value, function or member.
const VALUE_KEYWORDS = /^((?:(?:static|abstract|override|default|member|val|inline|mutable|private|internal|public|extern|new)\s)+)/;
// A (possibly dotted, possibly backticked) name, then the colon before its type.
const NAME_THEN_TYPE = /^((?:``[^`]*``|[^:\s])+)\s?:\s?(.*)$/;

/**
 * The kind of symbol a tooltip signature describes, with its printed name and type:
 * `entity` (type, module, namespace, exception), `unionCase`, `constructor`, `property`,
 * `parameter` (a method's parameter, e.g. at a named argument), `field` (`Type.Field: T`),
 * `value` (`val`, `member` and their modifiers: values, functions, methods), or `other`
 * (active patterns, type parameters, anything else).
 */
export function describeSignature(signature) {
  const flat = signature.replace(/\s+/g, ' ').trim().replace(/^(?:\[<[^\]]*>\] ?)+/, '');
  if (/^(?:type|module|namespace|exception)\b/.test(flat)) return { kind: 'entity' };
  const typed = (kind, rest) => {
    const m = NAME_THEN_TYPE.exec(rest);
    return m ? { kind, name: m[1], type: stripConstraints(m[2]) } : { kind: 'other' };
  };
  let m;
  if ((m = /^union case (.*)$/.exec(flat))) return typed('unionCase', m[1]);
  if ((m = /^new ?:\s?(.*)$/.exec(flat))) return { kind: 'constructor', name: 'new', type: stripConstraints(m[1]) };
  if ((m = /^property (.*?)(?: with (?:get|set)(?:, ?(?:get|set))?)?$/.exec(flat))) return typed('property', m[1]);
  if ((m = /^argument (.*)$/.exec(flat))) return typed('parameter', m[1]);
  if ((m = VALUE_KEYWORDS.exec(flat))) {
    const described = typed('value', flat.slice(m[1].length));
    return { ...described, keywords: m[1].trim() };
  }
  if (/^(?:active|'|\^)/.test(flat)) return { kind: 'other' };
  const field = NAME_THEN_TYPE.exec(flat);
  if (field && field[1].includes('.')) return { kind: 'field', name: field[1], type: stripConstraints(field[2]) };
  return { kind: 'other' };
}

/** A type without the `(requires …)` and `when …` constraints FCS may print after it. */
function stripConstraints(type) {
  return type.replace(/\s+\(requires [^)]*\)\s*$/, '').replace(/\s+when\s+'.*$/, '').trim();
}

/** The curried groups of a function type and its result: `a -> b * c -> d` → {groups: [a, b * c], result: d}. */
export function curriedGroups(type) {
  const parts = splitTopLevel(type, '->');
  return { groups: parts.slice(0, -1), result: parts.at(-1) };
}

/** Whether the printed type is a function type (a top-level arrow, not wrapped in parentheses). */
export const isFunctionType = (type) => splitTopLevel(type, '->').length > 1;

/** Whether the printed type is a function type wrapped in parentheses, as FCS prints a value
 * of function type that was not declared with parameters (`val f: (int -> int)`). */
export const isParenthesisedFunction = (type) => wrappedInParentheses(type.trim()) && isFunctionType(type.trim().slice(1, -1));

/** One parameter as printed (`name: type`, `?name: type`, or a bare type): {name, type}. */
export function parameterOf(element) {
  const m = /^(\??(?:``[^`]*``|[\w']+))\s?:\s?(.*)$/.exec(element.trim());
  return m ? { name: m[1].replace(/^\?/, ''), display: element.trim(), type: m[2] } : { name: '', display: element.trim(), type: element.trim() };
}

/** The elements of a tupled parameter group (`x: int * y: int` → two); `unit` has none. */
export function tupleElements(group) {
  const trimmed = group.trim();
  if (trimmed === 'unit' || trimmed === '') return [];
  return splitTopLevel(trimmed, ' * ');
}

/**
 * The parameters of a .NET method's printed signature `Type.Method(a: int, b: string) : int`,
 * or null when the signature is not written that way. Attributes (`[<Optional>]`) are kept in
 * `display`.
 */
export function dotnetParameters(signature) {
  const flat = signature.replace(/\s+/g, ' ').trim();
  const open = flat.indexOf('(');
  if (open < 0 || /^(?:val|member|static|abstract|override|default|new|union|property)\b/.test(flat)) return null;
  let depth = 0;
  for (let i = open; i < flat.length; i++) {
    if (flat[i] === '(') depth++;
    else if (flat[i] === ')') {
      depth--;
      if (depth === 0) {
        const inside = flat.slice(open + 1, i).trim();
        return inside === '' ? [] : splitTopLevel(inside, ',');
      }
    }
  }
  return null;
}

/**
 * The named type at the head of a printed type, with its number of type arguments, in a form
 * that can be written back in source: `Tracked<Shipment>` → {name: 'Tracked', arity: 1},
 * `Shipment list` → {name: 'list', arity: 1}, `Inner.Box` → {name: 'Inner.Box', arity: 0}.
 * Null for types that have no type definition in FCS's sense (functions, tuples, anonymous
 * records, type parameters), as `FSharpType.HasTypeDefinition` is false for them.
 */
export function namedType(type) {
  let t = stripConstraints(type);
  while (wrappedInParentheses(t)) t = t.slice(1, -1).trim();
  if (isFunctionType(t) || splitTopLevel(t, ' * ').length > 1) return null;
  if (/^(?:struct\b|\{\||['^])/.test(t)) return null;
  if (/\[,*\]$/.test(t)) return { name: 'array', arity: 1 };
  const atoms = splitTopLevel(t, ' ').filter((a) => a !== '');
  const head = /^((?:``[^`]*``|[\w'.])+?)(?:<(.*)>)?$/.exec(atoms.at(-1) ?? '');
  if (!head || head[1].startsWith("'")) return null;
  let arity = 0;
  if (head[2] !== undefined) arity = splitTopLevel(head[2], ',').length;
  else if (atoms.length > 1) arity = wrappedInParentheses(atoms[0]) ? splitTopLevel(atoms[0].slice(1, -1), ',').length : 1;
  return { name: head[1], arity };
}

/** The last segment of a dotted name, without backticks: `Inner.Box` → `Box`. */
export function lastSegment(name) {
  const parts = name.match(/``[^`]*``|[^.]+/g) ?? [name];
  return parts.at(-1).replace(/^``|``$/g, '');
}
