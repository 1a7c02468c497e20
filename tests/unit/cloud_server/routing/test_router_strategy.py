"""A routing strategy is one class named in the config: the default, a researcher's own by module:Class, and a
clear error for a name that is not one."""

from __future__ import annotations

import pytest

from cloud_server.routing.router import Candidates, ProbeStrategy, RoutingStrategy, strategy_named
from shared.config import CloudQueryConfig
from shared.core.errors import ConfigError
from shared.core.knowledge import ProbeScores, SummaryMatch


class Reversed:
    """Asks the edges stage 2 likes least: a strategy a researcher might write to see what routing buys."""

    def __init__(self, config: CloudQueryConfig) -> None:
        self.k = config.probe_max_k

    def choose(self, candidates: Candidates) -> list[str]:
        ranked = sorted(candidates.probes, key=lambda p: p.score)
        return [p.edge_id for p in ranked][: candidates.k]


class NoChoose:
    def __init__(self, config: CloudQueryConfig) -> None:
        pass


def _candidates() -> Candidates:
    probes = [ProbeScores("edge-a", 0.9), ProbeScores("edge-b", 0.2), ProbeScores("edge-c", 0.5)]
    summaries = [SummaryMatch(f"{e}/s", e, 0.5, 1) for e in ("edge-a", "edge-b", "edge-c")]
    return Candidates(probes, summaries, 1, {})


def test_the_default_strategy_asks_the_best_probed_edge() -> None:
    strategy = strategy_named(CloudQueryConfig())
    assert isinstance(strategy, ProbeStrategy)
    assert strategy.choose(_candidates()) == ["edge-a"]


def test_a_strategy_of_ones_own_is_named_module_colon_class() -> None:
    name = f"{__name__}:Reversed"
    strategy = strategy_named(CloudQueryConfig(routing_strategy=name))
    assert isinstance(strategy, RoutingStrategy) and strategy.choose(_candidates()) == ["edge-b"]


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("nearest", "use 'probes' or module:Class"),
        ("tests.no_such_module:Strategy", "use 'probes' or module:Class"),
        (f"{__name__}:Missing", "use 'probes' or module:Class"),
        (f"{__name__}:NoChoose", "no choose"),
    ],
)
def test_a_name_that_is_no_strategy_is_refused_saying_what_to_give(name: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        strategy_named(CloudQueryConfig(routing_strategy=name))
