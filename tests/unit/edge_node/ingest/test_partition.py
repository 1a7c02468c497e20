"""Leiden partitioning with size constraints and stability."""

from __future__ import annotations

import itertools

from edge_node.ingest.partition import partition, project_entity_graph
from shared.config import PartitionConfig


def _clique_ring(n_cliques: int, size: int) -> tuple[list[int], dict[tuple[int, int], float]]:
    ids = list(range(n_cliques * size))
    edges: dict[tuple[int, int], float] = {}
    for c in range(n_cliques):
        members = ids[c * size : (c + 1) * size]
        for a, b in itertools.combinations(members, 2):
            edges[(a, b)] = 1.0
        nxt = ((c + 1) % n_cliques) * size
        edges[(min(members[0], nxt), max(members[0], nxt))] = 0.1
    return ids, edges


def test_finds_cliques() -> None:
    ids, edges = _clique_ring(4, 5)
    parts = partition(ids, edges, PartitionConfig(min_size=2, max_size=10))
    assert parts == [list(range(i, i + 5)) for i in range(0, 20, 5)]


def test_is_deterministic() -> None:
    ids, edges = _clique_ring(6, 4)
    config = PartitionConfig(min_size=2, max_size=10)
    assert partition(ids, edges, config) == partition(ids, edges, config)


def test_small_communities_merge_into_best_neighbour() -> None:
    ids, edges = _clique_ring(3, 5)
    ids.append(100)
    edges[(0, 100)] = 2.0  # a lone entity attached to the first clique
    parts = partition(ids, edges, PartitionConfig(min_size=3, max_size=10))
    assert [0, 1, 2, 3, 4, 100] in parts
    assert all(len(p) >= 3 for p in parts)


def test_isolated_entities_are_pooled() -> None:
    ids = [1, 2, 3, 4, 5]
    parts = partition(ids, {}, PartitionConfig(min_size=3, max_size=4))
    assert sorted(v for p in parts for v in p) == ids
    assert all(len(p) <= 4 for p in parts)


def test_oversized_communities_split() -> None:
    ids = list(range(30))
    edges = {(a, b): 1.0 for a, b in itertools.combinations(ids, 2)}
    parts = partition(ids, edges, PartitionConfig(min_size=2, max_size=8))
    assert sorted(v for p in parts for v in p) == ids
    assert max(len(p) for p in parts) <= 8


def test_previous_membership_keeps_partition_stable() -> None:
    ids, edges = _clique_ring(4, 5)
    config = PartitionConfig(min_size=2, max_size=10)
    first = partition(ids, edges, config)
    previous = {v: i for i, p in enumerate(first) for v in p}
    ids2 = [*ids, 50]
    edges2 = dict(edges)
    edges2[(7, 50)] = 1.0
    second = partition(ids2, edges2, config, previous)
    unchanged = [p for p in second if p in first]
    assert len(unchanged) == 3
    assert [5, 6, 7, 8, 9, 50] in second


def test_projection_adds_weak_same_chunk_links() -> None:
    edges = project_entity_graph([1, 2, 3], [(1, 2, 2.0)], {10: [1, 2, 3]}, cochunk_weight=0.3)
    assert edges == {(1, 2): 2.0, (1, 3): 0.3, (2, 3): 0.3}
