"""AppTest of the Ensembles page's gradient boosting: train, step a round, play, to the end, errors."""

from __future__ import annotations

import json

import numpy as np

import engine
from engine.ensembles import fit_gradient_boosting
from tests.app.test_page_ensembles import _chart, _ok, _open, _train, _values
from ui.ensembles import gradient
from ui.ensembles import train as training


def _boost(at, **widgets):
    return _train(at, "gradient_boosting", **widgets)


def _round(at) -> int:
    return at.session_state[gradient.ROUND]


def test_regression_steps_plays_and_ends_equal_to_the_engine(monkeypatch):
    monkeypatch.setattr(gradient, "PLAY_SECONDS", 3600.0)   # a slow run must not count as a second of Play
    ds = engine.load_sample("diabetes")
    at, split = _open(ds)
    _boost(at, **{training.W_GB_M: 6, training.W_GB_DEPTH: 2})
    res = at.session_state[training.RESULT]
    ens = res["ensemble"]
    assert ens.method == "gradient_boosting" and ens.n_rounds == 6
    ref = fit_gradient_boosting(split.train, n_estimators=6, max_depth=2, test=split.test)
    assert np.allclose(ens.raw(split.test), ref.raw(split.test))
    assert _round(at) == 1
    assert any("Round 1:" in t.value.replace("\\", "") for t in at.markdown)
    at.button(key="_w_gb_step").click().run()
    _ok(at)
    assert _round(at) == 2 and any("Round 2:" in t.value.replace("\\", "") for t in at.markdown)
    # the residual chart holds round 2's residuals: target minus F_1
    spec = _chart(at, "gb_residuals")
    want = split.train.y - ens.raw(split.train, 1)[:, 0]
    assert np.allclose(_values(spec["data"][0]["y"]), want)
    assert np.allclose(np.sort(_values(spec["data"][1]["y"])), np.sort(ens.round_outputs(split.train, 1)[:, 0]))
    assert spec["data"][1]["name"] == "the round's tree"                # the mean residual of its leaf
    loss = _chart(at, "gb_loss")
    assert [t["name"] for t in loss["data"]][:3] == ["training loss", "test loss", "lowest test loss"]
    # the waterfall adds up: start value plus the first two rounds' shares is F_2 of the row
    wf = _chart(at, "gb_waterfall")["data"][0]
    assert wf["type"] == "waterfall" and list(wf["x"]) == ["base score", "tree 1", "tree 2", "margin"]
    bars = _values(wf["y"])
    assert np.isclose(bars[:3].sum(), ens.raw(split.train.frame.iloc[[0]], 2)[0, 0]) and np.isclose(bars[3], bars[:3].sum())
    at.button(key="_w_gb_back").click().run()
    assert _round(at) == 1
    at.button(key="_w_gb_play").click().run()
    _ok(at)
    assert _round(at) == 2 and at.session_state[gradient.PLAYING]
    at.session_state[gradient.PLAY_LAST] = -1e9        # a whole pace has passed: the ticker steps a round
    at.run()
    assert _round(at) == 3
    at.button(key="_w_gb_pause").click().run()
    assert _round(at) == 3 and not at.session_state[gradient.PLAYING]
    at.button(key="_w_gb_end").click().run()
    _ok(at)
    assert _round(at) == 6 and any("Round 6:" in t.value.replace("\\", "") for t in at.markdown)
    assert at.button(key="_w_gb_step").disabled


def test_classes_two_features_and_class_trees():
    ds = engine.load_sample("iris")
    at, split = _open(ds)
    _boost(at, **{training.W_GB_M: 4, training.W_GB_SUB: 0.8})
    ens = at.session_state[training.RESULT]["ensemble"]
    assert ens.n_columns == 3 and len(ens.members) == 12
    at.radio(key=gradient.W_DIMS).set_value(2).run()
    _ok(at)
    maps = [_chart(at, "gb_map_before"), _chart(at, "gb_map_after")]
    assert all(m["data"][0]["type"] == "heatmap" for m in maps)
    at.selectbox(key=gradient.W_CLASS).set_value(ds.classes[2]).run()
    _ok(at)
    assert "residual of " + ds.classes[2] in json.dumps(_chart(at, "gb_residuals")["layout"]["title"])
    at.number_input(key=gradient.W_ROW).set_value(5).run()
    _ok(at)
    why = _chart(at, "gb_why_chart")                      # path contributions beside SHAP for the row's margin
    row = split.train.frame.iloc[[5]]
    output = list(ens.classes).index(at.session_state["_w_gb_why_output"])
    shap = engine.tree_shap(ens, row)[0, output]
    drawn = sorted(float(v) for t in why["data"] if "SHAP" in t["name"] for v in _values(t["x"]))
    assert np.allclose(drawn, sorted(v for v in shap[:-1] if v != 0) or drawn, atol=1e-9)
    assert abs(sum(shap[:-1]) + shap[-1] - ens.raw(row)[0, output]) < 1e-9


