"""One credential cannot hold every place the cloud answers in: its questions past query.max_queries_per_caller
are refused while other callers are still admitted."""

from __future__ import annotations

import contextlib

import pytest

from cloud_server.api import build_cloud
from shared.config import CloudConfig, CloudQueryConfig
from shared.core.errors import ConfigError, ResourceExhaustedError
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator


def test_one_caller_cannot_take_every_place() -> None:
    config = CloudConfig(query=CloudQueryConfig(max_concurrent_queries=6, max_queries_per_caller=2))
    queries = build_cloud(config, HashEmbedder(16), ScriptedGenerator(lambda r: "x"), RegexTokenizer()).queries
    with contextlib.ExitStack() as held:
        for _ in range(2):
            held.enter_context(queries._slot("app-flood"))
        with pytest.raises(ResourceExhaustedError, match="max_queries_per_caller"):
            held.enter_context(queries._slot("app-flood"))
        held.enter_context(queries._slot("edge-a"))  # an edge's escalation still gets in
        assert queries.in_flight == 3
    assert queries.in_flight == 0
    with queries._slot("app-flood"):
        assert queries.in_flight == 1, "places are given back when the questions return"


def test_a_cap_below_one_is_refused() -> None:
    with pytest.raises(ConfigError, match="max_queries_per_caller must be 1 or more"):
        CloudQueryConfig(max_queries_per_caller=0)
