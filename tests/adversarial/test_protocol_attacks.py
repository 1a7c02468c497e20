"""Every protocol attack of tests/support/attacks.py against a real cloud and a real edge process on loopback:
refused with the right status (or corrected, or survived), and both servers keep serving."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator

import pytest

from shared.cli.health_cli import check
from tests.support.attack_targets import Targets, start_targets
from tests.support.attacks import ATTACKS, run_attacks

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Targets]:
    running = start_targets(tmp_path_factory.mktemp("attacks"), {**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.parametrize("name", list(ATTACKS))
def test_the_attack_is_refused_and_the_servers_stay_up(
    targets: Targets, name: str, record_property: Callable[[str, object], None]
) -> None:
    (outcome,) = asyncio.run(run_attacks(targets, [name]))
    record_property("figure", f"got {outcome.got}")
    assert outcome.refused, f"{name}: expected {outcome.expected}, got {outcome.got}"
    assert targets.cloud.alive() and targets.edge.alive()
    assert asyncio.run(check(targets.cloud.address, "", 5.0, "")) == "SERVING"


def test_there_are_at_least_twenty_attacks() -> None:
    assert len(ATTACKS) >= 20
