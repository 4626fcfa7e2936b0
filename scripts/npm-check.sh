#!/usr/bin/env bash
# The npm packages as a user gets them, offline: packs the main package and this machine's
# platform package (with the binary a release build made), installs both tarballs into an empty
# folder from the local files only, then runs `npx devcoach --version` and an MCP `initialize`
# through `npx devcoach mcp` from an empty HOME.
#   scripts/npm-check.sh [BINARY]   (default: target/dist/devcoach; build it with scripts/release.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/dist/devcoach}
[ -x "$BIN" ] || { echo "no binary at $BIN: run scripts/release.sh first" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64 ;;
  Linux-aarch64) PLATFORM=linux-arm64 ;;
  Darwin-x86_64) PLATFORM=darwin-x64 ;;
  Darwin-arm64) PLATFORM=darwin-arm64 ;;
  *) echo "no npm platform package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r packaging/npm/devcoach "$WORK/main"
cp -r "packaging/npm/platforms/$PLATFORM" "$WORK/platform"
mkdir -p "$WORK/platform/bin" "$WORK/tarballs" "$WORK/app" "$WORK/home"
cp "$BIN" "$WORK/platform/bin/devcoach"
(cd "$WORK/main" && npm pack --silent --pack-destination "$WORK/tarballs" >/dev/null)
(cd "$WORK/platform" && npm pack --silent --pack-destination "$WORK/tarballs" >/dev/null)
ls "$WORK/tarballs"
cd "$WORK/app"
export NPM_CONFIG_UPDATE_NOTIFIER=false
npm init -y >/dev/null
# Offline, from the two local tarballs: the other platforms' optional packages are skipped.
npm install --offline --no-audit --no-fund --loglevel=error "$WORK"/tarballs/*.tgz
export HOME="$WORK/home"
npx --offline devcoach --version
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"npm-check","version":"1"}}}'
REPLY=$(printf '%s\n' "$INIT" | timeout 20 npx --offline devcoach mcp 2>/dev/null | head -1)
echo "$REPLY" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); assert r["result"]["serverInfo"]["name"]=="devcoach", r; print("npx devcoach mcp: initialize ok")'
