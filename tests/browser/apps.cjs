// The lesson and review cards (MCP Apps) the way a chat host shows them: this script is the host.
// It runs `devcoach mcp` as a client that declares the extension, reads the two ui:// documents,
// makes real tool calls (log_lesson, get_due_reviews), and serves a host page that loads each
// document into a sandboxed frame with the official host-side bridge (AppBridge and
// PostMessageTransport from @modelcontextprotocol/ext-apps), hands it the tool's input and result,
// and relays the frame's tool calls to the server, refusing any tool whose `_meta.ui.visibility`
// leaves the frame out, as hosts must. Headless Chromium drives every card in light and dark at
// 390 and 1400 px with axe-core, clicks the answers, and checks that a hostile lesson is inert.
// Started by crates/cli/tests/it/browser.rs, which owns the data directory and checks the store.
//
// Environment: DEVCOACH (the binary; HOME and DEVCOACH_DIR already sandboxed), SCREENSHOTS,
// CHROMIUM, NODE_PATH (playwright-core, axe-core, esbuild and the ext-apps packages).
// Prints one JSON object with what it saw; exits 1 with the reasons on any failure.
"use strict";

const { chromium } = require("playwright-core");
const esbuild = require("esbuild");
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const readline = require("node:readline");
const { spawn } = require("node:child_process");

const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const WIDTHS = [1400, 390];
const THEMES = ["light", "dark"];
const EXTENSION = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const out = process.env.SCREENSHOTS;
const problems = [];
const seen = { axe: 0, states: [] };

function check(ok, what) {
  if (!ok) problems.push(what);
  return ok;
}

// ---- The MCP client: devcoach mcp over stdio ------------------------------------------------

class Mcp {
  constructor(bin) {
    this.child = spawn(bin, ["mcp"], { stdio: ["pipe", "pipe", "pipe"] });
    this.next = 1;
    this.waiting = new Map();
    this.child.stderr.on("data", () => {});
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        problems.push(`stdout carried a line that is not JSON-RPC: ${line.slice(0, 120)}`);
        return;
      }
      const waiting = this.waiting.get(message.id);
      if (waiting && message.method === undefined) {
        this.waiting.delete(message.id);
        waiting(message);
      }
    });
  }
  request(method, params) {
    const id = this.next++;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }
  async call(method, params) {
    const answer = await this.request(method, params);
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  }
  notify(method, params) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`);
  }
  close() {
    this.child.stdin.end();
  }
}

const LESSON = {
  id: "apps-card",
  topic_id: "postgresql",
  categories: ["Databases", "Performance"],
  title: "Why your new index may be ignored",
  level: "mid",
  summary: "The planner skips an index when the filter keeps most rows.",
  body:
    "The index on `orders(created_at)` only pays off when the planner expects the filter to keep a small " +
    "share of rows; for wide date ranges a sequential scan is cheaper.\n\n```sql\nEXPLAIN (ANALYZE, BUFFERS)\n" +
    "SELECT * FROM orders WHERE created_at > now() - interval '1 year';\n```\n\nSee the [manual](https://www.postgresql.org/docs/) " +
    "and [the planner notes](/docs/planner) nearby.\n\n" +
    "💡 *Senior tip:* Check plans on production-sized data.",
  task_context: "Added an index to speed up the orders report",
};

const HOSTILE = {
  id: "apps-hostile",
  topic_id: "security",
  categories: ["<img src=x onerror=window.pwned=1>"],
  title: "<script>window.pwned=1</script>Hostile",
  level: "senior",
  summary: "A lesson written to break out.",
  body:
    "<script>window.pwned = 1; document.title = 'pwned'</script>\n\n<img src=x onerror=\"window.pwned=2\">\n\n" +
    "[click me](javascript:window.pwned=3) <a href=\"javascript:window.pwned=4\">raw link</a> [up](../../etc) " +
    "[here](?steal=1) [frag](#app) " +
    "![tracker](https://tracker.example/p.gif) <iframe src=\"https://evil.example\"></iframe>\n\n" +
    "<style>body{display:none}</style> <form action=\"https://evil.example\"><button>go</button></form>\n\n" +
    `${"A long paragraph that never ends. ".repeat(2600)}\n\n\`\`\`\n${"x".repeat(4000)}\n\`\`\``,
};

// ---- The host page --------------------------------------------------------------------------

