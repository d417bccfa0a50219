"""The gain table of a data set's root (or any node), growing a :class:`Grower` for it when needed.

:func:`engine.split.gain.gain_table_for` reads a table off a Grower; this entry point takes either a
Grower or a data set and settings, so it lives beside the Grower it builds.
"""

from __future__ import annotations

import pandas as pd

from engine.grow.grower import Grower
from engine.split.gain import gain_table_for

__all__ = ["gain_table"]


def gain_table(data, config=None, node: int | None = None, all_candidates: bool = False) -> pd.DataFrame:
    """Gain table of the root (or ``node``) of a dataset (grown with ``config``) or of a Grower."""
    grower = data if isinstance(data, Grower) else Grower(data, config)
    return gain_table_for(grower, 0 if node is None else node, all_candidates=all_candidates)
