"""Pictures of the engine's objects: Plotly figures and Graphviz DOT text, as pure functions.

The only engine folder that imports plotly and pydot. ``palette`` (the colour-blind-friendly class
colours every picture shares), ``tree_figure`` (the interactive, clickable tree diagram every page shows)
on ``tree_layout`` (Buchheim-Walker tidy layout and the view planner that keeps every box readable), ``dot`` (DOT export of a tree, for downloads), ``regions/`` (region plots of two
features, a regression tree's step function), ``text`` (the one escape for user text in figures, the font), ``figures`` (gain and threshold-scan charts), ``prune_figs``, ``eval_figs``,
``ensemble_figs`` and ``theory_figs`` for their pages, ``quiz_figs`` (a live class's guesses). Each function returns a figure or text; the
caller decides how to show it.
"""
