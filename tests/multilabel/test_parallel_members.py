"""``n_jobs`` and ``verbose`` of the ensembles whose members are fitted independently.

Every ``n_jobs`` gives the same model (the random draws are made before the members are
dispatched, in member order); ``verbose=1`` writes one line per member to stderr and
``verbose=0`` nothing; both parameters survive cloning and model files.
"""

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.naive_bayes import GaussianNB

from mlnb import BaggedBinaryRelevance, DynamicChainEnsemble, EnsembleClassifierChains, RAkEL
from mlnb.io import load, save
from mlnb.multilabel._progress import Progress, run_members

MODELS = {
    "DCE": lambda **kw: DynamicChainEnsemble(n_chains=4, beta=2.0, random_state=0, **kw),
    # max_features=3 cuts most selections: the draws made ahead are redone
    "DCE-cut": lambda **kw: DynamicChainEnsemble(
        n_chains=4, order="random", max_features=3, random_state=0, **kw
    ),
    "DCE-knn": lambda **kw: DynamicChainEnsemble(
        n_chains=3, base="knn", beta=2.0, max_features=5, random_state=0, **kw
    ),
    "BaggedBR": lambda **kw: BaggedBinaryRelevance(n_estimators=5, random_state=0, **kw),
    "BaggedBR-generic": lambda **kw: BaggedBinaryRelevance(
        n_estimators=3, base_estimator=GaussianNB(), random_state=0, **kw
    ),
    "ECC": lambda **kw: EnsembleClassifierChains(n_chains=3, random_state=0, **kw),
    "ECC-generic": lambda **kw: EnsembleClassifierChains(
        n_chains=3, base_estimator=GaussianNB(), random_state=0, **kw
    ),
    "RAkEL": lambda **kw: RAkEL(n_subsets=6, random_state=0, **kw),
    "RAkEL-generic": lambda **kw: RAkEL(
        n_subsets=4, base_estimator=GaussianNB(), random_state=0, **kw
    ),
}
MEMBERS = {"DCE": 4, "DCE-cut": 4, "DCE-knn": 3, "BaggedBR": 5, "ECC-generic": 3, "RAkEL": 6}


@pytest.fixture(scope="module")
def emotions(shared_dataset):
    data = shared_dataset("emotions")
    return data.X[:300], data.Y[:300], data.X[300:400]


@pytest.mark.parametrize("name", MODELS)
def test_every_n_jobs_gives_the_same_predictions(name, emotions):
    X, Y, X_test = emotions
    one = MODELS[name](n_jobs=1).fit(X, Y)
    two = MODELS[name](n_jobs=2).fit(X, Y)
    np.testing.assert_array_equal(one.predict(X_test), two.predict(X_test))
    np.testing.assert_array_equal(one.predict_proba(X_test), two.predict_proba(X_test))
    np.testing.assert_array_equal(one.decision_function(X_test), two.decision_function(X_test))


def test_dce_cut_members_are_those_of_a_one_by_one_fit(emotions):
    """With cuts to max_features, the members drawn ahead are drawn again: their masks
    (random cuts) and orders are those of n_jobs=1, which draws one member at a time."""
    X, Y, _ = emotions
    one = MODELS["DCE-cut"](n_jobs=1).fit(X, Y)
    two = MODELS["DCE-cut"](n_jobs=2).fit(X, Y)
    assert all(mask.sum(axis=1).max() <= 3 for mask in two.feature_masks_)
    for a, b in zip(one.feature_masks_, two.feature_masks_, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(one.orders_, two.orders_, strict=True):
        np.testing.assert_array_equal(a, b)
    # the members differ from each other: the cuts are random, not repeated
    assert len({mask.tobytes() for mask in two.feature_masks_}) > 1


@pytest.mark.parametrize("name", MEMBERS)
def test_verbose_writes_a_line_per_member(name, emotions, capsys):
    X, Y, _ = emotions
    MODELS[name](verbose=1).fit(X, Y)
    captured = capsys.readouterr()
    assert captured.out == ""
    owner = type(MODELS[name]()).__name__
    lines = [line for line in captured.err.splitlines() if line.startswith(owner)]
    total = MEMBERS[name]
    member_lines = [line for line in lines if re.search(r": (member|subset) \d+/", line)]
    assert [int(re.search(r" (\d+)/(\d+) ", line).group(1)) for line in member_lines] == list(
        range(1, total + 1)
    )
    assert all(re.search(rf" \d+/{total} fitted, \d+\.\d s$", line) for line in member_lines)


def test_verbose_dce_reports_the_beta_search_folds(emotions, capsys):
    X, Y, _ = emotions
    DynamicChainEnsemble(n_chains=2, random_state=0, verbose=1).fit(X, Y)
    err = capsys.readouterr().err
    assert len(re.findall(r"^DynamicChainEnsemble: member \d/2 fitted", err, re.M)) == 2
    folds = re.findall(r"^DynamicChainEnsemble: beta search fold (\d)/3 done", err, re.M)
    assert folds == ["1", "2", "3"]  # the inner fits of the folds are silent


@pytest.mark.parametrize("name", MEMBERS)
def test_verbose_0_is_silent(name, emotions, capsys):
    X, Y, _ = emotions
    MODELS[name](verbose=0, n_jobs=2).fit(X, Y)
    assert capsys.readouterr() == ("", "")


def test_ecc_one_pass_writes_nothing(emotions, capsys):
    """The Naive Bayes path fits every chain in one pass: no member lines."""
    X, Y, _ = emotions
    MODELS["ECC"](verbose=1).fit(X, Y)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("name", ["DCE", "BaggedBR", "ECC", "RAkEL"])
def test_parameters_are_kept_cloned_and_saved(name, emotions, tmp_path):
    X, Y, X_test = emotions
    model = MODELS[name](n_jobs=2, verbose=0)
    assert clone(model).get_params()["n_jobs"] == 2
    model.set_params(verbose=3)
    assert model.get_params()["verbose"] == 3
    model.set_params(verbose=0).fit(X, Y)
    save(model, tmp_path / "model.mlnb")
    restored = load(tmp_path / "model.mlnb")
    assert restored.get_params()["n_jobs"] == 2
    np.testing.assert_array_equal(restored.predict(X_test), model.predict(X_test))


@pytest.mark.parametrize("name", ["DCE", "BaggedBR", "ECC", "RAkEL"])
@pytest.mark.parametrize("value", [1.5, "2"])
def test_n_jobs_must_be_an_integer_or_none(name, value, emotions):
    X, Y, _ = emotions
    with pytest.raises(ValueError, match="n_jobs"):
        MODELS[name](n_jobs=value).fit(X, Y)


def test_run_members_keeps_member_order_and_reports(capsys):
    results = run_members(
        lambda a, b: a - b,
        [(5, 1), (2, 7), (0, 0)],
        n_jobs=2,
        verbose=1,
        owner="Model",
        prefer="threads",
    )
    assert list(results) == [4, -5, 0]
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "Model: member 1/3 fitted",
        "Model: member 2/3 fitted",
        "Model: member 3/3 fitted",
    ]


def test_progress_names_what_is_done(capsys):
    progress = Progress("Search", 2, verbose=2, what="fold", done="scored")
    progress.step()
    assert re.fullmatch(r"Search: fold 1/2 scored, \d+\.\d s\n", capsys.readouterr().err)
