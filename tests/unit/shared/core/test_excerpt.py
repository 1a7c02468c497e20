"""Context excerpts: long chunks keep the sentences that mention the question's terms, in text order."""

from __future__ import annotations

from shared.core.text import excerpt

TEXT = (
    "The weather was mild. Acme Corp reported record sales in March. Analysts expected less. "
    "The chief executive, Maria Lopez, credited the new factory. Shares rose four percent."
)


def test_a_short_chunk_is_kept_whole() -> None:
    assert excerpt(TEXT, ["Acme Corp"], 1000) == TEXT
    assert excerpt(TEXT, ["Acme Corp"], 0) == TEXT


def test_a_long_chunk_keeps_the_matching_sentences_in_text_order_within_the_budget() -> None:
    out = excerpt(TEXT, ["Acme Corp", "Maria Lopez", "sales"], 110)
    assert len(out) <= 110
    assert out.index("Acme Corp") < out.index("Maria Lopez")
    assert "weather" not in out


def test_no_sentence_fits_gives_a_cut_best_sentence() -> None:
    out = excerpt(TEXT, ["Maria Lopez"], 20)
    assert len(out) <= 20 and out
