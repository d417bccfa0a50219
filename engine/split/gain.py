"""Gain tables and their arithmetic: why a split won, with the real numbers.

``gain_table_for`` (a Grower's node; :func:`engine.grow.gain_tables.gain_table` also takes a data set) lists each feature's best split at a node (or every candidate threshold/subset with
``all_candidates=True``); ``explain_gain`` writes one split's arithmetic, e.g.
``0.940 - (5/14 * 0.971 + 4/14 * 0.000 + 5/14 * 0.971) = 0.247``; ``gain_latex`` / ``impurity_latex`` the
same as LaTeX lines for a narrow column, the result first.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from engine.errors import ConfigError
from engine.split.search import (_make_split, best_categorical, categorical_candidates, choose, eligible,
                                 numeric_candidates)
from engine.split.records import Split, format_number

COLUMNS = ["feature", "split", "impurity_parent", "impurity_children", "gain", "gain_ratio", "split_info",
           "chi2", "p_value", "n_children", "counts", "eligible", "winner"]


def _counts_text(split: Split, task: str, classes) -> str:
    if task == "regression":
        return " | ".join(f"n={int(round(s[0]))}, mean={s[1] / s[0]:.3g}" if s[0] else "n=0"
                          for s in split.child_stats)
    return " | ".join("[" + ", ".join(format_number(round(v, 3)) for v in s) + "]" for s in split.child_stats)


def _rows(splits, score, task, classes, ok=None, winner=False):
    ok = eligible(splits, score) if ok is None else ok
    if winner is False:
        winner, _, _ = choose(splits, score)
    return [{
        "feature": s.feature, "split": s.describe(), "impurity_parent": s.impurity_parent,
        "impurity_children": s.impurity_children, "gain": s.gain, "gain_ratio": s.gain_ratio,
        "split_info": s.split_info, "chi2": s.chi2, "p_value": s.p_value, "n_children": s.n_children,
        "counts": _counts_text(s, task, classes), "eligible": e, "winner": s is winner,
    } for s, e in zip(splits, ok)]


def gain_table_for(grower, node_id: int = 0, all_candidates: bool = False) -> pd.DataFrame:
    """Gain table of ``node_id`` in a :class:`engine.grow.grower.Grower`."""
    grower._node(node_id)
    task, classes, score = grower.task, grower.dataset.classes, grower.config.score
    if not all_candidates:
        ranked = grower.candidates(node_id)
        if grower.config.c45_rules:       # J48's filter and winner (None: no split passes its rules)
            winner = grower._evaluate(node_id)[1]
            rows = _rows(ranked, score, task, classes, grower.eligible_flags(node_id), winner)
            return pd.DataFrame(rows, columns=COLUMNS)
        return pd.DataFrame(_rows(ranked, score, task, classes), columns=COLUMNS)
    frames = [candidate_scan(grower, node_id, name) for name in grower.schema.feature_names]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["feature", "split", "threshold", "gain", "gain_ratio"])
    return pd.concat(frames, ignore_index=True)


def candidate_scan(grower, node_id: int, feature: str) -> pd.DataFrame:
    """Every candidate split of one feature at a node: threshold (or subset/value) and gain."""
    j = grower.schema.index(feature)
    nd = grower.node_data(node_id)
    labels = grower.schema.categories[j]
    if grower.schema.kinds[j] == "numeric" and grower.searches_histogram(node_id):
        return _histogram_scan(grower, node_id, feature, j, nd)
    if grower.schema.kinds[j] == "numeric":
        cand = numeric_candidates(nd, j)
        if cand is None:
            return pd.DataFrame(columns=["feature", "split", "threshold", "gain"])
        thr, gains, left, right, n_left, known = cand
        frac = known.sum() and float(grower.crit.weight(left[0] + right[0])) / nd.total_weight
        return pd.DataFrame({"feature": feature, "split": [f"{feature} <= {format_number(t)}" for t in thr],
                             "threshold": thr, "gain": gains * frac, "n_left": n_left,
                             "n_right": int(known.sum()) - n_left})
    mode = grower.config.categorical_split
    if mode == "multiway":
        s = best_categorical(nd, j, feature, labels, "multiway")
        rows = [] if s is None else [{"feature": feature, "split": s.describe(), "threshold": np.nan,
                                      "gain": s.gain}]
        return pd.DataFrame(rows, columns=["feature", "split", "threshold", "gain"])
    present, stats, counts, cands = categorical_candidates(nd, j, mode)
    known = ~np.isnan(nd.x[:, j])
    frac = float(nd.stats[known].sum(0)[0] if grower.task == "regression" else nd.stats[known].sum()) \
        / nd.total_weight if nd.total_weight else 0.0
    rows = []
    for mask, g in cands:
        cats = ", ".join(labels[c] for c in present[mask])
        text = f"{feature} = {cats}" if mode == "equals" else f"{feature} in {{{cats}}}"
        rows.append({"feature": feature, "split": text, "threshold": np.nan, "gain": g * frac})
    return pd.DataFrame(rows, columns=["feature", "split", "threshold", "gain"])


def _histogram_scan(grower, node_id, feature, j, nd) -> pd.DataFrame:
    """Candidate edges of a numeric feature in histogram mode (thresholds at bin edges)."""
    from engine.split.histogram import histogram_candidates
    idx, _ = grower.node_rows(node_id)
    codes = grower.bins.codes[idx]
    edges = grower.bins.edges[j]
    cand = histogram_candidates(nd, codes, j, edges.size + 1)
    if cand is None:
        return pd.DataFrame(columns=["feature", "split", "threshold", "gain"])
    bins, gains, left, right, n_left, known = cand
    frac = float(grower.crit.weight(left[0] + right[0])) / nd.total_weight
    thr = edges[bins]
    return pd.DataFrame({"feature": feature, "split": [f"{feature} <= {format_number(t)}" for t in thr],
                         "threshold": thr, "gain": gains * frac, "n_left": n_left,
                         "n_right": int(known.sum()) - n_left})


def evaluate_test(grower, node_id: int, split: Split) -> Split:
    """Recompute ``split``'s test on the rows of ``node_id`` (for forced splits), or raise ConfigError."""
    j = grower.schema.index(split.feature)
    nd = grower.node_data(node_id)
    labels = grower.schema.categories[j]
    if split.kind == "multiway":
        if grower.config.c45_rules:      # J48: a branch per value, two of them holding M
            from engine.split.j48 import j48_nominal
            s = j48_nominal(nd, j, split.feature, labels, m=float(grower.config.min_samples_leaf),
                            rules=grower.config.c45_rules, log_base=grower.crit.base)
            if s is None:
                raise ConfigError(f"'{split.feature}' does not put {grower.config.min_samples_leaf} rows (case "
                                  f"weight) in two of its branches at node {node_id}, as J48's rules require.")
            return s
        s = best_categorical(nd, j, split.feature, labels, "multiway")
        if s is None:
            raise ConfigError(f"'{split.feature}' takes a single value at node {node_id}; it cannot split it.")
        return s
    route = split.route(nd.x[:, j])
    known = route >= 0
    if split.kind == "threshold" and split.threshold is None:
        raise ConfigError("A threshold split needs a threshold.")
    child = np.stack([nd.stats[known & (route == c)].sum(0) for c in (0, 1)])
    counts = [int((route == c).sum()) for c in (0, 1)]
    if min(counts) == 0:
        raise ConfigError(f"The split {split.describe()} leaves a child of node {node_id} empty; choose another.")
    return _make_split(nd, j, split.feature, split.kind, child, counts, nd.stats[known].sum(0),
                       threshold=split.threshold, cats=split.categories, codes=split.category_codes)


