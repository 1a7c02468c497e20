"""How a model process's death is told: the signal in words, the cause, the repair; plain exit codes as they are."""

from __future__ import annotations

from shared.models.crash import death_message, signal_of


def test_sigill_names_the_instruction_the_cause_and_the_repair() -> None:
    said = death_message(-4, "indexing the business edge")
    assert said.startswith("indexing the business edge died of SIGILL (illegal instruction): the CPU met")
    assert "repair_runtime.sh" in said and "work committed before the crash is kept" in said


def test_a_shell_style_code_is_a_signal_too() -> None:
    assert signal_of(128 + 11) == signal_of(-11) == 11 and signal_of(1) is None
    assert "SIGSEGV (segmentation fault)" in death_message(139, "serve")


def test_the_out_of_memory_killer_is_not_sent_to_the_runtime_repair() -> None:
    said = death_message(-9, "the cloud")
    assert "memory ran out" in said and "repair" not in said


def test_an_ordinary_failure_keeps_its_exit_code() -> None:
    assert death_message(2, "ingest") == "ingest failed (exit code 2)"
