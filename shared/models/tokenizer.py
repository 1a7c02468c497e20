"""Tokenizers used for chunking and token budgets.

The default counts the embedder's WordPiece tokens (``tokenizers`` reading the model's tokenizer.json),
so a chunk of at most 256 tokens is embedded whole by all-MiniLM-L6-v2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from shared.core.errors import ModelNotInstalledError
from shared.models.locate import bundled_embedder_path

Span = tuple[int, int]


class Tokenizer(Protocol):
    """Splits text into tokens with character offsets."""

    def spans(self, text: str) -> list[Span]:
        """Character (start, end) of every token of ``text``, in order."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...


class WordPieceTokenizer:
    """Fast tokenizer from a ``tokenizer.json`` (default: the bundled all-MiniLM-L6-v2)."""

    def __init__(self, tokenizer_json: Path | None = None) -> None:
        try:
            from tokenizers import Tokenizer as HfTokenizer
        except ImportError as exc:
            raise ModelNotInstalledError("chunking needs the tokenizers package; run: pip install tokenizers") from exc
        path = tokenizer_json or bundled_embedder_path() / "tokenizer.json"
        self._tok = HfTokenizer.from_file(str(path))
        self._tok.no_truncation()
        self._tok.no_padding()

    def spans(self, text: str) -> list[Span]:
        encoding = self._tok.encode(text, add_special_tokens=False)
        return [(s, e) for s, e in encoding.offsets]

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)
