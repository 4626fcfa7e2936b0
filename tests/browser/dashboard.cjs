// Drives a running dashboard in headless Chromium: every page in light and dark, on a desktop
// and a phone, and the things people do there (star, feedback, confidence, import through the
// preview, a course step, delete and undo, the share landing page). Every page is audited with
// axe-core (WCAG 2.1 A and AA) and its tables are checked to line up. Started by
// crates/cli/tests/it/browser.rs, which owns the server and the database and checks what these
// clicks wrote.
//
// Environment: DASHBOARD (base URL), SCREENSHOTS (folder), SHARE_CODE, HOSTILE_CODE, CHROMIUM
// (binary), NODE_PATH (where playwright-core and axe-core are installed).
// Prints one JSON object with what it saw; exits 1 with the reasons on any failure, including
// any console error, uncaught exception, failed response, accessibility violation or table whose
// header does not line up with its columns.
"use strict";

const { chromium } = require("playwright-core");
const fs = require("node:fs");
const path = require("node:path");

// axe-core's own script, evaluated in each page through the DevTools protocol: the pages' CSP
// (script-src 'self') would refuse it as a script tag.
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const DESKTOP = { width: 1400, height: 860 };
const PHONE = { width: 390, height: 844 };

const base = process.env.DASHBOARD;
const out = process.env.SCREENSHOTS;
const code = process.env.SHARE_CODE;
const problems = [];
const seen = { axe: { audits: 0, states: [] }, tables: { aligned: 0, cards: 0, headers: 0 } };

function check(ok, what) {
  if (!ok) problems.push(what);
  return ok;
}

function watch(page, label) {
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`${label()}: console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`${label()}: uncaught: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${label()}: ${r.status()} for ${r.url()}`);
  });
}

/// Relative luminance of a computed `rgb(...)` colour.
function luminance(css) {
  const [r, g, b] = (css.match(/[\d.]+/g) || ["0", "0", "0"]).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/// Runs axe-core's WCAG 2.1 A and AA rules on the page as it is now; every node in a violation is
/// a problem. `what` names the page and state, e.g. "lessons light 1400".
async function audit(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(axeSource);
  const violations = await page.evaluate(
    (tags) =>
      window.axe
        .run(document, { runOnly: { type: "tag", values: tags }, iframes: false, resultTypes: ["violations"] })
        .then((r) =>
          r.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: (n.failureSummary || "").replace(/\s+/g, " ") })),
          })),
        ),
    AXE_TAGS,
  );
  for (const v of violations) {
    for (const n of v.nodes) problems.push(`${what}: axe ${v.id} (${v.impact}): ${v.help}: ${n.target}: ${n.summary}`);
  }
  seen.axe.audits += 1;
  seen.axe.states.push(what);
}

/// Every table in the page's main part: on a desktop (and for a plain table on a phone) it is
/// laid out as a table and each visible header cell spans exactly its column's cells (within
/// 1 px); on a phone a table marked .cards is a list of cards, one row a card. `min` tables at
/// least, so the check cannot pass on an empty page.
async function checkTables(page, what, min) {
  const tables = await page.evaluate(() => {
    const phone = window.innerWidth <= 640;
    const shown = (el) => getComputedStyle(el).display !== "none" && el.getBoundingClientRect().width > 0;
    // Each cell with the grid column it starts at.
    const grid = (tr) => {
      let at = 0;
      return [...tr.cells].map((cell) => {
        const start = at;
        at += cell.colSpan || 1;
        return { cell, at: start, span: cell.colSpan || 1 };
      });
    };
    const px = (n) => Math.round(n * 10) / 10;
    return [...document.querySelectorAll("main table")].map((table) => {
      const t = { table: table.className || "(no class)", display: getComputedStyle(table).display, cards: false, headers: 0, rows: 0, issues: [] };
      const rows = [...table.tBodies].flatMap((b) => [...b.rows]);
      t.rows = rows.length;
      if (!rows.length) t.issues.push("no rows to compare");
      if (phone && table.classList.contains("cards")) {
        t.cards = true;
        if (t.display !== "block") t.issues.push(`display ${t.display}, not the phone's list of cards`);
        const odd = rows.find((tr) => getComputedStyle(tr).display !== "flex");
        if (odd) t.issues.push(`a row shows as display ${getComputedStyle(odd).display}, not a card`);
        return t;
      }
      if (t.display !== "table") t.issues.push(`display ${t.display}, not table`);
      const head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
      if (!head) {
        t.issues.push("no header row");
        return t;
      }
      const headers = grid(head).filter((h) => shown(h.cell));
      t.headers = headers.length;
      if (!headers.length) t.issues.push("no visible header cell");
      for (const tr of rows) {
        const cells = grid(tr).filter((c) => shown(c.cell));
        if (cells.length !== headers.length) {
          t.issues.push(`a row shows ${cells.length} cells under ${headers.length} headers`);
          break;
        }
      }
      for (const h of headers) {
        const hb = h.cell.getBoundingClientRect();
        const name = h.cell.textContent.trim() || `column ${h.at + 1}`;
        for (const tr of rows) {
          const d = grid(tr).find((c) => c.at === h.at && c.span === h.span);
          if (!d || !shown(d.cell)) {
            t.issues.push(`"${name}" has a row without a visible cell under it`);
            break;
          }
          const db = d.cell.getBoundingClientRect();
          if (Math.abs(db.left - hb.left) > 1 || Math.abs(db.right - hb.right) > 1) {
            t.issues.push(`"${name}" spans ${px(hb.left)}–${px(hb.right)} px, a cell under it ${px(db.left)}–${px(db.right)} px`);
            break;
          }
        }
      }
      return t;
    });
  });
  check(tables.length >= min, `${what}: ${tables.length} tables, expected at least ${min}`);
  for (const t of tables) {
    for (const issue of t.issues) problems.push(`${what}: table.${t.table.replace(/ /g, ".")}: ${issue}`);
    if (t.cards) seen.tables.cards += 1;
    else seen.tables.aligned += 1;
    seen.tables.headers += t.headers;
  }
}

