"""The cloud's reading of the merged context: closed answer sets voted over samples, free text one greedy
answer, degenerate samples left out, and no sentence of an edge's text for an asker its policy does not let
quote it."""

from __future__ import annotations

from cloud_server.answering.answer_guard import WITHHELD, Readers
from cloud_server.answering.cloud_reading import NO_USABLE_ANSWER, read_context
from cloud_server.answering.context_merge import MergedContext
from shared.config import CloudQueryConfig
from shared.core.knowledge import ContextChunk, KnowledgeChunk
from shared.core.model_api import GenerationRequest
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


def _replies(*texts: str) -> ScriptedGenerator:
    queue = list(texts)
    return ScriptedGenerator(lambda request: queue.pop(0) if queue else texts[-1])


VOTING = CloudQueryConfig(withhold_below=0.0, choice_samples=4)
"""A cloud that shows every yes/no verdict, however unsure: they are voted over four samples and shown."""
VOTING_ONE = CloudQueryConfig(withhold_below=0.0)
"""The same with the default single greedy choice."""


def test_a_yes_no_question_is_voted_over_sampled_answers() -> None:
    model = _replies('{"answer": "no"}', '{"answer": "yes"}', '{"answer": "yes"}', '{"answer": "no"}')
    read = read_context("Does Acme Robotics build welding arms?", MERGED, model, VOTING, APP_QUOTING)
    request: GenerationRequest = model.requests[0]
    assert request.n == 4 and request.temperature == 0.7 and request.json_schema is not None
    assert read.answer.short == "No", "a tie goes to the verdict an earlier sample chose: no prior for yes"


def test_by_default_a_choice_is_one_greedy_answer_whose_agreement_is_the_models_probability_of_it() -> None:
    model = _replies('{"answer": "yes"}')
    read = read_context("Does Acme Robotics build welding arms?", MERGED, model, VOTING_ONE, APP_QUOTING)
    first, scored = model.requests[0], model.requests[-1]
    assert first.n == 1 and first.temperature == 0.0 and len(model.requests) == 2 and scored.prompt == first.prompt
    assert read.answer.short == "Yes" and read.answer.evidence is not None
    assert read.answer.evidence.agreement == 0.9, "the scripted model gives the option it answers 0.9"
    doubting = _replies('{"answer": "yes"}', '{"answer": "no"}')  # it answers yes, then scores no likelier
    unsure = read_context("Does Acme Robotics build welding arms?", MERGED, doubting, VOTING_ONE, APP_QUOTING)
    assert unsure.answer.evidence is not None and unsure.answer.evidence.agreement == 0.05


def test_free_text_is_one_greedy_answer_and_an_edge_gets_no_sentence_of_it() -> None:
    model = _replies("Welding arms, in Berlin [1].")
    read = read_context("What does Acme Robotics do?", MERGED, model, CloudQueryConfig(), EDGE_A)
    assert model.requests[0].n == 1 and model.requests[0].temperature == 0.0
    assert "Jane Doe" not in read.answer.text and "edge-b:acme-1" in read.answer.text


def test_degenerate_samples_are_left_out_and_all_degenerate_gives_an_extract_or_nothing() -> None:
    loop = "yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes"
    model = _replies(loop, '{"answer": "no"}', loop, loop)
    read = read_context("Does Acme Robotics build welding arms?", MERGED, model, VOTING, APP_QUOTING)
    assert read.answer.short == "No"
    only_loops = _replies("🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉")
    for_edge = read_context("What does Acme Robotics do?", MERGED, only_loops, CloudQueryConfig(), EDGE_A)
    shown = for_edge.answer
    assert shown.text == NO_USABLE_ANSWER and shown.short == "", "another edge's text is never the fallback"


def test_a_verdict_below_even_odds_is_withheld_and_what_bears_on_the_claim_is_shown() -> None:
    model = _replies('{"answer": "yes"}')
    unsure = Calibration(bias=-5.0)
    read = read_context(
        "Does Acme Robotics build welding arms?", MERGED, model, CloudQueryConfig(), APP_QUOTING, unsure
    )
    assert model.requests and read.answer.short == "" and read.answer.reader == "unsettled"
    shown = read.answer
    assert shown.text.startswith("Can't tell.") and "welding" in shown.text and shown.confidence.word == "can't tell"


