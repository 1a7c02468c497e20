"""docs/results/reader-profile's table of the models measured at e49dae0 is what their committed rows give (the
profile chooser of benchmarks.reader_oracle over the fit half's rows), and the profiles stored with the packaged
models are the ones those rows choose. A changed digit fails."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks.reader_oracle import choose, speaker_accuracy
from shared.reading.reader_profile import ReaderProfile, measured_profile
from simulation.report_files import read_rows
from tests.support.paths import REPO

RESULTS = REPO / "docs" / "results" / "reader-profile"
MODELS = {  # README column -> rows
    "SmolLM2": "smollm2-135m",
    "Qwen 0.5B": "qwen2.5-coder-0.5b",
    "Qwen 1.5B": "qwen2.5-coder-1.5b",
}
PACKAGED = {"qwen2.5-coder-0.5b-instruct": "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b-instruct": "qwen2.5-coder-1.5b"}


def _rows(name: str) -> list[dict[str, object]]:
    return read_rows(RESULTS / "e49dae0" / f"{name}-fit-half.jsonl.gz")


def _table() -> dict[str, list[str]]:
    text = RESULTS.joinpath("README.md").read_text(encoding="utf-8").split("(commit e49dae0)", 1)[1]
    lines = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    cells = [[c.strip().strip("*") for c in line.strip().strip("|").split("|")] for line in lines]
    return {row[0]: row[1:] for row in cells}


@pytest.mark.parametrize("column", list(MODELS))
def test_each_models_column_is_what_its_rows_give(column: str) -> None:
    rows = _rows(MODELS[column])
    _, _, measured = choose(rows)
    table = _table()
    at = list(MODELS).index(column) + 1  # after n
    for shape, (model, extractive, base, n) in measured.items():
        cells = table[shape.replace("yes_no", "yes/no")]
        assert cells[0] == str(n) and cells[at] == f"{model:.1%}" and cells[5] == f"{base:.1%}"
        voted = shape in ("yes_no", "choice")  # the model-free composition votes the same samples there
        assert cells[4] == ("— (voted)" if voted else f"{extractive:.1%}")
    with_speakers, without = speaker_accuracy(rows)
    assert table["speakers first, where it changes the answer"][at] == f"{with_speakers:.1%} vs {without:.1%} without"


@pytest.mark.parametrize("packaged", list(PACKAGED))
def test_the_stored_profile_of_each_packaged_model_is_the_one_its_rows_choose(packaged: str) -> None:
    rows = _rows(PACKAGED[packaged])
    chosen, _, _ = choose(rows)
    with_speakers, without = speaker_accuracy(rows)
    expected = dataclasses.replace(ReaderProfile(), **chosen, speakers=with_speakers >= without)
    assert measured_profile(packaged) == expected
