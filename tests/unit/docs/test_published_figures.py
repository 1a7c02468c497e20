"""README.md's results table is exactly what the committed rows give (benchmarks/published.py): a changed digit, a
figure without rows or a row the registry does not know fails."""

from __future__ import annotations

from benchmarks.published import FIGURES, ROOT


def _table_rows() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    results = text.split("## Results", 1)[1].split("\n## ", 1)[0]
    lines = [line.strip() for line in results.splitlines() if line.strip().startswith("|")]
    return lines[2:]  # after the header and its rule


def test_every_published_figure_is_recomputed_from_its_committed_rows() -> None:
    expected = [figure.row() for figure in FIGURES]
    assert _table_rows() == expected
