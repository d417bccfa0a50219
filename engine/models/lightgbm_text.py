"""LightGBM's text model file (``Booster.save_model``), read without lightgbm.

The file opens with ``tree`` and ``key=value`` lines (``num_class``, ``num_tree_per_iteration``,
``max_feature_idx``, ``objective``, ``feature_names``, ``feature_infos``; a bare ``average_output`` line in
random-forest mode), then one ``Tree=i`` block per tree, ``end of trees``, the training ``parameters``
and, when trained on a DataFrame, a ``pandas_categorical:`` JSON line with each category column's labels.

A tree with L leaves numbers its splits 0..L-2; ``left_child``/``right_child`` give a split's children, a
negative child ``~j`` being leaf j. Per split: ``split_feature``, ``threshold``, ``split_gain`` and
``decision_type``, a bit field: bit 0 a category test, bit 1 default-left, bits 2-3 the missing type
(0 none, 1 zero, 2 NaN). The rules followed, as LightGBM predicts:

- numeric split: left iff ``x <= threshold`` (in float64). A NaN goes the default way when the missing
  type is NaN; otherwise LightGBM reads it as 0.0, so it goes where 0 goes. Missing type "zero" also sends
  values within 1e-35 of zero the default way; when the threshold already does that the tree is exact,
  otherwise the model is refused (the engine's tests cannot say it);
- category split: ``threshold`` indexes ``cat_boundaries``, which delimit the ``cat_threshold`` words: a
  bitset of the codes going left. The code is the value truncated to an integer; NaN, negative codes and
  codes outside the bitset go right;
- the answer is the sum of the leaf values (already scaled by the learning rate, the first tree holding
  the starting score), averaged in random-forest mode, then the objective's link: ``binary sigmoid:s``
  is logistic of ``s`` times the sum, ``multiclass`` softmax over ``num_tree_per_iteration`` columns,
  Poisson/Gamma/Tweedie ``exp``, the regression losses identity.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from engine.data.schema import FeatureSchema, clean_text
from engine.errors import DataError
from engine.models.build import member_schema, tree_from_arrays
from engine.models.checks import MAX_NODES
from engine.models.limits import (MAX_CATEGORIES, MAX_CATEGORY_LABELS, MAX_FEATURES, MAX_VALUES, check_json_size,
                                  count)
from engine.models.model import ImportedModel

IDENTITY = {"regression", "regression_l2", "regression_l1", "huber", "fair", "quantile", "mape", "lambdarank",
            "rank_xendcg"}
EXP = {"poisson", "gamma", "tweedie"}
ZERO = 1e-35                     # LightGBM's kZeroThreshold
MAX_CATEGORY = MAX_CATEGORIES
MAX_LINES = 2_000_000            # LightGBM writes ~20 lines a tree: 100,000 trees


def sniff(data: bytes) -> bool:
    head = data[:65536].lstrip(b"\xef\xbb\xbf \t\r\n")[:200]   # a prefix: never copy the file
    return head.startswith(b"tree\n") or head.startswith(b"tree\r\n")


def declared_nodes(data: bytes) -> int:
    """The nodes the file's trees declare (``2 * num_leaves - 1`` each), counted on its bytes unparsed."""
    return sum(2 * int(m) - 1 for m in _LEAVES.findall(data))


_LEAVES = re.compile(rb"^\s*num_leaves=(\d{1,9})\s*$", re.M)


def _damaged(what: str) -> DataError:
    return DataError(f"The LightGBM model file is damaged or cut short: {what}.")


def _sections(text: str):
    """(header dict, list of tree dicts, parameters dict, pandas_categorical or None)."""
    header, trees, params, pandas_cat = {}, [], {}, None
    current, part = header, "header"
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("Tree="):
            current, part = {}, "tree"
            trees.append(current)
        elif line == "end of trees":
            part, current = "after", {}
        elif line.startswith("pandas_categorical:"):
            check_json_size(line, "LightGBM model's pandas_categorical line")
            try:
                pandas_cat = json.loads(line[len("pandas_categorical:"):])
            except json.JSONDecodeError:
                raise _damaged("its pandas_categorical line is not JSON") from None
        elif part == "after" and line.startswith("[") and ": " in line:
            key, _, value = line[1:].rstrip("]").partition(": ")
            params[key] = value
        elif part in ("header", "tree"):
            key, eq, value = line.partition("=")
            current[key] = value if eq else True
    if part != "after":
        raise _damaged("it has no 'end of trees' line")
    return header, trees, params, pandas_cat


