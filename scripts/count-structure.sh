#!/usr/bin/env bash
# Counts circles, upward imports and CLI text in src/ (see count-structure.py for the definitions).
exec python3 "$(dirname "$0")/count-structure.py" "$@"
