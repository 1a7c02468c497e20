"""Resuming an interrupted simulation: which earlier asks are kept, and when a partial file is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.config import CloudConfig, EdgeConfig, GateConfig
from shared.core.errors import DgragError
from simulation.asking import Plan
from simulation.resume import PARTIAL_ANSWERS, code_digest, earlier_rows, open_for_append, settings_digest

SETUP = {"bench": "/b", "modes": ["naive", "dgrag"], "limit": 0, "seed": 0, "indexes": ["b-a-123"]}


def _row(qid: str, edge: str, mode: str, answer: str = "yes") -> dict[str, Any]:
    return {"qid": qid, "asked_at": edge, "mode": mode, "answer": answer}


def _write_partial(out: Path, rows: list[dict[str, Any]], tail: str = "") -> None:
    (out / PARTIAL_ANSWERS).write_text("".join(json.dumps(r) + "\n" for r in rows) + tail)


def test_plan_names_the_modes_each_ask_gives() -> None:
    assert Plan(True, True, True).modes() == ["dgrag", "local", "central"]
    assert Plan(True, False, False).modes() == ["local"]
    assert Plan(False, True, False, dgrag_as="dgrag-cd").modes() == ["dgrag-cd"]


def test_a_fresh_run_records_its_setup_and_keeps_nothing(tmp_path: Path) -> None:
    assert earlier_rows(tmp_path, SETUP, ["naive"]) == {}
    assert json.loads((tmp_path / "run" / "setup.json").read_text()) == SETUP


def test_only_asks_answered_in_every_mode_are_kept(tmp_path: Path) -> None:
    earlier_rows(tmp_path, SETUP, ["naive", "dgrag"])
    _write_partial(
        tmp_path,
        [
            _row("q1", "A", "naive"),
            _row("q1", "A", "dgrag", "first try"),
            _row("q1", "A", "dgrag", "no"),  # asked again after an earlier interruption: the last row counts
            _row("q2", "B", "naive"),  # dgrag missing: asked again
        ],
        tail='{"qid": "q3", "asked_at": "A", "mo',  # the row an interruption cut short
    )
    kept = earlier_rows(tmp_path, SETUP, ["naive", "dgrag"])
    assert list(kept) == [("q1", "A")]
    assert {r["mode"]: r["answer"] for r in kept[("q1", "A")]} == {"naive": "yes", "dgrag": "no"}


def test_a_partial_run_of_another_setup_is_refused_and_kept(tmp_path: Path) -> None:
    earlier_rows(tmp_path, SETUP, ["naive"])
    _write_partial(tmp_path, [_row("q1", "A", "naive")])
    with pytest.raises(DgragError, match="differs in: limit, seed"):
        earlier_rows(tmp_path, {**SETUP, "limit": 5, "seed": 1}, ["naive"])
    assert (tmp_path / PARTIAL_ANSWERS).read_text().count("\n") == 1
    (tmp_path / "run" / "setup.json").unlink()
    with pytest.raises(DgragError, match="another setup"):
        earlier_rows(tmp_path, SETUP, ["naive"])


def test_appending_after_a_cut_short_line_starts_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / PARTIAL_ANSWERS
    _write_partial(tmp_path, [_row("q1", "A", "naive")], tail='{"qid": "q2"')
    with open_for_append(path) as f:
        f.write(json.dumps(_row("q2", "A", "naive")) + "\n")
    lines = path.read_text().splitlines()
    assert lines[1] == '{"qid": "q2"' and json.loads(lines[2])["qid"] == "q2"


def test_the_fingerprint_follows_the_answering_code_and_the_effective_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "answer.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = code_digest(["pkg"])
    assert code_digest(["pkg"]) == before
    (package / "answer.py").write_text("X = 2\n")
    assert code_digest(["pkg"]) != before
    assert len(code_digest()) == 16  # the real answering code is found
    edge, cloud = EdgeConfig(), CloudConfig()
    assert settings_digest(edge, cloud) == settings_digest(EdgeConfig(), CloudConfig())
    changed = EdgeConfig(gate=GateConfig(threshold=edge.gate.threshold + 0.1))
    assert settings_digest(changed, cloud) != settings_digest(edge, cloud)
