"""Per-edge tokens: who may open a session or ask the cloud, read from a tokens file.

The file has one ``edge_id token`` pair per line; blank lines and ``#`` comments are ignored. A token
authenticates exactly one edge id, so an edge can only write its own summaries.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from pathlib import Path

from shared.errors import ConfigError

_EDGE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MIN_TOKEN_CHARS = 16


def valid_edge_id(edge_id: str) -> bool:
    """Edge ids are short and safe in file names and summary ids (letters, digits, ``._-``)."""
    return bool(_EDGE_ID.match(edge_id))


@dataclass(frozen=True)
class TokenBook:
    """Tokens by edge id."""

    tokens: dict[str, str]

    @classmethod
    def load(cls, path: Path) -> TokenBook:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"cannot read tokens file {path}: {exc}; set tokens_file to a readable file") from exc
        tokens: dict[str, str] = {}
        for number, raw in enumerate(lines, start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ConfigError(f"{path}:{number}: expected `edge_id token`, got {len(parts)} field(s)")
            edge_id, token = parts
            if not valid_edge_id(edge_id):
                raise ConfigError(f"{path}:{number}: edge id {edge_id!r} may hold only letters, digits and ._-")
            if len(token) < MIN_TOKEN_CHARS:
                raise ConfigError(f"{path}:{number}: the token of {edge_id!r} is shorter than {MIN_TOKEN_CHARS} chars")
            if edge_id in tokens:
                raise ConfigError(f"{path}:{number}: edge id {edge_id!r} appears twice")
            tokens[edge_id] = token
        if not tokens:
            raise ConfigError(f"tokens file {path} names no edge; add `edge_id token` lines")
        return cls(tokens)

    def check(self, edge_id: str, token: str) -> bool:
        expected = self.tokens.get(edge_id)
        return expected is not None and hmac.compare_digest(expected.encode(), token.encode())
