"""Yes/no questions read claim by claim: the claims, the sentences each is read in, the model's support from one
scored forward pass, the fitted probability, and the answer shown (or withheld, with each claim's sentence)."""

from __future__ import annotations

import math

from shared.core.model_api import GenerationRequest
from shared.models.llama_cpp_backend import option_shares
from shared.reading.claims import (
    claim_sentences,
    contrast_claims,
    is_header,
    publisher,
    read_verdict,
    score_claims,
    split_claims,
    strip_attribution,
    verdict_answer,
    verdict_evidence,
)
from shared.reading.confidence import Calibration
from shared.reading.plan import plan_reading
from shared.reading.span_reader import Passage
from simulation.fakes import ScriptedGenerator

VERGE = Passage(
    1,
    "Google's search deals explained\nSource: The Verge, published 2023-11-01\n\n"
    "Google pays Apple billions each year to stay the default search engine in Safari. "
    "Critics say users have few alternatives.",
    "tech:verge-1",
)
CRUNCH = Passage(
    2,
    "Epic v. Google\nSource: TechCrunch, published 2023-11-06\n\n"
    "Epic Games won its antitrust case against Google over the Play Store. The jury took a few hours.",
    "tech:crunch-1",
)
QUESTION = (
    "Does The Verge report that Google pays Apple to be the default search engine, while TechCrunch reports "
    "that Epic Games won its antitrust case against Google?"
)
TRUSTING = Calibration(bias=0.0, weights={"weakest_logit": 1.0})
"""P(yes) = the weakest claim's support."""


def _scorer(yes_for: tuple[str, ...]) -> ScriptedGenerator:
    """Says yes to a claim naming any of ``yes_for``, else no."""
    return ScriptedGenerator(lambda r: "Yes" if any(w in r.prompt.split("Question:")[1] for w in yes_for) else "No")


def test_claims_split_at_contrast_words_and_lose_their_auxiliary() -> None:
    assert contrast_claims(QUESTION) == [
        "The Verge report that Google pays Apple to be the default search engine",
        "TechCrunch reports that Epic Games won its antitrust case against Google",
    ]
    assert contrast_claims("Is DiskCache thread-safe?") == ["DiskCache thread-safe"]
    assert len(split_claims("Between the report from Wired and the report from The Verge, was there a change?")) == 2


def test_each_claim_is_read_in_its_named_sources_sentences_never_a_header() -> None:
    assert publisher(VERGE) == "The Verge" and publisher(Passage(3, "No header here.", "x")) == ""
    first, second = contrast_claims(QUESTION)
    verge = claim_sentences(first, [VERGE, CRUNCH])
    assert verge and all(f.passage is VERGE for f in verge)
    assert not any(is_header(f.sentence) for f in verge)
    assert all(f.passage is CRUNCH for f in claim_sentences(second, [VERGE, CRUNCH]))


def test_support_comes_from_one_scored_pass_per_claim_and_the_fit_turns_it_into_a_verdict() -> None:
    scorer = _scorer(("Google pays", "Epic Games"))
    scores = score_claims(QUESTION, [VERGE, CRUNCH], scorer)
    assert [round(s.support, 2) for s in scores] == [0.9, 0.9]
    assert all(r.max_tokens == 1 and "Sentences:" in r.prompt for r in scorer.requests), "scored, never sampled"
    assert "(The Verge, 2023-11-01)" in scorer.requests[0].prompt, "each sentence with its source and date"
    assert math.isclose(verdict_evidence(scores).weakest, 0.9, abs_tol=1e-6) and verdict_evidence(scores).sourced == 1.0
    assert "Question: Is it true that Google pays Apple" in scorer.requests[0].prompt, "what is claimed, not who"
    verdict = read_verdict(QUESTION, [VERGE, CRUNCH], scorer, TRUSTING)
    assert verdict.short == "Yes" and math.isclose(verdict.probability, 0.9, abs_tol=1e-3)
    one_fails = read_verdict(QUESTION, [VERGE, CRUNCH], _scorer(("Google pays",)), TRUSTING)
    assert one_fails.short == "No", "yes only when every claim holds"


