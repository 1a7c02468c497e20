"""``dgrag sim split``: an N-edge bundle derived from a bundle, deterministic by seed."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from shared.core.errors import DgragError
from simulation.bundle import consistent_questions, load_edges, load_questions
from simulation.split import SPLIT_KEYS, split_bundle
from tests.support.paths import REPO

BUNDLE = REPO / "simulation" / "bundles" / "multihop4"


def _docs(out: Path) -> list[dict[str, str]]:
    return [json.loads(x) for x in (out / "docs.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("by", SPLIT_KEYS)
def test_every_document_on_one_edge_and_homes_follow_the_evidence(tmp_path: Path, by: str) -> None:
    report = split_bundle(BUNDLE, 16, by, tmp_path / by, seed=3)
    docs = _docs(tmp_path / by)
    original = _docs(BUNDLE)
    assert sorted(d["doc_id"] for d in docs) == sorted(d["doc_id"] for d in original)
    sizes = [sum(d["edge_id"] == e for d in docs) for e in load_edges(tmp_path / by)]
    assert len(sizes) == 16 and max(sizes) - min(sizes) <= 1, "near-equal edges"
    where = {d["doc_id"]: d["edge_id"] for d in docs}
    questions = load_questions(tmp_path / by)
    for q in questions:
        assert list(q.home_edges) == sorted({where[d] for d in q.evidence_doc_ids if d in where})
    usable, inconsistent = consistent_questions(questions, load_edges(tmp_path / by))
    assert not inconsistent and len(usable) == report.questions == 300
    assert (tmp_path / by / "SOURCE.md").read_text().count("MultiHop-RAG") >= 1, "attribution travels"


def test_same_seed_same_bundle_other_seed_other_ties(tmp_path: Path) -> None:
    split_bundle(BUNDLE, 8, "random", tmp_path / "a", seed=1)
    split_bundle(BUNDLE, 8, "random", tmp_path / "b", seed=1)
    split_bundle(BUNDLE, 8, "random", tmp_path / "c", seed=2)
    assert (tmp_path / "a" / "docs.jsonl").read_bytes() == (tmp_path / "b" / "docs.jsonl").read_bytes()
    assert (tmp_path / "a" / "docs.jsonl").read_bytes() != (tmp_path / "c" / "docs.jsonl").read_bytes()


def test_source_keeps_a_publisher_together_when_it_fits(tmp_path: Path) -> None:
    split_bundle(BUNDLE, 4, "source", tmp_path / "s", seed=0)
    edges_of: dict[str, set[str]] = {}
    for d in _docs(tmp_path / "s"):
        source = d["text"].split("Source: ", 1)[1].split(",", 1)[0]
        edges_of.setdefault(source, set()).add(d["edge_id"])
    assert sum(len(e) == 1 for e in edges_of.values()) >= len(edges_of) - 3, "only sources at a cut span two edges"


def test_time_orders_edges_by_date(tmp_path: Path) -> None:
    split_bundle(BUNDLE, 4, "time", tmp_path / "t", seed=0)
    dates: dict[str, list[str]] = {}
    for d in _docs(tmp_path / "t"):
        dates.setdefault(d["edge_id"], []).append(d["text"].split("published ", 1)[1][:10])
    spans = [(min(v), max(v)) for _, v in sorted(dates.items())]
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))


def test_bad_requests_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(DgragError, match="split key"):
        split_bundle(BUNDLE, 4, "colour", tmp_path / "x")
    with pytest.raises(DgragError, match="every edge needs one"):
        split_bundle(BUNDLE, 10_000, "random", tmp_path / "y")
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "keep.txt").write_text("mine")
    with pytest.raises(DgragError, match="not empty"):
        split_bundle(BUNDLE, 4, "random", tmp_path / "z")
    assert (tmp_path / "z" / "keep.txt").read_text() == "mine"
