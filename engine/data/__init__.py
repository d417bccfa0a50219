"""Reading uploads and building data sets: the first floor of the engine, below everything else.

A CSV (path, bytes or upload; any common encoding, delimiter, decimal comma or gzip) becomes a
:class:`Dataset` with a typed :class:`FeatureSchema`, a target and a task; :meth:`Dataset.split` and
:func:`kfold_indices` deal its rows into parts. Modules: ``dataset`` (Dataset, DataSplit, load_csv,
load_sample), ``textio`` (bytes to text), ``sizes`` (the
longest cell and line, checked before parsing), ``csvio`` (text to columns), ``columns`` (kinds and cleaning),
``build`` (Dataset construction), ``rows`` (the learners' matrix without copies), ``schema``,
``samples`` (the bundled CSVs) and ``folds``.
"""

from engine.data.dataset import SAMPLES, Dataset, DataSplit, SampleInfo, load_csv, load_sample
from engine.data.folds import kfold_indices
from engine.data.schema import FeatureSchema

__all__ = [
    "SAMPLES", "Dataset", "DataSplit", "SampleInfo", "load_csv", "load_sample", "kfold_indices",
    "FeatureSchema",
]
