"""docs/simulation.md's figures of the two scaling runs with probes (4, 16 and 64 edges) are what their committed
rows give (simulation.report.mode_report over each N's answers): route recall, edges asked per probed question,
evidence recall, escalation within and out, summary hit@1; a changed digit fails."""

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
    probes, lexical = _runs("scale-probes-multihop4"), _runs("scale-lexical-multihop4")

    def column(runs: list[tuple[dict[str, Any], float]], key: str) -> list[float]:
        return [r[key]["all"] if key == "evidence_recall" else r[key] for r, _ in runs]

    asked = " / ".join(f"{a:.2f}" for _, a in probes)
    last, last_asked = lexical[-1]
    return [
        f"Route recall {_three(column(probes, 'route_recall@k'))}% asking {asked} edges per probed question",
        f"evidence recall {_three(column(probes, 'evidence_recall'))}%; escalation within "
        f"{_three(column(probes, 'escalation_within'))}% and out {_three(column(probes, 'escalation_out'))}%; "
        f"summary hit@1 {_three(column(probes, 'summary_hit@1'))}%",
        f"Escalation out {_three(column(lexical, 'escalation_out'))}% (was {_three(column(probes, 'escalation_out'))})",
        f"evidence recall {_three(column(lexical, 'evidence_recall'))}% ({_three(column(probes, 'evidence_recall'))})",
        f"escalation within {_three(column(lexical, 'escalation_within'))}% "
        f"({_three(column(probes, 'escalation_within'))})",
        f"at 64 edges, route recall {_pct(last['route_recall@k'])}% asking {last_asked:.2f} edges "
        f"(100% at {probes[-1][1]:.2f}); {lexical[0][1]:.2f} / {lexical[1][1]:.2f} edges at N = 4 / 16",
    ]


@pytest.mark.parametrize("phrase", _phrases())
def test_scale_figures_are_recomputed_from_their_rows(phrase: str) -> None:
    assert phrase in _doc()
