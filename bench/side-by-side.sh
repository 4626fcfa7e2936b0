#!/usr/bin/env bash
# Ours against the original TypeScript devcoach on one 1,000-lesson database (the demo learner
# plus bench/seed.py, its course set aside), runs interleaved: hooks, stats, profile, lessons,
# MCP start, get_lessons (time and answer size) and log_lesson, with the ratio of each.
#
#   ORIGINAL="node /src/dev-coach/dist/bin.js" bench/side-by-side.sh
#
# ORIGINAL is the command that starts the original; docs/PERFORMANCE.md ("Side by side with the
# original") says how to build it. RUNS (default 100) sets the runs per figure.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ORIGINAL:-}" ]; then
  echo "Set ORIGINAL to the command that starts the original devcoach, e.g." >&2
  echo "  ORIGINAL=\"node /src/dev-coach/dist/bin.js\" bench/side-by-side.sh" >&2
  echo "docs/PERFORMANCE.md, \"Side by side with the original\", says how to build it." >&2
  exit 2
fi
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home
mkdir -p "$HOME"
export DEVCOACH_DIR=$WORK/data
"$BIN" demo --dir "$DEVCOACH_DIR" >/dev/null
python3 bench/seed.py "$DEVCOACH_DIR/coaching.db" 970
python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute(\"UPDATE courses SET status = 'abandoned' WHERE status = 'active'\"); db.commit()" "$DEVCOACH_DIR/coaching.db"
mkdir -p bench/out
python3 bench/side_by_side.py "$BIN" "$ORIGINAL" "$DEVCOACH_DIR" --runs "${RUNS:-100}" --json bench/out/side-by-side.json