def _impurity_parts(stats, crit, digits) -> tuple[str, list[str], str, str]:
    """``(opening, terms, closing, value)`` of a node's impurity written out: ``-(`` terms ``)`` = value."""
    f = f"{{:.{digits}f}}"
    stats = np.asarray(stats, dtype=float)
    val = f.format(float(crit.from_stats(stats)))
    if crit.name == "variance":
        return "var", [], "", val
    w = stats.sum()
    ws = format_number(round(w, 4))
    if crit.name not in ("entropy", "gini"):
        return "", [f"1 - max({', '.join(format_number(round(c, 4)) for c in stats)})/{ws}"], "", val
    parts = []
    for c in stats:
        cs = format_number(round(c, 4))
        if crit.name == "gini":
            parts.append(f"({cs}/{ws})^2")
        elif c > 0:
            parts.append(f"{cs}/{ws} log2({cs}/{ws})")
    if not parts:
        return "0", [], "", val
    return ("-(" if crit.name == "entropy" else "1 - ("), parts, ")", val


def _impurity_terms(stats, crit, digits):
    opening, terms, closing, val = _impurity_parts(stats, crit, digits)
    return (opening + " + ".join(terms) + closing if terms else opening) + f" = {val}"


def explain_impurity(stats, criterion: str, *, latex: bool = False, digits: int = 3) -> str:
    """The impurity of one node written out, e.g. ``-(9/14 log2(9/14) + 5/14 log2(5/14)) = 0.940``."""
    from engine.split.impurity import get_criterion
    text = _impurity_terms(stats, get_criterion(criterion), digits)
    return _to_latex(text) if latex else text


