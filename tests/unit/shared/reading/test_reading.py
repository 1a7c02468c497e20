"""Reading answers out of numbered evidence: the entity reader, the vote, the grounding check, the shown text."""

from __future__ import annotations

import functools

from shared.reading.reader_profile import ReaderProfile

from shared.reading.answer_format import MISSING
from shared.reading.compose import compose, unsupported
from shared.reading.confidence import Calibration
from shared.reading.plan import Shape, plan_reading, shape_of
from shared.reading.span_reader import Passage, find_date, rank_entities

PASSAGES = [
    Passage(1, "Sam Bankman-Fried founded FTX in 2019. Bankman-Fried was charged with fraud in 2022.", "tech:ftx-1"),
    Passage(2, "Prosecutors said Bankman-Fried misused customer funds at FTX and Alameda Research.", "biz:ftx-2"),
    Passage(3, "Time: 20260122_14:00\nLiHua: Can we move the protein shake to after the workout?", "q1:chat-7"),
]

ALL_MODEL = ReaderProfile(entity="model", date="model", number="model", open="model")
ALL_EXTRACTIVE = ReaderProfile(entity="extractive", date="extractive", number="extractive", open="extractive")


def test_the_entity_reader_folds_short_names_into_the_full_one_and_skips_the_question_s_names() -> None:
    found = rank_entities("Who founded FTX and was charged with fraud?", PASSAGES, wants_person=True)
    assert found[0].short == "Sam Bankman-Fried"
    assert all(f.short != "FTX" for f in found)


def test_a_company_is_not_folded_into_a_product_named_after_it() -> None:
    passages = [
        Passage(1, "Apple 16-inch M3 Max MacBook Pro review: users choose it as a desktop.", "tech:mbp"),
        Passage(2, "Apple never let users choose their browser when setting up an iPhone, said Apple.", "tech:gs"),
    ]
    found = [f.short for f in rank_entities("Which company does not let users choose their browser?", passages)]
    assert found[0] == "Apple" and "Apple 16-inch M3 Max MacBook Pro" in found, found


def test_a_name_backed_on_each_part_of_the_question_beats_one_mentioned_often_on_one_part() -> None:
    search = "Zorblax Search ranks results. Zorblax Search pays for the default. Zorblax Search faced a market trial."
    passages = [
        Passage(1, search, "tech:search-1"),
        Passage(2, search.replace("trial", "ruling"), "tech:search-2"),
        Passage(3, "Quillon leads the e-reader market with its Kindle lineup.", "tech:kindle"),
        Passage(4, "Sellers call selling on Quillon a life-changing opportunity.", "biz:sellers"),
    ]
    question = "Which company leads the e-reader market with its Kindle, and is a life-changing opportunity to sellers?"
    assert rank_entities(question, passages)[0].short == "Quillon"


def test_a_who_question_names_a_person_before_a_company_or_a_title() -> None:
    passages = [
        Passage(1, "SBF Trial: FTX collapse. FTX lost customer funds. FTX filed for bankruptcy.", "tech:trial"),
        Passage(3, "Customers of FTX lost funds at FTX, said a famous investor in FTX, and FTX staff agreed.", "b:1"),
        Passage(4, "The collapse of FTX cost customer funds; lenders to FTX and a famous investor sued FTX.", "b:2"),
        Passage(2, "FTX founder Sam Bankman-Fried was compared to a famous investor.", "tech:profile"),
    ]
    question = "Who is the individual compared to a famous investor who lost customer funds?"
    found = rank_entities(question, passages, wants_person=True)
    assert found[0].short == "Sam Bankman-Fried", [f.short for f in found]
    assert len(found) > 1  # the rest are still candidates, after the person


def test_an_entity_answer_leads_with_the_name_then_its_sentence_and_source() -> None:
    reading = plan_reading("Who founded FTX and was charged with fraud?", PASSAGES)
    assert reading.options[0] == "Sam Bankman-Fried"
    shown = compose(reading, ["Sam Bankman-Fried. He founded it."] * 4)
    assert shown.text.startswith("Sam Bankman-Fried. ") and "[1: tech:ftx-1]" in shown.text
    assert shown.sources == ("tech:ftx-1",) and shown.reader == "extractive"
    voted = compose(reading, ["Alameda Research."] * 3 + ["Sam Bankman-Fried."], readers=ALL_MODEL)
    assert voted.short == "Alameda Research" and voted.reader == "vote"


def test_a_name_from_passages_unrelated_to_the_question_is_no_answer() -> None:
    unrelated = [Passage(1, "The Acme Robotics plant in Berlin opened with Jane Doe.", "acme-2")]
    assert rank_entities("Who founded Zephyr Medical in Lisbon?", unrelated) == []


def test_yes_no_is_the_samples_vote_and_a_majority_of_declines_declines() -> None:
    reading = plan_reading("Was Bankman-Fried charged with fraud?", PASSAGES)
    assert reading.options == ("yes", "no")
    shown = functools.partial(compose, withhold_below=0.0)  # every verdict shown, however unsure
    assert shown(reading, ["Yes. He was.", "No.", "Yes.", MISSING]).short == "Yes"
    tie = shown(reading, ["No.", "Yes.", "No. Not in 2019.", "Yes."])
    assert tie.short == "No", "ties: an earlier sample's"
    assert shown(reading, ["Yes.", "No.", "No.", "Yes."]).short == "Yes", "no prior"
    assert shown(reading, ["No.", "No.", "Yes.", "No."]).short == "No", "the plain vote"
    assert shown(reading, [MISSING, MISSING, MISSING, "Yes."]).text == MISSING
    choice = plan_reading("Is the report consistent or inconsistent with the other?", PASSAGES)
    assert shown(choice, ["Inconsistent."] * 3 + ["Consistent."]).short == "Inconsistent"


