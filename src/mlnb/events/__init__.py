"""Event models: statistics -> (n_samples x n_groups) log-likelihood matrices.

Classical: :class:`Gaussian`, :class:`Multinomial`, :class:`Bernoulli`.
Bayesian (posterior predictive, seed 001 eqs. 19-22): :class:`BayesianGaussian`,
:class:`BayesianMultinomial`, :class:`BayesianBernoulli`. Column blocks: :class:`Mixed`.
Weka's Gaussian estimator (seed 003's Naive Bayes): :class:`DiscretisedGaussian`.
"""

from ._base import EventModel, entrywise_sum
from .bernoulli import BayesianBernoulli, Bernoulli
from .discretised import DiscretisedGaussian, weka_precision
from .gaussian import BayesianGaussian, Gaussian
from .mixed import Mixed
from .multinomial import BayesianMultinomial, Multinomial

__all__ = [
    "EVENT_MODELS",
    "BayesianBernoulli",
    "BayesianGaussian",
    "BayesianMultinomial",
    "Bernoulli",
    "DiscretisedGaussian",
    "EventModel",
    "Gaussian",
    "Mixed",
    "Multinomial",
    "entrywise_sum",
    "make_event_model",
    "weka_precision",
]

#: Event models by the names that estimators' ``events`` parameter accepts.
EVENT_MODELS = {
    "gaussian": Gaussian,
    "multinomial": Multinomial,
    "bernoulli": Bernoulli,
    "bayesian_gaussian": BayesianGaussian,
    "bayesian_multinomial": BayesianMultinomial,
    "bayesian_bernoulli": BayesianBernoulli,
}


def make_event_model(spec):
    """An event model from a name (default hyper-parameters) or an event-model object."""
    if isinstance(spec, EventModel):
        return spec
    if isinstance(spec, str) and spec in EVENT_MODELS:
        return EVENT_MODELS[spec]()
    raise ValueError(
        f"unknown event model {spec!r}; use one of {sorted(EVENT_MODELS)} or an object "
        "from mlnb.events"
    )
