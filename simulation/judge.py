"""LLM-judge win rates between modes of a finished simulation (comprehensiveness, diversity, empowerment,
overall).

The unit judged is an *ask*: one answerable question asked at one edge (a question is asked within and
out of domain, so it gives two asks). For each pair ``a:b`` and each ask both modes answered, the judge
sees the two answers twice, once in each order, and picks answer 1 or 2 on every criterion. Each order is
one vote, so position bias cancels out; ``consistency`` is the share of asks where both orders picked the
same mode for 'overall' (low consistency: the judge mostly follows position). ``win_rate`` of ``a`` =
a's votes / all valid votes. Not judged: unanswerable questions (nothing to compare), asks where a mode
gave no answer (``blank``), and asks where both modes gave the same text (``identical``, e.g. dgrag and
local when dgrag did not escalate): a judge could only pick a position there. The judge decodes greedily,
so a re-run gives the same verdicts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from shared.core.errors import DgragError
from shared.core.model_api import GenerationRequest, TextGenerator
from simulation.bundle import ANSWERABLE_KINDS
from simulation.judge_config import JudgeConfig
from simulation.metrics import normalise_answer

CRITERIA = ("comprehensiveness", "diversity", "empowerment", "overall")

JUDGE_SYSTEM = "You compare two answers to the same question fairly. Reply with JSON only."

JUDGE_PAIR = """Question: {question}

Answer 1:
\"\"\"
{answer_1}
\"\"\"

Answer 2:
\"\"\"
{answer_2}
\"\"\"

Decide which answer is better on each point; the order of the answers means nothing.
- comprehensiveness: which covers more of what the question asks, with the details that matter?
- diversity: which brings more distinct facts, sources or angles?
- empowerment: which better helps a reader understand the matter and judge it for themselves?
- overall: which is the better answer, weighing the three points above?
Reply with a JSON object whose keys are comprehensiveness, diversity, empowerment and overall, each with
the value "1" or "2"."""

JUDGED_KINDS = ANSWERABLE_KINDS
ROW_FIELDS = ("qid", "question", "kind", "asked_at", "mode", "answer")
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {c: {"type": "string", "enum": ["1", "2"]} for c in CRITERIA},
    "required": list(CRITERIA),
    "additionalProperties": False,
}

Row = Mapping[str, Any]
JudgmentKey = tuple[str, str, str, str]  # pair label, qid, asked-at edge, mode shown first


@dataclass(frozen=True)
class Pair:
    """Two modes to compare; win rates are given for ``a``."""

    a: str
    b: str

    @property
    def label(self) -> str:
        return f"{self.a} vs {self.b}"


@dataclass(frozen=True)
class Matched:
    """The asks of one pair: those to judge, and how many were left out for a blank answer."""

    asks: list[tuple[Row, Row]]
    blank: int


def parse_pairs(text: str) -> list[Pair]:
    """``"dgrag:naive,dgrag:central"`` -> pairs; a clear error for anything else."""
    pairs: list[Pair] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        a, sep, b = (x.strip() for x in item.partition(":"))
        if not sep or not a or not b or a == b:
            raise DgragError(f"judge pair {item!r} is not of the form modeA:modeB with two different modes")
        if {a, b} in ({p.a, p.b} for p in pairs):
            raise DgragError(f"judge pair {item!r} is given twice; name each pair once")
        pairs.append(Pair(a, b))
    if not pairs:
        raise DgragError("no judge pairs given; name them like dgrag:naive,dgrag:central")
    return pairs


def default_pairs(modes: Sequence[str]) -> list[Pair]:
    """dgrag against every other mode the run has (its ablations included)."""
    if "dgrag" not in modes or len(modes) < 2:
        raise DgragError(
            f"the run has modes {list(modes)}, so there is no default pair; name the pairs "
            "(sim judge --pairs, sim run --judge-pairs), e.g. naive:local"
        )
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


def check_rows(rows: Sequence[Row], source: str) -> None:
    if not rows:
        raise DgragError(f"{source} has no answer rows; judge a run that asked questions")
    for number, row in enumerate(rows, start=1):
        if missing := [f for f in ROW_FIELDS if f not in row]:
            raise DgragError(f"{source}: row {number} lacks {missing}; is this a `dgrag sim run` answers file?")


def check_pairs(pairs: Sequence[Pair], modes: Iterable[str]) -> None:
    """Every mode a pair names is one of the run's ``modes``."""
    present = set(modes)
    for pair in pairs:
        missing = sorted({pair.a, pair.b} - present)
        if missing:
            raise DgragError(
                f"judge pair {pair.a}:{pair.b} names mode(s) {missing} that the run did not ask; "
                f"it has {sorted(present)}"
            )


def matched_answers(rows: Iterable[Row], pair: Pair) -> Matched:
    """(row of a, row of b) for every answerable ask both modes answered, in the run's order."""
    by_key: dict[tuple[str, str], dict[str, Row]] = {}
    for row in rows:
        if row["kind"] in JUDGED_KINDS:
            by_key.setdefault((str(row["qid"]), str(row["asked_at"])), {})[str(row["mode"])] = row
    asks, blank = [], 0
    for modes in by_key.values():
        if pair.a in modes and pair.b in modes:
            row_a, row_b = modes[pair.a], modes[pair.b]
            if str(row_a["answer"] or "").strip() and str(row_b["answer"] or "").strip():
                asks.append((row_a, row_b))
            else:
                blank += 1
    return Matched(asks, blank)


