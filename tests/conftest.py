"""Shared fixtures: the benchmark data in ../shared/data, loaded once per session."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@cache
def _load(name, split):
    from mlnb.datasets import load_dataset

    return load_dataset(name, DATA, split=split)


@pytest.fixture(scope="session")
def shared_dataset():
    """``shared_dataset(name, split="train")``: a data set of ../shared/data, or a skip."""

    def get(name, split="train"):
        if not (DATA / "MANIFEST.tsv").is_file():
            pytest.skip(f"benchmark data not found at {DATA} (../shared/data beside the repo)")
        return _load(name, split)

    return get


@pytest.fixture(scope="module")
def client():
    """A Dask client on an in-process cluster of two one-thread workers (Dask tests)."""
    dask_distributed = pytest.importorskip("distributed")
    with (
        dask_distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        dask_distributed.Client(cluster) as client,
    ):
        yield client
