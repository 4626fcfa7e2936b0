// The lesson card and the review card a chat host shows beside devcoach's tool results (MCP
// Apps, io.modelcontextprotocol/ui). The host speaks JSON-RPC with this frame over postMessage:
// this script asks `ui/initialize`, then receives the tool's result and calls devcoach's tools
// through the host. Everything from a lesson is put in the page as text; the one exception is the
// lesson body, which the server renders with the dashboard's markdown rules (raw HTML escaped,
// unsafe links dropped) and which this document's own policy keeps inert even so (no inline
// handlers, no network).
"use strict";

(() => {
  const kind = document.documentElement.dataset.app;
  const root = document.getElementById("app");
  const host = window.parent;
  const pending = new Map();
  let nextId = 1;
  let shown = false;

  const send = (message) => host.postMessage(message, "*");
  const notify = (method, params) => send({ jsonrpc: "2.0", method, params });

  function request(method, params, wait = 60000) {
    const id = nextId++;
    send({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      setTimeout(() => {
        if (pending.delete(id)) reject(new Error("the host did not answer"));
      }, wait);
    });
  }

  async function callTool(name, args) {
    const result = await request("tools/call", { name, arguments: args });
    if (!result || result.isError) {
      const text = (result && result.content && result.content[0] && result.content[0].text) || "";
      throw new Error(text || `${name} failed`);
    }
    return result.structuredContent || {};
  }

  /// Hands text to the chat, where the learner's agent reads it as the learner's message. Only the
  /// lesson's id and the learner's own words go: nothing a lesson's author wrote speaks as them.
  /// A host may ask the learner first, so the wait is long (a retry would send it twice).
  async function tellAgent(text) {
    const result = await request("ui/message", { role: "user", content: [{ type: "text", text }] }, 600000);
    if (result && result.isError) throw new Error("the host did not take the message");
  }

  /// A link in a lesson opens through the host (which may ask first), never in this frame: a page
  /// loaded here would speak to the host as the card. Links that are not http(s) or mail are text.
  function tameLinks(container) {
    for (const link of container.querySelectorAll("a")) {
      if (!/^(https?:|mailto:)/i.test(link.getAttribute("href") || "")) link.replaceWith(...link.childNodes);
    }
    container.addEventListener("click", (event) => {
      const link = event.target instanceof Element ? event.target.closest("a") : null;
      if (!link) return;
      event.preventDefault();
      request("ui/open-link", { url: link.href }).catch(() => {});
    });
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function say(status, text, problem) {
    status.textContent = text;
    status.classList.toggle("problem", Boolean(problem));
  }

  function applyContext(context) {
    if (!context) return;
    if (context.theme === "dark" || context.theme === "light") document.documentElement.dataset.theme = context.theme;
  }

  let lastSize = "";
  function reportSize() {
    // The body, not the document: the document is never shorter than the frame, so a card that
    // got shorter would never tell the host.
    // Height only: the card takes the width it is given.
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    const size = String(height);
    if (size !== lastSize) {
      lastSize = size;
      notify("ui/notifications/size-changed", { height });
    }
  }

  function show(...nodes) {
    root.replaceChildren(...nodes);
    reportSize();
  }

  const problem = (text) => el("p", { class: "status problem", role: "status", text });

  // ---- The lesson card --------------------------------------------------------------------

  const LEVELS = { junior: "Junior", mid: "Mid", senior: "Senior" };
  const ANSWERS = [
    ["know", "✅ I knew it"],
    ["understood", "💡 Understood"],
    ["dont_know", "❌ Couldn't follow"],
  ];
  const ANSWER_WORDS = { know: "you knew it", understood: "understood", dont_know: "couldn't follow" };

  function recordedLine(out) {
    let line = `Recorded: ${ANSWER_WORDS[out.feedback] || "answer cleared"}.`;
    if (out.delta > 0 && out.confidence != null) line += ` Your confidence in ${out.topic_id} is now ${out.confidence}/10.`;
    return line;
  }

  function lessonCard(card) {
    const level = LEVELS[card.level] || String(card.level || "");
    const meta = [...(card.categories || []), level].filter(Boolean).join(" · ");
    const body = el("div", { class: "body" });
    body.innerHTML = card.body_html || "";
    // A code block that scrolls sideways must be reachable by keyboard.
    for (const pre of body.querySelectorAll("pre")) pre.tabIndex = 0;
    tameLinks(body);
    const status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    const buttons = ANSWERS.map(([value, label]) => {
      const button = el("button", { type: "button", "aria-pressed": String(card.feedback === value), text: label });
      button.addEventListener("click", async () => {
        for (const b of buttons) b.disabled = true;
        say(status, "Saving…");
        try {
          const out = await callTool("lesson_card_answer", { lesson_id: card.id, feedback: value });
          buttons.forEach((b, i) => b.setAttribute("aria-pressed", String(ANSWERS[i][0] === out.feedback)));
          say(status, recordedLine(out));
        } catch (e) {
          say(status, `Not recorded: ${e.message}`, true);
        } finally {
          for (const b of buttons) b.disabled = false;
          reportSize();
        }
      });
      return button;
    });
    if (card.feedback) say(status, `Recorded earlier: ${ANSWER_WORDS[card.feedback]}. Pick again to change it.`);

    const explain = el("textarea", { id: "explain", maxlength: "2000", rows: "3" });
    const explainStatus = el("p", { class: "status", role: "status", "aria-live": "polite" });
    const sendButton = el("button", { type: "button", class: "primary", text: "Send to my agent" });
    sendButton.addEventListener("click", async () => {
      const words = explain.value.trim();
      if (!words) {
        say(explainStatus, "Write the idea in a sentence or two first.", true);
        return;
      }
      sendButton.disabled = true;
      try {
        await tellAgent(`Explain-back for the devcoach lesson ${card.id}: ${words}`);
        say(explainStatus, "Sent to the chat: your agent checks it and records it.");
      } catch {
        say(explainStatus, "This chat did not take it: paste your explanation in the chat instead.", true);
        sendButton.disabled = false;
      }
      reportSize();
    });
    const details = el(
      "details",
      {},
      el("summary", { text: "🗣 Explain it back" }),
      el("label", { for: "explain", text: "The key idea, in your own words" }),
      explain,
      el("div", { class: "choices" }, sendButton),
      explainStatus,
    );
    details.addEventListener("toggle", reportSize);

    return el(
      "article",
      { class: "card", "aria-labelledby": "title" },
      el("p", { class: "band", text: "🎓 devcoach" }),
      el("h1", { id: "title", text: card.title || "" }),
      el("p", { class: "meta", text: meta }),
      body,
      el("p", { class: "band", text: `${card.topic_id || ""} · ${card.level || ""}` }),
      el(
        "section",
        { class: "answers", "aria-labelledby": "ask" },
        el("h2", { id: "ask", text: "How was this lesson?" }),
        el("div", { class: "choices", role: "group", "aria-label": "Your answer" }, ...buttons),
        status,
        details,
      ),
    );
  }

  async function onLessonResult(result) {
    const lesson = result && !result.isError && result.structuredContent;
    if (!lesson || typeof lesson.id !== "string") {
      show(problem("No lesson to show: the lesson was not saved."));
      return;
    }
    try {
      show(lessonCard(await callTool("lesson_card", { lesson_id: lesson.id })));
    } catch {
      // A host that relays no tool calls: the lesson from the result, as plain text, and the
      // answers left to the chat.
      const body = el("div", { class: "body" }, el("p", { class: "plain", text: lesson.body || lesson.summary || "" }));
      show(
        el(
          "article",
          { class: "card", "aria-labelledby": "title" },
          el("p", { class: "band", text: "🎓 devcoach" }),
          el("h1", { id: "title", text: lesson.title || "" }),
          el("p", { class: "meta", text: [...(lesson.categories || []), LEVELS[lesson.level] || ""].filter(Boolean).join(" · ") }),
          body,
          el("p", { class: "band", text: `${lesson.topic_id || ""} · ${lesson.level || ""}` }),
          el("p", { class: "muted", text: "Answer in the chat: knew it, understood, or couldn't follow." }),
        ),
      );
    }
  }

  // ---- The review card --------------------------------------------------------------------

  const GRADES = [
    ["again", "Again", "could not recall it"],
    ["hard", "Hard", "with effort, or in part"],
    ["good", "Good", "recalled it"],
    ["easy", "Easy", "at once, fully"],
  ];
  let queue = [];
  let place = 0;

  function reviewCard() {
    const due = queue[place];
    const status = el("p", { class: "status", role: "status", "aria-live": "polite" });
    const mine = el("textarea", { id: "mine", maxlength: "2000", rows: "3" });
    const reveal = el("button", { type: "button", class: "primary", text: "Show the answer" });
    const check = el("button", { type: "button", text: "Check my answer with my agent" });
    const answerBox = el("section", { "aria-labelledby": "answer-title", hidden: "" });
    const next = el("button", { type: "button", text: place + 1 < queue.length ? "Next card" : "Done", hidden: "" });

    next.addEventListener("click", () => {
      place += 1;
      show(place < queue.length ? reviewCard() : finished());
      const heading = root.querySelector("h1");
      if (heading) heading.focus();
    });
    check.addEventListener("click", async () => {
      const words = mine.value.trim();
      if (!words) {
        say(status, "Write your answer first, or show the answer to grade yourself.", true);
        return;
      }
      check.disabled = true;
      reveal.disabled = true;
      try {
        await tellAgent(`My answer to the devcoach review of lesson ${due.lesson_id}: ${words}`);
        say(status, "Sent to the chat: your agent grades it and shows the answer.");
        next.hidden = false;
      } catch {
        say(status, "This chat did not take it: show the answer and grade yourself.", true);
        check.disabled = false;
        reveal.disabled = false;
      }
      reportSize();
    });
    reveal.addEventListener("click", async () => {
      reveal.disabled = true;
      check.disabled = true;
      try {
        const out = await callTool("review_answer", { lesson_id: due.lesson_id });
        const grades = GRADES.map(([value, label, hint]) => {
          const button = el("button", { type: "button", "aria-pressed": "false", text: `${label} · ${hint}` });
          button.addEventListener("click", async () => {
            for (const b of grades) b.disabled = true;
            try {
              const graded = await callTool("review_card_grade", { lesson_id: due.lesson_id, grade: value });
              button.setAttribute("aria-pressed", "true");
              const days = graded.next_review_in_days;
              say(status, `Recorded: ${label.toLowerCase()}. Next review in ${days} day${days === 1 ? "" : "s"}.`);
              next.hidden = false;
              next.focus();
            } catch (e) {
              say(status, `Not recorded: ${e.message}`, true);
              for (const b of grades) b.disabled = false;
            }
            reportSize();
          });
          return button;
        });
        answerBox.replaceChildren(
          el("h2", { id: "answer-title", text: "The answer" }),
          el("p", { class: "answer", text: out.answer || "" }),
          el("p", { class: "muted", text: "How well did you recall it?" }),
          el("div", { class: "choices", role: "group", "aria-label": "Your grade" }, ...grades),
        );
        answerBox.hidden = false;
      } catch (e) {
        say(status, `The answer could not be shown: ${e.message}`, true);
        reveal.disabled = false;
        check.disabled = false;
      }
      reportSize();
    });

    return el(
      "article",
      { class: "card", "aria-labelledby": "title" },
      el("p", { class: "band", text: `🔁 review ${place + 1} of ${queue.length}` }),
      el("h1", { id: "title", tabindex: "-1", text: due.title || due.lesson_id }),
      el("p", { class: "meta", text: due.topic_id || "" }),
      el("p", { class: "question", text: due.question || "" }),
      el("label", { for: "mine", text: "Your answer, in your own words (optional)" }),
      mine,
      el("div", { class: "choices" }, reveal, check),
      answerBox,
      status,
      el("div", { class: "choices" }, next),
    );
  }

  function finished() {
    return el(
      "article",
      { class: "card", "aria-labelledby": "title" },
      el("p", { class: "band", text: "🔁 review" }),
      el("h1", { id: "title", tabindex: "-1", text: queue.length ? "All done for now" : "Nothing is due" }),
      el("p", { class: "muted", text: "Cards come back just before you would forget them." }),
    );
  }

  function onReviewResult(result) {
    const out = result && result.structuredContent;
    if (!out || !Array.isArray(out.cards)) {
      show(problem("No review cards to show."));
      return;
    }
    queue = out.cards.filter((c) => c && typeof c.lesson_id === "string");
    place = 0;
    show(queue.length ? reviewCard() : finished());
  }

  // ---- The conversation with the host ------------------------------------------------------

  window.addEventListener("message", (event) => {
    if (event.source !== host) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(String(message.error.message || "error")));
      else waiting.resolve(message.result);
      return;
    }
    const params = message.params || {};
    switch (message.method) {
      case "ui/notifications/tool-result":
        // The result of the call that opened the card, once: a host may also pass on the
        // results of the card's own calls, which are not for this.
        if (shown) break;
        shown = true;
        if (kind === "review") onReviewResult(params);
        else onLessonResult(params);
        break;
      case "ui/notifications/tool-cancelled":
        show(problem(kind === "review" ? "The review was cancelled." : "The lesson was not saved."));
        break;
      case "ui/notifications/host-context-changed":
        applyContext(params);
        break;
      case "ui/resource-teardown":
      case "ping":
        send({ jsonrpc: "2.0", id: message.id, result: {} });
        break;
      default:
        if (message.id !== undefined) {
          send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
        }
    }
  });

  new ResizeObserver(reportSize).observe(document.body);

  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: `devcoach-${kind}`, version: "1" },
    appCapabilities: { availableDisplayModes: ["inline"] },
  })
    .then((result) => {
      applyContext(result && result.hostContext);
      notify("ui/notifications/initialized", {});
    })
    .catch((e) => show(problem(`This chat could not start the card: ${e.message}`)));
})();