def _gain_parts(split: Split, criterion, digits: int) -> tuple[str, list[str], str, str]:
    from engine.split.impurity import get_criterion
    crit = None if criterion is None or (isinstance(criterion, str) and not criterion) else get_criterion(criterion)
    f = f"{{:.{digits}f}}"
    total = sum(split.child_weights)
    terms = []
    for s, w in zip(split.child_stats, split.child_weights):
        imp = float(crit.from_stats(np.asarray(s))) if crit is not None else float("nan")
        terms.append(f"{format_number(round(w, 4))}/{format_number(round(total, 4))} * {f.format(imp)}")
    opening, closing = f"{f.format(split.impurity_parent)} - (", ")"
    if split.known_fraction < 1:
        opening, closing = f"{f.format(split.known_fraction)} * ({opening}", "))"
    return opening, terms, closing, f.format(split.gain)


def explain_gain(split: Split, criterion: str | None = None, *, latex: bool = False, digits: int = 3) -> str:
    """``parent - (w1/w * I1 + ...) = gain`` with the split's real numbers (C4.5: times the known share)."""
    opening, terms, closing, val = _gain_parts(split, criterion, digits)
    text = f"{opening}{' + '.join(terms)}{closing} = {val}"
    return _to_latex(text) if latex else text


LINE_WIDTH = 26  # a formula line's width in characters as drawn (see _drawn): ~240 px of KaTeX


def _drawn(text: str) -> int:
    """About how many characters wide ``text`` is drawn as LaTeX: a fraction ``a/b`` is as wide as its
    longer part (it is stacked), ``log2`` and `` * `` as written."""
    return len(re.sub(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)", lambda m: "x" * max(len(m[1]), len(m[2])), text))


def _aligned(lhs: str, parts: tuple[str, list[str], str, str], width: int) -> str:
    """LaTeX lines: ``lhs = value`` first (the number the formula is for), then the arithmetic broken
    between its terms into lines about ``width`` characters wide (:func:`_drawn`)."""
    opening, terms, closing, val = parts
    named = r" = \operatorname{var}" if opening == "var" and not terms else ""  # a pure node's "0": nothing to add
    rows = [f"{lhs}{named} &= {val}"]
    if terms:
        lines, line = [], opening
        for i, term in enumerate(terms):
            piece = term if i == 0 else " + " + term
            if i > 0 and _drawn(line + piece) > width:
                lines.append(line)
                line = "+ " + term
            else:
                line += piece
        lines.append(line + closing)
        rows += ["&= " + lines[0]] + [r"&\quad " + x for x in lines[1:]]
    return r"\begin{aligned}" + r" \\ ".join(_to_latex(r) for r in rows) + r"\end{aligned}"


def impurity_latex(stats, criterion: str, *, width: int = LINE_WIDTH, digits: int = 3) -> str:
    """``I(node) = 0.940`` over the terms that give it, in lines about ``width`` characters wide (LaTeX
    ``aligned``), so a narrow column shows the whole arithmetic without sideways scrolling."""
    from engine.split.impurity import get_criterion
    return _aligned(r"I(\text{node})", _impurity_parts(stats, get_criterion(criterion), digits), width)


def gain_latex(split: Split, criterion: str | None = None, *, width: int = LINE_WIDTH, digits: int = 3) -> str:
    """``ΔI = 0.247`` first, then ``= 0.940 - (5/14 · 0.971`` / ``+ 4/14 · 0.000 + 5/14 · 0.971)``: the
    result before the arithmetic, in lines about ``width`` characters wide (LaTeX ``aligned``)."""
    return _aligned(r"\Delta I", _gain_parts(split, criterion, digits), width)


def _to_latex(text: str) -> str:
    t = text.replace(" * ", r" \cdot ").replace("log2", r"\log_2")
    t = re.sub(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)", r"\\tfrac{\1}{\2}", t)
    return t
