"""The estimator list (mlnb.estimators): derived from the subpackages, equal to mlnb's exports,
and every estimator's _unit_test_params give instances that construct, clone and fit."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone

import mlnb
from mlnb.datasets import make_multilabel
from mlnb.estimators import KINDS, all_estimators, test_instances

BY_KIND = [
    pytest.param(kind, cls, id=cls.__name__) for kind in KINDS for cls in all_estimators(kind)
]


def test_mlnb_s_exports_are_estimators_found_in_the_subpackages():
    """Every top-level name is found (and the same class); a strategy its subpackage exports
    may stay out of the top level (then it needs no command-line name either)."""
    found = {cls.__name__: cls for cls in all_estimators()}
    exported = {name for name in mlnb.__all__ if name != "__version__"}
    assert exported == set(mlnb._HOME)
    assert exported <= set(found)
    for name in exported:
        assert getattr(mlnb, name) is found[name]


def test_the_kinds_partition_the_estimators():
    kinds = {kind: set(all_estimators(kind)) for kind in KINDS}
    assert sum(len(classes) for classes in kinds.values()) == len(all_estimators())
    assert set().union(*kinds.values()) == set(all_estimators())
    assert {mlnb.GaussianNB, mlnb.CategoricalNB} <= kinds["single_label"]
    assert {mlnb.BinaryRelevance, mlnb.KNNChain} <= kinds["multi_label"]
    assert kinds["meta"] == {mlnb.TunedThresholdsCV}
    with pytest.raises(ValueError, match="kind must be one of"):
        all_estimators("multilabel")


def test_instance_ids_name_the_class_and_the_parameters_that_differ():
    ids = [name for name, _ in test_instances()]
    assert len(ids) == len(set(ids))
    assert {"ClassifierChain", "ClassifierChain-inference=marginal"} <= set(ids)
    assert "GaussianNB-missing=ignore" in ids
    for name, estimator in test_instances():
        assert name.split("-")[0] == type(estimator).__name__


def _tiny_data(single_label):
    X, Y = make_multilabel(40, 5, 3, features="counts", doc_length=8, random_state=0)
    return (X, np.arange(len(X)) % 3) if single_label else (X, Y)


@pytest.mark.parametrize(("kind", "cls"), BY_KIND)
def test_every_estimator_declares_usable_test_instances(kind, cls):
    params = cls._unit_test_params()
    assert isinstance(params, list) and params
    assert all(isinstance(p, dict) for p in params)
    for kwargs in params:
        estimator = cls(**kwargs)
        copy = clone(estimator)
        assert repr(copy.get_params()) == repr(estimator.get_params())
        inner = estimator.estimator if kind == "meta" else estimator
        single_label = not inner.__sklearn_tags__().target_tags.multi_output
        if kind != "meta":
            assert single_label == (kind == "single_label")
        X, y = _tiny_data(single_label)
        predicted = np.asarray(copy.fit(X, y).predict(X))
        assert predicted.shape == np.shape(y)


def test_import_mlnb_loads_neither_the_list_nor_scikit_learn():
    code = (
        "import sys, mlnb\n"
        "print('mlnb.estimators' in sys.modules, 'sklearn' in sys.modules)\n"
        "mlnb.estimators.all_estimators()\n"
        "print('mlnb.estimators' in sys.modules, 'sklearn' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "True", "True"]
