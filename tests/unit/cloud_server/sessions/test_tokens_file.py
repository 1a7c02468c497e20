"""The cloud's tokens file: roles, the first two-field format, comments, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloud_server.sessions.tokens import TokenBook
from shared.core.errors import ConfigError


def _book(tmp_path: Path, text: str | bytes) -> TokenBook:
    path = tmp_path / "tokens"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    path.chmod(0o600)
    return TokenBook.load(path)


def test_roles_are_read_and_two_field_lines_are_edges(tmp_path: Path) -> None:
    book = _book(
        tmp_path,
        "# role id token\nedge clinic-3 A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n"
        "app dash Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4  # the dashboard\n"
        "admin ops q1W2e3R4t5Y6u7I8o9P0a1S2d3F4g5H6\nlaptop-1 m1N2b3V4c5X6z7L8k9J0h1G2f3D4s5A6\n",
    )
    assert {i: c.role for i, c in book.credentials.items()} == {
        "clinic-3": "edge",
        "dash": "app",
        "ops": "admin",
        "laptop-1": "edge",
    }
    assert book.check("dash", "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4") is not None
    assert book.check("dash", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6") is None  # another id's token
    assert book.check("nobody", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6") is None


def test_a_hash_inside_a_token_is_part_of_it(tmp_path: Path) -> None:
    book = _book(tmp_path, "edge e1 abc#defghijklmnopqrstuvwxyz0123456\n")
    assert book.tokens["e1"] == "abc#defghijklmnopqrstuvwxyz0123456"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"edge e1 \xff\xfe" + b"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n", "not UTF-8"),
        ("root e1 A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n", "role 'root' is not one of edge, app, admin"),
        ("edge e1 short\n", "needs 32 or more random characters"),
        ("edge e1 " + "ab" * 20 + "\n", "(2 distinct)"),
        ("edge e1 A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\napp e1 Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4\n", "appears twice"),
        ("edge e/1 A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n", "may hold only"),
        ("edge e1 A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6 extra\n", "got 4 field(s)"),
        ("# nothing\n\n", "names nobody"),
    ],
)
def test_bad_tokens_files_say_which_line_and_what_to_do(tmp_path: Path, text: str | bytes, expected: str) -> None:
    with pytest.raises(ConfigError) as err:
        _book(tmp_path, text)
    assert expected in str(err.value) and str(tmp_path / "tokens") in str(err.value)
