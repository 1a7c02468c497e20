"""Choose a model's reader profile from reader_oracle rows of the fit half: per question shape the reader (the
model's samples or the model-free one) with the higher strict accuracy, and the shapes where neither beat the
shape's baseline (always its most frequent gold) named in a comment, and ``speakers`` kept on only where the
model's reading with the speaker reader first is at least as good as without it."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from shared.reading.reader_profile import SHAPES, ReaderProfile
from simulation.halves import Half
from simulation.scoring import shape_baseline, strictly_correct

ALL_MODEL = ReaderProfile(entity="model", date="model", number="model", open="model")
"""The model's samples for every shape, every verdict shown (to measure the readers, not to answer)."""
ALL_EXTRACTIVE = ReaderProfile(entity="extractive", date="extractive", number="extractive", open="extractive")
"""The model-free reader wherever it has an answer (yes/no and choice questions are always voted), every verdict
shown."""
Row = Mapping[str, Any]
READERS = ("model", "extractive")
NO_SPEAKERS = "model_no_speakers"
MODEL_NO_SPEAKERS = dataclasses.replace(ALL_MODEL, speakers=False)
"""The model's reading without the speaker reader answering first (the rows' ``model_no_speakers``)."""


def accuracy(rows: Sequence[Row], reader: str) -> float:
    right = sum(strictly_correct(str(r[f"{reader}_short"]), str(r["gold"]), str(r[reader])) for r in rows)
    return right / len(rows) if rows else 0.0


def choose(rows: Sequence[Row]) -> tuple[dict[str, str], list[str], dict[str, tuple[float, float, float, int]]]:
    """(shape -> reader, shapes no reader reads above their baseline, shape -> (model, extractive, baseline, n))
    from the fit half's rows."""
    by_shape: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if row["half"] == Half.FIT and "model" in row:
            by_shape[str(row["shape"])].append(row)
    chosen, unreliable, measured = {}, [], {}
    for shape in SHAPES:
        group = by_shape.get(shape, [])
        if not group:
            continue
        model, extractive = accuracy(group, "model"), accuracy(group, "extractive")
        base = shape_baseline(group).accuracy
        chosen[shape] = "model" if model >= extractive else "extractive"
        if max(model, extractive) <= base:
            unreliable.append(shape)
        measured[shape] = (model, extractive, base, len(group))
    return chosen, unreliable, measured


def profile_toml(rows: Sequence[Row]) -> str:
    """The ``[answer.readers]`` table the fit half chooses, with what it measured as comments."""
    chosen, unreliable, measured = choose(rows)
    lines = ["# measured on the fit half: strict accuracy of the model / extractive reader vs the shape baseline"]
    lines.append("[answer.readers]")
    for shape, reader in chosen.items():
        model, extractive, base, n = measured[shape]
        lines.append(f'{shape} = "{reader}"  # {model:.1%} / {extractive:.1%} vs {base:.1%}, n={n}')
    lines.append(f"# no reader above the shape's baseline: {', '.join(unreliable) or 'none'}")
    with_speakers, without = speaker_accuracy(rows)
    keep = str(with_speakers >= without).lower()
    lines.append(f"speakers = {keep}  # {with_speakers:.1%} with / {without:.1%} without, where they differ")
    return "\n".join(lines)


def speaker_accuracy(rows: Sequence[Row]) -> tuple[float, float]:
    """The model's strict accuracy on the fit half's rows with the speaker reader first and without it, over the
    rows where the two differ in the shown answer (0, 0 where none do)."""
    differ = [
        r for r in rows if r["half"] == Half.FIT and NO_SPEAKERS in r and r["model_short"] != r[f"{NO_SPEAKERS}_short"]
    ]
    return accuracy(differ, "model"), accuracy(differ, NO_SPEAKERS)
