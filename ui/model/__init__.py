"""A model trained elsewhere (XGBoost, LightGBM, scikit-learn, ONNX), explored on every page.

The Data page opens the file (:mod:`~ui.model.opening`: ``engine.load_model`` on the uploaded bytes, kept in
the session through ``ui.state.MODEL``); :mod:`~ui.model.common` matches its columns with the active data
set (by name, the library's renaming or position) and reads its classes as the data's labels;
:mod:`~ui.model.classes` lets the Data page change that reading and warns when another agrees far better;
``common`` also picks the member tree ("Tree k of N", with the round and class of boosted models);
:mod:`~ui.model.grow_view` draws that tree with the planned diagram and a node inspector (Grow page);
:mod:`~ui.model.breakdown` shows one row's contributions as a waterfall or the members' votes (Ensembles);
:mod:`~ui.model.rules_view` the chosen tree's rules and a typed row's path (Rules); :mod:`~ui.model.regions`
the decision regions of two features with the others held at chosen values; :mod:`~ui.model.with_data` the
views that need the model's columns in the data: node counts and purity refitted from the rows, metrics
and the confusion matrix, pruning a single tree, and gain tables at each node.
"""
