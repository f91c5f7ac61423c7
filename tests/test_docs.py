"""The documentation site builds with warnings as errors, gallery examples included, and
every public name has a reference page."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]')")
pytest.importorskip("sphinx_gallery", reason="the docs extra")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q"]
    done = subprocess.run(
        [*command, str(ROOT / "docs"), str(out)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_every_public_name_has_a_reference_page(site):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        conf = importlib.import_module("conf")
    finally:
        sys.path.remove(str(ROOT / "docs"))
    pages = {p.stem for p in (site / "api" / "generated").glob("*.html")}
    missing = []
    for module_name in ["mlnb", *conf.PUBLIC_MODULES]:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if name == "__version__":
                continue
            obj = getattr(module, name)
            homes = [
                f"{m}.{name}"
                for m in ["mlnb", *conf.PUBLIC_MODULES]
                if getattr(importlib.import_module(m), name, None) is obj
            ]
            if not any(home in pages for home in homes):
                missing.append(f"{module_name}.{name}")
    assert not missing, missing
    assert (site / "api" / "mlnb.multilabel.html").is_file()


def test_gallery_examples_ran_and_drew_figures(site):
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    assert examples
    for example in examples:
        page = site / "auto_examples" / f"{example.stem}.html"
        assert page.is_file(), example.name
        assert f"sphx_glr_{example.stem}_001.png" in page.read_text(), example.name
