"""Dishonest participants for simulations (``dgrag sim run --liar EDGE --liar-kind KIND``): an edge host
whose edges lie to the cloud in one of five ways, to measure what each can capture.

- ``blunt``: every probe reply says 1.0 in every score, and every retrieval reply claims 1.0 for its evidence and
  for each chunk it returns (the chunks themselves are the edge's honest retrieval).
- ``smart``: has read the cloud's checks. Honest in the chunks, their scores, its best chunk and term coverage;
  claims every name of the question (name coverage 1.0), the highest evidence score the cloud's intake lets
  those fields back ((best chunk + 1) / 2), the highest lexical coverage it lets the term coverage back, and
  1.0 for every named signal.
- ``echo``: claims 1.0 everywhere and returns the question itself as its first chunk (which any re-scoring of
  returned text by similarity to the question rates ~1.0), then its honest chunks.
- ``refuser``: refuses every probe (as an owner's policy may), so routing falls back to its summaries, and
  claims 1.0 for its evidence and chunks when asked.
- ``stuffer``: the refuser whose every published summary also lists the names the other edges' documents
  mention most (``--stuffing FILE``, one per line: an attacker who has read the public news of every topic), so
  its summaries match questions about every topic.

Run as ``python -m simulation.liar_host [--kind KIND] [--stuffing FILE] SPEC --port-file F`` (the arguments of
``python -m simulation.edge_host``); nothing in the edge's own code lies.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from edge_node.api import EdgeRuntime
from shared.core.errors import PermissionDeniedError
from shared.core.knowledge import PROBES_REFUSED, EdgeKnowledge, KnowledgeChunk, ProbeScores, SummaryChanges
from simulation.cloud_parts import bounded_lexical
from simulation.edge_host import run_host
from simulation.edge_parts import SessionOutbox

_honest_outbound_for = EdgeRuntime.outbound_for
_honest_probe = EdgeRuntime.probe
_honest_summaries = SessionOutbox.summaries


async def _blunt_probe(self: EdgeRuntime, question: str, given: Any = None) -> ProbeScores:
    return ProbeScores(self.edge_id, 1.0, 1.0, 1.0, 1.0, term_coverage=1.0, lexical=1.0)


async def _smart_probe(self: EdgeRuntime, question: str, given: Any = None) -> ProbeScores:
    """The honest probe with every field the cloud cannot re-measure on one probe claimed as high as its intake
    accepts (cloud_server.sessions.knowledge_intake)."""
    honest = await _honest_probe(self, question, given)
    signals = {name: 1.0 for name in honest.signals}
    evidence = (max(honest.best_chunk, 0.0) + 1.0) / 2
    lexical = bounded_lexical(1.0, honest.term_coverage)
    return dataclasses.replace(honest, score=evidence, name_coverage=1.0, lexical=lexical, signals=signals)


async def _refusing_probe(self: EdgeRuntime, question: str, given: Any = None) -> ProbeScores:
    raise PermissionDeniedError(PROBES_REFUSED)


async def _blunt_knowledge(self: EdgeRuntime, *args: Any, **kwargs: Any) -> Any:
    """The honest reply (knowledge as the policy lets it leave) with every score claimed to be 1.0."""
    honest = await _honest_outbound_for(self, *args, **kwargs)
    knowledge: EdgeKnowledge = honest.knowledge
    chunks = tuple(dataclasses.replace(c, score=1.0) for c in knowledge.chunks)
    return dataclasses.replace(honest, knowledge=dataclasses.replace(knowledge, evidence=1.0, chunks=chunks))


async def _smart_knowledge(self: EdgeRuntime, *args: Any, **kwargs: Any) -> Any:
    """The honest reply with only its overall evidence score (which the cloud re-measures) claimed at 1.0."""
    honest = await _honest_outbound_for(self, *args, **kwargs)
    return dataclasses.replace(honest, knowledge=dataclasses.replace(honest.knowledge, evidence=1.0))


async def _echo_knowledge(self: EdgeRuntime, question: str, *args: Any, **kwargs: Any) -> Any:
    """The blunt reply with the question itself put first as a chunk of the edge's first document."""
    lied = await _blunt_knowledge(self, question, *args, **kwargs)
    knowledge: EdgeKnowledge = lied.knowledge
    doc_id = knowledge.chunks[0].doc_id if knowledge.chunks else "echo"
    echo = KnowledgeChunk(doc_id, 10**9, question, 1.0, len(question.split()))
    return dataclasses.replace(lied, knowledge=dataclasses.replace(knowledge, chunks=(echo, *knowledge.chunks)))


Probe = Callable[..., Coroutine[Any, Any, ProbeScores]]
Reply = Callable[..., Coroutine[Any, Any, Any]]
_LIES: dict[str, tuple[Probe, Reply]] = {
    "blunt": (_blunt_probe, _blunt_knowledge),
    "smart": (_smart_probe, _smart_knowledge),
    "echo": (_blunt_probe, _echo_knowledge),
    "refuser": (_refusing_probe, _blunt_knowledge),
    "stuffer": (_refusing_probe, _blunt_knowledge),
}
KINDS = tuple(_LIES)


def stuff_summaries(words: list[str]) -> None:
    """Make every summary this process publishes end with ``words`` (the stuffer's names)."""
    tail = " Also: " + ", ".join(words) + "."

    def stuffed(self: SessionOutbox, changes: SummaryChanges) -> None:
        upserts = tuple(dataclasses.replace(c, text=c.text + tail) for c in changes.upserts)
        _honest_summaries(self, dataclasses.replace(changes, upserts=upserts))

    SessionOutbox.summaries = stuffed  # type: ignore[method-assign]


def lie(kind: str = "blunt", stuffing: list[str] | None = None) -> None:
    """Make every edge of this process lie in the way ``kind`` names (one of KINDS)."""
    if kind not in _LIES:
        raise ValueError(f"liar kind {kind!r} is not one of {', '.join(KINDS)}")
    if kind == "stuffer" and not stuffing:
        raise ValueError("the stuffer needs --stuffing FILE: the names to add to its summaries, one per line")
    probe, reply = _LIES[kind]
    EdgeRuntime.probe = probe  # type: ignore[method-assign]
    EdgeRuntime.outbound_for = reply  # type: ignore[method-assign]
    if kind == "stuffer" and stuffing:
        stuff_summaries(stuffing)


def main(argv: list[str]) -> int:
    """Serve the edges of a host spec, as simulation.edge_host does, with every reply lying as ``--kind`` says."""
    p = argparse.ArgumentParser(prog="python -m simulation.liar_host")
    p.add_argument("--kind", choices=KINDS, default="blunt")
    p.add_argument("--stuffing", type=Path, help="the stuffer's names, one per line")
    p.add_argument("spec", type=Path)
    p.add_argument("--port-file", type=Path)
    args = p.parse_args(argv)
    stuffing = args.stuffing.read_text(encoding="utf-8").split("\n") if args.stuffing else None
    try:
        lie(args.kind, [w.strip() for w in stuffing or () if w.strip()])
    except ValueError as exc:
        p.error(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    run_host(args.spec, args.port_file)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
