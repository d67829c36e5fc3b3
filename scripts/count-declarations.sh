#!/usr/bin/env bash
# Counts what issue #30 ("Declared once, typed inside") asks to see before and after: how often
# a command's identity is written, the CLI mirror structs, string-key lookups and `json!` calls
# in non-test code, cursor grammars, session clients, and JSON-key against typed asserts in
# tests/it. Reads files only (grep and awk, no rg needed).
#
# Usage: scripts/count-declarations.sh [REPOSITORY]   (default: the repository holding this script)
# With -v, the per-command rows are printed too.

set -euo pipefail

# shellcheck source=lib/count-arguments.sh
source "$(dirname "$0")/lib/count-arguments.sh" "$@"

# A file's code without its unit tests: it is cut at the line `#[cfg(test)]` that is followed by
# a line starting `mod tests`.
non_test() {
    awk '
        held != "" { if ($0 ~ /^mod tests/) exit; print held; held = "" }
        /^#\[cfg\(test\)\][[:space:]]*$/ { held = $0; next }
        { print }
        END { if (held != "") print held }
    ' "$1"
}

# The non-test code of every .rs file under the given paths (files or directories).
non_test_code() {
    local file
    for file in $(find "$@" -name '*.rs' -type f 2>/dev/null | sort); do
        non_test "$file"
    done
}

count() { grep -Eo -- "$1" || true; }
count_lines() { count "$1" | wc -l | tr -d ' '; }

# ---- places a command id is written -----------------------------------------------------------

# The wire id suffixes of the 19 commands issue #30 was filed against.
suffixes=(status restart find fieldImpact check diagnostics makeInternalVisible outline explainDiagnostic
    diagnosticFixes suggestOpen referencedSymbols nugetTypes nugetMembers symbolSearch readSymbol readEnclosing
    rename typeHierarchy)

src_code="$(non_test_code src)"
# The four files issue #30 found a command's identity declared in, main.rs (the CLI), and the
# rest of src (where a command is named to be called, e.g. `Command::Check.id()`).
declaring_code="$(non_test_code src/lsp/ext.rs src/commands/registry.rs src/commands/mod.rs src/mcp/tools.rs)"
other_code="$(for file in $(find src -name '*.rs' -type f | sort); do
    case "$file" in
        src/lsp/ext.rs | src/commands/registry.rs | src/commands/mod.rs | src/mcp/tools.rs | src/main.rs) ;;
        *) non_test "$file" ;;
    esac
done)"
main_code="$(non_test src/main.rs)"
declared_total=0
cli_total=0
used_total=0
per_command=""
for suffix in "${suffixes[@]}"; do
    variant="$(tr '[:lower:]' '[:upper:]' <<<"${suffix:0:1}")${suffix:1}"
    snake="$(sed -E 's/([A-Z])/_\1/g' <<<"$suffix" | tr '[:upper:]' '[:lower:]')"
    constant="$(tr '[:lower:]' '[:upper:]' <<<"$snake")"
    # Spellings of the command: the enum path, the id string, the id constant, a hand-written
    # tool name returned by a match arm; in the declaring files also a bare variant or constant
    # on a line of its own (an enum variant, an entry of an ALL list) and a table row.
    spelled="Command::${variant}\\b|\"fslens\\.${suffix}\"|(commands|ids)::${constant}\\b|=> \"${snake}\""
    listed="^[[:space:]]*(${variant}|${constant}),?[[:space:]]*$|^[[:space:]]*${variant} \\{[[:space:]]*$"
    declared=$(($(count_lines "$spelled" <<<"$declaring_code") + $(grep -Ec "$listed" <<<"$declaring_code" || true)))
    cli=$(count_lines "$spelled" <<<"$main_code")
    used=$(count_lines "$spelled" <<<"$other_code")
    declared_total=$((declared_total + declared))
    cli_total=$((cli_total + cli))
    used_total=$((used_total + used))
    per_command+="$(printf '  %-22s %3d %3d %3d\n' "$suffix" "$declared" "$cli" "$used")"$'\n'
done

# ---- mirror structs ---------------------------------------------------------------------------

cli_args=$(count_lines 'struct [A-Za-z]*CliArgs\b' <<<"$src_code")
main_options=$(count_lines 'struct [A-Za-z]*Options\b' < <(non_test src/main.rs))
# main.rs's option structs that mirror a command's arguments with fields of their own (not the
# session and MCP options, and not a wrapper that flattens the command's own struct).
main_mirrors=$(non_test src/main.rs | awk '
    /^struct (Check|FieldImpact|MakeVisible|SuggestOpen|Headless)Options/ { inside = 1; flattened = 0; next }
    inside && /#\[command\(flatten\)\]/ { flattened = 1 }
    inside && /^}/ { if (!flattened) mirrors++; inside = 0 }
    END { print mirrors + 0 }
