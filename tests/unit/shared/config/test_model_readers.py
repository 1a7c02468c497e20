"""A packaged model reads with the profile measured for it unless the config sets readers of its own."""

from __future__ import annotations

from pathlib import Path

from shared.config import CloudConfig, EdgeConfig, load_config
from shared.reading.reader_profile import ReaderProfile, measured_profile

QWEN = "qwen2.5-coder-1.5b-instruct"


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_packaged_model_without_readers_of_its_own_gets_the_profile_measured_for_it(tmp_path: Path) -> None:
    measured = measured_profile(QWEN)
    assert measured != ReaderProfile(), "the packaged model's profile is its own, not SmolLM2's defaults"
    cloud = load_config(CloudConfig, _toml(tmp_path, f'[llm]\npackaged = "{QWEN}"\n'), environ={})
    edge = load_config(EdgeConfig, _toml(tmp_path, f'[slm]\npackaged = "{QWEN}"\n'), environ={})
    assert cloud.query.readers == measured and edge.answer.readers == measured


def test_readers_set_in_the_file_or_the_environment_win_and_other_models_keep_the_defaults(tmp_path: Path) -> None:
    text = f'[llm]\npackaged = "{QWEN}"\n[query.readers]\nopen = "extractive"\n'
    from_file = load_config(CloudConfig, _toml(tmp_path, text), environ={})
    assert from_file.query.readers == ReaderProfile(open="extractive")
    from_env = load_config(
        EdgeConfig, _toml(tmp_path, f'[slm]\npackaged = "{QWEN}"\n'), environ={"DGRAG__ANSWER__READERS__OPEN": "model"}
    )
    assert from_env.answer.readers == ReaderProfile(open="model")
    assert load_config(CloudConfig, None, environ={}).query.readers == measured_profile(QWEN), "the cloud's default"
    assert load_config(EdgeConfig, None, environ={}).answer.readers == ReaderProfile()
    openai = load_config(CloudConfig, _toml(tmp_path, '[llm]\nbackend = "openai"\n'), environ={})
    assert openai.query.readers == ReaderProfile(), "an endpoint's model is not the packaged one"