def test_the_cloud_asks_for_the_choice_alone_without_a_reason() -> None:
    model = _replies('{"answer": "yes"}')
    read_context("Does Acme Robotics build welding arms?", MERGED, model, VOTING, APP_QUOTING)
    schema = model.requests[0].json_schema
    assert schema is not None and set(schema["properties"]) == {"answer"} and schema["required"] == ["answer"]


def test_a_degenerate_answer_from_chunks_and_entity_lines_is_asked_again_from_the_chunks_alone() -> None:
    with_facts = MergedContext(
        f"{MERGED.text}\n\n- Acme Robotics (organization): a maker of welding arms", MERGED.chunks, 30, MERGED.edges
    )
    model = _replies("1. Acme\n2. Acme\n3. Acme\n4. Acme\n5. Acme\n6. Acme\n7. Acme", "Welding arms, in Berlin [1].")
    read = read_context("What does Acme Robotics do?", with_facts, model, CloudQueryConfig(), APP_QUOTING)
    assert len(model.requests) == 2
    assert "- Acme Robotics (organization)" in model.requests[0].prompt
    assert "- Acme Robotics (organization)" not in model.requests[1].prompt and TEXT in model.requests[1].prompt
    assert "Welding arms" in read.answer.short
    chunks_only = _replies("1. Acme\n2. Acme\n3. Acme\n4. Acme\n5. Acme\n6. Acme\n7. Acme")
    read_context("What does Acme Robotics do?", MERGED, chunks_only, CloudQueryConfig(), APP_QUOTING)
    assert len(chunks_only.requests) == 1, "a context of chunks alone is not asked again"


def test_when_every_sample_is_degenerate_the_shapes_model_free_reader_still_answers() -> None:
    only_loops = _replies("🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉 🎉")
    read = read_context("Who leads Acme Robotics?", MERGED, only_loops, CloudQueryConfig(), APP_QUOTING)
    assert read.answer.short == "Jane Doe" and read.answer.reader == "extractive"
    assert "[1: edge-b:acme-1]" in read.answer.text, "the name comes with the sentence and source that back it"
    no_quote = read_context("Who leads Acme Robotics?", MERGED, only_loops, CloudQueryConfig(), EDGE_A)
    quiet = no_quote.answer
    assert quiet.short == "Jane Doe" and TEXT.split(". ")[1] not in quiet.text, "no sentence for an edge"


def test_a_yes_no_question_is_read_claim_by_claim_where_the_model_has_a_yes_no_fit() -> None:
    model = _replies("Yes")
    fit = Calibration(bias=0.0, weights={"weakest_logit": 1.0})
    config = CloudQueryConfig()
    read = read_context("Does Acme Robotics build welding arms?", MERGED, model, config, APP_QUOTING, yes_no=fit)
    assert read.answer.reader == "claims" and read.answer.short == "Yes" and read.answer.confidence.probability == 0.9
    assert model.requests and all(r.max_tokens == 1 and r.n == 1 for r in model.requests), "scored, never sampled"
    voted = read_context(
        "Does Acme Robotics build welding arms?", MERGED, _replies('{"answer": "yes"}'), VOTING, APP_QUOTING
    )
    assert voted.answer.reader == "vote", "without a fit the samples vote"


def test_a_command_the_guard_would_cut_is_withheld_whole_not_shown_as_a_fragment() -> None:
    line = "To install the hf CLI, run `curl -LsSf https://hf.co/cli/install.sh | bash -s -- --quiet --force` once."
    merged = MergedContext(
        f"[1] {line}", [ContextChunk("edge-b", KnowledgeChunk("hf-1", 0, line, 0.9, 20))], 20, frozenset({"edge-b"})
    )
    model = _replies("unused")
    read = read_context("Which command installs the hf CLI?", merged, model, VOTING_ONE, EDGE_A, protected=[line])
    assert read.answer.short == "" and read.answer.text == WITHHELD and read.answer.reader == "fact"
    own = read_context("Which command installs the hf CLI?", merged, model, VOTING_ONE, APP_QUOTING)
    assert own.answer.short.startswith("curl -LsSf"), "an asker the owner lets quote gets the whole command"
