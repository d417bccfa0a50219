"""Theory: why the impurity criteria disagree, how many examples learning needs, how big a tree may be."""

from __future__ import annotations

import streamlit as st

from engine.prune import mdl
from engine.teach import theory
from engine.viz import theory_figs
from ui import state
from ui.errors import friendly_errors
from ui.charts import show_chart

st.title("Theory")
st.caption("The formulas behind the explorer, each with numbers you can change.")
tab_curves, tab_zero, tab_pac, tab_mdl = st.tabs(
    ["Impurity curves", "Zero-gain split", "PAC sample size", "MDL bound"]
)


def _grower():
    """The Grow page's grower if one exists (never creates one)."""
    return st.session_state.get(state.GROWER)


def _selected_share(grower) -> tuple[float | None, int, str]:
    tree = grower.tree
    node_id = state.selected_node() if 0 <= state.selected_node() < tree.n_nodes else 0
    return theory.node_share(tree, node_id), node_id, tree.schema.classes[0] if tree.schema.classes else ""


with tab_curves, friendly_errors("theory: curves"):
    st.latex(r"\begin{gathered}\text{Misclassification}=\min(p,1-p)\qquad \text{Gini}=1-p^2-(1-p)^2=2p(1-p)"
             r"\\ H(p)=-p\log_2 p-(1-p)\log_2(1-p)\end{gathered}")
    grower, marked, label = _grower(), None, "marked"
    if grower is not None:
        share, node_id, first = _selected_share(grower)
        if share is None:
            n_classes = len(grower.tree.schema.classes)
            what = f"has {n_classes} classes" if n_classes else "is a regression tree"
            st.info(f"These curves are for two classes; the current tree {what}, so no node is marked.")  # md-safe: app text and a count
        else:
            marked, label = share, f"node {node_id}"
            st.caption(f"Marked: node {node_id:d} of the Grow page's tree, p = share of the first class.")
            st.text(f"First class: {first}")
    if marked is None:
        marked = st.slider("Mark a value of p", 0.0, 1.0, 0.3, 0.01, key="theory_p")
    show_chart(theory_figs.impurity_curves_figure(marked_p=marked, marked_label=label),
                    key="theory_curves", lead="Impurity of a two-class node", width="stretch")
    st.markdown("All three are 0 for a pure node and largest at p = 1/2. Entropy and Gini are "
                "*strictly* concave; misclassification is straight on each half (see the next tab).")

with tab_zero, friendly_errors("theory: zero gain"):
    example = theory.zero_gain_example()

    def _load_example() -> None:
        st.session_state["theory_parent"] = ", ".join(map(str, example.parent))
        st.session_state["theory_left"] = ", ".join(map(str, example.left))

    if "theory_parent" not in st.session_state:
        _load_example()
    st.latex(r"\Delta = I(\text{parent}) - \tfrac{n_L}{n} I(\text{left}) - \tfrac{n_R}{n} I(\text{right})")
    c1, c2 = st.columns(2)
    parent_text = c1.text_input("Parent class counts (one per class)", key="theory_parent")
    left_text = c2.text_input("Left child class counts (the right child gets the rest)", key="theory_left")
    st.button("Back to the zero-gain example", on_click=_load_example, key="theory_reset")
    parent = theory.parse_counts(parent_text, name="Parent class counts")
    left = theory.parse_counts(left_text, name="Left child class counts")
    gains = theory.split_gains(parent, left)
    st.text(f"Right child = parent − left = ({', '.join(str(p - q) for p, q in zip(parent, left))})")
    st.dataframe(gains.drop(columns="arithmetic"), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.4f")
                                for c in ["parent", "left", "right", "weighted_children", "gain"]})
    st.code("\n".join(f"{r.criterion}: {r.arithmetic}" for r in gains.itertuples()), language=None,
            wrap_lines=True)
    g1, g2 = st.columns(2)
    show_chart(theory_figs.gains_figure(gains), where=g1, key="theory_gains", width="stretch")
    if len(parent) == 2:
        show_chart(theory_figs.split_chords_figure(parent, left), where=g2, key="theory_chords", width="stretch")
    st.markdown(
        "**Why they disagree.** The parent's p is the weighted mean of the children's p, so the "
        "weighted children impurity lies on the chord between the children's points on the curve; "
        "the gain is the gap between curve and chord at the parent's p. Entropy and Gini are strictly "
        "concave, so any split that changes the class mix has a positive gain. Misclassification is "
        "straight on each side of p = 1/2: when both children keep the parent's majority class the "
        "chord lies on the curve and the gain is exactly 0, even for a split that isolates a pure group."
    )

