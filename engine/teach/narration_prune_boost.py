"""Narration of pruning steps and boosting rounds (see :mod:`engine.teach.narration` for growth steps).

Same tables (:mod:`engine.teach.i18n`), same node summaries ("node 2 (5 days, 3 Yes / 2 No, entropy
0.971)"); the numbers are the ones the pruning and boosting records carry.
"""

from __future__ import annotations

import numpy as np

from engine.errors import ConfigError
from engine.teach.i18n import check_language, fmt, fmt_count, fmt_sig, noun as noun_word, plural, t
from engine.teach.narration import _prediction_text, node_summary, split_text


MEASURES = ("validation", "pessimistic", "training", "test")


def narrate_prune_step(tree, node_id: int, *, lang: str = "en", noun: str = "row", alpha: float | None = None,
                       measure: str | None = None, before: float | None = None, after: float | None = None,
                       pruned: bool = True, digits: int = 3) -> str:
    """One pruning decision in words, given the tree *before* ``node_id`` is (or is not) made a leaf.

    Cost-complexity pruning passes the node's effective alpha
    :math:`\\alpha = (R(t) - R(T_t)) / (|\\tilde T_t| - 1)`; error-based pruning passes the error
    ``measure`` ("validation", "pessimistic", "training" or "test") ``before`` and ``after`` the step
    (with the subtree, and with the node as a leaf). ``pruned=False`` narrates a subtree that is kept
    ("as a leaf, the validation error would go from 0.100 to 0.300"); it needs the two errors.
    """
    check_language(lang)
    node = tree.node(node_id)
    if node.is_leaf:
        raise ConfigError(f"Node {node_id} is already a leaf; there is nothing to prune.")
    if measure is not None and measure not in MEASURES:
        raise ConfigError(f"measure must be one of {', '.join(MEASURES)}, not {measure!r}.")
    if (before is None) != (after is None) or (before is not None and measure is None):
        raise ConfigError("Give the error before and after pruning together with its measure.")
    k = sum(1 for n in tree.walk(node_id) if n.is_leaf) - 1
    summary = node_summary(tree, node_id, lang=lang, noun=noun, digits=digits)
    if not pruned:
        if before is None:
            raise ConfigError("A kept subtree is narrated with the errors before and after; give both.")
        return t("prune.keep", lang, node=summary, measure=t(f"measure.{measure}", lang),
                 before=_amount(before, lang, digits), after=_amount(after, lang, digits))
    if lang == "en":
        summary = summary[0].lower() + summary[1:]
    text = plural("prune", k, lang, node=summary, prediction=_prediction_text(node, lang), k=k)
    if alpha is not None:
        text += "; " + t("prune.alpha", lang, alpha=fmt_sig(alpha, lang))
    if before is not None:
        text += "; " + t("prune.change", lang, measure=t(f"measure.{measure}", lang),
                         before=_amount(before, lang, digits), after=_amount(after, lang, digits))
    return text + "."


def _amount(x: float, lang: str, digits: int) -> str:
    """An error count as a whole number when it is one ("3"), else with decimals ("2.508")."""
    return fmt_count(x, lang) if float(x).is_integer() else fmt(x, lang, digits)


#: PruneResult.method -> (measure, number before = kept subtree, number after = as a leaf).
_PRUNE_NUMBERS = {
    "reduced_error": ("validation", " with subtree", " as leaf"),
    "pessimistic": ("pessimistic", "subtree estimate", "leaf estimate"),
}


