"""The fit/report split of the questions, and the facts a report records so a stranger can rerun it."""

from __future__ import annotations

import pytest

from simulation.halves import Half, half_of, parse_half
from simulation.provenance import provenance, provenance_markdown
from simulation.runner import sample_questions
from tests.support.paths import REPO

BUNDLE = REPO / "simulation" / "bundles" / "multihop4"


def test_the_split_is_by_id_alone_and_roughly_even() -> None:
    assert half_of("mh-0") == half_of("mh-0")
    halves = [half_of(f"q{i}") for i in range(400)]
    assert 150 < halves.count(Half.REPORT) < 250
    assert parse_half("report") == Half.REPORT and parse_half("all") is None
    with pytest.raises(ValueError, match="not one of fit, report, all"):
        parse_half("test")


def test_a_run_of_one_half_asks_only_its_questions() -> None:
    report = sample_questions(BUNDLE, 0, 0, Half.REPORT)
    fit = sample_questions(BUNDLE, 0, 0, Half.FIT)
    assert report and fit and not {q.qid for q in report} & {q.qid for q in fit}
    assert len(report) + len(fit) == len(sample_questions(BUNDLE, 0, 0))
    assert all(half_of(q.qid) == Half.REPORT for q in sample_questions(BUNDLE, 20, 3, Half.REPORT))


def test_provenance_names_commit_date_and_command() -> None:
    facts = provenance(["/x/bin/dgrag", "sim", "run", "--out", "a b"])
    assert facts["command"] == "dgrag sim run --out 'a b'"
    assert len(facts["commit"]) == 40 and facts["date"].endswith("UTC")
    assert f"`{facts['commit']}`" in provenance_markdown(facts)
