"""Entity and relation extraction from one chunk: a small schema-constrained SLM task plus model-free backups.

Model-free candidate names (capitalised spans, dates, amounts) are listed, numbered, and the SLM answers one
type per name, or ``none`` to reject it; the answer is a fixed-length enum array, a few dozen tokens (a task
a ~100M SLM can do).

The extractor remembers the type (or rejection) of every name it has had typed: a chunk whose names are all
known costs no SLM call, and a name keeps one type on the edge (so it stays one node of the graph). The
prompt always lists every candidate of the chunk, so it does not depend on what came before.

When fewer than ``min_entities`` survive, candidates fill up; entities are described by their sentence;
every pair of entities sharing a sentence gets a co-occurrence relation whose description is that sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from edge_node.store.records import ExtractedEntity, ExtractedRelation
from shared.config import ExtractionConfig
from shared.core import prompts
from shared.core.candidates import find_candidates
from shared.core.model_api import GenerationRequest, TextGenerator
from shared.core.text import clean_text, first_json_value, normalise_name, occurs_in, sentences, truncate_chars

ORIGIN_SLM = "slm"
ORIGIN_HEURISTIC = "heuristic"
ORIGIN_COOCCURRENCE = "cooccurrence"
REJECT = "none"
MAX_ENTITIES_PER_SENTENCE = 6


@dataclass
class ExtractionStats:
    """What happened during one chunk's extraction."""

    slm_entities_kept: int = 0
    heuristic_entities: int = 0
    cooccurrence_relations: int = 0
    reused_types: int = 0
    """Names typed from the edge's memory of earlier answers, without an SLM call."""


@dataclass(frozen=True)
class ChunkExtraction:
    """Entities and relations of one chunk."""

    entities: tuple[ExtractedEntity, ...]
    relations: tuple[ExtractedRelation, ...]
    stats: ExtractionStats = field(default_factory=ExtractionStats)


def classify_schema(n_names: int) -> dict[str, Any]:
    """One type (or ``none``) per numbered candidate name, in order."""
    kind = {"enum": [*prompts.ENTITY_TYPES, REJECT]}
    return {
        "type": "object",
        "properties": {"types": {"type": "array", "items": kind, "minItems": n_names, "maxItems": n_names}},
        "required": ["types"],
    }


