"""docs/security.md's attack table is what the committed rows of benchmarks.adversarial give, and every attack of
the catalogue was attempted and refused in them."""

from __future__ import annotations

from benchmarks.adversarial import attacks, documented_table, read_rows, table


def test_the_attack_table_is_recomputed_from_the_committed_rows() -> None:
    assert documented_table() == table(read_rows()), "run python -m benchmarks.adversarial --write"


def test_every_attack_was_attempted_and_refused_in_the_committed_run() -> None:
    rows = read_rows()
    for attack in attacks():
        mine = [r for r in rows if r["attack"] == attack.what or r["attack"].startswith(f"{attack.what}: ")]
        assert mine, f"{attack.what}: not in the committed rows"
        assert all(r["attempted"] >= 1 and r["refused"] == r["attempted"] for r in mine), attack.what
