#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS seconds each (default 20), starting from the seed
# corpus in fuzz/corpus/<target>/ copied to a temporary directory (the repository is never
# written to). Exits non-zero when a target crashes, leaving the crashing input in
# $FUZZ_ARTIFACTS (default: fuzz/artifacts/<target>/) and the log next to it.
#
#   scripts/fuzz.sh            # short run (the test command's)
#   scripts/fuzz.sh 3600       # long run: an hour per target
#
# Environment: FUZZ_TARGETS (space-separated subset), FUZZ_SANITIZER (none | address; default
# none: the fuzzed code is safe Rust, so the sanitizer mostly costs speed), FUZZ_JOBS (cargo
# build jobs, default 2), FUZZ_KEEP_CORPUS=DIR (keep the grown corpora under DIR).
# cargo-fuzz needs a nightly toolchain; without one this prints why and exits 0 ("skipped"),
# or 1 with FUZZ_REQUIRED=1 (the test command's: a fuzz run that cannot run is no pass).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]  (SECONDS per target, a positive integer)" >&2
  exit 2
fi
targets="${FUZZ_TARGETS:-frame_decoder envelope_classifier initialize_patcher command_arguments mcp_tool_arguments syntax_extractor}"
sanitizer="${FUZZ_SANITIZER:-none}"
export CARGO_BUILD_JOBS="${FUZZ_JOBS:-2}"

skip() {
  if [ "${FUZZ_REQUIRED:-0}" = 1 ]; then
    echo "fuzz: cannot run: $1 (FUZZ_REQUIRED=1)" >&2
    exit 1
  fi
  echo "fuzz: skipped: $1"
  exit 0
}

command -v cargo >/dev/null 2>&1 || skip "cargo is not installed"
if ! command -v rustup >/dev/null 2>&1; then
  skip "rustup is not installed, so no nightly toolchain can be selected (cargo-fuzz needs nightly)"
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  skip "no nightly toolchain (cargo-fuzz needs one: rustup toolchain install nightly)"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet || skip "cargo-fuzz could not be installed"
fi

# A short run (60 s or less per target: the test command's) builds the dev profile at opt-level 1
# without debug information: measured on the 2-core machine, 6.5 minutes to build against 10
# for release, and about half release's executions per second (2,800 against 5,200 on
# command_arguments), plenty for a smoke run. A longer run builds release. Both keep debug
# assertions (integer overflow panics).
if [ "$seconds" -le 60 ]; then
  profile=(--dev)
  export CARGO_PROFILE_DEV_OPT_LEVEL=1 CARGO_PROFILE_DEV_DEBUG=0
  profile_name="dev at opt-level 1"
else
  profile=(--release --debug-assertions)
  profile_name="release"
fi
echo "== building fuzz targets (nightly, $profile_name, debug assertions, sanitizer $sanitizer)"
build_start=$SECONDS
cargo +nightly fuzz build "${profile[@]}" --sanitizer "$sanitizer"
echo "   built in $((SECONDS - build_start)) s"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
artifacts_root="${FUZZ_ARTIFACTS:-$PWD/fuzz/artifacts}"
failed=()
for target in $targets; do
  corpus="$work/corpus/$target"
  artifacts="$artifacts_root/$target"
  mkdir -p "$corpus" "$artifacts"
  cp fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  log="$work/$target.log"
  echo "== fuzzing $target for $seconds s"
  # -rss_limit_mb and -timeout: a leak or a hang is a failure too. -max_len keeps inputs to
  # a few frames so each run stays fast.
  status=0
  cargo +nightly fuzz run "${profile[@]}" --sanitizer "$sanitizer" "$target" "$corpus" -- \
    -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed 's/^/   /' || true
  if [ "$status" -ne 0 ]; then
    cp "$log" "$artifacts/$target.log"
    echo "!! $target failed (exit $status); last lines of the log:" >&2
    grep -E -A12 'panicked at|ERROR: libFuzzer|SUMMARY' "$log" | head -40 >&2 || tail -40 "$log" >&2
    echo "!! crashing input and full log in $artifacts/; reproduce with:" >&2
    echo "   cargo +nightly fuzz run ${profile[*]} --sanitizer $sanitizer $target $artifacts/<crash-file>" >&2
    failed+=("$target")
  else
    rmdir "$artifacts" 2>/dev/null || true
  fi
  if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
    mkdir -p "$FUZZ_KEEP_CORPUS/$target"
    cp -r "$corpus"/. "$FUZZ_KEEP_CORPUS/$target"/
  fi
done
rmdir "$artifacts_root" 2>/dev/null || true

total=$(echo $targets | wc -w)
echo "fuzz: each target ran for $seconds s"
# The plain closing line that test-log readers understand.
echo "fuzz: $((total - ${#failed[@]})) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
