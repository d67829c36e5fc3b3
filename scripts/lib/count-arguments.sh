# Sourced by the scripts that count things in the repository (count-copies.sh,
# count-declarations.sh) with their own arguments, `[-v] [REPOSITORY]`:
#
#   source "$(dirname "$0")/lib/count-arguments.sh" "$@"
#
# sets `verbose` (true with -v), `root` (REPOSITORY, default the repository holding the calling
# script) and changes to `root`.

verbose=false
if [[ "${1:-}" == "-v" ]]; then
    verbose=true
    shift
fi
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
