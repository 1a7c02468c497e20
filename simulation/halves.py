"""The dev questions split once into a fit half and a report half, by a hash of their id.

Every default fitted to benchmark questions (the gate, readers, thresholds) is fitted on the fit half only, and
every published figure comes from the report half, so a figure never scores the questions its defaults were
chosen on. The split depends on the id alone: the same in every bundle, run and benchmark. A bundle written only for
fitting (pkgfit3, debpy3, debpg3) gives its questions ids starting with one of :data:`FIT_ONLY_PREFIXES`: all of
them are in the fit half.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from enum import IntEnum
from typing import Any, TypeVar

R = TypeVar("R", bound=Mapping[str, Any])


class Half(IntEnum):
    FIT = 0
    REPORT = 1


FIT_ONLY_PREFIXES = ("pf-", "py-", "pg-")
"""The id prefixes of the questions of the bundles written only for fitting (simulation/bundles/pkgfit3, debpy3 and
debpg3)."""


def half_of(qid: str) -> Half:
    """The half ``qid`` belongs to."""
    if qid.startswith(FIT_ONLY_PREFIXES):
        return Half.FIT
    return Half(hashlib.sha256(qid.encode()).digest()[0] % 2)


def parse_half(text: str) -> Half | None:
    """``fit`` / ``report`` -> the half; ``all`` or "" -> None (every question)."""
    value = text.strip().lower()
    if value in ("", "all"):
        return None
    try:
        return Half[value.upper()]
    except KeyError:
        raise ValueError(f"half {text!r} is not one of fit, report, all") from None


def split(rows: Iterable[R]) -> tuple[list[R], list[R]]:
    """``rows`` (each with a ``qid``) as (fit half, report half); a question never sits in both."""
    fit: list[R] = []
    report: list[R] = []
    for row in rows:
        (fit if half_of(str(row["qid"])) == Half.FIT else report).append(row)
    return fit, report
