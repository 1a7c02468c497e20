"""Topology-based partitioning of the entity graph: Leiden (fixed seed), then size constraints.

The graph projected for partitioning has one vertex per entity; its edges are relations (their weight)
and, for entities sharing a chunk without a relation, a weak ``cochunk_weight`` link. The previous
partition seeds Leiden (``initial_membership``) so a local change moves few entities and most
subgraphs, and their summaries, stay as they were.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from shared.config import PartitionConfig
from shared.core.errors import ModelNotInstalledError

if TYPE_CHECKING:
    import igraph as ig

WeightedEdge = tuple[int, int, float]


def project_entity_graph(
    entity_ids: Sequence[int],
    relations: Iterable[WeightedEdge],
    chunk_members: Mapping[int, Sequence[int]],
    cochunk_weight: float,
) -> dict[tuple[int, int], float]:
    """Undirected weighted edges between entity ids: relation weights plus weak same-chunk links."""
    known = set(entity_ids)
    weights: dict[tuple[int, int], float] = defaultdict(float)
    for a, b, w in relations:
        if a in known and b in known and a != b:
            weights[(min(a, b), max(a, b))] += max(w, 1e-3)
    if cochunk_weight > 0:
        for members in chunk_members.values():
            ms = sorted(set(members) & known)
            for i, a in enumerate(ms):
                for b in ms[i + 1 :]:
                    if (a, b) not in weights:
                        weights[(a, b)] = cochunk_weight
    return dict(weights)


MAX_LEIDEN_ITERATIONS = 50
"""Leiden converges in a few iterations on an edge's graph; past this many it is oscillating and stops."""


def partition(
    entity_ids: Sequence[int],
    edges: Mapping[tuple[int, int], float],
    config: PartitionConfig,
    previous: Mapping[int, int] | None = None,
) -> list[list[int]]:
    """Communities of entity ids, each of size in [min_size, max_size] where the graph allows it.

    Communities below ``min_size`` merge into their best-connected neighbour (if the result still fits);
    those with no neighbour are pooled. Communities above ``max_size`` are split. Output is sorted
    (members ascending, communities by first member), so equal inputs give equal outputs.
    """
    if not entity_ids:
        return []
    ig, la = _graph_libraries()
    order = sorted(entity_ids)
    pos = {eid: i for i, eid in enumerate(order)}
    graph = ig.Graph(n=len(order), edges=[(pos[a], pos[b]) for a, b in edges], directed=False)
    graph.es["weight"] = list(edges.values())
    initial = _initial_membership(order, previous)
    found = la.RBConfigurationVertexPartition(
        graph, initial_membership=initial, weights="weight", resolution_parameter=config.resolution
    )
    optimiser = la.Optimiser()
    optimiser.max_comm_size = config.max_size
    optimiser.set_rng_seed(config.seed)
    # Leiden until an iteration improves nothing, as leidenalg's n_iterations=-1 does, but bounded: with a
    # community size cap it can oscillate forever on some graphs (seen on a 5-document edge of a 64-edge split).
    for _ in range(MAX_LEIDEN_ITERATIONS):
        if optimiser.optimise_partition(found, n_iterations=1) <= 0:
            break
    groups = [list(c) for c in found if c]
    groups = [part for g in groups for part in _split(la, graph, g, config)]
    groups = _merge_small(graph, groups, config)
    result = [sorted(order[v] for v in g) for g in groups]
    return sorted(result, key=lambda members: members[0])


def _initial_membership(order: Sequence[int], previous: Mapping[int, int] | None) -> list[int] | None:
    if not previous:
        return None
    labels: dict[int, int] = {}
    out: list[int] = []
    for eid in order:
        old = previous.get(eid)
        key = old if old is not None else -1 - eid  # a new entity starts alone
        out.append(labels.setdefault(key, len(labels)))
    return out


def _graph_libraries() -> tuple[ModuleType, ModuleType]:
    """igraph and leidenalg, imported when an edge first partitions (a cloud-only install has neither)."""
    try:
        return importlib.import_module("igraph"), importlib.import_module("leidenalg")
    except ImportError as exc:
        raise ModelNotInstalledError(
            "partitioning an edge's graph needs igraph and leidenalg; run: pip install 'dgrag[edge]'"
        ) from exc


def _split(la: ModuleType, graph: ig.Graph, members: list[int], config: PartitionConfig) -> list[list[int]]:
    """``members`` cut by leidenalg (``la``) into communities of at most ``config.max_size``."""
    if len(members) <= config.max_size:
        return [members]
    sub = graph.induced_subgraph(members)
    parts = la.find_partition(
        sub,
        la.RBConfigurationVertexPartition,
        weights="weight",
        resolution_parameter=config.resolution * 2,
        seed=config.seed,
    )
    if len(parts) <= 1:  # no structure left: cut in order
        size = config.max_size
        return [members[i : i + size] for i in range(0, len(members), size)]
    out: list[list[int]] = []
    for part in parts:
        out.extend(_split(la, graph, [members[v] for v in part], config))
    return out


def _merge_small(graph: ig.Graph, groups: list[list[int]], config: PartitionConfig) -> list[list[int]]:
    label = {v: i for i, g in enumerate(groups) for v in g}
    groups_by_label: dict[int, list[int]] = {i: list(g) for i, g in enumerate(groups)}
    changed = True
    while changed:
        changed = False
        for gid in sorted(groups_by_label, key=lambda k: (len(groups_by_label[k]), k)):
            members = groups_by_label.get(gid)
            if members is None or len(members) >= config.min_size:
                continue
            link: dict[int, float] = defaultdict(float)
            for v in members:
                for e in graph.incident(v):
                    edge = graph.es[e]
                    u = edge.target if edge.source == v else edge.source
                    if label[u] != gid:
                        link[label[u]] += float(edge["weight"])
            fits = [(w, -t) for t, w in link.items() if len(groups_by_label[t]) + len(members) <= config.max_size]
            if not fits:
                continue
            _, neg_target = max(fits)
            target = -neg_target
            groups_by_label[target].extend(members)
            for v in members:
                label[v] = target
            del groups_by_label[gid]
            changed = True
            break
    big = [g for g in groups_by_label.values() if len(g) >= config.min_size]
    pooled = sorted(v for g in groups_by_label.values() if len(g) < config.min_size for v in g)
    for i in range(0, len(pooled), config.max_size):
        big.append(pooled[i : i + config.max_size])
    return big
