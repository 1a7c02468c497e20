"""docs/simulation.md's figures of the scaling run (4, 16 and 64 edges, docs/results/scale-lexical-multihop4) are
what its committed rows give (simulation.report.mode_report over each N's answers): route recall, edges asked per
probed question, evidence recall, escalation within and out, summary hit@1; a changed digit fails."""

from __future__ import annotations

import re
import statistics
from typing import Any

import pytest

from simulation.answer_rows import read_rows
from simulation.report import mode_report
from tests.support.paths import REPO

RESULTS = REPO / "docs" / "results"
SIZES = (4, 16, 64)


def _doc() -> str:
    return re.sub(r"\s+", " ", (REPO / "docs" / "simulation.md").read_text(encoding="utf-8"))


def _runs(folder: str) -> list[tuple[dict[str, Any], float]]:
    """Per N: the dgrag mode's report and the mean number of edges asked per probed question."""
    out = []
    for n in SIZES:
        rows = [r for r in read_rows(RESULTS / folder / f"answers-N{n}.jsonl.gz") if r["mode"] == "dgrag"]
        probed = [len(r["edges_asked"] or []) for r in rows if r.get("probes")]
        out.append((mode_report(rows, "dgrag"), statistics.mean(probed)))
    return out


def _pct(x: float) -> str:
    return "100" if x == 1 else f"{100 * x:.1f}"


def _three(values: list[float]) -> str:
    return " / ".join(_pct(v) for v in values)


def _phrases() -> list[str]:
    runs = _runs("scale-lexical-multihop4")

    def column(key: str) -> str:
        return _three([r[key]["all"] if key == "evidence_recall" else r[key] for r, _ in runs])

    asked = " / ".join(f"{a:.2f}" for _, a in runs)
    return [
        f"Route recall {column('route_recall@k')}% asking {asked} edges per probed question",
        f"Evidence recall {column('evidence_recall')}%; escalation within {column('escalation_within')}% and out "
        f"{column('escalation_out')}%.",
        f"Summary hit@1 {column('summary_hit@1')}%.",
    ]


@pytest.mark.parametrize("phrase", _phrases())
def test_scale_figures_are_recomputed_from_their_rows(phrase: str) -> None:
    assert phrase in _doc()
