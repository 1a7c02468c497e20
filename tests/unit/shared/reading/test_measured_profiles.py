"""Each packaged model's measured data is one file beside the code: a missing file or section is no profile, a
broken one a clear error, and writing one section keeps the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.config import ModelConfig
from shared.core.errors import ConfigError
from shared.models.calibration_files import calibration_for, fitted
from shared.reading import model_data
from shared.reading.confidence import PRIOR, Calibration
from shared.reading.reader_profile import ReaderProfile, measured_profile


def test_the_cloud_models_profile_reads_its_shapes_from_the_data_file() -> None:
    qwen = measured_profile("qwen2.5-coder-1.5b-instruct")
    assert qwen == ReaderProfile(entity="model", date="model", number="model", speakers=False)
    assert measured_profile("qwen2.5-coder-0.5b-instruct") == ReaderProfile()


@pytest.mark.parametrize("name", ["", "no-such-model", "../reading/profiles/qwen2.5-coder-1.5b-instruct", ".hidden"])
def test_a_model_without_a_measured_profile_has_none(name: str) -> None:
    assert measured_profile(name) is None


def test_a_broken_profile_file_is_refused_saying_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken.json").write_text('{"readers": {"profile": {"entity": "model", "colour": "red"}}}')
    (tmp_path / "not-json.json").write_text("{")
    monkeypatch.setattr(model_data, "PROFILES", tmp_path)
    measured_profile.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"broken\.json: its readers section is not a reader profile"):
            measured_profile("broken")
        with pytest.raises(ConfigError, match=r"not-json\.json is not a model data file"):
            measured_profile("not-json")
    finally:
        measured_profile.cache_clear()


def test_the_cloud_models_file_holds_its_calibration_and_smollm2s_only_that() -> None:
    qwen = ModelConfig(packaged="qwen2.5-coder-1.5b-instruct")
    assert calibration_for("", qwen) == fitted("qwen2.5-coder-1.5b-instruct") != PRIOR
    assert measured_profile("smollm2-135m-instruct") is None and fitted("smollm2-135m-instruct") is not None
    assert fitted("qwen2.5-coder-0.5b-instruct") is None, "measured readers, no fitted calibration"


def test_writing_a_section_keeps_the_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_data, "PROFILES", tmp_path)
    model_data.write_section("m", "readers", {"profile": {"entity": "model"}})
    path = model_data.write_section("m", "confidence", Calibration(0.5, {"named": 1.0}, "test").as_dict())
    assert Calibration.load(path) == Calibration(0.5, {"named": 1.0}, "test")
    assert model_data.read_section("m", "readers") == {"profile": {"entity": "model"}}
