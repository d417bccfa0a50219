"""The shared accessibility checks of the browser tests: axe-core and a contrast measure, run in the page.

- :func:`axe_violations` injects the axe-core that ``axe-playwright-python`` ships (pinned in
  requirements-dev.txt) into a Playwright page, runs it with the WCAG 2.1 A/AA tags and returns each
  violation as ``{"id", "impact", "help", "nodes": [{"target", "summary"}]}``.
- :func:`report` turns them into lines a failing assertion can print (one per element).
- :func:`low_contrast_text` measures every visible text's contrast from the computed styles (its colour over the
  backgrounds behind it, composited down to the first opaque one) and returns the ones below 4.5:1 (3:1 for
  large text and for icon glyphs, which WCAG 1.4.11 counts as graphics).
- :func:`low_contrast_controls` measures the boundaries of the form controls (a box's frame, a checkbox, a toggle's
  track, a radio, a slider, a framed button): border or fill at 3:1 against what is behind (WCAG 1.4.11).
- :func:`low_contrast_marks` measures the bars, points and lines of the charts ``ui.charts.show_chart`` draws
  against their plot's background and returns those below 3:1 (WCAG 1.4.11).
"""

from __future__ import annotations

import functools

#: The WCAG 2.1 A and AA rules (axe-core's tags).
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")


@functools.lru_cache(maxsize=1)
def _axe():
    from axe_playwright_python.sync_playwright import Axe
    return Axe()


def axe_version() -> str:
    """The axe-core version the runner injects (from the script's banner, "axe v4.12.1")."""
    head = _axe().axe_script[:80]
    return head.split("axe v", 1)[1].split()[0] if "axe v" in head else "unknown"


def axe_violations(page, *, tags: tuple[str, ...] = TAGS) -> list[dict]:
    """The axe-core violations of ``page`` (a Playwright page) for the WCAG ``tags``."""
    results = _axe().run(page, options={"runOnly": {"type": "tag", "values": list(tags)},
                                        "resultTypes": ["violations"]})
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [{"target": n["target"], "summary": (n.get("failureSummary") or "").replace("\n", " ")}
                       for n in v["nodes"]]}
            for v in results.response["violations"]]


def count(violations: list[dict]) -> int:
    """Violating elements (axe's nodes) over all rules."""
    return sum(len(v["nodes"]) for v in violations)


def report(violations: list[dict], limit: int = 40) -> str:
    """One line per violating element: rule (impact): target: what axe says to fix."""
    lines = [f"{v['id']} ({v['impact']}): {n['target']}: {n['summary'][:300]}"
             for v in violations for n in v["nodes"]]
    more = [f"... and {len(lines) - limit} more"] if len(lines) > limit else []
    return "\n".join(lines[:limit] + more)


#: colour helpers shared by the measures: parse a CSS colour, relative luminance, alpha-compositing, the opacity an
#: element is drawn at, and the opaque colour behind an element
_COLOUR_JS = """
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const over = (top, under) => {  // alpha-composite top over an opaque colour
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const opacity = (el) => {  // an element's own opacity times its ancestors' (a caption is drawn at 0.6)
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    return o;
  };
  const background = (el) => {  // the colours behind el, composited from the first opaque one
    const layers = [], r = el.getBoundingClientRect();
    const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
    for (let e = el; e; e = e.parentElement) {
      const b = e.getBoundingClientRect();  // an ancestor paints behind el only where its box is (a slider's
      if (e !== document.body && e !== document.documentElement &&  // value floats above its thumb)
          (x < b.left || x > b.right || y < b.top || y > b.bottom)) continue;
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) {
        const o = opacity(e);
        layers.push([c[0], c[1], c[2], c[3] * o]);
        if (c[3] * o >= 1) break;
      }
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
"""

_CONTRAST_JS = """
() => {
""" + _COLOUR_JS + """
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent.trim()) continue;
    seen.add(el);
    if (el.closest('svg, script, style, noscript, [aria-hidden=true]')) continue;  // chart text: see marks
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (s.visibility !== 'visible' || r.width <= 1 || r.height <= 1 || parseFloat(s.opacity) === 0) continue;
    if (s.clip && s.clip.startsWith('rect(0') || s.clipPath === 'inset(50%)') continue;  // visually hidden (sr-only)
    if (el.closest('[disabled], [aria-disabled=true]')) continue;  // WCAG 1.4.3 exempts inactive controls
    const fg0 = parse(s.color);
    if (!fg0) continue;
    const shown = opacity(el);
    if (shown < 0.1) continue;  // faded out (a closed menu's options)
    fg0[3] *= shown;
    const bg = background(el);
    const fg = over(fg0, bg);
    const [a, b] = [lum(fg), lum(bg)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    const icon = /Material Symbols/.test(s.fontFamily);  // an icon glyph: WCAG 1.4.11's 3:1, not text's 4.5:1
    const need = large || icon ? 3 : 4.5;
    if (ratio < need - 0.005)
      out.push({text: n.textContent.trim().slice(0, 60), ratio: Math.round(ratio * 100) / 100, need,
                color: s.color, background: `rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`,
                testid: (el.closest('[data-testid]') || {}).dataset?.testid || ''});
  }
  return out;
}
"""


def low_contrast_text(page) -> list[dict]:
    """Visible HTML text (not chart SVG, not disabled controls) whose contrast is below WCAG 1.4.3's minimum."""
    return page.evaluate(_CONTRAST_JS)


