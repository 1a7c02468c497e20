"""simulation.bench_network's model-free part: the privacy level each edge runs under, and the credentials.
(Starting the network itself needs the models and real processes: the extraction and membership benchmarks
do that.)"""

from __future__ import annotations

from simulation.bench_network import APP, OPERATOR, same_level


def test_same_level_puts_every_edge_under_one_level() -> None:
    level_of = same_level("summaries_only")
    assert [level_of(e) for e in ("sports", "technology")] == ["summaries_only", "summaries_only"]


def test_the_attacker_app_and_the_operator_are_distinct_credentials() -> None:
    assert APP != OPERATOR and APP.startswith("app")
