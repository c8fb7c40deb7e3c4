// The memory card's progressive enhancement: the page works without this file.
// "More memories" loads the next page in place (and so does scrolling to it), keeping the
// filters; focus moves to the first new memory and a status line says how many came.
// A form refused with a message brings the message into view and focus.
(function () {
  "use strict";

  function announce(text) {
    var status = document.getElementById("loaded");
    if (status) status.textContent = text;
  }

  function loadMore(link, byKeyboardOrClick) {
    if (link.dataset.loading === "1") return;
    link.dataset.loading = "1";
    link.setAttribute("aria-busy", "true");
    var url = new URL(link.href, window.location.href);
    url.searchParams.set("fragment", "1");
    fetch(url.toString(), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var list = document.getElementById("memories");
        var pager = document.getElementById("pager");
        var fresh = Array.prototype.slice.call(doc.querySelectorAll("[data-items] > li"));
        fresh.forEach(function (item) { list.appendChild(document.adoptNode(item)); });
        var nextPager = doc.querySelector("[data-pager]");
        pager.replaceChildren.apply(pager, Array.prototype.slice.call(nextPager.childNodes).map(function (n) {
          return document.adoptNode(n);
        }));
        announce(fresh.length + (fresh.length === 1 ? " more memory loaded." : " more memories loaded."));
        if (byKeyboardOrClick && fresh.length) {
          var first = fresh[0].querySelector("a");
          if (first) first.focus();
        }
        watch();
      })
      .catch(function () {
        link.dataset.loading = "";
        link.removeAttribute("aria-busy");
        announce("The next memories could not be loaded; the link opens them as a page.");
        link.removeAttribute("data-more");
      });
  }

  var observer = null;
  function watch() {
    var link = document.querySelector("a[data-more]");
    if (!link) return;
    link.addEventListener("click", function (event) {
      event.preventDefault();
      loadMore(link, true);
    });
    if ("IntersectionObserver" in window) {
      if (observer) observer.disconnect();
      observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (entry.isIntersecting) loadMore(link, false);
        });
      }, { rootMargin: "200px" });
      observer.observe(link);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    watch();
    var problem = document.getElementById("problem");
    if (problem) problem.focus();
  });
})();
