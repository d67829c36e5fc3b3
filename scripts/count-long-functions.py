#!/usr/bin/env python3
"""Lists every Rust function in src/ longer than the limit (120 lines) and fails if any is.

A function's length is the number of lines from the line of its `fn` keyword to the line of
its closing brace, both included (attributes and doc comments above it are not counted).
Bodies are found by matching braces after the signature, with strings, raw strings, byte
strings, character literals, lifetimes and comments (nested block comments too) skipped;
closures and nested items count toward the function they are written in (a nested `fn` is also
listed on its own). Declarations without a body (trait methods ending in `;`) and function
pointer types (`fn(u32) -> u32`) are not functions here.

Every function under src/ counts, unit tests (`#[cfg(test)]` modules) included.

    scripts/count-long-functions.py [--limit N] [--all] [DIRECTORY ...]

prints `file:line: name is N lines (limit L)` for each function over the limit, longest
first, then a summary line; exits 1 when any function is over the limit, 0 otherwise.
`--all` lists every function with its length (longest first) and always exits 0.
Only the Python 3 standard library is used.
"""

import argparse
import os
import re
import sys

LIMIT = 120
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tokens(text):
    """Yields (kind, value, line) for the code of `text`: 'ident', 'punct' (one character);
    strings, characters and comments are skipped but their newlines are counted."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif raw_string_start(text, i):
            prefix = raw_string_start(text, i)
            hashes = prefix.count("#")
            close = '"' + "#" * hashes
            end = text.find(close, i + len(prefix))
            end = n if end < 0 else end + len(close)
            line += text.count("\n", i, end)
            i = end
        elif c == '"' or (c in "bc" and text.startswith('"', i + 1) and not is_ident_char(text, i - 1)):
            i = i + 1 if c == '"' else i + 2
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                line += i < n and text[i] == "\n"
                i += 1
            i += 1
        elif c == "'":
            i = skip_quote(text, i)
        elif c.isalpha() or c == "_":
            match = IDENT.match(text, i)
            yield "ident", match.group(), line
            i = match.end()
        elif c.isdigit():
            match = re.compile(r"[0-9][0-9A-Za-z_]*").match(text, i)
            i = match.end()
        else:
            yield "punct", c, line
            i += 1


def is_ident_char(text, i):
    return i >= 0 and (text[i].isalnum() or text[i] == "_")


def raw_string_start(text, i):
    """The opening of a raw string at `i` (`r"`, `r#"`, `br##"`, `cr"` …), or None."""
    if is_ident_char(text, i - 1):
        return None
    match = re.compile(r'(?:b|c)?r(#*)"').match(text, i)
    return match.group() if match else None


def skip_quote(text, i):
    """Past a character literal (`'a'`, `'\\n'`, `'\\u{1F600}'`, `b'x'` is handled as `b` then
    this) or a lifetime/label (`'a`), starting at the quote."""
    if text.startswith("\\", i + 1):
        end = text.find("'", i + 2)
        return len(text) if end < 0 else end + 1
    if i + 2 < len(text) and text[i + 2] == "'":
        return i + 3
    return i + 1


def functions(text):
    """Yields (name, first line, last line) for every function with a body in `text`."""
    toks = list(tokens(text))
    for index, (kind, value, line) in enumerate(toks):
        if kind != "ident" or value != "fn" or index + 1 >= len(toks) or toks[index + 1][0] != "ident":
            continue
        body = body_range(toks, index + 2)
        if body is None:
            continue
        yield toks[index + 1][1], line, toks[body[1]][2]


def body_range(toks, index):
    """The token indices of the opening and closing brace of the body whose signature starts
    at `index`, or None for a declaration ending in `;`."""
    depth = 0
    while index < len(toks):
        kind, value, _ = toks[index]
        if kind == "punct":
            if value in "([":
                depth += 1
            elif value in ")]":
                depth -= 1
            elif value == ";" and depth == 0:
                return None
            elif value == "{" and depth == 0:
                return index, matching_brace(toks, index)
        index += 1
    return None


def matching_brace(toks, index):
    depth = 0
    for position in range(index, len(toks)):
        kind, value, _ = toks[position]
        if kind == "punct" and value == "{":
            depth += 1
        elif kind == "punct" and value == "}":
            depth -= 1
            if depth == 0:
                return position
    return len(toks) - 1


def rust_files(directories):
    for directory in directories:
        for root, dirs, files in os.walk(directory):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".rs"):
                    yield os.path.normpath(os.path.join(root, name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--all", action="store_true", help="list every function, exit 0")
    parser.add_argument("directories", nargs="*", default=None)
    arguments = parser.parse_args()
    repository = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    directories = arguments.directories or [os.path.join(os.path.relpath(repository), "src")]

    found = []
    for path in rust_files(directories):
        with open(path, encoding="utf-8") as file:
            text = file.read()
        for name, first, last in functions(text):
            found.append((last - first + 1, path, first, name))
    found.sort(key=lambda item: (-item[0], item[1], item[2]))

    if arguments.all:
        for length, path, line, name in found:
            print(f"{path}:{line}: {name} {length}")
        return 0
    over = [item for item in found if item[0] > arguments.limit]
    for length, path, line, name in over:
        print(f"{path}:{line}: {name} is {length} lines (limit {arguments.limit})")
    print(f"{len(over)} of {len(found)} functions in {', '.join(directories)} are over {arguments.limit} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
