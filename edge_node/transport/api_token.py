"""The edge API's token: a secret file in the edge's data directory that local apps read to call the edge.

The edge creates it (mode 0600, owner only) the first time it serves; whoever may read the edge's data
directory may use the edge, nobody else. ``server.token_file`` puts it elsewhere (e.g. a mounted secret).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from shared.core.errors import ConfigError
from shared.transport.secret_file import read_secret, refuse_weak_token

API_TOKEN_FILE = "api.token"
API_TOKEN_FILE_ENV = "DGRAG_EDGE_API_TOKEN_FILE"
"""Where clients (`dgrag edge ask`) find the token when not told with --token-file."""


def api_token_path(data_dir: Path, configured: str = "") -> Path:
    return Path(configured) if configured else data_dir / API_TOKEN_FILE


def ensure_api_token(path: Path) -> str:
    """The token in ``path``, created with a fresh random token (mode 0600) if the file does not exist."""
    if not path.exists():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process created it first: read theirs
        except OSError as exc:
            raise ConfigError(f"cannot create the edge API token file {path}: {exc}") from exc
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(secrets.token_urlsafe(32) + "\n")
    return read_api_token(path)


def read_api_token(path: Path) -> str:
    """The token in ``path``; a clear error when it is missing, unreadable or too short."""
    if not path.exists():
        raise ConfigError(
            f"edge API token file {path} does not exist; start the edge once (it creates it) or pass --token-file"
        )
    token = read_secret(path, "edge API token file").strip()
    refuse_weak_token(token, f"edge API token file {path}")
    return token
