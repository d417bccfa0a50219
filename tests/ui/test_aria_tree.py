"""The ARIA tree of a tree chart (ui.access.aria_tree): its items as data, their spoken names, and the one page script
that builds it (allowed by the proxy's Content-Security-Policy, no user text in it, no innerHTML)."""

from __future__ import annotations

import pytest

import engine
from engine.viz.tree_layout import plan_view
from engine.viz.tree_labels import fold_name, node_name
from tests.csp import proxy_allows
from ui.access import aria_tree


def tennis(steps: int = 2):
    g = engine.Grower(engine.load_sample("play_tennis"), engine.TreeConfig(algorithm="id3"))
    for _ in range(steps):
        g.step()
    return g.tree


def test_the_script_runs_under_the_proxys_policy_and_builds_no_html():
    assert proxy_allows(aria_tree.ARIA_JS)
    assert "innerHTML" not in aria_tree.ARIA_JS and "insertAdjacentHTML" not in aria_tree.ARIA_JS
    assert "stopPropagation" in aria_tree.ARIA_JS  # Step/Undo/Reset shortcuts (arrows, Home) stay out of the tree


def test_names_say_what_a_box_and_its_branch_say():
    tree = tennis()
    names = {n.id: node_name(tree, n, open_ids={3, 4, 5}) for n in tree.walk()}
    assert names[0] == "Node 0, tests Outlook: 14 rows, entropy 0.940, 5 No / 9 Yes"
    assert names[2] == "Node 2, tests Wind: 5 rows, entropy 0.971, 2 No / 3 Yes; branch Outlook = Rain"
    assert names[1] == ("Node 1, leaf, predicts Yes: 4 rows, entropy 0.000, 0 No / 4 Yes; "
                        "stopped: all rows have the same label; branch Outlook = Overcast")
    assert names[3].startswith("Node 3, open leaf, not split yet, majority No: 5 rows")
    assert fold_name(tree.nodes[2], 3) == "3 more nodes below node 2, not drawn; Enter shows them"


def test_items_follow_the_drawn_view_with_levels_and_positions():
    tree = tennis()
    plan = plan_view(tree, width=520, height=600)
    data = aria_tree.tree_payload(tree, plan, label="Decision tree", selected=2, selectable=True)
    items = data["items"]
    assert [(it["id"], it["kind"]) for it in items] == list(plan.items)
    root = items[0]
    assert (root["level"], root["size"], root["pos"]) == (1, 1, 1)
    kids = [items[k] for k in root["kids"]]
    assert [k["id"] for k in kids] == [1, 2, 3]
    assert [(k["level"], k["size"], k["pos"]) for k in kids] == [(2, 3, 1), (2, 3, 2), (2, 3, 3)]
    assert data["selected"] == 2 and data["selectable"]
    assert all(it["h"] > 0 and it["x"] > 0 for it in items)


def test_a_folded_subtree_is_one_item_saying_how_many_nodes_it_hides():
    g = engine.Grower(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart"))
    tree = g.grow().tree
    plan = plan_view(tree, width=200, height=260)  # too small for the whole tree: "+k nodes" boxes
    data = aria_tree.tree_payload(tree, plan, label="t")
    folds = [it for it in data["items"] if it["kind"] == 1]
    assert folds
    for it, hidden in zip(data["items"], plan.hidden):
        if it["kind"] == 1:
            assert it["name"] == f"{hidden:,} more node{'s' if hidden != 1 else ''} below node {it['id']}, not drawn; Enter shows them"
            assert not it["kids"]


def test_a_pruning_preview_names_the_cut_nodes():
    tree = tennis(3)
    plan = plan_view(tree, width=520, height=600)
    data = aria_tree.tree_payload(tree, plan, label="Tree before pruning", marked=(3,))
    cut = {it["id"] for it in data["items"] if it["name"].endswith("; pruned")}
    assert cut == set(tree.subtree_ids(3))


def test_the_vote_breakdown_in_words():
    import pandas as pd

    from engine.ensembles.votes import VoteBreakdown
    from ui.ensembles.views import vote_sentence

    tally = pd.DataFrame({"class": ["No", "Yes"], "votes": [3, 7], "weight": [3.0, 7.0], "share": [0.3, 0.7]})
    vb = VoteBreakdown(pd.DataFrame(), tally, "Yes", "classification")
    assert vote_sentence(vb) == "Yes wins, 7 of 10 votes (weight share 0.70); No 3"
    assert vote_sentence(VoteBreakdown(pd.DataFrame(), pd.DataFrame(), 12.5, "regression")) == \
        "the mean prediction is 12.5"


def test_status_regions_are_in_the_page_script():
    assert "st-key-dtx_status_" in aria_tree.ARIA_JS and 'setAttribute("role", "status")' in aria_tree.ARIA_JS


def test_a_folded_subtree_that_is_cut_says_so():
    tree = engine.Grower(engine.load_sample("iris"), engine.TreeConfig(algorithm="cart")).grow().tree
    plan = plan_view(tree, width=200, height=260)
    nid = next(n for n, kind in plan.items if kind == 1)
    data = aria_tree.tree_payload(tree, plan, label="t", marked=tuple(tree.nodes[nid].children))
    fold = next(it for it in data["items"] if it["kind"] == 1 and it["id"] == nid)
    assert fold["name"].endswith("Enter shows them; pruned")
    assert not any(it["name"].endswith("; pruned") for it in data["items"] if it["id"] != nid)


def test_names_are_made_once_per_tree_and_reused_when_only_the_selection_moves(monkeypatch):
    tree = tennis()
    plan = plan_view(tree, width=520, height=600)
    names: dict = {}
    first = aria_tree.tree_payload(tree, plan, label="t", selected=0, names=names)
    assert len(names) == 6
    monkeypatch.setattr(aria_tree, "node_name", lambda *a, **k: pytest.fail("a name was made again"))
    again = aria_tree.tree_payload(tree, plan, label="t", selected=2, names=names)
    assert [it["name"] for it in again["items"]] == [it["name"] for it in first["items"]]
