"""The `mlnb` command, driven as a user would: subprocesses in temporary folders."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import rankdata

import mlnb
from mlnb.cli import DEFAULT_COMPARE_METHODS, _estimator, _xy, main
from mlnb.cli._inputs import TextData
from mlnb.cli._methods import METHODS, MULTI_TARGET_METHODS, estimator_class, is_single_label
from mlnb.datasets import Dataset, load_text_corpus, make_multilabel
from mlnb.io import load, save
from mlnb.metrics import single_label_accuracy, single_label_f1
from mlnb.text import make_text_pipeline

MLNB = str(Path(sys.executable).with_name("mlnb"))
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def run(*args, cwd=None, check=True):
    result = subprocess.run(
        [MLNB, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300
    )
    if check and result.returncode != 0:
        raise AssertionError(f"mlnb {args} failed ({result.returncode}):\n{result.stderr}")
    return result


@pytest.mark.parametrize(
    "command", ["", "datasets", "fit", "predict", "evaluate", "compare", "demo"]
)
def test_every_command_has_help_with_examples(command):
    out = run(*([command] if command else []), "--help").stdout
    assert "Usage: mlnb" in out
    if command not in ("", "datasets", "bench"):
        assert "Example" in out


def test_python_m_mlnb_is_the_mlnb_command():
    result = subprocess.run(
        [sys.executable, "-m", "mlnb", "--help"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    commands = result.stdout.split("Commands:")[1].split()
    for command in ("bench", "compare", "datasets", "demo", "evaluate", "fit", "predict"):
        assert command in commands
    assert result.stdout == run("--help").stdout


def test_demo_prints_a_row_per_classifier():
    result = run("demo", "--samples", "300", "--folds", "3", "--quiet")
    out = result.stdout
    assert "3-fold cross-validation" in out.splitlines()[0]
    for name in ("MultinomialNB", "BayesianGaussianNB", "MixedNB", "scikit-learn GaussianNB"):
        assert name in out
    rows = json.loads(run("demo", "--samples", "300", "--folds", "3", "--json").stdout)
    assert len(rows) == 10
    assert all(0.3 < row["accuracy"] <= 1.0 for row in rows)
    assert {"macro_f1", "train_time", "test_time"} <= set(rows[0])
    assert run("demo", "--folds", "1", check=False).returncode == 1


def test_fit_then_predict_on_real_data(tmp_path):
    if not (DATA / "MANIFEST.tsv").is_file():
        pytest.skip("benchmark data not found at ../shared/data")
    model = tmp_path / "emotions.mlnb"
    run("fit", "emotions", "-m", "cc", "-p", "inference=beam", "-o", model, "--data-dir", DATA)
    out = tmp_path / "predictions.csv"
    run("predict", model, "emotions", "-o", out, "--data-dir", DATA)
    lines = out.read_text().splitlines()
    header = lines[0].split(",")
    assert len(header) == 12 and header[6].startswith("P(")  # 6 labels + 6 probabilities
    table = np.array([line.split(",") for line in lines[1:]], dtype=float)
    assert table.shape == (202, 12)  # the emotions test split
    assert set(np.unique(table[:, :6])) <= {0.0, 1.0}


def test_evaluate_json_and_compare_outputs(tmp_path):
    result = run("evaluate", "synthetic-counts", "-m", "br", "-m", "ecc", "--cv", "3", "--json")
    rows = json.loads(result.stdout)
    assert [r["method"] for r in rows] == ["br", "ecc"]
    assert {"hamming", "example_f1_loss", "train_time", "test_time"} <= set(rows[0])
    out = tmp_path / "cmp"
    run(
        "compare",
        "-m",
        "br",
        "-m",
        "cc",
        "-m",
        "lp",
        "--datasets",
        "synthetic-gaussian",
        "--datasets",
        "synthetic-counts",
        "--datasets",
        "synthetic-dependent",
        "--cv",
        "2",
        "--out",
        out,
        "--quiet",
    )
    for name in (
        "ranks.md",
        "ranks.csv",
        "summary.json",
        "means.json",
        "cd_hamming.png",
        "cd_hamming.svg",
    ):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    ranks = summary["criteria"]["hamming"]["average_ranks"]
    assert sorted(ranks) == ["br", "cc", "lp"] and sum(ranks.values()) == pytest.approx(6)


def test_errors_say_what_to_do(tmp_path):
    result = run("evaluate", "synthetic-gaussian", "-m", "svm", check=False)
    assert result.returncode == 1
    assert "unknown method 'svm'" in result.stderr and "br" in result.stderr
    result = run("evaluate", "synthetic-gaussian", "-m", "br", "--split", "1.5", check=False)
    assert result.returncode == 1 and "--split" in result.stderr
    result = run(
        "fit", "synthetic-gaussian", "-m", "br", "-p", "alpha", "-o", tmp_path / "m", check=False
    )
    assert result.returncode == 1 and "KEY=VALUE" in result.stderr
    result = run(
        "fit",
        "synthetic-gaussian",
        "-m",
        "br",
        "-p",
        "nonsense=1",
        "-o",
        tmp_path / "m",
        check=False,
    )
    assert result.returncode == 1 and "no parameter nonsense" in result.stderr
    foreign = tmp_path / "foreign.mlnb"
    foreign.write_text("not a model")
    result = run("predict", foreign, "synthetic-gaussian", check=False)
    assert result.returncode == 1 and "not a readable mlnb model file" in result.stderr
    result = run("evaluate", "no-such-data", "-m", "br", check=False)
    assert result.returncode == 1 and "unknown data set" in result.stderr
    assert run("fit", "synthetic-gaussian", check=False).returncode == 2  # usage error


def test_datasets_lists_generated_sets_without_a_data_folder(tmp_path):
    rows = json.loads(run("datasets", "--data-dir", tmp_path, "--json").stdout)
    assert {r["name"] for r in rows} >= {"synthetic-gaussian", "synthetic-counts"}
    assert all({"n", "d", "L", "LC", "LD", "avIR"} <= set(r) for r in rows)


# --- the registry: every public estimator by name, every name through a model file ---------


def invoke(*args):
    """The command in-process (click's runner): faster than a subprocess, same code path."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_every_public_estimator_has_a_cli_name():
    public = {
        getattr(mlnb, name)
        for name in mlnb.__all__
        if isinstance(getattr(mlnb, name), type) and hasattr(getattr(mlnb, name), "fit")
    }
    named = {estimator_class(name) for name in METHODS}
    named |= {estimator_class(name, multi_target=True) for name in MULTI_TARGET_METHODS}
    missing = sorted(cls.__name__ for cls in public - named)
    assert not missing, (
        "give these a name in METHODS or MULTI_TARGET_METHODS (src/mlnb/cli/_methods.py): "
        f"{missing}"
    )
    assert all(description for *_, description in METHODS.values())
    assert all(description for *_, description in MULTI_TARGET_METHODS.values())


def tiny_corpus(n=60, seed=0):
    """Four-word documents of two topics; a third of the words tell the topic."""
    rng = np.random.default_rng(seed)
    topics = {"sport": ["ball", "goal", "team", "win"], "politics": ["vote", "law", "tax", "win"]}
    common = ["the", "a", "day", "news", "time", "world"]
    labels = np.array(["sport", "politics"])[np.arange(n) % 2]
    docs = [
        " ".join(rng.choice(topics[c] if rng.random() < 0.35 else common) for _ in range(4))
        for c in labels
    ]
    return TextData(docs, labels, "tiny")


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_cli_method_round_trips_through_a_model_file(name, tmp_path):
    if is_single_label(name):
        data = tiny_corpus()
    else:
        X, Y = make_multilabel(120, 8, 4, features="counts", doc_length=20, random_state=0)
        data = Dataset(X=X, Y=Y, feature_names=list("abcdefgh"), label_names=list("ABCD"))
    X, y = _xy(data)
    model = _estimator(name, data, {}).fit(X, y)
    save(model, tmp_path / "model.mlnb")
    restored = load(tmp_path / "model.mlnb")
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))


