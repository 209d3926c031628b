"""structcheck.report.page's ``render`` and ``figure_html``, called directly: a template's values are escaped
(a study's text shows, never runs), a value the template needs and is not given is an error rather than an empty
cell, plotly.js is on a page once; a figure's fragment draws exactly the figure given (its data read back from the
fragment's JSON) with the page's plotly options, at the figure's height, without fetching or carrying plotly.js."""
from __future__ import annotations

import json
import re

import pytest

from structcheck.report.page import PLOT_CONFIG, environment, figure_html, plotly_js, render

NASTY = '</script><script>alert("x")</script> & <b>'


def newplot_args(fragment: str) -> list:
    """The arguments of the fragment's ``Plotly.newPlot(id, data, layout, config)`` call, parsed as JSON."""
    text, args = fragment[fragment.index("Plotly.newPlot(") + len("Plotly.newPlot("):], []
    decoder = json.JSONDecoder()
    for _ in range(4):
        value, end = decoder.raw_decode(text.lstrip(" \n,"))
        args.append(value)
        text = text.lstrip(" \n,")[end:]
    return args


def test_render_escapes_every_value_and_carries_plotly_once():
    rows = [{"variant": NASTY, "status": "failed", "verdict": None, "run_time_s": None, "error": NASTY,
             "report": None,
             **{m: None for m in ("max_von_mises_pa", "min_safety_factor", "max_deformation_m",
                                  "tool_point_deflection_m", "mass_kg")}}]
    html = render("sweep.html.j2", version="t", folder=NASTY, names=[], rows=rows, metrics=(), required=None,
                  figure=None)
    assert NASTY not in html and "alert(" in html  # shown, escaped
    escaped = '&lt;/script&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;'
    # the title, the heading, the row's data-variant, the variant's cell and its error
    assert html.count(escaped) == 5
    assert html.count(str(plotly_js())) == 1 and len(str(plotly_js())) > 1e6
    assert re.findall(r"<script[^>]*\bsrc=", html) == []  # nothing fetched


def test_render_refuses_a_missing_value():
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        render("sweep.html.j2", version="t", folder="f", names=[], metrics=(), required=None, figure=None)


def test_the_environment_autoescapes():
    from markupsafe import Markup

    t = environment().from_string("{{ a }}|{{ b }}")
    assert t.render(a="<i>&", b=Markup("<i>ok</i>")) == "&lt;i&gt;&amp;|<i>ok</i>"  # Markup: already HTML


def test_figure_html_draws_the_figure_given():
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[0.0, 0.5, 1.0], y=[3.0, -4.25, 1e-9], name=NASTY))
    frag = str(figure_html(fig, "plot-7"))
    div_id, data, layout, config = newplot_args(frag)
    assert div_id == "plot-7" and 'id="plot-7"' in frag
    assert data == [{"name": NASTY, "x": [0.0, 0.5, 1.0], "y": [3.0, -4.25, 1e-9], "type": "scatter"}]
    assert config == PLOT_CONFIG == {"displaylogo": False, "showSendToCloud": False, "responsive": True}
    assert "</script><script>" not in frag and frag.count("</script>") == 1  # the name cannot end the script
    assert "height:450px" in frag and "height" not in layout  # plotly's default height when the figure has none
    assert "mathjax" not in frag.lower() and "cdn.plot.ly" not in frag and len(frag) < 2e4  # plotly.js not in it
    fig.update_layout(height=300)
    frag = str(figure_html(fig, "p"))
    assert "height:300px" in frag and newplot_args(frag)[2]["height"] == 300
