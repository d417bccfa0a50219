"""The shared accessibility checks of the browser tests: axe-core and a contrast measure, run in the page.

- :func:`axe_violations` injects the axe-core that ``axe-playwright-python`` ships (pinned in
  requirements-dev.txt) into a Playwright page, runs it with the WCAG 2.1 A/AA tags and returns each
  violation as ``{"id", "impact", "help", "nodes": [{"target", "summary"}]}``.
- :func:`report` turns them into lines a failing assertion can print (one per element).
- :func:`low_contrast_text` measures every visible text's contrast from the computed styles (its colour over the
  backgrounds behind it, composited down to the first opaque one) and returns the ones below 4.5:1 (3:1 for
  large text and for icon glyphs, which WCAG 1.4.11 counts as graphics).
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


_CONTRAST_JS = """
() => {
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
