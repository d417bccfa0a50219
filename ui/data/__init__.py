"""The Data page's panels: choose or upload a data set, preview it, change column kinds, pick the
target and the train/validation/test split (``panels``). Every change resets the tree through ``ui.state``.
"""
