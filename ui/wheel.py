"""The mouse wheel scrolls the page over a zoomable chart until the user picks the chart, as maps do.

The tree diagrams zoom on the wheel (Plotly's ``scrollZoom``), and they are tall and full width: wheeling
down a page would get stuck in the first diagram it met. A small script in a hidden zero-size frame
(:func:`install`, drawn once by ``app.py`` on every page) listens to the page's wheel events in the capture
phase. Over a chart whose Plotly config has ``scrollZoom`` on, it stops the event's propagation (not its
default), so Plotly never sees it and the browser scrolls the page, unless

- the user clicked (pressed a pointer) in that chart, until the pointer moves out of it or presses
  elsewhere; or
- a modifier key is held: Ctrl or Cmd (a trackpad's pinch arrives as Ctrl + wheel) or Alt. Shift is left
  alone: Shift + wheel scrolls sideways in browsers.

Charts are found by what makes the wheel zoom, ``gd._context.scrollZoom`` of a Plotly graph div, so every
tree diagram (``ui.tree_view``) is covered whatever its key, and no other chart is touched.

The script is inline, so the proxy's Content-Security-Policy (deploy/dtx-site.inc) allows it by its hash (a
test checks that they match). Each run of the script first removes the listeners of an earlier copy (a frame that
React drew again), so there is only ever one set.
"""

from __future__ import annotations

import streamlit as st

WHEEL_KEY = "dtx_wheel"  # the frame's container, hidden by WHEEL_CSS (the script runs all the same)
WHEEL_JS = ("<script>(function(){var W=window.parent,d=W.document,o=W.__dtxWheel,active=null;"
            "if(o){for(var k in o)d.removeEventListener(k,o[k],true);}"
            "function zoomable(t){var g=t&&t.closest?t.closest('.js-plotly-plot'):null;"
            "return g&&g._context&&g._context.scrollZoom?g:null;}"
            "var h={wheel:function(e){var g=zoomable(e.target);"
            "if(g&&g!==active&&!e.ctrlKey&&!e.metaKey&&!e.altKey)e.stopPropagation();},"
            "pointerdown:function(e){active=zoomable(e.target);},"
            # a move (no button down) outside the chart: Plotly covers the page with a "dragcover" while a
            # button is down, and the browser reports a pointerover on <body> when that cover goes
            "pointermove:function(e){var t=e.target;if(active&&!e.buttons&&!active.contains(t)"
            "&&!(t.classList&&t.classList.contains('dragcover')))active=null;}};"
            "for(var k in h)d.addEventListener(k,h[k],true);W.__dtxWheel=h;})();</script>")
# a literal (st.html takes constant text only); the layout wrapper around the container is hidden too, or the
# column's gap would still push the page down by 1rem
WHEEL_CSS = ("<style>.st-key-dtx_wheel, [data-testid='stLayoutWrapper']:has(> .st-key-dtx_wheel) "
             "{ display: none !important; }</style>")


def install() -> None:
    """Draw the hidden frame with the wheel script (no space on the page: its container is not displayed)."""
    st.html(WHEEL_CSS)
    with st.container(key=WHEEL_KEY):
        st.iframe(WHEEL_JS, height=1)
