"""The confidence calibration of the configured model.

A calibration (shared.reading.confidence.Calibration) is fitted per model on the fit half of the dev questions by
``python -m benchmarks.fit_confidence --write`` and kept in the ``confidence`` section of the model's data file
(shared.reading.model_data). A config's ``calibration`` setting names a file of its own; empty, the configured
model's is used, or the unfitted prior where none was fitted.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import get_args

from shared.config import ModelConfig
from shared.config.models import PackagedName
from shared.reading.confidence import PRIOR, Calibration
from shared.reading.model_data import model_file, read_section

BUNDLED_KEY = "smollm2-135m-instruct"
"""The bundled SLM's name among the model data files."""


def model_key(config: ModelConfig) -> str:
    """The name a model's measured data is kept under: its packaged name (for the openai backend, the packaged model
    the server serves), the bundled SLM's, or "" (another)."""
    if config.backend == "openai":
        return config.serves if config.serves in get_args(PackagedName) else ""
    if config.packaged_in_use:
        return config.packaged_in_use
    return BUNDLED_KEY if config.backend == "llama_cpp" and not config.model_path else ""


def calibration_for(setting: str, config: ModelConfig) -> Calibration:
    """The calibration ``setting`` names (a file), else the one fitted for ``config``'s model, else the prior."""
    if setting:
        return _load(Path(setting))
    return fitted(model_key(config)) or PRIOR


@functools.lru_cache(maxsize=8)
def fitted(key: str) -> Calibration | None:
    """The calibration fitted for the model ``key``, or None."""
    section = read_section(key, "confidence")
    return None if section is None else Calibration.from_mapping(section, f"{model_file(key)}: its confidence section")


@functools.lru_cache(maxsize=8)
def _load(path: Path) -> Calibration:
    return Calibration.load(path)
