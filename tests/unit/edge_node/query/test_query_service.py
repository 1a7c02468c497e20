"""The local query path with a scripted SLM: retrieval finds the right chunk, the trace is complete."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from edge_node.ingest.readers import RawDocument
from edge_node.ingest.service import IngestService
from edge_node.query.answering import NO_CLOUD_NOTE, QueryService
from shared.config import EdgeConfig, GateConfig
from shared.core.errors import DgragError
from shared.core.model_api import FloatMatrix
from shared.reading.span_reader import is_extractive
from simulation.fakes import HashEmbedder, ScriptedGenerator
from tests.support.fakes_edge import DOCS, EMBED_DIM, answering_slm, make_service


def _answering(ingest: IngestService, embedder: HashEmbedder, config: EdgeConfig | None = None) -> QueryService:
    """A query service over ``ingest``'s store, answering with :func:`answering_slm`."""
    return QueryService(ingest._kb, ScriptedGenerator(answering_slm), embedder, config or ingest._config)


@pytest.fixture
def service(tmp_path: Path, hash_embedder: HashEmbedder):  # type: ignore[no-untyped-def]
    ingest, _ = make_service(tmp_path / "edge")
    ingest.ingest(DOCS)
    kb = ingest._kb
    yield _answering(ingest, hash_embedder)
    kb.close()


def test_retrieval_finds_the_document_naming_the_entities(service: QueryService) -> None:
    r = service.retrieve("Who leads Acme Robotics, according to Jane Doe?")
    assert r.chunks and r.chunks[0].doc_id == "acme"
    assert "Jane Doe" in r.names
    assert any(e.exact and e.name == "Jane Doe" for e in r.entities)
    assert r.evidence.name_coverage == 1.0
    assert r.context.startswith("[1] Acme Corp")


def test_local_query_batches_answers_and_records_the_trace(service: QueryService) -> None:
    result = service.query("Who leads Acme Robotics, according to Jane Doe?")
    assert len(result.answers) == 4
    trace = result.trace().to_dict()
    assert trace["decision"] in ("local", "escalate")
    assert set(trace["timings"]) == {"keywording", "retrieval", "generation", "gate"}
    assert trace["gate"]["weights"] and trace["sources"][0]["doc_id"] == "acme"


def test_question_about_unknown_things_escalates_with_a_note(service: QueryService) -> None:
    result = service.query("What did the Tokyo Stock Exchange report about Nintendo?")
    assert result.decision == "escalate" and not result.verified
    assert result.note == NO_CLOUD_NOTE
    assert is_extractive(result.answer)  # not an unverified generation
    assert result.best_generated in result.answers
    trace = result.trace().to_dict()
    assert trace["sampling"]["temperature"] == 0.7 and trace["sampling"]["top_k"] == 40
    assert len(trace["degenerate"]) == len(result.answers)


def test_one_sampled_answer_has_no_agreement_to_weigh(tmp_path: Path, hash_embedder: HashEmbedder) -> None:
    ingest, _ = make_service(tmp_path / "one")
    ingest.ingest(DOCS)
    config = ingest._config
    one = dataclasses.replace(config, answer=dataclasses.replace(config.answer, n_answers=1))
    single = _answering(ingest, hash_embedder, one).query("Who leads Acme Robotics?")
    ingest._kb.close()
    assert len(single.answers) == 1 and single.gate is not None and single.gate.cosine is None


def test_an_empty_question_is_refused(service: QueryService) -> None:
    with pytest.raises(DgragError, match="empty"):
        service.query("  ")


def test_threshold_moves_the_decision(service: QueryService) -> None:
    q = "Who leads Acme Robotics, according to Jane Doe?"
    low = service.query(q)
    assert low.gate is not None
    service._config = service._config.__class__(**{**service._config.__dict__, "gate": GateConfig(threshold=1.01)})
    high = service.query(q)
    assert high.decision == "escalate"


def test_a_repeated_cloud_retrieval_is_remembered_until_the_store_changes(
    tmp_path: Path, hash_embedder: HashEmbedder
) -> None:
    ingest, _ = make_service(tmp_path / "edge")
    ingest.ingest(DOCS[:1])
    service = _answering(ingest, hash_embedder)
    question = "Who opened a clinic in Lisbon with Maria Silva?"
    first = service.retrieve(question)
    again = service.retrieve(question)
    assert again.chunks == first.chunks and again.evidence == first.evidence
    assert again.timings == {"retrieval": 0.0} and first.timings["retrieval"] > 0
    assert all(c.doc_id != "umbrella" for c in again.chunks)
    ingest.ingest(DOCS[2:])  # a write bumps the store's generation: the question is retrieved afresh
    fresh = service.retrieve(question)
    assert fresh.chunks[0].doc_id == "umbrella" and fresh.timings["retrieval"] > 0
    ingest._kb.close()


class ConstantEmbedder(HashEmbedder):
    """Every text the same vector: vector search ranks by insertion order alone."""

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def test_bm25_brings_the_chunk_that_spells_out_the_questions_rare_word(tmp_path: Path) -> None:
    """A vector that says nothing (every text embeds alike) still finds the chunk holding the option asked for:
    hybrid retrieval's lexical half."""
    ingest, _ = make_service(tmp_path / "edge")
    fillers = [
        RawDocument(f"f{i}", f"f{i}", f"Package notes number {i} about mirrors and keys.", "") for i in range(12)
    ]
    option = RawDocument("opt", "opt", "Use dpkg --force-overwrite to install over another package's file.", "")
    ingest.ingest([*fillers, option])
    config = dataclasses.replace(ingest._config, retrieval=dataclasses.replace(ingest._config.retrieval, top_chunks=2))
    flat = QueryService(ingest._kb, ScriptedGenerator(answering_slm), ConstantEmbedder(EMBED_DIM), config)
    try:
        found = flat.retrieve("Which dpkg option is force-overwrite?")
        assert "opt" in [c.doc_id for c in found.chunks], "vector search alone ranks it last of 13"
    finally:
        ingest._kb.close()
