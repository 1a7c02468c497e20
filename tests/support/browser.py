"""Headless Chromium through its driver (Debian's chromium and chromium-driver; scripts/install_browser.sh
installs them). Where they are missing the browser tests skip, unless DGRAG_REQUIRE_BROWSER=1 (CI sets it)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@contextmanager
def chromium(width: int = 1100, height: int = 900) -> Iterator[Any]:
    """A headless Chromium driven by selenium, quit at the end of the block."""
    if CHROMIUM is None or DRIVER is None:
        if os.environ.get("DGRAG_REQUIRE_BROWSER") == "1":
            pytest.fail("Chromium or its driver is missing: run scripts/install_browser.sh")
        pytest.skip("Chromium and its driver are not installed: run scripts/install_browser.sh")
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    try:
        yield browser
    finally:
        browser.quit()


def screenshot(browser: Any, name: str) -> None:
    """Keep a screenshot as DGRAG_SCREENSHOTS/NAME.png when that variable names a folder."""
    folder = os.environ.get("DGRAG_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(folder) / f"{name}.png"))
