"""The Grow page's pieces: settings, step controls, the diagram and region plot, the node inspector,
the query point and the exports. ``settings`` builds the TreeConfig, ``controls`` steps the Grower,
``views`` draws, ``inspector`` explains a node (gain table, arithmetic, force and collapse), ``query``
routes one row, ``exports`` writes DOT, rules, JSON and CSV safely.
"""
