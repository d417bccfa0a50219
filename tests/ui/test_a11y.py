"""The page-wide accessibility fixes (ui/access/a11y.py): the script is allowed by the proxy's policy and aims at what
the app draws; the code colours reach WCAG's 4.5:1 on every background a code block has."""

from __future__ import annotations

import re

import pytest

from tests.csp import proxy_allows, script_body
from ui.access import a11y
from ui.charts import ALT_PREFIX, CHART_PREFIX


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two ``#rrggbb`` colours."""
    def lum(h):
        r, g, b_ = (int(h.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
        f = lambda v: v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4  # noqa: E731
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b_)
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_proxys_policy_allows_the_accessibility_script_by_its_hash():
    assert proxy_allows(a11y.A11Y_JS)


def test_the_script_names_the_charts_marks_formulas_and_the_current_page():
    body = script_body(a11y.A11Y_JS)
    assert f"st-key-{CHART_PREFIX}" in body and f"st-key-{ALT_PREFIX}" in body
    assert 'setAttribute("role", "figure")' in body and 'setAttribute("aria-label", text)' in body
    assert 'svg.setAttribute("aria-hidden", "true")' in body
    assert ".katex-display" in body and "tabIndex = 0" in body
    assert "aria-current" in body and "st-key-dtx_nav" in body


def test_the_scripts_container_takes_no_room():
    assert f".st-key-{a11y.A11Y_KEY}," in a11y.A11Y_CSS and "display: none" in a11y.A11Y_CSS


@pytest.mark.parametrize("background", ["#f8fafc", "#f1f4f8", "#e8ecf2", "#ffffff"])
def test_every_code_colour_reaches_4_5_to_1(background):
    colours = re.findall(r"(?<![-\w])color: (#[0-9a-f]{6})", a11y.A11Y_CSS)  # text colours, not border-color
    assert len(colours) == 7  # six token groups and inline code in captions
    low = {c: round(contrast(c, background), 2) for c in colours if contrast(c, background) < 4.5}
    assert not low, low


@pytest.mark.parametrize("background", ["#f1f4f8", "#e8ecf2", "#ffffff"])
def test_every_control_boundary_colour_reaches_3_to_1(background):
    """Frames, unchecked boxes and toggle tracks (WCAG 1.4.11); the browser test measures them on the pages."""
    colours = re.findall(r"(?:border|background)-color: (#[0-9a-f]{6})", a11y.A11Y_CSS)
    assert len(colours) >= 5
    low = {c: round(contrast(c, background), 2) for c in colours if contrast(c, background) < 3}
    assert not low, low


def test_the_contrast_formula_matches_wcag_examples():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the lightest grey at 4.5:1


#: Streamlit's calls that draw a chart or a picture
CHART_CALL = re.compile(r"\.(plotly_chart|pyplot|altair_chart|vega_lite_chart|bokeh_chart|pydeck_chart|graphviz_chart|"
                        r"line_chart|bar_chart|area_chart|scatter_chart|image)\(|\bst\.(map)\(")
#: the two places allowed to call st.plotly_chart: ui.charts.show_chart (text alternative and table) and the tree
#: diagrams' ui.tree_view.show_figure (their ARIA tree)
CHART_HOMES = {"ui/charts.py", "ui/tree_view.py"}


def charts_without_text(files: dict[str, str]) -> list[str]:
    """``path:line`` of each chart call outside :data:`CHART_HOMES`, and of each image without an ``alt=``."""
    out = []
    for path, text in files.items():
        for no, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            m = CHART_CALL.search(code)
            if not m or code.lstrip().startswith(("``", '"', "'")) or "``" in code:
                continue
            name = m.group(1) or m.group(2)
            if name == "image":
                call = "\n".join(text.splitlines()[no - 1:no + 2])
                if "alt=" not in call:
                    out.append(f"{path}:{no} image without alt")
            elif path not in CHART_HOMES:
                out.append(f"{path}:{no} {name} outside ui.charts.show_chart")
    return out


def test_every_chart_of_the_app_has_its_text_alternative():
    """Issue 37 item 2: every chart is drawn by ui.charts.show_chart (description and "Chart as a table") or is a
    tree diagram with its ARIA tree (ui.tree_view), and every picture has an alt text (the QR code)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = {str(p.relative_to(root)): p.read_text(encoding="utf-8")
             for p in [root / "app.py", *(root / "ui").rglob("*.py"), *(root / "pages").rglob("*.py")]}
    assert not charts_without_text(files)
    assert charts_without_text({"pages/x.py": "st.bar_chart(df)\ncol.plotly_chart(fig, key='k')\nst.image(png)\n"
                                              "st.map(df)\ndf['a'].map(str)\n",
                                "ui/charts.py": "    event = st.plotly_chart(fig, key=key)\n"}) == [
        "pages/x.py:1 bar_chart outside ui.charts.show_chart", "pages/x.py:2 plotly_chart outside ui.charts.show_chart",
        "pages/x.py:3 image without alt", "pages/x.py:4 map outside ui.charts.show_chart"]
