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

from engine.config import TreeConfig
from engine.data.dataset import SAMPLES, Dataset, DataSplit, load_csv, load_sample
from engine.errors import ConfigError, DataError, EngineError
from engine.split.gain import explain_gain, explain_impurity
from engine.grow.gain_tables import gain_table
from engine.grow.grower import Grower, StepRecord, fit_tree
from engine.split.impurity import CRITERIA, impurity
from engine.data.schema import FeatureSchema
from engine.split.records import Split
from engine.tree.node import Node
from engine.tree.store import Tree
from engine.models import ImportedModel, load_model
from engine.tree.explain import explain_row, path_contributions, shap_summary, split_importances, tree_shap

__all__ = [
    "TreeConfig", "SAMPLES", "Dataset", "DataSplit", "load_csv", "load_sample", "ConfigError", "DataError",
    "EngineError", "explain_gain", "explain_impurity", "gain_table", "Grower", "StepRecord", "fit_tree",
    "CRITERIA", "impurity", "FeatureSchema", "Split", "Node", "Tree", "ImportedModel", "load_model",
    "tree_shap", "path_contributions", "explain_row", "shap_summary", "split_importances",
]
