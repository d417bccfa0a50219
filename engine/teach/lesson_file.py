"""A teacher's lesson file (``.dtx``): bytes <-> :class:`LessonFile`, checked piece by piece, never run.

The file is a zip archive of exactly two members:

- ``lesson.json``: ``{"format": "dtx-lesson", "version": 1, ...}`` with the title, the description, the
  data's name, target, task, column kinds, split and seed, the tree settings (``TreeConfig.to_dict``),
  the tree's history as a list of actions (``["step"]``, ``["step", node]``, ``["expand", node, test]``,
  ``["collapse", node]``; an undone action is simply not in the list, as in ``Grower``'s own log), the
  step to open at, the classroom switches (presenter view, quiz, narration language), the teacher's
  notes per step (keyed by the number of steps taken: ``"2"`` is shown after the second step), and what
  the replayed tree must look like (``check``: node counts and splits);
- ``data.csv``: the table as loaded (UTF-8 CSV, text cells that a spreadsheet would run as a formula
  written with a leading apostrophe, as every CSV download of the app).

Reading (:func:`read_lesson`) is defensive: a file larger than the upload limit, not a zip, with other
members, encrypted, a member that unpacks beyond its limit (a zip bomb), JSON that is not valid, too
deep, of the wrong types, too long texts, a newer version: each raises :class:`DataError` with one
sentence. No pickle and no code: JSON and CSV only. The data inside is checked like an upload when the
lesson is replayed (:mod:`engine.teach.lesson_replay`).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass, field

from engine.config import TreeConfig
from engine.data.textio import MAX_UNPACKED_BYTES
from engine.errors import ConfigError, DataError

FORMAT, VERSION = "dtx-lesson", 1
MANIFEST, DATA = "lesson.json", "data.csv"
SUFFIX = ".dtx"
MAX_FILE_BYTES = 200 << 20  # .streamlit/config.toml server.maxUploadSize (MB)
MAX_DATA_BYTES = MAX_UNPACKED_BYTES  # an uploaded .gz may unpack to this much, the lesson's table too
MAX_MANIFEST_BYTES = 4 << 20
MAX_TITLE, MAX_DESCRIPTION, MAX_NOTE, MAX_NAME = 200, 4_000, 1_000, 300
MAX_ACTIONS = 20_000
MAX_DEPTH = 12  # JSON nesting: the manifest's deepest list is 5 levels down
LANGS = ("en", "de")
ACTIONS = ("step", "expand", "collapse")
TEST_KINDS = ("threshold", "multiway", "subset", "equals")
BAD = "This is not a lesson file this app wrote"


@dataclass(frozen=True)
class LessonFile:
    """Everything a lesson file holds (see the module docstring); ``data_csv`` is the table's CSV bytes."""

    title: str
    description: str
    dataset_name: str
    data_csv: bytes = field(repr=False)
    target: str
    task: str
    kinds: dict
    split: dict
    seed: int
    config: TreeConfig
    actions: tuple
    open_at: int
    features: tuple | None = None
    presenter: bool = False
    quiz: bool = False
    lang: str = "en"
    notes: dict = field(default_factory=dict)
    check: dict = field(default_factory=dict, repr=False)

    def manifest(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "title": self.title, "description": self.description,
                "data": {"name": self.dataset_name, "target": self.target, "task": self.task,
                         "kinds": dict(self.kinds), "split": dict(self.split), "seed": int(self.seed),
                         "features": None if self.features is None else list(self.features)},
                "config": _config_json(self.config), "history": [list(a) for a in self.actions],
                "open_at": int(self.open_at),
                "classroom": {"presenter": bool(self.presenter), "quiz": bool(self.quiz), "lang": self.lang},
                "notes": {str(k): v for k, v in sorted(self.notes.items())}, "check": self.check}


def _config_json(cfg: TreeConfig) -> dict:
    out = cfg.to_dict()
    if out.get("c45_rules") is not None:
        out["c45_rules"] = list(out["c45_rules"])
    return out


