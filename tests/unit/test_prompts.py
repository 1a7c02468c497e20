"""Each prompt template's fields must match exactly what its callers pass to ``.format()``."""

from __future__ import annotations

import pytest

from shared import prompts

# What the callers pass: edge_node/extraction.py (ENTITY_EXTRACTION, RELATION_EXTRACTION) and
# edge_node/summaries.py (SUBGRAPH_SUMMARY). Update both sides together.
CALLER_FIELDS: dict[str, frozenset[str]] = {
    "ENTITY_EXTRACTION": frozenset({"chunk", "hints"}),
    "RELATION_EXTRACTION": frozenset({"chunk", "entities"}),
    "SUBGRAPH_SUMMARY": frozenset({"subgraph"}),
}


def test_every_template_is_listed() -> None:
    assert set(prompts.TEMPLATE_FIELDS) == set(CALLER_FIELDS)


@pytest.mark.parametrize("name", sorted(CALLER_FIELDS))
def test_template_fields_match_callers(name: str) -> None:
    assert prompts.TEMPLATE_FIELDS[name] == CALLER_FIELDS[name]


@pytest.mark.parametrize("name", sorted(CALLER_FIELDS))
def test_template_formats_with_exactly_the_caller_kwargs(name: str) -> None:
    template: str = getattr(prompts, name)
    values = {field: f"<<{field.upper()}>>" for field in CALLER_FIELDS[name]}
    text = template.format(**values)
    for value in values.values():
        assert value in text
    # No field left unfilled and no stray braces (a brace meant literally would need doubling).
    assert "{" not in text and "}" not in text


@pytest.mark.parametrize("name", sorted(CALLER_FIELDS))
def test_template_fails_when_a_caller_field_is_missing(name: str) -> None:
    template: str = getattr(prompts, name)
    for missing in CALLER_FIELDS[name]:
        values = {field: "x" for field in CALLER_FIELDS[name] if field != missing}
        with pytest.raises(KeyError, match=missing):
            template.format(**values)


def test_format_fields_use_plain_names() -> None:
    # Attribute or index access ({chunk.text}, {x[0]}) would not be caught by the field-name check.
    for name in CALLER_FIELDS:
        for field in prompts.TEMPLATE_FIELDS[name]:
            assert field.isidentifier(), f"{name} has a non-plain field {field!r}"


def test_entity_types_are_unique() -> None:
    assert len(set(prompts.ENTITY_TYPES)) == len(prompts.ENTITY_TYPES)
    assert "person" in prompts.ENTITY_TYPES and "date" in prompts.ENTITY_TYPES
