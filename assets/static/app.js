// The dashboard's small amount of behaviour. Every page works without it (forms post, links
// navigate); this adds the theme switch, confirmations, select mode, copy buttons, drag-and-drop
// import and code highlighting.
(function () {
  "use strict";
  var root = document.documentElement;

  // On a phone the menu scrolls sideways: bring the current page's tab into view.
  var current = document.querySelector('.nav [aria-current="page"]');
  var nav = current && current.parentElement;
  if (nav && nav.scrollWidth > nav.clientWidth) {
    var offset = current.getBoundingClientRect().left - nav.getBoundingClientRect().left;
    nav.scrollLeft += offset - (nav.clientWidth - current.offsetWidth) / 2;
  }

  // The theme has one writer (theme.js); the toggle records this browser's choice through it,
  // and saving Settings forgets that choice so the saved setting takes over.
  var theme = window.devcoachTheme;
  document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
    button.addEventListener("click", function () {
      if (theme) theme.choose(root.getAttribute("data-theme") === "dark" ? "light" : "dark");
    });
  });
  document.querySelectorAll("form[data-theme-reset]").forEach(function (form) {
    form.addEventListener("submit", function () {
      if (theme) theme.forget();
    });
  });

  // Chart text at one size on screen: each chart learns its units per pixel.
  var plots = document.querySelectorAll("svg.plot");
  function sizePlots() {
    plots.forEach(function (svg) {
      var box = svg.viewBox && svg.viewBox.baseVal;
      var shown = svg.getBoundingClientRect().width;
      if (!box || !box.width || !shown) return;
      var k = box.width / shown;
      svg.style.setProperty("--plot-k", k.toFixed(3));
      svg.classList.toggle("dense", k > 1.3);
    });
  }
  if (plots.length) {
    sizePlots();
    if (window.ResizeObserver) new ResizeObserver(sizePlots).observe(document.body);
    else window.addEventListener("resize", sizePlots);
  }

  // Reviews by keyboard: Space shows the answer, 1-4 grade it once it shows.
  var review = document.querySelector("[data-review-keys]");
  if (review) {
    var answer = review.querySelector("details.review-answer");
    var grades = ["again", "hard", "good", "easy"];
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "textarea" || tag === "select" || event.target.isContentEditable) return;
      if (event.key === " " && answer && !answer.open) {
        event.preventDefault();
        answer.open = true;
        return;
      }
      var n = event.key.length === 1 ? "1234".indexOf(event.key) : -1;
      if (n >= 0 && answer && answer.open) {
        var button = answer.querySelector("button[name=grade][value=" + grades[n] + "]");
        if (button) {
          event.preventDefault();
          button.click();
        }
      }
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-confirm]");
    if (target && !window.confirm(target.getAttribute("data-confirm"))) event.preventDefault();
  });

  document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });

  var selectMode = document.querySelector("[data-select-mode]");
  if (selectMode) {
    var table = document.querySelector("[data-selectable]");
    var bulk = document.querySelector("[data-bulk-delete]");
    selectMode.addEventListener("change", function () {
      table.classList.toggle("selecting", selectMode.checked);
      bulk.hidden = !selectMode.checked;
      if (!selectMode.checked) table.querySelectorAll("input[name=id]").forEach(function (box) { box.checked = false; });
    });
  }

  // Copy text / link: fetch what the share route returns and put it on the clipboard.
  document.querySelectorAll("[data-share-form]").forEach(function (form) {
    var status = form.querySelector("[data-copy-status]");
    form.addEventListener("submit", function (event) {
      var button = event.submitter;
      if (!button || !button.hasAttribute("data-copy")) return;
      event.preventDefault();
      var params = new URLSearchParams(new FormData(form));
      params.set("format", button.getAttribute("data-copy"));
      // Remembering the name is a write: it goes as a POST (a GET never changes anything).
      var remember = params.get("persist") === "1";
      var request = remember
        ? fetch(form.action, { method: "POST", credentials: "same-origin", body: params })
        : fetch(form.action + "?" + params.toString(), { credentials: "same-origin" });
      request
        .then(function (response) { if (!response.ok) throw new Error(response.status); return response.text(); })
        .then(function (text) { return copy(text); })
        .then(function () {
          status.textContent = (button.getAttribute("data-copy") === "link" ? "Link copied." : "Lesson copied, with its code.") + (remember ? " Name saved." : "");
        })
        .catch(function () { status.textContent = "Could not copy: use Download instead."; });
    });
  });

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) resolve(); else reject(new Error("copy"));
    });
  }

  // A file dropped anywhere on a page with the import form is imported.
  var importForm = document.getElementById("import-form");
  var importFile = document.getElementById("import-file");
  if (importForm && importFile) {
    var depth = 0;
    document.addEventListener("dragenter", function (e) { if (e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types, "Files") >= 0) { depth++; document.body.classList.add("drop-target"); } });
    document.addEventListener("dragleave", function () { depth = Math.max(0, depth - 1); if (!depth) document.body.classList.remove("drop-target"); });
    document.addEventListener("dragover", function (e) { e.preventDefault(); });
    document.addEventListener("drop", function (e) {
      e.preventDefault();
      depth = 0;
      document.body.classList.remove("drop-target");
      if (!e.dataTransfer || !e.dataTransfer.files.length) return;
      importFile.files = e.dataTransfer.files;
      importForm.submit();
    });
  }

  window.addEventListener("DOMContentLoaded", function () {
    if (window.hljs) {
      window.hljs.configure({ ignoreUnescapedHTML: true });
      document.querySelectorAll(".markdown pre code").forEach(function (el) { window.hljs.highlightElement(el); });
    }
  });
})();
