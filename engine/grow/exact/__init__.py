"""The pieces of the level-wise exact grower (:func:`engine.grow.fastexact.grow_exact`), one concept a module.

``data`` (what the scan reads of each training row), ``scan`` (every (feature, node) pair of a level scanned
at once for its best threshold, and each node's feature), ``rows`` (the split nodes' rows moved into their
children's ranges, or the permutation made from where each row stopped) and ``result`` (the level arrays
made into the nodes, rows and paths the Grower installs).
"""
