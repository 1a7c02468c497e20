"""A run whose edge hosts no node can hold fails at once with what to change, instead of waiting for ever
(Ray keeps an actor that fits nowhere pending): the check places hosts node by node, not on the cluster's sums."""

from __future__ import annotations

from simulation.ray_capacity import Demand, live_nodes, placement_problem

GIB = 2**30


def _nodes(*workers: tuple[float, float], head_memory: float = 10.0) -> list[dict[str, object]]:
    head = {"Alive": True, "NodeManagerAddress": "head", "Resources": {"memory": head_memory * GIB}}
    out = [head] + [
        {"Alive": True, "NodeManagerAddress": f"w{i}", "Resources": {"CPU": cpu, "memory": mem * GIB}}
        for i, (cpu, mem) in enumerate(workers, 1)
    ]
    return out


def test_the_heads_memory_does_not_hold_hosts_it_has_no_cpu_for() -> None:
    """The 64-edge run that hung: 4 hosts of 16 edges at 1.5 GiB, two workers of 2.98 GiB, a head with memory
    but no CPU. The cluster's sums (16 GiB, 4 CPUs) would pass."""
    hosts = [Demand(f"{i}", 0.5, int(1.5 * GIB)) for i in range(4)]
    problem = placement_problem(hosts, live_nodes(_nodes((2, 2.98), (2, 2.98))))
    assert problem is not None and "--ray-host-memory-mb" in problem and "w1: 2 CPU, 2.98 GiB" in problem
    smaller = [Demand(f"{i}", 0.5, GIB) for i in range(4)]
    assert placement_problem(smaller, live_nodes(_nodes((2, 2.98), (2, 2.98)))) is None, "two per worker"


def test_hosts_are_packed_largest_first_and_cpus_count_per_node() -> None:
    nodes = live_nodes(_nodes((2, 4.0), (2, 2.0)))
    mixed = [Demand("small", 0.5, 2 * GIB), Demand("big", 0.5, 3 * GIB), Demand("mid", 0.5, 1 * GIB)]
    assert placement_problem(mixed, nodes) is None, "big on w1 first, then small on w2, mid beside big"
    assert placement_problem([Demand("x", 2.5, GIB)], nodes) is not None, "no node has 2.5 CPUs"


def test_dead_nodes_offer_nothing() -> None:
    nodes = _nodes((2, 4.0))
    nodes[1]["Alive"] = False
    assert placement_problem([Demand("x", 0.5, GIB)], live_nodes(nodes)) is not None
