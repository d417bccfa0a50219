"""Grow page layout: where the diagram, the region plot and the node inspector go.

Normal view: the diagram (with its narration and, below, the region plot) on the left, and on the right the
tabs that start on the node inspector, so a click on a box shows its gain table beside the diagram, without
scrolling. The right column sticks below the app's header while the page scrolls past a tall diagram (its
own scroll bar when it is taller than the window). With **Wide diagram** on, the diagram takes the whole
width and the rest follows below it. Streamlit stacks the two columns on a narrow screen (a phone).

Presenter view keeps its own layout (diagram beside the region plot or the class's panel, nothing below).
"""

from __future__ import annotations

import streamlit as st

SIDE_KEY = "grow_side"
#: a literal (st.html takes constant text only): the inspector's column stays in view (below the header)
#: (the column itself sticks: its parent row is as tall as the diagram, the room it can stick in)
SIDE_CSS = ("<style>[data-testid='stColumn']:has(.st-key-grow_side) { position: sticky; top: 3.75rem; "
            "align-self: flex-start; max-height: calc(100vh - 4.5rem); overflow-y: auto; overflow-x: hidden; }"
            # the tabs wrap onto a second line in the column: at 1366 px "Why this prediction" was cut and
            # "Export & share" hidden behind Streamlit's scroll arrow
            ".st-key-grow_side [data-testid='stTabs'] [role='tablist'] { flex-wrap: wrap; row-gap: 0; }"
            "</style>")
SIDE_RATIO = [3, 2]  # diagram : inspector (at [2, 1] the gain column is scrolled out of view at 1366 px)


def areas(*, presenter: bool, wide: bool):
    """``(diagram area, side area)``: two columns, or two containers one below the other (``wide``).

    In presenter view the side area is the region plot's or the class's column; else it holds the tabs
    (a sticky container, see :data:`SIDE_CSS`).
    """
    if wide:
        return st.container(), st.container()
    if presenter:
        return st.columns([3, 2], gap="large")
    diagram, side = st.columns(SIDE_RATIO, gap="medium")
    st.html(SIDE_CSS)
    return diagram, side.container(key=SIDE_KEY)
