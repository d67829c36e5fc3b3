// F# identifier scanner: finds identifier tokens in F# source while skipping
// comments, string and character literals, but descending into the holes of
// interpolated strings. It answers "where are the identifiers?"; every question
// about what an identifier means goes to the compiler (see compiler.mjs).
// Positions are 0-based lines and 0-based UTF-16 columns.

const isIdentStart = (c) => /[A-Za-z_\u00C0-\uFFFF]/.test(c);
const isIdentPart = (c) => /[A-Za-z0-9_'\u00C0-\uFFFF]/.test(c);

/** Offsets of line starts, for offset → {line, character}. */
export function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

export function offsetToPosition(starts, offset) {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

/**
 * Scan `text` and return identifier tokens {name, start, end} (offsets, end
 * exclusive). Backticked identifiers are returned without their backticks
 * (start/end cover the inner text) and with `quoted: true`; the compiler's
 * ranges of them cover the backticks (see quotedRange).
 */
export function scanIdentifiers(text) {
  const out = [];
  scanCode(text, 0, out, false, []);
  return out;
}

/** `text` with comments and string/char literals blanked (newlines and columns kept). */
export function codeOnly(text) {
  const skipped = [];
  scanCode(text, 0, [], false, skipped);
  const chars = text.split('');
  for (const [s, e] of skipped) for (let i = s; i < e; i++) if (chars[i] !== '\n') chars[i] = ' ';
  return chars.join('');
}

// Scans code from i; when `inHole` is true, stops at the '}' closing an
// interpolation hole and returns the offset after it.
function scanCode(text, i, out, inHole, skipped) {
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    const next = text[i + 1];
    const from = i;
    if (c === '/' && next === '/') { while (i < n && text[i] !== '\n') i++; skipped.push([from, i]); continue; }
    if (c === '(' && next === '*' && text[i + 2] !== ')') { i = skipBlockComment(text, i); skipped.push([from, i]); continue; }
    if (c === '$' || (c === '@' && next === '$')) {
      const s = stringStart(text, i);
      if (s) { i = scanInterpolated(text, s, out, skipped, from); continue; }
    }
    if (c === '"' || (c === '@' && next === '"')) { i = skipString(text, i); skipped.push([from, i]); continue; }
    if (c === '\'') {
      const end = charLiteralEnd(text, i);
      if (end > 0) { i = end; skipped.push([from, i]); continue; }
      i++; continue; // type variable quote, e.g. 'T
    }
    if (c === '`' && next === '`') {
      const close = text.indexOf('``', i + 2);
      if (close > 0 && !text.slice(i + 2, close).includes('\n')) {
        out.push({ name: text.slice(i + 2, close), start: i + 2, end: close, quoted: true });
        i = close + 2; continue;
      }
    }
    if (isIdentStart(c) && !(i > 0 && isIdentPart(text[i - 1]))) {
      let j = i + 1;
      while (j < n && isIdentPart(text[j])) j++;
      out.push({ name: text.slice(i, j), start: i, end: j });
      i = j; continue;
    }
    if (/[0-9]/.test(c)) { // numeric literal, incl. suffixes like 1.0f, 0x1FL
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(text[j]) && !(text[j] === '.' && text[j + 1] === '.')) j++;
      i = j; continue;
    }
    if (inHole) {
      if (c === '{') depth++;
      else if (c === '}') { if (depth === 0) return i + 1; depth--; }
    }
    i++;
  }
  return i;
}

function skipBlockComment(text, i) {
  let depth = 0;
  const n = text.length;
  while (i < n) {
    if (text[i] === '(' && text[i + 1] === '*') { depth++; i += 2; continue; }
    if (text[i] === '*' && text[i + 1] === ')') { depth--; i += 2; if (depth === 0) return i; continue; }
    if (text[i] === '"') { i = skipString(text, i); continue; } // strings inside comments are lexed by F#
    i++;
  }
  return n;
}

// Recognises $"..", $@"..", @$"..", $"""..""", $$"""..""" starts.
function stringStart(text, i) {
  let j = i, dollars = 0, verbatim = false;
  while (text[j] === '$' || text[j] === '@') { if (text[j] === '$') dollars++; else verbatim = true; j++; }
  if (dollars === 0 || text[j] !== '"') return null;
  const triple = text.startsWith('"""', j);
  return { bodyStart: j + (triple ? 3 : 1), dollars, verbatim, triple };
}

function scanInterpolated(text, s, out, skipped, from) {
  const n = text.length;
  let i = s.bodyStart;
  let partStart = from;
  const braces = s.triple ? Math.max(1, s.dollars) : 1;
  while (i < n) {
    const c = text[i];
    if (s.triple && text.startsWith('"""', i)) { skipped.push([partStart, i + 3]); return i + 3; }
    if (!s.triple && c === '"') {
      if (s.verbatim && text[i + 1] === '"') { i += 2; continue; }
      skipped.push([partStart, i + 1]);
      return i + 1;
    }
    if (!s.triple && !s.verbatim && c === '\\') { i += 2; continue; }
    if (c === '{') {
      if (text.startsWith('{'.repeat(braces), i) && !(braces === 1 && text[i + 1] === '{')) {
        skipped.push([partStart, i + braces]);
        i = scanCode(text, i + braces, out, true, skipped);
        partStart = i - 1;
        continue;
      }
      i += braces === 1 ? 2 : 1; continue; // escaped '{{'
    }
    i++;
  }
  skipped.push([partStart, n]);
  return n;
}

function skipString(text, i) {
  const n = text.length;
  if (text.startsWith('"""', i)) {
    const close = text.indexOf('"""', i + 3);
    return close < 0 ? n : close + 3;
  }
  const verbatim = text[i] === '@';
  i += verbatim ? 2 : 1;
  while (i < n) {
    const c = text[i];
    if (verbatim && c === '"' && text[i + 1] === '"') { i += 2; continue; }
    if (!verbatim && c === '\\') { i += 2; continue; }
    if (c === '"') return i + 1;
    i++;
  }
  return n;
}

// 'a', '\n', '\'' , '\u0041', '\065' — returns end offset or -1.
function charLiteralEnd(text, i) {
  if (i > 0 && isIdentPart(text[i - 1])) return -1; // x' is part of an identifier
  if (text[i + 1] === '\\') {
    const m = /^\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-9]{3}|x[0-9A-Fa-f]{2}|.)'/.exec(text.slice(i + 1, i + 12));
    return m ? i + 1 + m[0].length : -1;
  }
  if (text[i + 1] !== undefined && text[i + 1] !== '\n' && text[i + 2] === '\'') return i + 3;
  return -1;
}

/** The identifier token covering (or ending at) 0-based `character` of `lineText`. */
export function identifierAt(lineText, character) {
  const tokens = scanIdentifiers(lineText);
  let touching = null;
  for (const t of tokens) {
    // A backticked identifier is under the cursor on its backticks too.
    const start = t.quoted ? t.start - 2 : t.start;
    const end = t.quoted ? t.end + 2 : t.end;
    if (start <= character && character < end) return t;
    if (end === character) touching = t;
  }
  return touching;
}
