"""Sphinx configuration of mlnb's documentation site.

Build: ``python -m sphinx -W docs docs/_build/html`` (or ``make -C docs html``), after
``pip install -e ".[docs]"``. The API reference is generated from the ``__all__`` of
``mlnb`` and of its public modules (`PUBLIC_MODULES`), so a new public name gets a page
without an edit here; the gallery runs the scripts of ``examples/``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))  # gallery_figures
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mlnb  # noqa: E402

project = "mlnb"
author = "the mlnb developers"
copyright = "2026, the mlnb developers"
release = mlnb.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = [
    "_build",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "**/README.md",
    "gallery_figures.py",
    "sg_execution_times.rst",  # left by builds before write_computation_times=False
    "auto_examples/sg_execution_times.rst",
]
templates_path = ["_templates"]

# ---- API reference: one page per public module, one per public name
PUBLIC_MODULES = [
    "mlnb.naive_bayes",
    "mlnb.events",
    "mlnb.multilabel",
    "mlnb.base",
    "mlnb.selection",
    "mlnb.estimators",
    "mlnb.thresholds",
    "mlnb.tuning",
    "mlnb.decision_rules",
    "mlnb.evaluation",
    "mlnb.metrics",
    "mlnb.datasets",
    "mlnb.text",
    "mlnb.streaming",
    "mlnb.forgetting",
    "mlnb.audit",
    "mlnb.semi_supervised",
    "mlnb.distributed",
    "mlnb.io",
    "mlnb.stats",
    "mlnb.missing",
    "mlnb.labels",
    "mlnb.limits",
]


def _public_names(module_name):
    module = importlib.import_module(module_name)
    return sorted(name for name in module.__all__ if not name.startswith("_"))


def write_api_pages():
    """``api/<module>.rst`` for every public module: its docstring and an autosummary.

    An object exported by several modules (``mlnb.BinaryRelevance`` is
    ``mlnb.multilabel.BinaryRelevance``) gets its page under the first of them and a link
    from the others.
    """
    folder = HERE / "api"
    folder.mkdir(exist_ok=True)
    index = ["API reference", "=============", "", ".. toctree::", "   :maxdepth: 1", ""]
    documented = {}
    for module_name in ["mlnb", *PUBLIC_MODULES]:
        module = importlib.import_module(module_name)
        own, linked = [], []
        for name in _public_names(module_name):
            if name == "__version__":
                continue
            key = id(getattr(module, name))
            (linked if key in documented else own).append(name)
            documented.setdefault(key, f"{module_name}.{name}")
        title = f"``{module_name}``"
        lines = [title, "=" * len(title), "", f".. automodule:: {module_name}"]
        lines += ["   :no-members:", "", f".. currentmodule:: {module_name}", ""]
        if own:
            lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in own] + [""]
        if linked:
            lines += ["Also here, documented under another module:", ""]
            lines += [
                f"- :obj:`{name} <{documented[id(getattr(module, name))]}>`" for name in linked
            ]
            lines += [""]
        page = folder / f"{module_name}.rst"
        text = "\n".join(lines)
        if not page.exists() or page.read_text() != text:
            page.write_text(text)
        index.append(f"   {module_name}")
    (folder / "index.rst").write_text("\n".join(index) + "\n")


def skip_foreign_members(app, what, name, obj, skip, options):
    """Document mlnb's own methods only, not those inherited from scikit-learn (``score``,
    ``set_params``, the metadata-routing ``set_*_request``), whose docstrings link into
    scikit-learn's site."""
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and callable(obj) and not module.startswith("mlnb"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign_members)


write_api_pages()

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {}  # the class template asks for members
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# no intersphinx: the documentation builds without a network

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

sphinx_gallery_conf = {
    # this order: see gallery_figures
    "image_scrapers": ("gallery_figures.figure_scraper", "gallery_figures.pyplot_scraper"),
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    # no sg_execution_times pages: sphinx-gallery writes them with scripts from CDNs
    "write_computation_times": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"mlnb {release}"
html_theme_options = {
    "github_url": None,
    "navigation_with_keys": False,
    "show_toc_level": 2,
}


# MathJax is served with the site, so that the math renders offline (no CDN): the files of
# MathJax 3 shipped by the docs extra's sphinx-mathjax-offline, copied to _static/mathjax.
# Its SVG output draws the glyphs itself: no web fonts to load, which browsers refuse
# across folders of a site opened from disk.
def mathjax_files():
    """The folder that holds sphinx-mathjax-offline's ``mathjax/``."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None:
        raise ImportError("MathJax for the site: pip install -e '.[docs]' (sphinx-mathjax-offline)")
    return Path(spec.origin).parent / "static"


html_static_path = [str(mathjax_files())]
mathjax_path = "mathjax/tex-svg.js"
