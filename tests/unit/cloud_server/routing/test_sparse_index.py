"""Stage 1's sparse matching: BM25 over summary text and key names, kept in step with the summary index."""

from __future__ import annotations

import numpy as np

from cloud_server.routing.sparse_index import SparseIndex, terms
from shared.core.knowledge import SummaryCard
from simulation.fakes import HashEmbedder
from tests.support.settled_index import SettledSummaryIndex


def test_terms_drop_short_and_function_words() -> None:
    assert terms("Who founded Zephyr Medical in the city of Lisbon?") == [
        "founded",
        "zephyr",
        "medical",
        "city",
        "lisbon",
    ]


def test_a_rare_shared_name_outranks_common_words_and_removal_forgets() -> None:
    index = SparseIndex()
    index.add("a/1", "The plant opened in Berlin. The plant makes arms.", ("Acme Robotics",))
    index.add("b/1", "The plant opened in Porto. The plant makes pumps.", ("Zephyr Medical",))
    scores = index.scores("Which plant does Zephyr Medical run?")
    assert scores["b/1"] == 1.0 and scores["a/1"] < 0.5
    index.remove("b/1")
    assert set(index.scores("Zephyr Medical")) == set()
    assert index.scores("nothing in common") == {}


def test_fusion_lets_a_named_summary_win_over_a_closer_embedding() -> None:
    embedder = HashEmbedder(32)
    index = SettledSummaryIndex(embedder)
    index.replace_edge("a", [SummaryCard("a/1", 1, "Alpha beta gamma delta.", ("Acme",))])
    index.replace_edge("b", [SummaryCard("b/1", 1, "Omicron sigma tau.", ("Zephyr Medical",))])
    question = "Who runs Zephyr?"
    vector = np.asarray(embedder.embed(["Alpha beta gamma delta."])[0])  # as close to a/1 as it gets
    dense = index.search(vector, 2)
    assert dense[0].edge_id == "a"
    fused = index.search(vector, 2, question=question, sparse_weight=2.0)
    assert fused[0].edge_id == "b", "the question names Zephyr, which only b's summary holds"
    index.replace_edge("b", [])
    assert [m.edge_id for m in index.search(vector, 2, question=question, sparse_weight=2.0)] == ["a"]
