"""Quiz (engine/teach/quiz.py): the next split without stepping, questions, and every scoring rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.errors import ConfigError
from engine.split.gain import candidate_scan, evaluate_test
from engine.teach.quiz import (AnswerKey, QuizAnswer, QuizQuestion, QuizScore, Window, judge, make_question,
                               next_split, reveal_table, threshold_windows)


# ------------------------------------------------------------------------------- windows
def test_window_bounds_open_and_closed():
    w = Window(1.0, 3.0, 2.0)
    assert [w.contains(t) for t in (1.0, 1.0001, 2.0, 2.9999, 3.0)] == [False, True, True, True, False]
    wc = Window(1.0, 3.0, 2.0, lo_closed=True)
    assert wc.contains(1.0) and not wc.contains(0.9999) and not wc.contains(3.0)
    assert repr(wc) == "Window([1, 3), best=2)" and repr(w) == "Window((1, 3), best=2)"


def test_threshold_windows_middle_first_last_and_single():
    # candidates 1.5 < 2.5 < 3.5 on values 1..4
    (mid,) = threshold_windows([3.5, 1.5, 2.5], [0.1, 0.2, 0.9], 1.0, 4.0)
    assert mid == Window(1.5, 3.5, 2.5)
    (first,) = threshold_windows([1.5, 2.5, 3.5], [0.9, 0.2, 0.1], 1.0, 4.0)
    assert first == Window(1.0, 2.5, 1.5, lo_closed=True)
    (last,) = threshold_windows([1.5, 2.5, 3.5], [0.1, 0.2, 0.9], 1.0, 4.0)
    assert last == Window(2.5, 4.0, 3.5)
    (only,) = threshold_windows([1.5], [0.3], 1.0, 2.0)
    assert only == Window(1.0, 2.0, 1.5, lo_closed=True)
    assert threshold_windows([], [], 0.0, 1.0) == ()


def test_threshold_windows_ties_give_one_window_each():
    ws = threshold_windows([1.5, 2.5, 3.5, 4.5], [0.5, 0.1, 0.5, 0.2], 1.0, 5.0)
    assert ws == (Window(1.0, 2.5, 1.5, lo_closed=True), Window(2.5, 4.5, 3.5))
    # within 1e-12 relative counts as a tie, beyond it does not
    assert len(threshold_windows([1.5, 2.5], [0.5, 0.5 - 1e-14], 1.0, 3.0)) == 2
    assert len(threshold_windows([1.5, 2.5], [0.5, 0.5 - 1e-9], 1.0, 3.0)) == 1


# ------------------------------------------------------------------------ judging by hand
def _question(ask=True, accepted=("B",), windows=(("B", (Window(2.0, 4.0, 3.0),)),), winner="B"):
    key = AnswerKey(winner, f"{winner} <= 3", accepted, windows)
    return QuizQuestion(5, ("A", "B", "C", "D"), ask, numeric=("B", "D") if ask else (),
                        ranges=(("B", 0.0, 10.0), ("D", 0.0, 1.0)) if ask else (), n_rows=20, key=key)


def test_feature_only_rules():
    q = _question(ask=False, accepted=("B",), windows=())
    right = judge(q, QuizAnswer("B"))
    assert (right.correct, right.feature_correct, right.threshold_correct) == (True, True, None)
    wrong = judge(q, QuizAnswer("A"))
    assert (wrong.correct, wrong.feature_correct, wrong.threshold_correct) == (False, False, None)
    assert wrong.winner == "B" and wrong.winner_test == "B <= 3" and wrong.node_id == 5
    # a threshold given without being asked is ignored
    assert judge(q, QuizAnswer("B", 99.0)).correct


def test_a_feature_tying_with_the_winner_counts():
    q = _question(ask=False, accepted=("B", "C"), windows=())
    assert judge(q, QuizAnswer("C")).correct and judge(q, QuizAnswer("B")).correct
    assert not judge(q, QuizAnswer("D")).correct


@pytest.mark.parametrize("t, ok", [(2.0, False), (2.0001, True), (3.0, True), (3.9999, True), (4.0, False),
                                   (-5.0, False), (100.0, False)])
def test_threshold_must_fall_between_the_neighbouring_candidates(t, ok):
    res = judge(_question(), QuizAnswer("B", t))
    assert res.feature_correct and res.threshold_correct is ok and res.correct is ok
    assert res.windows == (Window(2.0, 4.0, 3.0),)


def test_right_threshold_on_the_wrong_feature_is_wrong():
    res = judge(_question(), QuizAnswer("D", 3.0))
    assert (res.correct, res.feature_correct, res.threshold_correct) == (False, False, False)
    assert res.windows == (Window(2.0, 4.0, 3.0),)  # the winner's window is shown for the reveal


def test_a_categorical_pick_needs_no_threshold_even_when_thresholds_are_asked():
    q = _question(accepted=("A",), windows=(), winner="A")
    res = judge(q, QuizAnswer("A"))
    assert res.correct and res.threshold_correct is None
    assert not judge(q, QuizAnswer("C")).correct


def test_any_of_several_windows_counts():
    q = _question(windows=(("B", (Window(0.0, 2.0, 1.0, lo_closed=True), Window(5.0, 7.0, 6.0))),))
    assert judge(q, QuizAnswer("B", 0.0)).correct and judge(q, QuizAnswer("B", 6.5)).correct
    assert not judge(q, QuizAnswer("B", 3.0)).correct


def test_bad_answers_are_config_errors():
    q = _question()
    with pytest.raises(ConfigError, match=r"Pick one of the candidate features \(A, B, C, D\), not 'E'"):
        judge(q, QuizAnswer("E"))
    with pytest.raises(ConfigError, match="Give a threshold for B"):
        judge(q, QuizAnswer("B"))
    with pytest.raises(ConfigError, match="Give a threshold for D"):
        judge(q, QuizAnswer("D", math.nan))


def test_question_repr_hides_the_answer():
    q = _question()
    assert "winner" not in repr(q) and "B <= 3" not in repr(q)
    assert q.needs_threshold("B") and not q.needs_threshold("A") and q.range_of("B") == (0.0, 10.0)


def test_running_score():
    q = _question()
    score = QuizScore()
    assert score.share == 0.0 and repr(score) == "QuizScore(0/0 correct, 0 features right)"
    for ans in (QuizAnswer("B", 3.0), QuizAnswer("B", 9.0), QuizAnswer("A"), QuizAnswer("B", 2.5)):
        score = score.add(judge(q, ans))
    assert (score.asked, score.correct, score.features_correct) == (4, 2, 3)
    assert score.share == 0.5 and len(score.results) == 4
    assert [r.correct for r in score.results] == [True, False, False, True]


# ----------------------------------------------------------------- questions from a grower
def test_play_tennis_id3_questions():
    g = engine.Grower(engine.load_sample("play_tennis"), engine.TreeConfig(algorithm="id3"))
    q = make_question(g)
    assert q.node_id == 0 and q.features == ("Outlook", "Temperature", "Humidity", "Wind")
    assert not q.ask_threshold and q.numeric == () and q.n_rows == 14
    assert q.key.winner == "Outlook" and q.key.accepted == ("Outlook",) and q.key.winner_test == "Outlook"
    assert judge(q, QuizAnswer("Outlook")).correct and not judge(q, QuizAnswer("Humidity")).correct
    g.step()
    q = make_question(g)
    # node 1 (Overcast) is pure and closes without a question; node 2 is next; Outlook is used up
    assert q.node_id == 2 and q.features == ("Temperature", "Humidity", "Wind") and q.key.accepted == ("Wind",)
    g.step()
    g.step()
    assert make_question(g) is None  # the next step only closes the pure leaves
    table = reveal_table(g.gain_table(3), judge(_tennis_q3(), QuizAnswer("Temperature")))
    assert list(table.columns[:3]) == ["feature", "pick", "split"]
    assert table.set_index("feature")["pick"].to_dict() == {"Humidity": False, "Temperature": True, "Wind": False}
    assert table.set_index("feature")["winner"]["Humidity"]


def _tennis_q3():
    g = engine.Grower(engine.load_sample("play_tennis"), engine.TreeConfig(algorithm="id3"))
    g.step()
    g.step()
    return make_question(g)


def test_cart_question_asks_thresholds_for_numeric_features():
    g = engine.Grower(engine.load_sample("play_tennis_numeric"), engine.TreeConfig(algorithm="cart"))
    g.step()
    q = make_question(g)
    assert q.ask_threshold and q.numeric == ("Temperature", "Humidity")
    assert q.node_id == 1 and q.range_of("Temperature") == (65.0, 85.0)
    assert q.key.winner_test == "Temperature <= 77.5"
    assert q.key.windows_of("Temperature") == (Window(73.5, 82.5, 77.5),)
    assert judge(q, QuizAnswer("Temperature", 80)).correct
    assert not judge(q, QuizAnswer("Temperature", 73.5)).correct
    assert judge(q, QuizAnswer("Temperature", 73.5)).feature_correct


def test_c45_ties_with_the_average_gain_filter():
    g = engine.Grower(engine.load_sample("play_tennis_numeric"), engine.TreeConfig(algorithm="c45"))
    g.step()
    g.step()
    q = make_question(g)
    # node 3 (Sunny): Humidity wins; Temperature's gain ratio is lower, Windy's gain below average
    assert q.key.winner == "Humidity" and q.key.accepted == ("Humidity",)
    assert q.key.windows_of("Humidity")[0].best == 77.5


def _configs():
    return [
        ("play_tennis", dict(algorithm="id3")),
        ("play_tennis_numeric", dict(algorithm="c45")),
        ("restaurant", dict(algorithm="cart", order="depth")),
        ("iris", dict(algorithm="cart", max_leaf_nodes=5)),
        ("ski", dict(algorithm="cart", order="best", min_samples_leaf=3)),
        ("titanic_small", dict(algorithm="c45", max_depth=3)),
        ("noisy_moons", dict(algorithm="cart", max_depth=4, order="depth")),
        ("diabetes", dict(algorithm="cart", max_depth=3)),
        ("wine", dict(algorithm="cart", max_leaf_nodes=6, min_samples_leaf=4)),
    ]


@pytest.mark.parametrize("name, cfg", _configs())
def test_next_split_is_what_step_does_and_changes_nothing(name, cfg):
    g = engine.Grower(engine.load_sample(name), engine.TreeConfig(**cfg))
    while True:
        before = (g.n_steps, g.open_nodes, g.tree.n_nodes)
        nxt = next_split(g)
        assert (g.n_steps, g.open_nodes, g.tree.n_nodes) == before
        rec = g.step()
        if rec is None:
            assert nxt is None
            break
        if rec.action == "finish":
            assert nxt is None
            continue
        node_id, split, ranked = nxt
        assert node_id == rec.node_id and split.same_test(rec.split) and ranked[0].same_test(rec.split)


@pytest.mark.parametrize("name, cfg", [c for c in _configs() if c[0] not in ("play_tennis", "restaurant")])
def test_every_threshold_as_good_as_the_winner_is_accepted(name, cfg):
    """Oracle: scan thresholds through the node's value range; each one whose forced split gains as
    much as the winner must lie in a window, and each window holds the winning threshold."""
    g = engine.Grower(engine.load_sample(name), engine.TreeConfig(**cfg))
    checked = 0
    while (q := make_question(g)) is not None and checked < 4:
        for feature, windows in q.key.windows:
            lo, hi = q.range_of(feature)
            best = max(w.best for w in windows)
            ref = evaluate_test(g, q.node_id, _threshold_split(g, feature, best)).gain
            assert all(w.contains(w.best) for w in windows)
            for t in np.linspace(lo, hi, 61)[:-1]:
                try:
                    gain = evaluate_test(g, q.node_id, _threshold_split(g, feature, t)).gain
                except ConfigError:
                    continue  # an empty child
                valid = _valid_threshold(g, q.node_id, feature, t)
                if valid and gain >= ref - 1e-9:
                    assert any(w.contains(t) for w in windows), (feature, t)
            checked += 1
        g.step()
    assert checked > 0


def _threshold_split(g, feature, t):
    return engine.Split(feature=feature, feature_index=g.schema.index(feature), kind="threshold",
                        threshold=float(t))


def _valid_threshold(g, node_id, feature, t):
    """The forced split leaves at least min_samples_leaf rows on both sides (as the search requires)."""
    idx, _ = g.node_rows(node_id)
    col = g.X[idx, g.schema.index(feature)]
    col = col[~np.isnan(col)]
    m = g.config.min_samples_leaf
    return (col <= t).sum() >= m and (col > t).sum() >= m


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=12, unique=True),
       st.data())
def test_windows_contain_their_best_and_never_a_neighbour(thresholds, data):
    gains = data.draw(st.lists(st.floats(0, 1), min_size=len(thresholds), max_size=len(thresholds)))
    thr = sorted(thresholds)
    lo, hi = thr[0] - 1.0, thr[-1] + 1.0
    windows = threshold_windows(thresholds, gains, lo, hi)
    assert windows and all(w.contains(w.best) for w in windows)
    for w in windows:
        others = [c for c in thr if c != w.best]
        assert not any(w.contains(c) for c in others)
        assert w.lo >= lo and w.hi <= hi


def test_candidate_scan_and_question_agree_on_the_windows():
    g = engine.Grower(engine.load_sample("ski"), engine.TreeConfig(algorithm="cart"))
    q = make_question(g)
    scan = candidate_scan(g, 0, q.key.winner)
    (w,) = q.key.windows_of(q.key.winner)
    thr = np.sort(scan["threshold"].to_numpy())
    k = int(np.flatnonzero(thr == w.best)[0])
    assert w.lo == (thr[k - 1] if k else q.range_of(q.key.winner)[0])
    assert w.hi == (thr[k + 1] if k + 1 < thr.size else q.range_of(q.key.winner)[1])
