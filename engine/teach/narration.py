"""Narration of growth steps: one plain-language sentence (or a few) per step (pruning and boosting: narration_prune_boost).

Everything is built from the engine's own records and the translation tables of :mod:`engine.teach.i18n`,
so a class hears the same numbers the gain table shows, e.g. (Play Tennis, ID3, third step):

    Node 3 (5 days, 2 Yes / 3 No, entropy 0.971) is split on Humidity (High / Normal): it separates
    the days perfectly (gain 0.971); Temperature would gain only 0.571.

Numbers: impurities and scores with 3 decimals; the children's impurity is the weighted mean
:math:`\\sum_c \\tfrac{w_c}{w} I(c)` and the gain :math:`I(\\text{parent}) - \\sum_c \\tfrac{w_c}{w} I(c)`
(times the known share with missing values). Class counts are listed most frequent class (at the root)
first, the way textbooks write [9+, 5-]. A node with a pure child set "separates the rows perfectly".
"""

from __future__ import annotations

import numpy as np

from engine.errors import ConfigError
from engine.split.search import eligible
from engine.teach.i18n import (check_language, fmt, fmt_count, fmt_value, join_words, noun as noun_word,
                               plural, t)

#: Bundled sample -> the noun its rows are counted in (ids of :data:`engine.teach.i18n.NOUNS`).
ROW_NOUNS: dict[str, str] = {
    "play_tennis": "day", "play_tennis_day": "day", "play_tennis_numeric": "day", "restaurant": "visit",
    "iris": "flower", "titanic_small": "passenger", "noisy_moons": "point", "wine": "wine",
    "breast_cancer": "sample", "diabetes": "patient",
}
TIE_TOL = 1e-12
MAX_LISTED = 8  # "Nodes 4, 5, ... and 9 more"
MAX_BRANCHES = 6  # more branches than this are counted, not listed


def row_noun(dataset_or_name) -> str:
    """Noun id for a data set (or its name): "day" for Play Tennis, "row" for anything unknown."""
    name = dataset_or_name if isinstance(dataset_or_name, str) else getattr(dataset_or_name, "name", "")
    return ROW_NOUNS.get(str(name), "row")


# ------------------------------------------------------------------------------------ pieces
def _class_order(tree) -> list[int]:
    """Class indices, most frequent at the root first (ties: class order)."""
    root = np.asarray(tree.root.stats, dtype=float)
    return sorted(range(root.size), key=lambda k: (-root[k], k))


def _counts_text(tree, stats, lang: str) -> str:
    stats = np.asarray(stats, dtype=float)
    classes = tree.schema.classes
    order = _class_order(tree)
    if len(classes) > 3:
        order = [k for k in order if stats[k] > 0]
    return " / ".join(f"{fmt_count(stats[k], lang)} {classes[k]}" for k in order)


def _is_pure(stats, task: str) -> bool:
    s = np.asarray(stats, dtype=float)
    if task == "regression":
        w, sy, syy = s
        return w <= 0 or syy / w - (sy / w) ** 2 <= 1e-12 * (1.0 + (sy / w) ** 2)
    return int((s > 1e-12).sum()) <= 1


def _prediction_text(node, lang: str) -> str:
    p = node.prediction
    return fmt(p, lang) if isinstance(p, (float, np.floating)) else str(p)


def _node_label(node_id: int, lang: str) -> str:
    return t("node", lang, id=node_id)


def node_summary(tree, node_id: int, *, lang: str = "en", noun: str = "row", digits: int = 3) -> str:
    """"Node 3 (5 days, 2 Yes / 3 No, entropy 0.971)" (regression: mean and variance)."""
    node = tree.node(node_id)
    label = _node_label(node_id, lang)
    n = node.n_node_samples
    crit = t(f"crit.{node.criterion}", lang)
    common = dict(node=label, n=fmt_count(n, lang), noun=noun_word(noun, n, lang), criterion=crit,
                  impurity=fmt(node.impurity, lang, digits))
    if tree.schema.task == "regression":
        return t("node_summary_reg", lang, mean=fmt(node.value[0], lang, digits), **common)
    return t("node_summary", lang, counts=_counts_text(tree, node.stats, lang), **common)


