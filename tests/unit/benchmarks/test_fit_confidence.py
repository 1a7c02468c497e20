"""fit_confidence: fits each model's calibration on fit-half verdicts only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.fit_confidence import fit, unfiltered, verdicts
from shared.config import CLOUD_MODEL
from shared.core.errors import DgragError
from shared.models.calibration_files import BUNDLED_KEY
from simulation.halves import Half, half_of

FIT = [f"q{i}" for i in range(400) if half_of(f"q{i}") == Half.FIT]
REPORT = next(f"q{i}" for i in range(400) if half_of(f"q{i}") == Half.REPORT)


def _row(qid: str, reader: str, correct: bool, question: str = "Which company makes the iPhone?") -> dict:
    base = {"qid": qid, "question": question, "kind": "out", "mode": "dgrag"}
    return {**base, "reader": reader, "short": "Apple", "correct": correct}


def test_verdicts_are_split_by_the_model_that_read_them_and_no_verdict_is_left_out() -> None:
    rows = [_row(FIT[0], "cloud:vote", True), _row(FIT[1], "extractive", False), _row(FIT[2], "cloud:unsettled", False)]
    got = verdicts(rows)
    assert [e.reader for e, _ in got[CLOUD_MODEL]] == ["vote"] and [r for _, r in got[BUNDLED_KEY]] == [False]


def test_a_report_half_row_is_refused() -> None:
    with pytest.raises(DgragError, match="report-half"):
        verdicts([_row(REPORT, "vote", True)])


def test_the_fit_orders_readers_by_how_often_they_are_right() -> None:
    rows = [_row(q, "cloud:vote", i % 10 < 8) for i, q in enumerate(FIT[:40])]
    rows += [_row(q, "cloud:generated", i % 10 < 2) for i, q in enumerate(FIT[40:80])]
    samples = verdicts(rows)[CLOUD_MODEL]
    calibration = fit(samples, "test")
    vote = next(e for e, _ in samples if e.reader == "vote")
    generated = next(e for e, _ in samples if e.reader == "generated")
    assert calibration.probability(vote) > 0.65 > 0.35 > calibration.probability(generated)


def test_min_local_confidence_is_chosen_where_the_cloud_reads_what_the_edge_guessed() -> None:
    from benchmarks.fit_confidence import escalation_choice
    from shared.reading.confidence import Calibration

    edge = Calibration(0.0, {"reader=generated": -3.0, "reader=extractive": 3.0}, "test")
    rows = []
    for i, q in enumerate(FIT[:20]):
        reader = "generated" if i < 4 else "extractive"
        within = {**_row(q, reader, reader == "extractive"), "kind": "within", "decision": "local"}
        rows += [within, {**_row(q, "cloud:vote", True), "kind": "out", "decision": "cloud"}]
    choice, replay = escalation_choice(rows, edge)
    assert choice > 0.1, "the edge's generated guesses (p about 5%) go to the cloud, which reads them right"
    assert any("20.0%" in line for line in replay), "4 of 20 within-domain asks escalated"


def test_a_run_whose_edges_escalated_their_least_sure_verdicts_is_refused(tmp_path: Path) -> None:
    def run(name: str, threshold: float) -> Path:
        out = tmp_path / name
        out.mkdir()
        config = {"config": {"edge": {"gate": {"min_local_confidence": threshold}}}}
        (out / "report.json").write_text(json.dumps(config), encoding="utf-8")
        return out

    unfiltered(run("open", 0.0))
    unfiltered(tmp_path)  # no report: taken as it is
    with pytest.raises(DgragError, match=r"min_local_confidence = 0\.2.*min_local_confidence = 0"):
        unfiltered(run("filtered", 0.2))


def test_a_run_whose_edges_did_not_read_first_is_refused(tmp_path: Path) -> None:
    def run(name: str, gate: dict[str, object]) -> Path:
        out = tmp_path / name
        out.mkdir()
        (out / "report.json").write_text(json.dumps({"config": {"edge": {"gate": gate}}}), encoding="utf-8")
        return out

    unfiltered(run("before-the-setting", {"min_local_confidence": 0.0}))
    unfiltered(run("read-first", {"min_local_confidence": 0.0, "read_first": True}))
    with pytest.raises(DgragError, match=r"read_first = false.*read_first = true"):
        unfiltered(run("cloud-first", {"min_local_confidence": 0.0, "read_first": False}))
