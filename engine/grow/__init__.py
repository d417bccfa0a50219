"""Growing trees: the step-by-step :class:`Grower`, its stopping rules, and the fast level-wise growers.

``grower`` (Grower, StepRecord, fit_tree: step, undo, force, collapse, grow; its parts in ``stepwise/``:
the step records, a node's search, a level-wise result set as the state), ``stopping`` (every stopping rule
and its reason), ``featuredraw`` (random feature subsets per node), ``gain_tables`` (the gain table of a
data set or a Grower), and the speed path: ``fastgrow`` chooses between ``fastexact`` (exact level-wise
search; its scan, row moves and result in ``exact/``), ``fasthist`` (histograms) and ``c45grow`` (J48's
rules, the C4.5 preset: multiway splits and fractional cases too), which keep their rows in ``roworders``
and ``levelstore`` (``sorting/``: the whole-data sorts, ranks and bins kept for the next tree, and the
segment sort); ``allocator`` keeps big temporary arrays on the heap. ``parallel`` (run_tasks) grows many
independent trees on all cores or a Dask cluster, for ensembles, folds and curves.
"""

from engine.grow.grower import Grower, StepRecord, fit_tree
from engine.grow.gain_tables import gain_table

__all__ = [
    "Grower", "StepRecord", "fit_tree", "gain_table",
]
