"""The yes/no fit from committed rows: refused on report-half questions, fitted and summarised from fit-half ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.fit_yes_no import auc, main, yes_no_asks
from shared.core.errors import DgragError
from simulation.halves import Half, half_of


def _qids(half: Half, n: int) -> list[str]:
    return [q for q in (f"q{i}" for i in range(400)) if half_of(q) == half][:n]


def test_report_half_rows_are_refused_and_other_shapes_left_out() -> None:
    report = {"qid": _qids(Half.REPORT, 1)[0], "mode": "dgrag", "gold": "Yes", "question": "Is it?", "sources": [1]}
    with pytest.raises(DgragError, match="report-half"):
        yes_no_asks([report])
    fit = dict(report, qid=_qids(Half.FIT, 1)[0])
    assert yes_no_asks([fit, dict(fit, question="Who is it?"), dict(fit, gold="Apple")]) == [fit]


def test_a_fit_from_rows_separates_what_its_features_separate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {
            "qid": q,
            "gold": "Yes" if i % 2 else "No",
            "vote": "Yes",
            "features": {"weakest": 0.8 if i % 2 else 0.2, "sourced": 1.0, "held": 0.5},
        }
        for i, q in enumerate(_qids(Half.FIT, 40))
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["--from-rows", str(path)]) == 0
    out = capsys.readouterr().out
    assert "always yes: 50.0% right; the run's vote: 50.0% right" in out and "AUC 1.00" in out
    assert auc([0.9, 0.1], [True, False]) == 1.0
