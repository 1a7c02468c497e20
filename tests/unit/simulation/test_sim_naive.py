"""The simulation's NaiveRAG baseline: chunk vectors and one answer, on an edge's own index, no gate."""

from __future__ import annotations

from pathlib import Path

from shared.core.trace import Decision
from simulation.edge_parts import Retriever
from simulation.fakes import HashEmbedder, ScriptedGenerator
from simulation.naive import naive_answer
from tests.support.fakes_edge import DOCS, answering_slm, make_service, scripted_slm


def test_naive_rag_answers_once_from_chunk_vectors_as_generated(tmp_path: Path, hash_embedder: HashEmbedder) -> None:
    ingest, _ = make_service(tmp_path / "edge")
    ingest.ingest(DOCS)
    model = ScriptedGenerator(answering_slm)
    retriever = Retriever(ingest._kb, hash_embedder, ingest._config.retrieval)
    trace = naive_answer("Who leads Acme Robotics?", retriever, model, ingest._config)
    ingest._kb.close()
    assert trace.mode == "naive" and trace.gate is None and len(trace.answers) == 1
    assert trace.answer == "Jane Doe leads Acme Robotics." and trace.decision == Decision.LOCAL and trace.verified
    assert [s.doc_id for s in trace.sources][:1] == ["acme"] and not trace.entities, "chunks only, no graph"
    assert trace.timings["generation"] >= 0 and "retrieval" in trace.timings


def test_a_degenerate_naive_answer_is_replaced_by_an_extract(tmp_path: Path, hash_embedder: HashEmbedder) -> None:
    ingest, _ = make_service(tmp_path / "edge")
    ingest.ingest(DOCS)
    loops = ScriptedGenerator(lambda r: "🎉 " * 40 if "Question:" in r.prompt else scripted_slm(r))
    retriever = Retriever(ingest._kb, hash_embedder, ingest._config.retrieval)
    trace = naive_answer("Who leads Acme Robotics?", retriever, loops, ingest._config)
    ingest._kb.close()
    assert not trace.verified and "degenerate" in trace.note and "🎉" not in trace.answer
