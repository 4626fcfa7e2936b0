#!/usr/bin/env bash
# Every command, hook and MCP read as the record grows: 1,000, 10,000 and 50,000 lessons (the
# demo learner plus bench/seed.py, its course set aside so the stop hook takes the paced path).
# Median wall time and peak resident memory of the release binary for each, and the MCP
# server's median per request; one table, for docs/PERFORMANCE.md. RUNS (default 30) sets the
# runs per figure, SIZES the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SIZES=${SIZES:-1000 10000 50000}
RUNS=${RUNS:-30}
STOP=$PWD/tests/fixtures/ts-0.9.5/hooks/stop-payload.json
PROMPT=$PWD/tests/fixtures/ts-0.9.5/hooks/prompt-payload.json
export HOME=$WORK/home
mkdir -p "$HOME"
for n in $SIZES; do
  export DEVCOACH_DIR=$WORK/$n
  "$BIN" demo --dir "$DEVCOACH_DIR" >/dev/null
  python3 bench/seed.py "$DEVCOACH_DIR/coaching.db" $((n - 30))
  python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute(\"UPDATE courses SET status = 'abandoned' WHERE status = 'active'\"); db.commit()" "$DEVCOACH_DIR/coaching.db"
  python3 bench/run.py --runs "$RUNS" --json "$WORK/cli-$n.json" -- \
    "spawn /bin/true=/bin/true" \
    "stats=$BIN stats" \
    "profile=$BIN profile" \
    "lessons --limit 10=$BIN lessons --limit 10" \
    "lessons (the table)=$BIN lessons" \
    "lessons --json=$BIN lessons --json" \
    "export --format xapi=$BIN export --format xapi" \
    "export --format anki=$BIN export --format anki" \
    "stop-hook=$BIN stop-hook < $STOP" \
    "prompt-hook=$BIN prompt-hook < $PROMPT" >/dev/null
  # The MCP server writes lessons as it is measured: on a copy.
  cp -r "$DEVCOACH_DIR" "$WORK/mcp-$n"
  python3 bench/mcp.py "$BIN" "$WORK/mcp-$n" --runs $((RUNS * 5)) --json "$WORK/mcp-$n.json" >/dev/null
done
python3 - "$WORK" $SIZES <<'PY'
import json, sys
work, sizes = sys.argv[1], sys.argv[2:]
cli = {n: json.load(open(f"{work}/cli-{n}.json")) for n in sizes}
mcp = {n: json.load(open(f"{work}/mcp-{n}.json")) for n in sizes}
print("| | " + " | ".join(f"{int(n):,} lessons" for n in sizes) + " |")
print("|---|" + "---|" * len(sizes))
for name in cli[sizes[0]]:
    cells = [f"{cli[n][name]['median_ms']:.2f} ms · {cli[n][name]['peak_rss_mib']:.1f} MiB" for n in sizes]
    print(f"| `{name}` | " + " | ".join(cells) + " |")
for name, r in mcp[sizes[0]].items():
    if isinstance(r, dict):
        cells = [f"{mcp[n][name]['median_ms']:.3f} ms" for n in sizes]
        print(f"| MCP `{name}` | " + " | ".join(cells) + " |")
print("| MCP server peak | " + " | ".join(f"{mcp[n]['peak RSS (MiB)']:.1f} MiB" for n in sizes) + " |")
PY
