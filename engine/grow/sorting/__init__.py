"""Sorting rows for the growers: what a training matrix's sorts, value ranks and bins are kept as for the
next tree (``kept``), and sorting many short segments of one array at once (``segments``).

The per-node orders the level-wise exact grower builds from these live in :mod:`engine.grow.roworders`.
"""
