#!/usr/bin/env bash
# The full form of the reliability suites (docs/RELIABILITY.md): two minutes of torture, a
# hundred crashes, the attack tests, and ten minutes of fuzzing per target. Figures land in
# target/reliability/ and fuzz/ (findings in fuzz/artifacts/). About 75 minutes on 2 cores.
#   TORTURE_SECONDS=120 CRASH_ROUNDS=100 FUZZ_SECONDS=600
set -euo pipefail
cd "$(dirname "$0")/.."
export DEVCOACH_TORTURE_SECONDS="${TORTURE_SECONDS:-120}"
export DEVCOACH_CRASH_ROUNDS="${CRASH_ROUNDS:-100}"
cargo nextest run -p devcoach --no-capture -E 'test(torture::) | test(failure_modes::) | test(concurrency::)'
cargo nextest run -p devcoach-web -p devcoach-net -E 'test(security::) | test(fetch)'
cat target/reliability/*.txt
FUZZ_SECONDS="${FUZZ_SECONDS:-600}" scripts/fuzz-smoke.sh
