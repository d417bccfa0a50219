"""The wheel script (ui/wheel.py): allowed by the proxy's policy, hidden without a gap, aimed at zoomable charts."""

from __future__ import annotations

from tests.csp import proxy_allows, script_body
from ui import tree_view
from ui.wheel import WHEEL_CSS, WHEEL_JS, WHEEL_KEY


def test_the_proxys_policy_allows_the_wheel_script_by_its_hash():
    assert proxy_allows(WHEEL_JS)


def test_the_proxys_policy_allows_the_tree_charts_zoom_keeper_by_its_hash():
    assert proxy_allows(tree_view.ZOOM_KEEPER)


def test_the_script_gates_the_charts_that_zoom_on_the_wheel():
    body = script_body(WHEEL_JS)
    # the tree diagrams zoom on the wheel; the script finds them by that config, whatever their key
    assert tree_view.CONFIG["scrollZoom"] is True
    assert "_context.scrollZoom" in body and ".js-plotly-plot" in body
    assert "addEventListener(k,h[k],true)" in body  # the capture phase, before Plotly's own listener
    assert "e.stopPropagation()" in body and "preventDefault" not in body  # the page still scrolls
    assert all(f"e.{k}Key" in body for k in ("ctrl", "meta", "alt"))


def test_the_frames_container_and_its_wrapper_are_hidden():
    assert f".st-key-{WHEEL_KEY}," in WHEEL_CSS and f":has(> .st-key-{WHEEL_KEY})" in WHEEL_CSS
    assert "display: none" in WHEEL_CSS


def test_the_proxys_policy_allows_the_region_overlay_script_and_its_data_takes_no_room():
    """The Grow page's region outline (ui.charts.overlay_shapes): one constant script, allowed by its hash; the
    shapes travel as text in containers that are not displayed."""
    from ui.charts import OVERLAY_CSS, OVERLAY_JS, OVERLAY_PREFIX

    assert proxy_allows(OVERLAY_JS)
    assert f"st-key-{OVERLAY_PREFIX}" in script_body(OVERLAY_JS)
    assert f"[class*='st-key-{OVERLAY_PREFIX}']" in OVERLAY_CSS and "display: none" in OVERLAY_CSS
