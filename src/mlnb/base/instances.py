"""What every estimator declares for the shared tests: its small, fast test instances."""

from __future__ import annotations

__all__ = ["UnitTestParams"]


class UnitTestParams:
    """Mixin of mlnb's estimator bases: ``_unit_test_params()``, as river's.

    :func:`mlnb.estimators.test_instances` builds one instance per dict, so the shared
    tests (scikit-learn's checks, the API, protocol and model-file tests) check every
    estimator without a list to edit.
    """

    @classmethod
    def _unit_test_params(cls):
        """Keyword arguments of the instances the shared tests check.

        Returns
        -------
        list of dict
            One dict per instance: small and fast; ``[{}]``, the defaults, unless a
            subclass says otherwise.
        """
        return [{}]
