"""benchmarks.adversarial: every attack names a test that exists, and the rows group test cases per attack."""

from __future__ import annotations

from pathlib import Path

from benchmarks.adversarial import attacks, rows_of, table

ROOT = Path(__file__).resolve().parents[3]


def test_every_attack_names_a_test_file_and_function_that_exist() -> None:
    for attack in attacks():
        path, _, name = attack.test.partition("::")
        assert (ROOT / path).is_file(), attack.what
        assert f"def {name}" in (ROOT / path).read_text(encoding="utf-8"), f"{attack.what}: no test named {name}*"
    assert {a.round for a in attacks()} == {1, 2, 3, 4}


def _case(passed: bool = True, figure: str = "") -> dict[str, object]:
    return {"passed": passed, "ran": True, "seconds": 0.5, "figure": figure}


def test_cases_group_into_rows_and_a_failed_case_is_not_counted_as_refused() -> None:
    cases = {
        "tests/adversarial/test_protocol_attacks.py::test_the_attack_is_refused_and_the_servers_stay_up[wrong_token]": (
            _case(figure="got UNAUTHENTICATED")
        ),
        "tests/adversarial/test_protocol_attacks.py::test_the_attack_is_refused_and_the_servers_stay_up[no_hello]": (
            _case(passed=False)
        ),
        "tests/adversarial/test_guard_transforms.py::test_a_disguised_copy_is_caught[leetspeak]": _case(),
        "tests/adversarial/test_guard_transforms.py::test_a_disguised_copy_is_caught[ROT13]": _case(),
    }
    rows = {r["attack"]: r for r in rows_of(cases)}
    assert rows["protocol attack: wrong_token"]["figure"] == "got UNAUTHENTICATED"
    assert rows["protocol attack: no_hello"]["refused"] == 0
    leet = rows["leetspeak and reversed word order past the answer guard"]
    assert (leet["attempted"], leet["refused"]) == (1, 1)
    assert rows["20 reversible transforms of a copied passage"]["attempted"] == 1
    assert "| 1 | protocol attack: no_hello | 1 | 0 |" in table(list(rows.values()))
