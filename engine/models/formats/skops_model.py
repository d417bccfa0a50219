"""scikit-learn models saved with ``skops.io.dump``, opened only when every type in them is trusted.

A skops file is a zip holding ``schema.json`` (the object tree: each object's module, class and how
skops rebuilds it) and ``.npy`` arrays. Before anything is loaded, the reader lists every type the schema
names and every type skops itself calls untrusted, and refuses the file with one sentence if any of them
is outside :data:`TRUSTED` (the tree estimators below and the pieces they are made of), or if the
object at the top is not one of :data:`ESTIMATORS`. Even before that, the zip's members are unpacked
under a cap into a stored copy (:mod:`~engine.models.formats.zipped`), which is all skops ever reads.
Only then does ``skops.io.loads`` run, with exactly those types trusted. A pickle inside a zip, or a zip
that is not a skops file, is refused the same way. The estimator becomes an
:class:`~engine.models.model.ImportedModel` in :mod:`~engine.models.formats.sklearn_trees`.
"""

from __future__ import annotations

import io
import json
import zipfile

from engine.errors import ConfigError, DataError
from engine.models.formats.sklearn_trees import convert
from engine.models.formats.zipped import unpacked_copy
from engine.models.limits import check_json_size
from engine.models.model import ImportedModel

__all__ = ["is_skops", "read_skops", "TRUSTED", "ESTIMATORS"]

_TREE, _FOREST, _GB = "sklearn.tree._classes.", "sklearn.ensemble._forest.", "sklearn.ensemble._gb."
_HGB = "sklearn.ensemble._hist_gradient_boosting."
#: The estimators a skops file may hold at its top.
ESTIMATORS = frozenset({
    _TREE + "DecisionTreeClassifier", _TREE + "DecisionTreeRegressor", _TREE + "ExtraTreeClassifier",
    _TREE + "ExtraTreeRegressor", _FOREST + "RandomForestClassifier", _FOREST + "RandomForestRegressor",
    _FOREST + "ExtraTreesClassifier", _FOREST + "ExtraTreesRegressor", _GB + "GradientBoostingClassifier",
    _GB + "GradientBoostingRegressor", _HGB + "gradient_boosting.HistGradientBoostingClassifier",
    _HGB + "gradient_boosting.HistGradientBoostingRegressor",
    "sklearn.ensemble._weight_boosting.AdaBoostClassifier", "sklearn.ensemble._weight_boosting.AdaBoostRegressor",
})
_LOSSES = ("AbsoluteError", "ExponentialLoss", "HalfBinomialLoss", "HalfGammaLoss", "HalfMultinomialLoss",
           "HalfPoissonLoss", "HalfSquaredError", "HalfTweedieLoss", "HalfTweedieLossIdentity", "HuberLoss",
           "PinballLoss")
#: Every type a trusted file may name: the estimators, their trees, losses, links, initial estimators,
#: random states, numpy arrays and scalars, and Python's containers.
TRUSTED = ESTIMATORS | frozenset(
    {"sklearn.tree._tree.Tree", _HGB + "predictor.TreePredictor", _HGB + "binning._BinMapper",
     "sklearn.dummy.DummyClassifier", "sklearn.dummy.DummyRegressor", "sklearn.preprocessing._label.LabelEncoder",
     "sklearn._loss.link.Interval", "sklearn._loss.link.IdentityLink", "sklearn._loss.link.LogLink",
     "sklearn._loss.link.LogitLink", "sklearn._loss.link.HalfLogitLink", "sklearn._loss.link.MultinomialLogit",
     "numpy.ndarray", "numpy.dtype", "numpy.random.mtrand.RandomState", "numpy.random._generator.Generator",
     "numpy.random._pcg64.PCG64", "numpy.random._mt19937.MT19937", "builtins.dict", "builtins.list",
     "builtins.tuple", "builtins.str", "builtins.int", "builtins.float", "builtins.bool", "builtins.NoneType",
     "builtins.slice", "builtins.set"}
    | {f"numpy.{t}" for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                              "float32", "float64", "bool_", "str_")}
    | {f"sklearn._loss.loss.{name}" for name in _LOSSES} | {f"sklearn._loss._loss.Cy{name}" for name in _LOSSES})
#: skops's node kinds that rebuild data or trusted objects (never a function or an operator call).
LOADERS = frozenset({"DictNode", "ListNode", "TupleNode", "SetNode", "JsonNode", "NdArrayNode", "ObjectNode",
                     "TreeNode", "LossNode", "RandomStateNode", "RandomGeneratorNode", "TypeNode", "SliceNode",
                     "SparseMatrixNode"})


def is_skops(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04" and b"schema.json" in data


def _schema(data: bytes) -> dict:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if "schema.json" not in z.namelist():
                raise DataError("This zip file is not a skops model file (it has no schema.json).")
            info = z.getinfo("schema.json")
            if info.file_size > 64 * 2**20:
                raise DataError("The skops file's schema is larger than 64 MB, more than the explorer reads.")
            text = z.read("schema.json")
            check_json_size(text, "skops file's schema")
            schema = json.loads(text)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        raise DataError("The skops model file is damaged or cut short: it could not be read as a whole.") from None
    if not isinstance(schema, dict):
        raise DataError("The skops model file is damaged: its schema is not an object.")
    return schema


def named_types(schema) -> tuple[set[str], set[str]]:
    """(every ``module.Class`` the schema names, every skops loader it uses), read without loading."""
    types, loaders, stack = set(), set(), [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "__module__" in item and "__class__" in item:
                types.add(f"{item['__module__']}.{item['__class__']}")
            if "__loader__" in item:
                loaders.add(str(item["__loader__"]))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return types, loaders


def check_trusted(data: bytes) -> set[str]:
    """The types to trust when loading ``data``; a DataError sentence when any is outside the lists."""
    schema = _schema(data)
    top = f"{schema.get('__module__')}.{schema.get('__class__')}"
    if top not in ESTIMATORS:
        raise DataError(f"This skops file holds a {str(schema.get('__class__'))[:80]}, not one of the scikit-learn "
                        "tree models the explorer opens (decision trees, random forests, extra trees, gradient "
                        "boosting, histogram gradient boosting, AdaBoost); it was not loaded.")
    types, loaders = named_types(schema)
    try:
        import skops.io as sio
    except ImportError:  # pragma: no cover - skops is in requirements.txt
        raise ConfigError("Opening scikit-learn models needs the 'skops' package: pip install skops.") from None
    try:
        types |= set(sio.get_untrusted_types(data=data))
    except Exception:                                        # skops's own parse of a damaged file
        raise DataError("The skops model file is damaged or cut short: it could not be read as a whole.") from None
    bad = sorted(types - TRUSTED) + sorted(f"a {name} step" for name in loaders - LOADERS)
    if bad:
        raise DataError(f"This skops file holds types outside the explorer's trusted list ({', '.join(bad[:3])}"
                        f"{', ...' if len(bad) > 3 else ''}), so it was not loaded.")
    return types


def read_skops(data: bytes) -> ImportedModel:
    """The ImportedModel of a skops file of a trusted scikit-learn tree estimator."""
    data = unpacked_copy(data)                  # sizes checked, members unpacked under a cap, stored
    trusted = check_trusted(data)
    import skops.io as sio
    try:
        estimator = sio.loads(data, trusted=sorted(trusted))
    except DataError:
        raise
    except Exception:
        raise DataError("The skops model file could not be loaded: it is damaged or was written by a "
                        "scikit-learn version this one cannot read.") from None
    return convert(estimator)
