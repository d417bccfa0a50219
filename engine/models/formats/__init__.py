"""Readers of model files written by scikit-learn (``skops``) and by ONNX converters (``onnx``).

Both formats hold trees whose tests compare numbers the way their runtimes do (float32 for
scikit-learn trees and most ONNX files), so :mod:`~engine.models.formats.floats` turns those tests into
the engine's exact ``x <= t`` on float64. :mod:`~engine.models.formats.onnx_model` reads
``TreeEnsembleClassifier``/``TreeEnsembleRegressor`` graphs (including the files this app exports);
:mod:`~engine.models.formats.skops_model` opens ``skops.io`` files with an explicit list of trusted
scikit-learn types and refuses any other type without loading it. Each offers ``is_*`` (the sniffer)
and ``read_*`` (the reader) for :data:`engine.models.load.READERS`. Beside them, the pieces a reader
shares: :mod:`~engine.models.formats.onnx_tensors` (every tensor checked before one is read: no external
data), :mod:`~engine.models.formats.zipped` (a skops zip unpacked under a cap) and
:mod:`~engine.models.formats.ubjson` (the bounded UBJSON decoder of XGBoost's binary files).
"""

from engine.models.formats.onnx_model import is_onnx, read_onnx
from engine.models.formats.skops_model import TRUSTED, is_skops, read_skops

__all__ = ["is_onnx", "read_onnx", "is_skops", "read_skops", "TRUSTED"]
