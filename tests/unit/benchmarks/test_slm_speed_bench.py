"""benchmarks.slm_speed's model-free parts: which file a format reads, the throughput count, bad arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import slm_speed
from benchmarks.slm_speed import _rate, convert


def test_the_bundled_q4_1_file_is_read_as_shipped(tmp_path: Path) -> None:
    source = tmp_path / "model-Q4_1.gguf"
    assert convert(source, "q4_1", tmp_path / "out") == source


def test_only_operations_finished_inside_the_window_count() -> None:
    operations = [[9.0, 100.0], [10.5, 560.0], [12.0, 560.0], [13.0, 560.0]]
    assert _rate(operations, begin=10.0, seconds=2.0) == 1120.0 / 2.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--formats", "q4_1,q3_k"], "unknown format(s) ['q3_k']"), (["--concurrent", "0,2"], "give process counts")],
)
def test_bad_arguments_are_refused_before_any_model_loads(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_model() -> Path:
        raise AssertionError("a model was located")

    monkeypatch.setattr(slm_speed, "bundled_slm_path", no_model)
    assert slm_speed.main(argv) == 2
    assert message in capsys.readouterr().err