def _ints(block: dict, key: str, n: int) -> np.ndarray:
    return _array(block, key, n, np.int64)


def _array(block: dict, key: str, n: int | None, dtype) -> np.ndarray:
    text = block.get(key, "")
    if isinstance(text, str) and text.count(" ") > (MAX_VALUES if n is None else 2 * n + 16):
        raise _damaged(f"a tree lists more {key} values than it has nodes")        # refused before split()
    try:
        arr = np.array(text.split(), dtype=dtype) if isinstance(text, str) and text else np.zeros(0, dtype)
    except (ValueError, OverflowError):
        raise _damaged(f"a tree's {key} are not numbers") from None
    if n is not None and arr.size != n:
        raise _damaged(f"a tree lists {arr.size} {key} values where {n} are expected")
    return arr


def _link(objective: str, n_class: int):
    """(task, link, scale) of the objective line, e.g. 'binary sigmoid:1'."""
    words = objective.split()
    name = words[0] if words else ""
    opts = dict(w.partition(":")[::2] for w in words[1:])
    if "sqrt" in words:
        raise DataError("LightGBM models trained with reg_sqrt are not supported.")
    if name == "binary":
        return "classification", "logistic", float(opts.get("sigmoid", 1.0))
    if name in ("cross_entropy", "xentropy"):
        return "regression", "logistic", 1.0
    if name in ("multiclass", "softmax") and n_class >= 2:
        return "classification", "softmax", 1.0
    if name in IDENTITY:
        return "regression", "identity", 1.0
    if name in EXP:
        return "regression", "exp", 1.0
    raise DataError(f"The LightGBM objective {name[:60]!r} is not supported; the explorer reads binary, multiclass, "
                    f"cross_entropy, the regression losses, poisson, gamma and tweedie.")


