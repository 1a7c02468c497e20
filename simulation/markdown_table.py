"""The pieces every report.md section is written with: a dash for a missing value, a share, a table."""

from __future__ import annotations

from collections.abc import Sequence

DASH = "—"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{value:.1%}"


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
