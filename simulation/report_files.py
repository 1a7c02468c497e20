"""A run's report files: report.json, report.md and the PNG plots, written together; and rebuilt from a
finished run's answer rows (``dgrag sim report``), so a run made before a metric existed gets it too."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError
from simulation.answer_rows import find_answers, read_rows, write_rows

REPORT_FILE = "report.json"
MARKDOWN_FILE = "report.md"
RUN_INFO_FILE = "run/info.json"
"""What the live run measured (per-edge costs, peak RSS, wall time, config), saved before the report is built."""
ANSWER_FIELDS = frozenset({"qid", "mode", "kind", "answer", "gold", "home_edges"})
RUN_FACTS = (
    "edges",
    "central",
    "cloud",
    "config",
    "machine",
    "provenance",
    "hosts",
    "backend",
    "edge_trust",
    "cloud_restart",
)
"""Top-level report keys measured while the run was up (not derivable from the rows)."""


def save_report(out: Path, report: Mapping[str, Any]) -> None:
    """Write report.json, the plots and report.md of ``report`` into ``out``."""
    from simulation.plots import write_plots
    from simulation.report_markdown import render_markdown

    (out / REPORT_FILE).write_text(json.dumps(report, indent=2), encoding="utf-8")
    write_plots(report, out)
    (out / MARKDOWN_FILE).write_text(render_markdown(report), encoding="utf-8")


def read_report(run_dir: Path) -> dict[str, Any]:
    """The report.json of a finished run, or a clear error."""
    path = run_dir / REPORT_FILE
    if not path.is_file():
        raise DgragError(f"{path.parent} has no report.json; pass the --out directory of a finished `dgrag sim run`")
    return _json_file(path)


def _json_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise DgragError(f"{path} is not a file written by `dgrag sim run` ({exc}); run the simulation again") from exc
    if not isinstance(data, dict):
        raise DgragError(f"{path} is not a file written by `dgrag sim run`; run the simulation again")
    return data


def rebuild_report(run_dir: Path) -> dict[str, Any]:
    """Recompute every metric of a finished run from its answer rows (their ``correct`` too) and rewrite its
    report files.

    What only the live run could measure (per-edge costs, peak RSS, wall time, the config) is taken from the
    existing report.json, or from run/info.json when the run stopped before writing one; LLM-judge results
    are kept as they are."""
    info, judge = _run_facts(run_dir)
    answers = find_answers(run_dir)
    rows = read_rows(answers)
    if not rows:
        raise DgragError(f"{answers} has no answer rows; run the simulation again")
    for number, row in enumerate(rows, start=1):
        if missing := sorted(ANSWER_FIELDS - set(row)):
            raise DgragError(
                f"{answers}: row {number} lacks {', '.join(missing)}: not an answer row of `dgrag sim run`"
            )
    return publish_report(run_dir, answers, rows, info, judge)


def publish_report(
    out: Path, answers: Path, rows: list[dict[str, Any]], info: Mapping[str, Any], judge: Any = None
) -> dict[str, Any]:
    """Judge ``rows`` with today's metric, write them to ``answers``, and build and save the report."""
    from simulation.report import build_report
    from simulation.scoring import rescored

    rows = rescored(rows)
    write_rows(answers, rows)  # the rows' verdicts follow the metric the report uses
    report = build_report(rows, info)
    if judge is not None:
        report["judge"] = judge
    save_report(out, report)
    return report


def _run_facts(run_dir: Path) -> tuple[dict[str, Any], Any]:
    """The live run's measurements and any judge results: from report.json, else from run/info.json."""
    if (run_dir / REPORT_FILE).is_file():
        old = read_report(run_dir)
        return {**dict(old.get("run") or {}), **{key: old.get(key) for key in RUN_FACTS}}, old.get("judge")
    if (run_dir / RUN_INFO_FILE).is_file():
        return _json_file(run_dir / RUN_INFO_FILE), None
    raise DgragError(
        f"{run_dir} has neither report.json nor {RUN_INFO_FILE}; pass the --out directory of a `dgrag sim run` "
        "that finished asking"
    )
