"""Writing a report page: the Jinja2 templates (autoescaped: a study's text is shown, never run), plotly figures
as HTML fragments, plotly.js inline once per page, and the atomic write of the file.

Nothing on a page is fetched: scripts, styles and images are inline; the fonts are the reader's system fonts;
MathJax is off (no LaTeX in the figures) and no figure is a map (plotly would fetch topojson for one).
"""
from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path

from markupsafe import Markup

# plotly's per-figure options: no plotly logo, no "Share chart" button (it sends the figure to plotly's cloud),
# figures follow the page's width
PLOT_CONFIG = {"displaylogo": False, "showSendToCloud": False, "responsive": True}


@lru_cache(maxsize=1)
def environment():
    """The Jinja2 environment of structcheck/report/templates, autoescaping every value."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(loader=PackageLoader("structcheck.report", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


@lru_cache(maxsize=1)
def plotly_js() -> Markup:
    """plotly.js (the version the plotly package ships), for one inline script per page."""
    from plotly.offline import get_plotlyjs

    return Markup(get_plotlyjs())


def figure_html(fig, div_id: str) -> Markup:
    """A plotly figure as an HTML fragment (its div and the script drawing it; plotly.js is on the page once).
    Plotly escapes ``<`` in the figure's JSON, so a name holding ``</script>`` stays text."""
    import plotly.io as pio

    return Markup(pio.to_html(fig, full_html=False, include_plotlyjs=False, include_mathjax=False,
                              config=PLOT_CONFIG, div_id=div_id, default_height=f"{fig.layout.height or 450}px"))


def render(template: str, **context) -> str:
    """The page ``template`` (a file of templates/) filled with ``context``; plotly.js is passed as ``plotly_js``."""
    return environment().get_template(template).render(plotly_js=plotly_js(), **context)


def write_page(html: str, path: str | os.PathLike) -> Path:
    """Write ``html`` to ``path`` through a temporary file in the same folder moved into place (a reader never
    sees half a page), with the mode of any file the process writes (0666 less the umask: 0644 as the results'
    other files; tempfile.mkstemp's would be 0600). OSError if the folder cannot be written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