')

# ---- string-key lookups and json! calls -------------------------------------------------------

lookups() { count_lines '[]A-Za-z0-9_)]\["[^"]*"\]|\.get(_mut)?\("[^"]*"\)'; }
json_calls() { count_lines 'json!'; }
commands_code="$(non_test_code src/commands)"
mcp_code="$(non_test_code src/mcp)"

# ---- cursor grammars and session clients ------------------------------------------------------

# A cursor grammar is code that reads cursor text: a non-test file with a `decode` function
# (`fn decode_cursor`, or a cursor type's `decode`) that splits text at the grammar's `.`.
cursor_grammars=0
for file in $(find src -name '*.rs' -type f | sort); do
    code="$(non_test "$file")"
    if grep -Eq 'fn decode(_cursor)?\(' <<<"$code" && grep -Eq "split(_once)?\('\.'\)" <<<"$code"; then
        cursor_grammars=$((cursor_grammars + 1))
    fi
done
# A session client is a module outside src/session that connects to the session socket.
session_clients=0
for file in $(find src -name '*.rs' -not -path 'src/session/*' | sort); do
    if [[ "$(non_test "$file" | grep -c 'session::server::connect(' || true)" != 0 ]]; then
        session_clients=$((session_clients + 1))
    fi
done

# ---- asserts in tests/it ----------------------------------------------------------------------

# Each assert statement (from `assert` to the `;` that ends it) is a JSON-key assert when it
# indexes by a string (`["key"]`, `.get("key")`), else a typed one.
read -r json_asserts typed_asserts < <(
    find tests/it -name '*.rs' -type f | sort | xargs cat | awk '
        function finish() {
            if (statement ~ /[]A-Za-z0-9_)]\["[^"]*"\]|\.get\("[^"]*"\)/) json++; else typed++
            statement = ""; inside = 0
        }
        {
            line = $0
            sub(/^[[:space:]]+/, "", line)
            if (!inside && line ~ /^(assert|prop_assert|debug_assert)(_eq|_ne)?!/) { inside = 1; statement = "" }
            if (inside) {
                statement = statement " " line
                if (line ~ /;[[:space:]]*(\/\/.*)?$/) finish()
            }
        }
        END { printf "%d %d\n", json + 0, typed + 0 }
    '
)

# ---- report -----------------------------------------------------------------------------------

printf '%s\n' "counts for $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "$root")"
printf '%-62s %6s\n' "what" "count"
printf '%-62s %6d\n' "command ids in lsp/ext, commands/{registry,mod}, mcp/tools" "$declared_total"
printf '%-62s %6s\n' "  per command (min-max)" "$(awk 'NF { print $2 }' <<<"$per_command" | sort -n | sed -n '1p;$p' | paste -sd-)"
printf '%-62s %6d\n' "command ids and CLI variants written in main.rs" "$cli_total"
printf '%-62s %6d\n' "command ids named elsewhere in src (to call a command)" "$used_total"
printf '%-62s %6d\n' "*CliArgs structs" "$cli_args"
printf '%-62s %6d\n' "main.rs *Options structs" "$main_options"
printf '%-62s %6d\n' "  of which copy a command's fields (no flatten)" "$main_mirrors"
printf '%-62s %6d\n' "string-key lookups, non-test src/commands" "$(lookups <<<"$commands_code")"
printf '%-62s %6d\n' "string-key lookups, non-test src/mcp" "$(lookups <<<"$mcp_code")"
printf '%-62s %6d\n' "string-key lookups, non-test src/main.rs" "$(lookups <<<"$main_code")"
printf '%-62s %6d\n' "json! calls, non-test src/commands" "$(json_calls <<<"$commands_code")"
printf '%-62s %6d\n' "json! calls, non-test src/mcp" "$(json_calls <<<"$mcp_code")"
printf '%-62s %6d\n' "json! calls, non-test src/main.rs" "$(json_calls <<<"$main_code")"
printf '%-62s %6d\n' "cursor grammars (cursor decoders)" "$cursor_grammars"
printf '%-62s %6d\n' "session clients (modules connecting to the session socket)" "$session_clients"
printf '%-62s %6d\n' "asserts in tests/it indexing JSON by string key" "$json_asserts"
printf '%-62s %6d\n' "asserts in tests/it without a string key (typed)" "$typed_asserts"
if $verbose; then
    printf '\nper command: declaring files, main.rs, elsewhere\n%s' "$per_command"
fi