def _node_list(ids, lang: str) -> str:
    ids = [str(i) for i in ids]
    if len(ids) > MAX_LISTED:
        rest = len(ids) - MAX_LISTED + 1
        ids = ids[: MAX_LISTED - 1] + [plural("more", rest, lang, n=rest)]
    return t("nodes", lang, ids=join_words(ids, lang))


def split_text(split, lang: str = "en") -> str:
    """The split's test in words: "Outlook (Overcast / Rain / Sunny)", "Humidity at 72.5"."""
    if split.kind == "threshold":
        return t("test.threshold", lang, feature=split.feature, threshold=fmt_value(split.threshold, lang))
    if split.kind == "multiway" and len(split.categories) > MAX_BRANCHES:
        return t("test.multiway_many", lang, feature=split.feature, k=len(split.categories))
    if split.kind == "multiway":
        return t("test.multiway", lang, feature=split.feature, branches=" / ".join(split.categories))
    if split.kind == "equals":
        return t("test.equals", lang, feature=split.feature, value=split.categories[0])
    return t("test.subset", lang, feature=split.feature, values=", ".join(split.categories))


def _short_test(split, lang: str) -> str:
    """The feature alone for a multiway split (its branches are obvious), else :func:`split_text`."""
    return split.feature if split.kind == "multiway" else split_text(split, lang)


def _effect(split, criterion: str, task: str, lang: str, noun: str, digits: int) -> str:
    pure = sum(_is_pure(s, task) for s in split.child_stats)
    m = len(split.child_stats)
    if pure == m:
        return t("effect.perfect", lang, noun=noun_word(noun, 2, lang))
    common = dict(subject=t(f"subject.{criterion}", lang), before=fmt(split.impurity_parent, lang, digits),
                  after=fmt(split.impurity_children, lang, digits))
    if pure == 0:
        return t("effect.drop", lang, **common)
    return plural("effect.drop_pure", pure, lang, k=pure, m=m, **common)


def _score(split, score: str, lang: str, digits: int) -> str:
    if score == "gain_ratio":
        return t("score.gain_ratio", lang, ratio=fmt(split.gain_ratio, lang, digits),
                 gain=fmt(split.gain, lang, digits))
    return t("score.gain", lang, gain=fmt(split.gain, lang, digits))


def _value(split, score: str) -> float:
    return split.gain_ratio if score == "gain_ratio" else split.gain


def _runner(split, ranked, score: str, lang: str, digits: int, flags=None) -> str:
    """The runner-up clause; with gain ratio also the feature Quinlan's average-gain filter excluded.
    ``flags``: each ranked split's eligibility when the grower filters otherwise (J48's rules)."""
    flags = eligible(ranked, score) if flags is None else flags
    others = [(c, ok) for c, ok in zip(ranked, flags) if c.feature != split.feature]
    runner = next((c for c, ok in others if ok), None)
    a = _value(split, score)
    if runner is None:
        text = t("runner.none_eligible" if others else "runner.none", lang)
    else:
        b = _value(runner, score)
        if b >= a - TIE_TOL * (1.0 + abs(a)):
            text = t("runner.tie", lang, feature=runner.feature, score=fmt(b, lang, digits))
        elif score == "gain_ratio":
            text = t("runner.gain_ratio", lang, feature=runner.feature, ratio=fmt(b, lang, digits))
        else:
            text = t("runner.gain", lang, feature=runner.feature, gain=fmt(b, lang, digits))
    if score == "gain_ratio":
        beaten = next((c for c, ok in others if not ok and c.gain_ratio > a + TIE_TOL), None)
        if beaten is not None:
            text += "; " + t("runner.filtered", lang, feature=beaten.feature,
                             ratio=fmt(beaten.gain_ratio, lang, digits))
    return text


