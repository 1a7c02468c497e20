"""Open questions about what a named person said are answered from that person's own lines, cut short."""

from __future__ import annotations

from shared.reading.compose import compose
from shared.reading.phrases import answer_phrase, asked_speaker, read_utterance, spoken
from shared.reading.plan import plan_reading
from shared.reading.span_reader import Passage

CHAT = Passage(
    1,
    "Time: 20261013_13:30\nTirionFordring: What do you all think we should bring for the evening?\n"
    "GromHellscream: How about adding some lanterns or string lights to brighten the area in the evening? "
    "It would look great.\nMalfurionStormrage: Lanterns are nice. We could also bring blankets for seating.\n"
    "Li Hua: I can bring the speakers for music.",
    "20261013_13:30",
)


def test_the_speaker_is_read_from_the_question() -> None:
    assert asked_speaker("What does GromHellscream suggest to brighten the area?") == "GromHellscream"
    assert asked_speaker("What does Li Hua plan to bring?") == "Li Hua"
    assert asked_speaker("What is the capital of France?") is None


def test_the_speaker_s_own_line_answers_cut_to_what_it_adds() -> None:
    said = read_utterance("What does GromHellscream suggest to brighten the area in the evening?", [CHAT])
    assert said is not None and said.short == "adding some lanterns or string lights"
    seating = read_utterance("What does MalfurionStormrage suggest for seating?", [CHAT])
    assert seating is not None and "blankets" in seating.short, "a line without a name continues the turn"
    assert read_utterance("What does LiHua plan to bring for music?", [CHAT]).short == "speakers"
    assert read_utterance("What does Tirion think about the evening?", [CHAT]) is None, "their own question"
    assert read_utterance("What does Jaina think about the lights?", [CHAT]) is None, "not in the chat"


def test_the_speaker_reader_answers_before_the_samples_and_can_be_turned_off() -> None:
    q = "What does GromHellscream suggest to brighten the area in the evening?"
    shown = compose(plan_reading(q, [CHAT]), ["GromHellscream suggests the area."])
    assert (shown.short, shown.reader) == ("adding some lanterns or string lights", "speaker")


def test_a_restated_tail_is_cut_only_where_a_function_word_opens_it() -> None:
    q = "What is the building policy that Adam reminds Li Hua about?"
    assert answer_phrase(q, "The building policy that Adam reminds Li Hua about is a recycling policy.") == (
        "recycling policy"
    )
    assert answer_phrase("Why does Adam want the window measured?", "To get some curtains made for the window.") == (
        "get some curtains made"
    )


def test_who_said_names_the_speaker_of_the_matching_line_never_one_the_question_names() -> None:
    from shared.reading.phrases import who_said

    found = who_said("Who suggests bringing blankets for seating?", [CHAT])
    assert found is not None and found.short == "MalfurionStormrage"
    assert who_said("Who tells GromHellscream about adding lanterns and string lights?", [CHAT]) is None
    assert who_said("Who won the 2010 World Cup?", [CHAT]) is None


def test_a_who_question_reads_speakers_before_names_and_a_person_is_a_name_not_a_title() -> None:
    from shared.reading.span_reader import rank_entities

    shown = compose(plan_reading("Who offers to bring speakers for music?", [CHAT]), [])
    assert (shown.short, shown.reader) == ("Li Hua", "speaker")
    article = Passage(1, "The CEO of FTX spoke. Sam Bankman-Fried, the CEO of FTX, faces a fraud trial.", "a")
    ranked = rank_entities("Who is the individual facing a fraud trial?", [article], wants_person=True)
    assert ranked[0].short == "Sam Bankman-Fried"


def test_every_sentence_keeps_its_own_speaker_even_one_said_twice() -> None:
    text = "Notes first.\nAdam: Hi there. Sounds good.\nJake: Hey. Sounds good."
    said = [(speaker, sentence) for speaker, _, sentence in spoken(text)]
    assert [s for s, sentence in said if sentence == "Sounds good."] == ["Adam", "Jake"]
    assert said[0][0] == "", "a sentence before the first 'Name:' line has no speaker"
