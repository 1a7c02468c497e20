"""LLM-judge win rates between modes of a finished simulation (comprehensiveness, diversity, empowerment,
overall).

For each pair ``a:b`` and each answerable question asked at one edge where both modes gave an answer, the
judge sees the two answers twice, once in each order, and picks answer 1 or 2 on every criterion. Each
order is one vote, so position bias cancels out; ``consistency`` is the share of questions where both
orders picked the same mode for 'overall' (low consistency means the judge mostly follows position).
``win_rate`` of ``a`` = a's votes / all valid votes. Unanswerable questions are not judged: there is no
content to compare. The judge decodes greedily, so a re-run gives the same verdicts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from shared import prompts
from shared.config import JudgeConfig
from shared.errors import DgragError
from shared.models.base import GenerationRequest, TextGenerator

CRITERIA = prompts.JUDGE_CRITERIA
JUDGED_KINDS = ("within", "out")
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {c: {"type": "string", "enum": ["1", "2"]} for c in CRITERIA},
    "required": list(CRITERIA),
}

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Pair:
    """Two modes to compare; win rates are given for ``a``."""

    a: str
    b: str

    @property
    def label(self) -> str:
        return f"{self.a} vs {self.b}"


def parse_pairs(text: str) -> list[Pair]:
    """``"dgrag:naive,dgrag:central"`` -> pairs; a clear error for anything else."""
    pairs = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        a, sep, b = item.partition(":")
        if not sep or not a.strip() or not b.strip() or a.strip() == b.strip():
            raise DgragError(f"judge pair {item!r} is not of the form modeA:modeB with two different modes")
        pairs.append(Pair(a.strip(), b.strip()))
    if not pairs:
        raise DgragError("no judge pairs given; pass e.g. --pairs dgrag:naive,dgrag:central")
    return pairs


def default_pairs(modes: Sequence[str]) -> list[Pair]:
    """dgrag against every other mode the run has (its ablations included)."""
    if "dgrag" not in modes or len(modes) < 2:
        raise DgragError(f"the run has modes {list(modes)}; name the pairs to judge with --pairs modeA:modeB")
    return [Pair("dgrag", m) for m in modes if m != "dgrag"]


def parse_verdict(text: str) -> dict[str, int] | None:
    """The judge's reply as {criterion: 1 or 2}, or None when it is not a complete verdict."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    verdict = {}
    for criterion in CRITERIA:
        value = str(data.get(criterion, "")).strip()
        if value not in ("1", "2"):
            return None
        verdict[criterion] = int(value)
    return verdict


def matched_answers(rows: Iterable[Row], pair: Pair) -> list[tuple[Row, Row]]:
    """(row of a, row of b) for every answerable (question, asked-at edge) both modes answered, in order."""
    by_key: dict[tuple[str, str], dict[str, Row]] = {}
    for row in rows:
        if row.get("kind") in JUDGED_KINDS and str(row.get("answer") or "").strip():
            by_key.setdefault((str(row["qid"]), str(row["asked_at"])), {})[str(row["mode"])] = row
    return [(modes[pair.a], modes[pair.b]) for modes in by_key.values() if pair.a in modes and pair.b in modes]


def check_pairs(rows: Sequence[Row], pairs: Sequence[Pair]) -> None:
    present = {str(r["mode"]) for r in rows}
    for pair in pairs:
        missing = sorted({pair.a, pair.b} - present)
        if missing:
            raise DgragError(
                f"judge pair {pair.a}:{pair.b} names mode(s) {missing} that the run did not ask; "
                f"it has {sorted(present)}"
            )


class Judge:
    """Asks one judge model for verdicts; ``judge_pair`` returns the rows of judgments.jsonl."""

    def __init__(self, generator: TextGenerator, config: JudgeConfig) -> None:
        self._generator = generator
        self._config = config

    def verdict(self, question: str, answer_1: str, answer_2: str) -> tuple[dict[str, int] | None, str]:
        request = GenerationRequest(
            prompt=prompts.JUDGE_PAIR.format(question=question, answer_1=answer_1, answer_2=answer_2),
            system=prompts.JUDGE_SYSTEM,
            max_tokens=self._config.max_tokens,
            temperature=0.0,
            json_schema=VERDICT_SCHEMA,
            seed=self._config.seed,
        )
        # A model error (endpoint down, bad key) stops the judging: every later verdict would fail the same way.
        text = self._generator.generate(request).texts[0]
        return parse_verdict(text), text

    def judge_pair(self, matched: Sequence[tuple[Row, Row]], pair: Pair) -> list[dict[str, Any]]:
        out = []
        for row_a, row_b in tqdm(matched, desc=f"judging {pair.label}", unit="q", file=sys.stderr):
            question, answer_a, answer_b = str(row_a["question"]), str(row_a["answer"]), str(row_b["answer"])
            for first in (pair.a, pair.b):
                one, two = (answer_a, answer_b) if first == pair.a else (answer_b, answer_a)
                verdict, raw = self.verdict(question, one, two)
                winners = None
                if verdict is not None:
                    winners = {c: first if v == 1 else _other(pair, first) for c, v in verdict.items()}
                out.append(
                    {
                        "pair": pair.label,
                        "a": pair.a,
                        "b": pair.b,
                        "qid": row_a["qid"],
                        "asked_at": row_a["asked_at"],
                        "kind": row_a["kind"],
                        "first": first,
                        "winners": winners,
                        "raw": raw if verdict is None else None,
                    }
                )
        return out


def _other(pair: Pair, mode: str) -> str:
    return pair.b if mode == pair.a else pair.a


def win_rates(judgments: Sequence[Row], pairs: Sequence[Pair]) -> dict[str, Any]:
    """report.json's ``judge`` section: per pair and criterion, votes, win rate of ``a`` and consistency."""
    out: dict[str, Any] = {}
    for pair in pairs:
        rows = [j for j in judgments if j["pair"] == pair.label]
        valid = [j for j in rows if j["winners"] is not None]
        criteria: dict[str, Any] = {}
        for criterion in CRITERIA:
            votes_a = sum(1 for j in valid if j["winners"][criterion] == pair.a)
            votes_b = len(valid) - votes_a
            criteria[criterion] = {
                "votes_a": votes_a,
                "votes_b": votes_b,
                "win_rate": round(votes_a / len(valid), 4) if valid else None,
            }
        out[pair.label] = {
            "a": pair.a,
            "b": pair.b,
            "questions": len({(j["qid"], j["asked_at"]) for j in rows}),
            "judgments": len(rows),
            "invalid": len(rows) - len(valid),
            "consistency": _consistency(valid),
            "criteria": criteria,
        }
    return out


def _consistency(valid: Sequence[Row]) -> float | None:
    """Share of questions whose two orders both gave a valid verdict and named the same 'overall' winner."""
    overall: dict[tuple[str, str], list[str]] = {}
    for j in valid:
        overall.setdefault((str(j["qid"]), str(j["asked_at"])), []).append(str(j["winners"]["overall"]))
    both = [w for w in overall.values() if len(w) == 2]
    if not both:
        return None
    return round(sum(1 for w in both if w[0] == w[1]) / len(both), 4)
