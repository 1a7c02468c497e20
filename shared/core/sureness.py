"""The word a person reads beside an answer, from the probability that it is right (shared.reading.confidence)."""

from __future__ import annotations

import math
from enum import StrEnum

SURE_AT = 0.9
LIKELY_AT = 0.5
WITHHOLD_BELOW = 0.6
"""An edge's yes/no verdict is shown at this probability or above (below, the answer says can't tell and the
question goes to the cloud)."""
CLOUD_WITHHOLD_BELOW = 0.0
"""The cloud's: a verdict of the cloud's model is shown at this probability or above (below, can't tell). 0: every
verdict is shown with its probability and word: no calibration is fitted for the one reader yet, and the unfitted
prior put right verdicts below even odds on held-out documentation."""
SIGNALS = ("named", "agreement", "parts", "model")
"""The evidence signals a confidence is computed from (shared.reading.confidence.Evidence), as traces and replies
carry them; any other key a peer sends is dropped."""


class Sureness(StrEnum):
    SURE = "sure"
    LIKELY = "likely"
    CANT_TELL = "can't tell"


def unit_interval(value: float) -> float:
    """A probability or signal from another process or a trace, within [0, 1] (0 when it is not a number)."""
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else 0.0


def sureness_of(probability: float) -> Sureness:
    """``sure`` from SURE_AT, ``likely`` from LIKELY_AT, else ``can't tell``."""
    if probability >= SURE_AT:
        return Sureness.SURE
    return Sureness.LIKELY if probability >= LIKELY_AT else Sureness.CANT_TELL
