"""Imported trees kept as node arrays, their node objects made only when read.

A model file near the explorer's limit holds a million nodes; one Python :class:`~engine.tree.Node` (with its
:class:`~engine.split.records.Split`, tuples and labels) costs about a kilobyte and tens of microseconds, so a
reader that made them all took 1.7 GB and half a minute. Here the readers' arrays are walked, checked and
numbered with numpy (:mod:`~engine.models.arrays.walk`), and each tree keeps them in an
:class:`~engine.models.arrays.nodes.ArrayNodes` store: ``Tree.nodes[i]`` makes node ``i`` when first read,
so a diagram makes the boxes it draws; sizes, depth, prediction, feature importances and the checks of
:class:`~engine.models.model.ImportedModel` read the arrays.
"""

from engine.models.arrays.nodes import ArrayNodes
from engine.models.arrays.walk import fill_internal, walk_levels

__all__ = ["ArrayNodes", "walk_levels", "fill_internal"]
