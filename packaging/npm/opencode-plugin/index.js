// devcoach for OpenCode and Kilo Code, as an npm package (the same plugin
// `devcoach install` writes). Both agents take plugins, not hook commands: this plugin runs devcoach's
// hook for the agent at the two moments that matter and hands the answer back.
//
// - When a session goes idle (a turn ended), `devcoach <agent>-stop-hook` decides whether a lesson
//   is due; if so, its cue is sent to the session as the next prompt. The idle that follows our
//   own prompt is marked as the re-entry, so the cue is never sent twice in a row.
// - When a message is sent, `devcoach <agent>-prompt-hook` may add a short note for the model.
//
// Nothing here reads or keeps what you write: the hook gets only the session id.

import { spawn } from "node:child_process";

import { createRequire } from "node:module";

// Which devcoach to run: DEVCOACH_BIN, else the build `@devcoach-rs/devcoach` brought for this machine,
// else `devcoach` on PATH.
function findDevcoach() {
  if (process.env.DEVCOACH_BIN) return process.env.DEVCOACH_BIN;
  const exe = process.platform === "win32" ? "devcoach.exe" : "devcoach";
  try {
    const require = createRequire(import.meta.url);
    return require.resolve(`@devcoach-rs/devcoach-${process.platform}-${process.arch}/bin/${exe}`);
  } catch {
    return "devcoach";
  }
}

const DEVCOACH = findDevcoach();
// One package for both agents: Kilo Code is OpenCode's fork and runs the same plugins.
const AGENT = /kilo/i.test(process.execPath || "") ? "kilo" : "opencode";
const TIMEOUT_MS = 30000;
const MAX_ANSWER = 1 << 20;

/** Runs one devcoach hook with a JSON payload; its JSON answer, or null on any failure. */
function hook(kind, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(DEVCOACH, [`${AGENT}-${kind}-hook`], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve(null);
      return;
    }
    let out = "";
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.length > MAX_ANSWER) child.kill();
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        const answer = out.trim() ? JSON.parse(out) : null;
        resolve(answer && typeof answer === "object" ? answer : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const DevcoachPlugin = async ({ client }) => {
  // Sessions whose next idle follows the cue we sent: that stop is the re-entry.
  const answering = new Set();
  return {
    event: async ({ event }) => {
      if (!event || event.type !== "session.idle") return;
      const id = event.properties && event.properties.sessionID;
      if (typeof id !== "string" || id === "") return;
      const reentry = answering.delete(id);
      const answer = await hook("stop", { sessionID: id, stop_hook_active: reentry });
      if (!answer || answer.decision !== "block" || typeof answer.reason !== "string") return;
      answering.add(id);
      try {
        await client.session.prompt({ path: { id }, body: { parts: [{ type: "text", text: answer.reason }] } });
      } catch {
        answering.delete(id);
      }
    },
    "chat.message": async (input, output) => {
      const id = input && input.sessionID;
      if (typeof id !== "string" || !output || !Array.isArray(output.parts)) return;
      // Our own cue carries its instructions already: a note on top would only repeat them.
      if (answering.has(id)) return;
      const answer = await hook("prompt", { sessionID: id });
      const text = answer && answer.additionalContext;
      if (typeof text !== "string" || text === "") return;
      // OpenCode saves the part as is: it needs an id starting with "prt", the ids of its message
      // and session, and `synthetic` so that the model sees it but the user does not.
      const first = output.parts[0] || {};
      const messageID = (output.message && output.message.id) || first.messageID || input.messageID;
      if (typeof messageID !== "string" || messageID === "") return;
      const partID = typeof first.id === "string" && first.id.startsWith("prt") ? `${first.id}-devcoach` : `prt_devcoach-${messageID}`;
      output.parts.push({ id: partID, sessionID: id, messageID, type: "text", text, synthetic: true });
    },
  };
};
