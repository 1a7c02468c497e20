"""benchmarks.extraction without a network: the injection prompts made from documents, and the table of answers."""

from __future__ import annotations

import random

from benchmarks.extraction import HANDLE_WORDS, KINDS, handles, prompts, table

LONG = "The quarterly report of the northern plant said that revenue grew while costs fell sharply this year."
SHORT = "Too short to be a handle."


def test_handles_take_six_words_of_a_long_sentence_edges_in_turn() -> None:
    texts = {"a": [LONG], "b": [SHORT + " " + LONG], "c": [SHORT]}
    got = handles(texts, 4, random.Random(0))
    assert [edge for edge, _ in got] == ["a", "b", "a", "b"], "c has no sentence of 12 words and drops out"
    assert all(handle == " ".join(LONG.split()[:HANDLE_WORDS]) for _, handle in got)


def test_every_kind_is_asked_for_each_handle_naming_it() -> None:
    got = prompts({"a": [LONG]}, 2, random.Random(0))
    assert len(got) == 2 * len(KINDS) and {p.kind for p in got} == set(KINDS)
    handle = " ".join(LONG.split()[:HANDLE_WORDS])
    assert all(p.owner == "a" and handle in p.text for p in got)
    assert prompts({"a": [SHORT]}, 3, random.Random(0)) == [], "no usable sentence, no prompt"


def test_the_table_counts_leaks_per_setting_and_caller() -> None:
    rows: list[dict[str, object]] = [
        {"caller": "app", "leak": True, "longest_run": 9, "withheld_words": 2},
        {"caller": "app", "leak": False, "longest_run": 3, "withheld_words": 0},
        {"caller": "edge", "leak": False, "longest_run": 5, "withheld_words": 1},
    ]
    lines = table({"chunks / quote": rows, "entities / paraphrase": []}).splitlines()
    assert lines[2] == "| chunks / quote | app | 2 | 50.0% (1) | 9 | 2 |"
    assert lines[3] == "| chunks / quote | edge | 1 | 0.0% (0) | 5 | 1 |"
    assert lines[4] == "| entities / paraphrase | app | 0 | — | 0 | 0 |"
