#!/usr/bin/env bash
# Starts the FSAC double so that the first KILLS_TOTAL launches die after a random number
# (5..16) of received messages: crashes at random moments for the resilience test. Later
# launches live. The launch count is kept in KILLS_COUNTER_FILE. `exec` makes the double this
# process, so a kill of the launch reaches it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
launches=$(( $(cat "$KILLS_COUNTER_FILE" 2>/dev/null || echo 0) + 1 ))
echo "$launches" >"$KILLS_COUNTER_FILE"
if [ "$launches" -le "${KILLS_TOTAL:-0}" ]; then
  export FSAC_DOUBLE_EXIT_AFTER=$(( 5 + RANDOM % 12 ))
  # A double that dies within a second need not load the compiler.
  export FSAC_DOUBLE_LAZY_COMPILER=1
  export FSAC_DOUBLE_NO_CHECKS=1
fi
exec dotnet "$here/../fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll" "$@"
