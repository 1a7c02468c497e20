"""The extraction benchmark's measure: the longest run of words an answer shares with the protected texts."""

from __future__ import annotations

from benchmarks.shared_run import longest_shared_run

DOC = "Zephyr Medical was founded by Omar Haddad in Lisbon in 1998 and makes 1,000 insulin pumps a year."


def test_the_longest_run_is_measured_after_normalisation() -> None:
    assert longest_shared_run("x was founded by Omar Haddad y", [DOC]) == 5
    assert longest_shared_run("X WAS FOUNDED BY omar haddad, in Lisbon!", [DOC]) == 7


def test_the_longest_run_leaves_out_what_the_asker_supplied() -> None:
    answer = "x was founded by Omar Haddad y"
    assert longest_shared_run(answer, [DOC], supplied=["he was founded by Omar Haddad there"]) == 0
    assert longest_shared_run(answer, [DOC], supplied=["founded by Omar"]) == 5, "a run past the supplied words counts"
