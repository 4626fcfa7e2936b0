#!/usr/bin/env bash
# CLI read commands on a 1,000-lesson database: wall time and peak memory of the release binary,
# next to the cost of spawning /bin/true. Figures go to docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export DEVCOACH_DIR=$WORK/data
"$BIN" demo --dir "$DEVCOACH_DIR" >/dev/null
python3 bench/seed.py "$DEVCOACH_DIR/coaching.db" 970   # + 30 demo lessons = 1,000
echo "lessons in the database: $("$BIN" lessons --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["lessons"]))')"
mkdir -p bench/out
python3 bench/run.py --runs "${RUNS:-300}" --json bench/out/cli.json -- \
  "spawn /bin/true=/bin/true" \
  "devcoach --version=$BIN --version" \
  "devcoach stats=$BIN stats" \
  "devcoach lessons=$BIN lessons" \
  "devcoach lessons --json=$BIN lessons --json" \
  "devcoach lessons --limit 10=$BIN lessons --limit 10" \
  "devcoach profile=$BIN profile"
