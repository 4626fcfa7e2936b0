#!/usr/bin/env bash
# Restore and backup of a very large backup (550,000 lessons, about 2 MB zipped): wall time and
# peak memory of the release binary. The restore streams every array, so its peak memory must
# not grow with the number of lessons. Figures go to docs/PERFORMANCE.md ("Backups at scale").
set -euo pipefail
cd "$(dirname "$0")/.."
LESSONS=${LESSONS:-550000}
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home
export DEVCOACH_DIR=$WORK/data
python3 - "$WORK/big.zip" "$LESSONS" <<'PY'
import json, sys, zipfile
path, n = sys.argv[1], int(sys.argv[2])
def lessons():
    yield "["
    for i in range(n):
        # The fields a lesson record must have, as a minimal hostile backup would carry them.
        lesson = {"id": f"l{i}", "timestamp": "2026-01-01T10:00:00.000Z", "topic_id": "rust",
                  "categories": [], "title": "A lesson", "level": "mid", "summary": "Short."}
        yield ("," if i else "") + json.dumps(lesson)
    yield "]"
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    with z.open("lessons.json", "w") as f:
        for chunk in lessons():
            f.write(chunk.encode())
PY
echo "backup: $LESSONS lessons, $(du -h "$WORK/big.zip" | cut -f1) zipped"
measure() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f %M -o "$WORK/rss" "$@" >/dev/null
  end=$(date +%s.%N)
  printf '%-28s %8.2f s   peak %6.1f MiB\n' "$name" "$(echo "$end - $start" | bc)" "$(echo "$(cat "$WORK/rss") / 1024" | bc -l)"
}
measure "restore into an empty store" "$BIN" restore "$WORK/big.zip"
measure "restore again (all present)" "$BIN" restore "$WORK/big.zip"
measure "backup of that store" "$BIN" backup "$WORK/out.zip"