def narrate_prune_result(result, *, lang: str = "en", noun: str = "row", digits: int = 3) -> list[str]:
    """One sentence per step of an :class:`engine.prune.records.PruneResult`, in order.

    Steps that cut a subtree ("replace by leaf") or keep it are narrated from the tree as it was at
    that step (the cuts before it are replayed with ``Tree.prune_to_leaf``): cost-complexity with the
    node's effective alpha g(t), reduced-error with the validation errors with and without the subtree,
    C4.5 with the estimated errors. Other decisions (subtree raising, bottom-up options) keep the
    method's own English note, and the replay stops there (the tree changed in another way).
    """
    check_language(lang)
    current, replaying, out = result.original, True, []
    spec = _PRUNE_NUMBERS.get(result.method)
    for step in result.steps:
        nums = dict(step.numbers)
        simple = step.action in ("replace by leaf", "keep")
        if not (replaying and simple):
            out.append(f"{t('node', lang, id=step.node_id)}: {step.note}" if step.note else step.action)
            replaying = replaying and simple
            continue
        kw = dict(lang=lang, noun=noun, digits=digits, pruned=step.action == "replace by leaf")
        if result.method == "cost_complexity" and "g(t)" in nums:
            kw["alpha"] = nums["g(t)"]
        elif spec is not None:
            before = next((v for k, v in nums.items() if k.endswith(spec[1])), None)
            after = next((v for k, v in nums.items() if k.endswith(spec[2])), None)
            if before is not None and after is not None:
                kw.update(measure=spec[0], before=before, after=after)
        if not kw["pruned"] and "before" not in kw:
            out.append(f"{t('node', lang, id=step.node_id)}: {step.note}")
            continue
        out.append(narrate_prune_step(current, step.node_id, **kw))
        if kw["pruned"]:
            current = current.prune_to_leaf(step.node_id)
    return out


# ----------------------------------------------------------------------------------- boosting
def learner_text(learner, lang: str = "en") -> str:
    """"the stump Humidity at 72.5" for a one-split tree, "a tree with 4 leaves" otherwise, text as is."""
    if isinstance(learner, str):
        return learner
    if learner.depth != 1:
        return t("learner.tree", lang, leaves=learner.n_leaves)
    return t("learner.stump", lang, test=split_text(learner.root.split, lang))


def narrate_boosting_round(round_number: int, learner, *, error: float, alpha: float, n_wrong: float,
                           n_rows: float, factor: float | None = None, chance: float = 0.5,
                           lang: str = "en", noun: str = "row", digits: int = 3) -> str:
    """One AdaBoost round in words.

    ``error`` is the weighted error :math:`\\varepsilon_m = \\sum_{i: h(x_i) \\ne y_i} w_i / \\sum_i w_i`,
    ``alpha`` the learner's vote weight (e.g. :math:`\\tfrac12 \\ln\\tfrac{1-\\varepsilon}{\\varepsilon}`, or
    SAMME's :math:`\\ln\\tfrac{1-\\varepsilon}{\\varepsilon} + \\ln(K-1)`), ``factor`` what the weights of the
    misclassified rows are multiplied by before normalising. A round with error 0, or at least
    ``chance`` (0.5 for two classes, 1 - 1/K for SAMME), ends boosting and is said so.
    """
    check_language(lang)
    if not 0.0 <= float(error) <= 1.0:
        raise ConfigError(f"error must be a weighted error rate between 0 and 1, not {error!r}.")
    who = learner_text(learner, lang)
    words = noun_word(noun, 2, lang)
    if error <= 0.0:
        return t("boost.perfect", lang, round=round_number, learner=who, noun=words)
    if error >= chance:
        return t("boost.chance", lang, round=round_number, learner=who, error=fmt(error, lang, digits))
    text = t("boost.round", lang, round=round_number, learner=who, wrong=fmt_count(n_wrong, lang),
             n=fmt_count(n_rows, lang), noun=noun_word(noun, n_rows, lang), error=fmt(error, lang, digits),
             alpha=fmt(alpha, lang, digits))
    if factor is not None:
        text += "; " + t("boost.factor", lang, noun=words, factor=fmt(factor, lang, digits))
    return text + "."