const HOST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test chat host</title>
<style>body{margin:0;padding:8px;font-family:sans-serif} body.dark{background:#111;color:#eee}
iframe{border:0;width:100%;display:block;min-height:40px}</style></head>
<body><main><h1 style="font-size:14px;margin:0 0 6px">Test chat host</h1>
<iframe id="view" title="devcoach card" sandbox="allow-scripts"></iframe></main>
<script src="/bridge.js"></script><script src="/host.js"></script></body></html>`;

// Runs in the host page: the bridge between the frame and this script's server.
const HOST_SCRIPT = `"use strict";
(async () => {
  const query = new URLSearchParams(location.search);
  const theme = query.get("theme");
  const card = await (await fetch("/case/" + query.get("case"))).json();
  document.body.className = theme;
  const iframe = document.getElementById("view");
  const { AppBridge, PostMessageTransport } = window.McpHost;
  const log = (window.hostLog = { calls: [], messages: [], links: [], refused: [], sizes: 0, ready: false });
  const rpc = async (method, params) => {
    const answer = await (await fetch("/rpc", { method: "POST", body: JSON.stringify({ method, params }) })).json();
    if (answer.error) throw new Error(answer.error.message);
    return answer.result;
  };
  const bridge = new AppBridge(
    null,
    { name: "devcoach-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
    { hostContext: { theme, displayMode: "inline", platform: "web", containerDimensions: { maxHeight: 20000 } } },
  );
  bridge.oncalltool = async (params) => {
    const who = card.visibility[params.name] || ["model", "app"];
    if (!who.includes("app")) {
      log.refused.push(params.name);
      throw new Error(params.name + " is not callable from the card");
    }
    log.calls.push(params.name);
    return rpc("tools/call", params);
  };
  bridge.onmessage = async (params) => {
    log.messages.push(params);
    return {};
  };
  bridge.onopenlink = async ({ url }) => {
    log.links.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = height + "px";
    log.sizes += 1;
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: card.args });
    await bridge.sendToolResult(card.result);
    log.ready = true;
  };
  window.hostBridge = bridge;
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // The policy a host builds from the resource's _meta.ui.csp (empty lists: nothing outside).
  const policy = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";
  iframe.srcdoc = card.html.replace("<head>", '<head><meta http-equiv="Content-Security-Policy" content="' + policy + '">');
})();
`;

function bundleBridge() {
  const modules = process.env.NODE_PATH;
  const built = esbuild.buildSync({
    stdin: {
      contents:
        'import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";\n' +
        "window.McpHost = { AppBridge, PostMessageTransport };\n",
      resolveDir: path.dirname(modules),
      loader: "js",
    },
    nodePaths: [modules],
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "error",
  });
  return built.outputFiles[0].text;
}

function serve(routes, mcp) {
  const server = http.createServer(async (req, res) => {
    const send = (status, type, body) => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    if (req.method === "POST" && req.url === "/rpc") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const { method, params } = JSON.parse(body);
      // Only what a frame may ask through a host.
      if (method !== "tools/call" && method !== "resources/read") {
        send(200, "application/json", JSON.stringify({ error: { message: "not relayed" } }));
        return;
      }
      const answer = await mcp.request(method, params);
      send(200, "application/json", JSON.stringify(answer));
      return;
    }
    const route = routes[req.url.split("?")[0]];
    if (!route) return send(404, "text/plain", "not found");
    send(200, route[0], route[1]);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// ---- In the frame ---------------------------------------------------------------------------

async function frameOf(page) {
  for (let i = 0; i < 200; i++) {
    const frame = page.frames().find((f) => f !== page.mainFrame());
    if (frame) {
      const ready = await frame
        .evaluate(() => Boolean(document.documentElement.dataset.app) && !document.querySelector("#app > p.muted"))
        .catch(() => false);
      if (ready) return frame;
    }
    await page.waitForTimeout(50);
  }
  throw new Error("the card never rendered");
}

async function audit(frame, what) {
  if (!(await frame.evaluate(() => typeof window.axe === "object"))) await frame.evaluate(axeSource);
  const violations = await frame.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags } }).then((r) => r.violations),
    AXE_TAGS,
  );
  seen.axe += 1;
  for (const v of violations) {
    problems.push(`${what}: axe ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  }
}

/// What a hostile lesson could have done, read from inside the frame.
const INERT = () => ({
  pwned: window.pwned === undefined ? null : window.pwned,
  title: document.title,
  scripts: document.scripts.length,
  handlers: [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name)))
    .length,
  badLinks: [...document.querySelectorAll("a")].filter((a) => !/^(https?:|mailto:)/i.test(a.getAttribute("href") || ""))
    .length,
  loads: [...document.querySelectorAll("img, iframe, object, embed, form, style:not(head style), link")].length,
  shownAsText: document.body.textContent.includes("<script>"),
  hidden: getComputedStyle(document.body).display === "none",
});

