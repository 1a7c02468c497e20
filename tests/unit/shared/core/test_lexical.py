"""shared.core.lexical: rare words weigh most in a question's lexical coverage; the edge's index follows its store."""

from __future__ import annotations

from pathlib import Path

from edge_node.api import EdgeModels
from edge_node.ingest.readers import RawDocument
from edge_node.query.answering import QueryService
from shared.core.lexical import LexicalIndex, terms
from tests.support.fakes_edge import make_service

CHATS = [
    "Jennifer told Li Hua to drink water after the workout.",
    "Jennifer asked Li Hua about the workout plan for Monday.",
    "Jennifer recommended protein supplements to Li Hua.",
]


def test_terms_drop_function_words_and_short_words() -> None:
    assert terms("Did Li Hua ask Jennifer about the new plan?") == ["hua", "ask", "jennifer", "new", "plan"]


def test_the_text_holding_the_rare_words_covers_the_question_best() -> None:
    index = LexicalIndex(enumerate(CHATS))
    question = "Did Jennifer recommend protein supplements to Li Hua?"
    # jennifer and hua are in every chat (weigh little); protein and supplements only in the third; no chat says
    # "recommend" (words are not stemmed), so no chat covers the whole question
    assert 0.45 < index.coverage(question) < 0.6
    without = LexicalIndex(enumerate(CHATS[:2]))
    assert without.coverage(question) < 0.1, "the common words alone cover little of the question"
    assert index.idf("protein") > index.idf("jennifer") and index.idf("unheard") > index.idf("protein")


def test_coverage_is_zero_without_words_or_texts_and_never_above_one() -> None:
    assert LexicalIndex([]).coverage("protein supplements") == 0.0
    assert LexicalIndex(enumerate(CHATS)).coverage("Did the?") == 0.0
    assert LexicalIndex(enumerate(CHATS)).coverage(CHATS[2]) == 1.0


def test_the_edge_rebuilds_its_lexical_index_when_the_store_changes(tmp_path: Path, edge_models: EdgeModels) -> None:
    ingest, _ = make_service(tmp_path / "edge")
    ingest.ingest([RawDocument("c1", "c1", CHATS[0], "c1.txt"), RawDocument("c2", "c2", CHATS[1], "c2.txt")])
    kb = ingest._kb
    m = edge_models
    service = QueryService(kb, m.generator, m.embedder, ingest._config)
    question = "Did Jennifer recommend protein supplements to Li Hua?"
    try:
        before = service.retrieve(question).evidence.lexical
        ingest.ingest([RawDocument("c3", "c3", CHATS[2], "c3.txt")])
        after = service.retrieve(question).evidence.lexical
        assert before < 0.1 < 0.45 < after
    finally:
        kb.close()


def test_bm25_ranks_the_text_holding_the_rare_words_first_and_leaves_out_texts_without_them() -> None:
    index = LexicalIndex([(10, CHATS[0]), (20, CHATS[1]), (30, CHATS[2])])
    ranked = index.ranked("Which supplements did Jennifer recommend?", 3)
    assert ranked[0][0] == 30
    assert ranked[0][1] > ranked[1][1] > 0.0, "the rare word outweighs the name every chat holds"
    assert [key for key, _ in index.ranked("Which supplements?", 3)] == [30]
    assert index.ranked("nothing here matches", 3) == [] and LexicalIndex([]).ranked("protein", 3) == []
    assert len(index.ranked("Jennifer", 2)) == 2, "limit bounds the list"


def test_bm25_discounts_repeats_and_long_texts() -> None:
    short = "ssh-keygen makes a key pair."
    long = "ssh-keygen makes a key pair. " + " ".join(f"filler{i}" for i in range(60))
    repeated = "ssh-keygen ssh-keygen ssh-keygen key."
    index = LexicalIndex([(1, short), (2, long), (3, repeated)])
    scores = dict(index.ranked("ssh-keygen", 3))
    assert scores[1] > scores[2], "the same words in a longer text score lower"
    assert scores[3] < 3 * scores[1], "three repeats score less than three times one"
