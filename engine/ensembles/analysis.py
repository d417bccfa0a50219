"""Why ensembles help: the ensemble-size curve and the variance argument, from stored predictions.

**Size curve.** For M' = 1..M the score of the vote of the first M' members on the training rows,
on other labelled rows (e.g. the test rows) and out of bag. Members' predictions are computed once and
the votes accumulated member by member, so nothing is refitted.

**Variance argument.** Let :math:`e_m(x)` be member m's *error variable* on row x: the 0-1 loss
:math:`[h_m(x) \\ne y]` for classification, the residual :math:`f_m(x) - y` for regression. Treat the
rows as draws of x, so :math:`e_m` is a random variable with variance :math:`\\sigma_m^2` (over the
rows); let :math:`\\sigma^2 = \\frac1M\\sum_m \\sigma_m^2` (a single member's error variance) and
:math:`\\rho` the average Pearson correlation of :math:`e_m` and :math:`e_l` over all pairs m < l.
The ensemble averages the members, so its error variable is :math:`\\bar e(x) = \\frac1M \\sum_m e_m(x)`
(for classification: the share of members that are wrong; the majority vote errs where it exceeds
1/2). Then

.. math:: \\operatorname{Var}(\\bar e) = \\frac{1}{M^2}\\sum_{m,l}\\operatorname{Cov}(e_m, e_l)
          = \\rho\\sigma^2 + \\frac{1-\\rho}{M}\\sigma^2

exactly when all members have the same variance and every pair the same correlation; otherwise the
right-hand side is an approximation, so both the measured variance and the formula are reported. The
second term vanishes as M grows; only the correlated part :math:`\\rho\\sigma^2` stays, which is why
random forests decorrelate their trees. (AdaBoost's members are weighted; this uses the plain average.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.checks import rows as check_rows
from engine.errors import DataError
from engine.ensembles.forest import _targets
from engine.ensembles.votes import Ensemble, score


def size_curve(ensemble: Ensemble, test=None) -> pd.DataFrame:
    """Score against the number of members: columns n_members, train, test (if given), oob (if the
    ensemble bootstrapped), metric ("accuracy" or "mse")."""
    k = ensemble.n_members
    w = ensemble.weights
    cls = ensemble.task == "classification"
    sets = {"train": (ensemble.train_outputs, ensemble.train_y)}
    if check_rows("test", test, allow_none=True) is not None and len(test):
        sets["test"] = (ensemble.member_outputs(test), _targets(ensemble, test))
    out = {"n_members": np.arange(1, k + 1)}
    for name, (outputs, y) in sets.items():
        n = y.size
        votes = np.zeros((n, len(ensemble.classes))) if cls else np.zeros((n, 2))
        scores = np.empty(k)
        rows = np.arange(n)
        for m in range(k):
            if cls:
                votes[rows, outputs[m]] += w[m]
            else:
                votes[:, 0] += w[m] * outputs[m]
                votes[:, 1] += w[m]
            scores[m] = score(ensemble.task, y, ensemble.combine(votes))
        out[name] = scores
    if ensemble.in_bag is not None:
        y = ensemble.train_y
        votes = np.zeros((y.size, len(ensemble.classes))) if cls else np.zeros((y.size, 2))
        scores = np.empty(k)
        for m in range(k):
            rows = np.flatnonzero(ensemble.in_bag[m] == 0)
            if cls:
                votes[rows, ensemble.train_outputs[m, rows]] += w[m]
                has = votes.sum(1) > 0
            else:
                votes[rows, 0] += w[m] * ensemble.train_outputs[m, rows]
                votes[rows, 1] += w[m]
                has = votes[:, 1] > 0
            scores[m] = score(ensemble.task, y[has], ensemble.combine(votes[has])) if has.any() else np.nan
        out["oob"] = scores
    frame = pd.DataFrame(out)
    frame["metric"] = "accuracy" if cls else "mse"
    return frame


@dataclass(frozen=True)
class VarianceReport:
    """The variance argument measured on some rows (see the module docstring)."""

    n_members: int
    sigma2: float          # mean over members of the variance of a member's error variable
    rho: float             # mean pairwise correlation of the members' error variables
    measured: float        # variance of the averaged error variable
    predicted: float       # rho * sigma2 + (1 - rho) / M * sigma2
    curve: pd.DataFrame    # the same for the first M' members: n_members, sigma2, rho, measured, predicted

    def arithmetic(self) -> str:
        return (f"ρσ² + (1−ρ)/M·σ² = {self.rho:.3f}·{self.sigma2:.4f} + ({1 - self.rho:.3f}/{self.n_members})"
                f"·{self.sigma2:.4f} = {self.predicted:.4f}  (measured: {self.measured:.4f})")


def error_matrix(ensemble: Ensemble, data) -> np.ndarray:
    """(M, n) error variables e_m(x): 0/1 loss (classification) or residual (regression)."""
    outputs = ensemble.member_outputs(data)
    y = _targets(ensemble, data)
    if ensemble.task == "classification":
        return (outputs != y[None, :]).astype(float)
    return outputs - y[None, :]


def error_correlation(ensemble: Ensemble, data) -> VarianceReport:
    """Measured variance of the averaged error vs rho*sigma^2 + (1-rho)/M*sigma^2 on ``data``'s rows."""
    E = error_matrix(ensemble, data)
    k, n = E.shape
    if n < 2:
        raise DataError("The variance argument needs at least two labelled rows.")
    var = E.var(axis=1)
    centred = E - E.mean(axis=1, keepdims=True)
    cov = centred @ centred.T / n
    sd = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(sd, sd)
    valid = np.outer(sd > 0, sd > 0)
    iu = np.triu_indices(k, 1)
    # prefix sums over pairs (m < l < M'): correlation sums and counts, and covariance sums
    pair_corr = np.zeros((k, k))
    pair_corr[iu] = np.where(valid[iu], corr[iu], 0.0)
    pair_cnt = np.zeros((k, k))
    pair_cnt[iu] = valid[iu]
    corr_sum = np.cumsum(pair_corr.sum(axis=0))   # pairs with l < M' (columns up to M'-1)
    cnt_sum = np.cumsum(pair_cnt.sum(axis=0))
    m = np.arange(1, k + 1)
    sigma2 = np.cumsum(var) / m
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(cnt_sum > 0, corr_sum / np.maximum(cnt_sum, 1), np.nan)
    measured = np.cumsum(2 * np.tril(cov, -1).sum(axis=1) + np.diag(cov)) / m**2  # sum of cov[:M', :M']
    rho_used = np.where(np.isnan(rho), 0.0, rho)
    predicted = rho_used * sigma2 + (1 - rho_used) / m * sigma2
    curve = pd.DataFrame({"n_members": m, "sigma2": sigma2, "rho": rho, "measured": measured,
                          "predicted": predicted})
    last = curve.iloc[-1]
    return VarianceReport(k, float(last.sigma2), float(rho_used[-1]), float(last.measured),
                          float(last.predicted), curve)
