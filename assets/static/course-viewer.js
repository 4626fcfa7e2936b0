// The course page: sizes the sandboxed frame to its document, keeps the step list in step with
// what the frame shows, and passes the theme in.
(function () {
  "use strict";
  var frame = document.getElementById("course-frame");
  if (!frame) return;
  var steps = document.getElementById("course-steps");
  var base = frame.getAttribute("src").split("#")[0];

  function mark(anchor) {
    if (!steps) return;
    steps.querySelectorAll("li[data-anchor]").forEach(function (li) {
      li.classList.toggle("current", li.getAttribute("data-anchor") === anchor);
    });
  }
  function sendTheme() {
    if (frame.contentWindow) frame.contentWindow.postMessage({ type: "devcoach:theme", theme: document.documentElement.getAttribute("data-theme") }, "*");
  }

  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow || !event.data || event.data.type !== "devcoach:course") return;
    var height = Math.min(50000, Math.max(320, Number(event.data.height) || 0));
    frame.style.height = height + "px";
    if (event.data.anchor) mark(event.data.anchor);
  });
  frame.addEventListener("load", sendTheme);
  window.addEventListener("dc:theme", sendTheme);

  if (steps) {
    steps.addEventListener("click", function (event) {
      var link = event.target.closest("a[data-step-link]");
      if (!link) return;
      var li = link.closest("li[data-anchor]");
      event.preventDefault();
      frame.setAttribute("src", base + "#" + li.getAttribute("data-anchor"));
      mark(li.getAttribute("data-anchor"));
      history.replaceState(null, "", link.getAttribute("href"));
    });
  }
})();
