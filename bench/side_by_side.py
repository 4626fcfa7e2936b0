#!/usr/bin/env python3
"""Ours and the original devcoach, side by side on the same data, their runs interleaved so
that the machine's drift lands on both alike.

Usage: bench/side_by_side.py OURS ORIGINAL DATA_DIR [--runs N] [--json OUT]
  OURS      our binary (target/dist/devcoach)
  ORIGINAL  the command that starts the original, split on spaces ("node /src/dev-coach/dist/bin.js")
  DATA_DIR  a data folder holding coaching.db; each side runs on its own copy of it
Each figure is the median of N runs per side (default 100; MCP requests 10 × N); the ratio is
the original's median over ours.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp import INIT, Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures", "ts-0.9.5", "hooks")


def commands():
    stop = open(os.path.join(FIXTURES, "stop-payload.json"), "rb").read()
    prompt = open(os.path.join(FIXTURES, "prompt-payload.json"), "rb").read()
    return [
        ("stop-hook", ["stop-hook"], stop),
        ("prompt-hook", ["prompt-hook"], prompt),
        ("stats", ["stats"], b""),
        ("profile", ["profile"], b""),
        ("lessons", ["lessons"], b""),
    ]


def once(argv, data_dir, stdin):
    env = dict(os.environ, DEVCOACH_DIR=data_dir, NO_COLOR="1")
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return (time.perf_counter() - start) * 1000


def mcp_figures(argv, data_dir, runs):
    """Spawn → initialize (median of `runs` spawns), then get_lessons and log_lesson."""
    spawn = []
    for _ in range(runs):
        s = Server(argv[0], data_dir, argv[1:])
        s.request("initialize", INIT)
        spawn.append((time.perf_counter() - s.started) * 1000)
        s.close()
    s = Server(argv[0], data_dir, argv[1:])
    s.request("initialize", INIT)
    s.notify("notifications/initialized")
    lessons = {"name": "get_lessons", "arguments": {"limit": 10}}
    for _ in range(20):
        s.request("tools/call", lessons)
    timed = [s.request("tools/call", lessons) for _ in range(runs * 10)]
    answer = len(json.dumps(timed[-1][1]))
    logs = []
    for i in range(runs * 2):
        args = {"id": f"side-{i}", "topic_id": "rust", "categories": ["rust"], "title": f"Side {i}", "level": "mid",
                "summary": "s", "body": "Body.\n\n💡 *Senior tip:* measure."}
        logs.append(s.request("tools/call", {"name": "log_lesson", "arguments": args})[0])
    s.close()
    return {
        "MCP spawn → initialize": statistics.median(spawn),
        "MCP get_lessons (limit 10)": statistics.median(t for t, _ in timed),
        "MCP log_lesson": statistics.median(logs),
    }, answer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ours")
    p.add_argument("original")
    p.add_argument("data_dir")
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--json")
    a = p.parse_args()
    sides = {"ours": [a.ours], "original": a.original.split(" ")}
    work = tempfile.mkdtemp()
    try:
        dirs = {}
        for side in sides:
            dirs[side] = os.path.join(work, side)
            shutil.copytree(a.data_dir, dirs[side])
        results = {}
        for name, args, stdin in commands():
            samples = {side: [] for side in sides}
            for _ in range(5):
                for side, argv in sides.items():
                    once(argv + args, dirs[side], stdin)
            for _ in range(a.runs):
                for side, argv in sides.items():
                    samples[side].append(once(argv + args, dirs[side], stdin))
            results[name] = {side: statistics.median(v) for side, v in samples.items()}
        sizes = {}
        # Interleaved by rounds of a tenth of the runs, so both sides see the same stretch of time.
        mcp = {side: {} for side in sides}
        for _ in range(10):
            for side, argv in sides.items():
                figures, sizes[side] = mcp_figures(argv, dirs[side], max(1, a.runs // 10))
                for k, v in figures.items():
                    mcp[side].setdefault(k, []).append(v)
        for k in mcp["ours"]:
            results[k] = {side: statistics.median(mcp[side][k]) for side in sides}
        print(f"{'figure':<30} {'ours':>10} {'original':>10} {'ratio':>8}")
        for name, r in results.items():
            print(f"{name:<30} {r['ours']:8.3f} ms {r['original']:8.3f} ms {r['original'] / r['ours']:7.1f}×")
        print(f"{'get_lessons answer':<30} {sizes['ours']:8d} B  {sizes['original']:8d} B")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"figures": results, "get_lessons_bytes": sizes}, f, indent=2)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