class Extractor:
    """Extracts a chunk's entities and relations with an injected generator."""

    def __init__(
        self,
        generator: TextGenerator,
        config: ExtractionConfig,
        known_types: dict[str, str] | None = None,
        remember: Callable[[list[tuple[str, str]]], None] | None = None,
    ) -> None:
        self._generator = generator
        self._config = config
        # normalised name -> entity type, or REJECT: what the SLM said before (the store keeps it via remember).
        self._known: dict[str, str] = dict(known_types or {}) if config.reuse_types else {}
        self._remember = remember

    def extract(self, chunk: str) -> ChunkExtraction:
        cfg = self._config
        stats = ExtractionStats()
        candidates = find_candidates(chunk, limit=cfg.max_candidates)
        # Dates and amounts are typed by the pattern that found them; the SLM types the names.
        entities = [
            ExtractedEntity(c.name, c.kind, _sentence_with(chunk, [c.name]), ORIGIN_HEURISTIC)
            for c in candidates
            if c.kind in prompts.ENTITY_TYPES
        ]
        stats.heuristic_entities += len(entities)
        names = [c.name for c in candidates if c.kind not in prompts.ENTITY_TYPES]
        typed, rejected = self._classify_candidates(chunk, names, stats)
        entities = (typed + entities)[: cfg.max_entities]
        if len(entities) < cfg.min_entities:
            seen = {normalise_name(e.name) for e in entities}
            # Fill up with candidates the SLM did not reject first, then the rejected ones.
            for cand in sorted(candidates, key=lambda c: normalise_name(c.name) in rejected):
                if len(entities) >= max(cfg.min_entities, 1) and normalise_name(cand.name) in rejected:
                    break
                if len(entities) >= cfg.max_entities:
                    break
                key = normalise_name(cand.name)
                if key in seen:
                    continue
                seen.add(key)
                kind = cand.kind if cand.kind in prompts.ENTITY_TYPES else "concept"
                entities.append(ExtractedEntity(cand.name, kind, _sentence_with(chunk, [cand.name]), ORIGIN_HEURISTIC))
                stats.heuristic_entities += 1
        relations = self._cooccurrences(chunk, entities, stats)
        return ChunkExtraction(tuple(entities), tuple(relations), stats)

    def _ask(self, prompt: str, schema: dict[str, Any], max_tokens: int) -> dict[str, Any]:
        request = GenerationRequest(
            prompt=prompt, system=prompts.EXTRACTION_SYSTEM, json_schema=schema, max_tokens=max_tokens, temperature=0.0
        )
        return _parse_json(self._generator.generate(request).texts[0]) or {}

    def _classify_candidates(
        self, chunk: str, names: list[str], stats: ExtractionStats
    ) -> tuple[list[ExtractedEntity], set[str]]:
        """Entities the SLM typed, and the normalised names it rejected."""
        if not names:
            return [], set()
        keys = [normalise_name(name) for name in names]
        if not self._config.reuse_types or any(key not in self._known for key in keys):
            numbered = "\n".join(f"{i + 1}. {name}" for i, name in enumerate(names))
            prompt = prompts.ENTITY_CLASSIFICATION.format(chunk=chunk, names=numbered, count=len(names))
            data = self._ask(prompt, classify_schema(len(names)), 8 * len(names) + 16)
            types = data.get("types")
            if not isinstance(types, list) or len(types) != len(names):
                return [], set()
            resolved = [etype if etype in prompts.ENTITY_TYPES else REJECT for etype in types]
            if self._config.reuse_types:
                # A name typed before keeps its first type; new names are remembered.
                learned: list[tuple[str, str]] = []
                for key, etype in zip(keys, resolved, strict=True):
                    if key not in self._known:
                        self._known[key] = etype
                        learned.append((key, etype))
                if learned and self._remember is not None:
                    self._remember(learned)
                resolved = [self._known[key] for key in keys]
        else:
            stats.reused_types += len(names)
            resolved = [self._known[key] for key in keys]
        out: list[ExtractedEntity] = []
        rejected: set[str] = set()
        for name, key, etype in zip(names, keys, resolved, strict=True):
            if etype == REJECT:
                rejected.add(key)
                continue
            if len(out) < self._config.max_entities:
                out.append(ExtractedEntity(name, etype, _sentence_with(chunk, [name]), ORIGIN_SLM))
        stats.slm_entities_kept = len(out)
        return out, rejected

    def _cooccurrences(
        self, chunk: str, entities: list[ExtractedEntity], stats: ExtractionStats
    ) -> list[ExtractedRelation]:
        linked: set[frozenset[str]] = set()
        out: list[ExtractedRelation] = []
        for sentence in sentences(chunk):
            present = [e.name for e in entities if occurs_in(e.name, sentence)][:MAX_ENTITIES_PER_SENTENCE]
            for i, a in enumerate(present):
                for b in present[i + 1 :]:
                    pair = frozenset((normalise_name(a), normalise_name(b)))
                    if len(pair) != 2 or pair in linked:
                        continue
                    linked.add(pair)
                    description = truncate_chars(clean_text(sentence), self._config.max_description_chars)
                    out.append(ExtractedRelation(a, b, description, "", 0.5, ORIGIN_COOCCURRENCE))
        stats.cooccurrence_relations = len(out)
        return out


def _parse_json(text: str) -> dict[str, Any] | None:
    for candidate in (text, first_json_value(text)):
        if not candidate:
            continue
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _sentence_with(chunk: str, names: list[str]) -> str:
    """The first sentence of ``chunk`` mentioning all ``names`` (else any of them), whitespace collapsed."""
    all_sentences = sentences(chunk)
    for want_all in (True, False):
        for sentence in all_sentences:
            hits = [occurs_in(n, sentence) for n in names]
            if all(hits) if want_all else any(hits):
                return clean_text(sentence)
    return clean_text(all_sentences[0]) if all_sentences else ""
