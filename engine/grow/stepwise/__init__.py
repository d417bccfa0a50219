"""The parts of the step-by-step :class:`~engine.grow.grower.Grower`, one concept a module.

``records`` (:class:`StepRecord`, one step's record, and the mark of the methods that change the tree),
``search`` (a node's search: the rows and stats it reads, its candidates, the winner and whether it stops)
and ``install`` (a level-wise growth's result set as the Grower's state, its nodes and history made on
first use). The Grower (:mod:`engine.grow.grower`) holds the state and the actions on it.
"""
