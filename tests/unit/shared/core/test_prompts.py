"""Each prompt template's fields must match exactly what its callers pass to ``.format()``."""

from __future__ import annotations

import ast

import pytest

from shared.core import prompts
from tests.support.paths import REPO

ROOT = REPO


def _caller_fields() -> dict[str, frozenset[str]]:
    """Keyword names passed to ``prompts.NAME.format(...)`` anywhere in the product code."""
    found: dict[str, set[str]] = {}
    for package in ("shared", "edge_node", "cloud_server", "simulation"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "format"
                    and isinstance(node.func.value, ast.Attribute)
                    and isinstance(node.func.value.value, ast.Name)
                    and node.func.value.value.id == "prompts"
                ):
                    found.setdefault(node.func.value.attr, set()).update(k.arg for k in node.keywords if k.arg)
    return {name: frozenset(fields) for name, fields in found.items()}


CALLER_FIELDS = _caller_fields()


def test_callers_were_found() -> None:
    assert {"ENTITY_CLASSIFICATION", "SUBGRAPH_SUMMARY"} <= set(CALLER_FIELDS)


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