SURE = Calibration(bias=5.0)
UNSURE = Calibration(bias=-5.0)


def test_a_verdict_below_even_odds_is_withheld_by_its_own_confidence_and_shows_each_claims_sentence() -> None:
    reading = plan_reading("Was Bankman-Fried charged with fraud?", PASSAGES)
    trusted = compose(reading, ["Yes."] * 4, calibration=SURE)
    assert trusted.short == "Yes" and trusted.confidence.word == "sure" and trusted.verdict
    unsettled = compose(reading, ["Yes."] * 4, calibration=UNSURE)
    assert unsettled.short == "" and unsettled.reader == "unsettled" and not unsettled.verdict
    assert unsettled.text.startswith("Can't tell.") and "Yes" not in unsettled.text
    assert "[1: tech:ftx-1]" in unsettled.text or "[2: biz:ftx-2]" in unsettled.text, "the claim's sentence, cited"
    assert unsettled.confidence.word == "can't tell" and unsettled.confidence.probability == 0.0
    hidden = compose(reading, ["Yes."] * 4, calibration=UNSURE, quote=False)
    assert "Bankman-Fried was c" not in hidden.text and "[1: tech:ftx-1]" in hidden.text, "sources only, unquoted"
    assert compose(reading, ["Yes."] * 4, calibration=UNSURE, withhold_below=0.0).short == "Yes"


def test_an_open_question_gets_the_phrase_the_samples_agree_on() -> None:
    passages = [Passage(1, "AdamSmith: just a reminder about the building's recycling policy, thanks!", "q2:chat")]
    reading = plan_reading("What is the building's policy that Adam reminds Li Hua about?", passages)
    samples = [
        "The building's policy that Adam reminds Li Hua about is recycling.",
        "The building's policy that Adam reminds Li Hua about is a recycling policy.",
        "Adam reminds Li Hua about the recycling policy.",
        MISSING,
    ]
    shown = compose(reading, samples)
    assert shown.short == "recycling policy" and shown.reader == "generated"
    assert compose(reading, samples, readers=ALL_EXTRACTIVE).reader == "extractive"


def test_dates_come_from_the_best_sentence_or_its_passage() -> None:
    found = find_date("When did LiHua ask to move the protein shake?", PASSAGES)
    assert found is not None and found.short == "20260122_14:00"


def test_an_answer_naming_what_its_evidence_does_not_hold_is_unsupported() -> None:
    assert not unsupported("Bankman-Fried was charged with fraud in 2022 [1].", PASSAGES)
    assert unsupported("Bankman-Fried was charged with fraud in 2024.", PASSAGES), "a number the evidence lacks"
    assert unsupported("The Federal Reserve raised interest rates sharply.", PASSAGES)
    assert not unsupported(MISSING, PASSAGES) and not unsupported("Anything at all.", [])


def test_without_quoting_only_the_short_answer_and_its_source_are_shown() -> None:
    reading = plan_reading("Who founded FTX and was charged with fraud?", PASSAGES)
    shown = compose(reading, ["Sam Bankman-Fried."] * 4, quote=False)
    assert shown.text == "Sam Bankman-Fried. [1: tech:ftx-1]"
    opened = plan_reading("What did prosecutors say about customer funds?", PASSAGES)
    assert compose(opened, [MISSING] * 4, quote=False).text == MISSING, "no extract of another edge's sentence"
    said = compose(opened, ["Prosecutors said that he misused them."] * 4, quote=False)
    assert said.short == "said that he misused them" and '"' not in said.text, "a short phrase, no quoted sentence"


def test_a_markdown_heading_names_its_section_not_an_answer() -> None:
    page = Passage(1, "## Security Disclosures\nTo report a vulnerability, use the Tidelift security contact.", "d:u3")
    found = [f.short for f in rank_entities("Which company's security contact should be used?", [page])]
    assert found and found[0] == "Tidelift" and "Security Disclosures" not in found, found


def test_a_question_asking_for_a_library_may_be_answered_by_a_lower_case_name() -> None:
    page = Passage(
        1,
        "This is a little HTTP/1.1 library written from scratch in Python,\nheavily inspired by hyper-h2.\n"
        "It uses `sniffio` and keeps open-source lines-of-code small.",
        "d:h11",
    )
    question = "Which library was h11 heavily inspired by?"
    assert shape_of(question).software == "library"
    ranked = rank_entities(question, [page], software="library")
    found = [f.short for f in ranked]
    assert "hyper-h2" in found[:2], found
    assert "library" in ranked[found.index("hyper-h2")].sentence, "a hard-wrapped line is read as one sentence"
    assert "sniffio" in found and "lines-of-code" not in found and "open-source" not in found
    assert "hyper-h2" not in [f.short for f in rank_entities(question, [page])], "a company question: names only"


def test_only_a_question_asking_for_software_takes_lower_case_names() -> None:
    assert shape_of("Which graph library does leidenalg rely on?").software == "library"
    assert shape_of("What package provides the transport?").shape == Shape.ENTITY
    assert shape_of("Which company owns YouTube?").software == ""
