"""`dgrag sim judge`: judge a finished run's answers and add the win rates to its report.

Writes OUT/judgments.jsonl (one row per ask, pair and answer order), replaces the ``judge`` section of
OUT/report.json, and re-renders OUT/report.md and the plots (a win-rate figure joins them). Verdicts are
appended to OUT/judgments.partial.jsonl as they come, so a run stopped by a model error or Ctrl-C
continues where it stopped when run again with the same judge model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError, ModelError
from shared.core.model_api import TextGenerator
from simulation.answer_rows import find_answers, read_rows
from simulation.judge import (
    Judge,
    JudgmentKey,
    Pair,
    check_pairs,
    check_rows,
    judgment_key,
    matched_answers,
    win_rates,
)
from simulation.judge_config import JudgeConfig
from simulation.report_files import read_report, save_report
from simulation.resume import open_for_append

JUDGMENTS_FILE = "judgments.jsonl"
PARTIAL_FILE = "judgments.partial.jsonl"


def judge_run(
    run_dir: Path, pairs: Sequence[Pair], config: JudgeConfig, generator: TextGenerator, limit: int = 0
) -> dict[str, Any]:
    """Judge ``pairs`` over the run in ``run_dir`` (the first ``limit`` asks of each, 0 = all)."""
    if limit < 0:
        raise DgragError(f"--limit {limit} is negative; pass 0 (all asks) or a positive number")
    report = read_report(run_dir)
    answers = find_answers(run_dir)
    rows = read_rows(answers)
    check_rows(rows, str(answers))
    check_pairs(pairs, (str(r["mode"]) for r in rows))
    judge = Judge(generator, config)
    done = _earlier_judgments(run_dir / PARTIAL_FILE, generator.name)
    judgments: list[dict[str, Any]] = []
    blank: dict[str, int] = {}
    with open_for_append(run_dir / PARTIAL_FILE) as partial:

        def keep(judgment: dict[str, Any]) -> None:
            partial.write(json.dumps({**judgment, "model": generator.name}) + "\n")
            partial.flush()

        for pair in pairs:
            matched = matched_answers(rows, pair)
            blank[pair.label] = matched.blank
            asks = matched.asks[:limit] if limit else matched.asks
            try:
                judgments += judge.judge_pair(asks, pair, done, keep)
            except ModelError as exc:
                raise DgragError(
                    f"the judge model failed ({exc}); the verdicts so far are kept in {run_dir / PARTIAL_FILE}: "
                    f"fix the judge (--judge-config, [llm] section) and run `dgrag sim judge --run {run_dir}` "
                    "to continue"
                ) from exc
    with (run_dir / JUDGMENTS_FILE).open("w", encoding="utf-8") as f:
        for row in judgments:
            f.write(json.dumps(row) + "\n")
    (run_dir / PARTIAL_FILE).unlink()
    report["judge"] = {"model": generator.name, "pairs": win_rates(judgments, pairs, blank)}
    save_report(run_dir, report)
    return dict(report["judge"])


def _earlier_judgments(path: Path, model: str) -> dict[JudgmentKey, dict[str, Any]]:
    """Verdicts an interrupted earlier judging of this run left behind, by the same judge model."""
    if not path.is_file():
        return {}
    done: dict[JudgmentKey, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line cut short by the interruption
        if isinstance(row, dict) and row.pop("model", None) == model:
            done[judgment_key(row)] = row
    return done
