"""AppTest: every tree chart of the pages carries its ARIA tree's items (ui.access.aria_tree) beside it, as JSON text in a
hidden container keyed ``dtx_ariajson_<chart key>``, one item per box the figure draws, named as the box reads."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

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
