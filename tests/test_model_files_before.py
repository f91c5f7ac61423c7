"""Model files saved before the estimator contract moved (base/, selection/) still load.

The files in tests/data were written by the code of commit e0f8b57, where
``TunedThresholdsCV`` lived in ``mlnb.thresholds``; they must load and predict as then.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mlnb.io import load
from mlnb.selection import TunedThresholdsCV

DATA = Path(__file__).parent / "data"


def test_files_saved_before_the_move_load_and_predict_as_then():
    X = np.load(DATA / "before_selection_inputs.npz")["X"]
    then = np.load(DATA / "before_selection_outputs.npz")
    tuned = load(DATA / "tuned_br_before_selection.mlnb")
    assert isinstance(tuned, TunedThresholdsCV)
    # scores to rounding: another CPU's exp and sums give another last bit (2e-16 relative
    # measured on an AMD EPYC against the arrays of the machine that saved the files)
    np.testing.assert_allclose(tuned.decision_function(X), then["tuned"], rtol=1e-12)
    np.testing.assert_array_equal(tuned.predict(X), then["tuned_pred"])
    chain = load(DATA / "cc_before_selection.mlnb")
    np.testing.assert_allclose(chain.predict_proba(X), then["cc"], rtol=1e-12, atol=1e-15)
    classifier = load(DATA / "mnb_before_selection.mlnb")
    np.testing.assert_allclose(classifier.predict_proba(X), then["mnb"], rtol=1e-12, atol=1e-15)


def test_the_former_import_paths_still_work_for_one_release():
    import mlnb.selection as selection
    from mlnb.base import is_additive
    from mlnb.thresholds import (
        LABEL_GRID,
        OWN_RULE,
        WEAK_LABELS,
        event_grid,
        label_scores,
        scoring_function,
    )
    from mlnb.thresholds import TunedThresholdsCV as Tuned
    from mlnb.thresholds import is_additive as former_is_additive
    from mlnb.tuning import FoldSubtractionSearchCV

    assert Tuned is TunedThresholdsCV and former_is_additive is is_additive
    assert FoldSubtractionSearchCV is selection.FoldSubtractionSearchCV
    assert (LABEL_GRID, OWN_RULE, WEAK_LABELS) == (
        selection.LABEL_GRID,
        selection.OWN_RULE,
        selection.WEAK_LABELS,
    )
    assert event_grid is selection.event_grid and label_scores is selection.label_scores
    assert scoring_function is selection.scoring_function
