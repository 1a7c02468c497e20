"""Scripted stand-ins for the language models in network benchmarks, where the LLM's time is excluded.

They answer instantly with plausibly-shaped output (typed candidate names, a summary naming the entities,
an answer quoting the first context line), so the benchmark measures transport, retrieval and indexing.
Never used by the product: deployments pick real backends in config.
"""

from __future__ import annotations

import json
import re

from shared.core.model_api import GenerationRequest
from shared.models.fakes import ScriptedGenerator

_ENTITY_LINE = re.compile(r"^- ([^(\n]+) \(", re.MULTILINE)
_FIRST_CONTEXT = re.compile(r"\[1\] ([^\n]{0,200})")


def script(request: GenerationRequest) -> str:
    schema = request.json_schema or {}
    properties = schema.get("properties", {})
    if "types" in properties:
        return json.dumps({"types": ["organization"] * int(properties["types"].get("minItems", 0))})
    if "because" in properties:
        return json.dumps({"answer": "yes", "because": "scripted"})
    if schema:
        return "{}"
    if "Question:" in request.prompt:
        match = _FIRST_CONTEXT.search(request.prompt)
        return match.group(1) if match else "Insufficient information."
    names = _ENTITY_LINE.findall(request.prompt)[:6]
    return "This knowledge is about " + ", ".join(n.strip() for n in names) + "."


def scripted_generator() -> ScriptedGenerator:
    return ScriptedGenerator(script)
