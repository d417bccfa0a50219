"""Generate ``titanic_small.csv``: a SYNTHETIC Titanic-like passenger list with missing values.

Not real passengers: 200 rows drawn with ``numpy.random.default_rng(1912)`` so that survival
depends on sex, class and age the way it famously did (women and children first, first class
before third). Missing values are written three ways, as real files do: an empty cell (age), ``?``
(embarked, deck) and ``NA`` (fare), so the C4.5 missing-value handling has something to do.
Run from the repository root: ``python sample_data/make_titanic_small.py``.
"""

from pathlib import Path

import numpy as np
import pandas as pd

SEED, ROWS = 1912, 200


def make(rows: int = ROWS, seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    pclass = rng.choice([1, 2, 3], size=rows, p=[0.25, 0.2, 0.55])
    sex = rng.choice(["female", "male"], size=rows, p=[0.36, 0.64])
    age = np.clip(np.round(rng.normal(30, 14, size=rows)), 1, 75)
    sibsp = rng.choice([0, 1, 2, 3], size=rows, p=[0.65, 0.25, 0.07, 0.03])
    base_fare = np.array([0, 85.0, 22.0, 9.0])[pclass]
    fare = np.round(base_fare * rng.lognormal(0, 0.35, size=rows), 2)
    embarked = rng.choice(["S", "C", "Q"], size=rows, p=[0.7, 0.2, 0.1])
    score = (2.2 * (sex == "female") - 0.9 * (pclass - 2) + 1.5 * (age < 12) - 0.3 * sibsp - 1.0
             + rng.normal(0, 0.8, size=rows))
    survived = np.where(score > 0, "yes", "no")
    frame = pd.DataFrame({"pclass": pclass, "sex": sex, "age": age.astype(object), "sibsp": sibsp,
                          "fare": fare.astype(object), "embarked": embarked.astype(object),
                          "survived": survived})
    frame.loc[rng.random(rows) < 0.18, "age"] = ""
    frame.loc[rng.random(rows) < 0.04, "embarked"] = "?"
    frame.loc[rng.random(rows) < 0.05, "fare"] = "NA"
    frame["age"] = [a if a == "" else str(int(a)) for a in frame["age"]]
    return frame


if __name__ == "__main__":
    make().to_csv(Path(__file__).resolve().parent / "titanic_small.csv", index=False)