async function main() {
  const mcp = new Mcp(process.env.DEVCOACH);
  const init = await mcp.call("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: { extensions: { [EXTENSION]: { mimeTypes: [MIME] } } },
    clientInfo: { name: "devcoach-test-host", version: "1.0.0" },
  });
  check(init.capabilities.extensions?.[EXTENSION] !== undefined, "the server did not advertise the extension");
  mcp.notify("notifications/initialized", {});
  const { tools } = await mcp.call("tools/list", {});
  const visibility = Object.fromEntries(tools.map((t) => [t.name, t._meta?.ui?.visibility || ["model", "app"]]));
  const uriOf = (name) => tools.find((t) => t.name === name)?._meta?.ui?.resourceUri;
  const documentAt = async (uri) => {
    const read = await mcp.call("resources/read", { uri });
    const content = read.contents[0];
    check(content.mimeType === MIME, `${uri} has MIME type ${content.mimeType}`);
    return content.text;
  };
  const lessonHtml = await documentAt(uriOf("log_lesson"));
  const reviewHtml = await documentAt(uriOf("get_due_reviews"));

  const logged = await mcp.call("tools/call", { name: "log_lesson", arguments: LESSON });
  check(!logged.isError, `log_lesson failed: ${JSON.stringify(logged.content)}`);
  const hostile = await mcp.call("tools/call", { name: "log_lesson", arguments: HOSTILE });
  check(!hostile.isError, `the hostile log_lesson failed: ${JSON.stringify(hostile.content)}`);
  // The learner asks to see an older lesson again: the same card, from the lookup.
  const lookup = await mcp.call("tools/call", { name: "show_lesson", arguments: { lesson_id: "sqlite-busy-timeout" } });
  check(!lookup.isError && uriOf("show_lesson") === uriOf("log_lesson"), "show_lesson is not the lesson card's tool");
  const due = await mcp.call("tools/call", { name: "get_due_reviews", arguments: { limit: 3 } });
  const first = due.structuredContent.cards[0];
  // The oracle: the answer the frame must not hold before the learner asks.
  const oracle = (await mcp.call("tools/call", { name: "review_answer", arguments: { lesson_id: first.lesson_id } }))
    .structuredContent.answer;
  seen.graded = first.lesson_id;

  const cases = {
    lesson: { html: lessonHtml, args: LESSON, result: logged, visibility },
    hostile: { html: lessonHtml, args: HOSTILE, result: hostile, visibility },
    lookup: { html: lessonHtml, args: { lesson_id: "sqlite-busy-timeout" }, result: lookup, visibility },
    review: { html: reviewHtml, args: { limit: 3 }, result: due, visibility },
  };
  const routes = {
    "/host.html": ["text/html; charset=utf-8", HOST_PAGE],
    "/host.js": ["text/javascript; charset=utf-8", HOST_SCRIPT],
    "/bridge.js": ["text/javascript; charset=utf-8", bundleBridge()],
    "/favicon.ico": ["image/x-icon", ""],
  };
  for (const [name, card] of Object.entries(cases)) routes[`/case/${name}`] = ["application/json", JSON.stringify(card)];
  const server = await serve(routes, mcp);
  const base = `http://127.0.0.1:${server.address().port}`;

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
  try {
    for (const name of ["lesson", "hostile", "lookup", "review"]) {
      for (const theme of THEMES) {
        for (const width of WIDTHS) {
          const what = `${name} ${theme} ${width}`;
          const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: theme });
          page.on("console", (m) => {
            if (m.type() === "error") problems.push(`${what}: console error: ${m.text()}`);
          });
          page.on("pageerror", (e) => problems.push(`${what}: uncaught: ${e.message}`));
          await page.goto(`${base}/host.html?case=${name}&theme=${theme}`);
          const frame = await frameOf(page);
          seen.states.push(what);
          check((await frame.evaluate(() => document.documentElement.dataset.theme)) === theme, `${what}: theme not applied`);
          const overflow = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          check(overflow <= 1, `${what}: the card overflows sideways by ${overflow}px`);
          if (name === "lesson") await lessonState(page, frame, what, theme, width);
          if (name === "hostile") {
            const inert = await frame.evaluate(INERT);
            seen[`hostile_${theme}_${width}`] = inert;
            check(
              inert.pwned === null && inert.title === "devcoach lesson" && inert.scripts === 1 && inert.handlers === 0 &&
                inert.badLinks === 0 && inert.loads === 0 && inert.shownAsText && !inert.hidden,
              `${what}: the hostile lesson was not inert: ${JSON.stringify(inert)}`,
            );
          }
          if (name === "review") await reviewState(page, frame, what, theme, width, oracle);
          if (name === "lookup") {
            // An older lesson, answered before: the card says what was recorded.
            await frame.getByText("Recorded earlier: understood").waitFor({ timeout: 10000 });
            seen.lookup_title = await frame.locator("h1").textContent();
          }
          await audit(frame, what);
          const log = await page.evaluate(() => window.hostLog);
          check(log.refused.length === 0, `${what}: the frame asked for tools it may not call: ${log.refused}`);
          check(log.sizes > 0, `${what}: the card never told the host its size`);
          await page.screenshot({ path: path.join(out, `card-${name}-${theme}-${width}.png`), fullPage: name !== "hostile" });
          await page.close();
        }
      }
    }
  } finally {
    await browser.close();
    server.close();
    mcp.close();
  }
}

