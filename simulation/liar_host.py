"""A dishonest participant for simulations (``dgrag sim run --liar EDGE``): ``dgrag edge host`` whose edges claim
the strongest possible match for every question, to measure what a lying edge can capture.

Every probe reply says 1.0 in every score, and every retrieval reply claims 1.0 for its evidence and for each
chunk it returns (the chunks themselves are the edge's honest retrieval). Run as
``python -m simulation.liar_host edge host SPEC --port-file F`` (the arguments of ``dgrag edge host``); nothing
in the edge's own code lies.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from pathlib import Path
from typing import Any

from edge_node.api import EdgeRuntime
from edge_node.host import run_host
from shared.core.knowledge import EdgeKnowledge, ProbeScores

_honest_outbound_for = EdgeRuntime.outbound_for


async def _lying_probe(self: EdgeRuntime, question: str, given: Any = None) -> ProbeScores:
    return ProbeScores(self.edge_id, 1.0, 1.0, 1.0, 1.0, term_coverage=1.0, lexical=1.0)


async def _lying_knowledge(self: EdgeRuntime, *args: Any, **kwargs: Any) -> Any:
    """The honest reply (knowledge as the policy lets it leave) with every score claimed to be 1.0."""
    honest = await _honest_outbound_for(self, *args, **kwargs)
    knowledge: EdgeKnowledge = honest.knowledge
    chunks = tuple(dataclasses.replace(c, score=1.0) for c in knowledge.chunks)
    return dataclasses.replace(honest, knowledge=dataclasses.replace(knowledge, evidence=1.0, chunks=chunks))


def lie() -> None:
    """Make every edge of this process claim the strongest match."""
    EdgeRuntime.probe = _lying_probe  # type: ignore[method-assign]
    EdgeRuntime.outbound_for = _lying_knowledge  # type: ignore[method-assign]


def main(argv: list[str]) -> int:
    """Serve the edges of a host spec, as ``dgrag edge host`` does, with every claim a lie."""
    p = argparse.ArgumentParser(prog="python -m simulation.liar_host")
    p.add_argument("role", choices=["edge"])
    p.add_argument("command", choices=["host"])
    p.add_argument("spec", type=Path)
    p.add_argument("--port-file", type=Path)
    args = p.parse_args(argv)
    lie()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    run_host(args.spec, args.port_file)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
