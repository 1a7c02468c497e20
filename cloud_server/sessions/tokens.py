"""Credentials and their roles, read from the cloud's tokens file.

One credential per line, ``role id token``, where the role is one of

- ``edge``: an edge node (opens its session, publishes its own summaries, answers retrieval requests,
  asks escalated questions and gets the cloud's answer with source ids, never other edges' text);
- ``app``: an application asking questions (GlobalQuery with the merged context, MatchSummaries);
- ``admin``: an operator (what an app may do, plus ListEdges).

A line of two fields, ``id token``, is an edge (the file's first format). ``#`` starts a comment at the start
of a line or after whitespace, so a ``#`` inside a token is part of it. Ids share one namespace: a token
authenticates exactly one id, so an edge can only write its own summaries.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from shared.core.errors import ConfigError
from shared.core.vocabulary import valid_edge_id
from shared.transport.secret_file import read_secret, refuse_example_token, refuse_weak_token

Role = Literal["edge", "app", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)


@dataclass(frozen=True)
class Credential:
    """Who a token authenticates, and as what."""

    id: str
    role: Role
    token: str


@dataclass(frozen=True)
class TokenBook:
    """Credentials by id."""

    credentials: dict[str, Credential]

    @property
    def tokens(self) -> dict[str, str]:
        return {i: c.token for i, c in self.credentials.items()}

    @classmethod
    def load(cls, path: Path) -> TokenBook:
        return cls.parse(read_secret(path, "tokens file"), path)

    @classmethod
    def parse(cls, text: str, path: Path) -> TokenBook:
        """The credentials of a tokens file's ``text`` (``path`` names it in errors)."""
        book: dict[str, Credential] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            credential = _parse_line(raw, f"{path}:{number}")
            if credential is None:
                continue
            if credential.id in book:
                raise ConfigError(f"{path}:{number}: id {credential.id!r} appears twice; ids must be unique")
            book[credential.id] = credential
        if not book:
            raise ConfigError(f"tokens file {path} names nobody; add `edge <id> <token>` lines")
        return cls(book)

    def check(self, caller_id: str, token: str) -> Credential | None:
        """The credential of ``caller_id`` if ``token`` is its token, else None."""
        credential = self.credentials.get(caller_id)
        if credential is not None and hmac.compare_digest(credential.token.encode(), token.encode()):
            return credential
        return None

    def role_of(self, caller_id: str) -> Role | None:
        credential = self.credentials.get(caller_id)
        return credential.role if credential else None


def _parse_line(raw: str, where: str) -> Credential | None:
    fields: list[str] = []
    for part in raw.split():
        if part.startswith("#"):
            break
        fields.append(part)
    if not fields:
        return None
    if len(fields) == 2:
        fields = ["edge", *fields]
    if len(fields) != 3:
        raise ConfigError(f"{where}: expected `role id token` (role: {', '.join(ROLES)}), got {len(fields)} field(s)")
    role, caller_id, token = fields
    if role not in ROLES:
        raise ConfigError(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
    if not valid_edge_id(caller_id):
        raise ConfigError(f"{where}: id {caller_id!r} may hold only letters, digits and ._-")
    refuse_example_token(token, where)
    refuse_weak_token(token, f"{where}: the token of {caller_id!r}")
    return Credential(caller_id, role, token)
