"""Run an ensemble's independent members, in parallel if asked, reporting progress.

The ensembles with ``n_jobs=`` and ``verbose=`` share :func:`run_members`: it calls a
function once per member through joblib (:class:`sklearn.utils.parallel.Parallel`, so that
scikit-learn's configuration and ``joblib.parallel_config`` apply), yields the results in
member order whatever the number of jobs, and at ``verbose >= 1`` writes one line per
member to stderr, for example ``DynamicChainEnsemble: member 3/10 fitted, 12.4 s``.
Random draws belong to the caller, made before dispatch in member order, so that every
``n_jobs`` gives the same results.
"""

from __future__ import annotations

import sys
import time

from sklearn.utils.parallel import Parallel, delayed

__all__ = ["Progress", "run_members"]


class Progress:
    """Lines ``"<owner>: <what> <i>/<total> <done>, <seconds> s"`` to stderr at verbose >= 1.

    Examples
    --------
    >>> progress = Progress("Model", 2, verbose=0)  # verbose=0: silent
    >>> progress.step()
    >>> progress.done
    1
    """

    def __init__(self, owner, total, verbose, *, what="member", done="fitted"):
        self.owner, self.total, self.verbose = owner, total, verbose
        self.what, self.verb = what, done
        self.done = 0
        self.start = time.perf_counter()

    def step(self):
        """One more unit finished; its line if verbose."""
        self.done += 1
        if self.verbose and self.verbose >= 1:
            elapsed = time.perf_counter() - self.start
            print(
                f"{self.owner}: {self.what} {self.done}/{self.total} {self.verb}, {elapsed:.1f} s",
                file=sys.stderr,
                flush=True,
            )


def run_members(function, arguments, *, n_jobs, verbose, owner, prefer, total=None, what="member"):
    """``function(*args)`` for every tuple of ``arguments``, yielded in member order.

    Parameters
    ----------
    function : callable
        One member's work; it must not draw random numbers from a shared generator.
    arguments : iterable of tuple
        Per member, the positional arguments of ``function``.
    n_jobs : int or None
        As joblib: None is 1 unless in a ``joblib.parallel_config`` context, -1 all cores.
    verbose : int
        At >= 1, a line to stderr as each member's result arrives.
    owner : str
        The name the lines start with (the estimator's class).
    prefer : {"threads", "processes"}
        joblib's backend hint.
    total : int or None, default=None
        The number of members in the lines (``len(arguments)`` if None).
    what : str, default="member"
        What the lines call a member (``"label"``: ``IBLRML: label 3/983 fitted``).

    Yields
    ------
    The results of ``function``, in the order of ``arguments``.

    Examples
    --------
    >>> list(run_members(pow, [(2, 3), (3, 2)], n_jobs=2, verbose=0, owner="X", prefer="threads"))
    [8, 9]
    """
    arguments = list(arguments)
    progress = Progress(owner, len(arguments) if total is None else total, verbose, what=what)
    results = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")(
        delayed(function)(*args) for args in arguments
    )
    for result in results:
        progress.step()
        yield result
