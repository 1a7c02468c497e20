"""Subgraph summaries: render each community as text, summarise it with the SLM, keep ids stable.

A community inherits the id of the previous subgraph it overlaps most (Jaccard over entity keys);
its fingerprint is a hash of its rendered text, so an unchanged subgraph is not re-summarised and not
re-published. Vanished subgraphs become tombstones. Versions only grow.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from edge_node.ingest.merge_policy import DESCRIPTION_SEPARATOR
from edge_node.store.records import EntityRow, RelationRow, SubgraphRecord
from shared.config import SummaryConfig
from shared.core import prompts
from shared.core.model_api import GenerationRequest, TextGenerator
from shared.core.text import clean_text, truncate_chars

MIN_OVERLAP = 0.3
"""Least Jaccard overlap for a new community to inherit an old subgraph's id."""

Progress = Callable[[int], None]


@dataclass(frozen=True)
class RenderedSubgraph:
    """A community ready to summarise."""

    members: tuple[str, ...]
    text: str
    fingerprint: str
    top_entities: tuple[str, ...]
    n_entities: int
    n_relations: int


def render(
    members: Sequence[int],
    entities: dict[int, EntityRow],
    relations: Sequence[RelationRow],
    config: SummaryConfig,
) -> RenderedSubgraph:
    """Plain-text view of a community: its entities and relations, most connected first, within budget."""
    inside = set(members)
    rels = [r for r in relations if r.src_id in inside and r.tgt_id in inside]
    degree: dict[int, float] = defaultdict(float)
    for r in rels:
        degree[r.src_id] += r.weight
        degree[r.tgt_id] += r.weight
    ranked = sorted(inside, key=lambda e: (-degree[e], entities[e].key))
    lines = ["Entities:"]
    lines += [
        f"- {entities[e].name} ({entities[e].type}): {truncate_chars(entities[e].description, 120)}" for e in ranked
    ]
    if rels:
        lines.append("Relations:")
        rels.sort(key=lambda r: (-r.weight, r.id))
        lines += [
            f"- {entities[r.src_id].name} — {entities[r.tgt_id].name}: {truncate_chars(r.description, 120)}"
            for r in rels
        ]
    text = truncate_chars("\n".join(lines), config.render_chars)
    keys = tuple(sorted(entities[e].key for e in inside))
    full = "\n".join(lines)  # fingerprint the whole content, not the budget-cut view
    return RenderedSubgraph(
        members=keys,
        text=text,
        fingerprint=hashlib.sha256(full.encode()).hexdigest()[:16],
        top_entities=tuple(entities[e].name for e in ranked[: config.top_entities]),
        n_entities=len(inside),
        n_relations=len(rels),
    )


def summarise(generator: TextGenerator, sub: RenderedSubgraph, config: SummaryConfig) -> str:
    """The SLM's summary of ``sub``; a model-free one when the SLM's output is unusable."""
    request = GenerationRequest(
        prompt=prompts.SUBGRAPH_SUMMARY.format(subgraph=sub.text),
        system=prompts.SUMMARY_SYSTEM,
        max_tokens=config.max_tokens,
        temperature=0.0,
    )
    text = clean_text(generator.generate(request).texts[0])
    body = text if usable(text, sub.text) else fallback_summary(sub)
    # The entity names are grounded whatever the model wrote; the cloud routes on them too.
    return f"{body} Key entities: {', '.join(sub.top_entities)}."


def fallback_summary(sub: RenderedSubgraph) -> str:
    """A model-free summary: the first relation facts of the subgraph, or its first entity descriptions."""
    facts = [line[2:].split(": ", 1)[-1] for line in sub.text.splitlines() if line.startswith("- ")]
    seen: list[str] = []
    for fact in facts:
        fact = truncate_chars(fact.split(DESCRIPTION_SEPARATOR)[0], 160)
        if fact not in seen:
            seen.append(fact)
        if len(seen) == 2:
            break
    return clean_text(" ".join(seen))


_WORD = re.compile(r"[a-z0-9]+")
_CONTENT = re.compile(r"[a-z0-9]{4,}")
MIN_DISTINCT_WORDS = 0.5
MIN_GROUNDED_WORDS = 0.6


def usable(summary: str, source: str) -> bool:
    """A summary is kept when it is not a repetition loop and most of its content words are in the source."""
    words = _WORD.findall(summary.casefold())
    if len(words) < 5 or len(set(words)) / len(words) < MIN_DISTINCT_WORDS:
        return False
    content = set(_CONTENT.findall(summary.casefold())) - _SUMMARY_FRAME
    if not content:
        return False
    known = set(_CONTENT.findall(source.casefold()))
    return len(content & known) / len(content) >= MIN_GROUNDED_WORDS


_SUMMARY_FRAME = {
    "this",
    "knowledge",
    "about",
    "these",
    "that",
    "with",
    "which",
    "their",
    "also",
    "includes",
    "including",
    "specifically",
    "highlights",
    "main",
    "topics",
    "discusses",
    "describes",
    "focuses",
}


@dataclass(frozen=True)
class SummaryPlan:
    """What a refresh will write: new/changed subgraphs (to summarise) and tombstones."""

    keep: tuple[SubgraphRecord, ...]
    changed: tuple[tuple[str, int, RenderedSubgraph], ...]
    deleted: tuple[tuple[str, int], ...]


def plan(
    edge_id: str,
    rendered: Sequence[RenderedSubgraph],
    previous: Sequence[SubgraphRecord],
    last_version: Callable[[str], int],
) -> SummaryPlan:
    """Match communities to previous subgraphs (greedy by Jaccard), decide ids, versions and tombstones."""
    pairs: list[tuple[float, int, str]] = []
    old_sets = {p.id: set(p.members) for p in previous}
    for i, sub in enumerate(rendered):
        mine = set(sub.members)
        for pid, theirs in old_sets.items():
            inter = len(mine & theirs)
            if inter:
                jac = inter / len(mine | theirs)
                if jac >= MIN_OVERLAP:
                    pairs.append((jac, i, pid))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    assigned: dict[int, str] = {}
    used: set[str] = set()
    for _, i, pid in pairs:
        if i not in assigned and pid not in used:
            assigned[i] = pid
            used.add(pid)
    by_id = {p.id: p for p in previous}
    keep: list[SubgraphRecord] = []
    changed: list[tuple[str, int, RenderedSubgraph]] = []
    taken = set(by_id)
    for i, sub in enumerate(rendered):
        matched = assigned.get(i)
        if matched is not None and by_id[matched].fingerprint == sub.fingerprint:
            keep.append(by_id[matched])
            continue
        sid = matched if matched is not None else _new_id(edge_id, sub.members, taken)
        taken.add(sid)
        changed.append((sid, max(last_version(sid), by_id[sid].version if sid in by_id else 0) + 1, sub))
    deleted = tuple((p.id, max(last_version(p.id), p.version) + 1) for p in previous if p.id not in used)
    return SummaryPlan(tuple(keep), tuple(changed), deleted)


def _new_id(edge_id: str, members: Sequence[str], taken: set[str]) -> str:
    seed = edge_id + "\x00" + "\x00".join(members)
    salt = 0
    while True:
        sid = f"{edge_id}/sg-{hashlib.sha256(f'{seed}{salt}'.encode()).hexdigest()[:12]}"
        if sid not in taken:
            return sid
        salt += 1
