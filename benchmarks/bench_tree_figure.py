"""Time the interactive tree diagram (``engine.viz.tree_figure``): a click's cost, and what it sends.

    python benchmarks/bench_tree_figure.py                    # 15, 150, 1,000, 7,000 and 15,000 nodes
    python benchmarks/bench_tree_figure.py --nodes 1000 7000 --repeat 5

For each size: a tree with about that many nodes (on the synthetic 3-class data of ``bench_fit.py``, see
:func:`tree_with`), then the best of ``--repeat`` of

- ``sizes``: the subtree sizes the planner needs (one O(n) walk per tree, remembered per fingerprint:
  paid once after a Step, not on a click),
- ``plan``: :func:`engine.viz.tree_layout.plan_view` of the root's view (900 x 640 px, 11 px text),
- ``click``: a click on a "+k nodes" box: the plan of the view below it and its figure (what the server
  computes between the click and the next view; the browser round trip is printed by
  ``tests/browser/test_browser_tree.py``),
- ``figure``: the root's figure from its plan, and its JSON size (``fig.to_json()``: what Streamlit sends),
- ``DOT``: the Graphviz export of the whole tree, the reference in the same run (ratio = click / DOT).

Aims (issue 24): a click well under 1 s at 7,000 nodes; a view of ~200 boxes in tens of ms.
"""

from __future__ import annotations

import os

import argparse
import sys
from pathlib import Path

os.environ.setdefault("DTX_MEMORY_BUDGET_MB", "100000")  # timing the engine at size, not the app's per-job memory budget
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fit import best_time as best_of, make_data  # noqa: E402

import engine  # noqa: E402
from engine.viz.dot import dot_source  # noqa: E402
from engine.viz.tree_figure import FOLD, tree_figure  # noqa: E402
from engine.viz.tree_layout import _SIZES, plan_view, subtree_sizes  # noqa: E402

VIEW = dict(width=900, height=640, font=11, compact=True)


def tree_with(nodes: int, seed: int):
    """About ``nodes`` nodes: exactly via ``max_leaf_nodes`` up to 2,000 (best-first growth steps node by
    node), above that a fully grown tree on ~2.1 rows per node (level-wise growth, seconds instead of minutes)."""
    if nodes <= 2000:
        ds = make_data(max(200, nodes * 4), d=8, seed=seed)
        return engine.fit_tree(ds, engine.TreeConfig(algorithm="cart", max_leaf_nodes=(nodes + 1) // 2))
    return engine.fit_tree(make_data(int(nodes * 2.13), d=8, seed=seed), engine.TreeConfig(algorithm="cart"))


def click(tree, plan):
    """The view after a click on the root view's biggest "+k nodes" box (or the root's again if none)."""
    folds = [(plan.hidden[i], nid) for i, (nid, kind) in enumerate(plan.items) if kind == FOLD]
    focus = max(folds)[1] if folds else 0
    nxt = plan_view(tree, focus=focus, **VIEW)
    return tree_figure(tree, plan=nxt, compact=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, nargs="+", default=[15, 150, 1_000, 7_000, 15_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"{'nodes':>7} {'sizes ms':>9} {'plan ms':>8} {'click ms':>9} {'boxes':>6} {'figure ms':>10} {'JSON kB':>8} "
          f"{'DOT ms':>8} {'click/DOT':>10}")
    for n in args.nodes:
        tree = tree_with(n, args.seed)
        _ = tree.fingerprint  # the Grower's tree has it already (pages key caches on it)

        def cold_sizes():
            _SIZES.clear()
            return subtree_sizes(tree)

        t_sizes, _ = best_of(cold_sizes, args.repeat)
        t_plan, plan = best_of(lambda: plan_view(tree, **VIEW), args.repeat)
        t_click, _ = best_of(lambda: click(tree, plan), args.repeat)
        t_fig, fig = best_of(lambda: tree_figure(tree, plan=plan, compact=True), args.repeat)
        t_dot, _ = best_of(lambda: dot_source(tree), args.repeat)
        kb = len(fig.to_json()) / 1024
        print(f"{tree.n_nodes:>7,} {1e3 * t_sizes:>9.1f} {1e3 * t_plan:>8.1f} {1e3 * t_click:>9.1f} {len(plan.items):>6} "
              f"{1e3 * t_fig:>10.1f} {kb:>8.0f} {1e3 * t_dot:>8.1f} {t_click / t_dot:>10.3f}")


if __name__ == "__main__":
    main()
