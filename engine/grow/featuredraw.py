"""Random feature subsets per node (random forests' ``max_features``), deterministic and vectorised.

Each node has a 64-bit key: its parent's key mixed (SplitMix64) with a hash of the step that leads to it
(``(feature, kind, threshold, categories, child)``: for a threshold step its numbers, for a categorical
one the CRC-32 of its text), the root's key being 0. So a node's draw depends only on ``random_state`` and
where the node is, not on the order in which nodes are grown, and a whole level's keys are computed at
once (:func:`child_keys`). The features a node may use are the ``k``
with the smallest SplitMix64 scores of (seed, key, feature): a uniformly random k-subset for each node.
Both growers (step by step and level-wise) draw through this module, so they agree exactly.
"""

from __future__ import annotations

import zlib

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_FEATURE = np.uint64(0x632BE59BD9B4E019)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on uint64 arrays (wrapping arithmetic)."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


_STEP = np.uint64(0xD6E8FEB86659FD93)


def child_keys(parent_keys, features, thresholds, child) -> np.ndarray:
    """Keys of many children reached by threshold steps ``(feature, "threshold", threshold, (), child)``."""
    bits = np.ascontiguousarray(np.asarray(thresholds, dtype=np.float64)).view(np.uint64)
    step = _splitmix(bits ^ (np.asarray(features, dtype=np.uint64) * _STEP + np.asarray(child, dtype=np.uint64)))
    return _splitmix(np.asarray(parent_keys, dtype=np.uint64) * _M1 ^ step)


def child_key(parent_key: int, step: tuple) -> int:
    """Key of a child: the parent's key mixed with the step that leads to it (see the module docstring)."""
    feature, kind, threshold, _, child = step
    if kind == "threshold":
        return int(child_keys([parent_key], [feature], [threshold], [child])[0])
    text = np.array([zlib.crc32(repr(step).encode())], dtype=np.uint64)
    return int(_splitmix(np.array([parent_key], dtype=np.uint64) * _M1 ^ _splitmix(text + _STEP))[0])


def path_key(path: tuple) -> int:
    key = 0
    for step in path:
        key = child_key(key, step)
    return key


def _scores(keys, seed: int, d: int) -> np.ndarray:
    keys = np.atleast_1d(np.asarray(keys, dtype=np.uint64))
    base = _splitmix(keys ^ _splitmix(np.array([seed], dtype=np.uint64)))
    return _splitmix(base[:, None] + np.arange(1, d + 1, dtype=np.uint64)[None, :] * _FEATURE)


def feature_ranks(keys, seed: int, d: int) -> np.ndarray:
    """(n_nodes, d): the position at which each node visits each feature, a random order per node (seeded
    by ``random_state`` and the node's key). The drawn features are the first k visited; a tie between
    equally good features goes to the one visited first, as scikit-learn visits features in a random order."""
    order = np.argsort(_scores(keys, seed, d), axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(d), order.shape), axis=1)
    return ranks


def draw_mask(keys, seed: int, d: int, k: int) -> np.ndarray:
    """Boolean (n_nodes, d): True for the k features each node may use."""
    scores = _scores(keys, seed, d)
    keys = np.atleast_1d(np.asarray(keys, dtype=np.uint64))
    pick = np.argsort(scores, axis=1, kind="stable")[:, :k]
    mask = np.zeros((keys.size, d), dtype=bool)
    np.put_along_axis(mask, pick, True, axis=1)
    return mask
