"""What the dynamic-chains paper's two scripts share: its data sets as ours, and writing a
report.

``DATASETS`` is the one place where a paper set's copy is described (its source in the
shared data and the rows, labels and features kept); ``load`` makes it. ``write_report``
keeps the hand-written part of a report after ``MARKER``; ``log_run`` appends a run to the
runs log. Used by ``dynamic_chains_paper.py`` (Tables 3-13) and ``dynamic_chains_table2.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import dynamic_chains_paper_values as paper
import numpy as np
import pandas as pd
import scipy.sparse as sp
from _harness import SEED
from sklearn.preprocessing import OneHotEncoder

from mlnb.datasets import describe, load_dataset

MARKER = "<!-- discussion -->"


# ---- data ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DataSpec:
    """One of the paper's sets: its number and how our copy is made from the shared data."""

    number: int
    source: str  # our registry name
    rows: int | None = None  # random sample of this many rows (seed 0)
    top_labels: int | None = None  # keep the most frequent labels only
    top_features: int | None = None  # keep the features non-zero in most rows only
    one_hot: bool = False  # nominal features to 0/1 columns (Weka's NominalToBinary)
    text: bool = False  # bag-of-words features (0/1 or counts)
    nominal: bool = False  # ARFF features nominal: Weka's NB uses discrete estimators
    bags: str = "mean_max"  # multi-instance bags to vectors (load_dataset's ``bags``)
    note: str = ""


#: Our name -> spec, in the order the full run takes them (increasing cost; measured).
DATASETS = {
    "emotions": DataSpec(6, "emotions"),
    "sf2": DataSpec(
        9,
        "sf2",
        one_hot=True,
        nominal=True,
        note="multi-target counts binarised as target > 0 (the loader); the 10 nominal "
        "features one-hot coded, two-valued ones as one 0/1 column, giving the paper's d = 27",
    ),
    "miml_image": DataSpec(
        18,
        "miml_image",
        bags="concatenate",
        note='each bag\'s 9 instances x 15 features side by side (`bags="concatenate"`): '
        "the paper's d = 135",
    ),
    "plantpseaac": DataSpec(20, "plantpseaac"),
    "yeast": DataSpec(30, "yeast"),
    "scene": DataSpec(23, "scene", note="train + test files joined"),
    "medical": DataSpec(17, "medical", text=True, nominal=True),
    "stackex_chess": DataSpec(
        27,
        "stackex_chess",
        text=True,
        top_labels=15,
        note="labels reduced to the 15 most frequent of 227 (the paper: 'reduced to 15', "
        "without saying how; LC, LD and avIR then equal Table 1's); rows left without a "
        "label are kept",
    ),
    "langlog": DataSpec(16, "langlog", text=True),
    "enron": DataSpec(7, "enron", text=True, nominal=True),
    "tmc2007": DataSpec(
        28,
        "tmc2007",
        text=True,
        nominal=True,
        rows=2857,
        note="random 2,857 of the 28,596 rows of tmc2007-500 (the paper's N; it used a subset)",
    ),
    "meka_imdb": DataSpec(
        15,
        "meka_imdb",
        text=True,
        rows=3042,
        note="random 3,042 of the 120,919 rows of MEKA's IMDB (the paper's N; it used a subset)",
    ),
    "ohsumed": DataSpec(19, "ohsumed", text=True),
    "yahoo_arts": DataSpec(
        1,
        "yahoo_arts",
        text=True,
        top_features=1733,
        note="mldr.datasets' yahoo_arts has 23,146 term features, the paper's Arts1 1,733 "
        "(a version or a filter the paper does not describe); we keep the 1,733 terms present "
        "in most documents (an unsupervised filter on all rows; our guess, not the paper's "
        "selection). With all 23,146, DCE's per-label CFS took over 15 minutes per fold",
    ),
}
QUICK_DATASETS = ["emotions", "sf2", "medical"]


def one_hot(X):
    """Nominal codes to 0/1 columns (Weka's NominalToBinary): one per observed value, one
    column for two values."""
    return OneHotEncoder(drop="if_binary", sparse_output=False).fit_transform(X)