with tab_pac, friendly_errors("theory: PAC"):
    st.latex(r"N \ge \frac{1}{\epsilon}\left(\ln\frac{1}{\delta} + \ln|H|\right)")
    c1, c2, c3, c4, c5 = st.columns(5)
    eps = c1.number_input("ε (error)", 0.001, 0.999, 0.1, 0.01, format="%.3f", key="theory_eps")
    delta = c2.number_input("δ (failure prob.)", 0.001, 0.999, 0.05, 0.01, format="%.3f", key="theory_delta")
    n_max = c3.number_input("largest n", 1, 60, 12, key="theory_nmax")
    k = c4.number_input("k (decision lists)", 0, 10, 2, key="theory_k")
    nodes = c5.number_input("tree nodes s", 1, 1001, 15, 2, key="theory_nodes")
    table = theory.pac_table(n_values=range(1, int(n_max) + 1), epsilon=eps, delta=delta,
                             k=int(k), tree_nodes=int(nodes))
    st.latex(r"\begin{gathered}\ln|\text{Bool}_n| = 2^n\ln 2\qquad \ln|\text{Conj}_n| = n\ln 3\qquad "
             r"\ln|\text{Trees}_{\le s}| \le |T|\ln 2 \\ "
             r"\ln|k\text{-DL}_n| \le |C|\ln 3 + \ln|C|!,\quad |C| = \textstyle\sum_{i\le k}\binom{2n}{i}"
             r"\end{gathered}")
    show_chart(theory_figs.pac_figure(table), key="theory_pac", lead="Rows needed for a PAC guarantee", width="stretch")
    wide = table.pivot(index="n", columns="hypothesis_class", values="N")[table["hypothesis_class"].unique()]
    st.dataframe(wide, width="stretch", column_config={
        c: st.column_config.NumberColumn(format="%.4g") for c in wide.columns})

with tab_mdl, friendly_errors("theory: MDL"):
    st.latex(r"L_D(T) \le L_S(T) + \sqrt{\frac{|T| + \ln(2/\delta)}{2m}}")
    st.latex(r"|T| = 5n + 1 + (n-1)\lceil\log_2 d'\rceil,\qquad d' = d_{\text{binary}} + d_{\text{real}}\,(m+1)")
    st.caption("|T| = bits to write the tree down: 5 per node for its shape, flags and label, 1 to end "
               "the code, and ⌈log₂ d′⌉ to name the test of each of at most n − 1 inner nodes. The notes' code "
               "is for d binary features; a real-valued feature is the m + 1 binary tests x ≤ t that split m "
               "rows differently, so d real-valued features give d′ = d(m + 1). A categorical feature counts "
               "as its tests x = v (CART subsets: 2^(k−1) − 1); in a multiway tree (ID3, C4.5) it is one test "
               "whose value fixes how many subtrees follow, so the same code still fits. "
               "The bound holds with probability ≥ 1 − δ over m training rows, for every tree at once.")
    mdl_delta = st.slider("δ", 0.01, 0.5, 0.05, 0.01, key="theory_mdl_delta")
    grower = _grower()
    if grower is None:
        st.info("No tree yet: grow one on the Grow page and its bound appears here. "
                "Meanwhile, try the numbers below.")
        c1, c2, c3, c4, c5 = st.columns(5)
        err = c1.number_input("training error", 0.0, 1.0, 0.1, 0.01, key="theory_mdl_err")
        n_nodes = int(c2.number_input("nodes n", 1, 10_001, 7, 2, key="theory_mdl_n"))
        d = int(c3.number_input("features d", 1, 10_000, 4, key="theory_mdl_d"))
        m = int(c4.number_input("training rows m", 1, 10_000_000, 100, key="theory_mdl_m"))
        real = c5.toggle("real-valued", value=True, key="theory_mdl_real",
                         help="On: d′ = d(m + 1) tests x ≤ t. Off: d binary features, d′ = d.")
        bound = mdl.mdl_error_bound(err, n_nodes, mdl.binary_tests(["numeric" if real else "binary"] * d,
                                                                         [2] * d, m, "equals"), m, mdl_delta)
    elif grower.tree.schema.task != "classification":
        bound = None
        st.info("The bound is about the 0-1 error of a classifier; the current tree is a regression tree.")
    else:
        train = state.current_split().train
        bound = theory.tree_mdl_bound(grower.tree, train.X, train.y, mdl_delta)
        st.caption("The Grow page's tree on its training rows.")
    if bound is not None:
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("training error L_S(T)", f"{bound.train_error:.4f}")
        m2.metric("description |T|", f"{bound.description_length} bits", f"n={bound.n_nodes}, d′={bound.d:,}",
                  delta_color="off", delta_arrow="off")
        m3.metric("slack", f"{bound.slack:.4f}", f"m={bound.m}", delta_color="off", delta_arrow="off")
        m4.metric("bound on true error", f"{bound.bound:.4f}")
        st.code(bound.arithmetic(), language=None)
        if bound.vacuous:
            st.warning("The bound is at least 1, so it says nothing yet: a smaller tree or more rows tighten it.")
