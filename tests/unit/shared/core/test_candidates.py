"""Unit tests for shared/core/candidates.py: capitalised names, dates and amounts found without a model."""

from __future__ import annotations

import pytest

from shared.core.candidates import Candidate, find_candidates


def _names(text: str) -> list[str]:
    return [c.name for c in find_candidates(text)]


def test_names_dates_amounts_ranked_by_count() -> None:
    text = "Acme Corp paid $5,000 to Bank of America on 2023-12-18. Acme Corp was happy."
    assert find_candidates(text) == [
        Candidate("Acme Corp", "name", 2),
        Candidate("2023-12-18", "date", 1),
        Candidate("$5,000", "quantity", 1),
        Candidate("Bank of America", "name", 1),
    ]


def test_multi_word_names_with_connectors() -> None:
    text = "She studied at the University of Oxford with Maria Lopez and met Johnson & Johnson staff."
    assert _names(text) == ["University of Oxford", "Maria Lopez", "Johnson & Johnson"]


def test_trailing_connector_is_not_part_of_name() -> None:
    assert _names("We saw Bank of the city yesterday.") == ["Bank"]


def test_possessive_is_stripped() -> None:
    assert _names("It was Maria Lopez's idea.") == ["Maria Lopez"]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("The report is dated 2023-12-18 in the archive.", "2023-12-18"),
        ("It happened on March 5, 2024 downtown.", "March 5, 2024"),
        ("It happened on July 4 downtown.", "July 4"),
    ],
)
def test_dates(text: str, date: str) -> None:
    found = find_candidates(text)
    assert Candidate(date, "date", 1) in found
    assert found[0] == Candidate(date, "date", 1)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("They paid $5,000 yesterday.", "$5,000"),
        ("Revenue hit $3.2 million this year.", "$3.2 million"),
        ("Rent rose by €1,200 per month.", "€1,200"),
        ("Prices went up 12% overall.", "12%"),
    ],
)
def test_amounts(text: str, amount: str) -> None:
    assert find_candidates(text) == [Candidate(amount, "quantity", 1)]


@pytest.mark.parametrize(("text", "amount"), [("It cost $5 in total.", "$5"), ("Growth was 7% overall.", "7%")])
def test_single_digit_amounts(text: str, amount: str) -> None:
    assert find_candidates(text) == [Candidate(amount, "quantity", 1)]


def test_stop_words_are_dropped() -> None:
    text = "Hello there. However, Monday was fine. Thanks Bob Smith. This is It."
    assert _names(text) == ["Bob Smith"]


def test_titles_are_not_part_of_names() -> None:
    assert _names("We met Dr. Ann Jones at noon.") == ["Ann Jones"]


def test_lone_name_after_title_is_kept() -> None:
    assert _names("We met Dr. Jones at noon.") == ["Jones"]


def test_sentence_initial_lone_word_dropped_unless_it_recurs() -> None:
    assert find_candidates("Another day passed. Nothing happened. Then Maria Lopez arrived.") == [
        Candidate("Maria Lopez", "name", 1)
    ]
    # A lone word that only ever starts a sentence is dropped ...
    assert find_candidates("Paris is nice.") == []
    # ... but kept (and counted everywhere) once it also appears mid-sentence.
    assert find_candidates("Paris is nice. I love Paris.") == [Candidate("Paris", "name", 2)]
    # A multi-word span at the start of a sentence is kept.
    assert find_candidates("Maria Lopez arrived.") == [Candidate("Maria Lopez", "name", 1)]


def test_line_start_counts_as_sentence_start() -> None:
    assert find_candidates("Notes\nCharlie went home") == []
    assert find_candidates("Notes\nthen Charlie went home") == [Candidate("Charlie", "name", 1)]


def test_variants_merge_under_one_key_keeping_first_spelling() -> None:
    text = "We met at the Bank of America. Later the bank of america agreed. We thanked the BANK OF AMERICA team."
    assert find_candidates(text) == [Candidate("Bank of America", "name", 2)]


def test_ties_keep_first_occurrence_order_and_limit() -> None:
    text = "We saw Alpha Beta, Gamma Delta, Epsilon Zeta. We saw Gamma Delta again."
    assert _names(text) == ["Gamma Delta", "Alpha Beta", "Epsilon Zeta"]
    assert [c.name for c in find_candidates(text, limit=2)] == ["Gamma Delta", "Alpha Beta"]
    assert find_candidates(text, limit=0) == []


def test_empty_and_lowercase_text() -> None:
    assert find_candidates("") == []
    assert find_candidates("nothing here is capitalised at all.") == []


def test_a_name_stops_before_the_next_sentences_function_word_a_heading_or_a_log_level() -> None:
    assert _names("Run it with Reranking This way.") == ["Reranking"]
    assert _names("It needs Dependencies The HTTPX2 package.") == ["HTTPX2"]
    assert _names("Then Uvicorn INFO: started.") == ["Uvicorn"]
    assert _names("We'll use Starlette here.") == ["Starlette"], "a contraction of a function word is no name"
    assert _names("They sued the BANK OF AMERICA team.") == ["BANK OF AMERICA"], "connectors stay inside"
