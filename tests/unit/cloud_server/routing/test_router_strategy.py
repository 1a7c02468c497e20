"""A routing strategy is an object with ``choose(candidates)``: the default asks the best-probed edge, and a
researcher's own is handed to the cloud in Python (tests/component/test_routing_settings.py routes real
questions with one)."""

from __future__ import annotations

from cloud_server.api import Candidates, ProbeStrategy, RoutingStrategy
from shared.config import CloudQueryConfig
from shared.core.knowledge import ProbeScores, SummaryMatch
from tests.support.fakes import ReversedStrategy


def _candidates() -> Candidates:
    probes = [ProbeScores("edge-a", 0.9), ProbeScores("edge-b", 0.2), ProbeScores("edge-c", 0.5)]
    summaries = [SummaryMatch(f"{e}/s", e, 0.5, 1) for e in ("edge-a", "edge-b", "edge-c")]
    return Candidates(probes, summaries, 1)


def test_the_default_strategy_asks_the_best_probed_edge() -> None:
    assert ProbeStrategy(CloudQueryConfig()).choose(_candidates()) == ["edge-a"]


def test_a_strategy_of_ones_own_is_any_object_that_chooses() -> None:
    strategy = ReversedStrategy()
    assert isinstance(strategy, RoutingStrategy) and strategy.choose(_candidates()) == ["edge-b"]
