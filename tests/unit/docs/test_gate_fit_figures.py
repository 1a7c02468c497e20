"""The gate's fitted defaults are documented with the escalation they give on the fit half (docs/configuration.md,
from the config's docstring, and docs/results/gate-fit/fit-half-full.md): those figures are replayed here from the
committed rows and probes by benchmarks.fit_gate_check, for today's defaults and the settings before them; a
changed digit fails."""

from __future__ import annotations

import re

import pytest

from benchmarks import fit_gate_check
from shared.config.pipeline import GateConfig
from tests.support.paths import REPO

ROWS = REPO / "docs" / "results" / "gate-fit" / "fit-half-rows"
BEFORE = (0.15, 0.05, 0.0, 0.5)
"""check_threshold, evidence_margin, stay_margin, unsupported_weight before this fit."""


def _number(x: float) -> str:
    return f"{x:g}"


def _replayed(capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, tuple[float, ...]], tuple[str, str]]:
    gate = GateConfig()
    now = (gate.check_threshold, gate.evidence_margin, gate.stay_margin, gate.unsupported_weight)
    fit_gate_check.main(
        [
            *("--bundle", str(ROWS / "multihop4-local.jsonl.gz"), str(ROWS / "probe-multihop4.json.gz")),
            *("--bundle", str(ROWS / "lihua4-local.jsonl.gz"), str(ROWS / "probe-lihua4.json.gz")),
            f"--check-thresholds={_number(now[0])},{_number(BEFORE[0])}",
            f"--margins={_number(now[1])},{_number(BEFORE[1])}",
            f"--stay-margins={_number(now[2])},{_number(BEFORE[2])}",
            f"--unsupported-weights={_number(now[3])},{_number(BEFORE[3])}",
        ]
    )
    out: dict[tuple[str, tuple[float, ...]], tuple[str, str]] = {}
    bundle = ""
    for line in capsys.readouterr().out.splitlines():
        if m := re.match(r"simulation/bundles/(\w+): \d+ asks", line):
            bundle = m.group(1)
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 8 and all(re.fullmatch(r"-?[\d.]+", c) for c in cells[:4]):
            key = tuple(float(c) for c in cells[:4])
            for setting in (now, BEFORE):
                if key == setting:
                    out[(bundle, setting)] = (cells[4], cells[5])
    return out


def _short(pct: str) -> str:
    return "100%" if pct == "100.0%" else pct


def test_the_documented_fit_is_what_the_committed_rows_replay(capsys: pytest.CaptureFixture[str]) -> None:
    replayed = _replayed(capsys)
    gate = GateConfig()
    now = (gate.check_threshold, gate.evidence_margin, gate.stay_margin, gate.unsupported_weight)
    (mh_in, mh_out), (li_in, li_out) = replayed[("multihop4", now)], replayed[("lihua4", now)]
    (bm_in, bm_out), (bl_in, bl_out) = replayed[("multihop4", BEFORE)], replayed[("lihua4", BEFORE)]
    config_doc = re.sub(r"\s+", " ", (REPO / "docs" / "configuration.md").read_text(encoding="utf-8"))
    assert (
        f"Replayed on those rows: {mh_in} / {_short(mh_out)} (within / out) on multihop4, {li_in} / {_short(li_out)} "
        f"on lihua4; the settings before (0.15, 0.05, 0, 0.5; fitted on both halves of 80 questions) give "
        f"{bm_in} / {_short(bm_out)} and {bl_in} / {_short(bl_out)}." in config_doc
    )
    fit_doc = re.sub(r"\s+", " ", (REPO / "docs" / "results" / "gate-fit" / "fit-half-full.md").read_text())
    assert f"multihop4 {mh_in} / {_short(mh_out)} (within / out), lihua4 {li_in} / {_short(li_out)}" in fit_doc
    assert f"{bm_in} / {_short(bm_out)} and {bl_in} / {_short(bl_out)}" in fit_doc
