"""The yes/no claim check: a question cut into claims, each checked against the documents of the source it names."""

from __future__ import annotations

import pytest

from benchmarks.yes_no_claims import auc, check
from simulation.bundle import Question

DOCS = {
    "d1": "Rivals launch\nSource: TechCrunch, published 2023-10-01\nAcme launched a robot vacuum with lidar mapping.",
    "d2": "Chip news\nSource: The Verge, published 2023-10-02\nGlobex cut prices of its graphics cards sharply.",
}


def _question(text: str, answer: str = "Yes") -> Question:
    return Question("q1", text, answer, "comparison_query", ("tech",), ("d1", "d2"))


def test_each_claim_is_checked_against_the_source_it_names() -> None:
    held = check(
        _question("Does TechCrunch report Acme launched a robot vacuum, while The Verge says Globex cut prices?"), DOCS
    )
    assert len(held.supports) == 2 and min(held.supports) > 0.6
    swapped = check(
        _question(
            "Does TechCrunch report Globex cut prices sharply, while The Verge says Acme launched a robot vacuum?"
        ),
        DOCS,
    )
    assert max(swapped.supports) < min(held.supports), "a claim is weaker against a source that does not hold it"
    assert held.yes and not check(_question("Does TechCrunch report it?", "No"), DOCS).yes


def test_auc_is_one_half_without_signal_and_one_when_scores_separate() -> None:
    assert auc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert auc([0.5, 0.5], [True, False]) == 0.5
    assert auc([0.3], [True]) == pytest.approx(0.5)
