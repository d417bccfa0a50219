"""Decision-tree engine: pure numpy/pandas learning library behind the explorer.

Typical use::

    import engine
    ds = engine.load_sample("play_tennis")
    grower = engine.Grower(ds, engine.TreeConfig(algorithm="id3"))
    record = grower.step()            # one split, with the winner, runner-up and gain table
    tree = grower.grow().tree         # to the end
    tree.predict(ds.frame)

See docs/ENGINE_API.md for the whole public API.
"""

from .config import TreeConfig
from .data import SAMPLES, Dataset, DataSplit, load_csv, load_sample
from .errors import ConfigError, DataError, EngineError
from .gain import explain_gain, explain_impurity, gain_table
from .growth import Grower, StepRecord, fit_tree
from .impurity import CRITERIA, impurity
from .schema import FeatureSchema
from .splits import Split
from .tree import Node, Tree

__all__ = [
    "TreeConfig", "SAMPLES", "Dataset", "DataSplit", "load_csv", "load_sample", "ConfigError", "DataError",
    "EngineError", "explain_gain", "explain_impurity", "gain_table", "Grower", "StepRecord", "fit_tree",
    "CRITERIA", "impurity", "FeatureSchema", "Split", "Node", "Tree",
]
