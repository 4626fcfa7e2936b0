#!/usr/bin/env bash
# MCP server latency and memory on a 1,000-lesson database (release binary); see bench/mcp.py.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN" demo --dir "$WORK/data" >/dev/null
python3 bench/seed.py "$WORK/data/coaching.db" 970
mkdir -p bench/out
python3 bench/mcp.py "$BIN" "$WORK/data" --runs "${RUNS:-500}" --json bench/out/mcp.json
