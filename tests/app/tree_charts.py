"""Reading the interactive tree diagram (``engine.viz.tree_figure``) out of an AppTest run.

``st.plotly_chart`` keeps the figure as JSON in ``proto.spec``; numeric arrays arrive as Plotly typed
arrays (``{"dtype": "i8", "bdata": <base64>, "shape": "n, 2"}``). :func:`tree_charts` decodes the
``nodes`` trace of every tree diagram on the page, in page order.
"""

from __future__ import annotations

import base64
import json

import numpy as np


def decode(value):
    """A Plotly JSON array (a list, or a typed array with base64 ``bdata``) as a numpy array / list."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            arr = arr.reshape([int(s) for s in str(shape).split(",")])
        return arr
    return value


def tree_charts(at) -> list[dict]:
    """One dict per tree diagram: chart ``id``, node ``ids`` and ``kinds`` (0 box, 1 "+k"), ``text``,
    ``hover``, ``fill``, ``line`` (outline colours), ``highlighted`` (ids with a thick outline), ``layout`` (its
    ``meta`` holds the view's ``focus`` and ``trail``, ``font``, box sizes)."""
    found = []
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        nodes = [t for t in spec.get("data", []) if t.get("name") == "nodes"]
        if not nodes:
            continue
        t = nodes[0]
        text = next((x for x in spec["data"] if x.get("name") == "box text"), {})  # one text point per box
        custom = np.asarray(decode(t["customdata"]))
        marker = t.get("marker", {})
        widths = np.asarray(decode(marker.get("line", {}).get("width", [])), dtype=float)
        found.append({
            "id": chart.proto.id, "ids": [int(v) for v in custom[:, 0]], "kinds": [int(v) for v in custom[:, 1]],
            "text": list(text.get("text") or []), "hover": list(t.get("hovertext") or []),
            "fill": list(marker.get("color") or []), "line": list(marker.get("line", {}).get("color") or []),
            "highlighted": [int(i) for i, w in zip(custom[:, 0], widths) if w > 2], "layout": spec.get("layout", {}),
        })
    return found


def click_node(at, key: str, node_id: int, kind: int = 0):
    """Run ``at`` as if the user had clicked box ``(node_id, kind)`` of the tree chart keyed ``key``.

    AppTest cannot click a chart, so this sends what the browser sends: the chart's widget state, a
    JSON selection whose point carries the box's customdata (Streamlit 1.67 hands a 2-D customdata row
    to Python as ``{"0": id, "1": kind}``). The chart's ``on_select`` callback then runs before the
    script, as on a server.
    """
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key))
    event = {"selection": {"points": [{"curve_number": 0, "point_number": 0, "point_index": 0,
                                       "customdata": {"0": int(node_id), "1": int(kind)}}],
                           "point_indices": [0], "box": [], "lasso": []}}
    state = WidgetState(id=chart.proto.id, string_value=json.dumps(event))
    tree = at._tree
    collect = tree.get_widget_states

    def with_click():
        states = collect()
        states.widgets.append(state)
        return states

    tree.get_widget_states = with_click  # this run only: the next run builds a new element tree
    return at.run()