def _reason(reason: str, task: str, lang: str, noun: str) -> str:
    rid = "pure_reg" if reason == "pure" and task == "regression" else reason
    return t(f"reason.{rid}", lang, noun=noun_word(noun, 2, lang))


def narrate_stops(tree, stopped, *, lang: str = "en", noun: str = "row", digits: int = 3) -> list[str]:
    """One sentence per stop reason: a single node with its numbers and prediction, or a list of nodes."""
    groups: dict[str, list[int]] = {}
    for nid, reason in stopped:
        groups.setdefault(reason, []).append(nid)
    out = []
    for reason, ids in groups.items():
        why = _reason(reason, tree.schema.task, lang, noun)
        if len(ids) == 1:
            node = tree.node(ids[0])
            out.append(t("leaf", lang, node=node_summary(tree, ids[0], lang=lang, noun=noun, digits=digits),
                         prediction=_prediction_text(node, lang), reason=why))
        else:
            out.append(t("leaves", lang, nodes=_node_list(ids, lang), reason=why))
    return out


# ------------------------------------------------------------------------------- growth steps
def narrate_step_lines(record, grower, *, lang: str = "en", noun: str | None = None,
                       digits: int = 3) -> list[str]:
    """The sentences of one :class:`engine.grow.grower.StepRecord` of ``grower`` (see :func:`narrate_step`)."""
    check_language(lang)
    noun = row_noun(grower.dataset) if noun is None else noun
    noun_word(noun, 1, lang)  # validates the noun id
    tree = grower.tree
    task, score, crit = tree.schema.task, grower.config.score, grower.crit.name
    lines = narrate_stops(tree, record.stopped, lang=lang, noun=noun, digits=digits)
    if record.action == "finish" and record.node_id is not None:
        lines.append(t("still_open", lang))  # the leaf chosen by hand closed; others are still open
    elif record.action == "finish":
        lines.append(plural("finish", tree.n_leaves, lang, leaves=tree.n_leaves, depth=tree.depth))
    elif record.action == "collapse":
        node = tree.node(record.node_id)
        lines.append(t("collapse", lang, node=node_summary(tree, record.node_id, lang=lang, noun=noun,
                                                              digits=digits),
                       prediction=_prediction_text(node, lang)))
    elif record.action in ("split", "forced"):
        split = record.split
        parts = dict(node=node_summary(tree, record.node_id, lang=lang, noun=noun, digits=digits),
                     test=split_text(split, lang), effect=_effect(split, crit, task, lang, noun, digits),
                     score=_score(split, score, lang, digits))
        ranked = grower.candidates(record.node_id)
        if record.action == "split":
            flags = grower.eligible_flags(record.node_id) if grower.config.c45_rules else None
            lines.append(t("split", lang, runner=_runner(split, ranked, score, lang, digits, flags), **parts))
        else:
            best = ranked[0] if ranked else None
            if best is None or best.same_test(split) or _value(split, score) >= _value(best, score) - TIE_TOL:
                verdict = t("forced.best", lang)
            else:
                verdict = t("forced.worse", lang, best=_short_test(best, lang),
                            score=_score(best, score, lang, digits))
            lines.append(t("forced", lang, verdict=verdict, **parts))
    else:
        raise ConfigError(f"Unknown step action {record.action!r}.")
    return lines


def narrate_step(record, grower, *, lang: str = "en", noun: str | None = None, digits: int = 3) -> str:
    """A growth step in words, with the numbers of the gain table.

    Call it right after ``grower.step()`` / ``expand`` / ``collapse`` (the grower's tree must still hold
    the record's nodes). Leaves closed before the split come first, then the split (with the
    runner-up feature) or, for the final record, "The tree is finished: 5 leaves, depth 2."
    ``noun`` is a row-noun id of :data:`engine.teach.i18n.NOUNS` (default: :func:`row_noun` of the data).
    """
    return " ".join(narrate_step_lines(record, grower, lang=lang, noun=noun, digits=digits))


__all__ = ["ROW_NOUNS", "row_noun", "node_summary", "split_text", "narrate_stops", "narrate_step_lines",
           "narrate_step"]
