"""AppTest of pages/prune.py (run inside app.py): every method and control, missing validation rows, regression."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine.prune.reduced_error import prune_reduced_error
from engine.prune.pessimistic import prune_pessimistic
from engine.prune.cost_complexity import ccp_path, prune_ccp
from ui import state
from ui.prune import views as pv
from tests.app.tree_charts import click_node, tree_charts

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/prune.py"
METHOD = "_w_prune_method"


def _open(ds, *, test_size=0.2, validation_size=0.2, seed=0, grow=True, steps=None, config=None) -> tuple:
    """The Prune page on ``ds`` with the given split, and (optionally) a Grow-page tree."""
    at = AppTest.from_file(APP, default_timeout=180)
    settings = {"test_size": test_size, "validation_size": validation_size, "seed": seed}
    split = ds.split(**settings)
    for key, value in {state.DATASET: ds, state.LOADED_DATASET: ds, state.DATASET_NAME: ds.name,
                       state.SPLIT_SETTINGS: settings, state.DATA_SPLIT: split, state.SEED: seed}.items():
        at.session_state[key] = value
    if config is not None:
        at.session_state[state.TREE_CONFIG] = config
    grower = None
    if grow:
        grower = engine.Grower(split.train, config or engine.TreeConfig(), validation_data=split.validation)
        if steps is None:
            grower.grow()
        else:
            for _ in range(steps):
                grower.step()
        at.session_state[state.GROWER] = grower
    at.switch_page(PAGE)
    return at.run(), split, grower


def _method(at, name):
    at.segmented_control(key=METHOD).set_value(name).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _log(at) -> pd.DataFrame:
    frames = [d.value for d in at.dataframe if "action" in d.value.columns]
    assert frames, "no pruning log"
    return frames[0]


def _chart(at, i: int) -> dict:
    return tree_charts(at)[i]


def _text(at, i: int) -> str:
    """What the i-th diagram's boxes say."""
    return " ".join(_chart(at, i)["text"])


@pytest.fixture(scope="module")
def moons():
    return engine.load_sample("noisy_moons")


def test_without_a_tree_the_page_offers_to_grow_one(moons):
    at, split, _ = _open(moons, grow=False)
    assert not at.exception
    assert "no tree to prune yet" in at.info[0].value
    assert "Go to the Grow page" in [link.label for link in at.page_link]
    at.button(key="prune_grow").click().run()
    assert not at.exception and not at.error
    tree = at.session_state[state.GROWER].tree
    assert tree.n_leaves > 10
    expected = prune_reduced_error(tree, split.validation)
    assert _metrics(at)["Leaves"] == str(expected.tree.n_leaves)
    assert len(tree_charts(at)) == 2


def test_reduced_error_shows_numbers_diagrams_and_log(moons):
    at, split, grower = _open(moons)
    assert not at.exception and not at.error
    expected = prune_reduced_error(grower.tree, split.validation)
    metrics = _metrics(at)
    assert metrics["Leaves"] == str(expected.tree.n_leaves)
    assert metrics["validation accuracy after"] == f"{dict(expected.summary)['validation accuracy after']:,.4g}"
    log = _log(at)
    assert len(log) == len(expected.steps) and log["action"].tolist() == [s.action for s in expected.steps]
    before, after = _chart(at, 0), _chart(at, 1)
    assert "pruned" in " ".join(before["text"])
    assert before["fill"].count("#EEEEEE") > after["fill"].count("#EEEEEE") == 0  # cut subtrees greyed
    scores = at.dataframe[0].value
    assert scores["part"].tolist() == ["train", "validation", "test"]
    assert scores.set_index("part").loc["validation", "after"] == pytest.approx(
        dict(expected.summary)["validation accuracy after"], abs=1e-4)


def test_missing_validation_rows_test_rows_or_a_new_share(moons):
    at, split, grower = _open(moons, validation_size=0.0)
    # without validation rows the page opens on a method that needs none, not on a warning
    assert at.segmented_control(key=METHOD).value == "pessimistic" and not at.warning
    assert len(tree_charts(at)) == 2
    _method(at, "reduced_error")
    assert any("no validation rows" in w.value for w in at.warning)
    assert "Set a validation share on the Data page" in [link.label for link in at.page_link]
    assert not tree_charts(at)
    at.checkbox(key="_w_prune_use_test").check().run()
    assert not at.exception and not at.error
    assert not at.warning, [w.value for w in at.warning]  # the test rows are used: no warning any more
    assert any("test rows" in i.value for i in at.info)
    expected = prune_reduced_error(grower.tree, split.test)
    assert _metrics(at)["Leaves"] == str(expected.tree.n_leaves)
    at.checkbox(key="_w_prune_use_test").uncheck().run()
    at.button(key="prune_set_validation").click().run()
    assert not at.exception and not at.error
    assert at.session_state[state.SPLIT_SETTINGS]["validation_size"] == 0.2
    assert at.session_state[state.GROWER].done and len(tree_charts(at)) == 2
    assert any("validation rows" in s.value for s in at.success)


