// Runs in <head> before the page paints: the server's theme, unless this browser chose one
// (kept only while the server says "system").
(function () {
  var meta = document.querySelector('meta[name="devcoach-theme"]');
  var server = meta ? meta.content : "system";
  var choice = null;
  try {
    if (server !== "system") localStorage.removeItem("theme-override");
    else choice = localStorage.getItem("theme-override");
  } catch (e) { /* storage blocked: follow the server */ }
  var theme = choice || server;
  if (theme !== "light" && theme !== "dark") {
    theme = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  document.documentElement.setAttribute("data-theme", theme);
})();
