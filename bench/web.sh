#!/usr/bin/env bash
# The dashboard under load: requests per second and latency of its busiest pages on a
# 10,000-lesson database (wrk, 2 threads, 16 connections, loopback), then 60 s of mixed
# traffic with the server's resident memory sampled every 5 s. Figures go to
# docs/PERFORMANCE.md (budget: >= 5,000 req/s for the lessons list and a lesson page, memory
# flat under sustained load).
#   DURATION=10 (seconds per page)  SOAK=60 (seconds of mixed traffic)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "bench/web.sh needs wrk (apt-get install wrk)" >&2; exit 1; }
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
export DEVCOACH_DIR=$WORK/data
"$BIN" demo --dir "$DEVCOACH_DIR" >/dev/null
python3 bench/seed.py "$DEVCOACH_DIR/coaching.db" 9970
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" ui --port "$PORT" >"$WORK/ui.log" 2>&1 &
PID=$!
BASE=http://127.0.0.1:$PORT
for _ in $(seq 100); do curl -fs "$BASE/ping" >/dev/null && break; sleep 0.1; done
curl -fs "$BASE/ping" >/dev/null || { cat "$WORK/ui.log" >&2; exit 1; }

DURATION=${DURATION:-10}
SOAK=${SOAK:-60}
mkdir -p bench/out
OUT=bench/out/web.txt
: >"$OUT"
rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$PID/status"; }
echo "lessons in the database: $(curl -fs "$BASE/lessons" | grep -o 'of [0-9]* · page' | head -1 | tr -dc 0-9)" | tee -a "$OUT"

# The first request after someone commits reads the lessons again (the cache is per version).
echo "first request after a write (ms, median of 9):" | tee -a "$OUT"
for path in "/lessons" "/lessons?search=redis%20practice&level=mid" "/progress" "/knowledge"; do
  times=()
  for i in $(seq 9); do
    "$BIN" star bench-00001 >/dev/null; "$BIN" unstar bench-00001 >/dev/null
    times+=("$(curl -fs -o /dev/null -w '%{time_total}' "$BASE$path")")
  done
  printf '  %-44s %s\n' "$path" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 5p | awk '{printf "%.1f", $1*1000}')" | tee -a "$OUT"
done
echo | tee -a "$OUT"
printf '%-44s %10s %9s %9s\n' "page" "req/s" "p50 ms" "p99 ms" | tee -a "$OUT"
for path in \
  "/lessons" \
  "/lessons?page=37" \
  "/lessons?search=redis%20practice&level=mid" \
  "/lessons?category=bench&sort=title&order=asc&page=5" \
  "/lessons/bench-04242" \
  "/knowledge" \
  "/progress" \
  "/static/app.css"; do
  curl -fs -o /dev/null "$BASE$path" || { echo "GET $path failed" >&2; exit 1; }
  wrk -t2 -c16 -d"${DURATION}s" --latency "$BASE$path" >"$WORK/wrk.txt"
  grep -q "Non-2xx" "$WORK/wrk.txt" && { cat "$WORK/wrk.txt" >&2; exit 1; }
  awk -v p="$path" '
    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
    /^ +50%/ {p50=ms($2)} /^ +99%/ {p99=ms($2)} /^Requests\/sec/ {rps=$2}
    END {printf "%-44s %10.0f %9.2f %9.2f\n", p, rps, p50, p99}' "$WORK/wrk.txt" | tee -a "$OUT"
done

# Sustained mixed traffic: every connection walks through many distinct filters and pages,
# so the list cache keeps filling and evicting.
cat >"$WORK/mix.lua" <<'LUA'
local paths = {}
local words = {"rust", "redis", "sql", "git", "docker", "practice", "lesson", "measure", "tip", "code"}
for i = 1, 400 do
  local w = words[(i % #words) + 1]
  paths[#paths + 1] = "/lessons?search=" .. w .. "%20" .. (i % 97) .. "&page=" .. (i % 3 + 1)
  paths[#paths + 1] = "/lessons?page=" .. (i % 400 + 1)
  paths[#paths + 1] = "/lessons/bench-" .. string.format("%05d", i * 17 % 9970)
end
paths[#paths + 1] = "/knowledge"
paths[#paths + 1] = "/progress"
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n % #paths) + 1])
end
LUA
echo | tee -a "$OUT"
echo "sustained mixed load, ${SOAK} s; resident memory (MiB) every 2 s:" | tee -a "$OUT"
before=$(rss)
wrk -t2 -c16 -d"${SOAK}s" -s "$WORK/mix.lua" "$BASE" >"$WORK/soak.txt" &
WRK=$!
samples=()
for _ in $(seq $((SOAK / 2))); do sleep 2; samples+=("$(rss)"); done
wait "$WRK"
echo "  before: $before  during: ${samples[*]}" | tee -a "$OUT"
awk '/^Requests\/sec/ {printf "  %s req/s over the soak\n", $2}' "$WORK/soak.txt" | tee -a "$OUT"
python3 - "${samples[@]}" <<'PY' | tee -a "$OUT"
import sys
s = [float(x) for x in sys.argv[1:]]
# Flat means no upward trend: the second half never climbs above the first half's peak
# (allocator noise aside). A leak shows as a staircase and fails this.
first, second = s[: len(s) // 2], s[len(s) // 2 :]
growth = max(second) - max(first)
print(f"  peak first half {max(first):.1f} MiB, second half {max(second):.1f} MiB (growth {growth:+.1f} MiB)")
sys.exit(0 if growth < 8 else 1)
PY
