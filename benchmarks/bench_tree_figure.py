"""Time the interactive tree diagram (``engine.viz.tree_figure``) and weigh what it sends to the browser.

    python benchmarks/bench_tree_figure.py                    # 15, 150, 1,500 and 15,000 nodes
    python benchmarks/bench_tree_figure.py --nodes 150 1500 --repeat 5

For each size: a tree with about that many nodes (on the synthetic 3-class data of ``bench_fit.py``, see
:func:`tree_with`), then the best of ``--repeat`` builds of

- ``layout``: the Buchheim-Walker layout alone,
- ``figure``: the whole figure, every node drawn (above 1,500 boxes: WebGL markers),
- ``folded``: the figure the Grow page draws (levels folded so that at most 200 boxes remain),
- ``DOT``: the Graphviz export of the same tree, the reference in the same run (ratio = figure / DOT),

and the size of the figure's JSON (``fig.to_json()``: what Streamlit sends). Aims (issue 14): below
50 ms and 200 kB at 150 nodes, below 0.5 s at 15,000.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fit import best_time as best_of, make_data  # noqa: E402

import engine  # noqa: E402
from engine.viz.dot import dot_source, fold_depth_for  # noqa: E402
from engine.viz.tree_figure import visible_items  # noqa: E402
from engine.viz.tree_figure import tree_figure  # noqa: E402
from engine.viz.tree_layout import tidy_layout  # noqa: E402




def tree_with(nodes: int, seed: int):
    """About ``nodes`` nodes: exactly via ``max_leaf_nodes`` up to 2,000 (best-first growth steps node by
    node), above that a fully grown tree on ~2.1 rows per node (level-wise growth, seconds instead of minutes)."""
    if nodes <= 2000:
        ds = make_data(max(200, nodes * 4), d=8, seed=seed)
        return engine.fit_tree(ds, engine.TreeConfig(algorithm="cart", max_leaf_nodes=(nodes + 1) // 2))
    return engine.fit_tree(make_data(int(nodes * 2.13), d=8, seed=seed), engine.TreeConfig(algorithm="cart"))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, nargs="+", default=[15, 150, 1_500, 15_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"{'nodes':>7} {'layout ms':>10} {'figure ms':>10} {'JSON kB':>8} {'folded ms':>10} "
          f"{'folded kB':>10} {'DOT ms':>8} {'fig/DOT':>8}")
    for n in args.nodes:
        tree = tree_with(n, args.seed)
        items, children, _ = visible_items(tree)
        t_layout, _ = best_of(lambda: tidy_layout(children), args.repeat)
        t_fig, fig = best_of(lambda: tree_figure(tree), args.repeat)
        depth = fold_depth_for(tree, 200)
        t_fold, folded = best_of(lambda: tree_figure(tree, max_depth=depth, compact=True), args.repeat)
        t_dot, _ = best_of(lambda: dot_source(tree), args.repeat)
        kb, kb_fold = len(fig.to_json()) / 1024, len(folded.to_json()) / 1024
        print(f"{tree.n_nodes:>7,} {1e3 * t_layout:>10.1f} {1e3 * t_fig:>10.1f} {kb:>8.0f} {1e3 * t_fold:>10.1f} "
              f"{kb_fold:>10.0f} {1e3 * t_dot:>8.1f} {t_fig / t_dot:>8.2f}")


if __name__ == "__main__":
    main()
