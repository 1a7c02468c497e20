"""A run's report files: report.json, report.md and the PNG plots, written together; and rebuilt from a
finished run's answer rows (``dgrag sim report``), so a run made before a metric existed gets it too."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shared.errors import DgragError
from simulation.answer_rows import find_answers, read_rows, write_rows

REPORT_FILE = "report.json"
MARKDOWN_FILE = "report.md"
RUN_FACTS = ("edges", "central", "cloud", "config")
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
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise DgragError(
            f"{path} is not a report written by `dgrag sim run` ({exc}); run the simulation again"
        ) from exc
    if not isinstance(report, dict):
        raise DgragError(f"{path} is not a report written by `dgrag sim run`; run the simulation again")
    return report


def rebuild_report(run_dir: Path) -> dict[str, Any]:
    """Recompute every metric of a finished run from its answer rows (their ``correct`` too) and rewrite its
    report files.

    What only the live run could measure (per-edge costs, peak RSS, wall time, the config) is taken from the
    existing report.json, and LLM-judge results are kept as they are."""
    from simulation.metrics import is_correct
    from simulation.report import build_report

    old = read_report(run_dir)
    answers = find_answers(run_dir)
    rows = read_rows(answers)
    if not rows:
        raise DgragError(f"{answers} has no answer rows; run the simulation again")
    missing = sorted({"qid", "mode", "kind", "answer", "gold"} - set(rows[0]))
    if missing:
        raise DgragError(f"{answers} rows lack {', '.join(missing)}: not answer rows of `dgrag sim run`")
    rows = [row | {"correct": is_correct(str(row["answer"]), str(row["gold"]))} for row in rows]
    write_rows(answers, rows)  # the rows' verdicts follow the metric the report uses
    info = {**dict(old.get("run") or {}), **{key: old.get(key) for key in RUN_FACTS}}
    report = build_report(rows, info)
    if "judge" in old:
        report["judge"] = old["judge"]
    save_report(run_dir, report)
    return report
