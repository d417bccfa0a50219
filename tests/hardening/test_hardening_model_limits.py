"""Hardening (issue 40, findings 1-6): a hostile model file never makes the engine read the server's disk,
and is refused with one sentence, fast and within +50 MB, before anything of the size it declares is built.

Memory and CPU time are measured in a fresh subprocess (``benchmarks/bench_model_limits.measure``: peak RSS
``VmHWM`` reset after the file is read, under a 4 GB address-space cap so the old code could never take
the machine). Time bounds are generous (10 s where the refusal takes milliseconds): these are not speed
benchmarks; the real figures are printed by ``python benchmarks/bench_model_limits.py``.
"""

from __future__ import annotations

import sys

import pytest

import engine
from benchmarks.bench_model_limits import ROOT, measure
from engine.errors import DataError
from tests.hardening import hostile_models as H

MB = 50          # the most a refusal may add to the process
SECONDS = 10.0   # CPU seconds, generous for a noisy shared machine (the refusals take milliseconds)


def refused_in_a_child(tmp_path, data: bytes, words: str) -> dict:
    path = tmp_path / "model.bin"
    path.write_bytes(data)
    r = measure(path, ROOT)
    assert r["peak_mb"] < MB, r
    assert r["cpu"] < SECONDS, r
    assert r["outcome"].startswith("refused: ") and words in r["outcome"], r["outcome"]
    return r


# ---- finding 1: ONNX external data -------------------------------------------------------------------

@pytest.mark.parametrize("location", [".streamlit/config.toml", "missing/file.toml", "../secret.txt"])
def test_an_onnx_tensor_kept_in_another_file_is_refused_unread(tmp_path, monkeypatch, location):
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "config.toml").write_bytes(b"[server]\ncookieSecret = 'hunter2'\n")
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "secret.txt").write_bytes(b"secret")
    monkeypatch.chdir(tmp_path if not location.startswith("..") else work)
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    with pytest.raises(DataError, match="external data") as err:
        engine.load_model(H.onnx_external(location))
    assert str(err.value).count(". ") == 0 and str(err.value).endswith(".")
    assert not [f for f in opened if "config.toml" in f or "secret" in f or "missing" in f]


def test_an_onnx_tensor_declaring_more_values_than_it_holds_is_refused():
    from onnx import TensorProto, load_from_string

    model = load_from_string(H.onnx_external("x"))
    t = next(a.t for a in model.graph.node[0].attribute if a.name == "nodes_values_as_tensor")
    t.ClearField("external_data")
    t.data_location = TensorProto.DEFAULT
    t.raw_data = b"\x01\x02"                                     # two bytes for three uint8 values
    with pytest.raises(DataError, match="declares 3 values but holds bytes for 2"):
        engine.load_model(model.SerializeToString())


# ---- finding 2: a skops zip bomb ----------------------------------------------------------------------

def test_a_skops_zip_bomb_is_refused_before_it_is_unpacked(tmp_path):
    refused_in_a_child(tmp_path, H.skops_bomb(512), "unpacks to more than 256 MB")


def test_a_skops_member_whose_zip_entry_understates_its_size_is_never_inflated_past_it(tmp_path):
    """The central directory says 1,000 bytes; the deflated stream holds 300 MB. Reading stops at the
    declared size (the CRC then fails): a sentence, never the 300 MB."""
    refused_in_a_child(tmp_path, H.skops_bomb(300, declared=1000), "damaged or cut short")


