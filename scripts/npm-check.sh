#!/usr/bin/env bash
# The npm packages as a user gets them, offline: packs the main package, this machine's
# platform package (with the binary a release build made) and the OpenCode/Kilo plugin, installs
# the tarballs into an empty folder from the local files only, then runs `npx devcoach --version`,
# an MCP `initialize` through `npx devcoach mcp` from an empty HOME, and the plugin on an idle
# session.
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
cp -r packaging/npm/opencode-plugin "$WORK/plugin"
(cd "$WORK/plugin" && npm pack --silent --pack-destination "$WORK/tarballs" >/dev/null)
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
# The OpenCode / Kilo plugin package finds the binary its dependency brought and, for a learner
# whose lesson is due, sends the cue back when the session goes idle.
export DEVCOACH_DIR="$WORK/home/.devcoach"
npx --offline devcoach knowledge-add rust 5 >/dev/null
npx --offline devcoach set nudge_every 1 >/dev/null
node --input-type=module -e '
const { DevcoachPlugin } = await import("@devcoach-rs/devcoach-opencode-plugin");
let sent = null;
const hooks = await DevcoachPlugin({ client: { session: { prompt: async (x) => { sent = x; } } } });
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "npm-check" } } });
const text = sent && sent.body.parts[0].text;
if (!text || !text.startsWith("devcoach:")) { console.error("no cue from the plugin package:", sent); process.exit(1); }
console.log("opencode plugin package: cue sent on idle");
'
