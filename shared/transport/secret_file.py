"""Files that hold a credential: written readable by their owner alone, and refused when anyone else could read
or change them (a token others can read is a token others hold)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from shared.core.errors import ConfigError


def write_secret(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with mode 0600: into a new file beside it (created exclusively, so a planted
    symlink is never followed), then renamed over ``path`` (a symlink there is replaced, not written through)."""
    replace_file(path, text.encode("utf-8"), 0o600)


def replace_file(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` with ``mode`` as :func:`write_secret` does: a new file beside it, renamed over
    ``path``, so a symlink planted there is replaced and its target left alone."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_secret(path: Path, what: str) -> str:
    """The text of ``path`` (``what`` names it in errors), refused when the file is not owned by this user or
    when its group or others may read or write it."""
    try:
        info = path.stat()
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"{what} {path} does not exist") from exc
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be read: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what} {path} is not UTF-8 text (byte {exc.start})") from exc
    if info.st_uid != os.geteuid():
        raise ConfigError(
            f"{what} {path} belongs to user id {info.st_uid}, not to this process's user ({os.geteuid()}); "
            f"chown it to the user that runs dgrag"
        )
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"{what} {path} has mode {stat.S_IMODE(info.st_mode):04o}: others may read it; run `chmod 600 {path}`"
        )
    return text


MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
"""The command that makes a token of 43 random characters (256 bits)."""
MIN_TOKEN_CHARS = 32
"""The shortest token accepted anywhere: guessing one of 32 random characters is out of reach."""
MIN_DISTINCT_CHARS = 12
"""A token of fewer distinct characters ("aaaa...", "abab...") is not random whatever its length."""
EXAMPLE_MARKS = ("insecure-demo-token", "replace-me")
"""What the public example tokens of docker/tokens.example hold: a token with one of them is refused."""


def refuse_example_token(token: str, where: str) -> None:
    """Refuse one of the repository's public example tokens (anyone who read the repository holds it)."""
    if any(mark in token for mark in EXAMPLE_MARKS):
        raise ConfigError(f"{where} holds a public example token (docker/tokens.example); make your own: {MAKE_TOKEN}")


def refuse_weak_token(token: str, where: str) -> None:
    """Refuse a token too short or too repetitive to be random, with the command that makes a strong one."""
    if len(token) < MIN_TOKEN_CHARS or len(set(token)) < MIN_DISTINCT_CHARS or any(c.isspace() for c in token):
        raise ConfigError(
            f"{where} holds a token of {len(token)} characters ({len(set(token))} distinct); a token needs "
            f"{MIN_TOKEN_CHARS} or more random characters and no spaces; make one with: {MAKE_TOKEN}"
        )
