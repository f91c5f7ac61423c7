"""Text corpora: Cardoso-Cachopo's cleaning, label<TAB>text files, the 20NG archive."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections import Counter
from importlib import resources

import numpy as np
import pytest

from mlnb.datasets import TextCorpus, TrainTest, clean_text, load_text_corpus, smart_stop_words
from mlnb.datasets._text import _newsgroup_text


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("all-terms", "re cats are running at o clock"),
        ("no-short", "cats are running clock"),
        ("stemmed", "cat run clock"),
    ],
)
def test_clean_text_variants(variant, expected):
    assert clean_text("Re: 2 Cats\tare RUNNING\nat 5 o'clock!!", variant) == expected


def test_clean_text_keeps_ascii_letters_only():
    assert clean_text("naïve café-au-lait x2y\r\n") == "na ve caf au lait x y"
    with pytest.raises(ValueError, match="variant"):
        clean_text("a", "lemmatised")


def test_stemming_follows_porters_reference_implementation():
    # MARTIN_EXTENSIONS: -logi -> -log, -bli -> -bl (as the WebKB corpus was stemmed)
    assert clean_text("technology assembly generalization", "stemmed") == "technolog assembl gener"


def test_smart_stop_list_is_packaged():
    words = smart_stop_words()
    assert len(words) == 570 and {"a", "the", "zero", "would", "c'mon"} <= words
    text = resources.files("mlnb.datasets").joinpath("smart_stopwords.txt").read_text()
    entries = [w for w in text.splitlines() if w and not w.startswith("#")]
    assert len(entries) == 571  # "would" twice, as in the SMART original


def test_newsgroup_text_is_subject_plus_body():
    raw = (
        "From: someone@example.org\nSubject: Re: Space\n  shuttle news\n"
        "Organization: None\nLines: 2\n\nThe body.\nFrom: not a header\n"
    )
    assert _newsgroup_text(raw).split() == [
        "Re:",
        "Space",
        "shuttle",
        "news",
        "The",
        "body.",
        "From:",
        "not",
        "a",
        "header",
    ]
    assert _newsgroup_text("Subject: only a header\n").split() == ["only", "a", "header"]


@pytest.fixture
def archive(tmp_path):
    """A miniature 20news-bydate.tar.gz with a latin-1 file."""
    path = tmp_path / "20news-bydate.tar.gz"
    files = {
        "20news-bydate-train/sci.space/60": b"Subject: Moon\n\nOrbit of the moon.\n",
        "20news-bydate-train/alt.atheism/9": b"From: x\nSubject: Faith\n\nBelief text.\n",
        "20news-bydate-train/alt.atheism/10": "Subject: Caf\xe9\n\nna\xefve r\xe9sum\xe9\n".encode(
            "latin-1"
        ),
        "20news-bydate-test/sci.space/70": b"Subject: Mars\n\nRed planet\n",
        # a uuencoded attachment: "begin" line, full "M" lines, "end"
        "20news-bydate-test/sci.space/71": (
            b"Subject: Image\n\nSee the file.\nbegin 644 a.gif\n"
            + b"M"
            + b"1AB9&#_*XYZ" * 5
            + b"QRSTU\n"
            + b"M"
            + b"WW_QQ^PPZZ" * 6
            + b"\n"
            + b"end\n"
        ),
    }
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_20ng_archive_read_directly(archive):
    pair = load_text_corpus(archive)
    assert isinstance(pair, TrainTest)
    train, test = pair
    assert train.labels.tolist() == ["alt.atheism", "alt.atheism", "sci.space"]
    # sorted by group, then numerically by file name (9 before 10)
    assert train.documents == ["faith belief text", "caf na ve r sum", "moon orbit of the moon"]
    assert test.documents[0] == "mars red planet"
    assert "ab xyz" in test.documents[1]  # the attachment's letters, kept by the recipe
    stemmed = load_text_corpus(archive, variant="stemmed", split="train")
    assert stemmed.documents[2] == "moon orbit moon"
    assert len(load_text_corpus(archive, split="full")) == 5
    dropped = load_text_corpus(archive, split="test", drop_uuencoded=True)
    assert dropped.documents[1] == "image see the file begin a gif end"


def test_label_tab_text_file(tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("earn\tProfit UP 5%\ncourse\t\nacq\tbuys  the firm\n")
    corpus = load_text_corpus(path)
    assert isinstance(corpus, TextCorpus) and len(corpus) == 3
    assert corpus.documents == ["Profit UP 5%", "", "buys the firm"]
    assert corpus.labels.tolist() == ["earn", "course", "acq"]
    assert corpus.classes == ["acq", "course", "earn"]
    assert load_text_corpus(path, variant="all-terms").documents[0] == "profit up"
    with pytest.raises(ValueError, match="no train/test split"):
        load_text_corpus(path, split="train")


def test_bad_text_inputs(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("label without a tab\n")
    with pytest.raises(ValueError, match="line 1: expected 'label<TAB>text'"):
        load_text_corpus(path)
    with pytest.raises(FileNotFoundError, match="neither a file, a folder nor"):
        load_text_corpus(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="variant"):
        load_text_corpus(path, variant="raw")
    with pytest.raises(ValueError, match="split"):
        load_text_corpus(path, split="dev")


# ------------------------------------------------------------------ the real corpora


def test_webkb(data_root):
    train, test = load_text_corpus("webkb", data_dir=data_root)
    assert (len(train), len(test)) == (2803, 1396)
    assert Counter(train.labels.tolist()) == {
        "course": 620,
        "faculty": 750,
        "project": 336,
        "student": 1097,
    }
    assert sum(not d for d in train.documents) == 18
    vocab = {w for c in (train, test) for d in c.documents for w in d.split()}
    assert len(vocab) == 7770
    with pytest.raises(ValueError, match="only available stemmed"):
        load_text_corpus("webkb", variant="all-terms", data_dir=data_root)


def test_r8_variants_agree_with_the_distributed_files(data_root):
    allterms = load_text_corpus("r8", data_dir=data_root)
    noshort = load_text_corpus("r8", variant="no-short", data_dir=data_root)
    for a, b in zip(allterms, noshort, strict=True):
        assert np.array_equal(a.labels, b.labels)
        # our no-short rule applied to all-terms reproduces the distributed no-short file
        assert [clean_text(d, "no-short") for d in a.documents] == b.documents
    assert (len(allterms.train), len(allterms.test)) == (5485, 2189)
    assert allterms.train.classes == sorted(
        ["acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"]
    )
    stemmed = load_text_corpus("r8", variant="stemmed", split="test", data_dir=data_root)
    assert stemmed.documents[0] == clean_text(allterms.test.documents[0], "stemmed")


@pytest.fixture(scope="module")
def ng20_stemmed(data_root):
    if not (data_root / "text" / "20ng_bydate" / "20news-bydate.tar.gz").is_file():
        pytest.skip(f"no text/20ng_bydate/20news-bydate.tar.gz under {data_root}")
    return load_text_corpus("20ng", variant="stemmed", data_dir=data_root)


def test_20ng_bydate_counts_and_stemmed_vocabulary(ng20_stemmed):
    train, test = ng20_stemmed
    assert (len(train), len(test)) == (11314, 7532)
    assert len(train.classes) == 20 and train.classes == test.classes
    vocab = {w for d in train.documents for w in d.split()}
    # Cardoso-Cachopo reports 70,216 (her 18,821-message version); ours, training set only:
    assert len(vocab) == 66660
    assert train.documents[0].startswith("alt atheism faq atheist resourc")


# ------------------------------------------------------------------ more layouts and names


def test_parallel_text_and_label_files(tmp_path):
    (tmp_path / "train-texts.txt").write_text("Cats purr\n\nDogs bark loudly\nStocks fell\n")
    (tmp_path / "train-labels.txt").write_text("pets\npets\nfinance\n")
    corpus = load_text_corpus(tmp_path / "train-texts.txt", labels=tmp_path / "train-labels.txt")
    assert corpus.documents == ["Cats purr", "Dogs bark loudly", "Stocks fell"]
    assert corpus.labels.tolist() == ["pets", "pets", "finance"]
    cleaned = load_text_corpus(
        tmp_path / "train-texts.txt", labels=tmp_path / "train-labels.txt", variant="no-short"
    )
    assert cleaned.documents[0] == "cats purr"
    (tmp_path / "test-texts.txt").write_text("Bonds rose\n")
    (tmp_path / "test-labels.txt").write_text("finance\n")
    train, test = load_text_corpus(
        tmp_path / "train-texts.txt", labels=tmp_path / "train-labels.txt", split="train_test"
    )
    assert (len(train), test.documents, test.labels.tolist()) == (3, ["Bonds rose"], ["finance"])
    (tmp_path / "train-labels.txt").write_text("pets\n")
    with pytest.raises(ValueError, match=r"has 3 documents .* but .* has 1 labels"):
        load_text_corpus(tmp_path / "train-texts.txt", labels=tmp_path / "train-labels.txt")


def _class_folders(root, files):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text)


def test_a_folder_per_class_and_train_test_folders(tmp_path):
    _class_folders(
        tmp_path / "flat",
        {"sport/10": b"Goal!", "sport/9": b"A match", "news/a.txt": b"Caf\xe9 opens"},
    )
    corpus = load_text_corpus(tmp_path / "flat")
    # classes in order, files by number then name; latin-1 when not UTF-8
    assert corpus.labels.tolist() == ["news", "sport", "sport"]
    assert corpus.documents == ["Café opens", "A match", "Goal!"]
    with pytest.raises(ValueError, match="without a training and a test folder"):
        load_text_corpus(tmp_path / "flat", split="train")
    _class_folders(
        tmp_path / "split",
        {"Training/a/1": b"x y", "Training/b/1": b"z", "my-test/a/1": b"x", "my-test/b/1": b"w"},
    )
    train, test = load_text_corpus(tmp_path / "split")
    assert (train.labels.tolist(), test.documents) == (["a", "b"], ["x", "w"])
    assert len(load_text_corpus(tmp_path / "split", split="full")) == 4
    _class_folders(tmp_path / "odd", {"one/a/1": b"x", "two/a/1": b"y"})
    with pytest.raises(ValueError, match=r"expected one training and one test folder.*'one'"):
        load_text_corpus(tmp_path / "odd")


def test_a_20news_folder_reads_as_its_archive(archive, tmp_path):
    import tarfile

    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path, filter="data")
    from_folder = load_text_corpus(tmp_path, variant="no-short")
    from_archive = load_text_corpus(archive, variant="no-short")
    for a, b in zip(from_folder, from_archive, strict=True):
        assert a.documents == b.documents and a.labels.tolist() == b.labels.tolist()


def test_one_name_per_corpus_and_the_old_names(tmp_path):
    from mlnb.datasets._text import CORPORA, corpus_name

    assert CORPORA == ("webkb", "r8", "20ng_bydate")
    assert corpus_name("20ng") == ("20ng_bydate", None)
    assert corpus_name("r8_allterms") == ("r8", "all-terms")
    text = tmp_path / "text" / "r8"
    (text / "allterms").mkdir(parents=True)
    (text / "noshort").mkdir()
    for split in ("train", "test"):
        (text / "allterms" / f"{split}.txt.gz").write_bytes(gzip.compress(b"earn\tup 3 to x\n"))
        (text / "noshort" / f"r8-{split}.txt.gz").write_bytes(gzip.compress(b"2 net up\n"))
    assert load_text_corpus("r8_noshort", data_dir=tmp_path).train.documents == ["net up"]
    assert load_text_corpus("r8_allterms", data_dir=tmp_path).train.documents == ["up to x"]
    assert load_text_corpus("R8", data_dir=tmp_path, variant="no-short").test.labels[0] == "earn"
    with pytest.raises(ValueError, match="this name is 'r8' with variant='no-short'"):
        load_text_corpus("r8_noshort", variant="stemmed", data_dir=tmp_path)
