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
        "# role id token\nedge clinic-3 aaaaaaaaaaaaaaaaaaaa\napp dash bbbbbbbbbbbbbbbbbbbb  # the dashboard\n"
        "admin ops cccccccccccccccccccc\nlaptop-1 dddddddddddddddddddd\n",
    )
    assert {i: c.role for i, c in book.credentials.items()} == {
        "clinic-3": "edge",
        "dash": "app",
        "ops": "admin",
        "laptop-1": "edge",
    }
    assert book.check("dash", "bbbbbbbbbbbbbbbbbbbb") is not None
    assert book.check("dash", "aaaaaaaaaaaaaaaaaaaa") is None  # another id's token
    assert book.check("nobody", "aaaaaaaaaaaaaaaaaaaa") is None


def test_a_hash_inside_a_token_is_part_of_it(tmp_path: Path) -> None:
    book = _book(tmp_path, "edge e1 abc#defghijklmnopqrstu\n")
    assert book.tokens["e1"] == "abc#defghijklmnopqrstu"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"edge e1 \xff\xfeaaaaaaaaaaaaaaaaaa\n", "not UTF-8"),
        ("root e1 aaaaaaaaaaaaaaaaaaaa\n", "role 'root' is not one of edge, app, admin"),
        ("edge e1 short\n", "shorter than 16"),
        ("edge e1 aaaaaaaaaaaaaaaaaaaa\napp e1 bbbbbbbbbbbbbbbbbbbb\n", "appears twice"),
        ("edge e/1 aaaaaaaaaaaaaaaaaaaa\n", "may hold only"),
        ("edge e1 aaaaaaaaaaaaaaaaaaaa extra\n", "got 4 field(s)"),
        ("# nothing\n\n", "names nobody"),
    ],
)
def test_bad_tokens_files_say_which_line_and_what_to_do(tmp_path: Path, text: str | bytes, expected: str) -> None:
    with pytest.raises(ConfigError) as err:
        _book(tmp_path, text)
    assert expected in str(err.value) and str(tmp_path / "tokens") in str(err.value)