_MARKS_JS = """
() => {
  const rgb = (c) => { const m = (c || '').match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)]; return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const out = {};
  document.querySelectorAll("[class*='st-key-dtx_chart_'] .js-plotly-plot").forEach(gd => {
    const bgRect = gd.querySelector('.bglayer .bg');
    let bg = bgRect ? rgb(getComputedStyle(bgRect).fill) : null;
    if (!bg || bg[3] === 0) bg = [255, 255, 255, 1];
    const marks = [...gd.querySelectorAll('.trace.bars .point path, .trace.scatter .points path')]
      .map(e => [e, 'fill', 'fill-opacity'])
      .concat([...gd.querySelectorAll('.trace.scatter .js-line')].map(e => [e, 'stroke', 'stroke-opacity']));
    for (const [e, prop, op] of marks) {
      const s = getComputedStyle(e);
      const c = rgb(s[prop]);
      if (!c || c[3] * parseFloat(s[op] || 1) < 0.5) continue;  // pale fills and tints are areas, not marks
      const r = ratio(c, bg);
      if (r < 3 - 0.005) out[`${s[prop]} on rgb(${bg.slice(0, 3).join(', ')})`] = Math.round(r * 100) / 100;
    }
  });
  return out;
}
"""


def low_contrast_marks(page) -> dict:
    """Colours of chart marks (bars, points, lines of the charts ``ui.charts.show_chart`` draws) below WCAG 1.4.11's
    3:1 against their plot's background: ``{"colour on background": ratio}``. Faint marks (opacity under 0.5:
    region tints, confidence bands) are areas, not marks, and are left out."""
    return page.evaluate(_MARKS_JS)


#: the element that draws each kind of control's boundary or state (Streamlit 1.67's markup): text, number, date
#: and select boxes (their frame), buttons that have a frame, a checkbox's box, a toggle's track, a radio's
#: circle, a segmented control's buttons (stButtonGroup) and a slider (its thumb, or the coloured bar around its range input)
CONTROLS = {
    "text or number box": "[data-testid=stTextInputRootElement], [data-testid=stNumberInputContainer], "
                          "[data-baseweb=textarea], [data-testid=stDateInputField], [data-baseweb=select] > div",
    "button": "button[data-testid^=stBaseButton-]:not([data-testid$=-headerNoPadding])"
              ":not([data-testid=stBaseButton-elementToolbar]), [data-testid=stButtonGroup] button",
    "checkbox or toggle": "[data-testid=stCheckbox] label > div:nth-child(2)",
    "radio": "[data-testid=stRadioOption] > div > div:first-child",
    "slider": "[data-testid=stSlider] [role=slider], [data-testid=stSlider] input[type=range]",
}

_CONTROLS_JS = """
(kinds) => {
""" + _COLOUR_JS + """
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)]; return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const css = (c) => `rgb(${c.slice(0, 3).map(Math.round).join(', ')})`;
  const out = [];
  for (const [kind, selector] of Object.entries(kinds)) {
    for (let el of document.querySelectorAll(selector)) {
      if (el.matches('input[type=range]')) {  // drawn by the first ancestor with a colour of its own
        if (el.disabled) continue;
        while (el.parentElement && (parse(getComputedStyle(el).backgroundColor) || [0, 0, 0, 0])[3] === 0) el = el.parentElement;
      }
      const s = getComputedStyle(el), r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1 || s.visibility !== 'visible' || opacity(el) < 0.1) continue;
      if (el.closest('[aria-hidden=true]')) continue;
      if (el.matches(':disabled, [aria-disabled=true]') || el.closest('label')?.querySelector('input:disabled')
          || el.querySelector('input:disabled, button:disabled')) continue;  // WCAG 1.4.11 exempts inactive controls
      const around = background(el.parentElement);
      const o = opacity(el);
      const fillC = parse(s.backgroundColor) || [0, 0, 0, 0];
      const fill = over([fillC[0], fillC[1], fillC[2], fillC[3] * o], around);
      const widths = ['Top', 'Right', 'Bottom', 'Left'].map(k => parseFloat(s[`border${k}Width`]) || 0);
      const side = ['Top', 'Right', 'Bottom', 'Left'][widths.indexOf(Math.max(...widths))];
      const hasBorder = Math.max(...widths) > 0 && s[`border${side}Style`] !== 'none';
      const borderC = hasBorder ? parse(s[`border${side}Color`]) : null;
      const border = borderC ? over([borderC[0], borderC[1], borderC[2], borderC[3] * o], around) : null;
      const fillRatio = ratio(fill, around), borderRatio = border ? ratio(border, around) : 1;
      // a button with neither a frame nor a fill of its own is identified by its text (tertiary, icon buttons)
      if (kind === 'button' && fillRatio < 1.05 && (!border || borderRatio < 1.05 && borderC[3] === 0)) continue;
      const best = Math.max(fillRatio, borderRatio);
      if (best < 3 - 0.005)
        out.push({kind, name: (el.closest('[data-testid^=st][data-testid$=Input], [data-testid=stSelectbox], '
                  + '[data-testid=stMultiSelect], [data-testid=stCheckbox], [data-testid=stRadio], [data-testid=stSlider]')
                  || el).innerText.trim().split('\\n')[0].slice(0, 40) || el.getAttribute('aria-label') || '',
                  ratio: Math.round(best * 100) / 100, fill: css(fill), border: border ? css(border) : 'none',
                  around: css(around)});
    }
  }
  return out;
}
"""


def low_contrast_controls(page) -> list[dict]:
    """Visible, enabled form controls (see :data:`CONTROLS`) whose boundary reaches neither by its border nor by
    its fill 3:1 against the colour behind it (WCAG 1.4.11): ``[{"kind", "name", "ratio", "fill", "border",
    "around"}]``. Buttons without a frame or fill of their own are identified by their text and left out."""
    return page.evaluate(_CONTROLS_JS, CONTROLS)
