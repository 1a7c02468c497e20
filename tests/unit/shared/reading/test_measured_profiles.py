"""Each packaged model's measured reader profile is a data file beside the code; a missing one is no profile, a
broken one a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.core.errors import ConfigError
from shared.reading import reader_profile
from shared.reading.reader_profile import ReaderProfile, measured_profile


def test_the_cloud_models_profile_reads_its_shapes_from_the_data_file() -> None:
    qwen = measured_profile("qwen2.5-coder-1.5b-instruct")
    assert qwen == ReaderProfile(
        entity="model", date="model", number="model", unreliable="yes_no,choice", speakers=False
    )
    assert measured_profile("qwen2.5-coder-0.5b-instruct") == ReaderProfile()


@pytest.mark.parametrize("name", ["", "no-such-model", "../reading/profiles/qwen2.5-coder-1.5b-instruct", ".hidden"])
def test_a_model_without_a_measured_profile_has_none(name: str) -> None:
    assert measured_profile(name) is None


def test_a_broken_profile_file_is_refused_saying_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken.readers.json").write_text('{"profile": {"entity": "model", "colour": "red"}}')
    monkeypatch.setattr(reader_profile, "PROFILES", tmp_path)
    measured_profile.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"broken\.readers\.json is not a reader profile"):
            measured_profile("broken")
    finally:
        measured_profile.cache_clear()
