"""Text alternatives of the app's charts (WCAG 1.1.1): what a Plotly figure shows, said in words and as a table.

``chart_text`` reads any figure the app draws (bars, lines, points, heatmaps, waterfalls, histograms) and
returns a short description with the key numbers (:func:`describe`) and the data behind the marks as a
DataFrame (:func:`figure_table`); the page shows both beside the chart (``ui.charts.show_chart``). Pure
functions: no Streamlit here.
"""

from engine.viz.alt.chart_text import describe, figure_table, plain

__all__ = ["describe", "figure_table", "plain"]