async function lessonState(page, frame, what, theme, width) {
  const title = await frame.locator("h1").textContent();
  check(title === LESSON.title, `${what}: title ${title}`);
  check((await frame.locator(".body pre code").count()) === 1, `${what}: the code block is missing`);
  check((await frame.locator(".body a[href='https://www.postgresql.org/docs/']").count()) === 1, `${what}: link`);
  check((await frame.locator(".body a").count()) === 1, `${what}: a relative link stayed a link`);
  if (theme === "light" && width === 1400) {
    // The first answer: recorded through submit_feedback, shown on the card.
    await frame.getByRole("button", { name: "💡 Understood" }).click();
    await frame.getByText("Recorded: understood.").waitFor({ timeout: 10000 });
    seen.feedback_pressed = await frame.getByRole("button", { name: "💡 Understood" }).getAttribute("aria-pressed");
    // Explain it back: handed to the chat for the agent to grade.
    await frame.getByText("🗣 Explain it back").click();
    await frame.getByLabel("The key idea, in your own words").fill("Indexes help only selective filters.");
    await frame.getByRole("button", { name: "Send to my agent" }).click();
    await frame.getByText("Sent to the chat").waitFor({ timeout: 10000 });
    const log = await page.evaluate(() => window.hostLog);
    seen.message = log.messages[0]?.content?.[0]?.text || "";
    seen.lesson_calls = log.calls;
    // A link in the lesson opens through the host; the frame stays the card.
    await frame.getByRole("link", { name: "manual" }).click();
    await page.waitForFunction(() => window.hostLog.links.length === 1, null, { timeout: 10000 });
    seen.opened = (await page.evaluate(() => window.hostLog)).links;
    check((await frame.evaluate(() => document.documentElement.dataset.app)) === "lesson", `${what}: the link left the card`);
  } else {
    // A later showing of the same card says what was recorded.
    await frame.getByText("Recorded earlier: understood").waitFor({ timeout: 10000 });
  }
  if (theme === "light" && width === 390) {
    // The host switches to dark while the card is open.
    await page.evaluate(() => window.hostBridge.sendHostContextChange({ theme: "dark" }));
    await frame.waitForFunction(() => document.documentElement.dataset.theme === "dark", null, { timeout: 10000 });
    seen.theme_switched = true;
    await page.evaluate(() => window.hostBridge.sendHostContextChange({ theme: "light" }));
    await frame.waitForFunction(() => document.documentElement.dataset.theme === "light", null, { timeout: 10000 });
  }
}

async function reviewState(page, frame, what, theme, width, oracle) {
  const before = await frame.evaluate(() => document.documentElement.outerHTML);
  check(!before.includes(oracle), `${what}: the answer was in the frame before it was asked for`);
  const question = await frame.locator(".question").textContent();
  check(question.length > 0, `${what}: no question`);
  if (theme === "dark" && width === 1400) {
    await frame.getByLabel("Your answer, in your own words (optional)").fill("Something I remember.");
    await frame.getByRole("button", { name: "Show the answer" }).click();
    await frame.locator(".answer").waitFor({ timeout: 10000 });
    const shown = await frame.locator(".answer").textContent();
    check(shown === oracle, `${what}: the answer shown is not the card's`);
    await frame.getByRole("button", { name: /^Good/ }).click();
    await frame.getByText(/Recorded: good\. Next review in \d+ days?\./).waitFor({ timeout: 10000 });
    seen.review_status = await frame.locator(".status").textContent();
    await page.screenshot({ path: path.join(out, `card-review-graded-${theme}-${width}.png`), fullPage: true });
    await frame.getByRole("button", { name: /Next card|Done/ }).click();
    seen.after_next = await frame.locator(".band").first().textContent();
    seen.review_calls = (await page.evaluate(() => window.hostLog)).calls;
  }
}

main()
  .catch((e) => problems.push(`crashed: ${e.stack || e}`))
  .finally(() => {
    process.stdout.write(`${JSON.stringify({ problems, seen })}\n`);
    process.exit(problems.length ? 1 : 0);
  });
