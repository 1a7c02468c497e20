"""The operators' page renders in a real browser (headless Chromium from Debian's packages; skipped where it is
not installed). DGRAG_SCREENSHOT=PATH keeps the screenshot (docs/ops-page.png was made so)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.ops_page_view import operators_page

pytestmark = pytest.mark.integration
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt install chromium)")
def test_the_operators_page_renders_in_chromium(tmp_path: Path) -> None:
    status, page = operators_page(tmp_path)["ops"]
    assert status == 200
    html_file = tmp_path / "ops.html"
    html_file.write_text(page.replace('<meta http-equiv="refresh" content="10">', ""), encoding="utf-8")
    shot = Path(os.environ.get("DGRAG_SCREENSHOT") or tmp_path / "ops.png")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1100,520"]
    command = [str(CHROMIUM), *flags, f"--screenshot={shot}", html_file.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000, "a rendered page, not blank"
