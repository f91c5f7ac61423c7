"""API conformance of the multi-label estimators.

scikit-learn's common checks fit classifiers on multi-class targets (for a multi-output
estimator, reshaped to a single column with the values 0, 1 and 2). A multi-label estimator
takes a 0/1 label-indicator matrix and rejects other values by design, so every check that
fits on such targets is listed below as an expected failure; the properties those checks
guard are tested here on multi-label data instead (fit returns self, parameters untouched,
sparse input, read-only input, sample-weight types and equivalence, sample-order and
subset invariance, n_features_in_, pickling). The checks that fit on 0/1 indicator targets
(multi-label output formats, cloning, get/set_params, ...) run and pass.

All of an estimator's checks run in one test (`assert_checks_fail_as_expected`), which
fails on a check that fails unexpectedly and on a listed failure that no longer fails: one
line of output per estimator instead of one xfail per check.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_estimator

from mlnb import (
    IBLRML,
    OOCC,
    BaggedBinaryRelevance,
    BRkNN,
    DynamicChain,
    DynamicChainEnsemble,
    EnsembleClassifierChains,
    GeneticChainEnsemble,
    KNNChain,
    LabelPowerset,
    MLkNN,
    NaiBX,
    RAkEL,
)
from mlnb.estimators import test_instances

from .test_chain import dependent_labels

# every multi-label estimator, as its _unit_test_params say
INSTANCES = test_instances("multi_label")
ESTIMATORS = [estimator for _, estimator in INSTANCES]

_MULTICLASS_TARGETS = (
    "fits on multi-class targets; a multi-label estimator takes a 0/1 indicator matrix "
    "(the property is tested in this module on multi-label data)"
)
_EXPECTED_FAILURES = dict.fromkeys(
    [
        "check_classifier_data_not_an_array",
        "check_classifiers_classes",
        "check_classifiers_one_label",
        "check_classifiers_one_label_sample_weights",
        "check_classifiers_regression_target",
        "check_classifiers_train",
        "check_dict_unchanged",
        "check_dont_overwrite_parameters",
        "check_dtype_object",
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
        "check_estimator_sparse_tag",
        "check_estimators_dtypes",
        "check_estimators_fit_returns_self",
        "check_estimators_overwrite_params",
        "check_f_contiguous_array_estimator",
        "check_fit2d_1feature",
        "check_fit2d_predict1d",
        "check_fit_score_takes_y",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit",
        "check_readonly_memmap_input",
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
        "check_sample_weights_list",
        "check_sample_weights_not_an_array",
        "check_sample_weights_not_overwritten",
        "check_sample_weights_pandas_series",
        "check_sample_weights_shape",
    ],
    _MULTICLASS_TARGETS,
)
_EXPECTED_FAILURES["check_estimators_partial_fit_n_features"] = (
    "passes classes= to partial_fit: the labels of a multi-label estimator are the columns "
    "of its indicator matrix, fixed by the first call"
)


def decision_failures(estimator):
    """The checks of decision_function that do not apply to a multi-label estimator."""
    if not hasattr(estimator, "decision_function"):
        return {}
    return {
        "check_decision_proba_consistency": (
            "fits a single-output (1-D) target, which a multi-label estimator refuses: its "
            "labels are the columns of an indicator matrix"
        ),
        "check_classifier_multioutput": (
            "indexes classes_ by decision_function > 0 as one array; classes_ is one [0, 1] "
            "array per label (scikit-learn's multi-output convention). That decision > 0 "
            "gives predict is tested in test_decision_function_gives_predict"
        ),
    }


def expected_failures(estimator):
    failures = dict(_EXPECTED_FAILURES)
    failures.update(decision_failures(estimator))
    voting = (
        BaggedBinaryRelevance,
        EnsembleClassifierChains,
        DynamicChainEnsemble,
        OOCC,
        GeneticChainEnsemble,
    )
    if isinstance(estimator, voting):
        failures["check_classifiers_multilabel_output_format_predict_proba"] = (
            "with hard voting (Trajdos and Kurzynski, eq. 22) predict_proba is the share of "
            "chains voting 1, which is exactly 0 or 1 when all chains agree"
        )
    if not hasattr(estimator, "partial_fit"):  # the check does not apply and passes
        del failures["check_estimators_partial_fit_n_features"]
    if "max_iter" in estimator.get_params():  # else the check does not apply and passes
        failures["check_non_transformer_estimators_n_iter"] = _MULTICLASS_TARGETS
    if isinstance(estimator, (KNNChain, OOCC, GeneticChainEnsemble, MLkNN, BRkNN, IBLRML)):
        refused = (
            "sample_weight is refused with a TypeError that gives the reason (unweighted "
            "neighbour votes / validation F1), which the check does not expect"
        )
        failures["check_classifiers_one_label_sample_weights"] = refused
        failures["check_all_zero_sample_weights_error"] = refused
    if isinstance(estimator, NaiBX):
        failures["check_classifier_multioutput"] = (
            "NaiBX predicts a set by its cascade (size first, then labels); predict_proba is "
            "the size-weighted first step, whose 0.5 threshold need not give that set"
        )
    if isinstance(estimator, KNNChain):
        failures["check_classifiers_multilabel_output_format_predict_proba"] = (
            "predict_proba is the share of the R neighbours voting 1 (Trajdos and Kurzynski, "
            "eq. 11), exactly 0 or 1 when they agree"
        )
    if isinstance(estimator, BRkNN):
        failures["check_classifiers_multilabel_output_format_predict_proba"] = (
            "predict_proba is the confidence, the share of the k neighbours holding the label "
            "(Spyromitros et al. 2008), exactly 0 or 1 when they agree (often, for k = 3, and "
            "always for the k = 1 that n_neighbors='auto' chooses on the check's data)"
        )
    return failures


def assert_checks_fail_as_expected(estimator, expected):
    """Run all of scikit-learn's checks on ``estimator``: exactly the ``expected`` ones fail.

    ``expected`` maps a check's name to the reason it fails. A check that fails and is not
    listed, or a listed check that no longer fails (every run of it passed, or it no longer
    runs), fails this assertion with the names and errors of all of them; the traceback is
    that of the first unexpected failure. Checks that skip themselves (array API input
    without ``SCIPY_ARRAY_API``) count as passing.
    """
    results = check_estimator(
        estimator, expected_failed_checks=expected, on_skip=None, on_fail=None
    )
    failed = {}
    for result in results:
        if result["status"] in ("failed", "xfail"):
            failed.setdefault(result["check_name"], result["exception"])
    unexpected = {name: error for name, error in failed.items() if name not in expected}
    no_longer_failing = sorted(set(expected) - set(failed))
    if unexpected or no_longer_failing:
        lines = [f"{type(estimator).__name__}: scikit-learn's checks differ from the expected"]
        lines += [
            f"  fails: {name}: {type(e).__name__}: {e}".replace("\n", "\n    ")
            for name, e in unexpected.items()
        ]
        lines += [f"  listed as failing, now passes: {name}" for name in no_longer_failing]
        raise AssertionError("\n".join(lines)) from next(iter(unexpected.values()), None)


ids = [name for name, _ in INSTANCES]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_scikit_learn_checks(estimator):
    assert_checks_fail_as_expected(estimator, expected_failures(estimator))


@pytest.fixture(scope="module")
def data():
    return dependent_labels(0, n=120)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_fit_returns_self_and_leaves_parameters_alone(estimator, data):
    X, Y = data
    model = clone(estimator)
    before = repr(model.get_params())
    assert model.fit(X, Y) is model
    assert repr(model.get_params()) == before
    assert model.n_features_in_ == X.shape[1]
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])


def scores(model, X):
    """predict_proba where the estimator has it, else its label sets."""
    return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_input_forms_agree(estimator, data):
    X, Y = data
    X = X - X.min()  # non-negative, so that every event model accepts it
    expected = scores(clone(estimator).fit(X, Y), X)
    readonly = X.copy()
    readonly.setflags(write=False)
    variants = [
        (sp.csr_matrix(X), Y),
        (np.asfortranarray(X), Y),
        (readonly, Y),
        (X.tolist(), Y.tolist()),
        (X.astype(np.float32), Y.astype(bool)),
    ]
    for X_in, Y_in in variants:
        got = scores(clone(estimator).fit(X_in, Y_in), X_in)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "estimator", [KNNChain(), OOCC(), GeneticChainEnsemble(), MLkNN(), BRkNN(), IBLRML()], ids=str
)
def test_unweighted_methods_refuse_sample_weight_with_the_reason(estimator, data):
    X, Y = data
    with pytest.raises(TypeError, match=r"takes no sample_weight: .*repeat rows"):
        clone(estimator).fit(X, Y, sample_weight=np.ones(len(Y)))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_sample_weight_forms_and_integer_weights(estimator, data):
    if isinstance(estimator, (KNNChain, OOCC, GeneticChainEnsemble, MLkNN, BRkNN, IBLRML)):
        pytest.skip("nearest neighbours and the validated order searches take no weights")
    X, Y = data
    weights = np.random.default_rng(0).integers(1, 4, len(Y))
    model = clone(estimator).fit(X, Y, sample_weight=weights)
    expected = scores(model, X)
    for form in (weights.tolist(), pd.Series(weights)):
        got = scores(clone(estimator).fit(X, Y, sample_weight=form), X)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    # the ensembles' samples and DynamicChain's validation split are draws of rows
    drawn = (BaggedBinaryRelevance, EnsembleClassifierChains, DynamicChain, DynamicChainEnsemble)
    if not isinstance(estimator, drawn):
        # settings chosen from the data (events="tuned", rule="tuned") are chosen by
        # cross-validation, whose folds of repeated rows are not those of weighted rows (a
        # repeated row falls in several folds): the repeated rows are fitted with the
        # settings the weighted fit chose, which must give its model
        fixed = clone(estimator).set_params(**getattr(model, "chosen_params_", {}))
        repeated = fixed.fit(np.repeat(X, weights, 0), np.repeat(Y, weights, 0))
        np.testing.assert_allclose(scores(repeated, X), expected, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(repeated.predict(X), model.predict(X))
    with pytest.raises(ValueError, match="sample_weight"):
        clone(estimator).fit(X, Y, sample_weight=weights[:-1])


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_prediction_is_row_wise_and_survives_pickling(estimator, data):
    X, Y = data
    model = clone(estimator).fit(X, Y)
    expected = model.predict(X)
    permutation = np.random.default_rng(1).permutation(len(X))
    np.testing.assert_array_equal(model.predict(X[permutation]), expected[permutation])
    batches = np.vstack([model.predict(X[rows]) for rows in np.array_split(np.arange(len(X)), 7)])
    np.testing.assert_array_equal(batches, expected)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), expected)
    assert expected.shape == Y.shape and set(np.unique(expected)) <= {0, 1}


@pytest.mark.parametrize(
    "estimator",
    [pytest.param(e, id=name) for name, e in INSTANCES if hasattr(e, "decision_function")],
)
def test_decision_function_gives_predict(estimator, data):
    X, Y = data
    model = clone(estimator).fit(X, Y)
    decision = model.decision_function(X)
    assert decision.shape == Y.shape and np.all(np.isfinite(decision))
    # NaiBX's set comes from its cascade, an ensemble's from its votes, a powerset's from
    # its most probable set: not from a cut of the scores
    voters = (
        BaggedBinaryRelevance,
        EnsembleClassifierChains,
        DynamicChainEnsemble,
        LabelPowerset,
        RAkEL,
        OOCC,
        GeneticChainEnsemble,
    )
    if isinstance(model, (NaiBX, *voters)):
        return
    if isinstance(model, BRkNN) and model.extension is not None:
        return  # -a and -b fill empty rows and set sizes beyond the confidences' cut
    if getattr(model, "rule_", None) is None:  # the model's own predict
        np.testing.assert_array_equal((decision > 0).astype(int), model.predict(X))
        return
    # a decision rule chosen at fit (rule="tuned") cuts the scores of decision_function;
    # the model's own predict is still their cut at 0
    np.testing.assert_array_equal(model.rule_.predict(decision), model.predict(X))
    own = clone(estimator).set_params(rule="predict").fit(X, Y)
    own_decision = own.decision_function(X)
    np.testing.assert_array_equal((own_decision > 0).astype(int), own.predict(X))