def load(name, data_dir=None):
    """``(X, Y)`` of one of our versions of the paper's sets (see ``DATASETS``)."""
    spec = DATASETS[name]
    data = load_dataset(spec.source, data_dir, split="full", bags=spec.bags)
    X = (
        sp.csr_matrix(data.X, dtype=np.float64)
        if sp.issparse(data.X)
        else np.asarray(data.X, float)
    )
    Y = data.Y.toarray() if sp.issparse(data.Y) else np.asarray(data.Y)
    Y = Y.astype(np.int64)
    if spec.one_hot:
        X = one_hot(X)
    if spec.top_features is not None and spec.top_features < X.shape[1]:
        present = np.asarray((X != 0).sum(axis=0)).ravel()
        keep = np.sort(np.argsort(-present, kind="stable")[: spec.top_features])
        X = X[:, keep]
    if spec.rows is not None and spec.rows < X.shape[0]:
        rows = np.sort(np.random.RandomState(SEED).choice(X.shape[0], spec.rows, replace=False))
        X, Y = X[rows], Y[rows]
    if spec.top_labels is not None and spec.top_labels < Y.shape[1]:
        keep = np.sort(np.argsort(-Y.sum(axis=0), kind="stable")[: spec.top_labels])
        Y = Y[:, keep]
    return X, Y


# ---- report ------------------------------------------------------------------------------
def markdown(frame, floatfmt=".3f"):
    """A DataFrame as a Markdown table."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    lines = [header, rule]
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float | np.floating):
                cells.append("" if np.isnan(v) else format(v, floatfmt))
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def dataset_table(names, data_dir):
    rows = []
    for name in names:
        spec = DATASETS[name]
        X, Y = load(name, data_dir)
        s = describe(Y)
        _, N, d, L, LC, LD, avIR = paper.TABLE_1[spec.number]
        rows.append(
            {
                "No.": spec.number,
                "paper name": paper.PAPER_SETS[spec.number][0],
                "ours": name,
                "N": f"{X.shape[0]} ({N})",
                "d": f"{X.shape[1]} ({d})",
                "L": f"{Y.shape[1]} ({L})",
                "LC": f"{s.cardinality:.3f} ({LC:.3f})",
                "LD": f"{s.density:.3f} ({LD:.3f})",
                "avIR": f"{s.avg_imbalance_ratio:.2f} ({avIR:.2f})",
                "stored sparse": "yes" if sp.issparse(X) else "no",
            }
        )
    return pd.DataFrame(rows)


def write_report(lines, out, prefix, files):
    """``<prefix>.md`` from ``lines``, the runs log and the list of ``files``, keeping the
    hand-written part of an existing report (after ``MARKER``)."""
    runs = out / f"{prefix}_runs.log"
    if runs.exists():
        lines += [f"Runs (`{prefix}_runs.log`):", "", "```", runs.read_text().strip(), "```", ""]
    lines += [files, "", MARKER, ""]
    path = out / f"{prefix}.md"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if MARKER in text and text.split(MARKER, 1)[1].strip():
            lines += [text.split(MARKER, 1)[1].strip(), ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def log_run(out, argv, *, script, prefix):
    """Append the time, the command and a hash of mlnb's sources to ``<prefix>_runs.log``."""
    import hashlib

    import mlnb

    digest = hashlib.sha256()
    for source in sorted(Path(mlnb.__file__).parent.rglob("*.py")):
        digest.update(source.read_bytes())
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = " ".join([f"python experiments/{script}", *argv])
    with (out / f"{prefix}_runs.log").open("a") as handle:
        handle.write(f"{stamp}  mlnb sources sha256 {digest.hexdigest()[:12]}  {command}\n")


# ---- command line -------------------------------------------------------------------------
def names_option(value, known, parser, what):
    """Comma-separated names checked against ``known`` (None when empty)."""
    if not value:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown {what} {unknown}; known: {list(known)}")
    return names
