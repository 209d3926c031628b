import pytest

from browser_pages import CHROMIUM, LAUNCH_ARGS, NO_CHROMIUM


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium (one per test process); the tests that need it skip only where it is missing."""
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()
