"""The bootstrap draw of one ensemble member, regenerated from its seed wherever it is needed.

Bagging draws each member's rows with it, and an :class:`~engine.ensembles.votes.Ensemble` draws them
again to show a member's sample, so both import it from here.
"""

from __future__ import annotations

import numpy as np

__all__ = ["draw_bootstrap"]


def draw_bootstrap(n_rows: int, n_draws: int, seed: int) -> np.ndarray:
    """The bootstrap sample of one member: ``n_draws`` row indices in 0..n_rows-1, with replacement."""
    return np.random.default_rng(int(seed)).integers(0, n_rows, size=int(n_draws))
