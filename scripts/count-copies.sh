#!/usr/bin/env bash
# Counts the second copies of small helpers that issue #46 (item 4, "each helper in one home")
# asks to see before and after. Each row is a grep over `src/` (tests included: a unit test's
# own copy of a helper is a copy too) whose pattern is written beside it, with what a match
# means. A count of 1 means the helper has one home; 0 means the pattern no longer occurs.
# Reads files only (grep, awk, wc); no rg needed.
#
# Usage: scripts/count-copies.sh [REPOSITORY]   (default: the repository holding this script)
# With -v, the matching lines are printed under each row.

set -euo pipefail

# shellcheck source=lib/count-arguments.sh
source "$(dirname "$0")/lib/count-arguments.sh" "$@"

# row LABEL PATTERN [GREP-OPTIONS…]: the number of lines of src/**/*.rs matching the extended
# regular expression PATTERN.
row() {
    local label="$1" pattern="$2"
    shift 2
    local matches
    matches="$(grep -rnE "$@" --include='*.rs' -e "$pattern" src || true)"
    local count=0
    [[ -n "$matches" ]] && count="$(printf '%s\n' "$matches" | wc -l)"
    printf '%-58s %5s\n' "$label" "$count"
    if $verbose && [[ -n "$matches" ]]; then
        printf '%s\n' "$matches" | sed 's/^/        /'
    fi
}

echo "helper copies in src/ (issue #46, item 4)                   count"

# 1. A document's current text: the editor's buffer (an `Overlay` entry) else the disk. Every
#    copy is a `match overlay.get(path)` whose `None` arm reads the disk through source_files.
row "document text: buffer-else-disk readers (None => read)" \
    'None *=> *(crate::)?source_files::read_regular_text'
#    The one home: `source_files::current_text` / `current_text_lossy` (0 before, 2 after).
row "document text: source_files::current_text[_lossy] homes" \
    'pub fn current_text(_lossy)?\(buffer'

# 2. Position arguments: a struct field `occurrence` of a command's or tool's argument type
#    (one per struct that declares path/line/word/occurrence itself; the one type's macro
#    `symbol_position_arguments!` in commands/arguments.rs counts once per form, required and
#    optional), and the functions that turn `line`, `word` and `occurrence` into a position on
#    the line.
row "position arguments: structs declaring \`occurrence\`" \
    'pub occurrence: (Option<)?(Bounded|\$crate::commands::(find::)?arguments::Occurrence)'
row "position arguments: word+occurrence -> column functions" \
    'fn (locate_word|nth_word|word_column|word_position)\('

# 3. The time left before a deadline: a free function `remaining`/`remaining_ms`.
row "deadline: free remaining()/remaining_ms(deadline) functions" \
    'fn remaining(_ms)?\([a-z_]+:'

# 4. The F# identifier-character test written out: `c.is_alphanumeric() || c == '_'`, its
#    byte form, and the `matches!(…, b'_' | b'\'')` spelling. The home (`syntax::words`)
#    writes it once.
row "identifier character test written out" \
    "is_(ascii_)?alphanumeric\(\) *\|\| *(matches!\([^,]*, *b'_'|[a-z]+ *== *b?'_')"

# 5. `file:line:col` formatting: a format string that is exactly `{…}:{…}:{…}`.
row "file:line:col formatters (format!(\"{}:{}:{}\"))" \
    'format!\("\{[a-z_]*\}:\{[a-z_]*\}:\{[a-z_]*\}"'
#    …and a `{…}:{…}:{…}` location inside a longer line (text renderers, mostly; the CLI's).
row "file:line:col inside a longer format string" \
    '"[^"]*\{[a-z_]*\}:\{[a-z_]*\}:\{[a-z_]*\}[ :][^"]*"'

# 6. Cursor stream identity: a hasher of a result stream written out. Counted are the types
#    that wrap a `Sha256` (`struct X(Sha256)`) and the functions named `…identity…` whose body
#    (up to the next line that starts with `}`) builds a `Sha256::new()` itself.
identity_hashers() {
    grep -rlE --include='*.rs' 'Sha256' src | sort | while read -r file; do
        awk -v file="$file" '
            /^[[:space:]]*(pub(\([a-z]+\))? )?struct [A-Za-z]+\(Sha256\)/ { print file ":" FNR ": " $0 }
            /^[[:space:]]*(pub(\([a-z]+\))? )?fn [a-z_]*identity[a-z_]*[<(]/ { name = $0; line = FNR; inside = 1; next }
            inside && /^}/ { inside = 0 }
            inside && /Sha256::new\(\)/ { print file ":" line ": " name; inside = 0 }
        ' "$file"
    done
}
hashers="$(identity_hashers)"
count=0
[[ -n "$hashers" ]] && count="$(printf '%s\n' "$hashers" | wc -l)"
printf '%-58s %5s\n' "cursor stream identity: hashers written out" "$count"
if $verbose && [[ -n "$hashers" ]]; then
    printf '%s\n' "$hashers" | sed 's/^/        /'
fi

# 7. Tree-sitter walking outside src/syntax: files under src/ but not src/syntax that import
#    tree_sitter's tree types, and their lines.
outside="$(grep -rlE --include='*.rs' 'use tree_sitter::' src | grep -v '^src/syntax/' || true)"
files=0
lines=0
if [[ -n "$outside" ]]; then
    files="$(printf '%s\n' "$outside" | wc -l)"
    lines="$(printf '%s\n' "$outside" | xargs cat | wc -l)"
fi
printf '%-58s %5s\n' "tree-sitter walkers outside src/syntax (files)" "$files"
printf '%-58s %5s\n' "tree-sitter walkers outside src/syntax (lines)" "$lines"
if $verbose && [[ -n "$outside" ]]; then
    printf '%s\n' "$outside" | sed 's/^/        /'
fi

# 8. The workspace-edit writer: a use of it through `commands::rename` (it lived in rename and
#    navigation borrowed it).
row "workspace-edit writer reached through commands::rename" \
    'rename::write_workspace_edit_to_disk'
