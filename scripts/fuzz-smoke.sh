#!/usr/bin/env bash
# Runs every fuzz target briefly on its committed corpus (CI), or longer with FUZZ_SECONDS.
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP lets the stable toolchain provide them.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${FUZZ_SECONDS:-10}"
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked --version 0.13.2
cd fuzz
cargo fuzz build -O
# Read the list first: a failing `cargo fuzz list` inside `for … in $(…)` would not stop the
# script, and no targets would pass as all of them.
targets=$(cargo fuzz list)
[ -n "$targets" ] || { echo "cargo fuzz list named no targets" >&2; exit 1; }
scratch="" log=""
trap 'rm -rf "$scratch" "$log"' EXIT
for target in $targets; do
  # A target without its seed corpus would stop at once, and the run below would not say so.
  if [ ! -d "corpus/$target" ]; then
    echo "fuzz target $target has no seed corpus: add fuzz/corpus/$target" >&2
    exit 1
  fi
  scratch=$(mktemp -d)
  log=$(mktemp)
  status=0
  # New inputs go to the scratch dir; the committed corpus is only read.
  cargo fuzz run -O "$target" "$scratch" "corpus/$target" -- \
    -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E "^(Done|stat::number_of_executed_units)|ERROR|panicked" "$log" || true
  rm -rf "$scratch"
  if [ -d "artifacts/$target" ] && [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
    echo "fuzz target $target found a crash: see fuzz/artifacts/$target" >&2
    exit 1
  fi
  # Every target must run its whole time: anything else (a missing corpus, a start-up failure)
  # would otherwise pass as a quiet target.
  if [ "$status" -ne 0 ] || ! grep -q "^Done" "$log"; then
    echo "fuzz target $target did not run to the end (exit $status):" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  rm -f "$log"
done
