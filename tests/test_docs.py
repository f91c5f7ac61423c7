"""The documentation site builds with warnings as errors, gallery examples included, every
public name has a reference page, and the built site reads offline: its math is rendered
by a MathJax served with it (no raw LaTeX outside math elements), it loads nothing from
another site, and its internal links resolve."""

import importlib
import re
import subprocess
import sys
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]')")
pytest.importorskip("sphinx_gallery", reason="the docs extra")
pytest.importorskip("sphinx-mathjax-offline", reason="the docs extra")

pytestmark = pytest.mark.slow  # the site is built once, gallery examples run: minutes


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


# ---- the built site reads offline -----------------------------------------------------------
URL_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
# what a reader does not see as prose: math (MathJax renders it), code, scripts
NOT_PROSE = {"pre", "code", "script", "style"}
NOT_PROSE_CLASSES = {"math", "highlight", "sphx-glr-script-out"}


class Page(HTMLParser):
    """What the checks read of a built page, in one pass: its URLs, its ids, the text of
    its math elements and its prose (the text outside math, code and scripts)."""

    def __init__(self, text):
        super().__init__()
        self.urls, self.ids, self.math, self.prose = [], set(), [], []
        self._open = []  # (tag, not prose, math) of the elements open at this point
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in URL_ATTRIBUTES and attrs.get(URL_ATTRIBUTES[tag]):
            self.urls.append((tag, attrs[URL_ATTRIBUTES[tag]]))
        self.ids.update(attrs[key] for key in ("id", "name") if attrs.get(key))
        if tag in VOID:
            return
        classes = set((attrs.get("class") or "").split())
        math = "math" in classes
        hidden = tag in NOT_PROSE or bool(classes & NOT_PROSE_CLASSES)
        if math:
            self.math.append("")
        self._open.append((tag, hidden or self._hidden(), math))

    def handle_endtag(self, tag):
        tags = [open_tag for open_tag, _, _ in self._open]
        if tag in tags:  # an element left open by the page closes with its parent
            del self._open[len(tags) - 1 - tags[::-1].index(tag) :]

    def handle_data(self, data):
        if any(math for _, _, math in self._open):
            self.math[-1] += data
        elif not self._hidden():
            self.prose.append(data)

    def _hidden(self):
        return bool(self._open) and self._open[-1][1]


@pytest.fixture(scope="module")
def pages(site):
    """Every HTML page of the site (not the theme's files), read."""
    found = {}
    for path in sorted(site.rglob("*.html")):
        relative = path.relative_to(site)
        if relative.parts[0] not in ("_static", "_sources", "_images", "_downloads"):
            found[relative] = Page(path.read_text(encoding="utf-8"))
    assert len(found) > 50
    return found


def is_remote(url):
    return bool(urlsplit(url).scheme or url.startswith("//"))


def test_pages_load_nothing_from_another_site(pages):
    remote = [
        f"{page}: <{tag} {url}>"
        for page, read in pages.items()
        for tag, url in read.urls
        if is_remote(url) and (tag != "a" or re.search(r"cdn|jsdelivr|unpkg", urlsplit(url).netloc))
    ]
    assert not remote, remote[:20]


def test_math_is_rendered_by_the_mathjax_served_with_the_site(site, pages):
    with_math = [page for page, read in pages.items() if read.math]
    assert Path("guide/naive_bayes.html") in with_math
    for page in with_math:
        scripts = [url for tag, url in pages[page].urls if tag == "script"]
        mathjax = [url for url in scripts if "mathjax" in url.lower()]
        assert len(mathjax) == 1, (page, scripts)
        served = ((site / page).parent / urlsplit(mathjax[0]).path).resolve()
        assert served.is_relative_to(site.resolve() / "_static"), (page, mathjax)
        assert served.is_file(), (page, mathjax)
        for text in pages[page].math:  # in the delimiters MathJax looks for
            assert re.fullmatch(r"\s*(\\\(.+\\\)|\\\[.+\\\])\s*", text, re.DOTALL), (page, text)


# LaTeX that a reader would see unrendered: a dollar sign, a TeX command such as \beta,
# a subscript or superscript in braces
RAW_LATEX = re.compile(r"\$|\\[A-Za-z]+|[_^]\{")


def test_no_raw_latex_outside_math(pages):
    raw = []
    for page, read in pages.items():
        prose = " ".join(" ".join(read.prose).split())
        raw += [
            f"{page}: ...{prose[max(m.start() - 40, 0) : m.end() + 40]}..."
            for m in RAW_LATEX.finditer(prose)
        ]
    assert not raw, raw[:20]


def test_internal_links_resolve(site, pages):
    """Every relative href and src names a file of the site, and its #fragment an id of
    that page."""
    root = site.resolve()

    @cache
    def target(folder, path):
        """The file of the site that a link from a page of ``folder`` names, else None."""
        found = (root / folder / unquote(path)).resolve()
        if found.is_dir():
            found = found / "index.html"
        return found.relative_to(root) if found.is_file() and found.is_relative_to(root) else None

    broken = []
    for page, read in pages.items():
        for _, url in read.urls:
            if is_remote(url):
                continue
            parts = urlsplit(url)
            linked = target(page.parent, parts.path) if parts.path else page
            if linked is None:
                broken.append(f"{page}: {url}")
            elif (
                parts.fragment
                and linked in pages
                and unquote(parts.fragment) not in pages[linked].ids
            ):
                broken.append(f"{page}: {url} (no such anchor)")
    assert not broken, broken[:30]
