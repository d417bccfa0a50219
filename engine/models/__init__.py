"""Models trained elsewhere, opened as the engine's own trees.

:func:`load_model` reads a model file (path, bytes or file-like), recognises its format from the
content and returns an :class:`ImportedModel`: the members as :class:`~engine.tree.store.Tree` objects,
the feature names, task and classes, and prediction computed by the engine from those trees
(:mod:`engine.models.compiled`). :func:`contributions` breaks a boosted model's answer for one row into
tree contributions (a waterfall); :func:`member_votes` shows each forest member's vote.

Readers: XGBoost JSON/UBJSON (:mod:`~engine.models.xgboost_json`), LightGBM text
(:mod:`~engine.models.lightgbm_text`); pickles are refused unopened (:mod:`~engine.models.refuse`). A
reader is one module plus one line in :data:`engine.models.load.READERS`; it builds trees with
:func:`~engine.models.build.tree_from_arrays` (see :mod:`engine.models.model` for the contract).
"""

from engine.models.explain import Contributions, contributions, member_votes
from engine.models.build import member_schema, tree_from_arrays
from engine.models.load import READERS, Reader, load_model
from engine.models.model import ImportedModel

__all__ = ["ImportedModel", "load_model", "READERS", "Reader", "tree_from_arrays", "member_schema",
           "Contributions", "contributions", "member_votes"]
