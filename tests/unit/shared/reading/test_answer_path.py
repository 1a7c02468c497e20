"""The one answer path (shared.reading.read.answer_question): the model reads the passages whole; what it writes
is read without a model as a span of a passage, a verdict, unsupported or a decline."""

from __future__ import annotations

from shared.reading.answer_format import Sampling
from shared.reading.passage_reader import read_said, short_of
from shared.reading.read import HowToRead, Sampled, answer_question, read_passages
from shared.reading.span_reader import Passage
from simulation.fakes import ScriptedGenerator

PASSAGES = [
    Passage(1, "Acme Robotics is led by Jane Doe. Acme Robotics builds welding arms.", "a:acme-1"),
    Passage(2, "By default, acmectl writes 16 octets per line. It does not support Windows.", "a:acme-2"),
]


def _how(n: int = 1) -> HowToRead:
    return HowToRead(Sampling(n, 32, 0.7 if n > 1 else 0.0, 7))


def test_the_model_reads_every_passage_whole_and_its_span_is_cited_where_it_occurs() -> None:
    model = ScriptedGenerator(lambda _: "16 [2]")
    answer = answer_question("How many octets per line does acmectl write?", PASSAGES, model, _how()).answer
    assert all(p.text in model.requests[0].prompt for p in PASSAGES)
    assert answer.short == "16" and answer.reader == "span" and answer.sources == ("a:acme-2",)
    assert '"By default, acmectl writes 16 octets per line."' in answer.text


def test_the_short_answer_is_the_first_line_without_lead_quotes_or_citation() -> None:
    assert short_of('Answer: "~/.curlrc" [3].\nBecause the manual says so.') == "~/.curlrc"
    assert short_of("  `git config --global`.  ") == "git config --global"
    assert short_of("") == ""


def test_an_answer_leading_with_yes_or_no_is_a_verdict_whatever_the_question_looks_like() -> None:
    copied = "It does not support Windows.\nAnswer: No"
    said = read_said("Does acmectl support Windows?", copied, PASSAGES, 0.8)
    assert said.short == "No" and said.kind == "verdict" and said.found is not None
    assert said.found.passage.number == 2
    bare = read_said("Does acmectl support Windows?", "No, it does not.", PASSAGES, 0.8)
    assert bare.short == "No" and bare.found is None and bare.cited is not None, "a bare verdict cites the nearest"
    stated = read_said("The acmectl tool runs on Windows, true?", "No.", PASSAGES, 0.8)
    assert stated.kind == "verdict" and stated.short == "No"
    named = read_said("Which OS does acmectl not support?", "Windows", PASSAGES, 0.8)
    assert named.kind == "span" and named.short == "Windows"


def test_a_decline_and_an_answer_no_passage_holds_are_told_apart() -> None:
    assert read_said("Who funds Acme?", "Insufficient information.", PASSAGES, 0.9).kind == "declined"
    invented = read_said("Who leads Acme Robotics?", "John Smith", PASSAGES, 0.9)
    assert invented.kind == "unsupported" and invented.found is None


def test_a_verdicts_probability_is_that_of_its_yes_or_no_token() -> None:
    model = ScriptedGenerator(lambda _: "It does not support Windows.\nAnswer: No")
    sampled = read_passages("Does acmectl support Windows?", PASSAGES, model, Sampling(1, 80, 0.0, None))
    assert sampled.said[0].short == "No" and abs(sampled.said[0].probability - 0.9) < 1e-9


def test_the_weigher_sees_every_sample_and_its_pick_is_the_one_composed() -> None:
    replies = iter(["Jane Doe", "Insufficient information.", "Acme Robotics"])
    model = ScriptedGenerator(lambda _: next(replies))
    seen: list[Sampled] = []

    def weigh(sampled: Sampled) -> tuple[str, int]:
        seen.append(sampled)
        return "weighed", 2

    answered = answer_question("Who leads Acme Robotics?", PASSAGES, model, _how(3), weigh)
    assert len(seen) == 1 and len(seen[0].answers) == 3, "the weigher gets all samples, the decline too"
    assert answered.weighed == "weighed" and answered.answer.short == "Acme Robotics"
    assert answered.answer.evidence is not None and answered.answer.evidence.agreement == round(1 / 3, 3)


def test_without_a_weigher_the_first_usable_answer_is_shown_with_its_confidence_word() -> None:
    model = ScriptedGenerator(lambda _: "Jane Doe")
    answer = answer_question("Who leads Acme Robotics?", PASSAGES, model, _how()).answer
    assert answer.short == "Jane Doe" and answer.sources == ("a:acme-1",)
    assert answer.confidence.word.value in ("sure", "likely", "can't tell") and answer.signals()


def test_without_quoting_only_the_short_answer_and_its_source_are_shown() -> None:
    model = ScriptedGenerator(lambda _: "Jane Doe")
    how = HowToRead(Sampling(1, 32, 0.0, None), quote=False)
    answer = answer_question("Who leads Acme Robotics?", PASSAGES, model, how).answer
    assert answer.text == "Jane Doe. [1: a:acme-1]"