def test_compare_defaults_include_the_dynamic_chain_ensemble():
    assert DEFAULT_COMPARE_METHODS == ("br", "cc", "ecc", "naibx", "imlnb", "dce")
    assert "br cc ecc naibx imlnb dce" in " ".join(invoke("compare", "--help").output.split())


# --- text corpora: single-label classifiers -------------------------------------------------


def require_data(*folders):
    """Skip unless ../shared/data holds these folders (as the other real-data tests do)."""
    missing = [f for f in folders if not (DATA / f).is_dir()]
    if not (DATA / "MANIFEST.tsv").is_file() or missing:
        pytest.skip(f"benchmark data not found at {DATA} ({', '.join(missing) or 'MANIFEST'})")


def test_fit_predict_text_corpus_as_a_user(tmp_path):
    """webkb: fit on the train part, predict the test part; the same as in Python."""
    require_data("text/webkb")
    model = tmp_path / "webkb.mlnb"
    result = invoke("fit", "webkb", "-m", "mnb", "-p", "alpha=0.5", "-o", model, "--data-dir", DATA)
    assert "2803 documents" in result.stderr and "4 classes" in result.stderr
    out = run("predict", model, "webkb", "--part", "test", "--data-dir", DATA).stdout  # installed
    lines = out.splitlines()
    assert lines[0] == "class,P(course),P(faculty),P(project),P(student)"
    rows = [line.split(",") for line in lines[1:]]
    assert len(rows) == 1396
    proba = np.array([row[1:] for row in rows], dtype=float)
    np.testing.assert_allclose(proba.sum(axis=1), 1, atol=1e-4)
    train, test = load_text_corpus("webkb", data_dir=DATA)
    expected = make_text_pipeline(mlnb.MultinomialNB(alpha=0.5)).fit(train.documents, train.labels)
    assert [row[0] for row in rows] == list(expected.predict(test.documents))


def test_evaluate_text_train_test_matches_python():
    require_data("text/webkb")
    result = invoke(
        "evaluate", "webkb", "-m", "bnb,gnb", "--train-test", "--json", "--data-dir", DATA
    )
    assert result.exit_code == 0, result.output
    rows = {row["method"]: row for row in json.loads(result.stdout)}
    train, test = load_text_corpus("webkb", data_dir=DATA)
    for name, classifier in (
        ("bnb", mlnb.BernoulliNB()),
        ("gnb", mlnb.GaussianNB()),
    ):  # gnb: TF-IDF
        pipeline = make_text_pipeline(classifier).fit(train.documents, train.labels)
        predicted = pipeline.predict(test.documents)
        assert rows[name]["accuracy"] == pytest.approx(
            single_label_accuracy(test.labels, predicted)
        )
        assert rows[name]["macro_f1"] == pytest.approx(single_label_f1(test.labels, predicted))
        assert rows[name]["micro_f1"] == pytest.approx(rows[name]["accuracy"])
    assert {"macro_precision", "macro_recall", "micro_precision", "train_time"} <= set(rows["bnb"])


def test_text_files_cross_validation_and_unlabelled_documents(tmp_path):
    """label<TAB>text files need no data folder: 5-fold CV, fit, predict raw documents."""
    labelled = labelled_file(tmp_path / "news.txt", 0)
    result = invoke("evaluate", labelled, "-m", "mnb", "-m", "bayes-bnb", "--cv", "5", "--stratify")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].split()[:3] == ["method", "accuracy", "macro_precision"]
    model = tmp_path / "news.mlnb"
    assert invoke("fit", labelled, "-m", "mnb", "-o", model, "-q").exit_code == 0
    raw = tmp_path / "raw.txt"
    raw.write_text("The TEAM scored a GOAL!\nA new tax law, voted today.\n")
    result = invoke("predict", model, raw, "--variant", "all-terms", "--no-proba")
    assert result.stdout.splitlines() == ["class", "sport", "politics"]
    assert "note:" not in result.stderr  # trained on a file read as is: nothing to say
    result = invoke("fit", raw, "-m", "mnb", "-o", tmp_path / "x.mlnb")
    assert result.exit_code == 1 and "documents without classes" in result.stderr


