"""The cloud's reading of the merged context: one greedy answer read from the chunks whole, a span of a chunk or a
verdict, degenerate answers never shown, and no sentence of an edge's text for an asker its policy does not let
quote it."""

from __future__ import annotations

from cloud_server.answering.answer_guard import WITHHELD, Readers
from cloud_server.answering.cloud_reading import ENTITY_LINES, NO_USABLE_ANSWER, read_context
from cloud_server.answering.context_merge import MergedContext
from shared.config import CloudQueryConfig
from shared.core.knowledge import ContextChunk, KnowledgeChunk
from shared.reading.confidence import Calibration
from simulation.fakes import ScriptedGenerator

TEXT = "Acme Robotics builds welding arms in Berlin. Jane Doe leads Acme Robotics."
MERGED = MergedContext(
    f"[1] {TEXT}", [ContextChunk("edge-b", KnowledgeChunk("acme-1", 0, TEXT, 0.9, 20))], 20, frozenset({"edge-b"})
)
APP_QUOTING = Readers("", {"edge-b": "quote"})
"""An app asking, and edge-b lets answers quote it."""
EDGE_A = Readers("edge-a", {"edge-b": "paraphrase"})
"""Edge-a asking; edge-b's policy (the default) lets no answer quote it."""
SHOW_ALL = CloudQueryConfig(withhold_below=0.0)


def _replies(*texts: str) -> ScriptedGenerator:
    queue = list(texts)
    return ScriptedGenerator(lambda request: queue.pop(0) if queue else texts[-1])


def test_one_greedy_answer_reads_the_chunk_whole_and_its_span_is_cited_with_its_sentence() -> None:
    model = _replies("Jane Doe")
    read = read_context("Who leads Acme Robotics?", MERGED, model, SHOW_ALL, APP_QUOTING)
    request = model.requests[0]
    assert request.n == 1 and request.temperature == 0.0 and request.json_schema is None
    assert TEXT in request.prompt, "the chunk is read whole, not an excerpt"
    answer = read.answer
    assert answer.short == "Jane Doe" and answer.reader == "span"
    assert '"Jane Doe leads Acme Robotics."' in answer.text and "[1: edge-b:acme-1]" in answer.text
    assert answer.evidence is not None and answer.evidence.named


def test_an_answer_no_chunk_holds_gets_no_short_answer_and_names_the_models_words() -> None:
    read = read_context("Who leads Acme Robotics?", MERGED, _replies("John Smith"), SHOW_ALL, APP_QUOTING)
    answer = read.answer
    assert answer.short == "Insufficient information." and answer.reader == "unsupported"
    assert '"John Smith"' in answer.text and answer.withheld == "John Smith" and not answer.verdict
    assert answer.confidence.probability == 0.0 and answer.sources == ()
    assert answer.evidence is not None and not answer.evidence.named, "the trace keeps what was measured"


def test_a_verdict_is_yes_or_no_alone_and_every_question_gets_one_instruction() -> None:
    model = _replies("No, it builds them in Berlin.")
    read = read_context("Does Acme Robotics build welding arms in Oslo?", MERGED, model, SHOW_ALL, APP_QUOTING)
    assert read.answer.short == "No" and read.answer.reader == "verdict"
    asked = _replies("Berlin")
    named = read_context("Which city does Acme Robotics build in?", MERGED, asked, SHOW_ALL, APP_QUOTING)
    assert named.answer.short == "Berlin"
    instruction = "Answer with the short answer only."
    assert instruction in model.requests[0].prompt and instruction in asked.requests[0].prompt


def test_a_decline_is_shown_as_one() -> None:
    read = read_context("Who funds Acme Robotics?", MERGED, _replies("Insufficient information."), SHOW_ALL, EDGE_A)
    assert read.answer.reader == "declined" and read.answer.short == "Insufficient information."


def test_an_edge_gets_the_source_but_no_sentence_of_another_edges_text() -> None:
    read = read_context("Who leads Acme Robotics?", MERGED, _replies("Jane Doe"), SHOW_ALL, EDGE_A)
    assert read.answer.short == "Jane Doe" and "leads Acme" not in read.answer.text
    assert "edge-b:acme-1" in read.answer.text


def test_a_degenerate_answer_gives_an_extract_or_nothing() -> None:
    only_loops = _replies("🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉")
    for_edge = read_context("What does Acme Robotics do?", MERGED, only_loops, CloudQueryConfig(), EDGE_A)
    assert for_edge.answer.text == NO_USABLE_ANSWER and for_edge.answer.short == "", "never another edge's text"
    for_app = read_context("What does Acme Robotics do?", MERGED, only_loops, CloudQueryConfig(), APP_QUOTING)
    assert for_app.answer.reader == "fallback" and "welding arms" in for_app.answer.text