def read(data: bytes) -> ImportedModel:
    if data.count(b"\n") > MAX_LINES:
        raise DataError(f"The LightGBM model file has more than {MAX_LINES:,} lines, more than any model the "
                        "explorer opens has; it was not read.")
    if declared_nodes(data) > MAX_NODES:                 # before the file is decoded and split into trees
        raise DataError(f"The model has more than {MAX_NODES:,} nodes; the explorer opens models up to that size.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _damaged("it is not text") from None
    header, blocks, params, pandas_cat = _sections(text)
    n_class = int(header.get("num_class", 1))
    per_round = int(header.get("num_tree_per_iteration", 1))
    n_feat = count(count(header["max_feature_idx"], MAX_FEATURES, "feature indices", minimum=-1) + 1, MAX_FEATURES,
                   "input columns")
    if not 1 <= per_round <= 10_000 or not 1 <= n_class <= 10_000:
        raise _damaged(f"it says {n_class} classes and {per_round} trees per round")
    names = header.get("feature_names", "").split()
    if n_feat < 1 or len(names) != n_feat:
        raise _damaged("it names a different number of features than it uses")
    task, link, scale = _link(str(header.get("objective", "")), n_class)
    if link == "softmax" and per_round != n_class:
        raise _damaged(f"a {n_class}-class model grows {per_round} trees per round")
    if not blocks:
        raise DataError("The LightGBM model file holds no trees.")
    if any(b.get("is_linear", "0") != "0" for b in blocks):
        raise DataError("LightGBM linear trees (a linear model in each leaf) are not supported.")
    schema = _schema(names, header, blocks, params, pandas_cat, task, n_class)
    mschema = member_schema(schema)
    trees, total = [], 0
    for i, block in enumerate(blocks):
        total += 2 * int(block.get("num_leaves", 1)) - 1
        if total > MAX_NODES:
            raise DataError(f"The model has more than {MAX_NODES:,} nodes; the explorer opens models up to that size.")
        trees.append(_tree(block, mschema, i))
    rounds = -(-len(trees) // per_round)
    weight = scale / rounds if "average_output" in header else scale
    classes_out = n_class if link == "softmax" else 1
    return ImportedModel(trees=tuple(trees), schema=schema, kind="additive", link=link,
                         base_score=(0.0,) * classes_out, trees_per_round=per_round,
                         weights=(weight,) * len(trees), source="LightGBM text",
                         objective=str(header.get("objective", "")))


def _categorical_features(header, blocks, params, n_feat: int) -> list[int]:
    cats = set()
    listed = params.get("categorical_feature", "")
    if listed:
        cats.update(int(v) for v in listed.split(",") if v.strip().lstrip("-").isdigit())
    infos = header.get("feature_infos", "").split()
    cats.update(j for j, info in enumerate(infos) if info != "none" and not info.startswith("["))
    for b in blocks:
        if int(b.get("num_cat", 0)) > 0:
            n = int(b["num_leaves"]) - 1
            kinds = _ints(b, "decision_type", n)
            cats.update(_ints(b, "split_feature", n)[(kinds & 1) == 1].tolist())
    if any(not 0 <= j < n_feat for j in cats):
        raise _damaged("a category feature number is out of range")
    return sorted(cats)


def _schema(names, header, blocks, params, pandas_cat, task, n_class) -> FeatureSchema:
    n_feat = len(names)
    cat_features = _categorical_features(header, blocks, params, n_feat)
    if pandas_cat is not None and len(pandas_cat) != len(cat_features):
        raise _damaged("its pandas_categorical labels do not match its category features")
    categories = [()] * n_feat
    infos = header.get("feature_infos", "").split()
    tops = _max_codes(blocks) if pandas_cat is None else {}
    sizes = []
    for k, j in enumerate(cat_features):                  # every count checked before any label is made
        if pandas_cat is not None:
            sizes.append(len(pandas_cat[k]) if isinstance(pandas_cat[k], list) else 0)
            continue
        top = max(tops.get(j, 0), max((int(v) for v in infos[j].split(":") if v.lstrip("-").isdigit()),
                                      default=0) if j < len(infos) else 0)
        if top >= MAX_CATEGORY:
            raise DataError(f"Feature '{names[j]}' has category codes up to {top:,}; the explorer opens at most "
                            f"{MAX_CATEGORY:,} categories per feature.")
        sizes.append(top + 1)
    count(sum(sizes), MAX_CATEGORY_LABELS, "category labels")
    for k, j in enumerate(cat_features):
        if pandas_cat is not None:
            categories[j] = tuple(clean_text(pd.Series(pandas_cat[k], dtype=object)).tolist())
        else:
            categories[j] = tuple(str(c) for c in range(sizes[k]))
    kinds = tuple("categorical" if categories[j] else "numeric" for j in range(n_feat))
    classes = tuple(str(c) for c in range(max(n_class, 2))) if task == "classification" else ()
    return FeatureSchema(feature_names=tuple(names), kinds=kinds, categories=tuple(categories), target="target",
                         task=task, classes=classes)


def _bitsets(block: dict, n: int):
    """The codes going left at each category split of ``block``: {split number: codes}."""
    bounds = _ints(block, "cat_boundaries", None if int(block.get("num_cat", 0)) == 0 else int(block["num_cat"]) + 1)
    words = _array(block, "cat_threshold", None, np.int64)
    if words.size and (words.min() < 0 or words.max() >= 2 ** 32):
        raise _damaged("a category bitset word is out of range")
    return bounds, words


def _codes(bounds, words, idx: int) -> tuple[int, ...]:
    if not 0 <= idx < bounds.size - 1 or not 0 <= bounds[idx] <= bounds[idx + 1] <= words.size:
        raise _damaged("a category split points outside its bitsets")
    chunk = words[bounds[idx]:bounds[idx + 1]]
    if chunk.size * 32 > MAX_CATEGORY:
        raise DataError(f"A LightGBM category split lists codes beyond {MAX_CATEGORY:,}; the explorer opens at most "
                        f"that many categories per feature.")
    bits = (chunk[:, None] >> np.arange(32)[None, :]) & 1
    return tuple(np.flatnonzero(bits.ravel()).tolist())


def _max_codes(blocks) -> dict[int, int]:
    """{feature: the largest category code any split of ``blocks`` sends left}, in one pass over the trees."""
    top: dict[int, int] = {}
    for b in blocks:
        if int(b.get("num_cat", 0)) == 0:
            continue
        n = int(b["num_leaves"]) - 1
        feat, kinds, thr = _ints(b, "split_feature", n), _ints(b, "decision_type", n), _array(b, "threshold", n, float)
        bounds, words = _bitsets(b, n)
        for i in np.flatnonzero((kinds & 1) == 1):
            j = int(feat[i])
            top[j] = max(top.get(j, 0), max(_codes(bounds, words, int(thr[i])), default=0))
    return top


def _tree(block: dict, schema: FeatureSchema, t: int):
    where = f"tree {t}"
    L = int(block.get("num_leaves", 1))
    if not 1 <= L <= MAX_NODES:
        raise _damaged(f"{where} has {L} leaves")
    n = L - 1
    leaf_value = _array(block, "leaf_value", L, float)
    if n == 0:
        return tree_from_arrays(schema=schema, left=[-1], right=[-1], feature=[0], threshold=[0.0],
                                missing_left=[True], values=leaf_value, where=where)
    kinds = _ints(block, "decision_type", n)
    feat = _ints(block, "split_feature", n)
    thr = _array(block, "threshold", n, float)
    lc, rc = _ints(block, "left_child", n), _ints(block, "right_child", n)
    to_node = lambda c: np.where(c >= 0, c, n + ~c)              # leaf j is node n + j
    left = np.concatenate([to_node(lc), np.full(L, -1)])
    right = np.concatenate([to_node(rc), np.full(L, -1)])
    default_left = (kinds & 2) > 0
    missing_type = (kinds >> 2) & 3
    missing_left = np.where(missing_type == 2, default_left, 0.0 <= thr)
    category_sets = {}
    cat = (kinds & 1) == 1
    if cat.any():
        bounds, words = _bitsets(block, n)
        for i in np.flatnonzero(cat):
            category_sets[int(i)] = _codes(bounds, words, int(thr[i]))
        missing_left = np.where(cat, False, missing_left)
    zero = (missing_type == 1) & ~cat
    missing_left = np.where(zero, default_left, missing_left)
    if (zero & np.where(default_left, thr < ZERO, thr >= -ZERO)).any():
        raise DataError(f"LightGBM's zero-as-missing splits whose threshold does not already send zero the default "
                        f"way are not supported ({where} has one); retrain with zero_as_missing=false.")
    threshold = np.concatenate([np.where(cat, 0.0, thr), np.zeros(L)])
    values = np.concatenate([_array(block, "internal_value", n, float) if block.get("internal_value") else
                             np.full(n, np.nan), leaf_value])
    weight = count = None
    if block.get("leaf_weight") and block.get("internal_weight"):
        weight = np.concatenate([_array(block, "internal_weight", n, float), _array(block, "leaf_weight", L, float)])
    if block.get("leaf_count") and block.get("internal_count"):
        count = np.concatenate([_ints(block, "internal_count", n), _ints(block, "leaf_count", L)])
    gain = np.concatenate([_array(block, "split_gain", n, float), np.zeros(L)]) if block.get("split_gain") else None
    return tree_from_arrays(schema=schema, left=left, right=right, feature=np.concatenate([feat, np.zeros(L, np.int64)]),
                            threshold=threshold, missing_left=np.concatenate([missing_left, np.ones(L, bool)]),
                            values=values, weight=weight, count=count, gain=gain, category_sets=category_sets,
                            where=where)
