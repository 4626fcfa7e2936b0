#!/usr/bin/env node
// Runs the devcoach binary that npm installed for this machine: each platform's binary ships in
// its own package, listed as an optional dependency, so npm fetches only the one that fits and
// nothing is downloaded from anywhere else.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const key = `${process.platform}-${process.arch}`;
const pkg = `@devcoach-rs/devcoach-${key}`;
const exe = process.platform === "win32" ? "devcoach.exe" : "devcoach";

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  const hook = /-hook$|^lesson-ready$/.test(process.argv[2] || "");
  if (hook) process.exit(0); // an agent's turn is never broken by a missing build
  console.error(
    `devcoach: this install has no build for ${key} (${pkg} is missing).\n` +
      "Reinstall without --no-optional, or install devcoach another way: https://github.com/devcoach-rs/devcoach#install",
  );
  process.exit(1);
}

const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (run.error) {
  console.error(`devcoach: could not start ${binary}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
