#!/usr/bin/env python3
"""Counts how the modules of src/ import each other (python3 standard library only).

Reads every `use crate::…` (grouped trees such as `use crate::{a, b::c}` included), every
`crate::x::y` path written inline in code, and the `super::`/`self::` paths between files,
outside comments, string literals and `#[cfg(test)] mod tests { … }`. `main.rs` is its own
node and reads the library as `fslens::…`. Prints:

- the strongly connected components (circles) between top-level modules, with their size;
- the largest circle between files (and every circle of more than one file);
- each import from a lower layer to a higher one, against LAYERS below (docs/architecture.md,
  "Layers");
- lines of CLI text in src/commands: the lines of every `fn` outside tests that renders the
  command line's text or picks an exit code (it names `exit_codes`, `cli_contract`, `clap`,
  `CommandLine`/`OnCommandLine`/`CliArguments`, or its name says text/render), whole files whose
  purpose is the CLI (`command_line.rs`, `*/cli.rs`, `*/text.rs`, `*/render.rs`), and the files
  that import `cli_contract` or `crate::cli`.

Usage: scripts/count-structure.py [SRC_DIR]   (default: src/ next to this script's parent)
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from rust_source import closing_brace, strip_code, strip_tests  # noqa: E402

# Bottom first. A module may import modules of its own layer index or lower; an import of a
# higher index is "upward". Modules on one line of equal index must not import each other
# both ways (that is a circle, reported separately).
LAYERS = [
    ["uri", "source_files", "deadline"],
    ["documents"],
    ["lsp"],
    ["failure"],
    ["workspace", "metadata", "session"],
    ["syntax"],
    ["session_state"],
    ["commands"],
    ["proxy"],
    ["session_client"],
    ["navigation"],
    ["mcp"],
    ["cli"],
    ["shim"],
    ["main"],
]
LAYER_OF = {module: index for index, modules in enumerate(LAYERS) for module in modules}


def expand_use_tree(tree):
    """`a::{b, c::{d, e as f}}` -> ['a::b', 'a::c::d', 'a::c::e'] (`self` and `as` handled)."""
    tree = re.sub(r"\s+", " ", tree)
    tree = re.sub(r"\s*(::|\{|\}|,)\s*", r"\1", tree).strip()
    results = []

    def walk(prefix, text):
        depth = 0
        start = 0
        parts = []
        for k, ch in enumerate(text):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(text[start:k])
                start = k + 1
        parts.append(text[start:])
        for part in parts:
            part = part.strip()
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0:
                head = [s for s in part[:brace].split("::") if s]
                walk(prefix + head, part[brace + 1:part.rfind("}")])
            else:
                part = re.split(r"\s+as\s+", part)[0]
                segments = [s for s in part.split("::") if s and s != "self"]
                results.append(prefix + segments)

    walk([], tree)
    return results


class SourceFile:
    def __init__(self, src, path):
        self.path = path
        self.rel = os.path.relpath(path, src).replace(os.sep, "/")
        parts = self.rel[:-3].split("/")
        if parts[-1] == "mod":
            parts = parts[:-1]
        self.module_path = parts  # e.g. ['commands', 'find', 'answer']; ['main']; ['lib']
        self.top = parts[0]
        with open(path, encoding="utf-8") as handle:
            self.text = handle.read()
        self.code = strip_tests(strip_code(self.text))


def line_of(code, offset):
    return code.count("\n", 0, offset) + 1


def references(source):
    """(line, absolute path segments, kind) for every crate path the file names."""
    code = source.code
    found = []
    root = "fslens" if source.top == "main" else "crate"
    used_spans = []
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        tree = m.group(1)
        line = line_of(code, m.start())
        for segments in expand_use_tree(tree):
            absolute = absolute_path(source, segments, root)
            if absolute is not None:
                found.append((line, absolute))
        used_spans.append((m.start(), m.end()))
    in_use = lambda offset: any(a <= offset < b for a, b in used_spans)
    pattern = r"(?<![\w:])(\$crate|crate|super|self|%s)((?:::\w+)+)" % ("fslens" if root == "fslens" else "crate")
    for m in re.finditer(pattern, code):
        if in_use(m.start()):
            continue
        segments = [m.group(1)] + [s for s in m.group(2).split("::") if s]
        absolute = absolute_path(source, segments, root)
        if absolute is not None:
            found.append((line_of(code, m.start()), absolute))
    return found


def absolute_path(source, segments, root):
    if not segments:
        return None
    head = segments[0]
    if head in ("crate", "$crate") or (head == root and root == "fslens"):
        return segments[1:]
    if head == "super":
        base = list(source.module_path)
        while segments and segments[0] == "super":
            base = base[:-1]
            segments = segments[1:]
        return base + segments
    if head == "self":
        return list(source.module_path) + segments[1:]
    # a `use child::…` of a module file (2018 paths): the child module of this one
    if tuple(source.module_path + [head]) in FILES_BY_MODULE and source.top != "main":
        return list(source.module_path) + segments
    return None


FILES_BY_MODULE = {}


def resolve_file(files_by_module, segments):
    """The file a path names: the longest prefix that is a module file."""
    for length in range(len(segments), 0, -1):
        key = tuple(segments[:length])
        if key in files_by_module:
            return files_by_module[key]
    return None


def strongly_connected(nodes, edges):
    index = {}
    low = {}
    stack = []
    on_stack = set()
    components = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            components.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return [c for c in components if len(c) > 1]


CLI_FILE = re.compile(r"(^|/)(command_line|cli|text|render)\.rs$")
CLI_MARK = re.compile(r"\bexit_codes\b|\bcli_contract\b|\bCommandLine\b|\bOnCommandLine\b|\bCliArguments\b|\bcrate::cli::|\bclap::(Arg|Command|ArgMatches|Error)\b")
# `cli` as a whole word of the name (`run_cli`, `cli_request`), not a word that starts with it
# (`case_of_clip` is about a banana clip).
CLI_NAME = re.compile(r"^(render\w*|\w*exit_code\w*|(\w+_)?cli(_\w+)?)$")
# A renderer `src/cli/` hands a command's face: `read_as::<Answer>(answer, crate::commands::…)`.
FACE_RENDERER = re.compile(r"\(\s*answer\s*,\s*crate::commands::([\w:]+)\s*,?\s*\)")


def items(code, keyword_pattern):
    """(name, start, end) of every brace-delimited item whose head matches the pattern."""
    found = []
    for m in re.finditer(keyword_pattern, code):
        found.append((m.group(1), m.start(), closing_brace(code, m.end() - 1) + 1))
    return found


def nonblank(text):
    return sum(1 for line in text.split("\n") if line.strip())


def cli_text_lines(files):
    """Lines of CLI text and exit-code code in src/commands, and the files importing the CLI.

    A function is CLI code when `src/cli/` hands it to a command's face as its text renderer
    (a `crate::commands::…` path in the renderer's place; a helper of `src/commands` the CLI
    merely calls, such as `doctor::diagnose`, is the command's), when
    its name says so (`render…`, `…exit_code…`, `…cli…`), when it names the CLI's types
    (`exit_codes`, `cli_contract`, `crate::cli`, `CommandLine`, `OnCommandLine`,
    `CliArguments`, clap's builder), or when every caller of it in its file is CLI code (the
    helpers of a renderer). Impls of `CliArguments`/`CommandLine` count whole; so do files whose
    name says they are the CLI (`command_line.rs`, `cli.rs`, `text.rs`, `render.rs`).
    """
    registry_names = set()
    for source in files:
        if source.top == "cli":
            for m in FACE_RENDERER.finditer(source.code):
                path = m.group(1).split("::")
                registry_names.add((tuple(path[:-1]), path[-1]))
    total = 0
    per_file = []
    importing = []
    for source in files:
        if source.top != "commands":
            continue
        code = source.code
        if re.search(r"\bcli_contract\b|\bcrate::cli\b", code):
            importing.append(source.rel)
        if CLI_FILE.search(source.rel):
            count = nonblank(code)
            per_file.append((count, source.rel + " (whole file)"))
            total += count
            continue
        impls = items(code, r"\bimpl\b[^{;]*\b(CliArguments|CommandLine)\b[^{;]*\{")
        functions = [f for f in items(code, r"\bfn\s+(\w+)[^;{]*\{")
                     if not any(a <= f[1] < b for _, a, b in impls)]
        named = {name for module, name in registry_names
                 if tuple(source.module_path[-len(module):]) == module and module}
        cli = {i for i, (name, a, b) in enumerate(functions)
               if name in named or CLI_NAME.match(name) or CLI_MARK.search(code[a:b])}
        changed = True
        while changed:
            changed = False
            for i, (name, a, b) in enumerate(functions):
                if i in cli or name in ("new", "from", "fmt"):
                    continue
                # A free function is called as `name(`/`name::<`; a method (it takes `self`) also
                # as `.name(`. A method call `.extend(` is no call of a free `fn extend`.
                takes_self = re.search(r"\bself\b", code[a:code.find("{", a)]) is not None
                call = re.compile((r"\b" if takes_self else r"(?<![.\w])") + r"%s\s*[(:<]" % re.escape(name))
                callers = [k for k, (_, c, d) in enumerate(functions) if k != i and call.search(code[c:d])]
                if callers and all(k in cli for k in callers):
                    cli.add(i)
                    changed = True
        count = sum(nonblank(code[a:b]) for i, (_, a, b) in enumerate(functions) if i in cli)
        count += sum(nonblank(code[a:b]) for _, a, b in impls)
        if count:
            per_file.append((count, source.rel))
            total += count
    return total, sorted(per_file, reverse=True), sorted(importing)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "src")
    src = os.path.abspath(src)
    files = []
    for directory, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith(".rs"):
                files.append(SourceFile(src, os.path.join(directory, name)))
    files.sort(key=lambda f: f.rel)
    files_by_module = {tuple(f.module_path): f for f in files}
    FILES_BY_MODULE.update(files_by_module)

    module_edges = {}
    module_sites = {}
    file_edges = {}
    for source in files:
        if source.top == "lib":
            continue
        for line, segments in references(source):
            if not segments:
                continue
            target = resolve_file(files_by_module, segments)
            if target is None or target.top == "lib":
                continue
            if target is not source:
                file_edges.setdefault(source.rel, set()).add(target.rel)
            if target.top != source.top:
                module_edges.setdefault(source.top, set()).add(target.top)
                module_sites.setdefault((source.top, target.top), []).append(f"{source.rel}:{line}")

    modules = sorted({f.top for f in files if f.top != "lib"})
    print(f"src: {src}")
    print(f"files: {len(files)}, top-level modules: {len(modules)}")
    print()
    circles = strongly_connected(modules, module_edges)
    print(f"circles between top-level modules: {len(circles)}")
    for circle in circles:
        print(f"  size {len(circle)}: {' '.join(circle)}")
        for a in circle:
            for b in circle:
                if b in module_edges.get(a, ()):
                    sites = module_sites[(a, b)]
                    print(f"    {a} -> {b}: {len(sites)} ({', '.join(sites[:3])}{', …' if len(sites) > 3 else ''})")
    print()
    file_circles = sorted(strongly_connected([f.rel for f in files], file_edges), key=len, reverse=True)
    largest = len(file_circles[0]) if file_circles else 0
    print(f"circles between files: {len(file_circles)}; largest: {largest} files")
    for circle in file_circles:
        tops = sorted({name.split("/")[0].removesuffix(".rs") for name in circle})
        print(f"  size {len(circle)} across {', '.join(tops)}")
    print()
    upward = []
    unknown = sorted(m for m in modules if m not in LAYER_OF)
    for (a, b), sites in sorted(module_sites.items()):
        if a in LAYER_OF and b in LAYER_OF and LAYER_OF[a] < LAYER_OF[b]:
            upward.extend(f"{site}: {a} -> {b}" for site in sites)
    print(f"upward imports (lower layer -> higher): {len(upward)}")
    for line in upward:
        print(f"  {line}")
    if unknown:
        print(f"modules in no layer: {', '.join(unknown)}")
    print()
    total, per_file, importing = cli_text_lines(files)
    print(f"lines of CLI text and exit codes in src/commands: {total}")
    for count, name in per_file:
        print(f"  {count:5} {name}")
    print(f"files in src/commands importing cli_contract or crate::cli: {len(importing)}")
    for name in importing:
        print(f"  {name}")


if __name__ == "__main__":
    main()
