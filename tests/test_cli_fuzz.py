"""The `mlnb` command never shows a raw traceback: seeded random argument lists drawn from
the commands' real options, over broken and hostile files (empty, binary garbage, truncated
ARFF and model files, folders, FIFOs, missing paths, unwritable outputs, a full disk)."""

import gzip
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import click
import numpy as np
import pytest
from click.testing import CliRunner

from mlnb.cli import main

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
# one argument list per seed; MLNB_FUZZ_SEEDS=1500 searches further (about 2 minutes)
SEEDS = range(int(os.environ.get("MLNB_FUZZ_SEEDS", "300")))
TIMEOUT = 20  # seconds: a run that blocks (e.g. reading a FIFO) fails the case
# `datasets` over the real data reads every set; uncached (a fresh machine) that takes
# about 30 s here, most of it stemming the 20 Newsgroups corpus, so it gets longer
SLOW_COMMANDS = {"datasets": 300}

COMMANDS = ("fit", "predict", "evaluate", "compare", "datasets", "demo")
FAST_METHODS = ("br", "cc", "naibx", "lp", "mnb", "bnb", "gnb", "br-tuned")
JUNK_WORDS = ("", ",", "svm", "-", "--", "\x00", "é", "a" * 300)


def _arff(relation, n=30, seed=0):
    """A small multi-label ARFF: 2 labels first, then 3 numeric features."""
    rng = np.random.default_rng(seed)
    head = f"@relation '{relation}'\n@attribute y1 {{0,1}}\n@attribute y2 {{0,1}}\n"
    head += "".join(f"@attribute x{i} numeric\n" for i in range(3)) + "@data\n"
    rows = [
        f"{int(a > 0.5)},{int(b > 0.4)},{a:.3f},{b:.3f},{c:.3f}" for a, b, c in rng.random((n, 3))
    ]
    return head + "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Named paths: good inputs, hostile inputs, and outputs good and bad."""
    root = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(0)
    tiny = _arff("tiny: -C 2")
    paths = {
        "tiny.arff": tiny,
        "headerless.arff": _arff("no label information"),
        "unlabelled.arff": tiny.split("@data\n")[0] + "@data\n?,?,0.1,0.2,0.3\n?,?,1,2,3\n",
        "truncated.arff": tiny[: len(tiny) // 2],
        "header-only.arff": tiny[: tiny.index("@attribute x1")],
        "empty.arff": "",
        "empty": "",
        "docs.txt": "".join(f"{'ab'[i % 2]}\tword{i % 5} other{i % 3} w\n" for i in range(40)),
        "nul.txt": "a\tb\x00c\n\x00\t\x00\n",
    }
    for name, text in paths.items():
        (root / name).write_text(text)
    garbage = rng.integers(0, 256, 4000, dtype=np.uint8).tobytes()
    for name in ("garbage.bin", "garbage.arff", "garbage.mlnb", "garbage.txt"):
        (root / name).write_bytes(garbage)
    (root / "garbage.arff.gz").write_bytes(garbage)
    (root / "truncated.arff.gz").write_bytes(gzip.compress(tiny.encode())[:150])
    (root / "utf16.arff").write_bytes(tiny.encode("utf-16"))
    real = DATA / "multilabel" / "emotions" / "emotions-test.arff"
    if real.is_file():  # real data: a headerless copy (no XML beside it) and a truncated one
        content = real.read_bytes()
        (root / "emotions-test.arff").write_bytes(content)
        (root / "emotions-cut.arff").write_bytes(content[: len(content) * 2 // 3])
    runner = CliRunner()
    fits = [(root / "tiny.arff", "br", "model.mlnb"), (root / "docs.txt", "mnb", "text.mlnb")]
    if real.is_file():
        fits.append(
            (DATA / "multilabel" / "emotions" / "emotions-train.arff", "br", "emotions.mlnb")
        )
    for data, method, name in fits:
        result = runner.invoke(main, ["fit", str(data), "-m", method, "-o", str(root / name), "-q"])
        assert result.exit_code == 0, result.output
    model = (root / "model.mlnb").read_bytes()
    (root / "truncated.mlnb").write_bytes(model[: len(model) // 2])
    (root / "flipped.mlnb").write_bytes(model[:-40] + bytes(40))
    (root / "empty.mlnb").write_bytes(b"")
    (root / "folder").mkdir()
    os.mkfifo(root / "fifo")
    (root / "a-file").write_text("x")
    inputs = [root / name for name in sorted(os.listdir(root))]
    inputs += [root / "missing.arff", root / "missing", root / "nope" / "x.arff"]
    outputs = [
        root / "out" / "new.csv",
        root / "out" / "new.mlnb",
        root / "out" / "new.mlnb",
        root / "out" / "sub",
        root / "out",
        root / "nope" / "x.csv",
        root / "a-file" / "x.csv",
        root / "folder",
        root / "fifo",
        Path("/dev/full"),  # every write fails: no space left on device
        Path("/proc/mlnb-fuzz.csv"),  # cannot be created, even by root
    ]
    (root / "out").mkdir()
    return {"root": root, "inputs": inputs, "outputs": outputs}


def _pick(rng, pool):
    return str(rng.choice(list(pool)))


def _value(rng, param, files, command):
    """A value for option or argument ``param``: mostly valid, sometimes hostile (paths
    more often than other values, so that most runs get as far as reading and writing)."""
    name, kind = param.name, param.type
    pathlike = name in ("output", "out_dir", "model", "update", "data_dir", "data", "names")
    hostile = rng.random() < (0.3 if pathlike else 0.07)
    paths = [*files["inputs"], *files["outputs"]]
    if name in ("output", "out_dir"):  # never an input: each case sees the same files
        writable = files["outputs"][:4] + files["outputs"][-2:]
        pool = [*files["outputs"], files["root"] / "a-file"] if hostile else writable
        if command == "fit":  # a model file is renamed over its target: never over a device
            pool = [p for p in pool if not str(p).startswith("/dev/")]
        return _pick(rng, pool)
    if name in ("model", "update"):
        models = ["model.mlnb"] * 4 + ["text.mlnb"] * 2 + ["truncated.mlnb", "fifo", "empty.mlnb"]
        return _pick(rng, paths if hostile else [files["root"] / m for m in models])
    if name == "data_dir":
        return _pick(rng, paths if hostile else [DATA, files["root"], files["root"] / "folder"])
    if name in ("data", "names"):
        good = ["tiny.arff", "unlabelled.arff", "headerless.arff", "docs.txt", "emotions-test.arff"]
        named = ["synthetic-counts", "emotions", "webkb", "nonexistent", "../..", "-"]
        if rng.random() < 0.15:
            return _pick(rng, named)
        return _pick(rng, files["inputs"] if hostile else [files["root"] / g for g in good])
    if name in ("methods", "method"):
        return _pick(rng, JUNK_WORDS if hostile else (*FAST_METHODS, "br,mnb", "br,,cc"))
    if name == "params":
        good = ("alpha=0.5", "events=bernoulli", "rule=predict", "events=gaussian")
        bad = ("alpha=-1", "alpha=x", "=1", "nonsense=1", "alpha", "alpha=[1,2]", "alpha=1e999",
               "events=nope", "alpha=nan")  # fmt: skip
        return _pick(rng, bad if hostile else good)
    if name == "metrics":
        return _pick(rng, ("nope", ",", "text") if hostile else ("micro_f1", "ranking", "hamming"))
    if name == "threshold":
        return _pick(rng, ("nan", "inf", "x", "1e999") if hostile else ("tuned", "rcut", "0", "-1"))
    if isinstance(kind, click.Choice):
        return _pick(rng, ["bogus", ""] if hostile else kind.choices)
    if isinstance(kind, click.types.IntParamType):
        bad = ("-1", "0", "99999999999999999999", "x", "", "1e3")
        return _pick(rng, bad if hostile else ("1", "2", "3", "5"))
    if isinstance(kind, click.types.FloatParamType):
        bad = ("0", "1", "-1", "nan", "inf", "1e400", "x")
        return _pick(rng, bad if hostile else ("0.5", "0.66", "0.1", "0.05"))
    return _pick(rng, [*JUNK_WORDS, *map(str, paths)])


_MATCHING = [
    ("model.mlnb", "tiny.arff"),
    ("model.mlnb", "unlabelled.arff"),
    ("model.mlnb", "headerless.arff"),
    ("text.mlnb", "docs.txt"),
    ("emotions.mlnb", "emotions-test.arff"),
]

# cheap values for the options whose defaults would make a run long
_KEPT_SHORT = {"cv": "2", "samples": "60", "folds": "2"}


def arguments(seed, files):
    """A random argument list for one command, from the command's own parameters."""
    rng = random.Random(seed)
    command = main.commands[rng.choice(COMMANDS)]
    args = [command.name]
    matched = {}  # predict: a model and data that go together, mostly
    if command.name == "predict" and rng.random() < 0.6:
        model, data = rng.choice(_MATCHING)
        if (files["root"] / model).is_file():
            matched = {"model": str(files["root"] / model), "data": str(files["root"] / data)}
    for param in command.params:
        if isinstance(param, click.Argument):
            if rng.random() < 0.95:
                args.append(matched.get(param.name) or _value(rng, param, files, command.name))
            continue
        if param.name in ("help", "version"):
            continue
        # outputs often (writing is where disks fill up); datasets without MLNB_DATA's
        # dozens of sets (seconds each)
        often = param.name in ("output", "out_dir") or command.name == "datasets"
        wanted = param.required or param.name in _KEPT_SHORT
        wanted = wanted or rng.random() < (0.6 if often else 0.2)
        if command.name == "compare" and param.name in ("methods", "names"):
            wanted = True  # the defaults run 6 methods on 4 data sets: minutes
        if not wanted or rng.random() < 0.02:
            continue
        option = rng.choice(param.opts)
        if param.is_flag:
            args.append(rng.choice(param.secondary_opts or param.opts) if rng.random() < 0.2
                        else option)  # fmt: skip
            continue
        if param.name in _KEPT_SHORT and rng.random() < 0.8:
            args += [option, _KEPT_SHORT[param.name]]
            continue
        repeats = (2, 2, 3, 1) if command.name == "compare" else (1, 1, 1, 2)
        for _ in range(rng.choice(repeats) if param.multiple else 1):
            args += [option, _value(rng, param, files, command.name)]
    if rng.random() < 0.04:
        args.insert(rng.randrange(1, len(args) + 1), rng.choice(("--nonsense", "extra", "-")))
    if rng.random() < 0.03 and len(args) > 2:
        del args[-1]  # an option without its value
    return args


class _Timeout(BaseException):
    """A BaseException, so that the command's handler of unexpected errors cannot report it
    as an internal error (a hang must read as a hang)."""


def _alarm(signum, frame):
    raise _Timeout


def run(args, root):
    """The command in-process; the result, or a _Timeout as its exception."""
    here = os.getcwd()
    os.chdir(tempfile.mkdtemp(dir=root))  # relative outputs (compare's mlnb-compare/) here
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SLOW_COMMANDS.get(args[0] if args else "", TIMEOUT))
    try:
        return CliRunner().invoke(main, args)
    except _Timeout as hung:
        return SimpleNamespace(output="", exception=hung, exit_code=None)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(here)


def problem(result):
    """What is wrong with a run's outcome (None: a clean exit 0, 1 or 2)."""
    text = result.output  # standard output and error, as a user sees them
    error = result.exception
    if isinstance(error, _Timeout):
        return "hung"
    if error is not None and not isinstance(error, SystemExit):
        return f"traceback: {type(error).__name__}: {error}"
    if "Traceback" in text or "internal error" in text:
        return "traceback in the output"
    if result.exit_code not in (0, 1, 2):
        return f"exit code {result.exit_code}"
    errors = [line for line in text.splitlines() if line.startswith("mlnb: error:")]
    if result.exit_code == 1 and len(errors) != 1:
        return f"exit 1 without one 'mlnb: error:' line: {text[-300:]!r}"
    return None


@pytest.mark.parametrize("seed", SEEDS)
def test_no_raw_traceback_on_random_arguments(seed, files):
    args = arguments(seed, files)
    result = run(args, files["root"])
    assert problem(result) is None, (args, problem(result), result.output[-2000:])


def test_the_generator_reaches_every_command_and_hostile_file(files):
    drawn = [arguments(seed, files) for seed in SEEDS]
    assert {args[0] for args in drawn} == set(COMMANDS)
    words = {word for args in drawn for word in args}
    for hostile in ("fifo", "folder", "garbage.mlnb", "truncated.arff", "missing", "empty.arff"):
        assert str(files["root"] / hostile) in words, hostile
    assert "/dev/full" in words and "--update" in words and "--prequential" in words


def test_a_full_disk_is_one_line_naming_the_file(files):
    root = files["root"]
    result = run(["predict", str(root / "model.mlnb"), str(root / "tiny.arff"),
                  "-o", "/dev/full"], root)  # fmt: skip
    assert problem(result) is None and result.exit_code == 1, result.output
    assert result.stderr == "mlnb: error: /dev/full: No space left on device\n"
    mlnb = Path(sys.executable).with_name("mlnb")  # as a user runs it: no traceback either
    ran = subprocess.run(
        [mlnb, "predict", root / "model.mlnb", root / "tiny.arff", "-o", "/dev/full"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 1 and ran.stderr == result.stderr, ran.stderr


def test_os_errors_of_every_command_are_one_line(files, monkeypatch):
    root = files["root"]
    target = root / "out" / "full.mlnb"

    def full(*args, **kwargs):  # a write to a full disk: the system names no file
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("mlnb.cli._models.save", full)
    result = run(["fit", str(root / "tiny.arff"), "-m", "br", "-o", str(target), "-q"], root)
    assert result.exit_code == 1, result.output
    assert result.stderr == f"mlnb: error: {target}: No space left on device\n"

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", "/somewhere/report.md")

    monkeypatch.setattr("mlnb.evaluation.write_comparison", denied)
    result = run(["compare", "-m", "br,naibx", "--datasets", str(root / "tiny.arff"),
                  "--cv", "2", "-q"], root)  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.stderr == "mlnb: error: /somewhere/report.md: Permission denied\n"
    result = run(["compare", "-m", "br,naibx", "--datasets", str(root / "tiny.arff"),
                  "--cv", "2", "--out", "/proc/mlnb-fuzz", "-q"], root)  # fmt: skip
    assert problem(result) is None and result.exit_code == 1, result.output


def test_cases_the_fuzz_found(files):
    root = files["root"]
    args = ["fit", str(root / "tiny.arff"), "-m", "br,,cc", "--missing", "ignore", "-o", "m"]
    result = run(args, root)  # an unknown method with --missing ignore: was a KeyError
    assert problem(result) is None and "unknown method 'br,,cc'" in result.stderr
    # (the other: a RecursionError after ~1000 commands in one process, each wrapping the
    # warnings' format again: test_cli.py::test_warnings_are_made_one_line_once_per_process)


def test_a_fifo_is_refused_without_blocking(files):
    root = files["root"]
    for args in (
        ["predict", str(root / "fifo"), str(root / "tiny.arff")],
        ["fit", str(root / "tiny.arff"), "--update", str(root / "fifo"), "-o", "x.mlnb"],
        ["predict", str(root / "model.mlnb"), str(root / "tiny.arff"), "-o", str(root / "fifo")],
    ):
        result = run(args, root)
        assert problem(result) is None and result.exit_code in (1, 2), (args, result.output)
        assert "fifo" in result.output + result.stderr
