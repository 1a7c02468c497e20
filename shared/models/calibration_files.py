"""The confidence calibration of each model, kept as data beside the models (shared/models/calibrations/).

A calibration (shared.reading.confidence.Calibration) is fitted per model on the fit half of the dev questions by
``python -m benchmarks.fit_confidence`` and written as ``calibrations/<model>.confidence.json``. A config's
``calibration`` setting names a file of its own; empty, the file of the configured model is used, or the unfitted
prior where none was fitted.
"""

from __future__ import annotations

import functools
from pathlib import Path

from shared.config import ModelConfig
from shared.reading.confidence import PRIOR, Calibration

CALIBRATIONS = Path(__file__).resolve().parent / "calibrations"
BUNDLED_KEY = "smollm2-135m-instruct"
"""The bundled SLM's name among the calibrations."""


def model_key(config: ModelConfig) -> str:
    """The name a model's measured data is kept under: its packaged name, the bundled SLM's, or "" (another)."""
    if config.packaged_in_use:
        return config.packaged_in_use
    return BUNDLED_KEY if config.backend == "llama_cpp" and not config.model_path else ""


def calibration_path(key: str) -> Path:
    return CALIBRATIONS / f"{key}.confidence.json"


def calibration_for(setting: str, config: ModelConfig) -> Calibration:
    """The calibration ``setting`` names (a file), else the one fitted for ``config``'s model, else the prior."""
    if setting:
        return _load(Path(setting))
    key = model_key(config)
    path = calibration_path(key)
    return _load(path) if key and path.is_file() else PRIOR


@functools.lru_cache(maxsize=8)
def _load(path: Path) -> Calibration:
    return Calibration.load(path)
