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
for target in $(cargo fuzz list); do
  scratch=$(mktemp -d)
  # New inputs go to the scratch dir; the committed corpus is only read.
  cargo fuzz run -O "$target" "$scratch" "corpus/$target" -- \
    -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -print_final_stats=1 2>&1 \
    | grep -E "^(Done|stat::number_of_executed_units)|ERROR|panicked" || true
  rm -rf "$scratch"
  if [ -d "artifacts/$target" ] && [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
    echo "fuzz target $target found a crash: see fuzz/artifacts/$target" >&2
    exit 1
  fi
done
