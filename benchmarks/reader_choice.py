"""Choose a model's reader profile from reader_oracle rows of the fit half: per question shape the reader (the
model's samples or the model-free one) with the higher strict accuracy, and the shapes where neither beat the
shape's baseline (always its most frequent gold) marked unreliable."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from shared.reading.reader_profile import SHAPES
from simulation.halves import Half
from simulation.scoring import shape_baseline, strictly_correct

Row = Mapping[str, Any]
READERS = ("model", "extractive")


def accuracy(rows: Sequence[Row], reader: str) -> float:
    right = sum(strictly_correct(str(r[f"{reader}_short"]), str(r["gold"]), str(r[reader])) for r in rows)
    return right / len(rows) if rows else 0.0


def choose(rows: Sequence[Row]) -> tuple[dict[str, str], list[str], dict[str, tuple[float, float, float, int]]]:
    """(shape -> reader, unreliable shapes, shape -> (model, extractive, baseline, n)) from the fit half's rows."""
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
    lines.append(f'unreliable = "{",".join(unreliable)}"')
    return "\n".join(lines)