def test_small_data_without_test_rows_offers_only_a_validation_share():
    ds = engine.load_sample("play_tennis")
    at, split, grower = _open(ds, test_size=0.0, validation_size=0.0, config=engine.TreeConfig(algorithm="id3"))
    assert not at.exception
    _method(at, "reduced_error")
    assert not at.checkbox and at.button(key="prune_set_validation")
    _method(at, "pessimistic")  # needs no held-out rows
    assert len(tree_charts(at)) == 2


def test_cost_complexity_slider_validation_and_cross_validation(moons):
    at, split, grower = _open(moons)
    at = _method(at, "cost_complexity")
    tree = grower.tree
    path = ccp_path(tree, train=split.train, validation=split.validation)
    best = float(path.ccp_alphas[path.best_by_validation()])
    slider = at.select_slider(key="_w_prune_alpha")
    assert slider.value == best
    assert _metrics(at)["Leaves"] == str(prune_ccp(tree, best).tree.n_leaves)
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in chart["data"]} == {"leaves", "train", "validation", f"chosen α = {best:.4g}"}
    alpha = float(path.distinct_alphas[3])
    slider.set_value(alpha).run()
    assert not at.exception
    assert _metrics(at)["Leaves"] == str(prune_ccp(tree, alpha).tree.n_leaves)
    assert _log(at)["g(t)"].max() <= alpha
    at.button(key="prune_best_val").click().run()
    assert at.select_slider(key="_w_prune_alpha").value == best
    at.number_input(key="_w_prune_k").set_value(3).run()
    at.button(key="prune_run_cv").click().run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) - len(tree_charts(at)) == 2  # the α path and the CV curve
    at.button(key="prune_use_1se").click().run()
    one_se = at.select_slider(key="_w_prune_alpha").value
    at.button(key="prune_use_min").click().run()
    assert at.select_slider(key="_w_prune_alpha").value <= one_se


def test_pessimistic_controls_and_node_table():
    ds = engine.load_sample("titanic_small")
    at, split, grower = _open(ds, config=engine.TreeConfig(algorithm="c45"))
    # a C4.5 tree opens with J48's pruning: pessimistic, CF 0.25, subtree raising and collapsing
    assert at.segmented_control(key=METHOD).value == "pessimistic" and at.toggle(key="_w_prune_raise").value
    expected = prune_pessimistic(grower.tree, subtree_raising=True, train=split.train)
    assert _metrics(at)["Leaves"] == str(expected.tree.n_leaves)
    at.toggle(key="_w_prune_raise").set_value(False).run()
    assert _metrics(at)["Leaves"] == str(prune_pessimistic(grower.tree).tree.n_leaves)
    table = [d.value for d in at.dataframe if "leaf_estimate" in d.value.columns]
    assert table and len(table[0]) == grower.tree.n_nodes
    at.slider(key="_w_prune_cf").set_value(0.05).run()
    assert _metrics(at)["Leaves"] == str(prune_pessimistic(grower.tree, cf=0.05).tree.n_leaves)
    at.toggle(key="_w_prune_collapse").set_value(False).run()
    at.toggle(key="_w_prune_raise").set_value(True).run()
    assert not at.exception and not at.error
    raised = prune_pessimistic(grower.tree, cf=0.05, subtree_raising=True, collapse=False, train=split.train)
    assert _metrics(at)["Leaves"] == str(raised.tree.n_leaves)


def test_bottom_up_every_evaluation(moons):
    at, split, grower = _open(moons)
    at = _method(at, "bottom_up")
    assert at.selectbox(key="_w_prune_eval").options == [
        "validation error (classification) or mean squared error (regression)",
        "MDL bound  L_S(T) + sqrt((|T| + ln(2/δ)) / (2m))",
        "C4.5 pessimistic estimate: sum of N·U_CF(E, N) over the leaves, / m"]
    assert "f keep" in _log(at).columns
    at.selectbox(key="_w_prune_eval").set_value("mdl").run()
    assert not at.exception and at.latex
    at.slider(key="_w_prune_delta").set_value(0.2).run()
    assert not at.exception and not at.error
    at.selectbox(key="_w_prune_eval").set_value("pessimistic").run()
    at.slider(key="_w_prune_cf").set_value(0.1).run()
    assert not at.exception and not at.error and len(tree_charts(at)) == 2


