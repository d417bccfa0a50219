"""The bundled data sets in ``sample_data/``: file, target, task and what each one is good for.

Provenance and licences are in ``sample_data/README.md``. ``engine.data.load_sample(name)`` loads one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Folder of the bundled CSV files (next to the ``engine`` package).
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


@dataclass(frozen=True)
class SampleInfo:
    """One bundled data set: ``file`` in ``sample_data/``, its ``target`` and ``task``, and the
    algorithm (``"id3" | "c45" | "cart"``) whose textbook example it is."""

    name: str
    file: str
    target: str
    description: str
    task: str
    algorithm: str
    rows: int
    features: int


_SAMPLES = (
    SampleInfo("play_tennis", "play_tennis.csv", "Play",
               "Mitchell's 14 days of tennis (Table 3.2): four categorical features, the ID3 classic.",
               "classification", "id3", 14, 4),
    SampleInfo("play_tennis_day", "play_tennis_day.csv", "Play",
               "The same 14 days with a Day column (D1..D14): shows why an id column is ignored.",
               "classification", "id3", 14, 4),
    SampleInfo("play_tennis_numeric", "play_tennis_numeric.csv", "Play",
               "Quinlan's C4.5 weather data: numeric Temperature and Humidity need thresholds.",
               "classification", "c45", 14, 4),
    SampleInfo("golf", "golf.csv", "Play",
               "Quinlan's golf data as C4.5 (ch. 3) uses it: one outlook unknown, a case with fractional weights.",
               "classification", "c45", 14, 4),
    SampleInfo("restaurant", "restaurant.csv", "WillWait",
               "Russell & Norvig's 12 restaurant visits (AIMA Fig. 18.3): will we wait for a table?",
               "classification", "id3", 12, 10),
    SampleInfo("ski", "ski.csv", "Skiing",
               "Month x altitude -> good/bad skiing: two numeric features with boxes you can see.",
               "classification", "cart", 80, 2),
    SampleInfo("iris", "iris.csv", "species",
               "Fisher's iris flowers: 150 rows, four measurements, three species.",
               "classification", "cart", 150, 4),
    SampleInfo("titanic_small", "titanic_small.csv", "survived",
               "A synthetic Titanic-like passenger list with missing values (C4.5's fractional rows).",
               "classification", "c45", 200, 6),
    SampleInfo("noisy_moons", "noisy_moons.csv", "label",
               "Two interleaved half-moons with 20% flipped labels: watch a deep tree overfit.",
               "classification", "cart", 400, 2),
    SampleInfo("wine", "wine.csv", "cultivar",
               "Wine recognition: 13 chemical measurements of 178 wines from three cultivars.",
               "classification", "cart", 178, 13),
    SampleInfo("breast_cancer", "breast_cancer.csv", "diagnosis",
               "Wisconsin breast cancer: 30 cell measurements, malignant or benign (569 rows).",
               "classification", "cart", 569, 30),
    SampleInfo("diabetes", "diabetes.csv", "progression",
               "Diabetes progression after one year (regression): 442 patients; age, sex, BMI, blood "
               "pressure and six blood serum values.",
               "regression", "cart", 442, 10),
)

#: name -> :class:`SampleInfo`, in the order the app lists them.
SAMPLES: dict[str, SampleInfo] = {s.name: s for s in _SAMPLES}


def sample_path(info: SampleInfo) -> Path:
    """Path of a sample's CSV file."""
    return SAMPLE_DIR / info.file
