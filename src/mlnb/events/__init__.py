"""Event models: statistics -> (n_samples x n_groups) log-likelihood matrices.

The protocol (``prepare``, ``estimate``, ``score``, ``score_ratio``, ``silence``,
``input_kind``) is described in :class:`EventModel`; each model's parameters are a typed
:class:`Parameters` object.

Classical: :class:`Gaussian`, :class:`Multinomial`, :class:`Bernoulli`, :class:`Categorical`,
:class:`Complement` (Rennie et al. 2003).
Bayesian (posterior predictive, Xu 2018, eqs. 19-22): :class:`BayesianGaussian`,
:class:`BayesianMultinomial`, :class:`BayesianBernoulli`; :class:`BayesianCategorical`
(Dirichlet, asymmetric concentrations). Column blocks: :class:`Mixed`.
Weka's Gaussian estimator (the Naive Bayes of Trajdos and Kurzynski's dynamic classifier
chains): :class:`DiscretisedGaussian`. Chosen per column from the data (``events="auto"``,
``events="weka"``): :mod:`mlnb.events.auto`. An estimator's ``missing=`` option bound to
its model: :func:`bind_missing` (:class:`IgnoreMissing` for ``"ignore"``).
"""

from . import auto
from ._base import EventModel, Parameters, entrywise_sum, entrywise_sums, named_models
from .auto import Auto
from .bernoulli import BayesianBernoulli, Bernoulli, BernoulliParameters
from .categorical_model import (
    BayesianCategorical,
    Categorical,
    CategoricalParameters,
    count_categories,
)
from .compact import CompactLogOdds
from .complement import Complement, ComplementParameters
from .discretised import DiscretisedGaussian, DiscretisedGaussianParameters, weka_precision
from .gaussian import BayesianGaussian, Gaussian, GaussianParameters, StudentTParameters
from .missing import IgnoreMissing, bind_missing
from .mixed import Mixed, MixedParameters
from .multinomial import (
    BayesianMultinomial,
    DirichletMultinomialParameters,
    Multinomial,
    MultinomialParameters,
)
from .per_label import PerLabel, PerLabelParameters
from .selection import ChiSquaredSelection, SelectedParameters

__all__ = [
    "EVENT_MODELS",
    "Auto",
    "BayesianBernoulli",
    "BayesianCategorical",
    "BayesianGaussian",
    "BayesianMultinomial",
    "Bernoulli",
    "BernoulliParameters",
    "Categorical",
    "CategoricalParameters",
    "ChiSquaredSelection",
    "CompactLogOdds",
    "Complement",
    "ComplementParameters",
    "DirichletMultinomialParameters",
    "DiscretisedGaussian",
    "DiscretisedGaussianParameters",
    "EventModel",
    "Gaussian",
    "GaussianParameters",
    "IgnoreMissing",
    "Mixed",
    "MixedParameters",
    "Multinomial",
    "MultinomialParameters",
    "Parameters",
    "PerLabel",
    "PerLabelParameters",
    "SelectedParameters",
    "StudentTParameters",
    "count_categories",
    "entrywise_sum",
    "entrywise_sums",
    "make_event_model",
    "named_models",
    "auto",
    "bind_missing",
    "weka_precision",
]

#: mlnb's event models by the names that estimators' ``events`` parameter accepts (each
#: class's ``name``; :func:`named_models` adds those a user has defined since).
EVENT_MODELS = named_models()


def make_event_model(spec):
    """An event model from a name (default hyper-parameters) or an event-model object."""
    if isinstance(spec, EventModel):
        return spec
    named = named_models()
    if isinstance(spec, str) and spec in named:
        return named[spec]()
    if auto.is_rule(spec):
        raise ValueError(
            f"events={spec!r} is chosen from the training rows: an estimator resolves it at "
            "fit (its events_), or call mlnb.events.auto.resolve(rule, X) for a model"
        )
    if isinstance(spec, type) and issubclass(spec, EventModel):
        raise TypeError(
            f"events={spec.__name__} is a class; pass an instance, e.g. {spec.__name__}()"
        )
    raise ValueError(
        f"unknown event model {spec!r}; use one of {sorted(named_models())} or an object "
        "from mlnb.events"
    )
