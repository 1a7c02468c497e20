"""The word a person reads beside an answer, from the probability that it is right (shared.reading.confidence)."""

from __future__ import annotations

from enum import StrEnum

SURE_AT = 0.8
LIKELY_AT = 0.5


class Sureness(StrEnum):
    SURE = "sure"
    LIKELY = "likely"
    CANT_TELL = "can't tell"


def sureness_of(probability: float) -> Sureness:
    """``sure`` from SURE_AT, ``likely`` from LIKELY_AT, else ``can't tell``."""
    if probability >= SURE_AT:
        return Sureness.SURE
    return Sureness.LIKELY if probability >= LIKELY_AT else Sureness.CANT_TELL
