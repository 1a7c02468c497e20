"""How much text a reader may make of one file: a small file may unpack to far more (a zip, merged cells, a header
every row repeats), so each reader counts what it produces and stops at the budget."""

from __future__ import annotations

from shared.core.errors import InputDocumentError


def over_budget(name: str, max_chars: int) -> InputDocumentError:
    """The refusal of a file whose text would exceed ``max_chars``."""
    return InputDocumentError(name, f"expands to over {max_chars:,} characters of text; split it")


class TextBudget:
    """Characters a reader may still produce for ``name``; past ``max_chars`` the file is refused."""

    def __init__(self, name: str, max_chars: int) -> None:
        self._name = name
        self._max = max_chars
        self._left = max_chars

    def take(self, text: str) -> str:
        """``text``, counted (with its line break) against the budget."""
        self._left -= len(text) + 1
        if self._left < 0:
            raise over_budget(self._name, self._max)
        return text
