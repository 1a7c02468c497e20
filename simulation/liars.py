"""Launching the simulation's dishonest participants (``--liar EDGE --liar-kind KIND``): the command of their host
process, and what the ``stuffer`` adds to its summaries: the names the other edges' documents mention most.

An attacker who wants every question routed to it does not know the questions, but can read the public news of
every topic; the names it would pick are those the other edges' documents name most often. Names are words
with a capital letter inside a sentence (not its first word), counted over every document of every other edge.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from simulation.indexing import docs_by_edge

LIAR_COMMAND = [sys.executable, "-m", "simulation.liar_host"]
LIAR_KINDS = ("blunt", "smart", "echo", "refuser", "stuffer")
"""simulation.liar_host.KINDS (not imported: that module patches the edge runtime when asked to)."""
STUFFING_NAMES = 60
_INNER_NAME = re.compile(r"(?<=[a-z0-9,;] )[A-Z][\w'-]{2,}")


def stuffing_names(
    docs: Mapping[str, Sequence[Mapping[str, object]]], liars: Collection[str], n: int = STUFFING_NAMES
) -> list[str]:
    """The ``n`` names the documents of the edges not in ``liars`` mention most (ties: first seen)."""
    counts: Counter[str] = Counter()
    for edge_id, rows in docs.items():
        if edge_id not in liars:
            for row in rows:
                counts.update(_INNER_NAME.findall(f"{row.get('title', '')}. {row.get('text', '')}"))
    return [name for name, _ in counts.most_common(n)]


def write_stuffing(path: Path, names: Sequence[str]) -> Path:
    path.write_text("".join(f"{name}\n" for name in names), encoding="utf-8")
    return path


def liar_command(work: Path, kind: str, bench: Path, liars: Collection[str]) -> list[str]:
    """``simulation.liar_host`` lying as ``kind`` says (the stuffer with its names written into ``work``)."""
    command = [*LIAR_COMMAND, "--kind", kind]
    if kind == "stuffer":
        names = stuffing_names(docs_by_edge(bench / "docs.jsonl"), liars)
        command += ["--stuffing", str(write_stuffing(work / "stuffing.txt", names))]
    return command
