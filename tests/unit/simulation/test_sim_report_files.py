"""`dgrag sim report`: a finished run's report rebuilt from its answer rows, keeping what only the run measured."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from shared.core.errors import DgragError
from simulation.report import build_report
from simulation.report_files import MARKDOWN_FILE, REPORT_FILE, RUN_INFO_FILE, rebuild_report, save_report
from tests.support.sim_rows import RUN_INFO, central_rows, dgrag_rows


def _finished_run(run_dir: Path, gzipped: bool = False) -> dict[str, object]:
    rows = dgrag_rows() + central_rows()
    report = build_report(rows, RUN_INFO)
    save_report(run_dir, report)
    text = "".join(json.dumps(r) + "\n" for r in rows)
    if gzipped:
        (run_dir / "answers.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (run_dir / "answers.jsonl").write_text(text)
    return report


@pytest.mark.parametrize("gzipped", [False, True])
def test_rebuild_restores_a_missing_metric_and_keeps_run_facts_and_judge(tmp_path: Path, gzipped: bool) -> None:
    fresh = _finished_run(tmp_path, gzipped)
    older = json.loads((tmp_path / REPORT_FILE).read_text())
    for data in older["modes"].values():
        del data["reading"]  # a report written before the metric existed
    older["judge"] = {"model": "judge-x", "pairs": {}}
    (tmp_path / REPORT_FILE).write_text(json.dumps(older))

    rebuilt = rebuild_report(tmp_path)

    assert rebuilt["modes"] == json.loads(json.dumps(fresh["modes"]))
    assert rebuilt["edges"] == older["edges"] and rebuilt["cloud"] == older["cloud"]
    for fact in ("machine", "hosts", "backend"):
        assert rebuilt[fact] == older[fact], f"the run's {fact} facts are kept"
    assert rebuilt["run"]["wall_seconds"] == 600.0 and rebuilt["config"] == {"gate": {"threshold": 0.5}}
    assert rebuilt["judge"] == {"model": "judge-x", "pairs": {}}
    assert json.loads((tmp_path / REPORT_FILE).read_text()) == json.loads(json.dumps(rebuilt))
    assert "### By question shape" in (tmp_path / MARKDOWN_FILE).read_text()


def test_rebuild_judges_rows_again_with_todays_metric(tmp_path: Path) -> None:
    _finished_run(tmp_path)
    rows = [json.loads(x) for x in (tmp_path / "answers.jsonl").read_text().splitlines()]
    q4 = next(r for r in rows if r["qid"] == "q4" and r["kind"] == "within" and r["mode"] == "dgrag")
    q4.update(answer="Paris [1: paris]", short="Paris", correct=False)  # a verdict recorded by an older metric
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    report = rebuild_report(tmp_path)

    assert report["modes"]["dgrag"]["accuracy"]["within"] == 0.75  # q4 counts as right again
    again = [json.loads(x) for x in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert len(again) == len(rows)
    assert next(r for r in again if r["qid"] == "q4" and r["kind"] == "within" and r["mode"] == "dgrag")["correct"]


def test_rebuild_from_run_info_when_reporting_failed(tmp_path: Path) -> None:
    fresh = _finished_run(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / RUN_INFO_FILE).write_text(json.dumps(RUN_INFO))  # the runner saves it before building the report
    (tmp_path / REPORT_FILE).unlink()
    rebuilt = rebuild_report(tmp_path)
    assert rebuilt == json.loads(json.dumps(fresh))


def test_rebuild_needs_a_finished_run(tmp_path: Path) -> None:
    with pytest.raises(DgragError, match=r"neither report\.json nor run/info\.json"):
        rebuild_report(tmp_path)
    _finished_run(tmp_path)
    (tmp_path / "answers.jsonl").write_text(json.dumps({"qid": "q1", "mode": "dgrag"}) + "\n")
    with pytest.raises(DgragError, match="row 1 lacks answer, gold, home_edges, kind"):
        rebuild_report(tmp_path)
    (tmp_path / "answers.jsonl").unlink()
    with pytest.raises(DgragError, match=r"no answers\.jsonl"):
        rebuild_report(tmp_path)


def test_a_failed_report_keeps_the_partial_answers_and_leaves_no_stale_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simulation import report_files, runner
    from simulation.resume import PARTIAL_ANSWERS

    _finished_run(tmp_path)  # an earlier run's report.json and report.md in the same --out
    (tmp_path / "run").mkdir()
    (tmp_path / PARTIAL_ANSWERS).write_text("{}\n")
    rows = dgrag_rows()

    def broken(out: Path, report: object) -> None:
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(report_files, "save_report", broken)
    with pytest.raises(RuntimeError):
        runner._write(tmp_path, rows, {**RUN_INFO, "wall_seconds": 1.0})
    assert (tmp_path / PARTIAL_ANSWERS).is_file() and not (tmp_path / REPORT_FILE).exists()
    monkeypatch.undo()
    rebuilt = rebuild_report(tmp_path)  # from this run's rows and run/info.json, not the earlier report
    assert rebuilt["run"]["wall_seconds"] == 1.0 and rebuilt["modes"]["dgrag"]["n"]["all"] == len(rows)


def test_rows_that_never_measured_bytes_are_not_counted_as_zero() -> None:
    rows = dgrag_rows()
    for row in rows:
        row.pop("bytes_left_edges", None)
    report = build_report(rows, RUN_INFO)
    assert report["modes"]["dgrag"]["bytes_per_query"]["mean"] is None
