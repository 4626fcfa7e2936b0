#!/usr/bin/env bash
# Sync of a 10,000-lesson record across three devices, through a folder (plain and encrypted)
# and through a bare git repository: wall time and peak memory of each step, and the size of
# what the devices share. Figures go to docs/SYNC.md and docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p devcoach
BIN=$PWD/target/dist/devcoach
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LESSONS=${LESSONS:-10000}
# Given only to the encrypted run: a passphrase says an encrypted folder is expected, and a
# plain one is then refused.
PASS=""

# One step: its wall seconds and peak resident memory (KiB), printed as a table row.
step() {
  local label=$1 dir=$2
  shift 2
  local out
  out=$( { /usr/bin/time -f "%e %M" env HOME="$dir" DEVCOACH_DIR="$dir/data" DEVCOACH_SYNC_PASSPHRASE="$PASS" "$BIN" "$@" >/dev/null 2>"$WORK/err"; } 2>&1 || true)
  # A step that failed is no figure: its words, and the benchmark stops.
  if grep -q 'exited with non-zero status' "$WORK/err" || ! tail -1 "$WORK/err" | grep -q '^[0-9.]* [0-9]*$'; then
    cat "$WORK/err" >&2
    exit 1
  fi
  read -r secs kib < <(tail -1 "$WORK/err")
  printf '| %s | %s s | %s MiB |\n' "$label" "$secs" "$((kib / 1024))"
}

run() {
  local name=$1 target=$2
  shift 2
  local a=$WORK/$name-a b=$WORK/$name-b c=$WORK/$name-c
  mkdir -p "$a" "$b" "$c"
  HOME=$a DEVCOACH_DIR=$a/data "$BIN" demo --dir "$a/data" >/dev/null
  python3 bench/seed.py "$a/data/coaching.db" "$LESSONS"
  echo
  echo "### $name ($LESSONS lessons)"
  echo
  echo "| step | wall | peak memory |"
  echo "|---|---|---|"
  step "device 1: sync init + first sync (logs every lesson)" "$a" sync init "$target" "$@"
  step "device 2: join (receives every lesson)" "$b" sync init "$target" "$@"
  step "device 3: join" "$c" sync init "$target" "$@"
  step "device 1: sync with nothing new" "$a" sync
  for i in $(seq 0 9); do HOME=$a DEVCOACH_DIR=$a/data "$BIN" star "bench-0000$i" >/dev/null; done
  step "device 1: sync after starring 10 lessons" "$a" sync
  step "device 2: sync receiving them" "$b" sync
  local where=$target
  case $target in file://*) where=${target#file://} ;; esac
  echo
  echo "Shared: $(du -sh --apparent-size "$where" | cut -f1) in $(find "$where" -type f -not -path '*/objects/*' | wc -l) files (du -sh --apparent-size); the database of device 1: $(du -sh --apparent-size "$a/data/coaching.db" | cut -f1)."
}

run folder "$WORK/shared-plain"
PASS="bench passphrase, not a secret"
run encrypted "$WORK/shared-encrypted" --encrypt
PASS=""
git init --quiet --bare "$WORK/record.git"
run git "file://$WORK/record.git"