def test_a_skops_array_whose_header_declares_more_than_its_bytes_is_refused():
    import io
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(H.skops_bomb(1)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            content = src.read(info)
            if info.filename.endswith(".npy") and len(content) > 2**20:
                content = content[:2**19]                       # header says 1 MB, half of it is there
            dst.writestr(info.filename, content)
    with pytest.raises(DataError, match="declares a shape its bytes do not hold"):
        engine.load_model(out.getvalue())


# ---- finding 3: huge declared feature counts ----------------------------------------------------------

def test_an_xgboost_file_declaring_a_billion_features_is_refused(tmp_path):
    refused_in_a_child(tmp_path, H.xgboost_features(10**9), "1,000,000,000 input columns")


def test_a_skops_tree_declaring_ten_million_features_is_refused(tmp_path):
    refused_in_a_child(tmp_path, H.skops_features(10**7), "10,000,000 input columns")


def test_the_feature_limit_is_the_same_for_every_format():
    with pytest.raises(DataError, match="at most 10,000 input columns"):
        engine.load_model(H.xgboost_features(10_001))
    engine.load_model(H.xgboost_features(10_000))
    lgb = H.lightgbm_categorical(2, 2).replace(b"max_feature_idx=1", b"max_feature_idx=10000")
    with pytest.raises(DataError, match="at most 10,000 input columns"):
        engine.load_model(lgb)


# ---- finding 4: parsing with a bound ------------------------------------------------------------------

def test_a_json_of_empty_lists_is_refused_before_it_is_parsed(tmp_path):
    refused_in_a_child(tmp_path, H.json_of_empty_lists(20), "lists and objects")


def test_a_ubjson_of_empty_lists_is_refused_while_it_is_parsed(tmp_path):
    refused_in_a_child(tmp_path, H.ubjson_of_empty_lists(5), "lists and objects")


def test_a_lightgbm_file_claiming_a_billion_category_labels_is_refused(tmp_path):
    """10,000 features each claiming codes up to 99,999 in feature_infos: 70 KB of text, 1e9 labels (in a
    capped child: the old code set out to build the billion labels)."""
    text = H.lightgbm_categorical(10_000, 2).replace(b"0:1:2", b"0:99999")
    refused_in_a_child(tmp_path, text, "category labels")


def test_a_lightgbm_line_of_millions_of_values_is_refused_before_it_is_split(tmp_path, monkeypatch):
    """A two-leaf tree whose leaf_value line holds 20 million numbers (40 MB). The text reader copies a line
    a few times (decode, split into lines, strip, partition: ~150 MB here, within the file's size limit);
    what must not happen is the 20 million strings and floats (old code: +383 MB)."""
    text = H.lightgbm_categorical(2, 1).replace(b"leaf_value=0.1 -0.1", b"leaf_value=" + b"0 " * 20_000_000)
    monkeypatch.setattr(sys.modules[__name__], "MB", 5 * len(text) / 2**20)
    refused_in_a_child(tmp_path, text, "more leaf_value values than it has nodes")


def test_a_lightgbm_file_of_a_hundred_million_lines_is_refused_before_it_is_split(tmp_path):
    refused_in_a_child(tmp_path, H.lightgbm_categorical(2, 1) + b"\n" * 100_000_000, "lines")


# ---- finding 5: the pickle sniff ------------------------------------------------------------------------

def test_a_long_run_of_pickle_opcodes_is_refused_from_its_prefix(tmp_path):
    refused_in_a_child(tmp_path, H.pickle_run(40), "pickle")


# ---- finding 6: quadratic LightGBM categories ---------------------------------------------------------

def test_a_lightgbm_file_of_2000_category_features_and_trees_opens_in_linear_time(tmp_path):
    path = tmp_path / "model.txt"
    path.write_bytes(H.lightgbm_categorical(2000, 2000))
    r = measure(path, ROOT)
    assert r["outcome"] == "opened: 2000 trees, 2000 features", r
    assert r["cpu"] < SECONDS, r


def test_the_linear_lightgbm_reader_finds_each_features_largest_code():
    text = H.lightgbm_categorical(3, 3).decode()
    text = text.replace("split_feature=2\nsplit_gain=1\nthreshold=0\ndecision_type=1\nleft_child=-1\n"
                        "right_child=-2\nleaf_value=0.1 -0.1\nleaf_weight=1 1\nleaf_count=1 1\ninternal_value=0\n"
                        "internal_weight=2\ninternal_count=2\ncat_boundaries=0 1\ncat_threshold=2",
                        "split_feature=2\nsplit_gain=1\nthreshold=0\ndecision_type=1\nleft_child=-1\n"
                        "right_child=-2\nleaf_value=0.1 -0.1\nleaf_weight=1 1\nleaf_count=1 1\ninternal_value=0\n"
                        "internal_weight=2\ninternal_count=2\ncat_boundaries=0 2\ncat_threshold=0 1")
    model = engine.load_model(text.encode())
    assert [len(c) for c in model.schema.categories] == [3, 3, 33]       # code 32 in the second word
