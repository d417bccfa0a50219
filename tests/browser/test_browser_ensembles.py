"""End to end in Chromium: train a forest and AdaBoost on the noisy moons, look at votes, the decision map,
the curves and the rounds; then learn a decision list and a k-DT on the Rules page. Screenshots of each."""

from __future__ import annotations

from playwright.sync_api import expect

TREES = "[class*='st-key-'][class*='_tree'] .js-plotly-plot"  # the interactive tree diagrams


def _tab(page, name: str):
    page.get_by_role("tab", name=name).click()


def _no_errors(page):
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)


def test_ensembles_page(page, wait_idle, screenshot):
    page.set_viewport_size({"width": 1440, "height": 2200})  # tall: the screenshots show whole panels
    # the lesson link loads the noisy moons and preselects the random forest
    page.goto("/ensembles?lesson=random-forest-votes&method=random_forest")
    wait_idle(page)
    expect(page.get_by_role("heading", name="Ensembles")).to_be_visible()
    page.get_by_role("button", name="Train").click()
    wait_idle(page, timeout=180_000)
    expect(page.get_by_text("Random forest: 50 members trained")).to_be_visible()
    panel = page.get_by_role("tabpanel", name="Vote")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)  # the vote and the member tree
    expect(panel.locator(TREES)).to_have_count(1)
    expect(panel.locator("g.point")).not_to_have_count(0)  # the stacked vote segments
    screenshot(page, "ensembles_vote")

    _tab(page, "Decision map")
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name="Decision map")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    expect(panel.locator(".heatmaplayer image, .heatmaplayer .hm")).not_to_have_count(0)
    screenshot(page, "ensembles_map")

    _tab(page, "Size & variance")
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name="Size & variance")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    expect(panel.get_by_test_id("stCode")).to_contain_text("measured")
    screenshot(page, "ensembles_curves")
    _no_errors(page)

    # AdaBoost with stumps, one round at a time
    page.get_by_test_id("stButtonGroup").first.get_by_text("AdaBoost", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Train").click()
    wait_idle(page, timeout=180_000)
    _tab(page, "AdaBoost rounds")
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name="AdaBoost rounds")
    slider = panel.get_by_role("slider")
    slider.focus()
    for _ in range(4):
        slider.press("ArrowRight")
    wait_idle(page)
    expect(panel.get_by_test_id("stMetricValue")).to_have_count(4)
    expect(panel.get_by_text("Round 5")).not_to_have_count(0)
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(3)  # two plots and the round's tree
    expect(panel.locator(TREES)).to_have_count(1)
    screenshot(page, "ensembles_rounds")
    _no_errors(page)


def test_rules_page(page, wait_idle, screenshot):
    page.set_viewport_size({"width": 1440, "height": 1800})
    page.goto("/")
    wait_idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Rules").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Rules")).to_be_visible()
    panel = page.get_by_role("tabpanel", name="Decision list")
    panel.get_by_role("button", name="Step").click()
    wait_idle(page)
    panel.get_by_role("button", name="Run to the end").click()
    wait_idle(page)
    expect(panel.get_by_text("Every training row is covered by")).to_be_visible()
    expect(panel.get_by_role("button", name="Step")).to_be_disabled()
    screenshot(page, "rules_decision_list")

    _tab(page, "k-DT")
    wait_idle(page)
    panel = page.get_by_role("tabpanel", name="k-DT")
    panel.get_by_role("button", name="Build the k-DT").click()
    wait_idle(page)
    expect(panel.locator(TREES)).to_have_count(1)
    expect(panel.get_by_test_id("stCode")).to_contain_text("IF (Outlook = Sunny AND Humidity = High) THEN No")
    screenshot(page, "rules_kdt")
    _no_errors(page)


def test_gradient_boosting_one_round_at_a_time(page, wait_idle, screenshot):
    """A boosting run on the noisy moons at a laptop's 1366x768: train, step, play, to the end; the residuals,
    the round's tree, the running prediction (curve, then maps), the loss curve and the waterfall draw."""
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/ensembles?lesson=random-forest-votes&method=gradient_boosting")
    wait_idle(page)
    page.get_by_role("button", name="Train").click()
    wait_idle(page, timeout=180_000)
    expect(page.get_by_text("Gradient boosting: 50 rounds (50 trees) trained")).to_be_visible()
    expect(page.get_by_text("Round 1 of 50")).to_be_visible()
    page.get_by_role("button", name="Step a round").click()
    wait_idle(page)
    expect(page.get_by_text("Round 2 of 50")).to_be_visible()
    expect(page.get_by_text("Round 2: a tree with")).to_be_visible()
    for key in ("gb_residuals", "gb_running", "gb_loss", "gb_waterfall"):
        expect(page.locator(f".st-key-{key} .js-plotly-plot")).to_have_count(1)
    expect(page.locator(TREES)).to_have_count(1)
    _no_errors(page)
    screenshot(page, "ensembles_boosting_viewport", full_page=False)
    page.set_viewport_size({"width": 1366, "height": 3200})    # the whole panel, still 1366 px wide
    wait_idle(page)
    screenshot(page, "ensembles_boosting_round")
    page.set_viewport_size({"width": 1366, "height": 768})
    wait_idle(page)
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_text("Round 4 of 50")).to_be_visible(timeout=20_000)   # a round a second
    page.get_by_role("button", name="Pause").click()
    wait_idle(page)
    page.get_by_role("button", name="To the end").click()
    wait_idle(page)
    expect(page.get_by_text("Round 50 of 50")).to_be_visible()
    page.get_by_text("Grow round 50's tree split by split").click()
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    expect(page.get_by_text("2 steps · 3 leaves")).to_be_visible()
    regrow = page.get_by_test_id("stExpander").filter(has_text="Grow round 50's tree split by split")
    expect(regrow.get_by_test_id("stDataFrame")).to_have_count(1)          # the last split's gain table
    page.set_viewport_size({"width": 1366, "height": 3600})
    wait_idle(page)
    screenshot(page, "ensembles_boosting_regrow")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.get_by_text("two features").click()
    wait_idle(page)
    expect(page.locator(".st-key-gb_map_before .js-plotly-plot")).to_have_count(1)
    expect(page.locator(".st-key-gb_map_after .heatmaplayer")).not_to_have_count(0)
    _no_errors(page)
    page.set_viewport_size({"width": 1366, "height": 3200})
    wait_idle(page)
    screenshot(page, "ensembles_boosting_end")
