"""Every figure README's results table quotes is in the committed report it links (no figure without a source)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<figure>[^|]+) \| `(?P<report>docs/results/[^`]+)` \|$")
NUMBER = re.compile(r"\d+(?:\.\d+)?%?")


def _rows() -> list[re.Match[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    results = text.split("## Results", 1)[1].split("\n## ", 1)[0]
    return [m for line in results.splitlines() if (m := ROW.match(line.strip()))]


def test_the_results_table_links_a_committed_report_holding_each_figure() -> None:
    rows = _rows()
    assert len(rows) >= 5
    for row in rows:
        report = ROOT / row["report"]
        assert report.is_dir(), f"{row['report']} is not committed"
        text = "\n".join(p.read_text(encoding="utf-8") for p in report.rglob("*") if p.suffix in (".md", ".txt"))
        for figure in NUMBER.findall(row["figure"]):
            assert figure in text, f"{row['what'].strip()}: {figure} is not in {row['report']}"
