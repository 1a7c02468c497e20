"""The limits a global query must keep (question length, top-m, top-k, deadline) and the bounding of an asker's
numbers, transport-free."""

from __future__ import annotations

import math

from shared.config import CloudQueryConfig
from shared.core.errors import InvalidRequestError
from shared.core.vocabulary import MAX_QUESTION_CHARS

MAX_FANOUT = 64


class InvalidQueryError(InvalidRequestError):
    """A global query that cannot be served as asked (empty question, impossible m or k)."""


def check_match(question: str, m: int, cfg: CloudQueryConfig) -> None:
    if not question.strip():
        raise InvalidQueryError("the question is empty; ask something")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidQueryError(f"the question is {len(question)} characters long; keep it under {MAX_QUESTION_CHARS}")
    if not 1 <= m <= cfg.max_top_m:
        raise InvalidQueryError(f"top_m={m} must be in 1..{cfg.max_top_m} (the cloud's query.max_top_m)")


def check_fan_out(k: int, deadline: float, cfg: CloudQueryConfig) -> None:
    most = min(cfg.max_top_k, MAX_FANOUT)
    if not 1 <= k <= most:
        raise InvalidQueryError(f"top_k={k} must be in 1..{most} (the cloud's query.max_top_k)")
    if not 0 < deadline <= cfg.max_deadline_s:
        raise InvalidQueryError(
            f"deadline {deadline} s must be in (0, {cfg.max_deadline_s}] (the cloud's query.max_deadline_s)"
        )


def bounded(margin: float | None, default: float) -> float:
    """An asker's margin, within [-1, 1]; the cloud's default when absent or not a number."""
    return default if margin is None or not math.isfinite(margin) else min(max(margin, -1.0), 1.0)


def unit(value: float) -> float:
    return min(max(value, 0.0), 1.0)
