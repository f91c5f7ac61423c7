"""ARFF reader fuzzing: malformed input is an `ArffError` naming the file, or a valid result.

Hand-made cases pin the message (and line) of each kind of damage; hypothesis mutates
valid files (truncation, garbage tokens, stray ARFF characters, wrong value counts,
corrupt compression) and checks that the outcome is an `ArffError` or a consistent
`Dataset`, never a foreign exception (IndexError, UnicodeDecodeError, zlib.error, ...).
``MLNB_FUZZ_REPORT=<file>`` writes the count of outcomes by type to that file;
``MLNB_FUZZ_EXAMPLES=<n>`` sets the number of hypothesis examples (default 250).
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlnb.datasets import ArffError, Dataset, iter_arff, load_arff

OUTCOMES: Counter = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    target = os.environ.get("MLNB_FUZZ_REPORT")
    if target:
        with open(target, "w") as f:
            json.dump(dict(OUTCOMES), f, indent=1, sort_keys=True)


HEAD = "@relation r\n@attribute x numeric\n@attribute c {a,b}\n@attribute y {0,1}\n@data\n"
BIG = HEAD + "".join(f"{i}.5,{'ab'[i % 2]},{i % 2}\n" for i in range(3000))


def _gz(text: str) -> bytes:
    return gzip.compress(text.encode())


def _bz2(text: str) -> bytes:
    return bz2.compress(text.encode())


# (file name, content, expected line or None, problem substring)
CASES = [
    ("empty.arff", b"", None, "empty file"),
    ("blank.arff", b"\n\n  \n", None, "empty file"),
    ("comment.arff", b"% only a comment\n", 1, "no @data"),
    ("header.arff", HEAD[:-6].encode(), 4, "no @data"),
    ("cut_type.arff", HEAD[:30].encode(), 2, "unknown type 'numer'"),
    ("cut_name.arff", b"@relation r\n@attribute x num", 2, "unknown type"),
    ("cut_row.arff", (HEAD + "1,a,1\n2,b").encode(), 7, "wrong number of values"),
    ("cut_sparse.arff", (HEAD + "{0 1,2 1}\n{0 2,").encode(), 7, "without closing"),
    ("many.arff", (HEAD + "1,a,1,7\n").encode(), 6, "expected 3, found 4"),
    ("few.arff", (HEAD + "1,a\n").encode(), 6, "expected 3, found 2"),
    ("text_num.arff", (HEAD + "one,a,1\n").encode(), 6, "invalid numeric value 'one'"),
    ("bad_exp.arff", (HEAD + "1e,a,1\n").encode(), 6, "invalid numeric value '1e'"),
    ("nominal.arff", (HEAD + "1,z,1\n").encode(), 6, "unknown nominal value 'z'"),
    ("label2.arff", (HEAD + "1,a,2\n").encode(), 6, "unknown nominal value '2'"),
    ("inf.arff", (HEAD + "inf,a,1\n").encode(), 6, "infinite values are not accepted"),
    ("minf.arff", (HEAD + "{0 -Infinity}\n").encode(), 6, "infinite values are not accepted"),
    ("nan.arff", (HEAD + "nan,a,1\n").encode(), 6, "missing value 'nan'"),
    ("NaN.arff", (HEAD + "{0 NaN,2 1}\n").encode(), 6, "missing value 'NaN'"),
    ("q.arff", (HEAD + "?,a,1\n").encode(), 6, "missing value '?'"),
    ("qlabel.arff", (HEAD + "1,a,?\n").encode(), 6, "unknown_labels='allow'"),
    ("sp_index.arff", (HEAD + "{7 1}\n").encode(), 6, "sparse index 7 out of range"),
    ("sp_repeat.arff", (HEAD + "{0 1,0 2}\n").encode(), 6, "sparse index 0 repeated"),
    ("sp_entry.arff", (HEAD + "{0 1,x 1}\n").encode(), 6, "malformed sparse entry"),
    ("sp_novalue.arff", (HEAD + "{0}\n").encode(), 6, "malformed sparse entry"),
    ("sp_neg.arff", (HEAD + "{-1 1}\n").encode(), 6, "malformed sparse entry"),
    ("sp_open.arff", (HEAD + "{0 1,2 1\n").encode(), 6, "without closing"),
    ("sp_text.arff", (HEAD + "{0 1,2 1} x\n").encode(), 6, "without closing"),
    ("quote.arff", (HEAD + "1,'a,1\n").encode(), 6, "cannot split"),
    ("meka_c.arff", b"@relation 'r: -C 5'\n@attribute y {0,1}\n@data\n", 1, "'-C 5'"),
    ("nolabels.arff", b"@relation r\n@attribute x numeric\n@data\n", None, "--labels N"),
    ("garbage.arff.gz", b"\x1f\x8b" + bytes(range(256)) * 4, 1, "corrupt"),
    ("garbage.arff.bz2", b"BZh9" + bytes(range(256)) * 4, 1, "corrupt"),
    ("cut.arff.gz", _gz(BIG)[: len(_gz(BIG)) // 2], None, "truncated"),
    ("cut.arff.bz2", _bz2(BIG)[: len(_bz2(BIG)) // 2], None, "truncated"),
    ("magic.arff.gz", b"\x1f\x8b", 1, "corrupt"),
    ("binary.arff", bytes(range(256)), 1, "unexpected line in header"),
    ("latin.arff", (HEAD + "1,\xe9,1\n").encode("latin-1"), 6, "unknown nominal value"),
]


@pytest.mark.parametrize(("name", "content", "line", "problem"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("reader", ["load", "iter"])
def test_hand_made_damage(tmp_path, name, content, line, problem, reader):
    path = tmp_path / name
    path.write_bytes(content)
    labels = None if name.startswith(("meka", "nolabels")) else ["y"]
    with pytest.raises(ArffError) as err:
        if reader == "load":
            load_arff(path, labels=labels)
        else:
            list(iter_arff(path, labels=labels, chunk_size=2))
    OUTCOMES["hand-made: ArffError"] += 1
    assert str(err.value).startswith(str(path)), str(err.value)
    assert problem in err.value.problem, str(err.value)
    if line is not None:
        assert err.value.line == line, str(err.value)
    elif "truncated" in problem:  # the line reached (bzip2 gives nothing before a block)
        assert err.value.line >= (6 if name.endswith(".gz") else 1)


def test_directory_is_not_an_arff_file(tmp_path):
    for read in (load_arff, iter_arff):
        with pytest.raises(ArffError, match="is a directory") as err:
            read(tmp_path, labels=["y"])
        assert str(err.value).startswith(str(tmp_path))
        assert "compressed" not in str(err.value)


def test_missing_file_is_file_not_found(tmp_path):
    for read in (load_arff, iter_arff):
        with pytest.raises(FileNotFoundError):
            read(tmp_path / "none.arff", labels=["y"])


@pytest.mark.parametrize("row", ["nan,a,1", "NaN,a,1", "-nan,a,1", "{0 nan,2 1}", "{0 ?,2 1}"])
def test_literal_nan_is_read_as_missing_value(tmp_path, row):
    path = tmp_path / "n.arff"
    path.write_text(HEAD + "1,b,0\n" + row + "\n")
    qpath = tmp_path / "q.arff"
    qpath.write_text(HEAD + "1,b,0\n" + row.replace("-nan", "?").replace("nan", "?") + "\n")
    qpath.write_text(qpath.read_text().replace("NaN", "?"))
    for missing in ("nan", "zero"):
        got = load_arff(path, labels=["y"], missing=missing)
        want = load_arff(qpath, labels=["y"], missing=missing)
        X, W = sp.csr_matrix(got.X).toarray(), sp.csr_matrix(want.X).toarray()
        np.testing.assert_array_equal(X, W)
        assert np.isnan(X[1, 0]) == (missing == "nan")
    with pytest.raises(ArffError, match=r"line 7: missing value .*pass missing='nan'"):
        load_arff(path, labels=["y"])


def test_nan_label_is_an_unknown_label(tmp_path):
    text = "@relation 'r: -C 1'\n@attribute y numeric\n@attribute x numeric\n@data\n"
    path = tmp_path / "l.arff"
    path.write_text(text + "nan,1\n?,2\n")
    with pytest.raises(ArffError, match=r"line 5: missing value 'nan' .* label 'y'"):
        load_arff(path)
    ds = load_arff(path, unknown_labels="allow")
    assert ds.Y is None and ds.label_names == ["y"] and ds.X.ravel().tolist() == [1, 2]


# ------------------------------------------------------------------ hypothesis

GARBAGE = ["", "?", "nan", "NaN", "inf", "-", "1e", "1.2.3", "abc", "{", "}", ",", "'", '"',
           "%", "@data", "\x00", "\xe9", "1 2", "0x1f", "1_0", "--1", "+1", "\t"]  # fmt: skip
STRAY = [*",{}'\"%?@ \n\t\\", "\r\n", "\x00", "\xff"]


@st.composite
def arff_files(draw):
    """A valid Mulan/MEKA ARFF text, its label names and whether labels are first."""
    n_feat = draw(st.integers(1, 4))
    n_lab = draw(st.integers(1, 3))
    n_rows = draw(st.integers(0, 6))
    kinds = draw(st.lists(st.sampled_from(["numeric", "{a,b,c}", "{0,1}"]), min_size=n_feat,
                          max_size=n_feat))  # fmt: skip
    meka = draw(st.booleans())
    feats = [f"@attribute f{i} {k}\n" for i, k in enumerate(kinds)]
    labs = [f"@attribute y{j} {{0,1}}\n" for j in range(n_lab)]
    attrs = labs + feats if meka else feats + labs
    relation = f"'r: -C {n_lab}'" if meka else "r"
    value = {
        "numeric": st.sampled_from(["0", "1", "-2.5", "3e1", "0.125", "?", "nan"]),
        "{a,b,c}": st.sampled_from(["a", "b", "c", "?"]),
        "{0,1}": st.sampled_from(["0", "1"]),
    }
    unlabelled = draw(st.sampled_from([False, False, True]))  # labels all '?': to predict
    sparse = draw(st.booleans())
    rows = []
    for _ in range(n_rows):
        fv = [draw(value[k]) for k in kinds]
        lv = ["?"] * n_lab if unlabelled else [draw(st.sampled_from("01")) for _ in range(n_lab)]
        vals = lv + fv if meka else fv + lv
        if sparse:
            rows.append("{" + ",".join(f"{i} {v}" for i, v in enumerate(vals) if v != "0") + "}")
        else:
            rows.append(",".join(vals))
    text = f"@relation {relation}\n" + "".join(attrs) + "@data\n" + "".join(r + "\n" for r in rows)
    return text, [f"y{j}" for j in range(n_lab)], meka


def _mutate(draw, text: str) -> str:
    op = draw(st.sampled_from(["none", "truncate", "token", "stray", "drop", "duplicate"]))
    OUTCOMES[f"mutation {op}"] += 1
    if op == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if op == "token":
        head, sep, data = text.partition("@data\n")
        pieces = data.replace("{", "{ ").split(",")
        if not data or not pieces:
            return text
        k = draw(st.integers(0, len(pieces) - 1))
        piece = pieces[k].rstrip("}\n ")
        bits = piece.split(" ")
        bits[-1] = draw(st.sampled_from(GARBAGE))
        pieces[k] = " ".join(bits) + pieces[k][len(piece) :]
        return head + sep + ",".join(pieces).replace("{ ", "{")
    if op == "stray":
        k = draw(st.integers(0, len(text)))
        return text[:k] + draw(st.sampled_from(STRAY)) + text[k:]
    if op == "drop":
        k = draw(st.integers(0, max(len(text) - 1, 0)))
        return text[:k] + text[k + 1 :]
    if op == "duplicate":
        lines = text.split("\n")
        k = draw(st.integers(0, len(lines) - 1))
        return "\n".join(lines[: k + 1] + lines[k:])
    return text


def _pack(draw, text: str, suffix: str) -> bytes:
    data = text.encode("latin-1", errors="replace") if draw(st.booleans()) else text.encode()
    if suffix == ".gz":
        data = gzip.compress(data)
    elif suffix == ".bz2":
        data = bz2.compress(data)
    if suffix and draw(st.booleans()):  # damage the compressed stream
        how = draw(st.sampled_from(["cut", "flip", "tail"]))
        OUTCOMES[f"compression damage {how}"] += 1
        k = draw(st.integers(0, len(data) - 1))
        if how == "cut":
            data = data[:k]
        elif how == "flip":
            data = data[:k] + bytes([data[k] ^ 0x5A]) + data[k + 1 :]
        else:
            data += b"garbage"
    return data


def _check_dataset(ds, n_labels: int, missing: str) -> None:
    assert isinstance(ds, Dataset)
    X = sp.csr_matrix(ds.X).toarray()
    assert X.shape == (ds.n_samples, len(ds.feature_names))
    assert len(ds.label_names) == n_labels or ds.n_labels == len(ds.label_names)
    if ds.Y is not None:
        assert ds.Y.shape == (ds.n_samples, ds.n_labels) and ds.Y.dtype == np.uint8
        assert set(np.unique(ds.Y).tolist()) <= {0, 1}
    assert not np.isinf(X).any()
    if missing != "nan":
        assert not np.isnan(X).any()


def _outcome(call):
    try:
        return call(), None
    except ArffError as error:
        return None, error
    except Exception as error:  # a foreign exception: counted, then the test fails
        OUTCOMES[f"result: {type(error).__name__} (FOREIGN)"] += 1
        raise


@settings(
    max_examples=int(os.environ.get("MLNB_FUZZ_EXAMPLES", 250)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_fuzzed_files_give_arff_error_or_a_dataset(tmp_path_factory, data):
    draw = data.draw
    text, label_names, meka = draw(arff_files())
    text = _mutate(draw, text)
    suffix = draw(st.sampled_from(["", "", ".gz", ".bz2"]))
    path = tmp_path_factory.mktemp("fuzz") / f"f.arff{suffix}"
    path.write_bytes(_pack(draw, text, suffix))
    labels = None if meka and draw(st.booleans()) else label_names
    missing = draw(st.sampled_from(["error", "nan", "zero"]))
    unknown = draw(st.sampled_from(["error", "allow"]))
    sparse = draw(st.sampled_from([None, True, False]))
    options = {"labels": labels, "missing": missing, "sparse": sparse, "unknown_labels": unknown}

    ds, error = _outcome(lambda: load_arff(path, **options))
    if error is not None:
        OUTCOMES["result: ArffError"] += 1
        assert str(error).startswith(str(path)), str(error)
        assert error.line is None or error.line >= 1
    else:
        OUTCOMES["result: Dataset" + (" (Y=None)" if ds.Y is None else "")] += 1
        _check_dataset(ds, len(label_names), missing)

    chunk = draw(st.integers(1, 4))
    chunks, stream_error = _outcome(lambda: list(iter_arff(path, chunk_size=chunk, **options)))
    if unknown == "error":  # (with "allow" a chunk may be all unknown where the file is not)
        assert (error is None) == (stream_error is None), (error, stream_error)
        if chunks:
            X = sp.vstack([sp.csr_matrix(c[0]) for c in chunks]).toarray()
            np.testing.assert_array_equal(X, sp.csr_matrix(ds.X).toarray())
            np.testing.assert_array_equal(np.vstack([c[1] for c in chunks]), ds.Y)
    if stream_error is not None:
        assert str(stream_error).startswith(str(path)), str(stream_error)
