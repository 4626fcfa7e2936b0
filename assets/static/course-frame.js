/* devcoach: added when the dashboard shows this course. It tells the page around it how tall the
   document is and which step is open, and follows the dashboard's theme. */
(function () {
  "use strict";
  if (window.parent === window) return;
  var root = document.documentElement;
  root.setAttribute("data-embedded", "1");
  var style = document.createElement("style");
  style.textContent = ":root[data-embedded] body{background:transparent!important}" +
    ":root[data-embedded] .course,:root[data-embedded] section,:root[data-embedded] header.intro{max-width:none!important}";
  document.head.appendChild(style);
  var neutrals = {
    light: { "--bg": "#f9fafb", "--panel": "#ffffff", "--text": "#111827", "--muted": "#6b7280", "--line": "#e5e7eb" },
    dark: { "--bg": "#1e1f22", "--panel": "#2b2d30", "--text": "#dfe1e5", "--muted": "#9da0a8", "--line": "#43454a" }
  };
  function report() {
    var anchor = (location.hash || "").replace(/^#/, "") || null;
    var height = Math.max(document.body ? document.body.scrollHeight : 0, root.scrollHeight);
    window.parent.postMessage({ type: "devcoach:course", height: height, anchor: anchor }, "*");
  }
  window.addEventListener("message", function (event) {
    if (event.source !== window.parent || !event.data || event.data.type !== "devcoach:theme") return;
    var theme = event.data.theme === "dark" ? "dark" : "light";
    root.setAttribute("data-theme", theme);
    Object.keys(neutrals[theme]).forEach(function (name) { root.style.setProperty(name, neutrals[theme][name]); });
    report();
  });
  window.addEventListener("load", report);
  window.addEventListener("hashchange", report);
  window.addEventListener("resize", report);
  report();
})();
