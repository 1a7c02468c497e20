"""Summaries ordered for routing by edge: an edge that matches a question in several subgraphs beats one that
matches it in a single summary by chance."""

from __future__ import annotations

from collections.abc import Sequence

Row = tuple[float, str, str, int]
"""A candidate summary while searching: score, summary id, edge id, version (plain tuples: thousands per question)."""


def ranked(rows: Sequence[Row], pool: int) -> list[Row]:
    """``rows`` reordered for routing: each edge's best summary first, edges ordered by the mean of their ``pool``
    best scores; then the remaining summaries by their own score. The top m summaries thus name the m best edges
    (what choosing k edges and summary hit@m look at)."""
    best: dict[str, list[float]] = {}
    leaders: dict[str, Row] = {}
    rest: list[Row] = []
    for row in sorted(rows, key=lambda r: (-r[0], r[1])):
        scores = best.setdefault(row[2], [])
        if len(scores) < pool:
            scores.append(row[0])
        if row[2] in leaders:
            rest.append(row)
        else:
            leaders[row[2]] = row
    edge_score = {edge: sum(s) / len(s) for edge, s in best.items()}
    ordered = sorted(leaders.values(), key=lambda r: (-edge_score[r[2]], -r[0], r[1]))
    return ordered + rest
