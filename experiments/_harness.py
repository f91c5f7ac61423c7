"""What the paper scripts of ``experiments/`` share: where their reports go, the protocol's
constants, and the fold runner they run on (:func:`mlnb.evaluation.run_folds`).

Each script is the configuration of one paper (its data sets, methods and report sections);
the machinery is mlnb's: ``run_folds`` (resumable, parallel, with a deadline and failures
recorded), ``fit_and_score``, ``compare`` and ``format_table``.
"""

from __future__ import annotations

from pathlib import Path

#: The repository (this folder's parent).
REPO = Path(__file__).resolve().parents[1]
#: Where the reports, their fold CSVs and figures go.
OUT = REPO / "docs" / "experiments"
#: Seed of the folds and of the models (fold k's models get ``SEED + k``).
SEED = 0
#: k of the papers' k-fold cross-validation.
FOLDS = 10
#: Significance level of the comparisons (Trajdos and Kurzynski use 0.1).
ALPHA = 0.1
