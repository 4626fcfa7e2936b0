#!/usr/bin/env bash
# The hooks an agent runs on every stop and prompt: wall time and peak memory of the release
# binary, due and not due, next to the cost of spawning /bin/true. Figures go to
# docs/PERFORMANCE.md (budget: median within 3 ms of the spawn floor, at most 6 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STOP=tests/fixtures/ts-0.9.5/hooks/stop-payload.json
PROMPT=tests/fixtures/ts-0.9.5/hooks/prompt-payload.json
BIG=$WORK/stop-big.json
python3 - "$STOP" "$BIG" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["last_assistant_message"] = "All done. " * 20000  # a ~200 KB final reply
json.dump(p, open(sys.argv[2], "w"))
PY

# A 1,000-lesson learner, three times: one whose next stop is paced, one whose every stop cues
# (neither in a course: the demo's course is set aside), and one in the middle of a course
# (lesson cues paused: the stop is not even counted).
for kind in paced due course; do
  export DEVCOACH_DIR=$WORK/$kind
  "$BIN" demo --dir "$DEVCOACH_DIR" >/dev/null
  python3 bench/seed.py "$DEVCOACH_DIR/coaching.db" 970
done
for kind in paced due; do
  python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute(\"UPDATE courses SET status = 'abandoned' WHERE status = 'active'\"); db.commit()" "$WORK/$kind/coaching.db"
done
DEVCOACH_DIR=$WORK/paced "$BIN" set nudge_every 1000 >/dev/null
DEVCOACH_DIR=$WORK/due "$BIN" set nudge_every 1 >/dev/null
DEVCOACH_DIR=$WORK/due "$BIN" set max_per_day 20 >/dev/null
DEVCOACH_DIR=$WORK/due "$BIN" set min_gap_minutes 0 >/dev/null
[ -n "$(DEVCOACH_DIR=$WORK/due "$BIN" stop-hook <"$STOP")" ] || { echo "due database does not cue" >&2; exit 1; }
[ -z "$(DEVCOACH_DIR=$WORK/paced "$BIN" stop-hook <"$STOP")" ] || { echo "paced database cues" >&2; exit 1; }
# Each learner takes the path it is named for (the hook's trace says which).
for kind in paced due course; do
  rm -f "$WORK/$kind/hook.log"
  DEVCOACH_DIR=$WORK/$kind DEVCOACH_HOOK_DEBUG=1 "$BIN" stop-hook <"$STOP" >/dev/null
done
grep -q "course in progress" "$WORK/course/hook.log" || { echo "course database not paused" >&2; exit 1; }
! grep -q "course in progress" "$WORK/paced/hook.log" "$WORK/due/hook.log" || { echo "paced/due still in a course" >&2; exit 1; }

mkdir -p bench/out
RUNS=${RUNS:-300}
run() { python3 bench/run.py --runs "$RUNS" --json "bench/out/hooks-$1.json" -- "${@:2}"; }
echo "# spawn floor and no database (onboarding cue)"
DEVCOACH_DIR=$WORK/none run floor \
  "spawn /bin/true=/bin/true" \
  "stop-hook, no database=$BIN stop-hook < $STOP"
echo "# paced: the stop counts and stays silent"
DEVCOACH_DIR=$WORK/paced run paced \
  "spawn /bin/true, alongside=/bin/true" \
  "stop-hook, paced=$BIN stop-hook < $STOP" \
  "stop-hook, paced, 200 KB=$BIN stop-hook < $BIG" \
  "prompt-hook, not due=$BIN prompt-hook < $PROMPT"
echo "# course: lesson cues paused while a course runs"
DEVCOACH_DIR=$WORK/course run course \
  "stop-hook, in a course=$BIN stop-hook < $STOP"
echo "# due: every stop cues (bump, rate limit, arm the retry window)"
DEVCOACH_DIR=$WORK/due run due \
  "stop-hook, due=$BIN stop-hook < $STOP" \
  "gemini-stop-hook, due=$BIN gemini-stop-hook < $STOP" \
  "prompt-hook, due=$BIN prompt-hook < $PROMPT"
