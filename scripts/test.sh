#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then runs them.
# Used by the README and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Snapshots are compared, never written, while testing (review changes with INSTA_UPDATE=always).
export INSTA_UPDATE=no
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is required: install Rust from https://rustup.rs" >&2
  exit 1
fi

cargo build --workspace --locked --all-targets
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
  cargo test --workspace --locked --doc
else
  cargo test --workspace --locked --no-fail-fast
fi