def write_lesson(lesson: LessonFile) -> bytes:
    """The ``.dtx`` bytes of ``lesson`` (deflated zip: the manifest, then the table)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        zf.writestr(MANIFEST, json.dumps(lesson.manifest(), ensure_ascii=False, allow_nan=False))
        zf.writestr(DATA, lesson.data_csv)
    return buf.getvalue()


# ------------------------------------------------------------------------------------------ reading
def read_lesson(data, *, max_data_bytes: int = MAX_DATA_BYTES, with_data: bool = True) -> LessonFile:
    """The lesson in ``data`` (the file's bytes), every field checked; raises DataError with one sentence.

    ``with_data=False`` (a shelf's listing): the table is not unpacked (``data_csv`` is empty); its declared
    size is still checked."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError("A lesson file must be given as the file's bytes.")
    data = bytes(data)
    if len(data) > MAX_FILE_BYTES:
        raise DataError(f"The lesson file is larger than {MAX_FILE_BYTES >> 20} MB, the upload limit.")
    if not data:
        raise DataError("The lesson file is empty.")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            manifest_bytes, csv_bytes = _members(zf, max_data_bytes, with_data)
    except zipfile.BadZipFile:
        raise DataError(f"{BAD}: it is not a complete .dtx archive (damaged or cut short).") from None
    except (zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, ValueError, RuntimeError):
        raise DataError(f"{BAD}: its archive cannot be read (damaged, or packed in a way this app does not "
                        "use).") from None
    try:
        manifest = json.loads(manifest_bytes.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DataError(f"{BAD}: its {MANIFEST} is not valid JSON.") from None
    if _depth(manifest) > MAX_DEPTH:
        raise DataError(f"{BAD}: its {MANIFEST} is nested deeper than a lesson ever is.")
    return _from_manifest(manifest, csv_bytes)


def _no_constant(name):
    raise ValueError(name)  # NaN / Infinity are not JSON and never written here


def _members(zf: zipfile.ZipFile, max_data_bytes: int, with_data: bool = True) -> tuple[bytes, bytes]:
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if sorted(names) != sorted((MANIFEST, DATA)):
        raise DataError(f"{BAD}: a lesson holds exactly {MANIFEST} and {DATA}, this archive holds "
                        f"{len(names)} other or extra members.")
    out = {}
    for info in infos:
        if info.flag_bits & 0x1:
            raise DataError(f"{BAD}: its members are encrypted.")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise DataError(f"{BAD}: its members are packed in a way this app does not use.")
        limit = MAX_MANIFEST_BYTES if info.filename == MANIFEST else max_data_bytes
        if info.file_size > limit:
            raise DataError(f"The lesson's {info.filename} unpacks to more than {_mb(limit)}, the limit.")
        if info.filename == DATA and not with_data:
            out[DATA] = b""
            continue
        with zf.open(info) as f:  # read in pieces: a member whose header understates its size stops here
            parts, total = [], 0
            while True:
                piece = f.read(1 << 20)
                if not piece:
                    break
                total += len(piece)
                if total > limit:
                    raise DataError(f"The lesson's {info.filename} unpacks to more than {_mb(limit)}, the limit.")
                parts.append(piece)
        out[info.filename] = b"".join(parts)
    return out[MANIFEST], out[DATA]


def _mb(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MB"


def _depth(value, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def _get(d: dict, key: str, kind, where: str, *, limit: int | None = None, none: bool = False):
    """``d[key]`` when it has the type ``kind`` (and at most ``limit`` characters); else a sentence."""
    value = d.get(key)
    if value is None and none:
        return None
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise DataError(f"{BAD}: '{key}' in {where} is missing or of the wrong type.")
    if limit is not None and len(value) > limit:
        raise DataError(f"{BAD}: '{key}' in {where} is longer than {limit:,} characters.")
    return value


def _from_manifest(m, csv_bytes: bytes) -> LessonFile:
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise DataError(f"{BAD}: its {MANIFEST} does not say it is a lesson.")
    version = m.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise DataError(f"{BAD}: its format version is missing or not a whole number.")
    if version > VERSION:
        raise DataError(f"This lesson file was written by a newer version of the app (format {version}; this app "
                        f"reads up to {VERSION}): update the app to open it.")
    d = _get(m, "data", dict, "the lesson")
    kinds = _get(d, "kinds", dict, "data")
    if len(kinds) > 1_000 or not all(isinstance(k, str) and len(k) <= MAX_NAME and v in ("numeric", "categorical",
                                     "ignore") for k, v in kinds.items()):
        raise DataError(f"{BAD}: the column kinds are not column names with numeric, categorical or ignore.")
    split = _get(d, "split", dict, "data")
    split = {"test_size": _get(split, "test_size", float, "split"),
             "validation_size": _get(split, "validation_size", float, "split"),
             "seed": _get(split, "seed", int, "split")}
    features = _get(d, "features", list, "data", none=True)
    if features is not None and (len(features) != 2 or not all(isinstance(f, str) and len(f) <= MAX_NAME
                                                                  for f in features)):
        raise DataError(f"{BAD}: the two-feature choice is not two column names.")
    try:
        config = TreeConfig.from_dict(_config_from_json(_get(m, "config", dict, "the lesson")))
    except (ConfigError, TypeError) as err:
        raise DataError(f"The lesson's tree settings are not valid: {err}") from None
    room = _get(m, "classroom", dict, "the lesson")
    lang = _get(room, "lang", str, "classroom", limit=5)
    if lang not in LANGS:
        raise DataError(f"{BAD}: the narration language '{lang}' is not one of {', '.join(LANGS)}.")
    actions = _actions(_get(m, "history", list, "the lesson"))
    open_at = _get(m, "open_at", int, "the lesson")
    if not 0 <= open_at <= len(actions):
        raise DataError(f"The lesson opens at step {open_at}, but its history has {len(actions)} steps.")
    return LessonFile(
        title=_get(m, "title", str, "the lesson", limit=MAX_TITLE),
        description=_get(m, "description", str, "the lesson", limit=MAX_DESCRIPTION),
        dataset_name=_get(d, "name", str, "data", limit=MAX_NAME), data_csv=csv_bytes,
        target=_get(d, "target", str, "data", limit=MAX_NAME), task=_get(d, "task", str, "data", limit=20),
        kinds=dict(kinds), split=split, seed=_get(d, "seed", int, "data"), config=config, actions=actions,
        open_at=open_at, features=None if features is None else tuple(features),
        presenter=_get(room, "presenter", bool, "classroom"), quiz=_get(room, "quiz", bool, "classroom"), lang=lang,
        notes=_notes(_get(m, "notes", dict, "the lesson"), len(actions)), check=_get(m, "check", dict, "the lesson"))


def _config_from_json(d: dict) -> dict:
    out = dict(d)
    if isinstance(out.get("c45_rules"), list):
        out["c45_rules"] = tuple(out["c45_rules"])
    for name, value in out.items():  # TreeConfig checks ranges; JSON must not smuggle other types in
        if not (value is None or isinstance(value, (str, int, float, bool, tuple))):
            raise DataError(f"The lesson's tree setting '{str(name)[:40]}' is not a plain value.")
        if isinstance(value, float) and not math.isfinite(value):
            raise DataError(f"The lesson's tree setting '{str(name)[:40]}' is not a finite number.")
    return out


def _node(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 10 * MAX_ACTIONS:
        raise DataError(f"{BAD}: a step of its history names no valid node.")
    return value


def _actions(history: list) -> tuple:
    if len(history) > MAX_ACTIONS:
        raise DataError(f"The lesson's history has {len(history):,} steps; at most {MAX_ACTIONS:,} are supported.")
    out = []
    for a in history:
        if not isinstance(a, list) or not a or a[0] not in ACTIONS:
            raise DataError(f"{BAD}: step {len(out) + 1} of its history is not a step, forced split or collapse.")
        if a[0] == "step" and len(a) in (1, 2):
            out.append(("step",) if len(a) == 1 else ("step", _node(a[1])))
        elif a[0] == "collapse" and len(a) == 2:
            out.append(("collapse", _node(a[1])))
        elif a[0] == "expand" and len(a) == 3 and isinstance(a[2], dict):
            out.append(("expand", _node(a[1]), _test(a[2])))
        else:
            raise DataError(f"{BAD}: step {len(out) + 1} of its history has the wrong shape.")
    return tuple(out)


def _test(t: dict) -> dict:
    """A forced split's test: feature, kind, threshold (numeric) or categories (the values going left)."""
    kind = _get(t, "kind", str, "a forced split", limit=20)
    if kind not in TEST_KINDS:
        raise DataError(f"{BAD}: a forced split has the unknown kind '{kind}'.")
    threshold = _get(t, "threshold", float, "a forced split", none=True)
    if threshold is not None and not math.isfinite(threshold):
        raise DataError(f"{BAD}: a forced split's threshold is not a finite number.")
    cats = _get(t, "categories", list, "a forced split")
    if len(cats) > 1_000 or not all(isinstance(c, str) and len(c) <= MAX_NAME for c in cats):
        raise DataError(f"{BAD}: a forced split's values are not a short list of texts.")
    return {"feature": _get(t, "feature", str, "a forced split", limit=MAX_NAME), "kind": kind,
            "threshold": threshold, "categories": list(cats)}


def _notes(notes: dict, n_actions: int) -> dict:
    out = {}
    for key, text in notes.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) <= n_actions and isinstance(text, str)):
            raise DataError(f"{BAD}: its notes are not texts attached to steps of its history.")
        if len(text) > MAX_NOTE:
            raise DataError(f"The lesson's note at step {int(key)} is longer than {MAX_NOTE:,} characters.")
        out[int(key)] = text
    return out
