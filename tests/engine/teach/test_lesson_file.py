"""Lesson files (engine.teach.lesson_file / lesson_replay): a round trip replays the same tree, and 25 hostile or
broken files each give one sentence (DataError), never an exception of another kind."""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest

from engine.config import TreeConfig
from engine.data.dataset import load_csv, load_sample
from engine.errors import DataError
from engine.grow.grower import Grower
from engine.split.records import Split
from engine.teach import lesson_file
from engine.teach.lesson_file import DATA, MANIFEST, read_lesson, write_lesson
from engine.teach.lesson_replay import apply_action, make_lesson, replay, step_mark

CSV = (b"outlook,temp,humid,note,play\n" + b"\n".join(
    f"{o},{t},{h},{n},{p}".encode() for o, t, h, n, p in zip(
        ["sunny", "sunny", "rain", "overcast", "rain", "rain", "overcast", "sunny", "sunny", "rain", "sunny",
         "overcast", "overcast", "rain"] * 3,
        np.linspace(60, 90, 42).round(1), np.linspace(95, 60, 42).round(1),
        ["=SUM(A1)", "plain", "-3 apples", "@x", "ok", "ok", "ok"] * 6,
        ["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"] * 3)) + b"\n")


def _present(g, node, feature):
    rows, _ = g.node_rows(node)
    cats = list(g.dataset.categories[feature])
    return sorted(set(g.dataset.frame[feature].iloc[rows]), key=cats.index)


def _grower():
    loaded = load_csv(CSV)
    ds = loaded.with_kinds({"note": "categorical"})
    settings = {"test_size": 0.25, "validation_size": 0.0, "seed": 4}
    split = ds.split(**settings)
    g = Grower(split.train, TreeConfig(algorithm="cart"))
    g.step()
    node, feature, present = next((n, f, p) for n in (1, 2) for f in ("note", "outlook")
                                  if len(p := _present(g, n, f)) >= 2)
    cats = list(g.dataset.categories[feature])
    g.expand(node, Split(feature=feature, feature_index=g.schema.index(feature), kind="subset",
                         categories=(present[0],), category_codes=(cats.index(present[0]),)))
    right = g.tree.node(0).children[1 if node == 1 else 0]
    rows, _ = g.node_rows(right)
    thr = float(np.median(g.dataset.frame["temp"].to_numpy()[rows]))
    g.expand(right, Split(feature="temp", feature_index=g.schema.index("temp"), kind="threshold", threshold=thr))
    g.step()
    g.collapse(right)
    g.step()
    return loaded, ds, settings, g


@pytest.fixture(scope="module")
def made():
    loaded, ds, settings, g = _grower()
    lesson = make_lesson(title="Soil & rain", description="A *teacher's* lesson", dataset_name="field.csv",
                         loaded=loaded, dataset=ds, split=settings, seed=4, grower=g, presenter=True, quiz=True,
                         lang="de", notes={1: "first", 3: "=HYPERLINK(1)", 6: "last"})
    return lesson, write_lesson(lesson), g


def _shape(g):
    return [(n.id, n.n_node_samples, None if n.split is None else (n.split.kind, n.split.threshold,
                                                                    len(n.split.categories)))
            for n in g.tree.walk()]


def test_round_trip_replays_the_same_tree_history_and_gain_tables(made):
    lesson, data, g = made
    back = read_lesson(data)
    assert (back.title, back.description, back.dataset_name) == ("Soil & rain", "A *teacher's* lesson", "field.csv")
    assert (back.presenter, back.quiz, back.lang, back.notes) == (True, True, "de", lesson.notes)
    assert back.config == g.config and back.split == lesson.split and back.open_at == g.n_steps == 6
    r = replay(back)
    assert _shape(r.grower) == _shape(g)
    assert [(h.action, h.node_id) for h in r.grower.history] == [(h.action, h.node_id) for h in g.history]
    assert [a[0] for a in r.grower.actions] == [a[0] for a in g.actions] == [
        "step", "expand", "expand", "step", "collapse", "step"]
    for node in g.tree.walk():
        if node.split is not None and node.id in {n.id for n in r.grower.tree.walk()}:
            a, b = g.gain_table(node.id), r.grower.gain_table(node.id)
            assert np.allclose(a["gain"].to_numpy(float), b["gain"].to_numpy(float), equal_nan=True)
    # the marks the notes hang on (the replayed data writes "=SUM(A1)" as "'=SUM(A1)", so the tests' text differs)
    assert [m and m[:2] for m in r.marks] == [m and m[:2] for m in (step_mark(g, k) for k in range(g.n_steps + 1))]
    assert len(r.dataset) == len(load_csv(CSV))


def test_formula_cells_are_written_with_an_apostrophe(made):
    lesson, data, _ = made
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        text = zf.read(DATA).decode()
    assert "'=SUM(A1)" in text and "'-3 apples" in text and "'@x" in text
    assert "\n=SUM" not in text and ",=SUM" not in text


