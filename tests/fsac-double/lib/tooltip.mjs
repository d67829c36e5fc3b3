// Turns fable-standalone's tooltip lines into FSAC's shapes. fable-standalone
// joins FCS's tagged text with single spaces, so a real space token shows up as
// three spaces and punctuation gets padded ("Shipment . Name :   string").
// normalise() undoes that; the words themselves are the compiler's.

const SPACE_TOKEN = '\u0000';

export function normalise(raw) {
  return raw.split('\n').map((line) => {
    const lead = /^ */.exec(line)[0].length;
    const indent = lead >= 2 ? ' '.repeat(lead - 2) : '';
    const body = line.slice(lead)
      .replace(/ {3}/g, SPACE_TOKEN)
      .replace(/ (?=[.:<>)\]},;])/g, '')
      .replace(/(?<=[.<(\[{]) /g, '')
      .replace(/\u0000/g, ' ')
      .replace(/ +$/, '');
    return indent + body;
  }).filter((l) => l.trim() !== '').join('\n');
}

/**
 * Splits raw tooltip lines into {signature, docs, footer}: the main description,
 * the documentation lines, and FSAC-style footer lines ("*Full name: X*").
 */
export function parseTooltip(lines) {
  const out = { signature: null, docs: [], fullName: null, paramName: null };
  for (const raw of lines) {
    if (/^\w+: $/.test(raw) && out.signature === null) { out.paramName = raw.trim(); continue; }
    const m = /^Full name\s*:\s*(.*)$/.exec(raw);
    if (m) { out.fullName = normalise(m[1]).replace(/ /g, ''); continue; }
    if (out.signature === null) { out.signature = normalise(raw); continue; }
    if (raw.trim()) out.docs.push(raw.trim());
  }
  out.docs = documentation(out.docs);
  return out;
}

/**
 * fable-standalone gives an XML doc twice: the raw `///` lines, then the
 * elaborated XML (`<summary>`…`</summary>`). Keep the summary text once, plus
 * whatever follows the XML (type mappings, remarks).
 */
function documentation(lines) {
  const open = lines.indexOf('<summary>');
  const close = lines.indexOf('</summary>');
  if (open < 0 || close < open) return lines;
  let end = close + 1;
  while (end < lines.length && /^<\/?\w+[^>]*>$/.test(lines[end])) end++; // further XML tags (params, returns)
  return [...lines.slice(open + 1, close), ...lines.slice(end)];
}

/** FSAC's hover contents: [{language, value}, docs, ...footer lines] (§5.3). */
export function hoverContents(tip, assembly) {
  const contents = [{ language: 'fsharp', value: tip.signature }, tip.docs.join('\n')];
  if (tip.fullName) contents.push(`*Full name: ${tip.fullName}*`);
  if (assembly) contents.push(`*Assembly: ${assembly}*`);
  return contents;
}
