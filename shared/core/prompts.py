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

ENTITY_EXTRACTION = """Text:
\"\"\"
{chunk}
\"\"\"

List the important named things in the text: people, organizations, places, events, products, dates,
amounts, key concepts. Copy each name exactly from the text, give its kind and one sentence about it
based on the text."""

RELATION_EXTRACTION = """Text:
\"\"\"
{chunk}
\"\"\"

Entities: {entities}.
List pairs of these entities that the text connects. For each pair write one sentence, based on the text,
saying how they are related, and one or two keywords."""

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
        "ENTITY_EXTRACTION": ENTITY_EXTRACTION,
        "RELATION_EXTRACTION": RELATION_EXTRACTION,
        "SUBGRAPH_SUMMARY": SUBGRAPH_SUMMARY,
        "ANSWER_PASSAGES": ANSWER_PASSAGES,
    }.items()
}