def test_manual_prune_undo_and_start_again(moons):
    at, split, grower = _open(moons)
    at = _method(at, "manual")
    tree = grower.tree
    assert _metrics(at)["Leaves"] == str(tree.n_leaves)
    node = tree.node(0).children[1]
    at.selectbox(key="_w_prune_node").set_value(node).run()
    at.button(key="prune_manual_cut").click().run()
    assert not at.exception
    assert _metrics(at)["Leaves"] == str(tree.prune_to_leaf(node).n_leaves)
    at.selectbox(key="_w_prune_node").set_value(0).run()
    at.button(key="prune_manual_cut").click().run()
    assert _metrics(at)["Leaves"] == "1"
    assert any("single leaf now" in c.value for c in at.caption) and not at.selectbox
    at.button(key="prune_manual_undo").click().run()
    assert _metrics(at)["Leaves"] == str(tree.prune_to_leaf(node).n_leaves)
    at.button(key="prune_manual_reset").click().run()
    assert _metrics(at)["Leaves"] == str(tree.n_leaves)


def test_use_on_grow_page_collapses_the_grower(moons):
    at, split, grower = _open(moons)
    expected = prune_reduced_error(grower.tree, split.validation)
    at.button(key="prune_apply").click().run()
    assert not at.exception
    now = at.session_state[state.GROWER].tree
    assert now.n_leaves == expected.tree.n_leaves
    assert any("Grow page's tree is now the pruned tree" in s.value for s in at.success)
    assert sorted(n.id for n in now.walk()) == sorted(n.id for n in expected.tree.walk())


def test_open_tree_regression_and_grow_to_the_end():
    ds = engine.load_sample("diabetes")
    at, split, grower = _open(ds, steps=6)
    assert any("open leaves" in c.value for c in at.caption)
    assert not at.exception and not at.error
    at.button(key="prune_finish").click().run()
    assert at.session_state[state.GROWER].done
    _method(at, "pessimistic")
    assert "classification trees only" in at.info[0].value
    at = _method(at, "bottom_up")
    assert at.selectbox(key="_w_prune_eval").options == [
        "validation error (classification) or mean squared error (regression)"]
    at = _method(at, "cost_complexity")
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {"leaves", "train", "validation"} < {t["name"] for t in chart["data"]}
    at = _method(at, "reduced_error")
    assert "validation MSE after" in _metrics(at)


def test_big_tree_diagram_controls(moons):
    at, split, grower = _open(moons)
    assert grower.tree.n_nodes > 50
    side = _chart(at, 0)
    assert 1 in side["kinds"] and side["layout"]["meta"]["plan_width"] == pv.SIDE_WIDTH  # "+k nodes" boxes
    compact = _text(at, 0)
    at.toggle(key="_w_prune_compact").set_value(False).run()
    assert not at.exception and "gini" in _text(at, 0) and "gini" not in compact
    at.toggle(key="_w_prune_side").set_value(False).run()  # the whole width: more of the tree is drawn
    assert not at.exception and len(tree_charts(at)) == 2
    assert len(_chart(at, 0)["ids"]) > len(side["ids"]) and _chart(at, 0)["layout"]["meta"]["plan_width"] == pv.FULL_WIDTH


def test_small_tree_has_no_diagram_controls():
    ds = engine.load_sample("play_tennis")
    at, split, grower = _open(ds, test_size=0.0, validation_size=0.0, config=engine.TreeConfig(algorithm="id3"))
    _method(at, "manual")
    assert not at.get("select_slider") and len(tree_charts(at)) == 2
    assert _chart(at, 0)["text"][0].split("<br>")[:2] == ["#0 n=14", "Outlook"]


def test_clicking_a_node_of_before_picks_it_for_a_manual_cut(moons):
    at, split, grower = _open(moons)
    at = _method(at, "manual")
    inner = [n.id for n in grower.tree.internal_nodes][2]
    click_node(at, "prune_tree_before", inner)
    assert not at.exception and at.selectbox(key="_w_prune_node").value == inner
    at.button(key="prune_manual_cut").click().run()
    assert not at.exception and _metrics(at)["Leaves"] == str(grower.tree.prune_to_leaf(inner).n_leaves)