def test_engine_refusals_are_one_sentence(monkeypatch):
    monkeypatch.setenv("DTX_MEMORY_BUDGET_MB", "1")
    at, _ = _open(engine.load_sample("breast_cancer"))
    at.segmented_control(key=training.W_METHOD).set_value("gradient_boosting").run()
    at.session_state[training.W_GB_M] = 2000
    at.button(key="_w_ens_train").click().run()
    assert not at.exception
    assert [e.value for e in at.error]
    assert "Gradient boosting with 2,000 rounds of depth-3 trees" in at.error[0].value.replace("\\", "")
    assert at.session_state[training.W_GB_LOSS] == "log_loss"      # the only loss offered for classes


def test_round_tree_grows_split_by_split_with_gain_tables():
    ds = engine.load_sample("diabetes")
    at, split = _open(ds)
    _boost(at, **{training.W_GB_M: 3, training.W_GB_DEPTH: 2})
    ens = at.session_state[training.RESULT]["ensemble"]
    at.button(key="_w_gb_step").click().run()
    at.button(key="_w_gb_regrow_step").click().run()
    _ok(at)
    table = at.dataframe[0].value
    assert list(table["split"])[0] == ens.members[1].tree.root.split.describe()
    assert any("Node 0 (" in m.value.replace("\\", "") for m in at.markdown)
    for _ in range(3):
        at.button(key="_w_gb_regrow_step").click().run()
    _ok(at)
    grown = at.session_state["_ens_memo"][("gb_grower", ens, 1, 0)]
    assert grown.done and grown.tree.fingerprint == ens.members[1].tree.fingerprint
    at.button(key="_w_gb_regrow_reset").click().run()
    assert grown.n_steps == 0


def test_categories_and_missing_values_step_without_errors():
    for name in ("play_tennis", "titanic_small"):       # no numeric feature; missing values and categories
        at, split = _open(engine.load_sample(name))
        _boost(at, **{training.W_GB_M: 3})
        at.button(key="_w_gb_step").click().run()
        _ok(at)
        ens = at.session_state[training.RESULT]["ensemble"]
        assert ens.n_rounds == 3 and _chart(at, "gb_waterfall")["data"][0]["type"] == "waterfall"
        assert np.array_equal(ens.predict(split.test), fit_gradient_boosting(split.train, n_estimators=3).predict(split.test))


def test_a_log_loss_round_is_narrated_to_its_last_word_beside_its_newton_leaves():
    # the narration went through md_escape's 300-character cut for user text: a log-loss round lost the
    # end of its Newton sentence ("... each leaf takes one N…"); feature names in it are still escaped
    at, split = _open(engine.load_sample("breast_cancer"))
    _boost(at, **{training.W_GB_M: 2})
    _ok(at)
    ens = at.session_state[training.RESULT]["ensemble"]
    from engine.teach.narration import row_noun
    from engine.teach.narration_prune_boost import narrate_gradient_round
    want = narrate_gradient_round(ens, 0, noun=row_noun("breast_cancer"))
    assert len(want) > 300 and "sum of p(1 − p)" in want
    shown = [t.value.replace("\\", "") for t in at.markdown if "Round 1:" in t.value.replace("\\", "")]
    assert shown == [want]
    # the round's tree beside the residuals: its leaves are Newton steps (about 4x the residuals), and say so
    spec = _chart(at, "gb_residuals")
    assert spec["data"][1]["name"] == "the round's tree (Newton-step leaf values)"
    assert np.allclose(np.sort(_values(spec["data"][1]["y"])), np.sort(ens.round_outputs(split.train, 0)[:, 0]))
