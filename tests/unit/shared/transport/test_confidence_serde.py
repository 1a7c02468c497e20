"""An answer's confidence crosses the wire bounded: another process's numbers are never taken as they come."""

from __future__ import annotations

import math

from shared.core.knowledge import CloudAnswer
from shared.transport import serde


def test_the_confidence_and_its_signals_round_trip_within_bounds() -> None:
    sent = CloudAnswer("Apple.", short="Apple", confidence=0.92, confidence_signals={"named": 1.0, "agreement": 0.75})
    back = serde.cloud_answer_from_proto(serde.cloud_answer_to_proto(sent))
    assert math.isclose(back.confidence, 0.92, rel_tol=1e-6) and back.sureness == "sure"
    assert back.confidence_signals == {"named": 1.0, "agreement": 0.75}


def test_out_of_range_or_unknown_values_from_a_peer_are_bounded_or_dropped() -> None:
    msg = serde.cloud_answer_to_proto(CloudAnswer("x"))
    msg.confidence = float("nan")
    msg.confidence_signals["agreement"] = 7.0
    msg.confidence_signals["secret_score"] = 0.9
    back = serde.cloud_answer_from_proto(msg)
    assert back.confidence == 0.0 and back.sureness == "can't tell"
    assert back.confidence_signals == {"agreement": 1.0}
