"""Copy four classic data sets out of scikit-learn's bundled files into CSVs (run once at dev time).

scikit-learn is a development-only dependency: the app reads the CSVs, never scikit-learn.
Run from the repository root: ``python sample_data/export_sklearn.py``.
"""

from pathlib import Path

import pandas as pd
from sklearn import datasets

HERE = Path(__file__).resolve().parent


def snake(name: str) -> str:
    return "_".join(name.replace("(cm)", "").split())


def main() -> None:
    iris = datasets.load_iris(as_frame=True)
    frame = iris.data.rename(columns=lambda c: snake(c))
    frame["species"] = iris.target.map(dict(enumerate(iris.target_names)))
    frame.to_csv(HERE / "iris.csv", index=False, float_format="%.10g")

    wine = datasets.load_wine(as_frame=True)
    frame = wine.data.rename(columns=snake)
    frame["cultivar"] = wine.target.map(dict(enumerate(wine.target_names)))
    frame.to_csv(HERE / "wine.csv", index=False, float_format="%.10g")

    cancer = datasets.load_breast_cancer(as_frame=True)
    frame = cancer.data.rename(columns=snake)
    frame["diagnosis"] = cancer.target.map(dict(enumerate(cancer.target_names)))
    frame.to_csv(HERE / "breast_cancer.csv", index=False, float_format="%.10g")

    diabetes = datasets.load_diabetes(as_frame=True, scaled=False)
    frame = diabetes.data.copy()
    frame["progression"] = diabetes.target
    frame.to_csv(HERE / "diabetes.csv", index=False, float_format="%.10g")


if __name__ == "__main__":
    main()
