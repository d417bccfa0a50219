"""Page-wide accessibility fixes that Streamlit's own markup needs (WCAG 2.1 AA), installed by ``app.py`` on every page.

- :data:`A11Y_CSS`: code blocks' syntax colours at 4.5:1 or more on their background (Streamlit's Prism theme
  drew comments at 3.5:1, numbers at 2.6:1 and options at 2.8:1); captions at 0.7 opacity, not 0.6 (4.4:1 on
  the sidebar's grey), inline code in a caption in the caption's own colour (Streamlit's green at 0.6: 3:1),
  a button's shortcut hint ("→" on Step) at 0.85, not 0.6 (3.4:1); a visible focus ring on formulas; form
  controls' boundaries at 3:1 or more (WCAG 1.4.11; Streamlit draws them at 1.5:1, a 20% grey): the frames of
  text, number, date and select boxes, of secondary buttons and of a segmented control's unselected buttons,
  an unchecked checkbox's and radio's border and an unchecked toggle's track in #7b8088 (3.97:1 on white, 3.6:1
  on the sidebar's #f1f4f8, 3.35:1 on #e8ecf2); a focused or checked control keeps Streamlit's own colours, a
  hovered button's frame is the theme's blue (tests/browser/test_browser_axe.py measures them on the pages);
  for users whose system asks for less motion (``prefers-reduced-motion: reduce``) no animated transitions on
  any page (the sidebar's slide, expanders, spinners, toasts; tests/browser/test_browser_motion.py).
- :data:`A11Y_JS`, one constant script (the proxy's Content-Security-Policy, deploy/dtx-site.inc, lists its
  hash; a test checks), re-applied whenever the page changes:
  - a formula (KaTeX) that scrolls sideways becomes focusable (``tabindex=0``, a group named "Formula"), so
    the keyboard can scroll it (axe-core's scrollable-region-focusable; WCAG 2.1.1);
  - each chart that ``ui.charts.show_chart`` drew gets ``role="figure"`` and its description as ``aria-label``
    (WCAG 1.1.1), and its SVG text is hidden from screen readers (``aria-hidden``): a screen reader says what
    it shows, not its labels run together, and still reaches Plotly's mode-bar buttons (``role="img"`` would
    hide those: axe-core's nested-interactive);
  - the sidebar's link to the page on screen gets ``aria-current="page"`` (Streamlit marks it by looks only).
"""

from __future__ import annotations

import streamlit as st

A11Y_KEY = "dtx_a11y"  # the script's container, hidden by A11Y_CSS (the script runs all the same)
# a literal (st.html takes constant text only). Prism token colours at >= 4.5:1 on the code backgrounds #f8fafc,
# #f1f4f8 and #e8ecf2 (tests/ui/test_a11y.py measures them); the script's container takes no room
A11Y_CSS = """<style>
:is(.comment, .prolog, .doctype, .cdata).token { color: #5f6472 !important; }
:is(.number, .boolean, .constant, .symbol, .deleted, .tag, .property).token { color: #0b6e60 !important; }
:is(.parameter, .variable, .attr-name, .selector, .builtin, .char, .string, .inserted).token { color: #0a6b8f !important; }
:is(.keyword, .atrule, .attr-value, .function, .class-name).token { color: #7a3e9d !important; }
:is(.operator, .entity, .url, .punctuation).token { color: #4a4f5c !important; }
:is(.regex, .important).token { color: #9a4b00 !important; }
[data-testid='stCaptionContainer'] { opacity: 0.7 !important; }
[data-testid='stCaptionContainer'] code { color: #1a1a1a !important; }
[data-testid^='stBaseButton'] kbd { opacity: 0.85 !important; }
.katex-display:focus-visible { outline: 2px solid #1f5fa8; outline-offset: 2px; }
:is([data-testid=stTextInputRootElement], [data-testid=stNumberInputContainer], [data-baseweb=textarea],
  [data-testid=stDateInputField], [data-baseweb=select] > div):not(:focus-within) { border-color: #7b8088 !important; }
:is([data-testid^=stBaseButton-secondary], [data-testid=stButtonGroup] button:not([aria-checked=true])):not(:focus-visible):not(:disabled) {
  border-color: #7b8088 !important; }
:is([data-testid^=stBaseButton-secondary], [data-testid=stButtonGroup] button):hover:not(:disabled) { border-color: #1f5fa8 !important; }
[data-testid=stCheckbox] label:has(input:not([role=switch]):not(:checked)) > div:nth-child(2) { border-color: #7b8088 !important; }
[data-testid=stCheckbox] label:has(input[role=switch]:not(:checked)) > div:nth-child(2) { background-color: #7b8088 !important; }
[data-testid=stRadioOption]:has(input:not(:checked)) > div > div:first-child { border-color: #7b8088 !important; }
.st-key-dtx_a11y, [data-testid='stLayoutWrapper']:has(> .st-key-dtx_a11y) { display: none !important; }
@media (prefers-reduced-motion: reduce) { *, *::before, *::after { animation-duration: 0.01ms !important;
  animation-iteration-count: 1 !important; transition-duration: 0.01ms !important; scroll-behavior: auto !important; } }
</style>"""
A11Y_JS = r"""<script>
(() => {
  const fix = () => {
    window.__dtxA11yQueued = false;
    document.querySelectorAll(".katex-display:not([tabindex])").forEach(el => {
      if (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) {
        el.tabIndex = 0;
        el.setAttribute("role", "group");
        el.setAttribute("aria-label", "Formula");
      }
    });
    document.querySelectorAll("[class*='st-key-dtx_chart_']").forEach(box => {
      const gd = box.querySelector(".js-plotly-plot");
      const alt = box.querySelector("[class*='st-key-dtx_alt_']");
      if (!gd || !alt) return;
      const text = alt.textContent.trim();
      if (text && gd.getAttribute("aria-label") !== text) {
        gd.setAttribute("role", "figure");
        gd.setAttribute("aria-label", text);
      }
      gd.querySelectorAll("svg.main-svg:not([aria-hidden])").forEach(svg => svg.setAttribute("aria-hidden", "true"));
    });
    const links = [...document.querySelectorAll(".st-key-dtx_nav a[data-testid='stPageLink-NavLink']")];
    const seg = location.pathname.replace(/\/+$/, "").split("/").pop();  // hrefs are relative: "grow", "" (home)
    const current = links.find(a => a.getAttribute("href") === seg) || links.find(a => a.getAttribute("href") === "");
    links.forEach(a => a === current ? a.setAttribute("aria-current", "page") : a.removeAttribute("aria-current"));
  };
  const queue = () => {
    if (window.__dtxA11yQueued) return;
    window.__dtxA11yQueued = true;
    requestAnimationFrame(fix);
  };
  if (!window.__dtxA11yObserver) {
    window.__dtxA11yObserver = new MutationObserver(queue);
    window.__dtxA11yObserver.observe(document.body, {childList: true, subtree: true, characterData: true});
    // a formula can start to overflow with no change to the page: when KaTeX's fonts arrive, or the window narrows
    if (document.fonts) document.fonts.addEventListener("loadingdone", queue);
    window.addEventListener("resize", queue);
  }
  queue();
})();
</script>"""


def install() -> None:
    """Draw the style and the hidden script (no space on the page)."""
    st.html(A11Y_CSS)
    with st.container(key=A11Y_KEY):
        st.html(A11Y_JS, unsafe_allow_javascript=True, width="content")
