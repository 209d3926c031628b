"""A report page printed to PDF for the archive (``structcheck report RESULTS --pdf``): Chromium's own print to PDF,
driven through playwright, of the page's print stylesheet (templates/_review.css.j2: A4 landscape, the 3-D views
left out for the static renders, every collapsed list opened).

Needs a Chromium on the machine (``chromium`` on the PATH, or STRUCTCHECK_CHROMIUM naming its executable; Debian's
``apt-get install chromium``) and the playwright package (``pip install playwright``; never ``playwright install``:
no browser is downloaded). The page is loaded from its file with every request outside it refused, as a reader's
browser would open it offline.
"""
from __future__ import annotations

import os
import secrets
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import InputError

#: the page's CSS pixels per PDF pixel: 0.75 lays the page out 1396 px wide on A4 landscape with 10 mm margins
#: (277 mm at 96 px/in, divided by 0.75), so every table that fits a 1280 px window fits the paper
SCALE = 0.75
# WebGL without a GPU (the plotly views are drawn before print hides them): chromium's software renderer
LAUNCH_ARGS = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]


def chromium_path() -> str:
    """The Chromium executable: STRUCTCHECK_CHROMIUM, else ``chromium`` or ``chromium-browser`` on the PATH;
    InputError saying how to get one."""
    path = os.environ.get("STRUCTCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise InputError("--pdf needs Chromium: install it (Debian: apt-get install chromium) or name its executable "
                         "in STRUCTCHECK_CHROMIUM")
    return path


def write_pdf(page_path: str | os.PathLike, out: str | os.PathLike) -> Path:
    """Print the report page ``page_path`` (an HTML file) to the PDF ``out``, written through a temporary file moved
    into place; returns its path. InputError when Chromium or playwright is missing."""
    executable = chromium_path()
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise InputError("--pdf needs the playwright package: pip install playwright (it drives the installed "
                         "Chromium; no browser is downloaded)") from None
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    try:
        # on a thread of its own: playwright's sync API refuses a thread where an asyncio loop runs (a notebook, or
        # a process that already drives a browser)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(_print, sync_playwright, Error, executable, Path(page_path).resolve().as_uri(), tmp).result()
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


def _print(sync_playwright, Error, executable: str, url: str, pdf: Path) -> None:
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        except Error as exc:
            raise InputError(f"--pdf: Chromium at {executable} did not start: {str(exc).splitlines()[0]}") from None
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("**/*", lambda r: r.continue_() if r.request.url == url or r.request.url.startswith(
            ("data:", "blob:")) else r.abort())
        page.goto(url, wait_until="load", timeout=600_000)
        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        page.emulate_media(media="print")
        page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True, scale=SCALE)
        browser.close()