def test_a_verdict_below_the_threshold_is_withheld_with_the_sentence_that_bears_on_it() -> None:
    unsure = Calibration(bias=-5.0)
    config = CloudQueryConfig(withhold_below=0.5)
    read = read_context("Does Acme Robotics build welding arms?", MERGED, _replies("Yes"), config, APP_QUOTING, unsure)
    shown = read.answer
    assert shown.short == "" and shown.reader == "unsettled" and shown.withheld == "Yes"
    assert shown.text.startswith("Can't tell") and "welding" in shown.text and shown.confidence.word == "can't tell"


def test_entity_lines_are_read_where_an_edge_sent_no_chunk() -> None:
    lines = MergedContext("- Acme Robotics (organization): led by Jane Doe", [], 12, frozenset({"edge-b"}))
    model = _replies("Jane Doe")
    read = read_context("Who leads Acme Robotics?", lines, model, SHOW_ALL, APP_QUOTING)
    assert "led by Jane Doe" in model.requests[0].prompt and read.answer.short == "Jane Doe"
    assert ENTITY_LINES in read.answer.text


def test_a_span_the_guard_would_cut_is_withheld_whole_not_shown_as_a_fragment() -> None:
    line = "To install the hf CLI, run `curl -LsSf https://hf.co/cli/install.sh | bash -s -- --quiet --force` once."
    merged = MergedContext(
        f"[1] {line}", [ContextChunk("edge-b", KnowledgeChunk("hf-1", 0, line, 0.9, 20))], 20, frozenset({"edge-b"})
    )
    command = "curl -LsSf https://hf.co/cli/install.sh | bash -s -- --quiet --force"
    question = "Which command installs the hf CLI?"
    read = read_context(question, merged, _replies(command), SHOW_ALL, EDGE_A, protected=[line])
    assert read.answer.short == "" and read.answer.text == WITHHELD
    own = read_context(question, merged, _replies(command), SHOW_ALL, APP_QUOTING)
    assert own.answer.short == command, "an asker the owner lets quote gets the whole command"


OTHER = "Acme Robotics was founded in 1999. Its welding arms are sold in Norway."
TWO = MergedContext(
    f"[1] {TEXT}\n\n[2] {OTHER}",
    [
        ContextChunk("edge-b", KnowledgeChunk("acme-1", 0, TEXT, 0.9, 20)),
        ContextChunk("edge-b", KnowledgeChunk("acme-2", 1, OTHER, 0.8, 14)),
    ],
    34,
    frozenset({"edge-b"}),
)


def test_the_best_passage_is_read_first_and_a_sure_span_of_it_stands() -> None:
    model = _replies("Berlin")  # one word: the scripted model's probability 0.9
    settings = CloudQueryConfig(withhold_below=0.0, first_passages=1, first_sure=0.85)
    read = read_context("Which city does Acme Robotics build in?", TWO, model, settings, APP_QUOTING)
    assert len(model.requests) == 1 and TEXT in model.requests[0].prompt and OTHER not in model.requests[0].prompt
    assert read.answer.short == "Berlin" and read.answer.reader == "span"


def test_every_passage_is_read_when_the_first_reading_is_not_sure_and_in_the_same_order() -> None:
    for first_said, sure, why in (
        ("Berlin", 0.95, "unsure"),
        ("Insufficient information.", 0.5, "declined"),
        ("Yes", 0.95, "verdict below first_verdict_sure"),
    ):
        model = _replies(first_said, "1999")
        settings = CloudQueryConfig(withhold_below=0.0, first_passages=1, first_sure=sure, first_verdict_sure=sure)
        read = read_context("When was Acme Robotics founded?", TWO, model, settings, APP_QUOTING)
        assert len(model.requests) == 2, why
        first, every = (r.prompt for r in model.requests)
        assert OTHER not in first and every.index(TEXT) < every.index(OTHER), "the first reading's prompt leads"
        assert read.answer.short == "1999" and read.answer.reader == "span"


def test_first_passages_zero_reads_every_passage_at_once() -> None:
    model = _replies("Berlin")
    read_context("Which city?", TWO, model, CloudQueryConfig(first_passages=0), APP_QUOTING)
    assert len(model.requests) == 1 and OTHER in model.requests[0].prompt


def test_a_sure_verdict_of_the_best_passage_stands() -> None:
    model = _replies("Yes")  # one word: probability 0.9
    settings = CloudQueryConfig(withhold_below=0.0, first_passages=1, first_verdict_sure=0.85)
    read = read_context("Does Acme Robotics build in Berlin?", TWO, model, settings, APP_QUOTING)
    assert len(model.requests) == 1 and read.answer.short == "Yes" and read.answer.reader == "verdict"
