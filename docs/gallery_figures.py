"""The gallery's scraper of matplotlib Figures (a module, so that Sphinx can cache the
configuration that names it)."""

from matplotlib.figure import Figure
from sphinx_gallery.scrapers import figure_rst


def figure_scraper(block, block_vars, gallery_conf, **kwargs):
    """Show the matplotlib Figures an example holds in its variables (mlnb's plotting
    functions return one when given ``path=None``; they never use pyplot). Figures made
    with pyplot are left to sphinx-gallery's own matplotlib scraper, which runs after this
    one (it closes them)."""
    shown = block_vars.setdefault("mlnb_shown_figures", set())
    paths = []
    for value in list(block_vars["example_globals"].values()):
        pyplot_figure = getattr(getattr(value, "canvas", None), "manager", None) is not None
        if isinstance(value, Figure) and not pyplot_figure and id(value) not in shown:
            shown.add(id(value))
            path = next(block_vars["image_path_iterator"])
            value.savefig(path, dpi=100, bbox_inches="tight")
            paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"])
