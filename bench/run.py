#!/usr/bin/env python3
"""Times whole devcoach commands against the release binary and reports peak memory.

Each command runs `--runs` times (after warm-up runs), the commands taking turns round by round;
the report gives the median, p95 and fastest wall time, and the peak resident set size measured
with `/usr/bin/time -f %M` on one extra run.
`/bin/true` is measured the same way: it is the floor of spawning any process here.

Usage: bench/run.py [--runs N] [--json OUT] -- NAME=COMMAND [NAME=COMMAND ...]
       (COMMAND is split on spaces; `COMMAND < FILE` feeds FILE on stdin, as an agent feeds a
       hook its payload; DEVCOACH_DIR and other environment are inherited)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def once(argv, stdin, **kw):
    return subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=False, **kw)


def summary(argv, stdin, samples):
    timed = once(["/usr/bin/time", "-f", "%M", *argv], stdin, stderr=subprocess.PIPE)
    peak_kib = int(timed.stderr.decode().strip().splitlines()[-1])
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 3),
        "min_ms": round(samples[0], 3),
        "peak_rss_mib": round(peak_kib / 1024, 2),
        "runs": len(samples),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json")
    parser.add_argument("commands", nargs="+")
    args = parser.parse_args()
    commands = []
    for spec in args.commands:
        name, _, command = spec.partition("=")
        command, _, stdin_file = command.partition(" < ")
        stdin = open(stdin_file, "rb").read() if stdin_file else b""
        commands.append((name, command.split(" "), stdin, []))
    # Round by round, every command once a round: this machine's speed drifts by a quarter
    # within minutes, and interleaved runs put the drift on every command alike (the floor too).
    for _ in range(5):
        for _, argv, stdin, _ in commands:
            once(argv, stdin, stderr=subprocess.DEVNULL)
    for _ in range(args.runs):
        for _, argv, stdin, samples in commands:
            start = time.perf_counter()
            proc = once(argv, stdin, stderr=subprocess.DEVNULL)
            samples.append((time.perf_counter() - start) * 1000)
            if proc.returncode != 0:
                sys.exit(f"{argv} exited {proc.returncode}")
    results = {}
    for name, argv, stdin, samples in commands:
        results[name] = r = summary(argv, stdin, samples)
        print(f"{name:<28} median {r['median_ms']:7.3f} ms   p95 {r['p95_ms']:7.3f} ms   min {r['min_ms']:7.3f} ms   peak {r['peak_rss_mib']:6.2f} MiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