def narrate_boost_round(rnd, *, n_classes: int = 2, lang: str = "en", noun: str = "row", digits: int = 3) -> str:
    """An :class:`engine.ensembles.boosting.BoostRound` in words (round ``index + 1``).

    Uses the round's learner text, weighted error, vote weight ``z`` and the factor the correctly
    classified rows were multiplied by (:math:`e / (1-e)` for two classes), and says which share of the
    weight the misclassified rows carry after normalising (one half for two classes).
    """
    wrong = np.asarray(rnd.misclassified, dtype=bool)
    text = str(rnd.learner)
    stump = " -> " in text and not text.startswith(("tree ", "always "))
    who = t("learner.stump", lang, test=text) if stump else t("learner.text", lang, text=text)
    chance = 1.0 - 1.0 / max(int(n_classes), 2)
    if rnd.error <= 0.0 or rnd.error >= chance or not rnd.kept:
        return narrate_boosting_round(rnd.index + 1, who, error=min(max(rnd.error, 0.0), 1.0),
                                      alpha=rnd.z, n_wrong=int(wrong.sum()), n_rows=wrong.size,
                                      chance=chance if rnd.error > 0 else 0.5, lang=lang, noun=noun,
                                      digits=digits)
    text = narrate_boosting_round(rnd.index + 1, who, error=rnd.error, alpha=rnd.z,
                                  n_wrong=int(wrong.sum()), n_rows=wrong.size, chance=chance, lang=lang,
                                  noun=noun, digits=digits)
    share = float(np.asarray(rnd.next_weights, dtype=float)[wrong].sum())
    return text[:-1] + "; " + t("boost.shrink", lang, noun=noun_word(noun, 2, lang),
                                factor=fmt(rnd.factor, lang, digits), share=fmt(share, lang, digits)) + "."


def narrate_gradient_start(ens, *, lang: str = "en", noun: str = "row", digits: int = 3) -> str:
    """The start value F_0 of a gradient-boosted ensemble in words (mean, log-odds or centred log shares)."""
    check_language(lang)
    what = {1: "logodds"}.get(ens.n_columns, "logs") if ens.task == "classification" else "mean"
    start = " | ".join(fmt(v, lang, digits) for v in np.asarray(ens.init_raw, dtype=float))
    return t("gboost.start", lang, noun=noun_word(noun, 2, lang), start=start,
             what=t(f"gboost.start.{what}", lang)) + "."


def narrate_gradient_round(ens, r: int, *, lang: str = "en", noun: str = "row", digits: int = 3) -> str:
    """Round ``r`` (0-based) of a :class:`engine.ensembles.gradient.GradientEnsemble` in words: what its trees
    fit, their first split, the learning rate, the training loss before and after, and the test loss with the
    round where it is lowest (when the ensemble recorded one)."""
    check_language(lang)
    rnd = ens.rounds[r]
    trees = [ens.members[m].tree for m in rnd.members]
    leaves = sum(tr.n_leaves for tr in trees)
    k = len(trees)
    root = trees[0].root
    test = split_text(root.split, lang) if not root.is_leaf else t("gboost.nosplit", lang)
    n = len(ens.train_y) if rnd.in_sample is None else int(np.count_nonzero(rnd.in_sample))
    text = t("gboost.round", lang, round=r + 1, trees=plural("gboost.trees", k, lang, k=k, leaves=leaves),
             residual=t("gboost.residual." + ("cls" if ens.task == "classification" else "reg"), lang),
             n=fmt_count(n, lang), noun=noun_word(noun, n, lang), test=test, rate=fmt_sig(ens.learning_rate, lang),
             before=fmt(rnd.train_loss_before, lang, digits), after=fmt(rnd.train_loss, lang, digits))
    if ens.task == "classification":
        text += "; " + t("gboost.newton", lang)
    tests = np.array([rd.test_loss for rd in ens.rounds], dtype=float)
    if np.isfinite(tests[r]):
        text += "; " + t("gboost.test", lang, test=fmt(tests[r], lang, digits), best=int(np.nanargmin(tests)) + 1)
    return text + "."