def test_a_verdict_is_shown_with_its_own_confidence_or_withheld_with_each_claims_sentence() -> None:
    reading = plan_reading(QUESTION, [VERGE, CRUNCH])
    sure = verdict_answer(reading, read_verdict(QUESTION, [VERGE, CRUNCH], _scorer(("Google", "Epic")), TRUSTING))
    assert sure.short == "Yes" and sure.reader == "claims" and sure.confidence.probability == 0.9
    assert "[1: tech:verge-1]" in sure.text
    even = Calibration(bias=0.0, weights={"weakest_logit": 0.1})  # near even odds whatever the support
    withheld = verdict_answer(reading, read_verdict(QUESTION, [VERGE, CRUNCH], _scorer(("Google pays",)), even))
    assert withheld.short == "" and withheld.text.startswith("Can't tell.") and withheld.withheld
    assert "supports it (90% by the model)" in withheld.text and "does not support it" in withheld.text
    assert "Source:" not in withheld.text and "[2: tech:crunch-1]" in withheld.text


def test_option_shares_normalise_over_the_options_first_tokens() -> None:
    logits = [0.0, math.log(3.0), 0.0, 5.0]
    assert [round(s, 6) for s in option_shares(logits, [{1}, {0, 2}])] == [0.6, 0.4]
    assert option_shares(logits, [set(), set()]) == (0.5, 0.5)
    shared_start = [round(s, 6) for s in option_shares(logits, [{1}, {1}, {0}])]
    assert shared_start == [0.75, 0.75, 0.25], "options beginning alike are not halved by each other"
    request = GenerationRequest(prompt="Claim: x")
    assert ScriptedGenerator(lambda r: "maybe").option_probabilities(request, ("Yes", "No")) == (0.5, 0.5)


def test_a_claims_attribution_is_taken_off_and_a_claim_whose_source_is_missing_counts_as_unsourced() -> None:
    assert strip_attribution("'The Verge' article suggests that Google pays Apple") == "Google pays Apple"
    assert strip_attribution("DiskCache thread-safe") == "DiskCache thread-safe"
    asked = "Does Wired report that Apple pays Google, while TechCrunch reports that Epic Games won?"
    scores = score_claims(asked, [VERGE, CRUNCH], _scorer(("Apple", "Epic")))
    assert [s.sourced for s in scores] == [False, True] and verdict_evidence(scores).sourced == 0.5


def test_a_sentence_that_begins_with_its_articles_title_and_source_line_keeps_only_its_text() -> None:
    flat = Passage(
        4,
        "Apple defends Google Search deal Source: The Verge, published 2023-09-26 The Justice Department is "
        "focused on the deals Google makes with Apple.",
        "tech:verge-2",
    )
    found = claim_sentences("the Justice Department is focused on Google's deals with Apple", [flat])
    assert found and found[0].sentence.startswith("The Justice Department") and "Source:" not in found[0].sentence
    assert publisher(flat) == "The Verge", "a source line read into the text still names the source"


def test_a_claim_whose_best_sentence_says_no_is_marked_negated_for_the_fit() -> None:
    page = Passage(1, "tqdm does not require any dependencies. It works on Linux, Windows and Mac.", "dev:tqdm")
    yes = ScriptedGenerator(lambda _: "Yes")
    negated = score_claims("Does tqdm require any dependencies?", [page], yes)
    plain = score_claims("Does tqdm work on Linux, Windows and Mac?", [page], yes)
    assert [s.negated for s in negated] == [True] and verdict_evidence(negated).negated == 1.0
    assert [s.negated for s in plain] == [False], "a sentence that says it plainly is not negated"
    fit = Calibration(0.0, {"weakest_logit": 1.0, "negated": -4.0})
    assert read_verdict("Does tqdm require any dependencies?", [page], yes, fit).short == "No"
