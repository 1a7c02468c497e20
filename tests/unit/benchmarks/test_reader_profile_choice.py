"""A model's reader profile chosen from fit-half rows: the better reader per shape, shapes no reader reads above
the baseline marked unreliable, and the speaker reader kept only where it does not make the model's reading worse."""

from __future__ import annotations

from typing import Any

from benchmarks.reader_oracle import NO_SPEAKERS, profile_toml
from simulation.halves import Half

QUESTIONS = {
    "entity": "Which company did both articles name?",
    "yes_no": "Did both articles report the same result?",
    "open": "What does Adam Smith suggest Li Hua use to hang artwork?",
}


def _row(shape: str, gold: str, model: str, extractive: str, no_speakers: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"shape": shape, "question": QUESTIONS[shape], "gold": gold, "half": Half.FIT}
    for name, short in (("model", model), ("extractive", extractive), (NO_SPEAKERS, no_speakers or model)):
        row[name], row[f"{name}_short"] = f"{short}.", short
    return row


def test_the_profile_takes_the_better_reader_and_flags_shapes_below_their_baseline() -> None:
    rows = [
        _row("entity", "Amazon", "Google", "Amazon"),
        _row("entity", "Apple", "Apple", "Apple"),
        _row("yes_no", "Yes", "No", "Yes"),
        _row("yes_no", "Yes", "No", "No"),
        _row("open", "removable hooks", "use removable hooks", "walls"),
        _row("open", "a community planting day", "a community planting day", "flowers"),
    ]
    toml = profile_toml(rows)
    assert 'entity = "extractive"' in toml and 'open = "model"' in toml
    assert "baseline: yes_no" in toml, "a yes/no reader at 50% against always 'yes' at 100% is named"


def test_speakers_stay_on_only_where_the_speaker_reader_is_no_worse() -> None:
    helped = [_row("open", "removable hooks", "removable hooks", "x", no_speakers="walls")]
    hurt = [_row("open", "removable hooks", "walls", "x", no_speakers="removable hooks")]
    assert "speakers = true  # 100.0% with / 0.0% without" in profile_toml(helped)
    assert "speakers = false  # 0.0% with / 100.0% without" in profile_toml(hurt)
