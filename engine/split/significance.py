"""Chi-square test of a split's contingency table (children x classes), without scipy.

For observed weighted counts :math:`O_{ck}` with row sums :math:`r_c`, column sums :math:`s_k` and total
:math:`N`, the expected counts are :math:`E_{ck} = r_c s_k / N` and

.. math:: \\chi^2 = \\sum_{c,k} (O_{ck} - E_{ck})^2 / E_{ck},

with :math:`(R-1)(C-1)` degrees of freedom over the non-empty rows and columns. The p-value is the
upper tail :math:`Q(\\text{dof}/2, \\chi^2/2)` of the regularised incomplete gamma function.
"""

from __future__ import annotations

import math

import numpy as np


def gammaincc(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) (series / continued fraction, Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        ap, term = a, 1.0 / a
        total = term
        for _ in range(1000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return min(1.0, math.exp(log_prefactor) * h)


def chi2_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X ~ chi-square with ``dof`` degrees of freedom."""
    if dof <= 0:
        return 1.0
    return gammaincc(dof / 2.0, statistic / 2.0)


def chi2_test(table) -> tuple[float, int, float]:
    """Pearson's chi-square statistic, degrees of freedom and p-value of a contingency table."""
    t = np.asarray(table, dtype=float)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    if t.shape[0] < 2 or t.shape[1] < 2:
        return 0.0, 0, 1.0
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / t.sum()
    stat = float(((t - expected) ** 2 / expected).sum())
    dof = (t.shape[0] - 1) * (t.shape[1] - 1)
    return stat, dof, chi2_sf(stat, dof)
