"""AppTest: every tree chart of the pages carries its ARIA tree's items (ui.access.aria_tree) beside it, as JSON text in a
hidden container keyed ``dtx_ariajson_<chart key>``, one item per box the figure draws, named as the box reads: Grow,
Prune's before and after, an Ensembles member, a live class's tree on the student's and the teacher's page (an opened
model's trees: tests/app/model/test_model_grow_page.py)."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.app.classroom.test_live_class import fresh_store, start_class, student  # noqa: F401 (autouse: a store)
from tests.app.tree_charts import tree_charts
from ui.access import aria_tree

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def aria_items(at) -> dict[str, dict]:
    """The ARIA payload of every tree chart on the page, by chart key."""
    out = {}
    for text in at.text:
        try:
            data = json.loads(text.value)
        except (TypeError, ValueError):
            continue
        if isinstance(data, dict) and "items" in data and "label" in data:
            out[data["label"]] = data
    return out


def block_keys(node, out=None) -> list[str]:
    """Keys of the keyed containers on the page (a block's id ends in ``-<key>``)."""
    out = [] if out is None else out
    proto = getattr(node, "proto", None)
    ident = str(getattr(proto, "id", "")) if proto is not None else ""
    if type(node).__name__ == "Block" and "-" in ident:
        out.append(ident.rsplit("-", 1)[1])
    for child in getattr(node, "children", {}).values():
        block_keys(child, out)
    return out


def open_page(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update(params)
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_grow_tree_items_match_the_drawn_boxes():
    at = open_page("pages/grow.py", data="play_tennis", cfg="alg:id3", step="2")
    data = aria_items(at)["Decision tree being grown"]
    chart = tree_charts(at)[0]
    assert [(it["id"], it["kind"]) for it in data["items"]] == list(zip(chart["ids"], chart["kinds"]))
    names = [it["name"] for it in data["items"]]
    assert names[0] == "Node 0, tests Outlook: 14 rows, entropy 0.940, 5 No / 9 Yes"
    assert any(n.startswith("Node 2, tests Wind:") and n.endswith("branch Outlook = Rain") for n in names)
    assert data["selectable"] and data["selected"] == 2  # the last split is in the inspector
    keys = block_keys(at._tree)  # the chart and its tree share a container; the JSON's is hidden
    assert {aria_tree.container_key("grow_tree"), aria_tree.DATA_PREFIX + "grow_tree"} <= set(keys)


def test_prune_before_and_after_and_the_narration_status():
    at = open_page("pages/grow.py", data="play_tennis", cfg="alg:id3", step="3")
    at.switch_page("pages/prune.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    found = aria_items(at)
    assert {"Tree before pruning", "Tree after pruning"} <= set(found), set(found)
    grow = open_page("pages/grow.py", data="play_tennis", cfg="alg:id3", step="1")
    assert aria_tree.STATUS_PREFIX + "narration" in block_keys(grow._tree)


def aria_by_chart(at) -> dict[str, dict]:
    """The ARIA payload of every tree chart on the page by its chart key (several charts may share a label)."""
    out = {}

    def walk(node):
        proto = getattr(node, "proto", None)
        ident = str(getattr(proto, "id", "")) if proto is not None else ""
        key = ident.rsplit("-", 1)[1] if type(node).__name__ == "Block" and "-" in ident else ""
        if key.startswith(aria_tree.DATA_PREFIX):
            text = next(c for c in node.children.values() if type(c).__name__ == "Text")
            out[key[len(aria_tree.DATA_PREFIX):]] = json.loads(text.value)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def assert_matches_the_drawn_boxes(at, prefix: str) -> list[dict]:
    """Every tree chart whose key starts with ``prefix`` has its ARIA tree, one item per drawn box, each named
    "Node <id>, ..." or saying how many nodes a "+k" box hides; returns their payloads."""
    found = {k: v for k, v in aria_by_chart(at).items() if k.startswith(prefix)}
    charts = {c["id"]: c for c in tree_charts(at)}
    assert found, (prefix, sorted(aria_by_chart(at)))
    for key, data in found.items():
        chart = next(c for cid, c in charts.items() if cid.endswith(key))
        assert [(it["id"], it["kind"]) for it in data["items"]] == list(zip(chart["ids"], chart["kinds"]))
        for it in data["items"]:
            assert it["name"].startswith(f"Node {it['id']},") if it["kind"] == 0 else "more node" in it["name"], it
    return list(found.values())


def test_the_ensembles_member_tree_is_an_aria_tree():
    at = open_page("pages/grow.py", data="play_tennis", cfg="alg:id3")
    at.switch_page("pages/ensembles.py").run()
    at.button(key="_w_ens_train").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (member,) = assert_matches_the_drawn_boxes(at, "ens_member_tree_")
    assert member["items"][0]["name"].startswith("Node 0, tests ")


def test_the_students_tree_in_a_live_class_is_an_aria_tree():
    teacher_at, code = start_class()
    ana = student(code, "ana")
    (tree,) = assert_matches_the_drawn_boxes(ana, "join_tree")
    assert tree["label"] == "The class's tree" and tree["items"][0]["name"].startswith("Node 0,")
    (shown,) = assert_matches_the_drawn_boxes(teacher_at.run(), "grow_tree")  # the teacher's presenter view
    assert shown["items"][0]["name"] == tree["items"][0]["name"]
