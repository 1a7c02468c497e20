"""Further routing signals: an edge reports them by name in its probe replies, the cloud bounds what it takes,
discounts them by the edge's trust and weighs them by query.probe_signal_weights. A new signal is computed by
the edge and named in the cloud's config; nothing else changes."""

from __future__ import annotations

import math

import pytest

from cloud_server.routing.choice import ProbeRouting, signal_weights
from cloud_server.routing.claim_check import ClaimLedger
from cloud_server.sessions.knowledge_intake import MAX_SIGNALS, accept_probe, bounded_signals
from edge_node.policy.privacy import probe_reply
from edge_node.query.retrieval import Evidence
from shared.config import CloudQueryConfig, PrivacyConfig
from shared.core.errors import ConfigError
from shared.core.knowledge import ProbeScores
from shared.transport import serde, serde_session


def _routing(weights: str) -> ProbeRouting:
    return ProbeRouting.from_config(CloudQueryConfig(probe_signal_weights=weights, probe_lexical_weight=0.0))


def test_a_signal_goes_from_the_edges_evidence_over_the_wire_into_the_routing_score() -> None:
    evidence = Evidence(0.5, 0.4, 0.3, 0.4, signals={"recency": 0.75})
    sent = probe_reply("edge-a", evidence, PrivacyConfig())
    message = serde_session.probe_reply("r-1", sent)
    received = accept_probe("edge-a", serde.probe_reply_from_proto(message.probe_reply))
    assert received.signals == {"recency": 0.75}
    assert _routing("recency=2").probed(received) == pytest.approx(0.4 + 2 * 0.75)
    assert _routing("").probed(received) == pytest.approx(0.4), "a signal no weight names counts nothing"
    assert _routing("other=1").probed(received) == pytest.approx(0.4), "a named signal not reported counts 0"
    admins = serde.probe_from_proto(serde.probe_to_proto(received))
    assert admins.signals == {"recency": 0.75}, "operators see every signal"


def test_a_policy_keeping_raw_text_home_sends_no_signal() -> None:
    evidence = Evidence(0.5, 0.4, 0.3, 0.4, signals={"recency": 0.75})
    assert probe_reply("edge-a", evidence, PrivacyConfig(level="summaries_only")).signals == {}


def test_the_cloud_bounds_what_an_edge_claims() -> None:
    hostile = {f"s{i:04d}": 0.5 for i in range(1000)} | {"Bad Name": 1.0, "x" * 40: 1.0}
    hostile |= {"a_nan": math.nan, "a_big": 1e30, "a_neg": -5.0, "a_inf": math.inf}
    taken = bounded_signals(hostile)
    assert len(taken) == MAX_SIGNALS and "Bad Name" not in taken and "x" * 40 not in taken
    assert taken["a_nan"] == 0.0 and taken["a_big"] == 1.0 and taken["a_neg"] == 0.0 and taken["a_inf"] == 0.0
    assert all(0.0 <= v <= 1.0 for v in taken.values())


def test_a_distrusted_edge_s_signals_are_discounted_like_its_scores() -> None:
    ledger = ClaimLedger()
    ledger.observe("liar", 1.0)
    discounted = ledger.discounted(ProbeScores("liar", 1.0, signals={"recency": 1.0}))
    assert discounted.score < 0.5 and discounted.signals["recency"] == pytest.approx(discounted.score)


def test_signal_weights_are_read_from_name_weight_pairs() -> None:
    assert signal_weights(" recency=0.2, freshness = 1 ") == {"recency": 0.2, "freshness": 1.0}
    for bad in ("recency", "recency=-1", "=1", "recency=much"):
        with pytest.raises(ConfigError, match="probe_signal_weights"):
            signal_weights(bad)