/// The lessons page's tables, then again with the select column shown.
async function checkLessonTables(page, what) {
  await checkTables(page, what, 1);
  check(!(await page.locator("[data-bulk-delete]").isVisible()), `${what}: "Delete selected" shows before Select is ticked`);
  await page.check("[data-select-mode]");
  check(await page.locator("table[data-selectable].selecting").count() === 1, `${what}: Select did not show the select column`);
  check(await page.locator("[data-bulk-delete]").isVisible(), `${what}: Select did not show "Delete selected"`);
  await checkTables(page, `${what}, selecting`, 1);
  await audit(page, `${what}, selecting`);
  await page.uncheck("[data-select-mode]");
}

async function visit(page, theme, name, url, state, ready) {
  state.at = `${name} (${theme})`;
  const response = await page.goto(base + url, { waitUntil: "networkidle" });
  check(response && response.status() === 200, `${state.at}: status ${response && response.status()}`);
  if (ready) {
    await page.waitForSelector(ready, { timeout: 10000 }).catch(() => problems.push(`${state.at}: ${ready} did not appear`));
  }
  const look = await page.evaluate(() => ({
    theme: document.documentElement.getAttribute("data-theme"),
    background: getComputedStyle(document.body).backgroundColor,
    title: document.title,
  }));
  const light = luminance(look.background);
  check(theme === "light" ? light > 0.7 : light < 0.1, `${state.at}: background ${look.background} does not read as ${theme}`);
  await page.screenshot({ path: path.join(out, `${name}-${theme}.png`), fullPage: true });
  const page_ = name.replace(/-390$/, "");
  await audit(page, `${page_} ${theme} ${page.viewportSize().width}`);
  return look;
}

