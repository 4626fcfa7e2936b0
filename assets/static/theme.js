// The dashboard's theme, in <head> before the page paints. `apply()` is the only code that sets
// `data-theme`, and each call announces the result as a `dc:theme` event (the course frame and
// the toggle follow it). What wins: this browser's own choice (kept in localStorage until the
// Settings form is saved), else the server's setting, else the system's scheme, followed live.
(function () {
  "use strict";
  var KEY = "theme-override";
  var root = document.documentElement;
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var memory = null; // the choice, when storage is blocked: kept for this page at least

  function scheme(value) {
    return value === "light" || value === "dark" ? value : null;
  }
  function choice() {
    try {
      return scheme(localStorage.getItem(KEY));
    } catch (e) {
      return memory;
    }
  }
  function server() {
    var meta = document.querySelector('meta[name="devcoach-theme"]');
    return scheme(meta ? meta.content : "system");
  }
  function wanted() {
    return choice() || server() || (media && media.matches ? "dark" : "light");
  }
  function apply() {
    var theme = wanted();
    root.setAttribute("data-theme", theme);
    // The toggle shows the scheme in use, and says what a press does.
    var other = theme === "dark" ? "light" : "dark";
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      var mark = button.querySelector("[data-theme-mark]");
      if (mark) mark.textContent = theme === "dark" ? "\u263E" : "\u2600";
      var words = (theme === "dark" ? "Dark" : "Light") + " theme: switch to " + other;
      button.setAttribute("aria-label", words);
      button.setAttribute("title", words);
    });
    window.dispatchEvent(new CustomEvent("dc:theme", { detail: theme }));
    return theme;
  }

  window.devcoachTheme = {
    apply: apply,
    // This browser's own choice, until the Settings form is saved.
    choose: function (theme) {
      memory = scheme(theme);
      try {
        localStorage.setItem(KEY, memory);
      } catch (e) {
        /* kept in memory only */
      }
      return apply();
    },
    forget: function () {
      memory = null;
      try {
        localStorage.removeItem(KEY);
      } catch (e) {
        /* nothing kept */
      }
    },
  };

  apply();
  document.addEventListener("DOMContentLoaded", apply);
  // "system" follows the OS as it changes, not only at load.
  if (media) {
    if (media.addEventListener) media.addEventListener("change", apply);
    else if (media.addListener) media.addListener(apply);
  }
})();
