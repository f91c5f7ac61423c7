"""Peak memory of loading model files, as a ratio to the array bytes they declare.

Each case is loaded by a fresh subprocess, which reports the peak of ``tracemalloc`` (what
Python and numpy allocate) and of its resident memory above what it held after importing
mlnb (``_memory.peak_rss_kib``, reset before the load), as ratios to the bytes the file's
arrays declare (the target: under 1.2):

- ``size bomb``: a small model's file with one array replaced by zeros that deflate
  about a thousandfold, declaring ``--bomb-mb`` MB (its checksum fails once read, as a
  crafted file's would); ``2 x`` the same with two such arrays;
- ``real model``: ``BinaryRelevance(events="gaussian")`` fitted on a large real data set
  of ../shared/data (``--dataset``, default rcv1sub1: 47236 features, 101 labels), saved,
  then loaded;
- ``over max_bytes``: the size bomb with ``max_bytes`` below what it declares: refused
  before anything is decompressed;
- ``JSON bomb``: a file whose metadata is ``--json-mb`` MB of JSON (a list of empty
  dictionaries, the costliest to parse), read by ``read_metadata``: refused by the default
  ``max_bytes``, which counts what parsing it would take.

    python benchmarks/bench_model_load.py [--bomb-mb 512] [--dataset rcv1sub1] [--json-mb 62]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np

from _memory import peak_rss_kib, release_free_memory, reset_peak_rss, rss_kib

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def child(function, path, max_bytes):
    """In a subprocess: load ``path`` and print peaks and outcome as JSON."""
    from mlnb.io import ModelFileError, load, read_metadata

    reader = {"load": load, "read_metadata": read_metadata}[function]
    max_bytes = None if max_bytes == "none" else int(max_bytes)
    with tempfile.TemporaryDirectory() as folder:  # imports and caches, before measuring
        small_model(Path(folder) / "warm.mlnb")
        load(Path(folder) / "warm.mlnb")
    release_free_memory()
    reset_peak_rss()
    before = rss_kib()
    tracemalloc.start()
    start = time.perf_counter()
    try:
        reader(path, max_bytes=max_bytes)
        outcome = "loaded"
    except ModelFileError as error:
        outcome = str(error).split(": ", 1)[1]
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1]
    print(
        json.dumps(
            {
                "traced": traced,
                "rss": (peak_rss_kib() - before) * 1024,
                "seconds": seconds,
                "outcome": outcome,
            }
        )
    )


def measure(function, path, max_bytes="default"):
    if max_bytes == "default":
        from mlnb.io import DEFAULT_MAX_BYTES

        max_bytes = DEFAULT_MAX_BYTES
    command = [sys.executable, __file__, "--child", function, str(path), str(max_bytes)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def declared_arrays(path):
    """Bytes the file's arrays (every member but the JSON) declare."""
    with zipfile.ZipFile(path) as archive:
        return sum(i.file_size for i in archive.infolist() if i.filename != "__meta__.npy")


def small_model(path):
    import mlnb
    from mlnb.io import save

    X = np.random.default_rng(0).poisson(1.0, size=(60, 6))
    save(mlnb.MultinomialNB().fit(X, np.arange(60) % 3), path)


def size_bomb(path, megabytes, n_arrays=1):
    """``small_model`` with ``n_arrays`` arrays replaced by ``megabytes`` MB of zeros each,
    their checksums valid (so that every array is read; the model's checks then refuse
    the file)."""
    small_model(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    replaced = [f"a{i}.npy" for i in range(n_arrays)]
    header = io.BytesIO()
    shape = (megabytes * 2**20 // 8,)
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    zeros = hashlib.sha256()
    for _ in range(megabytes):
        zeros.update(bytes(2**20))
    meta = json.loads(np.load(io.BytesIO(members["__meta__.npy"])).tobytes())
    meta["checksums"].update({name[:-4]: zeros.hexdigest() for name in replaced})
    encoded = io.BytesIO()
    np.save(encoded, np.frombuffer(json.dumps(meta).encode(), np.uint8))
    members["__meta__.npy"] = encoded.getvalue()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            if name not in replaced:
                archive.writestr(name, data)
                continue
            with archive.open(name, "w", force_zip64=True) as member:
                member.write(header.getvalue())
                for _ in range(megabytes):
                    member.write(bytes(2**20))


def real_model(path, dataset):
    import mlnb
    from mlnb.datasets import load_dataset
    from mlnb.io import save

    data = load_dataset(dataset, DATA, split="full")
    model = mlnb.BinaryRelevance(events="gaussian", rule="threshold").fit(data.X, data.Y)
    save(model, path)
    return f"BinaryRelevance(gaussian) on {dataset}"


def json_bomb(path, megabytes):
    """``small_model`` whose user metadata is ``megabytes`` MB of ``[{},{},...]``."""
    small_model(path)
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    count = megabytes * 2**20 // 3
    bomb = "[" + ",".join(["{}"] * count) + "]"
    text = arrays.pop("__meta__").tobytes().decode()
    text = text.replace('"metadata": {}', '"metadata": {"x": ' + bomb + "}")
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays, __meta__=np.frombuffer(text.encode(), np.uint8))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bomb-mb", type=int, default=512)
    parser.add_argument("--dataset", default="rcv1sub1")
    parser.add_argument("--json-mb", type=int, default=62)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    folder = Path(tempfile.mkdtemp(prefix="bench_model_load_"))
    cases = []
    path = folder / "bomb.mlnb"
    size_bomb(path, args.bomb_mb)
    cases.append((f"size bomb ({args.bomb_mb} MB)", path, "load", "default"))
    path = folder / "bomb2.mlnb"
    size_bomb(path, args.bomb_mb // 2, n_arrays=2)
    cases.append((f"size bomb (2 x {args.bomb_mb // 2} MB)", path, "load", "default"))
    if (DATA / "MANIFEST.tsv").is_file():
        path = folder / "real.mlnb"
        name = real_model(path, args.dataset)
        cases.append((name, path, "load", "default"))
    else:
        print(f"(no real model: benchmark data not found at {DATA})")
    half = declared_arrays(folder / "bomb.mlnb") // 2
    cases.append(("size bomb over max_bytes", folder / "bomb.mlnb", "load", half))
    path = folder / "json.mlnb"
    json_bomb(path, args.json_mb)
    cases.append((f"JSON bomb ({args.json_mb} MB of JSON)", path, "read_metadata", "default"))
    print(
        "| case | file MB | arrays declare MB | traced peak MB | RSS peak MB | "
        "ratio (traced) | ratio (RSS) | seconds | outcome |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for label, path, function, max_bytes in cases:
        result = measure(function, path, max_bytes)
        size, declared = os.path.getsize(path), declared_arrays(path)
        ratio = (
            (f"{result['traced'] / declared:.3f}", f"{result['rss'] / declared:.3f}")
            if "max_bytes" not in result["outcome"] and declared >= 2**20
            else ("-", "-")
        )
        print(
            f"| {label} | {size / 1e6:.2f} | {declared / 1e6:.1f} | "
            f"{result['traced'] / 1e6:.1f} | {result['rss'] / 1e6:.1f} | {ratio[0]} | "
            f"{ratio[1]} | {result['seconds']:.2f} | {result['outcome'][:70]} |"
        )
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    return None


if __name__ == "__main__":
    sys.exit(main())
