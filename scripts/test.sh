#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then runs them.
# Used by the README and by .ci/run.
#
# Installs (once, skipped when present):
#   - Debian's chromium and its emoji font, for the browser tests (share codes decoded by
#     DecompressionStream; the dashboard driven by Playwright, screenshots in target/screenshots);
#   - Debian's Go toolchain, for the hands-on test that rebuilds a function of a Go project;
#   - the official Python MCP SDK in target/pyenv, for the "client we did not write" test;
#   - Node.js and npm (Debian's) when missing, then the real agent CLIs (Claude Code, Gemini
#     CLI, Codex CLI, Copilot CLI, Qwen Code, Droid, the MCPB packer) at the versions pinned in
#     tests/clients/agents, into
#     target/agents, for the install/plugin tests against the agents themselves, and
#     playwright-core (tests/browser) into target/browser;
#   - Wine and the MinGW cross compiler (Debian's) and Rust's x86_64-pc-windows-gnu standard
#     library, then devcoach built for Windows into target/wine, for the test of the Windows
#     plugin launcher (tests/windows).
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

if ! command -v go >/dev/null 2>&1; then
  echo "installing Go (Debian's golang-go: the hands-on test on a Go project)…" >&2
  apt_install golang-go
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

# The Windows build and Wine, for the batch launcher test (tests/windows/README.md).
if [ -z "${DEVCOACH_TEST_WINE:-}" ]; then
  if ! { [ -x /usr/lib/wine/wine64 ] && command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; }; then
    echo "installing Wine and the MinGW cross compiler (Windows launcher test)…" >&2
    apt_install wine64 gcc-mingw-w64-x86-64
  fi
  if ! command -v rustup >/dev/null 2>&1; then
    echo "rustup is required for the Windows launcher test (it adds the x86_64-pc-windows-gnu target), or set DEVCOACH_TEST_WINE" >&2
    exit 1
  fi
  if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
    rustup target add x86_64-pc-windows-gnu >&2
  fi
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    cargo build -p devcoach --bin devcoach --locked --target x86_64-pc-windows-gnu
  mkdir -p target/wine/bin
  cp target/x86_64-pc-windows-gnu/debug/devcoach.exe target/wine/bin/devcoach.exe
  x86_64-w64-mingw32-gcc -shared -O2 -o target/wine/bin/bcryptprimitives.dll tests/windows/bcryptprimitives.c -ladvapi32
  x86_64-w64-mingw32-gcc -O2 -o target/wine/standin.exe tests/windows/standin.c
  x86_64-w64-mingw32-gcc -O2 -o target/wine/broken.exe tests/windows/broken.c
  if [ ! -f target/wine/prefix/system.reg ]; then
    WINEPREFIX="$PWD/target/wine/prefix" WINEDEBUG=-all /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1 || true
  fi
fi

cargo build --workspace --locked --all-targets
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
  cargo test --workspace --locked --doc
else
  cargo test --workspace --locked --no-fail-fast
fi
