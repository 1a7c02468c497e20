"""LLM-judge win rates over synthetic answer rows, with scripted judges whose verdicts are known."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from shared.config import load_config
from shared.core.errors import DgragError, ModelError
from shared.core.model_api import Completion, GenerationRequest
from simulation.fakes import ScriptedGenerator
from simulation.judge import (
    CRITERIA,
    Judge,
    Pair,
    default_pairs,
    matched_answers,
    parse_pairs,
    parse_verdict,
    win_rates,
)
from simulation.judge_config import JudgeConfig
from simulation.judge_run import JUDGMENTS_FILE, PARTIAL_FILE, judge_run
from simulation.plots import JUDGE_PNG
from simulation.report import build_report

ANSWERS = re.compile(r'Answer 1:\n"""\n(.*?)\n"""\n\nAnswer 2:\n"""\n(.*?)\n"""', re.S)


def answer(qid: str, kind: str, mode: str, text: str, asked_at: str = "A") -> dict[str, Any]:
    return {
        "qid": qid,
        "question": f"what about {qid}?",
        "gold": "x",
        "kind": kind,
        "asked_at": asked_at,
        "home_edges": ["A"],
        "evidence_doc_ids": [],
        "mode": mode,
        "answer": text,
        "decision": "local",
        "escalated": False,
        "correct": False,
        "timings": {"total": 1.0},
    }


ROWS = [
    answer("q1", "within", "dgrag", "Paris, the capital, founded long ago on the Seine."),
    answer("q1", "within", "naive", "Paris."),
    answer("q2", "out", "dgrag", "Lyon, a large city on the Rhone and Saone rivers."),
    answer("q2", "out", "naive", "Lyon."),
    answer("q3", "unanswerable", "dgrag", "Insufficient information, the documents do not say."),
    answer("q3", "unanswerable", "naive", "No."),
    answer("q4", "within", "dgrag", "Only dgrag answered this one at length."),
    answer("q5", "within", "dgrag", "Some answer."),
    answer("q5", "within", "naive", "   "),
    answer("q6", "out", "dgrag", "Rome."),
    answer("q6", "out", "naive", "rome"),
]


def verdict(choice: str) -> str:
    return json.dumps({c: choice for c in CRITERIA})


def prefers_longer(request: GenerationRequest) -> str:
    found = ANSWERS.search(request.prompt)
    assert found, request.prompt
    return verdict("1" if len(found.group(1)) >= len(found.group(2)) else "2")


def always_first(request: GenerationRequest) -> str:
    return verdict("1")


def test_parse_pairs() -> None:
    assert parse_pairs("dgrag:naive, dgrag:central") == [Pair("dgrag", "naive"), Pair("dgrag", "central")]
    for bad in ("dgrag", "dgrag:dgrag", ":naive", "", "dgrag:naive,naive:dgrag", "dgrag:naive,dgrag:naive"):
        with pytest.raises(DgragError):
            parse_pairs(bad)


def test_default_pairs_put_dgrag_against_every_other_mode() -> None:
    assert default_pairs(["naive", "local", "dgrag", "central"]) == [
        Pair("dgrag", "naive"),
        Pair("dgrag", "local"),
        Pair("dgrag", "central"),
    ]
    with pytest.raises(DgragError, match="--judge-pairs"):
        default_pairs(["naive", "local"])


def test_parse_verdict_needs_every_criterion() -> None:
    assert parse_verdict(verdict("2")) == {c: 2 for c in CRITERIA}
    assert parse_verdict(json.dumps({"overall": "1"})) is None
    assert parse_verdict(json.dumps({c: "3" for c in CRITERIA})) is None
    assert parse_verdict("Answer 1 is better") is None
    assert parse_verdict("[1, 2]") is None


def test_only_answerable_asks_both_modes_answered_are_matched() -> None:
    matched = matched_answers(ROWS, Pair("dgrag", "naive"))
    pairs = [(a["qid"], a["mode"], b["mode"]) for a, b in matched.asks]
    assert pairs == [("q1", "dgrag", "naive"), ("q2", "dgrag", "naive"), ("q6", "dgrag", "naive")]
    assert matched.blank == 1  # q5


def test_both_orders_are_judged_and_a_consistent_judge_gives_clear_win_rates() -> None:
    generator = ScriptedGenerator(prefers_longer)
    pair = Pair("dgrag", "naive")
    judgments = Judge(generator, JudgeConfig()).judge_pair(matched_answers(ROWS, pair).asks, pair)
    # q6's answers are the same text once normalised: recorded, never shown to the judge
    assert len(generator.requests) == 4 and all(r.temperature == 0.0 for r in generator.requests)
    assert [(j["qid"], j["first"]) for j in judgments] == [
        ("q1", "dgrag"),
        ("q1", "naive"),
        ("q2", "dgrag"),
        ("q2", "naive"),
        ("q6", "dgrag"),
    ]
    rates = win_rates(judgments, [pair], {"dgrag vs naive": 1})["dgrag vs naive"]
    assert (rates["asks"], rates["identical"], rates["blank"], rates["invalid"]) == (2, 1, 1, 0)
    assert rates["consistency"] == 1.0
    assert all(rates["criteria"][c] == {"votes_a": 4, "votes_b": 0, "win_rate": 1.0} for c in CRITERIA)
    assert rates["overall_by_kind"] == {"within": 1.0, "out": 1.0}


def test_a_judge_that_always_picks_the_first_answer_ties_and_is_inconsistent() -> None:
    pair = Pair("dgrag", "naive")
    judgments = Judge(ScriptedGenerator(always_first), JudgeConfig()).judge_pair(matched_answers(ROWS, pair).asks, pair)
    rates = win_rates(judgments, [pair])["dgrag vs naive"]
    assert rates["consistency"] == 0.0
    assert rates["criteria"]["overall"]["win_rate"] == 0.5


def test_unparsable_verdicts_are_counted_and_left_out() -> None:
    pair = Pair("dgrag", "naive")
    judge = Judge(ScriptedGenerator(lambda r: "I cannot decide."), JudgeConfig())
    judgments = judge.judge_pair(matched_answers(ROWS, pair).asks, pair)
    rates = win_rates(judgments, [pair])["dgrag vs naive"]
    assert rates["invalid"] == 4 and rates["consistency"] is None
    assert rates["criteria"]["overall"]["win_rate"] is None
    assert judgments[0]["raw"] == "I cannot decide."


def _finished_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    report = build_report(ROWS, {"modes": ["naive", "dgrag"], "bench": "toy"})
    (run / "report.json").write_text(json.dumps(report))
    return run


def test_judge_run_writes_judgments_and_adds_win_rates_to_the_report(tmp_path: Path) -> None:
    run = _finished_run(tmp_path)
    result = judge_run(run, [Pair("dgrag", "naive")], JudgeConfig(), ScriptedGenerator(prefers_longer))
    assert result["model"] == "scripted"
    lines = (run / JUDGMENTS_FILE).read_text().splitlines()
    assert len(lines) == 5 and not (run / PARTIAL_FILE).exists()
    report = json.loads((run / "report.json").read_text())
    assert report["judge"]["pairs"]["dgrag vs naive"]["criteria"]["overall"]["win_rate"] == 1.0
    assert report["modes"]["dgrag"]["n"]["all"] == 6  # the rest of the report is kept
    markdown = (run / "report.md").read_text()
    assert "## LLM-judge win rates (judge: scripted)" in markdown
    assert (
        "| dgrag vs naive | 2 | 1 | 1 | 0 | 100.0% | 100.0% | 100.0% | 100.0% | 100.0% | 100.0% | 100.0% |" in markdown
    )
    assert (run / JUDGE_PNG).read_bytes().startswith(b"\x89PNG")


def test_judge_run_limit_and_bad_inputs(tmp_path: Path) -> None:
    run = _finished_run(tmp_path)
    generator = ScriptedGenerator(prefers_longer)
    judge_run(run, [Pair("dgrag", "naive")], JudgeConfig(), generator, limit=1)
    assert len(generator.requests) == 2
    with pytest.raises(DgragError, match="did not ask"):
        judge_run(run, [Pair("dgrag", "central")], JudgeConfig(), generator)
    with pytest.raises(DgragError, match=r"no report\.json"):
        judge_run(tmp_path, [Pair("dgrag", "naive")], JudgeConfig(), generator)
    with pytest.raises(DgragError, match="negative"):
        judge_run(run, [Pair("dgrag", "naive")], JudgeConfig(), generator, limit=-1)
    (run / "answers.jsonl").write_text(json.dumps({"qid": "q1", "mode": "dgrag"}) + "\n")
    with pytest.raises(DgragError, match="lacks"):
        judge_run(run, [Pair("dgrag", "naive")], JudgeConfig(), generator)
    (run / "answers.jsonl").write_text("")
    with pytest.raises(DgragError, match="no answer rows"):
        judge_run(run, [Pair("dgrag", "naive")], JudgeConfig(), generator)


class FailsAfter:
    """A judge model that breaks after ``n`` verdicts (an endpoint going down)."""

    def __init__(self, n: int) -> None:
        self.calls = 0
        self.n = n

    @property
    def name(self) -> str:
        return "flaky"

    def generate(self, request: GenerationRequest) -> Completion:
        self.calls += 1
        if self.calls > self.n:
            raise ModelError("endpoint down")
        return Completion((prefers_longer(request),), 1, 1)

    def close(self) -> None:
        return None


def test_an_interrupted_judging_keeps_its_verdicts_and_continues(tmp_path: Path) -> None:
    run = _finished_run(tmp_path)
    pair = Pair("dgrag", "naive")
    with pytest.raises(DgragError, match="to continue"):
        judge_run(run, [pair], JudgeConfig(), FailsAfter(3))
    assert len((run / PARTIAL_FILE).read_text().splitlines()) == 3
    kept = (run / PARTIAL_FILE).read_text().splitlines()
    (run / PARTIAL_FILE).write_text("\n".join(kept[:2]) + "\n" + kept[2][:25])  # the stop cut the 3rd line short
    with pytest.raises(DgragError, match="to continue"):
        judge_run(run, [pair], JudgeConfig(), FailsAfter(1))  # redoes the cut verdict, then stops again
    again = FailsAfter(10)
    result = judge_run(run, [pair], JudgeConfig(), again)
    assert again.calls == 1  # only the fourth verdict was still missing: the redone one was not glued to the cut
    assert result["pairs"]["dgrag vs naive"]["criteria"]["overall"]["win_rate"] == 1.0
    assert not (run / PARTIAL_FILE).exists()


def test_a_judge_llm_section_without_backend_stays_an_endpoint(tmp_path: Path) -> None:
    path = tmp_path / "judge.toml"
    path.write_text('[llm]\nmodel = "gpt-4o"\nbase_url = "https://example.invalid/v1"\n')
    config = load_config(JudgeConfig, path, environ={})
    assert config.llm.backend == "openai" and config.llm.model == "gpt-4o"
    assert load_config(JudgeConfig, None, environ={}).llm.backend == "openai"
    path.write_text('[llm]\nbackend = "llama_cpp"\n')
    assert load_config(JudgeConfig, path, environ={}).llm.backend == "llama_cpp"
