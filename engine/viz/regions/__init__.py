"""Figures over a tree's feature space: decision regions over two features, a regression tree's step
function along one.

- :mod:`~engine.viz.regions.plot`: :func:`region_figure` (each leaf's rectangle and the rows on top),
  its layers for the Grow page (:func:`region_layer`, :func:`region_points`, :func:`highlight_shapes`),
  and the figure frame the package's builders share (:func:`new_figure`, :func:`vline`, :data:`TEMPLATE`);
- :mod:`~engine.viz.regions.fit`: :func:`regression_fit_figure` and :func:`typical_row`.

The names are re-exported here (``from engine.viz.regions import region_figure``), with the escape for user
text and the font, which live in :mod:`engine.viz.text`.
"""

from engine.viz.regions.fit import regression_fit_figure, typical_row
from engine.viz.regions.plot import (MAX_POINTS, SHAPE_LIMIT, TEMPLATE, TRACE_SHADES, WEBGL_POINTS, RegionLayer,
                                     RegionPoints, highlight_shapes, new_figure, region_figure, region_layer,
                                     region_points, sample_rows, vline)
from engine.viz.text import FONT, escape, short_label

__all__ = ["region_figure", "region_points", "RegionPoints", "region_layer", "RegionLayer", "highlight_shapes",
           "regression_fit_figure", "typical_row", "sample_rows", "new_figure", "vline", "TEMPLATE", "FONT",
           "MAX_POINTS", "SHAPE_LIMIT", "TRACE_SHADES", "WEBGL_POINTS", "escape", "short_label"]