class Judge:
    """Asks one judge model for verdicts; ``judge_pair`` returns the rows of judgments.jsonl."""

    def __init__(self, generator: TextGenerator, config: JudgeConfig) -> None:
        self._generator = generator
        self._config = config

    def verdict(self, question: str, answer_1: str, answer_2: str) -> tuple[dict[str, int] | None, str]:
        request = GenerationRequest(
            prompt=JUDGE_PAIR.format(question=question, answer_1=answer_1, answer_2=answer_2),
            system=JUDGE_SYSTEM,
            max_tokens=self._config.max_tokens,
            temperature=0.0,
            json_schema=VERDICT_SCHEMA,
            seed=self._config.seed,
        )
        text = self._generator.generate(request).texts[0]
        return parse_verdict(text), text

    def judge_pair(
        self,
        asks: Sequence[tuple[Row, Row]],
        pair: Pair,
        done: Mapping[JudgmentKey, dict[str, Any]] | None = None,
        sink: Callable[[dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Judge every ask in both orders. Judgments in ``done`` (an interrupted earlier run) are reused;
        each new one is passed to ``sink`` as soon as it exists."""
        done = done or {}
        out = []
        for row_a, row_b in tqdm(asks, desc=f"judging {pair.label}", unit="ask", file=sys.stderr):
            answer_a, answer_b = str(row_a["answer"]), str(row_b["answer"])
            identical = normalise_answer(answer_a) == normalise_answer(answer_b)
            for first in (pair.a, pair.b) if not identical else (pair.a,):
                key = (pair.label, str(row_a["qid"]), str(row_a["asked_at"]), first)
                if key in done:
                    out.append(done[key])
                    continue
                judgment = self._judge_once(row_a, pair, first, answer_a, answer_b, identical)
                if sink is not None:
                    sink(judgment)
                out.append(judgment)
        return out

    def _judge_once(
        self, row_a: Row, pair: Pair, first: str, answer_a: str, answer_b: str, identical: bool
    ) -> dict[str, Any]:
        verdict, raw = None, None
        if not identical:
            one, two = (answer_a, answer_b) if first == pair.a else (answer_b, answer_a)
            verdict, raw = self.verdict(str(row_a["question"]), one, two)
        winners = None
        if verdict is not None:
            winners = {c: first if v == 1 else _other(pair, first) for c, v in verdict.items()}
        return {
            "pair": pair.label,
            "a": pair.a,
            "b": pair.b,
            "qid": row_a["qid"],
            "asked_at": row_a["asked_at"],
            "kind": row_a["kind"],
            "first": first,
            "identical": identical,
            "winners": winners,
            "raw": raw if verdict is None else None,
        }


def judgment_key(judgment: Mapping[str, Any]) -> JudgmentKey:
    return (str(judgment["pair"]), str(judgment["qid"]), str(judgment["asked_at"]), str(judgment["first"]))


def _other(pair: Pair, mode: str) -> str:
    return pair.b if mode == pair.a else pair.a


def win_rates(
    judgments: Sequence[Row], pairs: Sequence[Pair], blank: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """report.json's ``judge`` pairs: per pair and criterion, votes and win rate of ``a``; consistency;
    the overall win rate per kind of ask; and how many asks were identical, blank or got no valid verdict."""
    out: dict[str, Any] = {}
    for pair in pairs:
        rows = [j for j in judgments if j["pair"] == pair.label]
        judged = [j for j in rows if not j["identical"]]
        valid = [j for j in judged if j["winners"] is not None]
        criteria = {criterion: _votes(valid, pair, criterion) for criterion in CRITERIA}
        out[pair.label] = {
            "a": pair.a,
            "b": pair.b,
            "asks": len({(j["qid"], j["asked_at"]) for j in judged}),
            "identical": sum(1 for j in rows if j["identical"]),
            "blank": (blank or {}).get(pair.label, 0),
            "invalid": len(judged) - len(valid),
            "consistency": _consistency(valid),
            "criteria": criteria,
            "overall_by_kind": {
                kind: _votes([j for j in valid if j["kind"] == kind], pair, "overall")["win_rate"]
                for kind in JUDGED_KINDS
            },
        }
    return out


def _votes(valid: Sequence[Row], pair: Pair, criterion: str) -> dict[str, Any]:
    votes_a = sum(1 for j in valid if j["winners"][criterion] == pair.a)
    return {
        "votes_a": votes_a,
        "votes_b": len(valid) - votes_a,
        "win_rate": round(votes_a / len(valid), 4) if valid else None,
    }


def _consistency(valid: Sequence[Row]) -> float | None:
    """Share of asks whose two orders both gave a valid verdict and named the same 'overall' winner."""
    overall: dict[tuple[str, str], list[str]] = {}
    for j in valid:
        overall.setdefault((str(j["qid"]), str(j["asked_at"])), []).append(str(j["winners"]["overall"]))
    both = [w for w in overall.values() if len(w) == 2]
    if not both:
        return None
    return round(sum(1 for w in both if w[0] == w[1]) / len(both), 4)
