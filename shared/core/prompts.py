"""Every prompt dgrag sends to a model, as named templates with named fields.

Prompts are short and ask for one small, schema-constrained task: a 135M model can do that, and a
stronger model configured instead does it better. ``TEMPLATE_FIELDS`` lets a test check that each
template's fields match what its callers pass.
"""

from __future__ import annotations

from string import Formatter

ENTITY_TYPES = ("person", "organization", "location", "event", "product", "date", "quantity", "concept")

EXTRACTION_SYSTEM = "You extract facts from text. Reply with JSON only."

ENTITY_CLASSIFICATION = """Text:
\"\"\"
{chunk}
\"\"\"

Names found in the text:
{names}

For each of the {count} names, in order, say what kind of thing it is in this text:
person, organization, location, event, product, date, quantity or concept.
Say none if it is not a real name of something."""

SUMMARY_SYSTEM = "You write short, factual summaries of knowledge."

SUBGRAPH_SUMMARY = """Knowledge:
{subgraph}

Summarize in two or three sentences what this knowledge is about, naming the main people, organizations,
places and topics."""

ANSWER_PASSAGES = """Context:
{passages}

Question: {question}
Answer with the short answer only."""


TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    name: frozenset(f for _, f, _, _ in Formatter().parse(template) if f)
    for name, template in {
        "ENTITY_CLASSIFICATION": ENTITY_CLASSIFICATION,
        "SUBGRAPH_SUMMARY": SUBGRAPH_SUMMARY,
        "ANSWER_PASSAGES": ANSWER_PASSAGES,
    }.items()
}
