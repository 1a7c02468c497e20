"""Whether a Ray cluster can place every edge host, node by node, before any is started.

Ray keeps an actor that fits no node pending for ever, so a run whose hosts do not fit would wait without a word.
Adding the cluster's resources up is not enough: a head that runs the driver (no CPUs) still adds its memory, and
two half-full workers add up to a host that fits neither. The hosts are placed first-fit, largest first, on the
live nodes' totals, as Ray's scheduler can at best.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Demand:
    """What one edge host declares."""

    name: str
    cpus: float
    memory: int
    """Bytes."""


@dataclass
class Node:
    """What one live node offers (its totals: nothing else runs actors on it during a run)."""

    address: str
    cpus: float
    memory: int


def live_nodes(nodes: Sequence[Mapping[str, Any]]) -> list[Node]:
    """The live nodes of ``ray.nodes()`` with the CPUs and memory they offer actors."""
    out = []
    for node in nodes:
        if not node.get("Alive"):
            continue
        resources = node.get("Resources", {})
        out.append(
            Node(str(node.get("NodeManagerAddress", "?")), resources.get("CPU", 0.0), int(resources.get("memory", 0)))
        )
    return out


def placement_problem(demands: Sequence[Demand], nodes: Sequence[Node]) -> str | None:
    """Why ``demands`` cannot all be placed on ``nodes`` (what to change), or None when they can."""
    free = [Node(n.address, n.cpus, n.memory) for n in nodes]
    for demand in sorted(demands, key=lambda d: (d.memory, d.cpus), reverse=True):
        fits = [n for n in free if n.cpus + 1e-9 >= demand.cpus and n.memory >= demand.memory]
        if not fits:
            return _unplaced(demand, nodes, free)
        fits[0].cpus -= demand.cpus
        fits[0].memory -= demand.memory
    return None


def _unplaced(demand: Demand, nodes: Sequence[Node], free: Sequence[Node]) -> str:
    offers = ", ".join(f"{n.address}: {n.cpus:g} CPU, {n.memory / 2**30:.2f} GiB" for n in nodes) or "no live node"
    left = ", ".join(f"{n.address}: {n.cpus:g} CPU, {n.memory / 2**30:.2f} GiB" for n in free)
    return (
        f"Ray host {demand.name} declares {demand.cpus:g} CPU and {demand.memory / 2**30:.2f} GiB, and no node has "
        f"that left once the larger hosts are placed (nodes offer {offers}; left: {left}): lower --ray-host-memory-mb,"
        " --ray-edge-memory-mb, --ray-edge-cpus or --edges-per-host, or give the nodes more"
    )
