#!/usr/bin/env python3
"""MCP server figures against the release binary: spawn→initialize, tools/list, get_lessons
(limit 10 on a 1,000-lesson database), get_profile, get_briefing, get_onboarding, the rate-limit
resource, log_lesson, and the server's peak RSS.

Usage: bench/mcp.py BINARY DATA_DIR [--runs N] [--json OUT]
Each timing is a full request→response round trip over the stdio pipes, measured here.
"""
import argparse
import json
import os
import statistics
import subprocess
import time


class Server:
    def __init__(self, binary, data_dir, prefix=()):
        env = dict(os.environ, DEVCOACH_DIR=data_dir)
        self.started = time.perf_counter()
        # Buffered pipes: an unbuffered readline reads one byte per syscall and would dominate.
        # `prefix`: arguments before `mcp` (a script, when the binary is an interpreter).
        self.proc = subprocess.Popen([binary, *prefix, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        t0 = time.perf_counter()
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        t1 = time.perf_counter()
        reply = json.loads(line)
        if "error" in reply or reply.get("result", {}).get("isError"):
            raise SystemExit(f"{method} failed: {line[:300]}")
        return (t1 - t0) * 1000, reply

    def notify(self, method):
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def peak_rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=5)


INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def summary(samples):
    samples = sorted(samples)
    return {"median_ms": round(statistics.median(samples), 4), "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 4),
            "runs": len(samples)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("data_dir")
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--json")
    args = parser.parse_args()

    spawn_init = []
    for _ in range(50):
        s = Server(args.binary, args.data_dir)
        t0 = s.started
        s.request("initialize", INIT)
        spawn_init.append((time.perf_counter() - t0) * 1000)
        s.close()

    s = Server(args.binary, args.data_dir)
    s.request("initialize", INIT)
    s.notify("notifications/initialized")
    results = {"spawn → initialize": summary(spawn_init)}
    calls = {
        "ping (round-trip floor)": ("ping", None),
        "tools/list": ("tools/list", None),
        "get_lessons (limit 10)": ("tools/call", {"name": "get_lessons", "arguments": {"limit": 10}}),
        "get_profile": ("tools/call", {"name": "get_profile", "arguments": {}}),
        "get_briefing": ("tools/call", {"name": "get_briefing", "arguments": {}}),
        "get_onboarding": ("tools/call", {"name": "get_onboarding", "arguments": {}}),
        "rate limit (resource)": ("resources/read", {"uri": "devcoach://rate-limit"}),
    }
    for name, (method, params) in calls.items():
        for _ in range(20):
            s.request(method, params)
        results[name] = summary([s.request(method, params)[0] for _ in range(args.runs)])
    logs = []
    for i in range(args.runs):
        params = {"name": "log_lesson", "arguments": {
            "id": f"bench-log-{i}", "topic_id": "rust", "categories": ["rust"], "title": f"Bench {i}",
            "level": "mid", "summary": "s", "body": "Body.\n\n💡 *Senior tip:* measure."}}
        logs.append(s.request("tools/call", params)[0])
    results["log_lesson"] = summary(logs)
    results["peak RSS (MiB)"] = round(s.peak_rss_mib(), 2)
    s.close()
    for name, r in results.items():
        if isinstance(r, dict):
            print(f"{name:<26} median {r['median_ms']:8.4f} ms   p95 {r['p95_ms']:8.4f} ms")
        else:
            print(f"{name:<26} {r}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
