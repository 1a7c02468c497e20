"""The word a person reads beside an answer, from the probability that it is right (shared.reading.confidence)."""

from __future__ import annotations

import math
from enum import StrEnum

SURE_AT = 0.9
LIKELY_AT = 0.5
WITHHOLD_BELOW = 0.6
"""An edge's yes/no or two-option verdict is shown at this probability or above (below, the answer says can't tell
and the question goes to the cloud). The edge's model votes on yes/no: on the fit halves its votes were right 47.8%
of the time (docs/results/confidence-fit)."""
CLOUD_WITHHOLD_BELOW = 0.5
"""The cloud's: a verdict the cloud's model reads claim by claim is shown at this probability or above. Chosen on
the fit halves of multihop4 and pkgfit3 (108 yes/no asks, benchmarks.fit_yes_no, cross-validated) as the least
confidence whose verdicts beat always "yes" by 10 points: 72.2% right against 55.6%, on every ask. Withholding buys
little: from 0.55, 73.5% right on 76.9% of the asks; from 0.6, 75.0% on 55.6%; from 0.65, 82.1% on 36.1%."""
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
