"""Impurity measures and the search for a node's best split, with the gain tables that explain it.

``impurity`` holds the criteria (entropy, Gini, misclassification, variance) over "stats" vectors;
``records`` the frozen :class:`Split` record; ``search`` the exact search over thresholds, multiway,
subset and one-vs-rest splits (C4.5's missing values included); ``j48`` the split rules of Weka's J48
(the C4.5 preset: minimum split sizes, MDL-corrected thresholds at training values, the average-gain
filter, a branch per value); ``histogram`` and ``binning`` the
binned search; ``significance`` the chi-square test; ``gain`` the gain tables, threshold scans and
their arithmetic. Nothing here knows about trees: a split is scored from the rows of one node.
"""

from engine.split.impurity import CRITERIA, Criterion, get_criterion, impurity
from engine.split.records import Split
from engine.split.gain import candidate_scan, explain_gain, explain_impurity, gain_table_for

__all__ = [
    "CRITERIA", "Criterion", "get_criterion", "impurity", "Split", "candidate_scan", "explain_gain",
    "explain_impurity", "gain_table_for",
]
