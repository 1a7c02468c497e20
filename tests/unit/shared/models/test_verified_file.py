"""A model file is checked against its sha256 every time it is loaded, from the descriptor that was checked."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from shared.core.errors import ModelError
from shared.models import packaged
from shared.models.packaged import PackagedModel, packaged_expected, packaged_path
from shared.models.verified_file import Expected, create_new, open_verified

DATA = b"GGUF" + bytes(range(256)) * 40


def _expected(data: bytes = DATA) -> Expected:
    return Expected(hashlib.sha256(data).hexdigest(), len(data))


def test_the_file_checked_is_the_file_loaded(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(DATA)
    with open_verified(model, _expected()) as opened:
        os.replace(tmp_path / "m.gguf", tmp_path / "moved.gguf")  # the path changes under the loader
        (tmp_path / "m.gguf").write_bytes(b"GGUF" + b"\0" * (len(DATA) - 4))
        assert Path(opened.load_path).read_bytes() == DATA, "the descriptor hashed, not whatever the path holds now"


def test_a_same_size_file_planted_or_changed_in_place_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(DATA)
    with open_verified(model, _expected()):
        pass
    with model.open("r+b") as f:  # changed in place: same size, same name, same inode
        f.seek(100)
        f.write(b"\xff")
    with pytest.raises(ModelError, match="changed since it was checked"), open_verified(model, _expected()):
        pass


def test_a_symlink_is_refused_even_to_the_right_bytes(tmp_path: Path) -> None:
    real = tmp_path / "real.gguf"
    real.write_bytes(DATA)
    link = tmp_path / "m.gguf"
    link.symlink_to(real)
    with pytest.raises(ModelError, match="symbolic link"), open_verified(link, _expected()):
        pass


def test_a_cut_file_is_refused_by_its_size(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(DATA[:-1])
    with pytest.raises(ModelError, match="bytes, expected"), open_verified(model, _expected()):
        pass


def test_nothing_is_written_through_a_planted_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / "x.partial").symlink_to(target)
    with pytest.raises(ModelError, match="exists already"):
        create_new(tmp_path / "x.partial")
    assert target.read_text() == "keep"


def test_a_packaged_model_is_verified_by_the_digest_written_in_the_repository(tmp_path: Path, monkeypatch) -> None:
    model = PackagedModel("tiny", "tiny-gguf", "1.0", 1, len(DATA), hashlib.sha256(DATA).hexdigest(), "test")
    monkeypatch.setattr(packaged, "MODELS", (model,))
    path = tmp_path / model.filename
    path.write_bytes(b"GGUF" + b"\1" * (len(DATA) - 4))  # planted: the right name and size, other bytes
    assert packaged.is_fetched("tiny", tmp_path), "the cheap check (name, size) passes: only the digest tells"
    with (
        pytest.raises(ModelError, match="fetch it again"),
        open_verified(packaged_path("tiny", tmp_path), packaged_expected("tiny")),
    ):
        pass
