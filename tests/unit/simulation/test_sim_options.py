"""Bad simulation input fails before any indexing, with a message that says what to change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.core.errors import DgragError
from simulation.bundle import Question, asked_at, consistent_questions
from simulation.indexing import central_docs
from simulation.ray_backend import RayOptions
from simulation.runner import SimOptions, run

EDGES = ["a", "b", "c"]


def _bundle(tmp_path: Path, docs_for: tuple[str, ...] = ("a", "b", "c")) -> Path:
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "edges.json").write_text(json.dumps([{"edge_id": e, "description": e} for e in EDGES]))
    docs = [{"doc_id": f"d-{e}-{i}", "edge_id": e, "title": "t", "text": "x"} for e in docs_for for i in range(2)]
    (bench / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (bench / "questions.jsonl").write_text(
        json.dumps({"qid": "q1", "question": "?", "answer": "Yes", "home_edges": ["a"], "evidence_doc_ids": []}) + "\n"
    )
    return bench


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"modes": ()}, "no modes to run"),
        ({"modes": ("naive", "psychic")}, "unknown mode 'psychic'"),
        ({"ablations": ("xx",)}, "unknown ablation.s. xx"),
        ({"ablations": ("cd", "cd")}, "--ablate names cd more than once"),
        ({"limit": -1}, "--limit -1 is negative"),
        ({"edges": ("a", "b", "a")}, "--edges names a more than once"),
        ({"edges": ("a", "z")}, r"edge\(s\) \['z'\] are not in"),
        ({"backend": "k8s"}, "unknown backend 'k8s'; use one of local, ray"),
        ({"liars": ("a",), "liar_kind": "sly"}, "--liar-kind 'sly' is not one of blunt, smart, echo, refuser"),
        ({"ray": RayOptions(address="10.0.0.1:6379")}, "--ray-address and the --ray-\\* resources need --backend ray"),
        ({"backend": "ray", "ray": RayOptions(edge_cpus=0)}, "--ray-edge-cpus 0: give a positive CPU share"),
        ({"backend": "ray", "ray": RayOptions(host_memory_mb=-1)}, "must be 0 or more"),
    ],
)
def test_bad_options_are_refused_before_indexing(tmp_path: Path, changes: dict[str, object], message: str) -> None:
    bench = _bundle(tmp_path)
    opts = SimOptions(bench=bench, out=tmp_path / "out", cache_dir=tmp_path / "cache")
    with pytest.raises(DgragError, match=message):
        run(SimOptions(**{**opts.__dict__, **changes}))  # type: ignore[arg-type]
    assert not (tmp_path / "cache").exists() and not (tmp_path / "out").exists()


def test_an_edge_without_documents_is_refused_before_indexing(tmp_path: Path) -> None:
    bench = _bundle(tmp_path, docs_for=("a", "b"))
    with pytest.raises(DgragError, match=r"edge\(s\) \['c'\] have no documents.*--edges"):
        run(SimOptions(bench=bench, out=tmp_path / "out", cache_dir=tmp_path / "cache"))
    assert not (tmp_path / "cache").exists()


def _q(qid: str, answer: str, homes: tuple[str, ...]) -> Question:
    return Question(qid, "?", answer, "t", homes, ())


def test_questions_are_checked_against_the_bundle_edges() -> None:
    fine, stray = _q("q1", "Yes", ("a",)), _q("q2", "Paris", ())
    usable, inconsistent = consistent_questions([fine, stray, _q("q3", "Insufficient information", ())], EDGES)
    assert [q.qid for q in usable] == ["q1", "q3"] and inconsistent == [stray]
    with pytest.raises(DgragError, match=r"question q4: home edge\(s\) \['x'\] are not in edges.json"):
        consistent_questions([_q("q4", "Yes", ("x",))], EDGES)


def test_a_question_whose_home_edges_are_all_left_out_is_not_asked() -> None:
    asks = asked_at([_q("q1", "Yes", ("c",)), _q("q2", "No", ("a", "c"))], ["a", "b"])
    assert [(a.question.qid, a.edge, a.kind) for a in asks] == [("q2", "a", "within"), ("q2", "b", "out")]


def test_the_central_store_of_a_subset_holds_only_those_edges_documents(tmp_path: Path) -> None:
    bench = _bundle(tmp_path)
    target = tmp_path / "cache" / "bench-central-key"
    target.mkdir(parents=True)
    rows = [json.loads(x) for x in (bench / "docs.jsonl").read_text().splitlines()]
    assert central_docs(bench, rows, target) == bench / "docs.jsonl"  # every edge: the bundle's own file
    subset = central_docs(bench, [r for r in rows if r["edge_id"] != "b"], target)
    kept = [json.loads(x)["doc_id"] for x in subset.read_text().splitlines()]
    assert kept == ["d-a-0", "d-a-1", "d-c-0", "d-c-1"]
