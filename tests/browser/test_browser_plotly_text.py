"""End to end in Chromium: no Plotly chart turns user text into a link or a tag.

Plotly draws its text through a subset of HTML, so a category value ``<a href="...">v0</a>`` that
reaches a figure unescaped becomes a real ``<a>`` element in the chart's SVG (it did in the regression
fit plot's tick labels and in the Ensembles decision map's hover). The hostile files of
``tests/app/hardening/test_hardening_plotly.py`` are uploaded through the real uploader; the Grow page
(region plot, steps, the fit plot along the categorical feature), the Evaluate page and the Ensembles
decision map (hovered) are drawn, and every chart's SVG must hold no ``<a>`` while showing the names
literally.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.app.hardening.test_hardening_plotly import hostile_csv

LINKS = ".js-plotly-plot svg a"  # Plotly's modebar buttons are <a> too, but outside the SVG


def _upload(page, wait_idle, path) -> None:
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Data").click()
    wait_idle(page)
    page.locator(".st-key-_w_data_upload [data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    expect(page.get_by_text(re.compile(r"Loaded .*hostile"))).to_be_visible(timeout=60_000)
    wait_idle(page)


def _go(page, wait_idle, name: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name=name).click()
    wait_idle(page)


def _svg_text(page, selector: str) -> str:
    return " ".join(t or "" for t in page.locator(f"{selector} svg text").all_text_contents())


def _no_links(page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert page.locator(".js-plotly-plot").count() > 0
    assert page.locator(LINKS).count() == 0, page.locator(LINKS).evaluate_all("a => a.map(x => x.outerHTML)")


def test_regression_fit_plot_shows_category_links_as_text(page, wait_idle, screenshot, tmp_path):
    path = tmp_path / "hostile_regression.csv"
    path.write_bytes(hostile_csv(regression=True))
    _upload(page, wait_idle, path)
    _go(page, wait_idle, "Grow")
    for _ in range(2):
        page.locator(".st-key-_w_grow_step button").click()
        wait_idle(page)
    _no_links(page)
    page.get_by_text("Prediction along one feature").click()  # the fit plot; its first feature is the links
    wait_idle(page)
    expect(page.locator(".st-key-grow_fit .js-plotly-plot")).to_have_count(1)
    _no_links(page)  # before: the tick labels were live links to 127.0.0.1:8799
    ticks = _svg_text(page, ".st-key-grow_fit")
    assert '<a href="http://127.0.0.1:8799/v0">v0</a>' in ticks, ticks
    screenshot(page, "plotly-text-fit", full_page=False)
    _go(page, wait_idle, "Evaluate")
    _no_links(page)


def test_classes_as_links_in_evaluate_and_the_decision_map_hover(page, wait_idle, screenshot, tmp_path):
    page.set_viewport_size({"width": 1440, "height": 1600})
    path = tmp_path / "hostile_classes.csv"
    path.write_bytes(hostile_csv())
    _upload(page, wait_idle, path)
    _go(page, wait_idle, "Grow")
    page.locator(".st-key-_w_grow_step button").click()
    wait_idle(page)
    _no_links(page)
    _go(page, wait_idle, "Evaluate")
    _no_links(page)
    assert '<a href="http://127.0.0.1:8799/c1">c1</a>' in _svg_text(page, "[class*='st-key-eval_fig_']")
    _go(page, wait_idle, "Ensembles")
    page.get_by_role("button", name="Train").click()
    wait_idle(page, timeout=180_000)
    page.get_by_role("tab", name="Decision map").click()
    wait_idle(page)
    plot = page.locator(".st-key-ens_map .js-plotly-plot")
    expect(plot).to_have_count(1)
    box = plot.locator(".nsewdrag").first.bounding_box()
    hovers = []
    for fx, fy in ((0.1, 0.1), (0.9, 0.9), (0.1, 0.9), (0.9, 0.1), (0.5, 0.5)):
        page.mouse.move(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        page.wait_for_timeout(300)
        hovers.append(" ".join(t or "" for t in page.locator(".st-key-ens_map .hoverlayer text").all_text_contents()))
        assert page.locator(LINKS).count() == 0, hovers[-1]
    assert any("c1</a>" in h or "<b>c2</b>" in h or "&lt;c3" in h for h in hovers), hovers
    screenshot(page, "plotly-text-map", full_page=False)
    _no_links(page)
