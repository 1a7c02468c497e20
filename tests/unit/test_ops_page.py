"""The operators' page: served by a running cloud, to admin credentials only, with its edges and latest questions."""

from __future__ import annotations

from pathlib import Path

from tests.unit.ops_page_view import operators_page


def test_the_page_shows_edges_and_questions_to_operators_only(tmp_path: Path) -> None:
    seen = operators_page(tmp_path)
    assert seen["app"][0] == 401 and seen["wrong"][0] == 401
    status, page = seen["ops"]
    assert status == 200 and "<td>edge-a</td><td>yes</td>" in page and "<td>edge-b</td>" in page
    assert "Zephyr Medical" in page and "<b>Zephyr" not in page, "questions are shown escaped"
    assert "<td>global_query</td><td>app-1</td>" in page
