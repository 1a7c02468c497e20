"""The extractor remembers the types the SLM gave names, so repeated names cost no SLM call."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from edge_node.ingest.extraction import ORIGIN_SLM, REJECT, Extractor
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared.config import ExtractionConfig
from shared.core.model_api import GenerationRequest
from simulation.fakes import ScriptedGenerator


def _types(request: GenerationRequest) -> str:
    # One type per listed name: "organization" for the first, "person" for the rest.
    count = sum(1 for line in request.prompt.splitlines() if line[:1].isdigit() and ". " in line)
    return json.dumps({"types": ["organization"] + ["person"] * (count - 1)})


def test_a_chunk_of_known_names_costs_no_slm_call_and_keeps_their_types() -> None:
    gen = ScriptedGenerator(_types)
    extractor = Extractor(gen, ExtractionConfig())
    first = extractor.extract("Acme Corp hired Maria Lopez in Berlin last spring.")
    calls = len(gen.requests)
    again = extractor.extract("Later, Maria Lopez left Acme Corp.")
    assert calls == 1
    assert len(gen.requests) == calls  # every name was known
    assert {e.name: e.type for e in again.entities} == {
        e.name: e.type for e in first.entities if e.name in {x.name for x in again.entities}
    }
    assert again.stats.reused_types > 0


def test_a_new_name_asks_the_slm_with_every_name_of_the_chunk_and_old_names_keep_their_type() -> None:
    gen = ScriptedGenerator(_types)
    extractor = Extractor(gen, ExtractionConfig())
    extractor.extract("Acme Corp hired Maria Lopez.")
    second = extractor.extract("Maria Lopez met John Smith at Acme Corp.")
    assert len(gen.requests) == 2
    prompt = gen.requests[1].prompt
    assert "Maria Lopez" in prompt and "John Smith" in prompt  # the prompt does not depend on what was known
    types = {e.name: e.type for e in second.entities}
    assert types["Acme Corp"] == "organization"  # first type kept although the SLM now said person
    assert types["Maria Lopez"] == "person"


def test_types_seeded_from_the_store_are_reused_and_reuse_can_be_switched_off() -> None:
    gen = ScriptedGenerator(_types)
    seeded = Extractor(gen, ExtractionConfig(), {"acme corp": "organization", "maria lopez": "person"})
    seeded.extract("Acme Corp hired Maria Lopez.")
    assert gen.requests == []
    off = Extractor(gen, dataclasses.replace(ExtractionConfig(), reuse_types=False), {"acme corp": "organization"})
    off.extract("Acme Corp hired Maria Lopez.")
    off.extract("Acme Corp hired Maria Lopez.")
    assert len(gen.requests) == 2


def _organization_then_none(request: GenerationRequest) -> str:
    count = sum(1 for line in request.prompt.splitlines() if line[:1].isdigit() and ". " in line)
    return json.dumps({"types": ["organization"] + ["none"] * (count - 1)})


def test_the_store_keeps_the_slm_types_and_rejections_for_the_next_process(tmp_path: Path) -> None:
    with EdgeKnowledgeBase(tmp_path) as kb:
        first = Extractor(
            ScriptedGenerator(_organization_then_none),
            ExtractionConfig(),
            kb.store.name_types(),
            kb.store.remember_name_types,
        )
        first.extract("Acme Corp hired Maria Lopez.")
    with EdgeKnowledgeBase(tmp_path) as kb:  # a later ingest process
        assert kb.store.name_types() == {"acme corp": "organization", "maria lopez": REJECT}
        gen = ScriptedGenerator(_types)  # would now call Maria Lopez a person
        later = Extractor(gen, ExtractionConfig(), kb.store.name_types(), kb.store.remember_name_types)
        out = later.extract("Maria Lopez praised Acme Corp.")
    assert gen.requests == []
    typed_by_slm = {e.name: e.type for e in out.entities if e.origin == ORIGIN_SLM}
    assert typed_by_slm == {"Acme Corp": "organization"}  # the rejection held, as in one process
