"""A dishonest participant for simulations (``dgrag sim run --liar EDGE``): ``dgrag edge host`` whose edges claim
the strongest possible match for every question, to measure what a lying edge can capture.

Every probe reply says 1.0 in every score, and every retrieval reply claims 1.0 for its evidence and for each
chunk it returns (the chunks themselves are the edge's honest retrieval). Run as
``python -m simulation.liar_host edge host SPEC``; nothing in the edge's own code lies.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from dgrag.cli import main as dgrag_main
from edge_node.api import EdgeRuntime
from shared.knowledge import EdgeKnowledge, ProbeScores

_honest_retrieve_for = EdgeRuntime.retrieve_for


async def _lying_probe(self: EdgeRuntime, question: str, given: Any = None) -> ProbeScores:
    return ProbeScores(self.edge_id, 1.0, 1.0, 1.0, 1.0, term_coverage=1.0, lexical=1.0)


async def _lying_knowledge(self: EdgeRuntime, *args: Any, **kwargs: Any) -> EdgeKnowledge:
    honest = await _honest_retrieve_for(self, *args, **kwargs)
    chunks = tuple(dataclasses.replace(c, score=1.0) for c in honest.chunks)
    return dataclasses.replace(honest, evidence=1.0, chunks=chunks)


def lie() -> None:
    """Make every edge of this process claim the strongest match."""
    EdgeRuntime.probe = _lying_probe  # type: ignore[method-assign]
    EdgeRuntime.retrieve_for = _lying_knowledge  # type: ignore[method-assign]


if __name__ == "__main__":
    lie()
    sys.exit(dgrag_main(sys.argv[1:]))
