"""Make docs/report.png, the README's picture of a report: the top of a results folder's report.html (verdict,
tables, 3-D view) in headless Chromium (Debian's ``chromium``, driven by playwright).

    python docs/report_screenshot.py results/loading_unloading_6dof docs/report.png

Writes the folder's report.html first when it has none (``structcheck report``)."""
from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

WIDTH = 1280  # [px] of the page; the picture is scaled to 1000 px wide


def screenshot(folder: Path, png: Path) -> Path:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from structcheck.report import write_report

    page_path = folder / "report.html"
    if not page_path.is_file():
        write_report(folder)
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("needs Debian's chromium: apt-get install chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium,
                                     args=["--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
        page.goto(page_path.resolve().as_uri(), wait_until="load", timeout=300_000)
        page.wait_for_selector("#view3d-plot .gl-container canvas", timeout=120_000)
        page.wait_for_timeout(3000)  # the 3-D view's first frame (software WebGL)
        page.add_style_tag(content="nav { position: static !important; }")  # not repeated over the picture
        bottom = page.evaluate("() => { const r = document.querySelector('#view3d').getBoundingClientRect(); "
                               "return r.bottom + window.scrollY; }")
        shot = page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": WIDTH, "height": bottom + 10})
        browser.close()
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    image = image.resize((1000, round(image.height * 1000 / image.width)), Image.LANCZOS)
    image.save(png, optimize=True)
    return png


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(screenshot(Path(sys.argv[1]), Path(sys.argv[2])))
