#!/usr/bin/env bash
# Sync's cost as the record and its history grow: at 1k, 10k, 50k and 100k lessons (plain
# folder), a device sets sync up, makes a history of 30 small syncs, a second device joins, and
# then: a sync with nothing new, 10,000 new lessons sent and received, `sync status`; beside it,
# a restore of the same record into an empty store (what a join is compared with). Wall time and
# peak resident memory of each command; and how long an agent's stop hook takes while the join
# holds the database. Figures go to docs/PERFORMANCE.md and docs/SYNC.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SIZES=${SIZES:-1000 10000 50000 100000}

# One command in a device's home: "wall s | peak MiB" into $WORK/last.
measure() {
  local dir=$1
  shift
  /usr/bin/time -f "%e %M" -o "$WORK/time" env HOME="$dir" DEVCOACH_DIR="$dir/data" "$BIN" "$@" >/dev/null 2>"$WORK/err" \
    || { cat "$WORK/err" >&2; exit 1; }
  read -r secs kib <"$WORK/time"
  printf '%s s · %s MiB' "$secs" "$((kib / 1024))" >"$WORK/last"
}

quiet() {
  local dir=$1
  shift
  env HOME="$dir" DEVCOACH_DIR="$dir/data" "$BIN" "$@" >/dev/null
}

STOP=$PWD/tests/fixtures/ts-0.9.5/hooks/stop-payload.json

# The slowest of up to ten stop hooks run one after another while a join is under way.
hook_during_join() {
  local dir=$1 shared=$2 joiner=$3
  env HOME="$joiner" DEVCOACH_DIR="$joiner/data" "$BIN" sync init "$shared" >/dev/null &
  local pid=$!
  python3 - "$BIN" "$dir" "$STOP" "$pid" <<'PY' >"$WORK/hook"
import os, subprocess, sys, time
binary, home, stop, pid = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read(), int(sys.argv[4])
env = dict(os.environ, HOME=home, DEVCOACH_DIR=home + "/data")
time.sleep(0.2)
worst, ran = 0.0, 0
for _ in range(10):
    try:
        os.kill(pid, 0)
    except OSError:
        break
    t = time.perf_counter()
    subprocess.run([binary, "stop-hook"], input=stop, env=env, stdout=subprocess.DEVNULL, check=True)
    worst, ran = max(worst, time.perf_counter() - t), ran + 1
print(f"{worst * 1000:.0f} ms ({ran} hooks)" if ran else "— (the join was over)")
PY
  wait "$pid"
}

echo "| lessons | first sync (logs all) | join | restore of the same record | nothing new | send 10,000 new | receive 10,000 new | status | folder | stop hook during a join |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  a=$WORK/$n-a b=$WORK/$n-b c=$WORK/$n-c shared=$WORK/$n-shared
  mkdir -p "$a" "$b" "$c"
  quiet "$a" demo --dir "$a/data"
  python3 bench/seed.py "$a/data/coaching.db" "$n"
  measure "$a" sync init "$shared"; first=$(cat "$WORK/last")
  # A history: 30 syncs of 5 stars each.
  for round in $(seq 1 30); do
    for k in 0 1 2 3 4; do quiet "$a" star "$(printf 'bench-%05d' $(((round * 5 + k) % n)))"; done
    quiet "$a" sync
  done
  measure "$b" sync init "$shared"; join=$(cat "$WORK/last")
  # A third device joins while an agent on it stops, ten times, against the store being joined.
  mkdir -p "$WORK/$n-d"
  hook_during_join "$WORK/$n-d" "$shared" "$WORK/$n-d"; hook=$(cat "$WORK/hook")
  quiet "$a" backup "$WORK/$n.zip"
  measure "$c" restore "$WORK/$n.zip"; restore=$(cat "$WORK/last")
  measure "$a" sync; nothing=$(cat "$WORK/last")
  python3 bench/seed.py "$a/data/coaching.db" 10000 "$n"
  measure "$a" sync; send=$(cat "$WORK/last")
  measure "$b" sync; receive=$(cat "$WORK/last")
  measure "$b" sync status; status=$(cat "$WORK/last")
  size="$(du -sh --apparent-size "$shared" | cut -f1), $(find "$shared" -type f | wc -l) files"
  echo "| $n | $first | $join | $restore | $nothing | $send | $receive | $status | $size | $hook |"
  rm -rf "$a" "$b" "$c" "$WORK/$n-d" "$shared" "$WORK/$n.zip"
done
