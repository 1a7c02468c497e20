"""Routing memory: remembered usefulness for close questions, bounded, decayed, persisted, resettable, and
used by stage 2 to break a tie between two edges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cloud_server.routing.choice import ProbeRouting
from cloud_server.routing.memory import RoutingMemory, usefulness
from shared.core.errors import ConfigError
from shared.core.knowledge import CloudAnswer, ContextChunk, EdgeKnowledge, KnowledgeChunk, ProbeScores, SummaryMatch

DIM = 8


def _vec(*hot: int) -> np.ndarray:
    v = np.zeros(DIM, np.float32)
    v[list(hot)] = 1.0
    return v


def test_a_close_question_gets_the_remembered_usefulness_and_a_far_one_nothing() -> None:
    memory = RoutingMemory(DIM)
    memory.record(_vec(0), {"a": 0.9, "b": 0.1})
    prior = memory.prior(_vec(0))
    assert prior == pytest.approx({"a": 0.9, "b": 0.1})
    assert memory.prior(_vec(5)) == {}


def test_old_memories_weigh_less_and_capacity_bounds_each_edge() -> None:
    memory = RoutingMemory(DIM, capacity=3, half_life=1.0)
    memory.record(_vec(0), {"a": 0.0})
    memory.record(_vec(0), {"a": 1.0})
    assert memory.prior(_vec(0))["a"] == pytest.approx(2 / 3)  # weights 0.5 (older) and 1.0
    for _ in range(5):
        memory.record(_vec(1), {"a": 1.0})
    assert memory.entries() == 3, "the oldest entries were replaced"
    assert memory.prior(_vec(0)) == {}


def test_persisted_and_a_broken_file_refused(tmp_path: Path) -> None:
    path = tmp_path / "memory.npz"
    memory = RoutingMemory(DIM, path=path)
    memory.record(_vec(2), {"a": 0.8})
    memory.save()
    again = RoutingMemory(DIM, path=path)
    assert again.prior(_vec(2)) == pytest.approx({"a": 0.8}) and again.step == 1
    path.write_bytes(b"not numpy")
    with pytest.raises(ConfigError, match="delete it to start with an empty memory"):
        RoutingMemory(DIM, path=path)


def test_usefulness_of_one_answer() -> None:
    answer = CloudAnswer("x", probes=[ProbeScores("a", 0.7), ProbeScores("b", 0.4), ProbeScores("c", error="t")])
    answer.edges_failed = ["d"]
    answer.context = [ContextChunk("a", KnowledgeChunk("doc", 1, "text", 0.5, 3))]
    replies = [EdgeKnowledge("a", evidence=0.6), EdgeKnowledge("b", evidence=0.2)]
    assert usefulness(answer, replies) == pytest.approx({"a": 0.8, "b": 0.1, "d": 0.0})


def test_the_memory_breaks_a_probe_tie() -> None:
    routing = ProbeRouting(shortlist=2, margin=0.0, max_k=1, weight=1.0)
    probes = [ProbeScores("a", 0.5), ProbeScores("b", 0.5)]
    matches = [SummaryMatch("s", "a", 0.5), SummaryMatch("t", "b", 0.5)]
    assert routing.choose(probes, matches, 1) == ["a"]
    assert routing.choose(probes, matches, 1, bonus={"b": 0.2}) == ["b"]
