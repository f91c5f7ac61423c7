"""The gallery's scrapers of matplotlib figures (a module, so that Sphinx can cache the
configuration that names them)."""

from matplotlib.figure import Figure
from sphinx_gallery.scrapers import figure_rst, matplotlib_scraper


def figure_scraper(block, block_vars, gallery_conf, **kwargs):
    """Show the matplotlib Figures an example holds in its variables (mlnb's plotting
    functions return one when given ``path=None``; they never use pyplot). Figures made
    with pyplot are left to `pyplot_scraper`, which runs after this one (it closes them)."""
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


def pyplot_scraper(block, block_vars, gallery_conf, **kwargs):
    """sphinx-gallery's scraper of pyplot figures, saving all that is drawn
    (``bbox_inches="tight"``, as `figure_scraper`): a title or label that reaches past the
    figure's edge is shown whole, not cut."""
    return matplotlib_scraper(block, block_vars, gallery_conf, bbox_inches="tight", **kwargs)
