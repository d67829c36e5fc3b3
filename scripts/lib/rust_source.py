"""Reading Rust source as text, for the scripts that count things in src/ (python3 standard
library only): `strip_code` blanks comments and string/character literals, `strip_tests` blanks
`#[cfg(test)] mod … { … }`, `closing_brace` finds the brace that closes an item. Blanking keeps
every newline, so an offset in the result is on the same line as in the source.

Imported by scripts/count-structure.py (`sys.path` gets this directory first).
"""

import re


def strip_code(text):
    """The text with comments and string/char literals blanked (newlines kept)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth = 0
            j = i
            while j < n:
                if text.startswith("/*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            hashes = m.group(1)
            end = text.find('"' + hashes, i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:end - 1]) + '"')
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:j]) + '"')
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'\n])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def closing_brace(code, opening):
    """The offset of the `}` that closes the `{` at `opening` (or `len(code)` when none does);
    `code` is already stripped, so braces in comments and literals do not count."""
    depth = 0
    j = opening
    while j < len(code):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return j


def strip_tests(code):
    """Blanks every `#[cfg(test)] mod NAME { … }` (newlines kept)."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", code)
        if not m:
            return code
        j = closing_brace(code, m.end() - 1)
        code = code[:m.start()] + re.sub(r"[^\n]", " ", code[m.start():j + 1]) + code[j + 1:]
