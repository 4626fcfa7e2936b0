#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then runs them.
# Used by the README and by .ci/run.
#
# Installs (once, skipped when present):
#   - Debian's chromium and its emoji font, for the browser tests (share codes decoded by
#     DecompressionStream; the dashboard driven by Playwright, screenshots in target/screenshots);
#   - the official Python MCP SDK in target/pyenv, for the "client we did not write" test;
#   - Node.js and npm (Debian's) when missing, then the real agent CLIs (Claude Code, Gemini
#     CLI, Codex CLI, Copilot CLI, Qwen Code, Droid, the MCPB packer) at the versions pinned in
#     tests/clients/agents, into
#     target/agents, for the install/plugin tests against the agents themselves, and
#     playwright-core (tests/browser) into target/browser.
set -euo pipefail
cd "$(dirname "$0")/.."

# Snapshots are compared, never written, while testing (review changes with INSTA_UPDATE=always).
export INSTA_UPDATE=no
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is required: install Rust from https://rustup.rs" >&2
  exit 1
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "need root to run: $*" >&2
    return 1
  fi
}

apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null \
    || { as_root apt-get update -q >/dev/null && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
}

if [ -z "${DEVCOACH_TEST_CHROMIUM:-}" ] && ! { [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/truetype/noto ]; }; then
  echo "installing chromium (browser tests)…" >&2
  apt_install chromium fonts-noto-color-emoji
fi

if ! command -v npm >/dev/null 2>&1 && { [ -z "${DEVCOACH_TEST_AGENTS:-}" ] || [ -z "${DEVCOACH_TEST_BROWSER:-}" ]; }; then
  echo "installing Node.js and npm (agent CLI and browser tests)…" >&2
  apt_install nodejs npm
fi

if [ -z "${DEVCOACH_TEST_PYTHON:-}" ] && ! target/pyenv/bin/python -c 'import mcp' >/dev/null 2>&1; then
  echo "installing the Python MCP SDK into target/pyenv (client interop test)…" >&2
  python3 -m venv target/pyenv
  target/pyenv/bin/pip install -q 'mcp==2.3.0'
fi

# target/agents/.installed holds a copy of the lock once an install has finished.
if [ -z "${DEVCOACH_TEST_AGENTS:-}" ] && ! cmp -s tests/clients/agents/package-lock.json target/agents/.installed; then
  echo "installing the agent CLIs into target/agents (Claude Code, Gemini CLI, Codex CLI, Copilot CLI, Qwen Code, Droid, mcpb)…" >&2
  rm -rf target/agents
  mkdir -p target/agents
  cp tests/clients/agents/package.json tests/clients/agents/package-lock.json target/agents/
  # `npm install` with the lock, not `npm ci`: npm 11 records only this platform's entry of an
  # optional per-platform dependency (Qwen Code's clipboard module) and `npm ci` then refuses the
  # lock as out of sync. The locked versions are installed either way (the copy here may change).
  (cd target/agents && npm install --no-audit --no-fund --loglevel=error)
  cp tests/clients/agents/package-lock.json target/agents/.installed
fi

# target/browser/.installed likewise, for playwright-core.
if [ -z "${DEVCOACH_TEST_BROWSER:-}" ] && ! cmp -s tests/browser/package-lock.json target/browser/.installed; then
  echo "installing playwright-core into target/browser (dashboard browser test)…" >&2
  rm -rf target/browser
  mkdir -p target/browser
  cp tests/browser/package.json tests/browser/package-lock.json target/browser/
  (cd target/browser && npm ci --no-audit --no-fund --loglevel=error)
  cp tests/browser/package-lock.json target/browser/.installed
fi

cargo build --workspace --locked --all-targets
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
  cargo test --workspace --locked --doc
else
  cargo test --workspace --locked --no-fail-fast
fi
