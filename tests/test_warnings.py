"""No numpy warning escapes mlnb's estimators on real data (issue #18, item 4).

Every estimator runs fit, predict, predict_proba and decision_function under
``warnings.simplefilter("error")`` on subsamples of the benchmark sets, with several event
models: a log of zero meant as -inf must be computed deliberately (``np.errstate``).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import mlnb
from mlnb.estimators import all_estimators, test_instances

pytestmark = pytest.mark.filterwarnings("error")

ROWS = {"emotions": 120, "medical": 150, "enron": 200}
NB_CLASSES = all_estimators("single_label")
# every multi-label estimator as its _unit_test_params say: those of an event model with
# each of several, the others (nearest neighbours) as they are
INSTANCES = test_instances("multi_label")
MULTI_LABEL = {name: model for name, model in INSTANCES if "events" in model.get_params()}
KNN = {
    "DCE-knn": mlnb.DynamicChainEnsemble(base="knn", n_chains=2, random_state=0),
    **{name: model for name, model in INSTANCES if name not in MULTI_LABEL},
}


@pytest.fixture(scope="module")
def data(shared_dataset):
    def rows(name, events="gaussian"):
        full = shared_dataset(name)
        X, Y = full.X[: ROWS[name]], full.Y[: ROWS[name]]
        if events != "gaussian":  # counts and presence: the non-negative part of X
            X = abs(X) if sp.issparse(X) else np.abs(X)
        return X, Y

    return rows


def _exercise(model, X, target):
    model.fit(X, target)
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(model, method):
            assert np.all(~np.isnan(np.asarray(getattr(model, method)(X), dtype=float)))


@pytest.mark.parametrize("cls", NB_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", ["emotions", "medical"])
def test_naive_bayes_classifiers_warn_nothing(data, cls, name):
    events = "gaussian" if "Gaussian" in cls.__name__ else "counts"
    X, Y = data(name, events)
    if cls is mlnb.CategoricalNB and not sp.issparse(X):
        X = np.rint(np.clip(X, 0, 1) * 10)
    _exercise(cls(), X, Y.argmax(axis=1))


@pytest.mark.parametrize("events", ["gaussian", "multinomial", "bernoulli"])
@pytest.mark.parametrize("method", MULTI_LABEL)
@pytest.mark.parametrize("name", ["emotions", "medical"])
def test_multi_label_estimators_warn_nothing(data, name, method, events):
    X, Y = data(name, events)
    _exercise(clone(MULTI_LABEL[method]).set_params(events=events), X, Y)


@pytest.mark.parametrize("method", KNN)
@pytest.mark.parametrize("name", ["emotions", "medical"])
def test_nearest_neighbour_chains_warn_nothing(data, name, method):
    X, Y = data(name)
    _exercise(clone(KNN[method]), X, Y)


@pytest.mark.parametrize("events", ["multinomial", "gaussian"])
def test_dynamic_chain_ensemble_on_enron_warns_nothing(data, events):
    # the reported case: DCE with multinomial events on enron (rare labels, word counts)
    X, Y = data("enron", events)
    _exercise(mlnb.DynamicChainEnsemble(events=events, n_chains=3, random_state=0), X, Y)