def labelled_file(path, seed):
    corpus = tiny_corpus(seed=seed)
    lines = [f"{c}\t{d}\n" for c, d in zip(corpus.labels, corpus.documents, strict=True)]
    path.write_text("".join(lines))
    return path


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # t-test of near ties
def test_compare_text_corpora(tmp_path):
    """Single-label criteria are scores: the ranks and diagrams must know it."""
    first, second = labelled_file(tmp_path / "a.txt", 1), labelled_file(tmp_path / "b.txt", 2)
    out = tmp_path / "cmp"
    result = invoke(
        "compare", "-m", "mnb,bnb,gnb", "--datasets", first, "--datasets", second,
        "--split", "0.5", "--out", out, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["datasets"] == [str(first), str(second)]
    accuracy = json.loads((out / "means.json").read_text())["accuracy"]
    table = np.array(
        [[accuracy[m][str(d)] for d in (first, second)] for m in ("mnb", "bnb", "gnb")]
    )
    expected = rankdata(-table, axis=0).mean(axis=1)  # higher accuracy, better (lower) rank
    ranks = summary["criteria"]["accuracy"]["average_ranks"]
    np.testing.assert_allclose([ranks[m] for m in ("mnb", "bnb", "gnb")], expected)
    assert (out / "cd_accuracy.svg").is_file()
    result = invoke(
        "compare", "-m", "mnb,bnb", "--datasets", first, "--datasets", "synthetic-counts",
        "--out", out,
    )  # fmt: skip
    assert result.exit_code == 1 and "mnb is a single-label classifier" in result.stderr


def test_datasets_lists_text_corpora(tmp_path):
    require_data("text/webkb")
    (tmp_path / "text").mkdir()
    (tmp_path / "text" / "webkb").symlink_to(DATA / "text" / "webkb")
    rows = json.loads(invoke("datasets", "--data-dir", tmp_path, "--json").stdout)
    webkb = next(r for r in rows if r["name"] == "webkb")
    assert webkb["kind"] == "text (stemmed)" and webkb["n"] == 2803 + 1396 and webkb["L"] == 4
    assert next(r for r in rows if r["name"] == "synthetic-counts")["kind"] == "multi-label"


def test_text_errors_say_what_to_do(tmp_path):
    require_data("text/webkb", "multilabel/emotions")
    d = ("--data-dir", DATA)
    result = invoke("fit", "webkb", "-m", "br", "-o", tmp_path / "m", *d)
    assert result.exit_code == 1
    assert "br is a multi-label method" in result.stderr and "-m mnb" in result.stderr
    result = invoke("evaluate", "emotions", "-m", "mnb", *d)
    assert result.exit_code == 1
    assert "mnb is a single-label classifier" in result.stderr and "-m br" in result.stderr
    text_model, feature_model = tmp_path / "text.mlnb", tmp_path / "emotions.mlnb"
    assert invoke("fit", "webkb", "-m", "bnb", "-o", text_model, "-q", *d).exit_code == 0
    assert invoke("fit", "emotions", "-m", "br", "-o", feature_model, "-q", *d).exit_code == 0
    result = invoke("predict", text_model, "emotions", *d)
    assert result.exit_code == 1 and "is a text model" in result.stderr
    result = invoke("predict", feature_model, "webkb", *d)
    assert result.exit_code == 1 and "fit a text model first" in result.stderr
    result = invoke("fit", "webkb", "-m", "mnb", "--variant", "all-terms", "-o", text_model, *d)
    assert result.exit_code == 1 and "available as stemmed only" in result.stderr
    result = invoke("evaluate", "synthetic-counts", "-m", "br", "--train-test")
    assert result.exit_code == 1 and "no provided train/test split" in result.stderr
    result = invoke("fit", "emotions", "-m", "br", "--tfidf", "-o", feature_model, *d)
    assert result.exit_code == 1 and "features of text" in result.stderr
    broken = tmp_path / "broken.txt"
    broken.write_text("course\tsyllabus homework\nstudent has no tab here\n")
    result = invoke("fit", broken, "-m", "mnb", "-o", text_model)
    assert result.exit_code == 1 and "line 2" in result.stderr
    result = invoke("fit", tmp_path / "absent.txt", "-m", "mnb", "-o", text_model)
    assert result.exit_code == 1 and "no such file" in result.stderr
    text_model.write_bytes(text_model.read_bytes()[:200])
    result = invoke("predict", text_model, "webkb", *d)
    assert result.exit_code == 1 and "not a readable mlnb model file" in result.stderr


# --- --metrics, --threshold and the degenerate-prediction warning ---------------------------


def evaluate_json(*args):
    result = invoke("evaluate", "synthetic-counts", "--cv", "3", "--json", *args)
    assert result.exit_code == 0, result.output
    return {row["method"]: row for row in json.loads(result.stdout)}


def test_evaluate_ranking_metrics():
    result = invoke(
        "evaluate", "synthetic-counts", "-m", "br,dce", "--cv", "3", "--metrics", "ranking", "-q"
    )
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split()
    assert header == ["method", *mlnb.metrics.METRIC_SETS["ranking"], "train_time", "test_time"]
    rows = evaluate_json(
        "-m", "br", "--metrics", "micro_f1,label_ranking_loss", "--metrics", "hamming"
    )
    assert list(rows["br"]) == [
        "method", "micro_f1", "label_ranking_loss", "hamming", "train_time", "test_time"
    ]  # fmt: skip
    assert 0 <= rows["br"]["label_ranking_loss"] < 0.1 < rows["br"]["micro_f1"] <= 1


#: A chain's classic label terms, given (``-p``): then choosing its rule chooses nothing else.
CLASSIC_CHAIN = ("-p", "label_alpha=1.0", "-p", "label_prior=uniform")


def test_threshold_sets_the_rule_of_multilabel_methods():
    """--threshold sets ``rule=`` on methods that have one (br, cc, ...: they choose or fit
    it themselves) and wraps the others in TunedThresholdsCV (before the tuned defaults it
    wrapped every multi-label method)."""
    from mlnb.decision_rules import Threshold
    from mlnb.evaluation import cross_validate

    metrics = ("--metrics", "micro_f1,macro_f1,label_ranking_loss")
    named = ("-p", "events=gaussian")
    tuned = {}
    for method, given in (("br", named), ("cc", (*named, *CLASSIC_CHAIN))):
        own = evaluate_json("-m", method, *given, "-p", "rule=predict", *metrics)
        tuned.update(evaluate_json("-m", method, *given, "--threshold", "tuned", *metrics))
        assert tuned[method]["micro_f1"] != own[method]["micro_f1"]
        # the rule cuts the scores, it does not change them (hence the ranking criteria;
        # the chain's label terms given, which a chain choosing its rule chooses too)
        assert tuned[method]["label_ranking_loss"] == pytest.approx(
            own[method]["label_ranking_loss"]
        )
    # without a named event model, the estimator chooses it with the rule: as in Python
    chosen = evaluate_json("-m", "br", "--threshold", "tuned", "--metrics", "micro_f1")
    data = mlnb.cli._inputs.load_data("synthetic-counts")
    for estimator, result in (
        (mlnb.BinaryRelevance(events="gaussian", rule="tuned"), tuned),
        (mlnb.BinaryRelevance(rule="tuned"), chosen),
    ):
        expected = cross_validate(
            estimator, data.X, data.Y, cv=3, metrics="micro_f1", random_state=0
        )
        assert result["br"]["micro_f1"] == pytest.approx(expected.mean()["micro_f1"])
    model = _estimator("br", data, {}, threshold="tuned")
    assert isinstance(model, mlnb.BinaryRelevance) and model.rule == "tuned"
    assert model.events == "tuned"
    assert _estimator("cc", data, {}, threshold="tuned").rule == "tuned"
    # -p reaches the method; a number is a fixed cut
    model = _estimator("br", data, {"events": "bernoulli"}, seed=3, threshold=-1.5)
    assert isinstance(model, mlnb.BinaryRelevance) and model.events == "bernoulli"
    assert isinstance(model.rule, Threshold) and model.rule.threshold == -1.5
    # a method without a rule is wrapped (refitted per fold: its event model is kept)
    model = _estimator("lp", data, {}, seed=3, threshold=-1.5)
    assert isinstance(model, mlnb.TunedThresholdsCV) and model.random_state == 3
    assert isinstance(model.strategy, Threshold) and model.strategy.threshold == -1.5
    assert model.scoring == "f1_micro" and model.cv == 5
    assert _estimator("lp", data, {}, threshold="tuned").param_grid is None
    assert _estimator("lp", data, {}, threshold="tuned").strategy == "auto"
    assert _estimator("dc", data, {}, threshold="tuned").rule == "tuned"  # has a rule
    # br-tuned is not wrapped twice: only its strategy changes
    model = _estimator("br-tuned", data, {"events": "bernoulli"}, threshold="rcut")
    assert isinstance(model.estimator, mlnb.BinaryRelevance) and model.strategy == "rcut"
    assert model.estimator.events == "bernoulli"
    rows = evaluate_json("-m", "br", "--threshold", "1e9", "--metrics", "micro_recall")
    assert rows["br"]["micro_recall"] == 0  # no log-odds reaches the cut
    # what the tuning chose on the folds is said
    result = invoke("evaluate", "synthetic-counts", "-m", "br", "--cv", "3", "--threshold", "tuned")
    assert result.exit_code == 0 and "br on synthetic-counts chose: rule " in result.stderr
    assert "(3 folds)" in result.stderr or "fold)" in result.stderr


def test_fit_with_a_threshold_writes_a_model_with_that_rule(tmp_path):
    from mlnb.decision_rules import PCut

    model = tmp_path / "br.mlnb"
    result = invoke("fit", "synthetic-counts", "-m", "br", "--threshold", "pcut", "-o", model, "-q")
    assert result.exit_code == 0, result.output
    restored = load(model)
    assert isinstance(restored, mlnb.BinaryRelevance) and restored.rule == "pcut"
    assert isinstance(restored.rule_, PCut) and restored.chosen_["rule"] == "pcut"
    assert mlnb.io.read_metadata(model)["threshold"] == "pcut"
    # a method without a rule is written wrapped in TunedThresholdsCV
    model = tmp_path / "lp.mlnb"
    result = invoke("fit", "synthetic-counts", "-m", "lp", "--threshold", "pcut", "-o", model, "-q")
    assert result.exit_code == 0, result.output
    restored = load(model)
    assert isinstance(restored, mlnb.TunedThresholdsCV) and restored.best_strategy_ == "pcut"


def test_fit_update_equals_fitting_on_both_parts(tmp_path):
    """emotions: fit on the train part, --update with the test part = fit on all rows."""
    require_data("multilabel/emotions")
    first, updated = tmp_path / "first.mlnb", tmp_path / "updated.mlnb"
    result = invoke("fit", "emotions", "-m", "br", "-o", first, "--data-dir", DATA, "-q")
    assert result.exit_code == 0, result.output
    result = invoke(
        "fit", "emotions", "--update", first, "--part", "test", "-o", updated, "--data-dir", DATA
    )
    assert result.exit_code == 0, result.output
    assert "updated" in result.stderr and "it had seen 391" in result.stderr
    train, test = mlnb.datasets.load_dataset("emotions", DATA)
    # the first fit chose the settings on the train part; the update keeps them
    chosen = load(first).chosen_params_
    kept = load(updated).chosen_params_["events"]
    assert type(kept) is type(chosen["events"])
    np.testing.assert_equal(kept.get_params(), chosen["events"].get_params())
    whole = mlnb.BinaryRelevance(**chosen).fit(
        np.vstack([train.X, test.X]), np.vstack([np.asarray(train.Y), np.asarray(test.Y)])
    )
    np.testing.assert_allclose(
        load(updated).predict_log_odds(test.X), whole.predict_log_odds(test.X)
    )
    metadata = mlnb.io.read_metadata(updated)
    assert metadata["method"] == "br" and metadata["updates"] == [
        {"data": "emotions", "part": "test"}
    ]
    # what cannot continue says why
    tuned = tmp_path / "tuned.mlnb"
    invoke("fit", "synthetic-counts", "-m", "br-tuned", "--threshold", "pcut", "-o", tuned, "-q")
    result = invoke("fit", "synthetic-counts", "--update", tuned, "-o", tuned)
    assert result.exit_code == 1 and "has no partial_fit" in result.stderr
    result = invoke("fit", "synthetic-counts", "--update", first, "-p", "alpha=1", "-o", first)
    assert result.exit_code == 2 and "--update continues a saved model" in result.output
    result = invoke("fit", "synthetic-counts", "-o", first)
    assert result.exit_code == 2 and "-m/--method" in result.output


def test_evaluate_prequential_equals_the_python_loop():
    rows = evaluate_json("-m", "br,naibx", "--prequential", "40", "--metrics", "hamming,micro_f1")
    data = mlnb.cli._inputs.load_data("synthetic-counts")
    X, Y = data.X, data.Y
    batches = [(X[i : i + 40], Y[i : i + 40]) for i in range(0, X.shape[0], 40)]
    for method in ("br", "naibx"):
        model = _estimator(method, data, {})
        expected = mlnb.evaluation.prequential(model, batches, metrics=["hamming", "micro_f1"])
        for name, value in expected.final().items():
            assert rows[method][name] == pytest.approx(value)
        assert rows[method]["rows_per_s"] > 0
    for args, said in [
        (("--prequential", "40", "--threshold", "tuned"), "does not apply to --prequential"),
        (("--prequential", "100000"), "no batch would be predicted"),
    ]:
        result = invoke("evaluate", "synthetic-counts", "-m", "br", *args)
        assert result.exit_code in (1, 2) and said in result.output + result.stderr


def test_compare_with_metrics_and_threshold(tmp_path):
    out = tmp_path / "cmp"
    result = invoke(
        "compare", "-m", "br,naibx", "--datasets", "synthetic-counts", "--datasets",
        "synthetic-gaussian", "--cv", "2", "--metrics", "one_error,micro_f1",
        "--threshold", "tuned", "--out", out, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert list(summary["criteria"]) == ["one_error", "micro_f1", "train_time", "test_time"]
    assert (out / "cd_one_error.svg").is_file() and (out / "cd_train_time.svg").is_file()
    assert not (out / "cd_hamming.svg").exists()


def test_metrics_and_threshold_errors(tmp_path):
    for args, said in [
        (("--threshold", "bogus"), "'--threshold'"),
        (("--threshold", "nan"), "finite number"),
        (("--metrics", "bogus,ranking"), "unknown metric or set 'bogus'"),
        (("--metrics", ","), "at least one"),
    ]:
        result = invoke("evaluate", "synthetic-counts", "-m", "br", *args)
        assert result.exit_code == 2, args  # usage errors
        assert said in result.output and "Invalid value" in result.output
    result = invoke("evaluate", "synthetic-counts", "-m", "br", "--metrics", "sl_accuracy")
    assert result.exit_code == 1 and "multi-label data" in result.stderr
    labelled = labelled_file(tmp_path / "news.txt", 0)
    result = invoke("evaluate", labelled, "-m", "mnb", "--threshold", "tuned")
    assert result.exit_code == 1 and "leave --threshold out" in result.stderr
    result = invoke("evaluate", labelled, "-m", "mnb", "--metrics", "ranking")
    assert result.exit_code == 1 and "macro_f1" in result.stderr
    result = invoke(
        "evaluate", labelled, "-m", "mnb", "--cv", "3", "--metrics", "macro_f1,accuracy"
    )
    assert result.exit_code == 0, result.output
    header = ["method", "macro_f1", "accuracy", "train_time", "test_time"]
    assert result.stdout.split()[:5] == header


class NoLabels(mlnb.BinaryRelevance):
    """Binary relevance that never predicts a label."""

    def predict(self, X):
        return np.zeros_like(super().predict(X))


def test_degenerate_predictions_get_one_warning_line(capsys):
    from mlnb.cli import _scores

    data = mlnb.cli._inputs.load_data("synthetic-counts")
    _scores(NoLabels(), data, 3, seed=0, stratify=False, method="zeros")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("warning: zeros on synthetic-counts: NoLabels")
    assert "no label at all" in err[0] and "TunedThresholdsCV" in err[0]
    _scores(mlnb.BinaryRelevance(), data, 3, seed=0, stratify=False, method="br")
    assert capsys.readouterr().err == ""


# --- issue #18: a readable compare, progress, light --version, checks before work ----------

SRC = Path(mlnb.__file__).resolve().parent


def test_cli_module_imports_without_scikit_learn():
    """mlnb.cli itself imports no scikit-learn (the package is stubbed: only the CLI counts)."""
    code = f"""
import sys, types
package = types.ModuleType("mlnb"); package.__path__ = [{str(SRC)!r}]
sys.modules["mlnb"] = package
from mlnb.cli import main
try:
    main(["--version"], prog_name="mlnb")
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.split(".")[0] == "sklearn"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"mlnb, version {mlnb.__version__}", "[]"]


def test_version_does_not_import_scikit_learn():
    code = """
import sys
from mlnb.cli import main
try:
    main(["--version"], prog_name="mlnb")
except SystemExit:
    pass
print("sklearn" in sys.modules, "numpy" in sys.modules)
import mlnb
mlnb.BinaryRelevance  # the estimators load on first use
print("sklearn" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"mlnb, version {mlnb.__version__}"
    assert lines[1].startswith("False") and lines[2] == "True"


@pytest.mark.parametrize("argument", ["--version", "--help"])
def test_start_up_loads_no_numerical_library(argument):
    """Issue #31: ``mlnb --version`` and ``--help`` import neither numpy nor scipy.sparse
    (nor the mlnb modules that need them); the commands import them when they run."""
    code = f"""
import sys
from mlnb.cli import main
try:
    main([{argument!r}], prog_name="mlnb")
except SystemExit:
    pass
heavy = ("numpy", "scipy", "sklearn", "pandas", "matplotlib")
print(sorted(m for m in sys.modules if m.split(".")[0] in heavy))
print(sorted(m for m in sys.modules if m.startswith("mlnb.") and not m.startswith("mlnb.cli")))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-2:] == ["[]", "[]"], out.stdout


def test_compare_prints_a_readable_report(tmp_path):
    out = tmp_path / "cmp"
    result = invoke(
        "compare", "-m", "br,cc", "--datasets", "synthetic-gaussian", "--datasets",
        "synthetic-counts", "--cv", "2", "--seed", "3", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = result.stdout
    flat = " ".join(text.split())  # paragraphs are wrapped
    assert "2 methods on 2 data sets" in flat and "synthetic-counts (600 rows" in flat
    assert "2-fold cross-validation, shuffled with seed 3" in flat
    assert "Hamming loss" in text and "Training time (s)" in text and "EX F1 loss" not in text
    assert "Friedman p" in text and "critical difference CD = " in flat
    assert "Wilcoxon-Holm: not shown: with N = 2 data sets" in flat
    assert f"Wrote to {out}/: report.md" in text
    summary = json.loads((out / "summary.json").read_text())
    hamming = summary["criteria"]["hamming"]
    best = min(hamming["mean_scores"], key=hamming["mean_scores"].get)
    row = next(line for line in text.splitlines() if line.startswith("Hamming loss"))
    cells = dict(zip(["br", "cc"], row.split()[-2:], strict=True))
    assert cells[best].endswith("*") and not cells[{"br": "cc", "cc": "br"}[best]].endswith("*")
    assert float(cells[best].rstrip("*")) == pytest.approx(hamming["mean_scores"][best], abs=5e-4)
    report = (out / "report.md").read_text()
    assert report.startswith("# mlnb compare") and "| Hamming loss | lower |" in report
    assert "Wilcoxon-Holm: not shown" in (out / "wilcoxon_holm.md").read_text()
    assert "cross-validating: 8 folds in" in result.stderr  # 2 folds x 2 methods x 2 sets
    quiet = invoke(
        "compare", "-m", "br,cc", "--datasets", "synthetic-gaussian", "--datasets",
        "synthetic-counts", "--cv", "2", "--out", out, "-q",
    )  # fmt: skip
    assert quiet.stderr.startswith("Wrote to") and "folds" not in quiet.stderr


def test_evaluate_and_bench_report_progress(monkeypatch):
    result = invoke("evaluate", "synthetic-counts", "-m", "br,cc", "--cv", "3")
    assert "[3/6 folds, 0:" in result.stderr and "br on synthetic-counts" in result.stderr
    assert "cross-validating: 6 folds in 0:" in result.stderr
    assert invoke("evaluate", "synthetic-counts", "-m", "br", "--cv", "3", "-q").stderr == ""
    from mlnb.cli import _bench

    def fake(*, quick, progress):
        rows = [{"task": t, "mlnb s": 1.0, "scikit-learn s": 2.0, "ratio": 0.5} for t in "ab"]
        for row in rows:
            progress(row)
        return rows

    monkeypatch.setattr(_bench, "run_bench", fake)
    result = invoke("bench")
    assert "[1/2 cases, 0:" in result.stderr and "benchmarking: 2 cases in" in result.stderr
    assert invoke("bench", "-q").stderr == ""


def test_parameters_are_checked_against_the_declared_types(tmp_path):
    model = tmp_path / "m.mlnb"
    for value, said in (("2.5", "got 2.5"), ("abc", "got 'abc'")):
        result = invoke(
            "fit", "synthetic-counts", "-m", "ecc", "-p", f"n_chains={value}", "-o", model
        )
        assert result.exit_code == 1 and not model.exists()
        assert f"-p n_chains={value}: ecc's parameter n_chains must be an int" in result.stderr
        assert said in result.stderr and "Traceback" not in result.output
    result = invoke("fit", "synthetic-counts", "-m", "rakel", "-p", "k=x", "-o", model)
    assert result.exit_code == 1 and "-p k=x: rakel's parameter k must be an int" in result.stderr
    assert invoke("fit", "synthetic-counts", "-m", "ecc", "-p", "n_chains=2", "-o", model, "-q")
    assert load(model).n_chains == 2


def test_paths_are_checked_before_any_work(tmp_path):
    missing = tmp_path / "missing" / "dir"
    result = invoke("fit", "synthetic-counts", "-m", "dce", "-o", missing / "m.mlnb")
    assert result.exit_code == 1 and "fitting" not in result.stderr
    assert result.stderr.strip() == (
        f"mlnb: error: -o/--output {missing / 'm.mlnb'}: the folder {missing} does not exist; "
        "create it first"
    )
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = invoke("compare", "--out", blocker / "cmp")
    assert (
        result.exit_code == 1 and f"--out {blocker / 'cmp'}: {blocker} is a file" in result.stderr
    )
    assert "folds" not in result.stderr
    result = invoke("evaluate", "emotions", "-m", "br", "--data-dir", tmp_path / "nope")
    assert (
        result.exit_code == 1
        and "--data-dir" in result.stderr
        and "no such folder" in result.stderr
    )


def test_unlabelled_arff_and_missing_values(tmp_path):
    header = "@relation 'r: -C 2'\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n"
    header += "".join(f"@attribute x{i} numeric\n" for i in range(3)) + "@data\n"
    rng = np.random.default_rng(0)
    rows = [(int(a > 0.5), int(b > 0.5), a, b, c) for a, b, c in rng.random((40, 3))]
    train = tmp_path / "train.arff"
    lines = [f"{y1},{y2},{a:.3f},{b:.3f},{'?' if i % 7 == 0 else f'{c:.3f}'}"
             for i, (y1, y2, a, b, c) in enumerate(rows)]  # fmt: skip
    train.write_text(header + "\n".join(lines) + "\n")
    model = tmp_path / "m.mlnb"
    result = invoke("fit", train, "-m", "br", "-o", model)
    assert result.exit_code == 1 and "missing value '?'" in result.stderr
    result = invoke("fit", train, "-m", "br", "--missing", "ignore", "-o", model, "-q")
    assert result.exit_code == 0, result.output
    assert load(model).missing == "ignore"
    result = invoke("fit", train, "-m", "knn-cc", "--missing", "ignore", "-o", model)
    assert result.exit_code == 1 and "knn-cc cannot skip missing values" in result.stderr
    unlabelled = tmp_path / "new.arff"
    unlabelled.write_text(header + "?,?,0.9,0.1,0.5\n?,?,0.1,0.9,?\n")
    result = invoke("predict", model, unlabelled, "--no-proba", "--missing", "ignore")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "y1,y2" and len(result.stdout.splitlines()) == 3
    result = invoke("fit", unlabelled, "-m", "br", "--missing", "ignore", "-o", model)
    assert result.exit_code == 1 and "has no labels" in result.stderr
    # --labels: the label columns of a file given by path
    swapped = tmp_path / "swapped.arff"
    body = "@relation r\n" + "".join(f"@attribute x{i} numeric\n" for i in range(3))
    body += "@attribute y1 {0,1}\n@attribute y2 {0,1}\n@data\n"
    body += "\n".join(f"{a:.3f},{b:.3f},{c:.3f},{y1},{y2}" for y1, y2, a, b, c in rows) + "\n"
    swapped.write_text(body)
    result = invoke("evaluate", swapped, "-m", "br", "--labels", "-2", "--cv", "2", "--json")
    assert result.exit_code == 0, result.output
    result = invoke("evaluate", "synthetic-counts", "-m", "br", "--labels", "2")
    assert result.exit_code == 1 and "--labels" in result.stderr


def test_meka_prediction_file_with_unknown_labels(tmp_path):
    require_data("multilabel/meka_music")
    folder = DATA / "multilabel" / "meka_music"
    model = tmp_path / "music.mlnb"
    assert invoke("fit", folder / "Music-train.arff", "-m", "br", "-o", model, "-q").exit_code == 0
    result = invoke("predict", model, folder / "Music_missing_classes.arff", "--no-proba")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split(",")[0] == "amazed-suprised" and len(lines) == 1 + 592


def _labelled_arff(relation, label_names, *, labels_first=True, n=40, seed=0):
    """A small ARFF: two 0/1 label columns (first or last) and three numeric features."""
    labels = "".join(f"@attribute {name} {{0,1}}\n" for name in label_names)
    features = "".join(f"@attribute x{i} numeric\n" for i in range(3))
    head = f"@relation '{relation}'\n" + (labels + features if labels_first else features + labels)
    rng = np.random.default_rng(seed)
    rows = []
    for a, b, c in rng.random((n, 3)):
        y, x = f"{int(a > 0.5)},{int(b > 0.4)}", f"{a:.3f},{b:.3f},{c:.3f}"
        rows.append(f"{y},{x}" if labels_first else f"{x},{y}")
    return head + "@data\n" + "\n".join(rows) + "\n"


def test_predict_takes_the_label_columns_of_a_headerless_arff_from_the_model(tmp_path):
    train, model = tmp_path / "train.arff", tmp_path / "m.mlnb"
    train.write_text(_labelled_arff("train: -C 2", ["y1", "y2"]))
    assert invoke("fit", train, "-m", "br", "-o", model, "-q").exit_code == 0
    new = tmp_path / "new.arff"  # no XML beside it, no -C in its relation
    new.write_text(_labelled_arff("new rows", ["y1", "y2"], n=5, seed=1))
    result = invoke("predict", model, new, "--no-proba")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "y1,y2" and len(result.stdout.splitlines()) == 6
    assert "of 2 labels per row" in result.stderr and "predicted 5 rows of new" in result.stderr
    # labels last: fitted with --labels -2, which the model file keeps
    swapped, model2 = tmp_path / "swapped.arff", tmp_path / "m2.mlnb"
    swapped.write_text(_labelled_arff("r", ["a", "b"], labels_first=False))
    assert invoke("fit", swapped, "-m", "br", "--labels", "-2", "-o", model2, "-q").exit_code == 0
    result = invoke("predict", model2, swapped, "--no-proba")
    assert result.exit_code == 0 and result.stdout.splitlines()[0] == "a,b", result.output
    # columns that are not the model's labels: a clear request for --labels
    other = tmp_path / "other.arff"
    other.write_text(_labelled_arff("r", ["z1", "z2"], n=5))
    result = invoke("predict", model, other)
    assert result.exit_code == 1 and "give --labels 2" in result.stderr, result.output
    assert "--labels -2" in result.stderr and "m.mlnb's 2 labels" in result.stderr


def test_predict_a_headerless_copy_of_real_data(tmp_path):
    require_data("multilabel/emotions")
    model = tmp_path / "emotions.mlnb"
    result = invoke("fit", "emotions", "-m", "br", "-o", model, "--data-dir", DATA, "-q")
    assert result.exit_code == 0, result.output
    copy = tmp_path / "emotions-test.arff"  # without the XML file of the label names
    copy.write_bytes((DATA / "multilabel" / "emotions" / "emotions-test.arff").read_bytes())
    out = tmp_path / "predictions.csv"
    result = invoke("predict", model, copy, "-o", out)
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 203
    line = result.stderr.strip()
    assert line.startswith("predicted 202 rows of emotions-test: ") and "\n" not in line
    assert line.endswith(f"of 6 labels per row on average; wrote {out}")
    assert invoke("predict", model, copy, "-o", out, "-q").stderr == ""


def test_predict_says_what_it_wrote_for_text(tmp_path):
    docs = tmp_path / "docs.txt"
    docs.write_text("".join(f"{'ab'[i % 2]}\tword{i % 2} w{i}\n" for i in range(20)))
    model = tmp_path / "t.mlnb"
    assert invoke("fit", docs, "-m", "mnb", "-o", model, "-q").exit_code == 0
    result = invoke("predict", model, docs, "--no-proba")
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "predicted 20 documents of docs.txt: 2 distinct classes; wrote standard output\n"
    )


def test_model_outputs_never_replace_a_device_or_a_pipe(tmp_path):
    import os
    import stat

    from mlnb.cli import _options
    from mlnb.cli._terminal import Failure

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    result = invoke("fit", "synthetic-counts", "-m", "br", "-o", pipe)
    assert result.exit_code == 1 and "is a named pipe" in result.stderr, result.output
    assert "fitting" not in result.stderr and stat.S_ISFIFO(os.stat(pipe).st_mode)
    # a device: the option's check itself (a command that failed it would replace the device)
    option = next(p for p in mlnb.cli.fit.params if p.name == "output")
    with pytest.raises(Failure, match="/dev/null: is a device, not a file"):
        _options.model_output_value(None, option, Path("/dev/null"))
    model = tmp_path / "m.mlnb"
    assert invoke("fit", "synthetic-counts", "-m", "br", "-o", model, "-q").exit_code == 0
    result = invoke("predict", model, "synthetic-counts", "-o", pipe)  # nobody reads it
    assert result.exit_code == 1, result.output
    assert result.stderr == f"mlnb: error: {pipe}: a named pipe that no process reads\n"


def test_help_points_to_the_method_list_where_it_is():
    for command in ("fit", "evaluate"):
        text = invoke(command, "--help").output
        assert "below" not in text
        assert text.index("Multi-label methods:") < text.index("see the list above")


def test_progress_in_a_log_is_a_line_per_step_at_most_every_few_seconds(monkeypatch):
    import io

    from mlnb.cli import _terminal

    now = [0.0]
    monkeypatch.setattr(_terminal.time, "perf_counter", lambda: now[0])
    log = io.StringIO()
    with _terminal.Progress(5, "cross-validating", unit="folds", stream=log) as progress:
        now[0] = 0.5
        progress.status("dce on enron: 5 folds...")  # the first line, at once
        for fold, seconds in enumerate((1, 2, 6, 6.5, 30), start=1):
            now[0] = seconds
            progress.step(f"dce on enron, fold {fold}/5 done")
        now[0] = 31
        progress.log("dce on enron: 31.0 s")
    assert "\r" not in log.getvalue()
    assert log.getvalue().splitlines() == [
        "[0/5 folds, 0:00] dce on enron: 5 folds...",
        "[3/5 folds, 0:06] dce on enron, fold 3/5 done",  # 5.5 s after the line before
        "[5/5 folds, 0:30] dce on enron, fold 5/5 done",  # the last step always
        "[5/5 folds, 0:31] dce on enron: 31.0 s",
        "cross-validating: 5 folds in 0:31",
    ]


def test_progress_on_a_terminal_redraws_one_line():
    import io

    from mlnb.cli._terminal import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    with Progress(2, "cross-validating", unit="folds", stream=screen) as progress:
        progress.status("br on emotions")
        progress.step("fold 1/2 done")
        progress.step("fold 2/2 done")
    text = screen.getvalue()
    assert text.count("\r") >= 4 and text.count("\n") == 1
    assert text.endswith("cross-validating: 2 folds in 0:00\n")


def test_warnings_are_made_one_line_once_per_process():
    import warnings

    from mlnb.cli._terminal import one_line_warnings

    one_line_warnings()
    installed = warnings.formatwarning
    for _ in range(3):
        assert invoke("--version").exit_code == 0  # every command runs the group's setup
        one_line_warnings()
    assert warnings.formatwarning is installed


def test_a_costly_setting_is_refused_with_its_cost_unless_limits_are_lifted(monkeypatch, tmp_path):
    """`-p n_chains=100000000` stops before any work with the estimated cost; `--no-limits`
    lifts the bounds (for this process and its workers, through the environment)."""
    monkeypatch.setenv("MLNB_LIFT_LIMITS", "0")  # restored (unset) after the test
    out = tmp_path / "m.mlnb"
    args = ["fit", "flags", "-m", "ecc", "-p", "n_chains=100000000", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "GiB" in result.output and "n_chains" in result.output and not out.exists()
    assert "Traceback" not in result.output
    from mlnb.limits import are_lifted

    assert not are_lifted()
    result = CliRunner().invoke(main, ["--no-limits", "datasets", "--json"])
    assert result.exit_code == 0
    assert are_lifted()
