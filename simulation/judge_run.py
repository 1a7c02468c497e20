"""`dgrag sim judge`: judge a finished run's answers and add the win rates to its report.

Writes OUT/judgments.jsonl (one row per question, pair and answer order), adds a ``judge`` section to
OUT/report.json, and re-renders OUT/report.md and the plots (a win-rate figure joins them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shared.config import JudgeConfig
from shared.errors import DgragError
from shared.models.base import TextGenerator
from simulation.answer_rows import find_answers, read_rows
from simulation.judge import Judge, Pair, check_pairs, matched_answers, win_rates

JUDGMENTS_FILE = "judgments.jsonl"


def judge_run(
    run_dir: Path, pairs: Sequence[Pair], config: JudgeConfig, generator: TextGenerator, limit: int = 0
) -> dict[str, Any]:
    """Judge ``pairs`` over the run in ``run_dir`` (the first ``limit`` questions of each, 0 = all)."""
    from simulation.plots import write_plots
    from simulation.report_markdown import render_markdown

    report_path = run_dir / "report.json"
    if not report_path.is_file():
        raise DgragError(f"{run_dir} has no report.json; pass the --out directory of a finished `dgrag sim run`")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    rows = read_rows(find_answers(run_dir))
    check_pairs(rows, pairs)
    judge = Judge(generator, config)
    judgments: list[dict[str, Any]] = []
    for pair in pairs:
        matched = matched_answers(rows, pair)
        judgments += judge.judge_pair(matched[:limit] if limit else matched, pair)
    with (run_dir / JUDGMENTS_FILE).open("w", encoding="utf-8") as f:
        for row in judgments:
            f.write(json.dumps(row) + "\n")
    report["judge"] = {"model": generator.name, "pairs": win_rates(judgments, pairs)}
    report_path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    write_plots(report, run_dir)
    (run_dir / "report.md").write_text(render_markdown(report), encoding="utf-8")
    return dict(report["judge"])
