"""Report pages opened in a real headless browser: Debian's chromium driven by playwright (never a browser that
playwright downloads). Every request the page makes is recorded and any that is not the page's own file (or an
inline data:/blob: URL) is aborted and listed, so a test sees whether the page reaches outside."""
from __future__ import annotations

import io
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CHROMIUM = shutil.which("chromium")
# WebGL without a GPU: chromium's software renderer (SwiftShader through ANGLE)
LAUNCH_ARGS = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
INSTALL_CHROMIUM = "apt-get install chromium (Debian's; playwright drives it, never a browser it downloads)"


@dataclass
class Opened:
    """A page loaded in the browser, the console errors and uncaught exceptions it raised (``errors``), and the
    URLs it tried to reach outside itself (``outside``)."""

    page: object
    errors: list = field(default_factory=list)
    outside: list = field(default_factory=list)


def open_page(browser, path: Path, width: int = 1300) -> Opened:
    page = browser.new_page(viewport={"width": width, "height": 1000})
    url = Path(path).resolve().as_uri()
    opened = Opened(page)
    page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: opened.errors.append(str(e)))

    def inside(u: str) -> bool:
        return u == url or u.startswith(("data:", "blob:"))

    page.on("request", lambda r: None if inside(r.url) else opened.outside.append(r.url))

    def route(r):
        if inside(r.request.url):
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.goto(url, wait_until="load", timeout=180_000)
    return opened


def shown_numbers(page) -> list[tuple[list, float | None, float, str, float]]:
    """Every number tagged on the page: (summary.json key path, its value there, the shown scale, the text, the
    magnitude below which it shows as 0: rounding noise)."""
    cells = page.eval_on_selector_all(
        ".num[data-key]", "els => els.map(e => [e.dataset.key, e.dataset.value, e.dataset.scale, e.textContent, "
                          "e.dataset.zeroBelow || '0'])")
    return [(json.loads(k), None if v == "null" else float(v), float(s), t, float(z)) for k, v, s, t, z in cells]


def at(summary, key):
    for k in key:
        summary = summary[k]
    return summary


def coloured_fraction(page, selector: str, timeout_s: float = 60.0) -> float:
    """The fraction of coloured pixels (channel spread above 60 of 255) in a screenshot of the WebGL canvas
    of the element ``selector``, polled until the view is drawn or ``timeout_s`` passes (software WebGL)."""
    from PIL import Image

    page.wait_for_selector(f"{selector} .gl-container canvas", timeout=timeout_s * 1000)
    canvas = page.locator(f"{selector} .gl-container canvas").first
    frac, waited = 0.0, 0.0
    while waited < timeout_s:
        rgb = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB"), dtype=int)
        frac = float(np.mean(rgb.max(axis=2) - rgb.min(axis=2) > 60))
        if frac > 0.01:
            break
        page.wait_for_timeout(500)
        waited += 0.5
    return frac