def test_open_at_an_earlier_step(made):
    lesson, _, g = made
    from dataclasses import replace

    r = replay(read_lesson(write_lesson(replace(lesson, open_at=2))))
    assert r.grower.n_steps == 2 and [h.action for h in r.grower.history] == ["split", "forced"]
    assert len(r.marks) == g.n_steps + 1  # notes after the opening step keep their marks


def test_a_lesson_opened_at_step_0_keeps_its_prepared_actions_and_walks_to_the_same_tree(made):
    lesson, _, g = made
    from dataclasses import replace

    r = replay(read_lesson(write_lesson(replace(lesson, open_at=0))))
    assert r.grower.n_steps == 0 and len(r.prepared) == 6
    for action in r.prepared[r.grower.n_steps:]:
        apply_action(r.grower, action)
    assert _shape(r.grower) == _shape(g)
    assert [(h.action, h.node_id) for h in r.grower.history] == [(h.action, h.node_id) for h in g.history]
    assert replay(read_lesson(write_lesson(lesson))).prepared == ()  # opened at its end: nothing left to walk


# ------------------------------------------------------------------------------------- hostile files
def _zip(members: dict, method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, body in members.items():
            zf.writestr(name, body)
    return buf.getvalue()


def _edited(data: bytes, change=None, csv: bytes | None = None) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        manifest, table = json.loads(zf.read(MANIFEST)), zf.read(DATA)
    if change is not None:
        change(manifest)
    return _zip({MANIFEST: json.dumps(manifest), DATA: table if csv is None else csv})


def _set(path, value):
    def change(m):
        *head, last = path
        for k in head:
            m = m[k]
        m[last] = value
    return change


def _nested(depth):
    v = []
    for _ in range(depth):
        v = [v]
    return v


def _lying_header(data: bytes) -> bytes:
    """The data member's sizes in the central directory and local header say 10 bytes (a bomb in disguise)."""
    buf = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(DATA)
    real = info.file_size.to_bytes(4, "little")
    for at in [i for i in range(len(buf) - 4) if bytes(buf[i:i + 4]) == real]:
        buf[at:at + 4] = (10).to_bytes(4, "little")
    return bytes(buf)


def _encrypted(data: bytes) -> bytes:
    """The members marked as encrypted (bit 0 of each central directory entry's flags), as a password-protected zip."""
    buf = bytearray(data)
    at = buf.find(b"PK\x01\x02")
    while at >= 0:
        buf[at + 8] |= 0x1
        at = buf.find(b"PK\x01\x02", at + 4)
    return bytes(buf)


HOSTILE = {
    "empty": (lambda d: b"", "The lesson file is empty."),
    "a csv, not a zip": (lambda d: CSV, "it is not a complete .dtx archive"),
    "truncated": (lambda d: d[: len(d) // 2], "it is not a complete .dtx archive"),
    "extra member (code)": (lambda d: _zip({MANIFEST: b"{}", DATA: CSV, "run.py": b"import os"}),
                            "a lesson holds exactly lesson.json and data.csv"),
    "pickle instead of data": (lambda d: _edited(d, csv=pickle.dumps({"a": 1})), None),
    "encrypted members": (lambda d: _encrypted(d), "its members are encrypted"),
    "bz2 members": (lambda d: _zip({MANIFEST: b"{}", DATA: CSV}, zipfile.ZIP_BZIP2), "packed in a way"),
    "zip bomb": (lambda d: _zip({MANIFEST: b"{}", DATA: b"0" * (24 << 20)}), "unpacks to more than 16 MB"),
    "lying sizes": (lambda d: _lying_header(d), None),
    "manifest not json": (lambda d: _zip({MANIFEST: b"{not json", DATA: CSV}), "is not valid JSON"),
    "NaN in json": (lambda d: _zip({MANIFEST: b'{"format": "dtx-lesson", "x": NaN}', DATA: CSV}), "not valid JSON"),
    "deep nesting": (lambda d: _edited(d, _set(["check", "deep"], _nested(60))), "nested deeper"),
    "very deep nesting": (lambda d: _zip({MANIFEST: b"[" * 200_000 + b"]" * 200_000, DATA: CSV}), None),
    "newer version": (lambda d: _edited(d, _set(["version"], 99)), "written by a newer version of the app"),
    "not a lesson": (lambda d: _edited(d, _set(["format"], "other")), "does not say it is a lesson"),
    "wrong type": (lambda d: _edited(d, _set(["title"], 12)), "'title' in the lesson is missing or of the wrong"),
    "huge string": (lambda d: _edited(d, _set(["description"], "x" * 1_000_000)), "longer than 4,000 characters"),
    "formula cells": (lambda d: _edited(d, csv=CSV), "a spreadsheet would run as a formula"),
    "history that does not replay": (lambda d: _edited(d, _set(["history", 1, 1], 77)), "does not replay"),
    "history edited, check kept": (lambda d: _edited(d, _set(["history"], [["step"]] * 7)), None),
    "unknown action": (lambda d: _edited(d, _set(["history", 0], ["exec", "rm -rf /"])),
                       "is not a step, forced split or collapse"),
    "bad setting": (lambda d: _edited(d, _set(["config", "max_depth"], -4)), "tree settings are not valid"),
    "unknown target": (lambda d: _edited(d, _set(["data", "target"], "nope")), "There is no column 'nope'"),
    "note on a step that is not there": (lambda d: _edited(d, _set(["notes"], {"999": "x"})), "notes are not texts"),
    "binary table": (lambda d: _edited(d, csv=b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4), None),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_lesson_file_gives_one_sentence(made, name, monkeypatch):
    _, data, _ = made
    monkeypatch.setattr(lesson_file, "MAX_DATA_BYTES", 16 << 20)
    make, words = HOSTILE[name]
    bad = make(data)
    with pytest.raises(DataError) as caught:
        replay(read_lesson(bad, max_data_bytes=lesson_file.MAX_DATA_BYTES))
    sentence = str(caught.value)
    print(f"{name}: {sentence}")
    if words:
        assert words in sentence
    assert sentence.endswith((".", ")")) and "\n" not in sentence and "Traceback" not in sentence
    assert len(sentence) < 600


def test_an_oversized_file_is_refused_before_it_is_read(monkeypatch, made):
    _, data, _ = made
    monkeypatch.setattr(lesson_file, "MAX_FILE_BYTES", len(data) - 1)
    with pytest.raises(DataError, match="larger than"):
        read_lesson(data)


def test_a_sample_lesson_grown_to_the_end_replays_level_wise():
    ds = load_sample("noisy_moons")
    settings = {"test_size": 0.25, "validation_size": 0.0, "seed": 0}
    split = ds.split(**settings)
    g = Grower(split.train, TreeConfig(algorithm="cart")).grow()
    lesson = make_lesson(title="t", description="", dataset_name="noisy_moons", loaded=ds, dataset=ds,
                         split=settings, seed=0, grower=g)
    r = replay(read_lesson(write_lesson(lesson)))
    assert r.grower.done and _shape(r.grower) == _shape(g)


def test_two_feature_mode_travels():
    ds = load_sample("ski")
    loaded = ds
    settings = {"test_size": 0.25, "validation_size": 0.0, "seed": 2}
    split = ds.split(**settings)
    feats = tuple(n for n in ds.feature_names if ds.kind(n) == "numeric")[:2]
    g = Grower(split.train.with_features(list(feats)), TreeConfig(algorithm="cart", max_depth=3))
    g.grow(max_steps=3)
    lesson = make_lesson(title="t", description="", dataset_name="ski", loaded=loaded, dataset=ds, split=settings,
                         seed=2, grower=g, features=feats)
    r = replay(read_lesson(write_lesson(lesson)))
    assert r.grower.dataset.feature_names == feats and _shape(r.grower) == _shape(g)


def test_the_shelf_reads_the_manifest_without_unpacking_the_table(made):
    _, data, _ = made
    head = read_lesson(data, with_data=False)
    assert head.data_csv == b"" and head.title == "Soil & rain" and head.check["rows"] == len(load_csv(CSV))
    bomb = _zip({MANIFEST: b"{}", DATA: b"0" * (24 << 20)})
    with pytest.raises(DataError, match="unpacks to more than 16 MB"):
        read_lesson(bomb, max_data_bytes=16 << 20, with_data=False)


def test_undone_steps_travel_as_the_tree_the_teacher_left():
    """Issue 39's "history (forced splits, undone steps, manual pruning)": an undone step is not replayed, the
    action after it is (the file's log is the Grower's own, without what Undo took back)."""
    ds = load_sample("play_tennis")
    settings = {"test_size": 0.0, "validation_size": 0.0, "seed": 0}
    g = Grower(ds.split(**settings).train, TreeConfig(algorithm="id3"))
    g.step()
    g.step()
    assert g.undo() and g.n_steps == 1
    leaf = g.tree.node(0).children[-1]
    g.expand(leaf, Split(feature="Temperature", feature_index=g.schema.index("Temperature"), kind="multiway"))
    g.collapse(leaf)
    g.step()
    lesson = make_lesson(title="t", description="", dataset_name="play_tennis", loaded=ds, dataset=ds,
                         split=settings, seed=0, grower=g)
    r = replay(read_lesson(write_lesson(lesson)))
    assert [a[0] for a in r.grower.actions] == ["step", "expand", "collapse", "step"]
    assert _shape(r.grower) == _shape(g) and r.grower.n_steps == g.n_steps == 4
    assert [(h.action, h.node_id) for h in r.grower.history] == [(h.action, h.node_id) for h in g.history]