/// The on-screen height of the axis text in every chart, smallest and largest.
async function tickSizes(page) {
  await page.waitForTimeout(100);
  const sizes = await page.evaluate(() =>
    [...document.querySelectorAll("svg.plot text.tick")]
      .filter((t) => t.getBoundingClientRect().height > 0)
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a),
  );
  return [Math.min(...sizes), Math.max(...sizes)];
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    for (const theme of ["light", "dark"]) {
      const context = await browser.newContext({ colorScheme: theme, viewport: DESKTOP });
      const page = await context.newPage();
      const state = { at: "" };
      watch(page, () => state.at);

      await visit(page, theme, "lessons", "/lessons", state);
      await checkLessonTables(page, `lessons ${theme} ${DESKTOP.width}`);
      await visit(page, theme, "lesson", "/lessons/redis-ttl-jitter", state);
      await visit(page, theme, "knowledge", "/knowledge", state);
      await visit(page, theme, "courses", "/courses", state);
      await checkTables(page, `courses ${theme} ${DESKTOP.width}`, 1);
      const course = await page.getAttribute("a[href^='/courses/']", "href");
      check(Boolean(course), "courses: no course to open");
      await visit(page, theme, "course", course, state);
      await visit(page, theme, "settings", "/settings", state);
      await visit(page, theme, "reviews", "/reviews", state);
      await visit(page, theme, "progress", "/progress", state);
      check((await page.locator("svg.plot").count()) >= 4, `progress (${theme}): fewer than four plots`);
      await checkTables(page, `progress ${theme} ${DESKTOP.width}`, 1);
      seen[`tick_px_wide_${theme}`] = await tickSizes(page);
      await visit(page, theme, "import-preview", `/lessons/import?code=${encodeURIComponent(code)}`, state);
      await visit(page, theme, "share-landing", `/lesson#${code}`, state, "#card:not([hidden]) #title");
      await page.waitForSelector("#card:not([hidden]) #title", { timeout: 10000 }).catch(() => {
        problems.push(`share landing (${theme}): the card did not render`);
      });
      seen[`landing_title_${theme}`] = await page.locator("#title").innerText();
      seen[`landing_local_${theme}`] = await page.locator("#local").isVisible();
      // The body is drawn as markdown from DOM nodes: paragraphs and code, no markup left over.
      seen[`landing_body_${theme}`] = await page.evaluate(() => {
        const body = document.getElementById("body");
        return { blocks: body.querySelectorAll("p, pre, ul, ol, h3, h4, blockquote").length, code: body.querySelectorAll("code").length, raw: /\*\*|```/.test(body.textContent), scripts: body.querySelectorAll("script, img, iframe").length };
      });

      if (theme === "light") {
        // A share whose body tries to run or load something stays text.
        state.at = "hostile share";
        await page.goto(`${base}/lesson#${process.env.HOSTILE_CODE}`, { waitUntil: "networkidle" });
        await page.waitForSelector("#card:not([hidden]) #title", { timeout: 10000 }).catch(() => problems.push("hostile share: no card"));
        seen.landing_hostile = await page.evaluate(() => {
          const body = document.getElementById("body");
          return {
            elements: body.querySelectorAll("script, img, iframe, [onerror], a[href^='javascript' i]").length,
            title_kept: document.title !== "pwned",
            text: body.textContent,
          };
        });

        // Star a lesson from the list.
        state.at = "star";
        await page.goto(`${base}/lessons`, { waitUntil: "networkidle" });
        const row = page.locator("tr", { has: page.locator("a[href='/lessons/redis-ttl-jitter']") });
        await Promise.all([page.waitForNavigation(), row.locator("button.star").click()]);
        seen.starred_in_list = await page
          .locator("tr", { has: page.locator("a[href='/lessons/redis-ttl-jitter']") })
          .locator("button.star.on")
          .count();

        // Feedback on the lesson page.
        state.at = "feedback";
        await page.goto(`${base}/lessons/redis-ttl-jitter`, { waitUntil: "networkidle" });
        await Promise.all([page.waitForNavigation(), page.click("button[name=feedback][value=understood]")]);
        seen.feedback_pressed = await page.getAttribute("button[name=feedback][value=understood]", "aria-pressed");

        // Confidence: add a topic at 5, raise it once.
        state.at = "confidence";
        await page.goto(`${base}/knowledge`, { waitUntil: "networkidle" });
        await page.fill("input[name=topic]", "browser_testing");
        await page.fill("input[name=confidence]", "5");
        await Promise.all([page.waitForNavigation(), page.click("button:has-text('Save topic')")]);
        await Promise.all([page.waitForNavigation(), page.click("button[aria-label='Raise browser_testing']")]);
        seen.knowledge_text = await page.locator("main").innerText();

        // Import a share code: preview first (it writes nothing), then add.
        state.at = "import";
        await page.goto(`${base}/lessons/import?code=${encodeURIComponent(code)}`, { waitUntil: "networkidle" });
        await Promise.all([page.waitForNavigation(), page.click("button:has-text('Add to my lessons')")]);
        seen.after_import_url = page.url().replace(base, "");
        seen.after_import_title = await page.locator("h1").first().innerText();

        // A course step: the frame moves to the step and the list follows.
        state.at = "course step";
        await page.goto(base + course, { waitUntil: "networkidle" });
        const link = page.locator("a[data-step-link]").nth(1);
        const anchor = await link.evaluate((a) => a.closest("li").getAttribute("data-anchor"));
        await link.click();
        await page.waitForFunction(
          (a) => document.querySelector("#course-steps li.current")?.getAttribute("data-anchor") === a,
          anchor,
          { timeout: 10000 },
        );
        await page.waitForTimeout(300);
        const frame = page.frames().find((f) => f.url().includes("/index.html"));
        seen.course_anchor = anchor;
        seen.course_frame_url = frame ? frame.url().replace(base, "") : null;
        seen.course_frame_text = frame ? (await frame.locator("body").innerText()).slice(0, 400) : "";
        await page.screenshot({ path: path.join(out, "course-step-light.png"), fullPage: true });

        // A review: reveal the answer, grade it, land on the next card with a note.
        state.at = "review";
        await page.goto(`${base}/reviews`, { waitUntil: "networkidle" });
        seen.review_question = await page.locator(".review-question").innerText();
        check(!(await page.locator("button[value=good]").isVisible()), "review: the grades show before the answer");
        await page.click("summary:has-text('Show the answer')");
        await Promise.all([page.waitForNavigation(), page.click("button[value=good]")]);
        seen.review_banner = await page.locator(".banner").first().innerText();
        await page.screenshot({ path: path.join(out, "review-graded-light.png"), fullPage: true });
        // The next card by keyboard: Space shows the answer, 3 grades it good.
        state.at = "review by keyboard";
        await page.keyboard.press(" ");
        seen.review_key_open = await page.evaluate(() => document.querySelector("details.review-answer")?.open === true);
        await Promise.all([page.waitForNavigation(), page.keyboard.press("3")]);
        seen.review_key_banner = await page.locator(".banner").first().innerText();

        // Delete a lesson from its page (after the confirmation): the list says so and offers
        // Undo, which puts the lesson back.
        state.at = "delete and undo";
        const victim = "docker-healthcheck";
        const u = { id: victim };
        const total = async () => Number((await page.locator("h1 .count").innerText()).replace(/\D/g, ""));
        const listed = () => page.locator(`table a.title[href='/lessons/${victim}']`).count();
        const banner = async () => (await page.locator(".undo-banner > span").innerText()).trim();
        await page.goto(`${base}/lessons`, { waitUntil: "networkidle" });
        u.before = await total();
        u.listed_before = await listed();
        await page.goto(`${base}/lessons/${victim}`, { waitUntil: "networkidle" });
        page.once("dialog", (dialog) => {
          u.confirm = dialog.message();
          dialog.accept();
        });
        await Promise.all([page.waitForNavigation(), page.click("form[action='/lessons/delete'] button[type=submit]")]);
        await page.waitForLoadState("networkidle");
        u.url = page.url().replace(base, "");
        u.banner = await banner();
        u.after_delete = await total();
        u.listed_after_delete = await listed();
        u.undo_button = await page.locator(".undo-banner button:has-text('Undo')").isVisible();
        await page.screenshot({ path: path.join(out, "undo-banner-light.png") });
        await audit(page, `undo banner light ${DESKTOP.width}`);
        // The same banner in the other theme and on a phone.
        for (const [other, viewport, file] of [
          ["dark", DESKTOP, "undo-banner-dark.png"],
          ["light", PHONE, "undo-banner-390-light.png"],
          ["dark", PHONE, "undo-banner-390-dark.png"],
        ]) {
          const context = await browser.newContext({ colorScheme: other, viewport });
          const page = await context.newPage();
          const at = `undo banner ${other} ${viewport.width}`;
          watch(page, () => at);
          await page.goto(base + u.url, { waitUntil: "networkidle" });
          const shown = await page.locator(".undo-banner > span").innerText().catch(() => null);
          check(shown && shown.trim() === u.banner, `${at}: the banner reads ${JSON.stringify(shown)}`);
          check(await page.locator(".undo-banner button:has-text('Undo')").isVisible(), `${at}: no Undo button`);
          const fit = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
          check(fit[0] <= fit[1], `${at}: the page is ${fit[0]} px wide`);
          await page.screenshot({ path: path.join(out, file) });
          await audit(page, at);
          await context.close();
        }
        await Promise.all([page.waitForNavigation(), page.click(".undo-banner button:has-text('Undo')")]);
        await page.waitForLoadState("networkidle");
        u.restored = await banner();
        u.after = await total();
        u.listed_after_undo = await listed();
        await page.screenshot({ path: path.join(out, "undo-restored-light.png") });
        await audit(page, `undo restored light ${DESKTOP.width}`);
        const back = await page.goto(`${base}/lessons/${victim}`, { waitUntil: "networkidle" });
        u.lesson_status = back && back.status();
        seen.undo = u;

        // The theme setting wins over the system preference (then back to following it).
        state.at = "theme setting";
        await page.goto(`${base}/settings`, { waitUntil: "networkidle" });
        await page.selectOption("select[name=ui_theme]", "dark");
        await Promise.all([page.waitForNavigation(), page.click("button:has-text('Save settings')")]);
        await page.goto(`${base}/lessons`, { waitUntil: "networkidle" });
        seen.theme_after_setting = await page.evaluate(() => ({
          attr: document.documentElement.getAttribute("data-theme"),
          background: getComputedStyle(document.body).backgroundColor,
        }));
        check(luminance(seen.theme_after_setting.background) < 0.1, "the dark setting did not darken a light system");
        await page.goto(`${base}/settings`, { waitUntil: "networkidle" });
        await page.selectOption("select[name=ui_theme]", "system");
        await Promise.all([page.waitForNavigation(), page.click("button:has-text('Save settings')")]);
      }
      await context.close();
    }

    // A phone: every page fits 390 px without sideways scrolling, in both schemes.
    for (const theme of ["light", "dark"]) {
      const context = await browser.newContext({ colorScheme: theme, viewport: PHONE });
      const page = await context.newPage();
      const state = { at: "" };
      watch(page, () => state.at);
      const course = await (async () => {
        await page.goto(`${base}/courses`, { waitUntil: "networkidle" });
        return page.getAttribute("a[href^='/courses/']", "href");
      })();
      for (const [name, url] of [
        ["lessons", "/lessons"],
        ["lesson", "/lessons/redis-ttl-jitter"],
        ["knowledge", "/knowledge"],
        ["courses", "/courses"],
        ["course", course],
        ["settings", "/settings"],
        ["reviews", "/reviews"],
        ["progress", "/progress"],
        ["import-preview", `/lessons/import?code=${encodeURIComponent(code)}`],
        ["share-landing", `/lesson#${code}`],
      ]) {
        await visit(page, theme, `${name}-390`, url, state, name === "share-landing" ? "#card:not([hidden]) #title" : undefined);
        if (name === "progress") seen[`tick_px_390_${theme}`] = await tickSizes(page);
        if (name === "lessons") await checkLessonTables(page, `lessons ${theme} ${PHONE.width}`);
        if (name === "courses" || name === "progress") await checkTables(page, `${name} ${theme} ${PHONE.width}`, 1);
        // On every dashboard page the theme follows the system and the toggle shows the scheme
        // in use (the published share page follows the system by CSS alone).
        const shown = await page.evaluate(() => [
          document.documentElement.getAttribute("data-theme"),
          document.querySelector("[data-theme-mark]")?.textContent || null,
        ]);
        const mark = theme === "dark" ? "\u263E" : "\u2600";
        if (name !== "share-landing") check(shown[0] === theme && shown[1] === mark, `${state.at}: theme ${shown}`);
        const fit = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
        check(fit[0] <= fit[1], `${state.at} at 390 px: the page is ${fit[0]} px wide`);
        const nav = await page.evaluate(() => {
          const bar = document.querySelector(".topbar");
          return bar ? bar.getBoundingClientRect().height : 0;
        });
        check(nav <= 100, `${state.at} at 390 px: the top bar takes ${nav} px`);
        // The menu scrolls sideways there: the current page's tab is in view.
        const tab = await page.evaluate(() => {
          const current = document.querySelector('.nav [aria-current="page"]');
          if (!current) return null;
          const a = current.getBoundingClientRect(), b = current.parentElement.getBoundingClientRect();
          return a.left >= b.left - 1 && a.right <= b.right + 1;
        });
        if (tab !== null) {
          check(tab, `${state.at} at 390 px: the current page's tab is scrolled out of view`);
          seen.tabs_in_view = (seen.tabs_in_view || 0) + 1;
        }
      }
      seen[`phone_${theme}`] = true;
      await context.close();
    }

    // The theme rules: one writer announcing each change, a toggle that shows the scheme in use,
    // a per-browser choice only saving Settings clears, "system" following the OS live, and the
    // course frame told of every change.
    {
      const context = await browser.newContext({ colorScheme: "light", viewport: DESKTOP });
      const page = await context.newPage();
      const state = { at: "theme rules" };
      watch(page, () => state.at);
      const attr = () => page.evaluate(() => document.documentElement.getAttribute("data-theme"));
      const mark = () => page.locator("[data-theme-mark]").innerText();
      const stored = () => page.evaluate(() => localStorage.getItem("theme-override"));
      const t = {};
      await page.goto(`${base}/lessons`, { waitUntil: "networkidle" });
      t.start = [await attr(), await mark()];
      await page.evaluate(() => {
        window.__themes = [];
        window.addEventListener("dc:theme", (e) => window.__themes.push(e.detail));
      });
      await page.emulateMedia({ colorScheme: "dark" });
      await page.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "dark", null, { timeout: 5000 }).catch(() => {});
      t.system_live = [await attr(), await mark()];
      await page.click("[data-theme-toggle]");
      t.chosen = [await attr(), await mark(), await stored()];
      t.events = await page.evaluate(() => window.__themes);
      await page.reload({ waitUntil: "networkidle" });
      t.chosen_after_reload = await attr();
      // The server's setting does not clear the choice on load...
      await page.goto(`${base}/settings`, { waitUntil: "networkidle" });
      await page.selectOption("select[name=ui_theme]", "dark");
      await page.evaluate(() => localStorage.setItem("theme-override", "light"));
      await page.goto(`${base}/lessons`, { waitUntil: "networkidle" });
      t.choice_kept_on_load = [await attr(), await stored()];
      // ...saving Settings does, and the saved setting takes over.
      await page.goto(`${base}/settings`, { waitUntil: "networkidle" });
      await page.selectOption("select[name=ui_theme]", "dark");
      await Promise.all([page.waitForNavigation(), page.click("button:has-text('Save settings')")]);
      t.after_save = [await attr(), await stored()];
      // The course frame follows every change.
      const course = await (async () => {
        await page.goto(`${base}/courses`, { waitUntil: "networkidle" });
        return page.getAttribute("a[href^='/courses/']", "href");
      })();
      await page.goto(base + course, { waitUntil: "networkidle" });
      const frameTheme = async () => {
        const frame = page.frames().find((f) => f.url().includes("/index.html"));
        return frame ? frame.evaluate(() => document.documentElement.getAttribute("data-theme")) : null;
      };
      await page.waitForTimeout(300);
      t.frame_at_load = await frameTheme();
      await page.click("[data-theme-toggle]");
      await page.waitForTimeout(300);
      t.frame_after_toggle = await frameTheme();
      // Back to following the system.
      await page.goto(`${base}/settings`, { waitUntil: "networkidle" });
      await page.selectOption("select[name=ui_theme]", "system");
      await Promise.all([page.waitForNavigation(), page.click("button:has-text('Save settings')")]);
      await page.emulateMedia({ colorScheme: "light" });
      await page.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "light", null, { timeout: 5000 }).catch(() => {});
      t.back_to_system = [await attr(), await stored()];
      seen.theme_rules = t;
      await context.close();
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify({ problems, seen }));
  process.exit(problems.length ? 1 : 0);
}

main().catch((e) => {
  console.log(JSON.stringify({ problems: [...problems, `crashed: ${e.stack || e}`], seen }));
  process.exit(1);
});
