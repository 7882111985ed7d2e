// Copy buttons: <button data-copy="ELEMENT_ID"> copies that element's text. The Clipboard API needs
// a secure context (HTTPS or localhost); elsewhere the text is selected and copied the old way.
(function () {
  "use strict";
  function done(button, ok) {
    button.dataset.copied = ok ? "1" : "0";
    var label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = ok ? "Copied" : "Select and copy by hand";
    setTimeout(function () { button.textContent = label; }, 2000);
  }
  function fallback(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    return ok;
  }
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var el = document.getElementById(button.dataset.copy);
      if (!el) return;
      var text = el.textContent.trim();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(button, true); },
          function () { done(button, fallback(el)); });
      } else {
        done(button, fallback(el));
      }
    });
  });
})();
